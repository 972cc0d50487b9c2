"""Frequent windows brought up to date: bm25 recomputed in Python, bit for bit with FTS5.

``frequent_matches`` (:mod:`derive.index.serving`) holds, per frequent match, the
:data:`derive.index.serving.FREQUENT_WINDOW` best ``(row id, bm25)`` pairs. Every score depends on
the table's row count ``N``, its average row length ``avgdl`` and each phrase's matching rows
``nᵢ``, which any changed work moves: a build that ranked every match again would pay bm25 over
every row of every frequent match. An incremental build instead recomputes only what can enter a
window, from the inputs of each score, and falls back to FTS5 where that cannot be proven exact.

SQLite's FTS5 ``bm25`` (``fts5_aux.c``) scores a row of a match of phrases ``0 … k-1`` as

    -Σᵢ idfᵢ · (fᵢ · (k1 + 1)) / (fᵢ + k1 · (1 - b + b · D / avgdl))

with ``k1 = 1.2``, ``b = 0.75``; ``fᵢ`` the row's hits of phrase ``i``, each weighted by its
column's weight (:data:`derive.index.schema.PROVISION_FTS_WEIGHTS`, integers: ``fᵢ`` is an
integer); ``D`` the row's size in tokens (all columns); ``avgdl`` the table's tokens over its rows;
``idfᵢ = log((N - nᵢ + 0.5) / (nᵢ + 0.5))`` (``1e-6`` when not positive). :func:`score` performs
the same operations in the same order on IEEE doubles.

**What is kept** (:class:`Kept`, in a file beside the index, never in it nor in a release: the
index's bytes and content digest are those of a build without it): per match, its terms, the
``nᵢ`` and the table's ``N`` and tokens it was scored under, its :data:`KEEP` best rows with their
``fᵢ`` and ``D``, and ``limit``: no row outside the list scores above ``limit`` in absolute value.

**The update** (:func:`update`). Under the new ``N``, ``avgdl`` and ``nᵢ`` a row whose FTS entry did
not change scores at most ``R = maxᵢ(idf'ᵢ / idfᵢ) · max(1, avgdl' / avgdl)`` times its old
absolute score (each term's idf scales by its ratio; ``fᵢ(k1+1)/(fᵢ + k1(1-b) + k1·b·D/avgdl)``
grows by at most the ratio of the averages). The candidates are the kept rows of unchanged works
and every row of a changed work holding a term (their ``fᵢ`` counted on a scratch FTS5 table of
those rows alone); every other row scores at most ``bound = limit · R`` (with a safety factor).
When the window's last row scores strictly beyond ``bound`` the window is exact; else the match is
ranked by FTS5 again (a *fallback*, counted in the build's facts).
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from derive.index import sidecar
from legal.errors import IndexError_

#: bm25's constants in FTS5 (``fts5_aux.c``).
K1 = 1.2
B = 0.75
#: Rows kept per match: the margin below the window that lets an update prove it exact (on the
#: full Legilux index the 256th row scores 0.06 % to 30 % below the 128th, median 10 %).
KEEP = 256
#: Relative margin on the bound, far above the rounding of a few double operations.
SAFETY = 1e-9
#: The FTS5 record holding the table's row count and tokens per column (``FTS5_AVERAGES_ROWID``).
AVERAGES_ROWID = 1
#: The sidecar's schema (:func:`dump` / :func:`load`).
SCHEMA = "lex-index-windows/1"


def varints(blob: bytes) -> list[int]:
    """The SQLite varints of ``blob`` (FTS5's ``docsize`` and averages records)."""
    out: list[int] = []
    i, n = 0, len(blob)
    while i < n:
        value = 0
        for step in range(9):
            if i >= n:
                raise IndexError_("truncated FTS varint", code="bad_fts_record")
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


def fts_totals(conn: sqlite3.Connection, table: str = "provision_fts") -> tuple[int, int]:
    """``(rows, tokens)`` of an FTS5 table, as its averages record holds them."""
    row = conn.execute(f"SELECT block FROM {table}_data WHERE id = ?", (AVERAGES_ROWID,)).fetchone()
    values = varints(bytes(row[0])) if row is not None else []
    if not values:
        raise IndexError_(f"{table} has no averages record", code="bad_fts_record")
    return values[0], sum(values[1:])


def doc_sizes(conn: sqlite3.Connection, ids: Iterable[int], table: str = "provision_fts") -> dict[int, int]:
    """Each row's size in tokens (all columns), from the FTS5 table's ``docsize`` rows."""
    wanted = sorted(set(ids))
    out: dict[int, int] = {}
    for first in range(0, len(wanted), 500):
        chunk = wanted[first:first + 500]
        for rowid, size in conn.execute(
                f"SELECT id, sz FROM {table}_docsize WHERE id IN ({','.join('?' * len(chunk))})", chunk):
            out[int(rowid)] = sum(varints(bytes(size)))
    return out


def idf(rows: int, hits: int) -> float:
    """bm25's IDF of a phrase matching ``hits`` of ``rows`` rows."""
    value = math.log((rows - hits + 0.5) / (hits + 0.5))
    return value if value > 0.0 else 1e-6


def score(freqs: Sequence[int], size: int, idfs: Sequence[float], avgdl: float) -> float:
    """bm25 of a row of weighted hits ``freqs`` (one per phrase) and ``size`` tokens, as FTS5
    computes it (same operations, same order; a phrase without hits adds ``0.0``)."""
    total = 0.0
    d = float(size)
    for f, w in zip(freqs, idfs, strict=True):
        if f:
            total += w * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + B * d / avgdl)))
    return -1.0 * total


def _np() -> Any:
    """numpy, imported when a build needs it (the serving side imports this module's reader only)."""
    import numpy

    return numpy


def scores(freqs: Any, sizes: Any, idfs: Sequence[float], avgdl: float) -> Any:
    """:func:`score` of many rows at once (numpy; ``freqs`` an ``(n, k)`` integer array, ``sizes``
    ``n`` integers): the same IEEE operations in the same order, each rounded as the scalar ones
    (no ``log`` here: the IDFs come from :func:`idf`)."""
    np = _np()
    d = sizes.astype(np.float64)
    den = K1 * ((1 - B) + (B * d) / avgdl)
    total = np.zeros(len(d), dtype=np.float64)
    for i, w in enumerate(idfs):
        f = freqs[:, i].astype(np.float64)
        total = total + w * ((f * (K1 + 1.0)) / (f + den))
    return -1.0 * total


def invert(values: Any, sizes: Any, w: float, avgdl: float) -> Any:
    """The weighted hits one-phrase bm25 ``values`` imply (the caller checks they give ``values`` back)."""
    np = _np()
    with np.errstate(all="ignore"):
        x = -values / w
        k = K1 * ((1 - B) + (B * sizes.astype(np.float64)) / avgdl)
        f = np.rint(x * k / ((K1 + 1.0) - x))
    return np.maximum(0, np.nan_to_num(f, nan=0.0, posinf=0.0, neginf=0.0)).astype(np.int64)


@dataclass
class Kept:
    """One match's bm25 inputs: its listed rows best first (``ids``; ``sizes``, their ``D``;
    ``freqs``, an ``(n, k)`` array of their ``fᵢ``), scored under ``hits`` (``nᵢ`` per term) and the
    table's totals of :class:`Windows`; every row not listed scores at most ``limit`` in absolute
    value (``0.0``: every matching row is listed)."""

    terms: tuple[str, ...]
    hits: tuple[int, ...]
    limit: float
    ids: Any
    sizes: Any
    freqs: Any


@dataclass
class Windows:
    """Every match's :class:`Kept` inputs, under the FTS table's ``(rows, tokens)``."""

    totals: tuple[int, int]
    matches: dict[str, Kept] = field(default_factory=dict)
    #: counts of the last build: windows brought up to date, ranked again by FTS5 (and why)
    facts: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Changes:
    """What an incremental build rewrote: the row-id spans of the works it rebuilt and their new
    ``provision_fts`` rows ``(rowid, title, number, heading, text)``."""

    spans: tuple[tuple[int, int], ...]
    rows: tuple[tuple[int, str, str, str, str], ...]



def dump(windows: Windows, index_sha256: str) -> bytes:
    """The sidecar's bytes: zlib of a JSON head (naming the index file it describes; per match its
    terms, ``nᵢ``, ``limit`` and row count) and the rows' ids (int64), sizes and ``fᵢ`` (int32)."""
    np = _np()
    items = sorted(windows.matches.items())
    head = {"schema": SCHEMA, "index_sha256": index_sha256, "totals": list(windows.totals),
            "matches": [[m, list(k.terms), list(k.hits), k.limit, len(k.ids)] for m, k in items]}
    ids = np.concatenate([k.ids for _, k in items] or [np.zeros(0)]).astype("<i8")
    sizes = np.concatenate([k.sizes for _, k in items] or [np.zeros(0)]).astype("<i4")
    freqs = np.concatenate([k.freqs.reshape(-1) for _, k in items] or [np.zeros(0)]).astype("<i4")
    return sidecar.frame(head, ids.tobytes() + sizes.tobytes() + freqs.tobytes())


def load(path: Path, index_sha256: str) -> Windows | None:
    """The sidecar at ``path`` when it describes the index file of SHA-256 ``index_sha256``, else None
    (missing, damaged, of another schema or another file: the build ranks every match again)."""
    np = _np()
    found = sidecar.unframe(path, SCHEMA, index_sha256)
    if found is None:
        return None
    head, data, at = found
    try:
        rows_total, tokens_total = (int(v) for v in head["totals"])
        n = sum(int(e[4]) for e in head["matches"])
        cells = sum(int(e[4]) * len(e[1]) for e in head["matches"])
        if len(data) != at + 8 * n + 4 * n + 4 * cells:
            return None
        ids = np.frombuffer(data, dtype="<i8", count=n, offset=at).astype(np.int64)
        sizes = np.frombuffer(data, dtype="<i4", count=n, offset=at + 8 * n).astype(np.int64)
        freqs = np.frombuffer(data, dtype="<i4", count=cells, offset=at + 12 * n).astype(np.int64)
        out = Windows((rows_total, tokens_total))
        row = cell = 0
        for match, terms, hits, limit, count in head["matches"]:
            k, count = len(terms), int(count)
            if len(hits) != k:
                return None
            out.matches[str(match)] = Kept(tuple(str(t) for t in terms), tuple(int(h) for h in hits), float(limit),
                                           ids[row:row + count], sizes[row:row + count],
                                           freqs[cell:cell + count * k].reshape(count, k))
            row, cell = row + count, cell + count * k
        return out
    except (ValueError, TypeError, KeyError, IndexError):
        return None


def changed_freqs(conn: sqlite3.Connection, changes: Changes, terms: Iterable[str], tokenizer: str,
                  weights: Mapping[str, float]) -> dict[str, dict[int, int]]:
    """Per term, the weighted hits of every changed row holding it: the rows are indexed again in a
    scratch FTS5 table (same tokenizer, same column values) and its instances counted per column."""
    wanted = sorted(set(terms))
    out: dict[str, dict[int, int]] = {}
    if not changes.rows or not wanted:
        return out
    conn.execute(f"CREATE VIRTUAL TABLE temp.windows_fts USING fts5({', '.join(weights)}, tokenize='{tokenizer}')")
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.windows_vocab USING fts5vocab(temp, windows_fts, 'instance')")
        conn.executemany(f"INSERT INTO temp.windows_fts(rowid, {', '.join(weights)}) VALUES (?,?,?,?,?)", changes.rows)
        for first in range(0, len(wanted), 500):
            chunk = wanted[first:first + 500]
            for term, doc, col, n in conn.execute(
                    "SELECT term, doc, col, COUNT(*) FROM temp.windows_vocab "
                    f"WHERE term IN ({','.join('?' * len(chunk))}) GROUP BY term, doc, col", chunk):
                per = out.setdefault(str(term), {})
                per[int(doc)] = per.get(int(doc), 0) + int(n * weights[str(col)])
    finally:
        conn.execute("DROP TABLE IF EXISTS temp.windows_vocab")
        conn.execute("DROP TABLE IF EXISTS temp.windows_fts")
    return out


def update(kept: Kept, old_totals: tuple[int, int], totals: tuple[int, int], hits: Sequence[int],
           changes: Changes, fresh: Mapping[str, Mapping[int, int]], sizes: Mapping[int, int],
           window: int) -> tuple[list[tuple[int, float]], Kept] | None:
    """The match's new window (``window`` rows, best first) and kept inputs, or None when they cannot
    be proven exact (a fallback). ``fresh``: per term, the changed rows' weighted hits; ``sizes``:
    their ``D``."""
    np = _np()
    old_avgdl = float(old_totals[1]) / float(old_totals[0])
    avgdl = float(totals[1]) / float(totals[0])
    old_idfs = [idf(old_totals[0], h) for h in kept.hits]
    idfs = [idf(totals[0], h) for h in hits]
    ratio = max(new / old for new, old in zip(idfs, old_idfs, strict=True)) * max(1.0, avgdl / old_avgdl)
    bound = kept.limit * ratio * (1.0 + SAFETY)
    k = len(kept.terms)
    keep = np.ones(len(kept.ids), dtype=bool)
    for lo, hi in changes.spans:
        keep &= (kept.ids < lo) | (kept.ids > hi)
    ids, row_sizes, freqs = kept.ids[keep], kept.sizes[keep], kept.freqs[keep]
    extra: dict[int, list[int]] = {}
    for i, term in enumerate(kept.terms):
        for rowid, f in fresh.get(term, {}).items():
            extra.setdefault(rowid, [0] * k)[i] = f
    if extra:
        new_ids = sorted(extra)
        ids = np.concatenate([ids, np.array(new_ids, dtype=np.int64)])
        row_sizes = np.concatenate([row_sizes, np.array([sizes[r] for r in new_ids], dtype=np.int64)])
        freqs = np.concatenate([freqs, np.array([extra[r] for r in new_ids], dtype=np.int64).reshape(-1, k)])
    values = scores(freqs, row_sizes, idfs, avgdl)
    order = np.lexsort((ids, values))
    head = order[:window]
    if not len(head) or -float(values[head[-1]]) <= bound or (len(head) < window and bound > 0.0):
        return None
    limit = max(bound, -float(values[order[KEEP]])) if len(order) > KEEP else bound
    top = order[:KEEP]
    return ([(int(r), float(v)) for r, v in zip(ids[head].tolist(), values[head].tolist(), strict=True)],
            Kept(kept.terms, tuple(hits), limit, ids[top], row_sizes[top], freqs[top]))


def residual_term(hits: Sequence[int]) -> int:
    """The term of a match whose weighted hits :func:`inputs` derives from the match's own scores (the
    one with the most rows, whose own bm25 pass would cost most); the others' come from their own."""
    return max(range(len(hits)), key=lambda i: (hits[i], -i))


def inputs(rows: Sequence[tuple[int, float]], complete: bool, terms: Sequence[str], hits: Sequence[int],
           totals: tuple[int, int], sizes: Mapping[int, int],
           phrase_scores: Mapping[str, Mapping[int, float]]) -> Kept | None:
    """The :class:`Kept` inputs of a match FTS5 ranked (``rows``: its :data:`KEEP` best, ``complete``
    when they are all its rows), each ``fᵢ`` from the row's one-phrase bm25 (``phrase_scores``), but
    for the :func:`residual_term`, whose ``fᵢ`` is what the others leave of the match's own score; None
    unless every recomputed score is bm25's double."""
    np = _np()
    if not rows or any(r not in sizes for r, _ in rows):
        return None
    avgdl = float(totals[1]) / float(totals[0])
    idfs = [idf(totals[0], h) for h in hits]
    ids = np.array([r for r, _ in rows], dtype=np.int64)
    values = np.array([v for _, v in rows], dtype=np.float64)
    row_sizes = np.array([sizes[r] for r, _ in rows], dtype=np.int64)
    if len(terms) == 1:
        freqs = invert(values, row_sizes, idfs[0], avgdl).reshape(-1, 1)
    else:
        rest = residual_term(hits)
        columns = []
        for i, (t, w) in enumerate(zip(terms, idfs, strict=True)):
            own = phrase_scores.get(t, {}) if i != rest else {}
            known = np.array([r in own for r, _ in rows], dtype=bool)
            single = np.array([own.get(r, -1.0) for r, _ in rows], dtype=np.float64)
            columns.append(np.where(known, invert(single, row_sizes, w, avgdl), 0))
        freqs = np.stack(columns, axis=1).astype(np.int64)
        # the most frequent term's hits from what the others leave of the score (checked below)
        others = scores(freqs, row_sizes, idfs, avgdl)
        freqs[:, rest] = invert(values - others, row_sizes, idfs[rest], avgdl)
    if not np.array_equal(scores(freqs, row_sizes, idfs, avgdl), values):
        return None
    limit = 0.0 if complete else -rows[-1][1]
    return Kept(tuple(terms), tuple(hits), limit, ids, row_sizes, freqs)
