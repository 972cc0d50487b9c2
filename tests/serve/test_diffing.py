"""The web diff's word-level segments: they rebuild both texts exactly."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from derive.index.worddiff import word_segments as word_diff
from serve.web.diffing import row_of

words = st.lists(st.sampled_from(["la", "loi", "s'applique", "à", "toute", "chose", "\n", "  ", "révisée."]),
                 max_size=30).map(" ".join)


@given(before=words, after=words)
@settings(max_examples=200, deadline=None)
def test_segments_rebuild_both_texts(before: str, after: str) -> None:
    segments = word_diff(before, after)
    assert "".join(s.text for s in segments if s.op != "ins") == before
    assert "".join(s.text for s in segments if s.op != "del") == after
    assert all(a.op != b.op for a, b in pairwise(segments))


def test_rows_from_the_cores_changes() -> None:
    added = row_of({"anchor": "art_3", "change": "added", "num": "Art. 3", "text": "Nouveau."}, {}, {})
    assert (added.state, added.after, added.label) == ("added", "Nouveau.", "Art. 3")
    changed = row_of({"anchor": "art_1", "change": "changed", "num": "Art. 1er", "heading": "Objet",
                      "from_text_sha256": "a", "to_text_sha256": "b"},
                     {"art_1": "La loi s'applique."}, {"art_1": "La loi s'applique partout."})
    assert changed.state == "changed" and changed.label == "Art. 1er — Objet"
    assert [s.op for s in changed.segments] == ["same", "ins", "same"]


texts = st.text(alphabet=st.sampled_from(list("ab,.' \n\t\u00a0é1")), max_size=60)


@given(text=texts)
@settings(max_examples=300, deadline=None)
def test_the_cheap_bound_never_exceeds_the_token_count(text: str) -> None:
    from derive.index.worddiff import tokens
    from serve.web.diffing import _at_least

    assert _at_least(text) <= len(tokens(text))


@given(before=texts, after=texts, allowance=st.integers(min_value=-3, max_value=40))
@settings(max_examples=300, deadline=None)
def test_a_row_is_shown_side_by_side_exactly_when_its_tokens_pass_the_allowance(before: str, after: str,
                                                                                allowance: int) -> None:
    from derive.index.worddiff import tokens

    change = {"anchor": "a", "change": "changed", "from_text_sha256": "x", "to_text_sha256": "y"}
    left = [allowance]
    row = row_of(change, {"a": before}, {"a": after}, left)
    if before == after:
        assert row.state == "same"
        return
    size = len(tokens(before)) + len(tokens(after))
    assert row.too_long == (size > allowance)
    assert left == ([allowance] if row.too_long else [allowance - size])


@given(before=texts, after=texts, limit=st.integers(min_value=-3, max_value=40))
@settings(max_examples=300, deadline=None)
def test_the_capped_chunk_count_decides_as_the_whole_count(
    before: str, after: str, limit: int
) -> None:
    from serve.web.diffing import _at_least, _certainly_over

    assert _certainly_over(before, after, limit) == (_at_least(before) + _at_least(after) > limit)
