"""The caching block's summaries on disk (issue #13, ADR 0133): :class:`corpus_tree.tree.SpilledSummaries`
reads as the ``dict`` it replaces, the withdrawals' set of listed lex ids is a byte per version, and
the block's database is gone with the block."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from corpus_tree import CorpusTree
from corpus_tree.model import Enumeration
from corpus_tree.tree import ListedLexIds, SpilledSummaries, _SummaryStore, listed_lex_ids
from corpus_tree.writer import planned_withdrawals
from legal.ids import Publisher

LU, EU = Publisher.LEGILUX, Publisher.EURLEX


def _open_files() -> int:
    return len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else 0


def test_the_spilled_summaries_read_as_the_dict(tree_copy: Path) -> None:
    """Outside ``caching`` the scan returns a ``dict``; inside, a :class:`SpilledSummaries` with the same
    lex ids in the same order and equal summaries, read by lex id, iterated, counted and tested alike."""
    tree = CorpusTree.open(tree_copy)
    for publisher in (LU, EU):
        plain, _ = tree.publisher_summaries(publisher)
        assert type(plain) is dict and plain
        with tree.caching():
            spilled, _ = tree.publisher_summaries(publisher)
            again, _ = tree.publisher_summaries(publisher)  # the second call: the block's rows, not re-read
            for view in (spilled, again):
                assert isinstance(view, SpilledSummaries)
                assert list(view) == list(plain) and len(view) == len(plain)
                assert list(view.items()) == list(plain.items()) and list(view.values()) == list(plain.values())
                assert all(view[k] == v and view.get(k) == v and k in view for k, v in plain.items())
                assert view.get("nope") is None and "nope" not in view and 3 not in view
                with pytest.raises(KeyError):
                    view["nope"]


def test_a_lex_id_added_again_keeps_its_place_and_takes_the_later_summary(tree_copy: Path) -> None:
    tree = CorpusTree.open(tree_copy)
    summaries = list(tree.publisher_summaries(LU)[0].values())
    assert len(summaries) >= 3
    store = _SummaryStore()
    try:
        view = store.view()
        for s in summaries:
            view.add(s)
        first, later = summaries[0], summaries[-1]
        changed = dataclasses.replace(later, lex_id=first.lex_id)
        view.add(changed)
        assert len(view) == len(summaries) and next(iter(view)) == first.lex_id
        assert view[first.lex_id] == changed and next(iter(view.values())) == changed
        assert view.position(first.lex_id) == 1 and view.position(later.lex_id) == len(summaries)
    finally:
        store.close()


def test_iteration_crosses_batches_and_allows_other_statements(tree_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rows are read :attr:`SpilledSummaries.BATCH` at a time; the database may be used meanwhile."""
    monkeypatch.setattr(SpilledSummaries, "BATCH", 2)
    tree = CorpusTree.open(tree_copy)
    plain, _ = tree.publisher_summaries(LU)
    with tree.caching():
        view, _ = tree.publisher_summaries(LU)
        assert len(plain) > 4
        seen = []
        for lex_id, summary in view.items():
            assert view[lex_id] == summary  # another statement between two batches
            seen.append(lex_id)
        assert seen == list(plain)


def test_the_listed_lex_ids_are_a_byte_per_version(tree_copy: Path) -> None:
    """:func:`listed_lex_ids` is a ``set`` for a ``dict`` and a :class:`ListedLexIds` for a spilled view;
    both give the same withdrawals."""
    tree = CorpusTree.open(tree_copy)
    plain, _ = tree.publisher_summaries(LU)
    listed = list(plain)[::2]
    as_set = listed_lex_ids(plain)
    assert type(as_set) is set
    with tree.caching():
        view, _ = tree.publisher_summaries(LU)
        marks = listed_lex_ids(view)
        assert isinstance(marks, ListedLexIds)
        for lex_id in listed:
            as_set.add(lex_id)
            marks.add(lex_id)
        assert len(marks) == len(as_set) == len(listed)
        assert all((k in marks) == (k in as_set) for k in plain) and "nope" not in marks and 3 not in marks
        with pytest.raises(KeyError):
            marks.add("lu-legilux:nope:2000-01-01-00000000")
        enumeration = Enumeration(publisher=LU, works=(), versions=(), complete=True)
        assert planned_withdrawals(enumeration, view.values(), marks) == \
            planned_withdrawals(enumeration, plain.values(), as_set)


def test_the_blocks_database_is_gone_with_the_block(tree_copy: Path) -> None:
    """The summaries' database is an unnamed temporary file: closed when the block ends, also on an error."""
    tree = CorpusTree.open(tree_copy)
    before = _open_files()
    with pytest.raises(RuntimeError), tree.caching():
        tree.publisher_summaries(LU)
        assert tree._summaries is not None
        raise RuntimeError("part way")
    assert tree._summaries is None and _open_files() == before
