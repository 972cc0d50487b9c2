"""The semantic lane of one publisher: vectors in memory, candidates found under the search filters.

A :class:`HybridLane` holds one index's verified vectors (dequantised once, at mount) and the
encoder. For a query it scores every provision-state vector (the best chunk stands for its
state). Filters come first: the states with an occurrence passing the *same*
:class:`~serve.core.SearchFilters` as the keyword lane (work constraints, language,
document type, ``as_of``, never withdrawn; built from the keyword lane's own predicates) form a
mask, and only masked-in states are ranked. The best of them go through
:func:`~serve.core.occurrences`, which re-applies every predicate and picks each
state's newest eligible occurrence. A state that fails a filter therefore never becomes a
candidate. Fusion with the keyword hits is :mod:`hybrid.sections`.

The work-title rows give :meth:`HybridLane.work_ranking` (the title boost) and, when the lane's
``title_depth`` is above 0, :meth:`HybridLane.title_hits`: work rows (no anchor) for the works
whose titles are nearest the query, each passing the same filters (work constraints and
allowed works, a non-withdrawn version valid on ``as_of`` of the document type, an expression in
the language asked). This is the lane a titles-only vectors file (``scope: titles``) serves.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from derive.vectors.encoder import Encoder
from derive.vectors.quantise import dequantise
from derive.vectors.store import LoadedVectors
from serve.core import Hit, occurrences
from serve.core import SearchFilters as Filters
from serve.core.store import versions_of

#: Semantic hits (after the filters) taken into the fusion.
FUSE_DEPTH = 50
#: Eligibility masks kept per lane (one per distinct filter set).
ELIGIBLE_CACHE = 64
#: Weight of the work-title lane relative to a provision lane (reference: 0.65).
WORK_WEIGHT = 0.65
#: Work rows the title lane inserts into the fusion (0: it only boosts works already found).
TITLE_DEPTH = 0
#: Title-ranked works examined per query at most, for ``title_depth`` eligible ones.
TITLE_SCAN = 10
_SOURCE = ("(SELECT CAST(json_extract(j.value, '$[0]') AS INTEGER) AS state_rowid, "
           "json_extract(j.value, '$[1]') AS score FROM json_each(?) j)")


@dataclass
class LaneStats:
    """Counters a benchmark reads (encode time is the model's share of a query)."""

    queries: int = 0
    semantic_queries: int = 0
    encode_ms_total: float = 0.0


def run_starts(ids: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.int64]]:
    """For rows sorted by ``ids``: the position where each run of equal ids starts, and that run's id."""
    if not len(ids):
        return np.array([], dtype=np.intp), ids
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    return starts, ids[starts]


def best_per_run(matrix: npt.NDArray[np.float32], query: npt.NDArray[np.float32],
                 starts: npt.NDArray[np.intp]) -> npt.NDArray[np.float32]:
    """The best similarity of ``query`` to the rows of each run (:func:`run_starts`) of ``matrix``.
    einsum, not BLAS: a multi-threaded gemv costs ~100x more on a contended 2-core machine."""
    if not len(starts):
        return np.zeros(0, dtype=np.float32)
    return np.maximum.reduceat(np.einsum("ij,j->i", matrix, query), starts).astype(np.float32)


class HybridLane:
    def __init__(self, vectors: LoadedVectors, encoder: Encoder) -> None:
        self.vectors = vectors
        self.encoder = encoder
        self.publisher = vectors.publisher
        floats = dequantise(vectors.matrix, vectors.scale)
        state_pos = np.flatnonzero(vectors.kinds)
        work_pos = np.flatnonzero(~vectors.kinds)
        self._state_matrix: npt.NDArray[np.float32] = np.ascontiguousarray(floats[state_pos])
        state_ids = vectors.rowids[state_pos]
        # rows are sorted by state then chunk: the first row of each state starts its segment
        self._state_starts, self.state_ids = run_starts(state_ids)
        self._work_matrix: npt.NDArray[np.float32] = np.ascontiguousarray(floats[work_pos])
        work_ids = vectors.rowids[work_pos]
        self._work_starts, self.work_ids = run_starts(work_ids)
        self.title_depth = TITLE_DEPTH
        self.stats = LaneStats()
        self._eligible: dict[Filters, npt.NDArray[np.bool_]] = {}

    @property
    def nbytes(self) -> int:
        return int(self.vectors.nbytes + self._state_matrix.nbytes + self._work_matrix.nbytes)

    # -- scoring -------------------------------------------------------------------------

    def state_scores(self, query: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """Best-chunk similarity of every state, aligned with :attr:`state_ids`."""
        return best_per_run(self._state_matrix, query, self._state_starts)

    def work_ranking(self, query: npt.NDArray[np.float32]) -> list[int]:
        """Work rowids by best title similarity, best first (ties by rowid)."""
        if not len(self.work_ids):
            return []
        order = np.lexsort((self.work_ids, -self.work_scores(query)))
        return [int(self.work_ids[i]) for i in order]

    def work_scores(self, query: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """Best title similarity of every work, aligned with :attr:`work_ids`."""
        return best_per_run(self._work_matrix, query, self._work_starts)

    def title_hits(self, conn: sqlite3.Connection, query: npt.NDArray[np.float32], filters: Filters,
                   depth: int) -> list[Hit]:
        """Work rows (``anchor`` None) of the works whose titles are nearest ``query``, best first,
        each passing ``filters``; at most ``depth``, from the best ``depth * TITLE_SCAN`` works."""
        if depth <= 0 or not len(self.work_ids):
            return []
        best = self.work_scores(query)
        order = np.lexsort((self.work_ids, -best))[:depth * TITLE_SCAN]
        hits: list[Hit] = []
        for i in order:
            work = int(self.work_ids[i])
            if (filters.works and work not in filters.works) or (
                    filters.allowed is not None and work not in filters.allowed):
                continue
            hit = _work_hit(conn, work, filters, float(best[i]))
            if hit is not None:
                hits.append(hit)
                if len(hits) >= depth:
                    break
        return hits

    def eligible(self, conn: sqlite3.Connection, filters: Filters) -> npt.NDArray[np.bool_]:
        """Mask over :attr:`state_ids`: states with at least one occurrence passing ``filters``.

        Built from the keyword lane's own predicates (:meth:`Filters.state_sql`,
        :meth:`Filters.version_sql`), so both lanes admit exactly the same states; cached per
        filter set (the index is immutable).
        """
        cached = self._eligible.get(filters)
        if cached is not None:
            return cached
        state_where, state_params = filters.state_sql()
        version_where, version_params = filters.version_sql()
        rows = conn.execute(
            "SELECT DISTINCT s.state_rowid FROM lexical_states s "
            "JOIN provisions p ON p.state_rowid = s.state_rowid "
            "JOIN expressions e ON e.expression_rowid = p.expression_rowid "
            "JOIN versions v ON v.version_rowid = e.version_rowid "
            f"WHERE {state_where} AND {version_where}", [*state_params, *version_params]).fetchall()
        mask = np.isin(self.state_ids, np.array([int(r[0]) for r in rows], dtype=np.int64))
        if len(self._eligible) >= ELIGIBLE_CACHE:
            self._eligible.pop(next(iter(self._eligible)))
        self._eligible[filters] = mask
        return mask

    def semantic_rows(self, conn: sqlite3.Connection, query: npt.NDArray[np.float32], filters: Filters,
                      depth: int) -> list[dict[str, Any]]:
        """Eligible occurrences of the best states under ``filters``, best first.

        Filters first: states failing them are masked out *before* ranking; the best ``depth``
        remaining states then go through :func:`occurrences` with the same filters (which picks
        each state's newest eligible occurrence and re-applies every predicate).
        """
        scores = self.state_scores(query)
        if not len(scores):
            return []
        positions = np.flatnonzero(self.eligible(conn, filters))
        if not len(positions):
            return []
        order = positions[np.lexsort((self.state_ids[positions], -scores[positions]))][:depth]
        payload = json.dumps([[int(self.state_ids[i]), -round(float(scores[i]), 6)] for i in order])
        return occurrences(conn, _SOURCE, [payload], filters, depth)

    def encode(self, query_text: str) -> npt.NDArray[np.float32]:
        started = time.perf_counter()
        query = self.encoder.encode_query(query_text)
        self.stats.encode_ms_total += (time.perf_counter() - started) * 1000
        self.stats.semantic_queries += 1
        return query

    def semantic_hits(self, conn: sqlite3.Connection, query: npt.NDArray[np.float32], filters: Filters,
                      depth: int = FUSE_DEPTH) -> list[Hit]:
        """One hit per (work, anchor): its best-scored eligible state's newest eligible occurrence."""
        hits: list[Hit] = []
        seen: set[tuple[Any, ...]] = set()
        for row in self.semantic_rows(conn, query, filters, depth * 2):
            key = (row["work_rowid"], row["anchor"])
            if key in seen:
                continue
            seen.add(key)
            similarity = -float(row["score"])
            # the row's score is a similarity, not a BM25 value: never let a shell read it as one
            hits.append(Hit({**row, "score": None}, ["semantic"], {"similarity": round(similarity, 6)}))
            if len(hits) >= depth:
                break
        return hits


def _work_hit(conn: sqlite3.Connection, work: int, filters: Filters, similarity: float) -> Hit | None:
    """The work row of ``work`` (its newest eligible version), or None when no version passes."""
    eligible = [v for v in versions_of(conn, work) if not v.withdrawn
                and (filters.as_of is None or v.covers(filters.as_of))
                and (filters.document_type is None or v.document_type == filters.document_type)]
    if filters.language:
        eligible = [v for v in eligible if conn.execute(
            "SELECT 1 FROM expressions WHERE version_rowid = ? AND language = ?",
            (v.rowid, filters.language)).fetchone() is not None]
    if not eligible:
        return None
    v = eligible[-1]
    return Hit({"work_rowid": work, "lex_id": v.lex_id, "version_key": v.version_key,
                "valid_from": v.valid_from, "valid_to": v.valid_to, "end_exclusive": v.end_exclusive,
                "document_type": v.document_type, "anchor": None, "language": None},
               ["semantic_work"], {"similarity": round(similarity, 6)})
