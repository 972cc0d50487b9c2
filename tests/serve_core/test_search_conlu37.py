"""Issue #15, thirty-seventh session (conlu37): plain-word questions on Legilux, asked as people ask
them, on the real fixture corpus (``LEX_FIXTURES``) where an index is read.

- The function words of a German question that the short German stop list does not hold (the rest of
  the Snowball German stop list: « wurde », « worden », « ihn », « nicht » …) and the English
  reflexive and possessive pronouns are question-frame words, query-side only: Legilux holds little
  German text, so such a word was rare in its provisions and, searched, carried the any-word quorum's
  rarity share over the subject words.
"""

from __future__ import annotations

from typing import Any

import pytest

from derive.index import relax
from serve.core import LegalCore
from serve.core.searchplan import without_question_frame

LU = "lu-legilux"


def _section(core: LegalCore, query: str, publisher: str) -> dict[str, Any]:
    answer = core.call("search", {"query": query, "limit": 10, "fuzzy": "off"})
    return next(dict(s) for s in answer["publishers"] if s["publisher"] == publisher)


@pytest.mark.parametrize("word", ["wurde", "wurden", "worden", "hatte", "ihn", "ihnen", "nicht", "solche",
                                  "himself", "themselves"])
def test_a_german_or_english_function_word_frames_a_question(word: str) -> None:
    assert word in relax.QUESTION_WORDS and relax.relaxable(word)


@pytest.mark.parametrize("word", ["aller", "man", "will", "weg", "bin", "gewerbesteuer"])
def test_a_word_that_names_a_thing_in_another_language_is_no_function_word(word: str) -> None:
    # « aller » is French, "man" and "will" English, « Weg » a German noun: left out of the list
    assert word not in relax.QUESTION_WORDS


def test_the_question_frame_leaves_a_german_auxiliary_out_of_the_search_words() -> None:
    terms = ["wurde", "gewerbesteuer", "krieg", "einzelnen", "gemeinden", "aufgeteilt"]
    assert without_question_frame(terms) == ["gewerbesteuer", "krieg", "einzelnen", "gemeinden", "aufgeteilt"]


def test_a_german_question_on_a_german_ordinance_is_answered_without_its_auxiliary(fixture_core: LegalCore) -> None:
    # the 1943 ordinance on the trade tax (German text): its § 7 distributes the tax among the communes;
    # « wurde », in a handful of provisions, outweighed « Gewerbesteuer » in the any-word quorum
    section = _section(fixture_core, "Wie wurde die Gewerbesteuer im Krieg auf die einzelnen Gemeinden aufgeteilt?", LU)
    works = [h["work"] for h in section["hits"]]
    assert works and works[0] == "lu-legilux:ord-1943-03-31-n1"
