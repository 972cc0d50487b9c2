"""The word diffs read their pairs' texts block by block (``serving._pair_texts``): the same texts as
read one at a time, each block inflated about once, and a text not stored refused as before."""

from __future__ import annotations

import zlib
from typing import Any

import pytest

from derive.index import serving, textstore
from derive.index.read import open_readonly
from legal.errors import IndexError_
from tests.index.pipeline import FixtureBuild


def test_the_pairs_texts_are_the_texts_read_one_at_a_time(fixture_indexes: FixtureBuild,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    inflaters = [0]
    real = zlib.decompressobj

    def counting(*args: Any, **kwargs: Any) -> Any:
        inflaters[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(textstore.zlib, "decompressobj", counting)
    checked = 0
    for path in sorted(fixture_indexes.index_dir.glob("*.sqlite")):
        conn = open_readonly(path)
        try:
            pairs = sorted({(b, a) for _, b, a in serving._successive_pairs(conn)})
            textstore.BLOCKS.clear()
            inflaters[0] = 0
            read = {(b, a): (before, after) for b, a, before, after in serving._pair_texts(conn, pairs)}
            blocks = {where.block for where in textstore.locate(conn, {s for p in pairs for s in p}).values()}
            assert inflaters[0] <= len(blocks) + 1
            assert list(read) == sorted(read, key=lambda p: (textstore.locate(conn, p)[p[0]].block,
                                                             textstore.locate(conn, p)[p[1]].block, p))
            assert sorted(read) == pairs
            for (before_sha, after_sha), (before, after) in read.items():
                assert (before, after) == (textstore.read_text(conn, before_sha), textstore.read_text(conn, after_sha))
                checked += 1
        finally:
            conn.close()
            textstore.BLOCKS.clear()
    assert checked > 10


def test_a_pair_whose_text_is_not_stored_is_refused(fixture_indexes: FixtureBuild) -> None:
    path = sorted(fixture_indexes.index_dir.glob("*.sqlite"))[0]
    conn = open_readonly(path)
    try:
        pairs = sorted({(b, a) for _, b, a in serving._successive_pairs(conn)})
        missing = "f" * 64
        with pytest.raises(IndexError_) as caught:
            list(serving._pair_texts(conn, [*pairs, (pairs[0][0], missing)]))
        assert (caught.value.code, caught.value.subject) == ("text_missing", missing)
    finally:
        conn.close()


def test_the_stored_pairs_lie_in_the_works_time_line_order(fixture_indexes: FixtureBuild) -> None:
    """``word_diffs`` rows follow the works' time lines (the pairs as first met, work by work, date by
    date), not the hashes: a diff's stored pairs then lie on a few neighbouring pages."""
    checked = 0
    for path in sorted(fixture_indexes.index_dir.glob("*.sqlite")):
        conn = open_readonly(path)
        try:
            rows = [(bytes(f).hex(), bytes(t).hex())
                    for f, t in conn.execute("SELECT from_sha256, to_sha256 FROM word_diffs ORDER BY rowid")]
            stored = set(rows)
            met = [pair for pair in dict.fromkeys((b, a) for _, b, a in serving._successive_pairs(conn)) if pair in stored]
            assert rows == met
            checked += len(rows)
        finally:
            conn.close()
    assert checked > 10


def test_union_sorted_is_numpy_unique_of_the_concatenation() -> None:
    import numpy as np

    from derive.index.serving import _union_sorted

    rng = np.random.default_rng(7)
    for _ in range(200):
        arrays = [np.sort(rng.choice(np.arange(1, 400, dtype=np.int64), int(n), replace=False))
                  for n in rng.integers(0, 60, size=int(rng.integers(1, 5)))]
        got, want = _union_sorted(arrays), np.unique(np.concatenate(arrays))
        assert got.dtype == want.dtype and got.tolist() == want.tolist()
