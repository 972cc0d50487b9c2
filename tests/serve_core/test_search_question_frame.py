"""Issue #15, conceptual questions: the words that only frame a question asked in plain words
("combien", "peut-on", "faut-il", "must", "darf") neither count as its subject nor are required
of a provision. Unit checks of the rule, then the search on the real fixture corpus
(``LEX_FIXTURES``)."""

from __future__ import annotations

from typing import Any

from derive.index import relax
from serve.core import LegalCore
from serve.core.searchplan import without_question_frame

EU, LU = "eu-eurlex", "lu-legilux"


def _section(core: LegalCore, query: str, publisher: str) -> dict[str, Any]:
    answer = core.call("search", {"query": query, "fuzzy": "off"})
    return dict(next(s for s in answer["publishers"] if s["publisher"] == publisher))


def test_question_frame_words_are_relaxable_not_subject_words() -> None:
    for word in ("combien", "peut", "faut", "dois", "mon", "apres", "must", "should", "may", "darf", "muss", "wann"):
        assert relax.relaxable(word), word
        assert relax.light_stem(word) is None
    # words that can name a legal subject stay search words
    for word in ("long", "lange", "will", "man", "mine", "conge", "maternite", "loyer"):
        assert not relax.relaxable(word), word


def test_a_plain_question_searches_its_subject_words() -> None:
    assert without_question_frame(["peut", "on", "licencier", "salarie", "arret", "maladie"]) == \
        ["licencier", "salarie", "arret", "maladie"]
    # a pronoun goes only with a frame word: "on" is a search word of a plain list of words
    assert without_question_frame(["il", "bailleur", "loyer"]) == ["il", "bailleur", "loyer"]
    assert without_question_frame(["combien", "semaines", "dure", "conge", "maternite"]) == \
        ["semaines", "dure", "conge", "maternite"]
    # fewer than two other words: the question is kept whole
    assert without_question_frame(["combien", "loyer"]) == ["combien", "loyer"]
    assert without_question_frame(["must", "should"]) == ["must", "should"]


def test_the_verb_become_frames_a_question() -> None:
    # "devenir" / "become" never names a legal subject, yet it is rarer in the texts than the
    # subject words ("devenir": 95 Legilux provisions, "conditions": 13,422), so as a search word it
    # carried the any-word quorum's rarity share and left "conditions pour devenir luxembourgeois
    # par naturalisation" with no hits
    for word in ("devenir", "become"):
        assert relax.relaxable(word), word
    assert without_question_frame(["conditions", "devenir", "luxembourgeois", "naturalisation"]) == \
        ["conditions", "luxembourgeois", "naturalisation"]
    assert without_question_frame(["conditions", "become", "citizen", "union"]) == ["conditions", "citizen", "union"]


def test_a_question_word_no_provision_holds_does_not_empty_the_answer(fixture_core: LegalCore) -> None:
    # "combien" is in no provision (a law does not ask how much): it was required of every
    # provision, then withheld every relaxation as an unknown term, and the question answered
    # nothing; its subject words now find the law on the congé culturel directly
    section = _section(fixture_core, "combien de jours de congé culturel", LU)
    assert section["relaxation_withheld"] is None
    assert section["hits"][0]["work"] == f"{LU}:loi-2023-01-06-a16"
    assert section["hits"][0]["match_reasons"] == ["keyword"]


def test_a_question_frame_word_is_dropped_when_the_words_are_relaxed(fixture_core: LegalCore) -> None:
    # with fewer than two other words the question is kept whole; when nothing holds every word
    # the relaxation drops "faut" with the stop words and finds the rent subsidy law
    section = _section(fixture_core, "faut-il payer une subvention de loyer", LU)
    assert section["hits"][0]["work"] == f"{LU}:loi-2022-07-22-a396"
    relaxed = section["query_relaxed"]
    assert relaxed is not None and "faut" not in relaxed["to"]


def test_filler_words_of_a_plain_question_frame_it() -> None:
    # "wie hoch darf … sein", "beaucoup de", "si je", "got": no act holds them as a subject; required
    # of a provision they left "wie hoch darf die Mietkaution sein" with no hit (eleventh session)
    for word in ("hoch", "sein", "beaucoup", "si", "got"):
        assert relax.relaxable(word), word
    assert without_question_frame(["wie", "hoch", "darf", "miet", "kaution", "sein"]) == ["wie", "miet", "kaution"]
