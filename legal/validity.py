"""The interval algebra of valid time.

A publisher's ``valid_to`` is stored verbatim together with the convention the publisher
uses (:class:`legal.outcomes.ValidToConvention`). The model reasons on a half-open view
``[start, end)`` with ``end = None`` meaning open. As-of resolution: among the states whose
half-open interval contains the date, the latest start wins; several states with that same
start are *ambiguous* and all their keys are returned (never a silent pick).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from legal.errors import TemporalError
from legal.ids import Publisher
from legal.outcomes import TimelineSemantics, ValidToConvention
from legal.publishers import registry

ONE_DAY = _dt.timedelta(days=1)


def convention_of(publisher: Publisher | str) -> ValidToConvention:
    """The publisher's ``valid_to`` convention (its registered fact; unknown ids are refused)."""
    return registry().get(str(publisher)).valid_to_convention


def semantics_of(publisher: Publisher | str) -> TimelineSemantics:
    """What the publisher's valid time means (its registered fact; unknown ids are refused)."""
    return registry().get(str(publisher)).timeline_semantics


@dataclass(frozen=True, slots=True)
class Interval:
    """A half-open interval ``[start, end)`` of days; ``end is None`` means open."""

    start: _dt.date
    end: _dt.date | None = None

    def __post_init__(self) -> None:
        if self.end is not None and self.end <= self.start:
            raise TemporalError(
                f"interval end {self.end} is not after start {self.start}", code="empty_interval",
                subject=f"{self.start}/{self.end}",
            )

    @classmethod
    def from_publisher(
        cls, valid_from: _dt.date, valid_to: _dt.date | None, convention: ValidToConvention
    ) -> Interval:
        """Normalise a publisher's (verbatim) bounds to the half-open view.

        Legilux ``valid_to`` equal to ``valid_from`` (a zero-length closure) is kept as a one-day
        state rather than refused; an end before the start is refused.
        """
        if valid_to is None:
            return cls(valid_from, None)
        if valid_to < valid_from:
            raise TemporalError(f"valid_to {valid_to} before valid_from {valid_from}", code="inverted_interval",
                                subject=f"{valid_from}/{valid_to}")
        if convention is ValidToConvention.INCLUSIVE or valid_to == valid_from:
            return cls(valid_from, valid_to + ONE_DAY)
        return cls(valid_from, valid_to)

    def to_publisher(self, convention: ValidToConvention) -> _dt.date | None:
        """The ``valid_to`` a publisher with ``convention`` would write for this interval."""
        if self.end is None:
            return None
        return self.end - ONE_DAY if convention is ValidToConvention.INCLUSIVE else self.end

    def contains(self, day: _dt.date) -> bool:
        return self.start <= day and (self.end is None or day < self.end)

    def overlaps(self, other: Interval) -> bool:
        a_end = self.end or _dt.date.max
        b_end = other.end or _dt.date.max
        return self.start < b_end and other.start < a_end

    def intersection(self, other: Interval) -> Interval | None:
        if not self.overlaps(other):
            return None
        ends = [e for e in (self.end, other.end) if e is not None]
        return Interval(max(self.start, other.start), min(ends) if ends else None)

    @property
    def last_day(self) -> _dt.date | None:
        return None if self.end is None else self.end - ONE_DAY


K = TypeVar("K")


@dataclass(frozen=True, slots=True)
class State(Generic[K]):
    """One dated state of a work: its key and its half-open interval."""

    key: K
    interval: Interval


@dataclass(frozen=True, slots=True)
class Resolution(Generic[K]):
    """Outcome of as-of resolution: exactly one of ``key`` / ``ambiguous`` / nothing."""

    key: K | None
    ambiguous: tuple[K, ...] = ()

    @property
    def found(self) -> bool:
        return self.key is not None

    @property
    def is_ambiguous(self) -> bool:
        return bool(self.ambiguous)


def resolve_as_of(states: Iterable[State[K]], day: _dt.date) -> Resolution[K]:
    """Latest start among states containing ``day``; ties are ambiguous (keys sorted)."""
    covering = [s for s in states if s.interval.contains(day)]
    if not covering:
        return Resolution(None)
    latest = max(s.interval.start for s in covering)
    winners = sorted({s.key for s in covering if s.interval.start == latest}, key=str)
    if len(winners) == 1:
        return Resolution(winners[0])
    return Resolution(None, tuple(winners))


def chain_intervals(starts: Sequence[_dt.date], last_end: _dt.date | None = None) -> list[Interval]:
    """Half-open intervals from sorted distinct-or-repeated start dates: each state runs to the
    next *later* start (same-day siblings share their interval); the last runs to ``last_end``."""
    ordered = sorted(starts)
    out: list[Interval] = []
    for s in starts:
        later = [t for t in ordered if t > s]
        out.append(Interval(s, later[0] if later else last_end))
    return out


def parse_timestamp(text: str) -> _dt.datetime:
    """A UTC transaction-time stamp ``YYYY-MM-DDTHH:MM:SSZ``."""
    try:
        if not text.endswith("Z"):
            raise ValueError
        return _dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=_dt.UTC)
    except ValueError:
        raise TemporalError(f"invalid timestamp {text!r} (expected YYYY-MM-DDTHH:MM:SSZ)", code="invalid_timestamp",
                            subject=text) from None


def format_timestamp(moment: _dt.datetime) -> str:
    if moment.tzinfo is None:
        raise TemporalError("timestamps must be timezone-aware", code="naive_timestamp")
    return moment.astimezone(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
