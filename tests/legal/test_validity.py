"""The interval algebra: publisher conventions, half-open view, as-of resolution."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from legal.errors import TemporalError
from legal.outcomes import ValidToConvention
from legal.validity import (
    ONE_DAY,
    Interval,
    State,
    chain_intervals,
    format_timestamp,
    parse_timestamp,
    resolve_as_of,
)

D = dt.date
dates = st.dates(min_value=D(1900, 1, 1), max_value=D(2100, 1, 1))
conventions = st.sampled_from(list(ValidToConvention))
#: (start, end) with end > start, drawn directly (no rejection: ``assume`` on two free dates threw
#: away half the draws, and four dates made Hypothesis's filter health check fail now and then)
spans = st.tuples(dates, dates).map(lambda pair: (min(pair), max(pair) + ONE_DAY))


def test_legilux_end_is_next_start() -> None:
    iv = Interval.from_publisher(D(2020, 1, 1), D(2021, 1, 1), ValidToConvention.EXCLUSIVE)
    assert iv.contains(D(2020, 12, 31)) and not iv.contains(D(2021, 1, 1))


def test_eurlex_end_is_inclusive() -> None:
    iv = Interval.from_publisher(D(2016, 5, 4), D(2018, 5, 24), ValidToConvention.INCLUSIVE)
    assert iv.contains(D(2018, 5, 24)) and not iv.contains(D(2018, 5, 25))


def test_inverted_interval_is_refused() -> None:
    with pytest.raises(TemporalError):
        Interval.from_publisher(D(2020, 1, 2), D(2020, 1, 1), ValidToConvention.EXCLUSIVE)


@given(spans, conventions)
def test_publisher_round_trip(span: tuple[dt.date, dt.date], conv: ValidToConvention) -> None:
    start, end = span
    iv = Interval.from_publisher(start, end, conv)
    assert iv.to_publisher(conv) == end


@given(dates, st.one_of(st.none(), dates), dates)
def test_contains_is_half_open(start: dt.date, end: dt.date | None, day: dt.date) -> None:
    assume(end is None or end > start)
    iv = Interval(start, end)
    assert iv.contains(day) == (start <= day and (end is None or day < end))


@given(spans, spans)
def test_intersection_is_commutative_and_contained(first: tuple[dt.date, dt.date],
                                                   second: tuple[dt.date, dt.date]) -> None:
    x, y = Interval(*first), Interval(*second)
    assert x.intersection(y) == y.intersection(x)
    both = x.intersection(y)
    if both is not None:
        assert x.contains(both.start) and y.contains(both.start)


def test_latest_start_wins_on_shared_boundary() -> None:
    states = [State("old", Interval(D(2020, 1, 1), D(2021, 1, 1))), State("new", Interval(D(2021, 1, 1)))]
    assert resolve_as_of(states, D(2021, 1, 1)).key == "new"
    assert resolve_as_of(states, D(2020, 6, 1)).key == "old"
    assert not resolve_as_of(states, D(2019, 1, 1)).found


def test_same_start_is_ambiguous_with_both_keys() -> None:
    states = [State("b", Interval(D(2025, 7, 28))), State("a", Interval(D(2025, 7, 28)))]
    res = resolve_as_of(states, D(2025, 8, 1))
    assert res.key is None and res.ambiguous == ("a", "b")


@given(st.lists(dates, min_size=1, max_size=8), dates)
def test_chained_states_resolve_to_latest_start_not_after_day(starts: list[dt.date], day: dt.date) -> None:
    intervals = chain_intervals(starts)
    states = [State(f"{s}#{i}", iv) for i, (s, iv) in enumerate(zip(starts, intervals, strict=True))]
    res = resolve_as_of(states, day)
    eligible = [s for s in starts if s <= day]
    if not eligible:
        assert not res.found and not res.is_ambiguous
    else:
        best = max(eligible)
        expected = sorted(f"{s}#{i}" for i, s in enumerate(starts) if s == best)
        assert (res.ambiguous or (res.key,)) == tuple(expected)


def test_one_day_legilux_state_is_kept() -> None:
    iv = Interval.from_publisher(D(2020, 1, 1), D(2020, 1, 1), ValidToConvention.EXCLUSIVE)
    assert iv.end == D(2020, 1, 1) + ONE_DAY


def test_timestamps_round_trip_and_refuse_naive() -> None:
    stamp = "2026-08-01T08:00:00Z"
    assert format_timestamp(parse_timestamp(stamp)) == stamp
    with pytest.raises(TemporalError):
        parse_timestamp("2026-08-01 08:00:00")
    with pytest.raises(TemporalError):
        format_timestamp(dt.datetime(2026, 8, 1))
