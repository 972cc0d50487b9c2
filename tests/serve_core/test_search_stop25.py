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
    ("combien de jours de vacances payées a un salarié par an", "an"),  # concept2 conceptual-402: a year
    ("can my son inherit his father's house", "son"),  # the child, not « son » (his)
    ("compensation of war damage to houses in Luxembourg", "war"),  # concept7 conceptual-1605
    ("how long does copyright last after the author dies", "dies"),  # concept6 conceptual-1401
    ("associations sans but lucratif", "but"),  # no language told: a search word, as before
])
def test_a_colliding_word_used_as_content_stays_a_search_word(question: str, kept: str) -> None:
    assert kept not in _stops(question)


@pytest.mark.parametrize(("question", "dropped"), [
    ("Datenpanne Meldung an die Aufsichtsbehörde", {"an", "die"}),  # German: its own stop words
    ("Mieterhöhung für eine Wohnung in Luxemburg", {"fur", "in"}),
    ("notice period for dismissal of an employee", {"for", "of", "an"}),  # English "an"
    ("rembourser son crédit à la consommation avant l'échéance", {"son", "la"}),  # French « son »
])
def test_a_colliding_word_of_the_questions_own_language_is_a_stop_word(question: str, dropped: set[str]) -> None:
    assert dropped <= _stops(question)


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


def test_the_fixture_search_plans_a_year_and_drops_a_german_article(fixture_core: LegalCore) -> None:
    # « par an »: the French year is a search word of both publishers' plans (before: left out as "an")
    for terms in _plan_terms(fixture_core, "jours de congé par an").values():
        assert "an" in terms
    # a German question's own stop words are not its search words (before: "die" was planned, then relaxed)
    for terms in _plan_terms(fixture_core, "Meldung an die Aufsichtsbehörde").values():
        assert "an" not in terms and "die" not in terms
