"""The period index of one mounted index, held in memory: every live state of every work.

Loaded once per mounted index from the build's ``serving_states`` table (a few thousand compact
rows: a few MB for the full corpora) and shared, read-only, by all threads. ``in_force_on`` and
``changes_in_period`` answer from it with bisection over each work's ordered starts, and read the
full ``versions``/``expressions`` rows only for the page they return.
"""

from __future__ import annotations

import bisect
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypeVar, cast

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class ExpressionSummary:
    language: str
    has_text: bool
    provisions_digest: str | None
    profile: str | None


@dataclass(frozen=True, slots=True)
class State:
    version_rowid: int
    valid_from: str
    end_exclusive: str | None
    version_key: str
    document_type: str | None
    expressions: tuple[ExpressionSummary, ...]

    def covers(self, day: str) -> bool:
        return self.valid_from <= day and (self.end_exclusive is None or day < self.end_exclusive)

    def primary(self, primary_language: str | None) -> tuple[str | None, str | None]:
        """Digest and profile of the expression ``choose_expression(…, None, primary)`` picks, when
        it holds text."""
        if not self.expressions:
            return None, None
        chosen = min(self.expressions, key=lambda e: (not e.has_text, e.language != primary_language, e.language))
        return (chosen.provisions_digest, chosen.profile) if chosen.has_text else (None, None)


@dataclass(frozen=True, slots=True)
class WorkPeriods:
    work_rowid: int
    work_id: str
    title: str | None
    document_type: str | None
    primary_language: str | None
    #: Live states in ``(valid_from, version_key)`` order, and their starts (for bisection).
    states: tuple[State, ...]
    starts: tuple[str, ...]

    def in_window(self, start: str, stop: str) -> tuple[int, int]:
        """``lo, hi``: ``states[lo:hi]`` are the states starting in ``[start, stop]``."""
        return bisect.bisect_left(self.starts, start), bisect.bisect_right(self.starts, stop)

    def winners(self, day: str) -> list[State]:
        """The live states covering ``day`` with the latest start (several: same-day states)."""
        i = bisect.bisect_right(self.starts, day)
        found: list[State] = []
        while i > 0:
            i -= 1
            state = self.states[i]
            if found and state.valid_from != found[0].valid_from:
                break
            if state.covers(day):
                found.append(state)
        found.reverse()
        return found


@dataclass(frozen=True)
class Periods:
    works: tuple[WorkPeriods, ...]

    def __iter__(self) -> Iterator[WorkPeriods]:
        return iter(self.works)


def load_periods(conn: sqlite3.Connection) -> Periods:
    """The period index of the index ``conn`` reads, held compactly (pss43): the objects are slotted,
    and equal values — a language, a profile, a document type, a date, an expression summary and a
    state's tuple of them — are one object each (:class:`_Same`), as every served worker shares the
    table its builder loaded (3.1 against 8.2 MB traced for the two full indexes)."""
    cursor = conn.cursor()
    cursor.row_factory = None
    by_work: dict[int, list[State]] = {}
    same = _Same()
    for vid, work, start, end, key, doc_type, summary in cursor.execute(
            "SELECT version_rowid, work_rowid, valid_from, end_exclusive, version_key, document_type, expressions "
            "FROM serving_states ORDER BY work_rowid, valid_from, version_key"):
        expressions = same(tuple(same(ExpressionSummary(same(str(e[0])), bool(e[1]), e[2], same(e[3])))
                                 for e in json.loads(summary)))
        by_work.setdefault(work, []).append(State(vid, same(start), same(end), key, same(doc_type), expressions))
    works = []
    for rowid, work_id, title, document_type, primary in cursor.execute(
            "SELECT work_rowid, work_id, title, document_type, primary_language FROM works ORDER BY work_rowid"):
        states = tuple(by_work.get(rowid, ()))
        if states:
            works.append(WorkPeriods(rowid, work_id, title, document_type, primary, states,
                                     tuple(s.valid_from for s in states)))
    return Periods(tuple(works))


class _Same:
    """One object per equal value seen (the first): ``same(value)`` is that object. For immutable
    values only."""

    def __init__(self) -> None:
        self._seen: dict[object, object] = {}

    def __call__(self, value: _T) -> _T:
        return cast(_T, self._seen.setdefault(value, value))
