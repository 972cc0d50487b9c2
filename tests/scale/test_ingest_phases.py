"""``bench.ingest_phases``: the status it reads, and the reset of the high-water mark it relies on."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

from bench.ingest_phases import _heap, _status


def test_the_status_is_this_process_high_water_mark_and_resident_size() -> None:
    hwm, rss = _status()
    assert hwm >= rss > 0


def test_a_reset_brings_the_high_water_mark_down_to_the_resident_size() -> None:
    block = bytearray(64 * 2**20)  # touched: 64 MB resident, then freed
    for i in range(0, len(block), 4096):
        block[i] = 1
    del block
    before, _ = _status()
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")
    hwm, rss = _status()
    assert hwm <= before
    if hwm < before:  # where the kernel allows the reset (the bench's numbers depend on it)
        assert hwm - rss < 32 * 1024


def test_the_heap_is_read_as_live_and_retained_parts() -> None:
    heap = _heap()
    assert heap["blocks"] > 0 and heap["objects"] > 0
    assert heap["ob_total"] >= heap["ob_alloc"] > 0  # the small-object allocator's arenas hold its blocks
    if sys.platform.startswith("linux") and "arena" in heap:  # glibc's mallinfo2
        assert heap["arena"] >= heap["uordblks"] > 0
        assert heap["fordblks"] >= heap["keepcost"] >= 0


def test_the_probe_watches_methods_the_legilux_adapter_has() -> None:
    # the probe marks the Legilux phases by wrapping these (a renamed method would leave its phase unmarked)
    from publishers.legilux import LegiluxAdapter

    assert all(callable(getattr(LegiluxAdapter, name, None)) for name in ("_spill_pages", "_metadata", "_versions"))
