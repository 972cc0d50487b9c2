"""The semantic lane of one publisher: vectors in memory, candidates found under the search filters.

A :class:`HybridLane` holds one index's verified vectors (dequantised once, at mount) and the
encoder. For a query it scores every provision-state vector (the best chunk stands for its
state), then joins the best states with the *same* :class:`~serve.core.ops.search.Filters` as
the keyword lane through :func:`~serve.core.ops.search.occurrences` — work constraints,
language, document type, ``as_of``, never withdrawn — so a state that fails a filter is dropped
before any ranking or fusion. Exact, like the keyword lane: when the first ``SEMANTIC_FIRST``
states leave too few eligible rows, every state is filtered. Fusion with the keyword hits is
:mod:`serve.hybrid.sections`.
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
from serve.core.ops.search import Filters, Hit, occurrences

#: Semantic hits (after the filters) taken into the fusion.
FUSE_DEPTH = 50
#: Best-scored states joined with the filters first (then all states when that is too few).
SEMANTIC_FIRST = 400
#: Weight of the work-title lane relative to a provision lane (reference: 0.65).
WORK_WEIGHT = 0.65
_SOURCE = ("(SELECT CAST(json_extract(j.value, '$[0]') AS INTEGER) AS state_rowid, "
           "json_extract(j.value, '$[1]') AS score FROM json_each(?) j)")


@dataclass
class LaneStats:
    """Counters a benchmark reads (encode time is the model's share of a query)."""

    queries: int = 0
    semantic_queries: int = 0
    encode_ms_total: float = 0.0


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
        starts = np.flatnonzero(np.r_[True, state_ids[1:] != state_ids[:-1]]) if len(state_ids) else np.array([], int)
        self._state_starts = starts
        self.state_ids: npt.NDArray[np.int64] = state_ids[starts] if len(state_ids) else state_ids
        self._work_matrix: npt.NDArray[np.float32] = np.ascontiguousarray(floats[work_pos])
        work_ids = vectors.rowids[work_pos]
        wstarts = np.flatnonzero(np.r_[True, work_ids[1:] != work_ids[:-1]]) if len(work_ids) else np.array([], int)
        self._work_starts = wstarts
        self.work_ids: npt.NDArray[np.int64] = work_ids[wstarts] if len(work_ids) else work_ids
        self.stats = LaneStats()

    @property
    def nbytes(self) -> int:
        return int(self.vectors.nbytes + self._state_matrix.nbytes + self._work_matrix.nbytes)

    # -- scoring -------------------------------------------------------------------------

    def state_scores(self, query: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """Best-chunk similarity of every state, aligned with :attr:`state_ids`."""
        if not len(self.state_ids):
            return np.zeros(0, dtype=np.float32)
        per_row = self._state_matrix @ query
        return np.maximum.reduceat(per_row, self._state_starts).astype(np.float32)

    def work_ranking(self, query: npt.NDArray[np.float32]) -> list[int]:
        """Work rowids by best title similarity, best first (ties by rowid)."""
        if not len(self.work_ids):
            return []
        best = np.maximum.reduceat(self._work_matrix @ query, self._work_starts)
        order = np.lexsort((self.work_ids, -best))
        return [int(self.work_ids[i]) for i in order]

    def semantic_rows(self, conn: sqlite3.Connection, query: npt.NDArray[np.float32], filters: Filters,
                      depth: int) -> list[dict[str, Any]]:
        """Eligible occurrences of the best states under ``filters``, best first (filters first)."""
        scores = self.state_scores(query)
        if not len(scores):
            return []
        order = np.lexsort((self.state_ids, -scores))

        def run(positions: npt.NDArray[np.intp]) -> list[dict[str, Any]]:
            payload = json.dumps([[int(self.state_ids[i]), -round(float(scores[i]), 6)] for i in positions])
            return occurrences(conn, _SOURCE, [payload], filters, depth)

        rows = run(order[:SEMANTIC_FIRST])
        if len(rows) < depth and len(order) > SEMANTIC_FIRST:
            rows = run(order)
        return rows

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
