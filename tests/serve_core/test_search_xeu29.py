"""Issue #15, twenty-eighth session (xeu29): a German question's title precision is weighed against the
French titles its translated terms can match.

The ranking's subject factor and each section's ``top_title_match`` weigh a work by the share of its title
subject's words the question holds (``ranking.title_precision``). An EUR-Lex act is titled in English and in
French, and the subject taken was the shortest of all its titles — almost always the English one. A German
question is searched through the cross-language lexicon's French terms (no held act is titled in German), so
every EU act counted as titled by none of it. ``ranking.title_subjects`` keeps each title language's subject,
and ``ranking.title_language_subject`` weighs a German question against the French one
(``ranking.TITLE_LANGUAGES``; docs/adr/0079). Real fixture corpus (``LEX_FIXTURES``) and pure checks.
"""

from __future__ import annotations

import pytest

from serve.core import LegalCore, ranking
from serve.core.ops import search
from serve.core.searchplan import ActName

EU = "eu-eurlex"
GDPR = "eu-eurlex:32016r0679"
#: "Recht auf Löschung personenbezogener Daten" as the planner groups it: each German word with its forms
#: and its French terms from the cross-language lexicon (the first term of a group is the question's word).
GERMAN_GROUPS = [["recht", "droit"], ["loschung", "effacement"],
                 ["personenbezogener daten", "donnees a caractere personnel"]]
#: The same French terms asked by a French question: its words are French.
FRENCH_GROUPS = [["droit"], ["effacement"], ["donnees a caractere personnel"]]


def _precision(core: LegalCore, work: str, groups: list[list[str]]) -> float:
    index = core.indexes[EU]
    rowid = index.catalogue.rowid_of[work.split(":")[1]]
    with index.session(60.0) as conn:
        return search.works_subject_precision(conn, [rowid], groups, index)[rowid]


def test_a_german_question_is_weighed_against_the_french_title_of_an_eu_act(fixture_core: LegalCore) -> None:
    # the GDPR's shortest title subject is the English one ("on the protection of natural persons with
    # regard to the processing of personal data …"): no French term of the question is in it
    index = fixture_core.indexes[EU]
    rowid = index.catalogue.rowid_of[GDPR.split(":")[1]]
    with index.session(60.0) as conn:
        titles = [(str(v), str(lang)) for v, lang in conn.execute(
            "SELECT value, language FROM work_names WHERE work_rowid = ? AND kind = 'official_title'", (rowid,))]
    subjects = ranking.title_subjects(titles)
    assert {"personal", "data"} <= subjects.shortest and "donnees" not in subjects.shortest
    assert {"donnees", "caractere", "personnel"} <= subjects.by_language["fr"]
    assert search.groups_language(GERMAN_GROUPS) == "de"
    # weighed against the French title, the question's French terms are half of its subject's words or so
    assert _precision(fixture_core, GDPR, GERMAN_GROUPS) > 0.2


def test_a_french_question_keeps_the_shortest_title_subject(fixture_core: LegalCore) -> None:
    # measured on the readable judgments: French and English questions weighed against their own
    # language's titles moved 16 cases, 5 of them down (docs/adr/0079), so they keep the shortest subject
    assert search.groups_language(FRENCH_GROUPS) == "fr"
    assert _precision(fixture_core, GDPR, FRENCH_GROUPS) == 0.0


def test_the_title_language_of_each_question_language() -> None:
    subjects = ranking.title_subjects([
        ("Regulation (EU) 2099/1 of the European Parliament and of the Council of 1 January 2099 on unicorn stables",
         "en"),
        ("Règlement (UE) 2099/1 du Parlement européen et du Conseil du 1er janvier 2099 relatif aux écuries de "
         "licornes et à l'entretien", "fr")])
    assert subjects.shortest == frozenset({"unicorn", "stables"})
    assert subjects.by_language["fr"] == frozenset({"ecuries", "licornes", "entretien"})
    assert ranking.title_language_subject(subjects, "de") == subjects.by_language["fr"]
    for language in ("fr", "en", None):
        assert ranking.title_language_subject(subjects, language) == subjects.shortest
    # a Legilux act titled in French only: its French subject is its shortest, whatever the question
    french = ranking.title_subjects([("Loi du 1er janvier 2099 relative aux écuries de licornes", "")])
    assert ranking.title_language_subject(french, "de") == french.shortest == frozenset({"ecuries", "licornes"})


def test_the_serving_table_packs_the_subjects_and_weighs_them_alike() -> None:
    """The title-subject table keeps each subject as a sorted tuple of distinct words, only the languages a
    question reads, none where every question reads the shortest (worker memory), and the title share of
    every question language is the one the sets give."""
    subjects = ranking.title_subjects([
        ("Regulation (EU) 2099/1 of the European Parliament and of the Council of 1 January 2099 on unicorn stables",
         "en"),
        ("Règlement (UE) 2099/1 du Parlement européen et du Conseil du 1er janvier 2099 relatif aux écuries de "
         "licornes et à l'entretien", "fr")])
    packed = search._interned(subjects)
    assert packed.shortest == ("stables", "unicorn") and dict(packed.by_language) == {
        "fr": ("ecuries", "entretien", "licornes")}
    asked = frozenset({"licornes", "unicorn", "ecuries"})
    for language in ("de", "fr", "en", None):
        assert ranking.title_precision(ranking.title_language_subject(packed, language), asked) == \
            ranking.title_precision(ranking.title_language_subject(subjects, language), asked)
    french = search._interned(ranking.title_subjects([("Loi du 1er janvier 2099 relative aux écuries de licornes", "")]))
    assert french.shortest == ("ecuries", "licornes") and not french.by_language


def test_a_german_words_french_term_matches_the_titles_by_its_stem() -> None:
    # « consommateur » is the lexicon's French for "Verbrauch"; the title of the consumer-goods sales
    # directive says « biens de consommation »: the stem « consomm » holds both
    assert search._french_word("consommateur") == "consomm*"
    assert search._french_word("biens") == "bien*" and search._french_word("vente") == "vente*"


def test_a_german_compound_name_finds_the_act_titled_by_a_word_of_its_terms_family(fixture_core: LegalCore) -> None:
    # "Datenverarbeitungsverordnung" cut as « données » + « traiter »: the GDPR's names say « traitement des
    # données » (« … à l'égard du traitement des données à caractère personnel … »), never « traiter »
    index = fixture_core.indexes[EU]
    shape = ActName("subject", ("daten", "verarbeitung"), "datenverarbeitungsverordnung", eu_form="regulation",
                    alternatives=(("donnees",), ("traiter",)))
    with index.session(60.0) as conn:
        found = search.form_titled_works(conn, shape)
    assert found == sorted([index.catalogue.rowid_of["32016r0679"], index.catalogue.rowid_of["32016r0679r(02)"]])


@pytest.mark.parametrize("legilux", [False, True])
def test_title_subjects_reads_each_title_once_with_the_same_words(legilux: bool) -> None:
    """``title_subjects`` remembers each title's subject between the shortest subject and its
    language's: the same words as each asked afresh, each title's subject computed once."""
    titles = [
        ("Directive 2009/28/EC of the European Parliament and of the Council of 23 April 2009 on the promotion "
         "of the use of energy from renewable sources and amending Directives 2001/77/EC", "en"),
        ("Directive 2009/28/CE du Parlement européen et du Conseil du 23 avril 2009 relative à la promotion de "
         "l'utilisation de l'énergie produite à partir de sources renouvelables", "fr"),
        ("Loi du 22 février 1968 sur la nationalité luxembourgeoise", "fr"),
        ("Code du travail", "fr"),
        ("Richtlinie 2009/28/EG des Europäischen Parlaments und des Rates vom 23. April 2009", "de"),
    ]
    found = ranking.title_subjects(titles, legilux)
    shortest = ranking.subject_words([t for t, _ in titles], legilux)
    by_language = {language: ranking.subject_words([t for t, lang in titles if lang == language], legilux)
                   for language in ("de", "en", "fr")}
    assert found.shortest == shortest
    assert dict(found.by_language) == {k: v for k, v in by_language.items() if v}
    asked: list[str] = []
    subject = ranking.title_subject
    try:
        ranking.title_subject = lambda title, heads=None: asked.append(title) or subject(title, heads)  # type: ignore[assignment]
        assert ranking.title_subjects(titles, legilux) == found
    finally:
        ranking.title_subject = subject  # type: ignore[assignment]
    assert sorted(asked) == sorted(t for t, _ in titles)
