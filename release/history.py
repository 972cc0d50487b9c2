"""Which signed set was current at an instant: the release ledger read as transaction time.

The ledger (:mod:`release.ledger`) records every transition with its instant ``at`` and the
pointer ``state`` after it. Read in order, it is a step function of time: the set current at
instant ``t`` is the ``current`` of the last entry whose ``at`` is at or before ``t`` (a
transition takes effect at its own instant; entries of one second apply in ledger order).

Pure functions over verified entries (the caller verifies the chain and the head first,
:func:`release.promotion.verified_entries`):

- :func:`transitions` — every entry as a :class:`Transition` (``current``/``rollback`` after);
- :func:`parse_instant` — ``YYYY-MM-DD`` (the end of that day, UTC: ``23:59:59Z``) or
  ``YYYY-MM-DDTHH:MM:SSZ``; anything else is a ``release/invalid_instant``;
- :func:`current_at` — the set current at an instant, the entry that made it current, since
  when and until when (``None``: still current at the ledger's last entry); before the first
  promotion, ``set_id`` is ``None`` (:attr:`CurrentAt.none_current`). A ledger whose instants go
  backwards cannot answer and is refused (``release/ledger_time_disorder``, naming the line).
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from release.codes import Reason, refuse

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_STAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")
STAMP_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


@dataclass(frozen=True)
class Transition:
    """One ledger entry as history: what happened, and the pointers after it."""

    seq: int
    at: str
    action: str
    set_id: str | None
    actor: str
    current: str | None
    rollback: str | None
    hash: str

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "at": self.at, "action": self.action, "set_id": self.set_id,
                "actor": self.actor, "current": self.current, "rollback": self.rollback, "hash": self.hash}


@dataclass(frozen=True)
class CurrentAt:
    """The answer of :func:`current_at`.

    ``set_id`` is the set current at ``instant`` (``None`` when no set was current yet);
    ``entry`` is the transition that made it current, ``since`` its instant and ``until`` the
    instant of the next transition that made another set current (``None``: still current at
    the ledger's last entry). ``rollback`` is the retained set at ``instant``.
    ``first_promotion`` is the instant a set first became current (``None``: never).
    """

    instant: str
    set_id: str | None
    entry: Transition | None
    since: str | None
    until: str | None
    rollback: str | None
    first_promotion: str | None

    @property
    def none_current(self) -> bool:
        return self.set_id is None

    def to_json(self) -> dict[str, Any]:
        return {"at": self.instant, "current": self.set_id, "since": self.since, "until": self.until,
                "rollback": self.rollback, "entry": None if self.entry is None else self.entry.to_json(),
                "first_promotion": self.first_promotion}


def format_instant(moment: _dt.datetime) -> str:
    return moment.astimezone(_dt.UTC).strftime(STAMP_FORMAT)


def parse_instant(text: str) -> _dt.datetime:
    """``YYYY-MM-DD`` → the end of that day (``23:59:59Z``); ``YYYY-MM-DDTHH:MM:SSZ`` → itself.
    Anything else (an offset other than ``Z``, fractions, a date that does not exist) is refused."""
    try:
        if _DATE.fullmatch(text):
            day = _dt.date.fromisoformat(text)
            return _dt.datetime.combine(day, _dt.time(23, 59, 59), tzinfo=_dt.UTC)
        if _STAMP.fullmatch(text):
            return _dt.datetime.strptime(text, STAMP_FORMAT).replace(tzinfo=_dt.UTC)
    except ValueError:
        pass
    refuse(Reason.INVALID_INSTANT, "an instant is YYYY-MM-DD (the end of that day, UTC) or "
                                   "YYYY-MM-DDTHH:MM:SSZ", text[:80])


def _entry_instant(entry: Mapping[str, Any]) -> _dt.datetime:
    at = entry.get("at")
    if isinstance(at, str) and _STAMP.fullmatch(at):
        try:
            return _dt.datetime.strptime(at, STAMP_FORMAT).replace(tzinfo=_dt.UTC)
        except ValueError:
            pass
    refuse(Reason.LEDGER_TIME_DISORDER, "ledger entry has no instant YYYY-MM-DDTHH:MM:SSZ",
           f"line {int(entry.get('seq', -1)) + 1}")


def transitions(entries: Sequence[Mapping[str, Any]]) -> list[Transition]:
    """Every entry as a :class:`Transition`; refused when an instant is malformed or earlier
    than the one before it (``ledger_time_disorder``, naming the line)."""
    out: list[Transition] = []
    previous: _dt.datetime | None = None
    for entry in entries:
        moment = _entry_instant(entry)
        if previous is not None and moment < previous:
            refuse(Reason.LEDGER_TIME_DISORDER,
                   f"ledger entry at {entry['at']} is earlier than the entry before it; the ledger cannot say "
                   f"which set was current when", f"line {entry['seq'] + 1}")
        previous = moment
        state = entry["state"]
        out.append(Transition(entry["seq"], entry["at"], entry["action"], entry["set_id"], entry["actor"],
                              state.get("current"), state.get("rollback"), entry["hash"]))
    return out


def current_at(entries: Sequence[Mapping[str, Any]], instant: _dt.datetime) -> CurrentAt:
    """The set current at ``instant`` according to the (verified) ledger ``entries``."""
    history = transitions(entries)
    asked = format_instant(instant)
    # the transitions that changed which set is current
    changes = [t for i, t in enumerate(history) if t.current != (history[i - 1].current if i else None)]
    first = next((t.at for t in changes if t.current is not None), None)
    applied = [t for t in history if _stamp(t.at) <= instant]
    if not applied or applied[-1].current is None:
        return CurrentAt(asked, None, None, None, None, applied[-1].rollback if applied else None, first)
    last = applied[-1]
    made = [t for t in changes if t.seq <= last.seq][-1]
    later = [t for t in changes if t.seq > last.seq]
    return CurrentAt(asked, last.current, made, made.at, later[0].at if later else None, last.rollback, first)


def _stamp(at: str) -> _dt.datetime:
    return _dt.datetime.strptime(at, STAMP_FORMAT).replace(tzinfo=_dt.UTC)
