"""The caching block's summaries read with fewer statements (issue #13, ADR 0137): a second scan of a
tree whose files have not moved returns the first scan's summaries, reads in the order of the places
are answered from rows read ahead, and rows are written a batch at a time — each reading as the
``dict`` of :meth:`corpus_tree.CorpusTree.publisher_summaries` outside the block."""

from __future__ import annotations

import dataclasses
import os
import random
from pathlib import Path
from typing import Any

import pytest

from corpus_tree import CorpusTree
from corpus_tree.tree import SpilledSummaries, _SummaryStore
from legal.ids import Publisher

LU, EU = Publisher.LEGILUX, Publisher.EURLEX


def _counted(monkeypatch: pytest.MonkeyPatch, cls: type, name: str) -> list[Any]:
    """Record each call of ``cls.name`` (its first argument after ``self``)."""
    calls: list[Any] = []
    real = getattr(cls, name)

    def counting(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(args[0] if args else None)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(cls, name, counting)
    return calls


def test_a_second_scan_of_an_unmoved_tree_returns_the_first_ones_summaries(tree_copy: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """No file moved: the second call stats the files and returns the first call's summaries, asking the
    database nothing per version; a file touched since: the kept rows are copied as before (ADR 0133),
    the touched file summarised again, and the result still the ``dict``'s."""
    tree = CorpusTree.open(tree_copy)
    for publisher in (LU, EU):
        plain, plain_fold = tree.publisher_summaries(publisher)
        with tree.caching():
            first, fold = tree.publisher_summaries(publisher)
            copied = _counted(monkeypatch, SpilledSummaries, "add_cached")
            again, fold_again = tree.publisher_summaries(publisher)
            assert again is first and fold_again is fold and copied == []
            assert list(again.items()) == list(plain.items())
            rel = next(iter(plain.values())).path
            assert rel is not None
            path = tree.root / rel
            st = path.stat()
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1))  # same bytes, a new state
            third, _ = tree.publisher_summaries(publisher)
            assert third is not first and len(copied) > 0
            assert list(third.items()) == list(plain.items()) and list(first.items()) == list(plain.items())
            assert list(tree.publisher_summaries(publisher)[0].items()) == list(plain.items())
        monkeypatch.undo()
        assert plain_fold is not None


@pytest.mark.parametrize("order", ["in order", "reversed", "shuffled"])
def test_reads_in_any_order_are_the_dicts_and_in_order_read_ahead(full_tree_copy: Path,
                                                                  monkeypatch: pytest.MonkeyPatch, order: str) -> None:
    """Reads by lex id give the ``dict``'s summaries in any order; in the order of the places most are
    answered from the rows read ahead (a statement per :attr:`SpilledSummaries.BATCH` reads, not one
    each)."""
    monkeypatch.setattr(SpilledSummaries, "BATCH", 3)
    tree = CorpusTree.open(full_tree_copy)
    plain, _ = tree.publisher_summaries(LU)
    keys = list(plain)
    assert len(keys) > 30
    if order == "reversed":
        keys.reverse()
    elif order == "shuffled":
        random.Random(13).shuffle(keys)
    with tree.caching():
        view, _ = tree.publisher_summaries(LU)
        assert isinstance(view, SpilledSummaries)
        statements: list[str] = []
        view._db.set_trace_callback(statements.append)
        try:
            marks = view.marks()
            for k in keys:
                assert view[k] == plain[k] and view.get(k) == plain[k]
                marks.add(k)
                assert k in marks
        finally:
            view._db.set_trace_callback(None)
        looked_up = [s for s in statements if s.startswith("SELECT pos, data")]
        if order == "in order":
            assert len(looked_up) <= len(keys) // 3 + 2
        else:
            assert len(looked_up) >= len(keys) // 2
        assert len(view._ahead) <= 2 * 3 + 1  # bounded whatever the order
        assert len(marks) == len(keys)


def test_an_add_drops_the_rows_read_ahead(tree_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A summary added again after rows were read ahead is read as added, not as it was read ahead."""
    monkeypatch.setattr(SpilledSummaries, "BATCH", 4)
    tree = CorpusTree.open(tree_copy)
    summaries = list(tree.publisher_summaries(LU)[0].values())
    assert len(summaries) >= 4
    store = _SummaryStore()
    try:
        view = store.view()
        for s in summaries:
            view.add(s)
        assert view[summaries[0].lex_id] == summaries[0] and view[summaries[1].lex_id] == summaries[1]
        assert view._ahead  # read ahead
        changed = dataclasses.replace(summaries[3], record_sha256="0" * 64)
        view.add(changed)
        assert view[summaries[2].lex_id] == summaries[2] and view[changed.lex_id] == changed
        assert len(view) == len(summaries) and list(view.values())[3] == changed
    finally:
        store.close()


def test_rows_kept_for_their_batch_are_read_as_if_written(tree_copy: Path) -> None:
    """The block writes its rows a batch at a time: a row not written yet is read all the same (by its
    path, by lex id, counted, iterated, copied into a view after the ones added before it)."""
    tree = CorpusTree.open(tree_copy)
    summaries = list(tree.publisher_summaries(LU)[0].values())[:3]
    store = _SummaryStore()
    try:
        states = [bytes([i]) * 40 for i in range(len(summaries))]
        for s, state in zip(summaries, states, strict=True):
            assert s.path is not None
            store.put(s.path, state, s)
        assert store._pending  # kept for the batch
        first = summaries[0]
        assert first.path is not None and store.cached(first.path, states[0]) == first
        assert store.cached(first.path, b"x" * 40) is None and not store._pending
        assert set(store.rows()) == {s.path for s in summaries}
        view = store.view()
        view.add(summaries[1])
        view.add(summaries[2])
        assert view._pending
        assert view.add_cached(first.path, states[0], LU)
        assert list(view) == [summaries[1].lex_id, summaries[2].lex_id, first.lex_id]
        assert len(view) == 3 and view[first.lex_id] == first
    finally:
        store.close()
