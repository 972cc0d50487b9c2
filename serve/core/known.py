"""As known on: the transaction-time view of a work's states on a past day (``docs/adr/0013``).

Every operation takes an optional ``known_on`` day K and answers as the system would have on K
about the asked (valid-time) date. The view is computed at query time from the index's
``events`` and ``observations`` tables, per version, by pure functions:

- a version is *visible* at K iff its ``first_sighting`` was observed on or before K (a version
  with no event at all is visible: nothing says it came later);
- it is *withdrawn* at K iff the last of its ``withdrawn_from_source`` / ``resighted`` events
  observed on or before K is a withdrawal;
- its ``valid_to`` at K undoes the ``interval_closed`` / ``validity_revised`` events observed
  after K (the first such event after K gives the old value; its end is re-normalised);
- a language whose ``expression_added`` was observed after K was not known at K;
- the text of an expression is *known at K* only when the body the index derived it from
  (``evidence_file`` / ``evidence_sha256``) is the last observation of that file retrieved on or
  before K: otherwise the text then held is not in this index (:class:`TextAtK` says which body
  was held then, or that none was).

"Observed on or before K" compares the UTC day of the timestamp with K: everything recorded
during day K counts as known on K. Observations carry ``retrieved_at`` (when the body was
fetched; the writer stores it in the same run that records the change).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from legal.errors import RequestError, TemporalError
from legal.outcomes import Outcome, RecordEvent, ValidToConvention
from legal.record_events import VALIDITY_EVENTS, valid_to_change
from legal.validity import Interval
from serve.core.envelope import Answer, CallContext, answer
from serve.core.mount import MountedIndex
from serve.core.store import Expression, Version

_LIFECYCLE = (RecordEvent.WITHDRAWN_FROM_SOURCE.value, RecordEvent.RESIGHTED.value)


@dataclass(frozen=True)
class Event:
    event: str
    observed_from: str
    scope: str | None
    detail: str | None

    @property
    def day(self) -> str:
        return self.observed_from[:10]

    def doc(self) -> dict[str, Any]:
        return {"event": self.event, "observed_from": self.observed_from, "scope": self.scope, "detail": self.detail}


@dataclass(frozen=True)
class Observation:
    file: str
    sha256: str
    retrieved_at: str | None


@dataclass(frozen=True)
class TextAtK:
    """Why the index's text of an expression is not the text known at K."""

    reason: str  # "not_yet_held" | "changed_later"
    held_then_sha256: str | None
    held_then_retrieved_at: str | None
    held_now_sha256: str | None
    held_now_retrieved_at: str | None

    def doc(self, known_on: str, file: str | None) -> dict[str, Any]:
        if self.reason == "not_yet_held":
            detail = f"no body of this expression was held on {known_on}; it was fetched later"
        else:
            detail = (f"the body held on {known_on} (sha256 {self.held_then_sha256}) was later replaced; this index "
                      "holds only the later body's text, which is never served as the text known then")
        return {"reason": self.reason, "evidence_file": file, "held_then_sha256": self.held_then_sha256,
                "held_then_retrieved_at": self.held_then_retrieved_at, "held_now_sha256": self.held_now_sha256,
                "held_now_retrieved_at": self.held_now_retrieved_at, "detail": detail}


@dataclass(frozen=True)
class KnownVersion:
    """One version as held on K: the adjusted :class:`Version` and what was recorded later."""

    version: Version
    later: tuple[Event, ...]
    hidden_languages: frozenset[str]


@dataclass(frozen=True)
class KnownView:
    """A work's versions as held on K."""

    known_on: str
    known: tuple[KnownVersion, ...]
    #: Versions first sighted after K (not part of the view).
    unseen: tuple[Version, ...]
    first_known: str | None
    #: The first-sighting day of each version (by rowid) that has one.
    sighted: Mapping[int, str] = dataclasses.field(default_factory=dict)

    @property
    def versions(self) -> list[Version]:
        """The visible versions in ``(valid_from, version_key)`` order, adjusted to K."""
        return [k.version for k in self.known]

    def of(self, version: Version) -> KnownVersion | None:
        return next((k for k in self.known if k.version.rowid == version.rowid), None)

    @property
    def differs(self) -> bool:
        return bool(self.unseen) or any(k.later for k in self.known)


# -- parsing the argument -------------------------------------------------------------------------


def check_known_on(known_on: str | None, horizon: str) -> None:
    """Refuse a ``known_on`` after ``horizon`` (the day the mounted indexes were built: nothing
    later was recorded, so an answer "as known" then would be a guess)."""
    if known_on is not None and known_on > horizon:
        raise RequestError(f"known_on is after the transaction-time horizon of the mounted indexes ({horizon})",
                           code="known_on_after_horizon", subject="known_on")


# -- pure view functions ---------------------------------------------------------------------------


def valid_to_at(version: Version, events: Sequence[Event], known_on: str) -> str | None:
    """``valid_to`` as held on K: the old value of the first validity event observed after K."""
    for event in events:
        if event.day > known_on and event.event in VALIDITY_EVENTS:
            change = valid_to_change(event.event, event.detail)
            if change is not None:
                return change[0]
            return version.valid_to  # an unreadable detail: the index's value stays (disclosed in ``later``)
    return version.valid_to


def _end(valid_from: str, valid_to: str | None, convention: str) -> tuple[str | None, str]:
    if valid_to is None:
        return None, "open"
    start, end = _dt.date.fromisoformat(valid_from), _dt.date.fromisoformat(valid_to)
    parsed = ValidToConvention(convention)
    try:
        interval = Interval.from_publisher(start, end, parsed)
    except TemporalError:
        return valid_from, "inverted"
    assert interval.end is not None
    status = "one_day" if end == start and parsed is ValidToConvention.EXCLUSIVE else "closed"
    return interval.end.isoformat(), status


def withdrawn_at(events: Sequence[Event], known_on: str) -> bool:
    last = None
    for event in events:
        if event.day <= known_on and event.event in _LIFECYCLE:
            last = event.event
    return last == RecordEvent.WITHDRAWN_FROM_SOURCE.value


def sighted_on(events: Sequence[Event]) -> str | None:
    """The day of the first sighting (else of the earliest event); None without any event."""
    for event in events:
        if event.event == RecordEvent.FIRST_SIGHTING.value:
            return event.day
    return min((e.day for e in events), default=None)


def _added_language(event: Event) -> str | None:
    if event.event != RecordEvent.EXPRESSION_ADDED.value:
        return None
    if event.detail and event.detail.startswith("language="):
        return event.detail.split("=", 1)[1].strip()
    return event.scope


def known_version(version: Version, events: Sequence[Event], known_on: str) -> KnownVersion | None:
    """``version`` as held on K, or None when it was first sighted after K."""
    sighted = sighted_on(events)
    if sighted is not None and sighted > known_on:
        return None
    later = tuple(e for e in events if e.day > known_on)
    if not later:
        return KnownVersion(version, (), frozenset())
    valid_to = valid_to_at(version, events, known_on)
    adjusted = version
    if valid_to != version.valid_to:
        end, status = _end(version.valid_from, valid_to, version.valid_to_convention)
        adjusted = dataclasses.replace(adjusted, valid_to=valid_to, end_exclusive=end, interval_status=status)
    withdrawn = withdrawn_at(events, known_on)
    if withdrawn != version.withdrawn:
        adjusted = dataclasses.replace(adjusted, withdrawn=withdrawn)
    hidden = frozenset(lang for lang in (_added_language(e) for e in later) if lang)
    return KnownVersion(adjusted, later, hidden)


def known_view(versions: Sequence[Version], events: Mapping[int, Sequence[Event]], known_on: str) -> KnownView:
    """The view of one work's ``versions`` (with their ``events`` by version rowid) on K."""
    known: list[KnownVersion] = []
    unseen: list[Version] = []
    sighted: dict[int, str] = {}
    for version in versions:
        own = events.get(version.rowid, ())
        day = sighted_on(own)
        if day is not None:
            sighted[version.rowid] = day
        found = known_version(version, own, known_on)
        if found is None:
            unseen.append(version)
        else:
            known.append(found)
    return KnownView(known_on, tuple(known), tuple(unseen), min(sighted.values(), default=None), sighted)


def known_expressions(expressions: Sequence[Expression], kv: KnownVersion) -> list[Expression]:
    return [e for e in expressions if e.language not in kv.hidden_languages]


#: ``text_state`` of an expression whose text held on ``known_on`` is not the one the index holds.
NOT_HELD_THEN = "not_held_then"


def text_at(expression: Expression, observations: Sequence[Observation], known_on: str) -> TextAtK | None:
    """None when the index's text of ``expression`` is provably the text held on K."""
    if not expression.has_text or expression.evidence_file is None:
        return None
    same_file = [o for o in observations if o.file == expression.evidence_file]
    then = [o for o in same_file if o.retrieved_at is None or o.retrieved_at[:10] <= known_on]
    now = same_file[-1] if same_file else None
    now_sha = expression.evidence_sha256 or (now.sha256 if now else None)
    now_at = now.retrieved_at if now else None
    if not then:
        return TextAtK("not_yet_held", None, None, now_sha, now_at)
    if then[-1].sha256 == now_sha:
        return None
    return TextAtK("changed_later", then[-1].sha256, then[-1].retrieved_at, now_sha, now_at)


def disclosures(view: KnownView, shown: Iterable[Version] | None = None) -> dict[str, Any]:
    """What the index holds now that was not held on K, for the versions an answer shows (all
    visible ones by default), and the versions sighted after K."""
    wanted = None if shown is None else {v.rowid for v in shown}
    later = []
    for kv in view.known:
        if kv.later and (wanted is None or kv.version.rowid in wanted):
            later.append({"lex_id": kv.version.lex_id, "version_key": kv.version.version_key,
                          "events": [e.doc() for e in kv.later]})
    return {"known_on": view.known_on, "recorded_later": later,
            "versions_sighted_later": [v.version_key for v in view.unseen]}


# -- reads ----------------------------------------------------------------------------------------------


def _marks(values: Sequence[Any]) -> str:
    return ",".join("?" * len(values))


def events_for(conn: sqlite3.Connection, version_rowids: Iterable[int]) -> dict[int, list[Event]]:
    ids = sorted(set(version_rowids))
    out: dict[int, list[Event]] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        query = (f"SELECT version_rowid, event, observed_from, scope, detail FROM events "
                 f"WHERE version_rowid IN ({_marks(chunk)}) ORDER BY version_rowid, seq")
        for r in conn.execute(query, chunk):
            out.setdefault(int(r[0]), []).append(Event(str(r[1]), str(r[2]), r[3], r[4]))
    return out


def all_events(conn: sqlite3.Connection) -> dict[int, list[Event]]:
    """Every event of the index by version rowid (a few thousand rows; memoised per index)."""
    out: dict[int, list[Event]] = {}
    cursor = conn.cursor()
    cursor.row_factory = None
    for vid, event, observed, scope, detail in cursor.execute(
            "SELECT version_rowid, event, observed_from, scope, detail FROM events ORDER BY version_rowid, seq"):
        out.setdefault(int(vid), []).append(Event(str(event), str(observed), scope, detail))
    return out


def observations_of(conn: sqlite3.Connection, expression_rowid: int) -> list[Observation]:
    rows = conn.execute("SELECT file, sha256, retrieved_at FROM observations WHERE expression_rowid = ? ORDER BY seq",
                        (expression_rowid,))
    return [Observation(str(r[0]), str(r[1]), r[2]) for r in rows]


def work_view(conn: sqlite3.Connection, versions: Sequence[Version], known_on: str) -> KnownView:
    return known_view(versions, events_for(conn, [v.rowid for v in versions]), known_on)


def expression_text_at(conn: sqlite3.Connection, expression: Expression | None, known_on: str) -> TextAtK | None:
    if expression is None or not expression.has_text:
        return None
    return text_at(expression, observations_of(conn, expression.rowid), known_on)


def not_yet_known(ctx: CallContext, index: MountedIndex, view: KnownView, base: Mapping[str, Any]) -> Answer:
    """The answer for a ``known_on`` before the first sighting of any state of the work."""
    return answer(ctx, index, Outcome.NOT_YET_KNOWN, {
        **base, "first_known": view.first_known,
        "detail": f"Nothing about this work was held on {view.known_on}: its first state was recorded on "
                  f"{view.first_known}.",
    })


def unseen_key(ctx: CallContext, index: MountedIndex, view: KnownView, keys: Sequence[str | None],
               base: Mapping[str, Any]) -> Answer | None:
    """``not_yet_known`` when an exact ``version_key`` names a state first recorded after K."""
    for key in keys:
        version = next((v for v in view.unseen if key is not None and v.version_key == key), None)
        if version is not None:
            day = view.sighted.get(version.rowid)
            return answer(ctx, index, Outcome.NOT_YET_KNOWN, {
                **base, "version_key": key, "first_known": day,
                "detail": f"This state was first recorded on {day}: nothing about it was held on {view.known_on}.",
            })
    return None


def text_refusal(ctx: CallContext, index: MountedIndex, payload: Mapping[str, Any], expression: Expression,
                 then: TextAtK, known_on: str, *, provisional: bool = False, key: str = "text_unavailable_reason") -> Answer:
    """``text_not_available``: the text held on K is not the text this index holds."""
    return answer(ctx, index, Outcome.TEXT_NOT_AVAILABLE, {
        **payload, key: f"known_on:{then.reason}", "known_on_text": then.doc(known_on, expression.evidence_file),
    }, provisional=provisional)


def held_then(conn: sqlite3.Connection, view: KnownView, version: Version,
              expressions: Sequence[Expression]) -> list[Expression]:
    """The expressions of ``version`` as held on the view's day: languages added later left out, and
    a text not provably held then shown as no text (``text_state`` :data:`NOT_HELD_THEN`)."""
    kv = view.of(version)
    known = list(expressions) if kv is None else known_expressions(expressions, kv)
    return [dataclasses.replace(e, text_state=NOT_HELD_THEN, provision_count=0)
            if expression_text_at(conn, e, view.known_on) is not None else e for e in known]
