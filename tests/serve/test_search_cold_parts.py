"""The cold search benchmark's part clock (``bench.search_cold_parts``): a part's time excludes the
timed parts it calls, and the search module's functions are restored after timing."""

from __future__ import annotations

import itertools

import pytest

from bench import search_cold_parts
from bench.search_cold_parts import PARTS, PartClock, percentile, timing


def test_a_part_excludes_the_timed_parts_it_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    ticks = itertools.count()
    monkeypatch.setattr(search_cold_parts.time, "thread_time", lambda: float(next(ticks)))
    clock = PartClock()
    inner = clock.timed("inner", lambda: None)  # reads the clock twice: 1 tick
    outer = clock.timed("outer", lambda: (inner(), inner()))  # 5 ticks, 2 of them its inner calls
    outer()
    assert clock.spent == {"inner": 2.0, "outer": 3.0}


def test_timing_restores_the_search_functions() -> None:
    from serve.core.ops import search

    before = {name: getattr(search, name) for name, _ in PARTS}
    with timing(PartClock()):
        assert all(getattr(search, name) is not before[name] for name, _ in PARTS)
    assert all(getattr(search, name) is before[name] for name, _ in PARTS)


def test_percentile_takes_the_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == 51.0
    assert percentile(values, 0.95) == 95.0
