"""A swap of two neighbouring letters is one typing slip: the fuzzy lane corrects it as it corrects one
wrong, missing or extra letter (:func:`serve.core.ops.search.typo_distance`). On the real fixture corpus
(``LEX_FIXTURES``)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from derive.index.text import levenshtein_within
from serve.core import LegalCore
from serve.core.ops.search import swapped_neighbours, typo_distance

LU = "lu-legilux"
WORDS = st.text(alphabet="abcdeilorstu", min_size=2, max_size=9)


@given(WORDS, st.data())
def test_a_swap_of_neighbours_is_one_edit(word: str, data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(word) - 2))
    swapped = word[:i] + word[i + 1] + word[i] + word[i + 2:]
    if swapped == word:  # the same letter twice: nothing was swapped
        assert not swapped_neighbours(word, swapped) and typo_distance(word, swapped, 1) == 0
        return
    assert swapped_neighbours(word, swapped) and swapped_neighbours(swapped, word)
    assert typo_distance(word, swapped, 1) == 1
    assert levenshtein_within(word, swapped, 1) in (None, 1)  # Levenshtein counts most swaps two


@given(WORDS, WORDS)
def test_typo_distance_is_levenshtein_but_for_swaps(a: str, b: str) -> None:
    for limit in (1, 2):
        got, plain = typo_distance(a, b, limit), levenshtein_within(a, b, limit)
        assert got == plain or (plain is None and got == 1 and swapped_neighbours(a, b))


def test_swaps_are_only_neighbours() -> None:
    assert swapped_neighbours("socaile", "sociale")
    assert not swapped_neighbours("sociale", "sociale")
    assert not swapped_neighbours("scoiale", "sociela")  # two swaps
    assert not swapped_neighbours("laicos", "sociale") and not swapped_neighbours("abc", "cba")


def test_a_swapped_word_is_corrected_and_searched(fixture_core: LegalCore) -> None:
    # "socaile" is held nowhere; before, it withheld the whole search as an unknown word
    answer = fixture_core.call("search", {"query": "securite socaile"})
    section = next(s for s in answer["publishers"] if s["publisher"] == LU)
    assert "socaile -> sociale" in section["query_expansions"]
    assert section["hits"] and section.get("relaxation_withheld") is None
