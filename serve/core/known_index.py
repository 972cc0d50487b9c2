"""The index-wide view on ``known_on`` for the publisher-wide operations (``in_force_on``,
``changes_in_period``, ``coverage``, ``cited_by``, ``search``).

Every version, expression, observation and event of a mounted index is read once (memoised per
index: a few MB for the full corpora) and the view of one day is derived from them by the pure
functions of :mod:`serve.core.known`, kept for the last :data:`KEPT_DAYS` days asked.
"""

from __future__ import annotations

import dataclasses
import functools
import sqlite3
import threading
from collections import OrderedDict, defaultdict
from dataclasses import dataclass
from typing import Any

from serve.core.known import (
    NOT_HELD_THEN,
    KnownVersion,
    Observation,
    all_events,
    known_version,
    text_at,
)
from serve.core.mount import MountedIndex
from serve.core.periods import ExpressionSummary, Periods, State, WorkPeriods
from serve.core.store import Expression, Version

#: Days whose view is kept per index.
KEPT_DAYS = 8


@dataclass(frozen=True)
class _Base:
    versions: tuple[Version, ...]
    expressions: dict[int, list[Expression]]
    observations: dict[int, list[Observation]]
    works: tuple[tuple[int, str, str | None, str | None, str | None], ...]


@dataclass(frozen=True)
class IndexAt:
    """One index as held on ``known_on``."""

    known_on: str
    periods: Periods
    #: Live-then versions adjusted to the day, by rowid.
    live: dict[int, Version]
    known: dict[int, KnownVersion]
    #: Expressions whose text is not provably the text held then (rowids).
    unproven_text: frozenset[int]
    sighted_later: int
    withdrawn_then: int
    #: ``(lex_id, language)`` of :attr:`unproven_text`.
    unproven_pairs: frozenset[tuple[str, str]] = frozenset()

    @property
    def differs(self) -> bool:
        """Whether anything was recorded after ``known_on`` (else the view is today's)."""
        return self.sighted_later > 0 or any(kv.later for kv in self.known.values())

    @functools.cached_property
    def _by_lex_id(self) -> dict[str, Version]:
        return {v.lex_id: v for v in self.live.values()}

    @functools.cached_property
    def _blocked(self) -> frozenset[tuple[str, str]]:
        """``(lex_id, language)`` of live-then versions whose language or text was not held then."""
        base = {(kv.version.lex_id, lang) for kv in self.known.values() for lang in kv.hidden_languages}
        return frozenset(base | self.unproven_pairs)

    def held_row(self, row: dict[str, Any]) -> bool:
        """Whether a search row (``lex_id``, ``language``, ``anchor``) was held then; its interval is set to the
        one held then."""
        version = self._by_lex_id.get(str(row.get("lex_id")))
        if version is None:
            return False
        if row.get("anchor") is not None and (version.lex_id, str(row.get("language"))) in self._blocked:
            return False
        row["valid_to"], row["end_exclusive"] = version.valid_to, version.end_exclusive
        return True

    def expressions(self, version_rowid: int, held: list[Expression]) -> list[Expression]:
        """The expressions of a version held then: languages added later left out, and an expression
        whose text is not the one held then shown without text (``text_state`` ``not_held_then``)."""
        kv = self.known.get(version_rowid)
        known = held if kv is None else [e for e in held if e.language not in kv.hidden_languages]
        return [dataclasses.replace(e, text_state=NOT_HELD_THEN, provision_count=0) if e.rowid in self.unproven_text
                else e for e in known]


def _load(conn: sqlite3.Connection) -> _Base:
    versions = tuple(Version.of(r) for r in conn.execute("SELECT * FROM versions ORDER BY work_rowid, valid_from, "
                                                          "version_key"))
    expressions: dict[int, list[Expression]] = defaultdict(list)
    for r in conn.execute("SELECT * FROM expressions ORDER BY version_rowid, language"):
        expressions[r["version_rowid"]].append(Expression.of(r))
    observations: dict[int, list[Observation]] = defaultdict(list)
    cursor = conn.cursor()
    cursor.row_factory = None
    for eid, file, sha, at in cursor.execute(
            "SELECT expression_rowid, file, sha256, retrieved_at FROM observations ORDER BY expression_rowid, seq"):
        observations[int(eid)].append(Observation(str(file), str(sha), at))
    works = tuple(cursor.execute("SELECT work_rowid, work_id, title, document_type, primary_language FROM works "
                                 "ORDER BY work_rowid"))
    return _Base(versions, dict(expressions), dict(observations), works)


class _Days:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.days: OrderedDict[str, IndexAt] = OrderedDict()


def _summary(e: Expression, proven: bool) -> ExpressionSummary:
    has_text = e.text_state == "provisions" and e.provision_count > 0 and proven
    return ExpressionSummary(e.language, has_text, e.provisions_digest if has_text else None, e.profile)


def _build(index: MountedIndex, known_on: str) -> IndexAt:
    base = index.memo("known_base", _load)
    events = index.memo("known_events", all_events)
    by_work: dict[int, list[State]] = defaultdict(list)
    live: dict[int, Version] = {}
    known: dict[int, KnownVersion] = {}
    unproven: set[int] = set()
    pairs: set[tuple[str, str]] = set()
    later = withdrawn = 0
    for version in base.versions:
        kv = known_version(version, events.get(version.rowid, ()), known_on)
        if kv is None:
            later += 1
            continue
        known[version.rowid] = kv
        if kv.version.withdrawn:
            withdrawn += 1
            continue
        v = kv.version
        live[v.rowid] = v
        summaries = []
        for e in base.expressions.get(v.rowid, []):
            if e.language in kv.hidden_languages:
                continue
            proven = not e.has_text or text_at(e, base.observations.get(e.rowid, []), known_on) is None
            if not proven:
                unproven.add(e.rowid)
                pairs.add((v.lex_id, e.language))
            summaries.append(_summary(e, proven))
        by_work[v.work_rowid].append(State(v.rowid, v.valid_from, v.end_exclusive, v.version_key, v.document_type,
                                           tuple(summaries)))
    works = []
    for rowid, work_id, title, document_type, primary in base.works:
        states = tuple(by_work.get(rowid, ()))
        if states:
            works.append(WorkPeriods(rowid, work_id, title, document_type, primary, states,
                                     tuple(s.valid_from for s in states)))
    return IndexAt(known_on, Periods(tuple(works)), live, known, frozenset(unproven), later, withdrawn,
                   frozenset(pairs))


def index_at(index: MountedIndex, known_on: str) -> IndexAt:
    """The view of ``index`` on ``known_on`` (cached for the last :data:`KEPT_DAYS` days)."""
    days = index.memo("known_days", lambda _conn: _Days())
    with days.lock:
        found = days.days.get(known_on)
        if found is not None:
            days.days.move_to_end(known_on)
            return found
    built = _build(index, known_on)
    with days.lock:
        days.days[known_on] = built
        while len(days.days) > KEPT_DAYS:
            days.days.popitem(last=False)
    return built


def held_expressions(index: MountedIndex, version_rowid: int) -> list[Expression]:
    """Every expression the index holds for a version (from the memoised base)."""
    return index.memo("known_base", _load).expressions.get(version_rowid, [])
