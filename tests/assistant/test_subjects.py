"""Subject preflight: identity authorises, ambiguity asks, a decided choice discloses its runner-up."""

from __future__ import annotations

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
from tests.assistant.fakes import catalogue

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
