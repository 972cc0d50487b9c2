"""Issue #15, nineteenth pass: one more way a question about nothing the corpora hold was answered.

An English question asked of Legilux is searched through the cross-language lexicon, and the words
nothing translates were dropped as fillers: "*bobsleigh* track safety regulation" became "safety
regulation". A word that no mounted index holds in any form, although EUR-Lex holds English text,
is what the question is about (:func:`serve.core.ops.search.unheld_words`), with or without fuzzy
matching (the retrieval benchmark searches its non-fuzzy cases with ``fuzzy: off``).
"""

from __future__ import annotations

from typing import Any

import pytest

from serve.core import LegalCore
from serve.core.ops.search import unheld_words

EU, LU = "eu-eurlex", "lu-legilux"


def _sections(core: LegalCore, query: str, **args: Any) -> dict[str, dict[str, Any]]:
    answer = core.call("search", {"query": query, **args})
    return {s["publisher"]: s for s in answer["publishers"]}


@pytest.mark.parametrize("fuzzy", ["auto", "off"])
def test_an_english_word_no_index_holds_is_not_dropped_as_a_filler(fixture_core: LegalCore, fuzzy: str) -> None:
    # before: the Legilux section dropped "bobsleigh" (and "track") as untranslated fillers and
    # answered "safety regulation" with ten relaxed hits on fire safety in schools
    sections = _sections(fixture_core, "bobsleigh track safety regulation", fuzzy=fuzzy)
    assert sections[LU]["hits"] == [] and sections[LU]["query_relaxed"] is None
    assert sections[LU]["relaxation_withheld"]["reason"] == "unknown_terms"
    assert "bobsleigh" in sections[LU]["relaxation_withheld"]["terms"]
    assert sections[EU]["relaxation_withheld"] == {"reason": "unknown_terms", "terms": ["bobsleigh"]}


def test_an_untranslated_word_another_index_holds_is_still_a_filler(fixture_core: LegalCore) -> None:
    # "track" is held by EUR-Lex's English text: a word of the corpus, dropped beside the translated
    # words when Legilux holds none of it (the rule of relax.untranslated_fillers, unchanged)
    assert unheld_words(["track", "safety", "regulation"], "en", {"en", "fr"}, {"track", "safety", "regulation"}) \
        == frozenset()
    sections = _sections(fixture_core, "track safety of workers")
    assert sections[LU]["hits"] and sections[LU]["relaxation_withheld"] is None
    assert sections[LU]["query_relaxed"]["dropped"] == ["track"]


def test_unheld_words_need_an_index_holding_the_question_s_language() -> None:
    terms = ["bobsleigh", "track", "safety", "of", "2015"]
    known = {"track", "safety"}
    assert unheld_words(terms, "en", {"en", "fr"}, known) == frozenset({"bobsleigh"})
    # no index holds German text: an unknown German word may still be a verb nothing translates
    assert unheld_words(["krankschreibung", "vorlegen"], "de", {"en", "fr"}, set()) == frozenset()
    assert unheld_words(terms, None, {"en", "fr"}, known) == frozenset()
