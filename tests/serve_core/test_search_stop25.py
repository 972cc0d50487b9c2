"""Issue #15, stop25: stop words of one language that are content words of another.

The query side dropped or relaxed away the words of the French, English and German stop lists
together: « l'Our » (a Luxembourg river) as English "our", « par an » as the English article, English
"son" as the French possessive, "war" and "die" as German stop words. A colliding word
(:data:`derive.index.relax.CONTENT_ELSEWHERE`) is now a stop word only in a question whose language
lists it (told by its other words, else the caller's language filter; after « l' / d' » it is French),
and a content word otherwise: searched, weighed and required like any other word
(:func:`serve.core.searchplan.question_stop_words`, :func:`derive.index.relax.relaxable_term`, ADR 0054).
"""

from __future__ import annotations

from typing import Any

import pytest

from derive.index import relax
from derive.index.text import normalize
from serve.core import LegalCore
from serve.core.searchplan import question_stop_words


def _stops(question: str, language: str | None = None) -> set[str]:
    tokens = normalize(question).split()
    return {t for t in tokens if t in question_stop_words(tokens, language)}


@pytest.mark.parametrize(("question", "kept"), [
    ("déclaration du Parc naturel de l'Our", "our"),  # lu14 short_title-1713: after « l' », French
    ("comparer la loi de 1928 et la loi de 2023 sur les associations sans but lucratif", "but"),  # holdout2 102
    ("associations sans but lucratif", "but"),  # holdout2 ambiguity-104: no language told, a search word
    ("can my son inherit his father's house", "son"),  # the child, not « son » (his)
    ("ban on cat and dog fur", "fur"),  # not German « für »
])
def test_a_colliding_word_used_as_content_stays_a_search_word(question: str, kept: str) -> None:
    assert kept not in _stops(question)
    assert not relax.relaxable_term(kept)  # searched, weighed and required like any other word


@pytest.mark.parametrize("word", ["an", "war", "die", "dies", "hat"])
def test_the_collisions_measured_and_left_out_keep_their_old_treatment(word: str) -> None:
    # « par an », "war damage", "the author dies": required, each moved a judged case down (ADR 0054)
    assert word not in relax.CONTENT_ELSEWHERE
    assert relax.relaxable_term(word)


@pytest.mark.parametrize(("question", "dropped"), [
    ("Mieterhöhung für eine Wohnung in Luxemburg", {"fur", "in"}),  # German: its own stop word
    ("notice period for dismissal of an employee", {"for", "of", "an"}),  # English "an"
    ("rembourser son crédit à la consommation avant l'échéance", {"son", "la"}),  # French « son »
])
def test_a_colliding_word_of_the_questions_own_language_is_a_stop_word(question: str, dropped: set[str]) -> None:
    assert dropped <= _stops(question)


def test_a_word_after_a_french_elision_is_french() -> None:
    # an English question on the river: "our" is an English stop word, but « l'Our » is French
    assert "our" not in _stops("rules for the nature park of l'Our")
    assert "our" in _stops("rules for our nature park")


def test_the_language_filter_decides_when_the_words_do_not() -> None:
    # "son" alone tells no language; asked of English text it is the child, of French text the possessive
    assert "son" not in _stops("son", "en")
    assert "son" in _stops("son", "fr")
    assert "son" not in _stops("son")  # no language at all: a search word, as before the change


def test_the_colliding_word_does_not_vote_for_the_language_that_lists_it() -> None:
    # "son" is a French-only stop word: counted, it tied "my son inherit" between French and English
    assert relax.content_stop_words(["my", "son", "inherit"], ["en"]) == {"son"}
    assert relax.content_stop_words(["my", "son", "inherit"], ["fr"]) == frozenset()
    assert "son" not in _stops("my son inherit")


def test_a_question_without_colliding_words_keeps_the_parsers_stop_words() -> None:
    from derive.index.query import STOP_WORDS
    tokens = normalize("conditions pour devenir avocat au Luxembourg").split()
    assert question_stop_words(tokens, None) is STOP_WORDS


def test_relaxation_drops_a_stop_word_but_not_a_kept_colliding_word() -> None:
    terms = ["can", "son", "inherit"]
    first = next(relax.relaxations(terms, [[t] for t in terms]))
    assert first.reason == "stop_words_dropped"
    assert first.dropped == ("can",)
    assert relax.relaxable("son") and not relax.relaxable_term("son")  # raw words: the union lists still
    assert relax.relaxable_term("can")


def _plan_terms(core: LegalCore, query: str) -> dict[str, list[str]]:
    answer: dict[str, Any] = core.call("search", {"query": query})
    return {s["publisher"]: s["query_plan"]["terms"] for s in answer["publishers"]}


def test_the_fixture_search_keeps_but_lucratif_and_drops_the_french_possessive(fixture_core: LegalCore) -> None:
    # « sans but lucratif » (held by the fixture Legilux laws loi-1982-11-25-n2 and loi-2011-04-08-n2):
    # « but » is a search word the title factors weigh
    answer: dict[str, Any] = fixture_core.call("search", {"query": "association sans but lucratif"})
    for section in answer["publishers"]:
        assert "but" in section["query_plan"]["terms"]
    # a content word now, « but » makes the fourth word of the majority-of-words lane: the 1982 law's
    # « organisme de droit privé sans but lucratif » is found (before: three content words, no such lane)
    legilux = next(s for s in answer["publishers"] if s["publisher"] == "lu-legilux")
    assert "lu-legilux:loi-1982-11-25-n2" in [h["work"] for h in legilux["hits"]]
    # a French question's « son » is its possessive: not a search word (before: planned, then relaxed)
    for terms in _plan_terms(fixture_core, "indemnité du salarié selon son ancienneté").values():
        assert "son" not in terms
