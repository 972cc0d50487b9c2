"""The work-title lane over the static word table (issue #15, docs/hybrid.md §10; measured, not served).

:class:`StaticTitleLane` holds one index's work titles encoded by a
:class:`~derive.vectors.static.StaticTable` (each title the weighted mean of its words) and
scores a question against them: a work's similarity is the best of its titles', as in
:meth:`hybrid.lane.HybridLane.work_scores`. Encoding a question is the table's look-up, so the
lane needs no model at query time. Built from ``(work_rowid, language, title)`` rows
(:func:`derive.vectors.build.work_titles`), sorted by work.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from derive.vectors.static import StaticTable
from hybrid.lane import best_per_run, run_starts


class StaticTitleLane:
    def __init__(self, table: StaticTable, titles: Sequence[tuple[int, str, str]]) -> None:
        self.table = table
        rows = sorted(titles, key=lambda t: (t[0], t[1], t[2]))
        self._matrix = np.ascontiguousarray(table.encode_many([t for _, _, t in rows]))
        self._starts, self.work_ids = run_starts(np.asarray([w for w, _, _ in rows], dtype=np.int64))

    @property
    def nbytes(self) -> int:
        return int(self._matrix.nbytes)

    def encode(self, text: str) -> npt.NDArray[np.float32]:
        return self.table.encode(text)

    def work_scores(self, query: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """The best title similarity of each work of :attr:`work_ids` (a zero query scores 0 everywhere)."""
        return best_per_run(self._matrix, query, self._starts)
