"""Ranked windows stored as bm25's inputs (index format 7), a third of the bytes of their scores.

SQLite's FTS5 ``bm25`` (``fts5_aux.c``) scores a row of a match of phrases ``0 … k-1`` as

    -Σᵢ idfᵢ · (fᵢ · (k1 + 1)) / (fᵢ + k1 · (1 - b + b · D / avgdl))

with ``k1 = 1.2``, ``b = 0.75``; ``fᵢ`` the row's hits of phrase ``i``, each weighted by its
column's weight (:data:`derive.index.schema.PROVISION_FTS_WEIGHTS`, integers: ``fᵢ`` is an
integer); ``D`` the row's size in tokens (all columns, its ``docsize`` entry); ``avgdl`` the
table's tokens per row; ``idfᵢ = log((N - nᵢ + 0.5) / (nᵢ + 0.5))`` (``1e-6`` when not positive),
``N`` the table's rows and ``nᵢ`` the rows matching phrase ``i``.

A window (:func:`pack`) therefore keeps, instead of 8 bytes of score per row, the row ids, each
row's ``fᵢ`` of every phrase (mostly 0 or small), ``N``, the table's tokens and every ``nᵢ``; ``D``
is read back from the FTS table's ``docsize`` rows when the window is read (:func:`unpack`), and
the score recomputed with the same operations in the same order on IEEE doubles. The builder
(:func:`bodies`) keeps a window in this form only when every score it recomputes is bit for bit
the double bm25 returned; any other window is stored as its scores
(:func:`derive.index.serving.pack_window`). Reading either gives the same ``(row id, score)`` list.
"""

from __future__ import annotations

import math
import sqlite3
import struct
import zlib
from collections.abc import Callable, Iterator, Sequence

from legal.errors import IndexError_

#: bm25's constants in FTS5 (``fts5_aux.c``).
K1 = 1.2
B = 0.75
#: First byte of a window stored as bm25's inputs (a window of scores is a zlib stream: ``0x78``).
MARK = b"\x07"
#: The FTS5 record holding the table's row count and tokens per column (``FTS5_AVERAGES_ROWID``).
AVERAGES_ROWID = 1
_LEVEL = 9
_HEAD = struct.Struct("<HHqq")


def varints(blob: bytes) -> list[int]:
    """The SQLite varints of ``blob`` (FTS5's ``docsize`` and averages records)."""
    out: list[int] = []
    i, n = 0, len(blob)
    while i < n:
        value = 0
        for step in range(9):
            if i >= n:
                raise IndexError_("truncated FTS varint", code="bad_frequent_window")
            byte = blob[i]
            i += 1
            if step == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        out.append(value)
    return out


def tokens(blob: bytes) -> int:
    """The sum of the varints of a ``docsize`` entry: the row's size in tokens, all columns."""
    total = value = run = 0
    for byte in blob:
        value = (value << 7) | (byte & 0x7F)
        run += 1
        if byte < 0x80:
            total += value
            value = run = 0
        elif run == 8:  # a nine-byte varint (2**56 or more): the full reading
            return sum(varints(blob))
    if run:
        raise IndexError_("truncated FTS varint", code="bad_frequent_window")
    return total


def fts_totals(conn: sqlite3.Connection, table: str = "provision_fts") -> tuple[int, int]:
    """``(rows, tokens)`` of an FTS5 table, as its averages record holds them."""
    row = conn.execute(f"SELECT block FROM {table}_data WHERE id = ?", (AVERAGES_ROWID,)).fetchone()
    values = varints(bytes(row[0])) if row is not None else []
    if not values:
        raise IndexError_(f"{table} has no averages record", code="bad_frequent_window")
    return values[0], sum(values[1:])


def doc_sizes(conn: sqlite3.Connection, ids: Sequence[int], table: str = "provision_fts") -> dict[int, int]:
    """Each row's size in tokens (all columns), from the FTS5 table's ``docsize`` rows."""
    cursor = conn.cursor()
    cursor.row_factory = None
    out: dict[int, int] = {}
    for first in range(0, len(ids), 500):
        chunk = ids[first:first + 500]
        for rowid, size in cursor.execute(
                f"SELECT id, sz FROM {table}_docsize WHERE id IN ({','.join('?' * len(chunk))})", chunk):
            out[int(rowid)] = tokens(bytes(size))
    return out


def idf(rows: int, hits: int) -> float:
    """bm25's IDF of a phrase matching ``hits`` of ``rows`` rows."""
    value = math.log((rows - hits + 0.5) / (hits + 0.5))
    return value if value > 0.0 else 1e-6


def score(freqs: Sequence[int], size: int, idfs: Sequence[float], avgdl: float) -> float:
    """bm25 of a row of weighted hits ``freqs`` (one per phrase) and ``size`` tokens, as FTS5
    computes it (same operations, same order)."""
    total = 0.0
    d = float(size)
    for f, w in zip(freqs, idfs, strict=True):
        if f:
            total += w * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + B * d / avgdl)))
    return -1.0 * total


def _shuffle(data: bytes, width: int) -> bytes:
    return b"".join(data[i::width] for i in range(width))


def _unshuffle(data: bytes, width: int) -> bytes:
    n = len(data) // width
    out = bytearray(len(data))
    for i in range(width):
        out[i::width] = data[i * n:(i + 1) * n]
    return bytes(out)


def pack(rows: Sequence[tuple[int, float]], hits: Sequence[int], freqs: Sequence[Sequence[int]],
         totals: tuple[int, int]) -> bytes:
    """A window as bm25's inputs: ``rows`` ``(row id, score)`` best first, ``hits`` the rows matching
    each phrase, ``freqs[j]`` row ``j``'s weighted hits of each phrase, ``totals`` the table's
    ``(rows, tokens)``. The ids are kept ascending (deltas) with each one's rank."""
    n, k = len(rows), len(hits)
    if n > 255 or k > 0xFFFF or any(len(f) != k or max(f, default=0) > 0xFFFF or min(f, default=0) < 0 for f in freqs):
        raise ValueError("window too large for bm25 inputs")
    order = sorted(range(n), key=lambda j: rows[j][0])
    ids = [rows[j][0] for j in order]
    deltas = struct.pack(f"<{n}q", *(ids[j] - (ids[j - 1] if j else 0) for j in range(n)))
    ranks = bytes(order)
    cells = struct.pack(f"<{n * k}H", *(freqs[j][i] for i in range(k) for j in order))
    payload = _HEAD.pack(n, k, *totals) + struct.pack(f"<{k}q", *hits) + _shuffle(deltas, 8) + ranks + _shuffle(cells, 2)
    return MARK + zlib.compress(payload, _LEVEL)


def unpack(conn: sqlite3.Connection, body: bytes, window: int) -> list[tuple[int, float]]:
    """The first ``window`` ``(row id, score)`` of a window :func:`pack` stored, best first."""
    try:
        raw = zlib.decompress(body[1:])
        n, k, rows_total, tokens = _HEAD.unpack_from(raw, 0)
        at = _HEAD.size
        hits = struct.unpack_from(f"<{k}q", raw, at)
        at += 8 * k
        deltas = struct.unpack(f"<{n}q", _unshuffle(raw[at:at + 8 * n], 8))
        at += 8 * n
        ranks = raw[at:at + n]
        at += n
        cells = struct.unpack(f"<{n * k}H", _unshuffle(raw[at:at + 2 * n * k], 2))
    except (zlib.error, struct.error) as exc:
        raise IndexError_("frequent_matches row is not a window of bm25 inputs", code="bad_frequent_window") from exc
    if at + 2 * n * k != len(raw) or sorted(ranks) != list(range(n)) or rows_total <= 0:
        raise IndexError_("frequent_matches row of the wrong size", code="bad_frequent_window")
    ids: list[int] = []
    last = 0
    for d in deltas:
        last += d
        ids.append(last)
    sizes = doc_sizes(conn, ids)
    if len(sizes) != n:
        raise IndexError_("frequent_matches row names a row the FTS table does not hold", code="bad_frequent_window")
    avgdl = float(tokens) / float(rows_total)
    idfs = [idf(rows_total, h) for h in hits]
    out: list[tuple[int, float]] = [(0, 0.0)] * n
    for j, rowid in enumerate(ids):
        out[ranks[j]] = (rowid, score(cells[j::n], sizes[rowid], idfs, avgdl))
    return out[:window]


def _hits(conn: sqlite3.Connection, phrase: str, bm25: str, wanted: set[int],
          known: dict[int, float] | None) -> tuple[int, dict[int, float]]:
    """``(rows matching phrase, their scores of the ``wanted`` rows)``: a count alone when the
    scores are ``known`` already (the phrase's own window)."""
    from derive.index.text import (
        fts_string,  # text imports schema, which imports serving and this module
    )

    match = fts_string(phrase)
    if known is not None and wanted <= known.keys():
        count = conn.execute("SELECT COUNT(*) FROM provision_fts WHERE provision_fts MATCH ?", (match,)).fetchone()[0]
        return int(count), known
    scores: dict[int, float] = {}
    count = 0
    for rowid, value in conn.execute(f"SELECT rowid, {bm25} FROM provision_fts WHERE provision_fts MATCH ?", (match,)):
        count += 1
        if rowid in wanted:
            scores[int(rowid)] = float(value)
    return count, scores


def _freq(value: float, size: int, w: float, avgdl: float) -> int:
    """The weighted hits a one-phrase bm25 ``value`` implies (checked by the caller)."""
    x = -value / w
    k = K1 * (1 - B + B * float(size) / avgdl)
    return max(0, round(x * k / ((K1 + 1.0) - x)))


def bodies(conn: sqlite3.Connection, windows: Sequence[tuple[str, Sequence[str], Sequence[tuple[int, float]]]],
           bm25: str, fallback: Callable[[Sequence[tuple[int, float]]], bytes]) -> Iterator[tuple[str, bytes]]:
    """``(match, body)`` of each ``(match, phrases, rows)`` window: bm25's inputs (:func:`pack`) when
    they give back every score exactly, else ``fallback(rows)`` (its scores)."""
    totals = fts_totals(conn)
    avgdl = float(totals[1]) / float(totals[0])
    wanted: dict[str, set[int]] = {}
    own: dict[str, dict[int, float]] = {}
    for _, phrases, rows in windows:
        for p in phrases:
            wanted.setdefault(p, set()).update(r for r, _ in rows)
        if len(phrases) == 1:
            own.setdefault(phrases[0], {}).update(rows)
    hits: dict[str, int] = {}
    scores: dict[str, dict[int, float]] = {}
    for p in sorted(wanted):
        hits[p], scores[p] = _hits(conn, p, bm25, wanted[p], own.get(p))
    sizes = doc_sizes(conn, sorted({r for _, _, rows in windows for r, _ in rows}))
    for match, phrases, rows in windows:
        idfs = [idf(totals[0], hits[p]) for p in phrases]
        freqs: list[list[int]] = []
        for rowid, value in rows:
            size = sizes.get(rowid)
            if size is None:
                break
            row = [_freq(scores[p][rowid], size, w, avgdl) if rowid in scores[p] else 0
                   for p, w in zip(phrases, idfs, strict=True)]
            if score(row, size, idfs, avgdl) != value:
                break
            freqs.append(row)
        if len(freqs) == len(rows) and rows:
            try:
                yield match, pack(rows, [hits[p] for p in phrases], freqs, totals)
                continue
            except ValueError:
                pass
        yield match, fallback(rows)
