"""Format 7: a frequent match's ranked window stored as bm25's inputs gives back bm25's scores exactly.

On copies of the real fixture indexes, with the frequency thresholds lowered so that many
windows (one-word and Snowball-form groups of several phrases) are stored: every window is
stored as bm25's inputs (:mod:`derive.index.windows`), and reading it gives the row ids and
scores, bit for bit and in order, that ``bm25()`` gives at query time; a window whose inputs do
not give back its scores is stored as its scores; a damaged window is refused.
"""

from __future__ import annotations

import shutil
import sqlite3
import struct
import zlib
from pathlib import Path

import pytest

from derive.index import serving, windows
from derive.index.schema import PROVISION_FTS_WEIGHTS
from legal.errors import IndexError_
from tests.index.pipeline import FixtureBuild

PUBLISHERS = ("eu-eurlex", "lu-legilux")
BM25 = "bm25(provision_fts, " + ", ".join(str(w) for w in PROVISION_FTS_WEIGHTS) + ")"


def _refilled(fixture_indexes: FixtureBuild, publisher: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
              docs: int, forms: int) -> sqlite3.Connection:
    path = tmp_path / f"{publisher}.sqlite"
    shutil.copy(fixture_indexes.index_dir / f"{publisher}.sqlite", path)
    monkeypatch.setattr(serving, "FREQUENT_DOCS", docs)
    monkeypatch.setattr(serving, "FORMS_MIN_DOCS", forms)
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM frequent_matches")
    conn.executemany("INSERT INTO frequent_matches VALUES (?,?)", list(serving._frequent_rows(conn)))
    return conn


def _ranked(conn: sqlite3.Connection, match: str) -> list[tuple[int, float]]:
    return [(int(r), float(s)) for r, s in conn.execute(
        f"SELECT rowid, {BM25} AS score FROM provision_fts WHERE provision_fts MATCH ? "
        f"ORDER BY score, rowid LIMIT {serving.FREQUENT_WINDOW}", (match,))]


@pytest.mark.parametrize("publisher", PUBLISHERS)
@pytest.mark.parametrize(("docs", "forms"), [(300, 30), (40, 5)])
def test_every_window_gives_back_bm25_exactly(fixture_indexes: FixtureBuild, publisher: str, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch, docs: int, forms: int) -> None:
    conn = _refilled(fixture_indexes, publisher, tmp_path, monkeypatch, docs, forms)
    stored = [(str(m), bytes(b)) for m, b in conn.execute("SELECT match, body FROM frequent_matches ORDER BY match")]
    assert stored
    assert all(body[:1] == windows.MARK for _, body in stored)  # the fixtures' scores all come back exactly
    groups = [m for m, _ in stored if " OR " in m]
    assert groups  # windows of several phrases (a word and its forms), not only of one
    for match, _ in stored:
        expected = _ranked(conn, match)
        assert serving.frequent_window(conn, match, serving.FREQUENT_WINDOW) == expected
        assert serving.frequent_window(conn, match, 7) == expected[:7]
    assert serving.frequent_window(conn, "not a stored match", 10) is None
    assert serving.frequent_window(conn, stored[0][0], serving.FREQUENT_WINDOW + 1) is None


@pytest.mark.parametrize("publisher", PUBLISHERS)
def test_a_window_whose_inputs_miss_a_score_is_stored_as_its_scores(
        fixture_indexes: FixtureBuild, publisher: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    exact = windows.score
    monkeypatch.setattr(windows, "score", lambda *args: exact(*args) + 1e-9)  # no score comes back
    conn = _refilled(fixture_indexes, publisher, tmp_path, monkeypatch, 300, 30)
    stored = [(str(m), bytes(b)) for m, b in conn.execute("SELECT match, body FROM frequent_matches ORDER BY match")]
    assert stored and all(body[:1] != windows.MARK for _, body in stored)
    monkeypatch.setattr(windows, "score", exact)
    for match, body in stored[:20]:
        assert serving.unpack_window(body, serving.FREQUENT_WINDOW) == _ranked(conn, match)
        assert serving.frequent_window(conn, match, serving.FREQUENT_WINDOW) == _ranked(conn, match)


def test_score_is_fts5_bm25_of_its_inputs(fixture_indexes: FixtureBuild) -> None:
    """Every row of a few one-word matches, all of them (not only the best): the weighted hits
    bm25's value implies give that value back, and the row's size is its docsize entry."""
    conn = sqlite3.connect(f"file:{fixture_indexes.index_dir / 'eu-eurlex.sqlite'}?mode=ro", uri=True)
    rows_total, tokens = windows.fts_totals(conn)
    assert rows_total == conn.execute("SELECT COUNT(*) FROM provision_fts_docsize").fetchone()[0]
    avgdl = float(tokens) / float(rows_total)
    terms = [str(r[0]) for r in conn.execute("SELECT term FROM provision_vocab ORDER BY doc DESC LIMIT 8")]
    for term in terms:
        ranked = conn.execute(f"SELECT rowid, {BM25} FROM provision_fts WHERE provision_fts MATCH ?",
                              (f'"{term}"',)).fetchall()
        w = windows.idf(rows_total, len(ranked))
        sizes = windows.doc_sizes(conn, [int(r) for r, _ in ranked])
        for rowid, value in ranked:
            f = windows._freq(value, sizes[rowid], w, avgdl)
            assert f >= 1
            assert windows.score([f], sizes[rowid], [w], avgdl) == value


def test_varints_read_sqlite_varints() -> None:
    assert windows.varints(b"") == []
    assert windows.varints(bytes([0x05, 0x81, 0x00, 0x7F])) == [5, 128, 127]
    assert windows.varints(bytes([0xFF] * 8 + [0x01])) == [(2**56 - 1) << 8 | 1]
    with pytest.raises(IndexError_):
        windows.varints(bytes([0x81]))
    for blob in (b"", bytes([0x05, 0x81, 0x00, 0x7F]), bytes([0xFF] * 8 + [0x01]), bytes([0x83, 0x84, 0x05, 0x09]),
                 bytes([0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02, 0x03])):
        assert windows.tokens(blob) == sum(windows.varints(blob))
    with pytest.raises(IndexError_):
        windows.tokens(bytes([0x05, 0x81]))


def test_a_damaged_window_is_refused(fixture_indexes: FixtureBuild) -> None:
    conn = sqlite3.connect(f"file:{fixture_indexes.index_dir / 'eu-eurlex.sqlite'}?mode=ro", uri=True)
    rowid = int(conn.execute("SELECT id FROM provision_fts_docsize LIMIT 1").fetchone()[0])
    totals = windows.fts_totals(conn)
    body = windows.pack([(rowid, -1.0)], [3], [[2]], totals)
    assert windows.unpack(conn, body, 5)[0][0] == rowid
    for bad in (body[:-1], windows.MARK + zlib.compress(b"\x01\x00"),
                windows.MARK + zlib.compress(zlib.decompress(body[1:]) + b"\x00"),
                windows.pack([(10**15, -1.0)], [3], [[2]], totals)):  # a row the FTS table does not hold
        with pytest.raises(IndexError_):
            windows.unpack(conn, bad, 5)
    with pytest.raises(ValueError):
        windows.pack([(rowid, -1.0)], [3], [[70_000]], totals)
    assert struct.unpack_from("<HH", zlib.decompress(body[1:]))[:2] == (1, 1)
