"""Subject preflight: identity authorises, ambiguity asks, a decided choice discloses its runner-up."""

from __future__ import annotations

import datetime as dt

import pytest

from assistant.subjects import (
    CHOICE_PREFIX,
    NONE_OF_THESE,
    article_number,
    choice_label,
    cites_instrument_by_date,
    resolve_subject,
)
from assistant.text import normalize
from tests.assistant.fakes import RECORDS, catalogue

INDEX = catalogue()


def works(question: str, **kwargs: object) -> list[str]:
    preflight = resolve_subject(INDEX, question, "en", **kwargs)  # type: ignore[arg-type]
    assert preflight.authority is not None, preflight.trace
    return [m.work for m in preflight.authority.members]


@pytest.mark.parametrize("question", [
    "What does CELEX 32016R0679 say?",
    "Show eu-eurlex:32016r0679",
    "Article 6 of Regulation (EU) 2016/679",
    "What does the GDPR say?",
    "Article 6 of the General Data Protection Regulation",
    "the text of http://data.europa.eu/eli/reg/2016/679/oj please",
])
def test_identifiers_titles_and_short_titles_authorise(question: str) -> None:
    assert works(question) == ["eu-eurlex:32016r0679"]


@pytest.mark.parametrize(("question", "work"), [
    ("Was sagt Artikel 92 der Verordnung (EU) Nr. 575/2013?", "eu-eurlex:32013r0575"),
    ("Zeige Artikel 3 der Richtlinie 2013/36/EU am 3. Januar 2018.", "eu-eurlex:32013l0036"),
])
def test_german_act_forms_with_numbers_authorise(question: str, work: str) -> None:
    assert works(question) == [work]


def test_legilux_eli_and_title() -> None:
    assert works("Timeline of http://data.legilux.public.lu/eli/etat/leg/loi/2006/07/31/n2/jo") == [
        "lu-legilux:loi-2006-07-31-n2"]
    assert works("Que dit l'article L. 121-1 du Code du travail ?") == ["lu-legilux:loi-2006-07-31-n2"]


def test_alias_never_authorises_it_asks() -> None:
    preflight = resolve_subject(INDEX, "What does code securite sociale say?", "en")
    assert preflight.authority is None and preflight.clarification is not None
    assert preflight.clarification.choices[0].value == CHOICE_PREFIX + "lu-legilux:loi-1925-12-17-n1"
    assert preflight.clarification.choices[-1].value == NONE_OF_THESE


def test_ambiguous_short_title_becomes_a_clarification() -> None:
    preflight = resolve_subject(INDEX, "What does the CRD require?", "en")
    assert preflight.authority is None and preflight.clarification is not None
    assert "short title" in preflight.clarification.question
    values = [c.value for c in preflight.clarification.choices]
    assert values == [CHOICE_PREFIX + "eu-eurlex:32013l0036", CHOICE_PREFIX + "eu-eurlex:32019l0878", NONE_OF_THESE]


def test_containment_decides_and_discloses_the_runner_up() -> None:
    question = ("What does Article 26 of Regulation (EU) No 575/2013 of the European Parliament and of the "
                "Council of 26 June 2013 on prudential requirements for credit institutions and investment "
                "firms and amending Regulation (EU) No 648/2012 say?")
    preflight = resolve_subject(INDEX, question, "en")
    assert preflight.authority is not None
    assert [m.work for m in preflight.authority.members] == ["eu-eurlex:32013r0575"]
    assert preflight.authority.disclosure is not None
    assert preflight.authority.disclosure.runner_up_work == "eu-eurlex:32012r0648"
    assert preflight.trace["status"] == "contained"


def test_trailing_clause_is_demoted() -> None:
    question = "Article 17 of the MAR and repealing CELEX 32012R0648"
    preflight = resolve_subject(INDEX, question, "en")
    assert preflight.authority is not None and preflight.trace["status"] == "demoted"
    assert [m.work for m in preflight.authority.members] == ["eu-eurlex:32014r0596"]


def test_two_plainly_named_works_are_a_compound_subject() -> None:
    assert works("Compare the timelines of the GDPR and the CRR") == ["eu-eurlex:32016r0679", "eu-eurlex:32013r0575"]


def test_a_date_never_selects_an_act() -> None:
    assert cites_instrument_by_date(normalize("Que prévoit la loi du 5 avril 1993 ?"))
    preflight = resolve_subject(INDEX, "Que prévoit la loi du 5 avril 1993 ?", "fr")
    assert preflight.authority is None and preflight.clarification is not None
    assert preflight.clarification.status == "unresolved" and not preflight.clarification.choices
    # A bare date, with no act form, never selects the act of that date (one is held).
    for question in ("What does 17 December 1925 say?", "Que dit le texte du 17 décembre 1925 ?",
                     "Was galt am 17. Dezember 1925?", "Show 1925-12-17."):
        bare = resolve_subject(INDEX, question, "en")
        assert bare.authority is None and not bare.trace.get("citations"), question


# --- dated citations: an act form and a day select exactly one held act ----------------------

#: Real Legilux works of the full corpus that share a type and a day (``loi``, 1963-06-22).
SAME_DAY = [
    {"work": "lu-legilux:loi-1963-06-22-n1",
     "title": "Loi du 22 juin 1963 fixant le régime des traitements des fonctionnaires de l'Etat.",
     "identifiers": ["http://data.legilux.public.lu/eli/etat/leg/loi/1963/06/22/n1"]},
    {"work": "lu-legilux:loi-1963-06-22-n2",
     "title": "Loi du 22 juin 1963 portant fixation de la valeur numérique des traitements des "
              "fonctionnaires de l'Etat ainsi que des modalités de mise en vigueur de la loi du 22 juin "
              "1963 fixant le régime des traitements des fonctionnaires de l'Etat.",
     "identifiers": ["http://data.legilux.public.lu/eli/etat/leg/loi/1963/06/22/n2"]},
]


@pytest.mark.parametrize(("question", "words"), [
    ("Que disait la loi du 17 décembre 1925 au 1er janvier 2000 ?", "loi du 17 décembre 1925"),
    ("Que disait la loi modifiée du 17 décembre 1925 ?", "loi modifiée du 17 décembre 1925"),
    ("What did the Law of 17 December 1925 say on 1 January 2000?", "Law of 17 December 1925"),
    ("What does the Act of December 17th, 1925 say?", "Act of December 17th, 1925"),
    ("Was sagte das Gesetz vom 17. Dezember 1925 am 1. Januar 2000?", "Gesetz vom 17. Dezember 1925"),
    ("Que dit la loi du 17/12/1925 ?", "loi du 17/12/1925"),
])
def test_a_dated_citation_matching_one_held_act_selects_it(question: str, words: str) -> None:
    preflight = resolve_subject(INDEX, question, "fr")
    assert preflight.authority is not None, preflight.trace
    [member] = preflight.authority.members
    assert member.work == "lu-legilux:loi-1925-12-17-n1" and member.source == "dated_citation"
    assert member.citation is not None and member.citation.words == words
    assert preflight.trace["citations"] == [{"words": words, "types": ["loi"], "day": "1925-12-17",
                                             "works": ["lu-legilux:loi-1925-12-17-n1"]}]


def test_act_identity_comes_from_the_official_identifier_never_a_title() -> None:
    from assistant.subjects import WorkName, act_identity

    eli = "http://data.legilux.public.lu/eli/etat/leg/rgd/1998/08/03/n4"
    assert act_identity(WorkName("lu-legilux:rgd-1998-08-03-n4", "identifier", normalize(eli), eli)) == (
        "rgd", dt.date(1998, 8, 3))
    title = "Loi du 22 juin 1963 fixant le régime des traitements"
    assert act_identity(WorkName("lu-legilux:loi-1963-06-22-n1", "title", normalize(title), title)) is None
    celex = WorkName("eu-eurlex:32016r0679", "identifier", "32016r0679", "32016R0679")
    assert act_identity(celex) is None


def test_a_dated_citation_matching_several_held_acts_asks_with_candidates() -> None:
    index = catalogue([*RECORDS, *SAME_DAY])
    preflight = resolve_subject(index, "Que disait la loi du 22 juin 1963 au 1er janvier 1990 ?", "fr")
    assert preflight.authority is None and preflight.clarification is not None
    clar = preflight.clarification
    assert clar.status == "ambiguous" and "loi du 22 juin 1963" in clar.question and "(2)" in clar.question
    assert [c.value for c in clar.choices] == [CHOICE_PREFIX + "lu-legilux:loi-1963-06-22-n1",
                                               CHOICE_PREFIX + "lu-legilux:loi-1963-06-22-n2", NONE_OF_THESE]
    assert preflight.trace["citations"][0]["works"] == ["lu-legilux:loi-1963-06-22-n1",
                                                        "lu-legilux:loi-1963-06-22-n2"]
    # The full official title still decides (it contains the citation), disclosing the other act.
    titled = resolve_subject(index, "Article 1 de la loi du 22 juin 1963 fixant le régime des traitements "
                                    "des fonctionnaires de l'Etat", "fr")
    assert titled.authority is not None and titled.trace["status"] == "contained"
    assert [m.work for m in titled.authority.members] == ["lu-legilux:loi-1963-06-22-n1"]
    assert titled.authority.members[0].source == "title"


def test_a_menu_of_several_is_bounded() -> None:
    many = [{"work": f"lu-legilux:loi-2016-07-23-n{i}", "title": f"Loi du 23 juillet 2016 ({i})"}
            for i in range(1, 8)]
    preflight = resolve_subject(catalogue([*RECORDS, *many]), "What did the law of 23 July 2016 say?", "en")
    assert preflight.clarification is not None and "(7)" in preflight.clarification.question
    assert len(preflight.clarification.choices) == 4  # three acts and "None of these"


def test_a_dated_citation_matching_no_held_act_asks() -> None:
    near = resolve_subject(INDEX, "Que dit la loi du 18 décembre 1925 ?", "fr")
    assert near.authority is None and near.clarification is not None
    assert near.clarification.status == "unresolved" and "loi du 18 décembre 1925" in near.clarification.question
    assert [c.value for c in near.clarification.choices] == [
        CHOICE_PREFIX + "lu-legilux:loi-1925-12-17-n1", NONE_OF_THESE]
    assert near.trace["citations"][0]["works"] == []
    # Another type on the same day matches nothing: the type is part of the identity.
    other = resolve_subject(INDEX, "What does the grand-ducal regulation of 17 December 1925 say?", "en")
    assert other.authority is None and other.clarification is not None
    assert not other.clarification.choices
    # A form that names no held type, or an impossible day, never resolves.
    for question in ("Que dit le règlement du 17 décembre 1925 ?", "Que dit la loi du 31 février 1925 ?"):
        asked = resolve_subject(INDEX, question, "fr")
        assert asked.authority is None and asked.clarification is not None, question


def test_a_dated_citation_is_a_mention_like_any_other() -> None:
    # The amending law is the subject; the amended code, after "modifiant", is the disclosed runner-up.
    preflight = resolve_subject(INDEX, "Article 3 de la loi du 31 juillet 2006 modifiant le Code de la "
                                       "consommation", "fr")
    assert preflight.authority is not None and preflight.trace["status"] == "demoted"
    assert [m.work for m in preflight.authority.members] == ["lu-legilux:loi-2006-07-31-n2"]
    assert preflight.authority.disclosure is not None
    assert preflight.authority.disclosure.runner_up_work == "lu-legilux:loi-2011-04-08-n2"
    # A citation of the work another name also gives is one subject, authorised by that name.
    same = resolve_subject(INDEX, "Le Code du travail (loi du 31 juillet 2006) au 1er janvier 2020", "fr")
    assert same.authority is not None and same.authority.members[0].source == "title"
    # A quoted citation is untrusted text: blanked before the preflight, it selects nothing.
    from assistant.untrusted import own_words

    quoted = own_words('Mon collègue cite « la loi du 17 décembre 1925 ». Quelles sources sont chargées ?')
    assert resolve_subject(INDEX, quoted.text, "fr").authority is None


def test_an_unheld_identifier_is_unresolved() -> None:
    preflight = resolve_subject(INDEX, "What does CELEX 32099R9999 say?", "en")
    assert preflight.clarification is not None and preflight.clarification.status == "unresolved"


def test_no_named_subject_is_neither() -> None:
    preflight = resolve_subject(INDEX, "Show coverage.", "en")
    assert preflight.authority is None and preflight.clarification is None


def test_anaphora_carries_the_stored_context_and_an_unknown_work_breaks_it() -> None:
    context = {"members": [{"work": "eu-eurlex:32013r0575", "exact_lex_id": None}], "article_number": "92"}
    preflight = resolve_subject(INDEX, "And what did it say in 2020?", "en", context=context)
    assert preflight.authority is not None and preflight.authority.status == "carried"
    assert preflight.authority.article_number == "92"
    forged = {"members": [{"work": "eu-eurlex:99999r9999"}]}
    assert resolve_subject(INDEX, "And what did it say?", "en", context=forged).authority is None


def test_a_menu_click_confirms_and_keeps_the_previous_article() -> None:
    preflight = resolve_subject(INDEX, CHOICE_PREFIX + "eu-eurlex:32013l0036", "en",
                                previous_turn="What does Article 74 of the CRD require?")
    assert preflight.authority is not None
    assert preflight.authority.members[0].work == "eu-eurlex:32013l0036"
    assert preflight.authority.article_number == "74"


def test_refs_are_opaque_and_bounded() -> None:
    question = " and ".join(["GDPR", "CRR", "EMIR", "MAR", "EUMR", "Code du travail", "Code de la consommation",
                             "Constitution luxembourgeoise", "Directive (EU) 2015/2302"])
    preflight = resolve_subject(INDEX, question, "en")
    assert preflight.authority is not None
    refs = preflight.authority.refs()
    assert list(refs) == [f"subject_{i}" for i in range(1, 9)]


@pytest.mark.parametrize(("text", "expected"), [
    ("article 6", "6"), ("art 1er", "1er"), ("article premier", "1er"), ("article 42 bis", "42 bis"),
    ("no article here", None),
])
def test_article_numbers(text: str, expected: str | None) -> None:
    assert article_number(normalize(text)) == expected


def test_choice_labels_are_bounded_and_keyed() -> None:
    label = choice_label("eu-eurlex:32013r0575", "Regulation " + "x" * 200)
    assert len(label) <= 100 and label.endswith("[k: eu-eurlex:32013r0575]")
