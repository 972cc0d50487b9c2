"""The C heap settings of :mod:`legal.heap`: fastbins off for a derivation, glibc's default after."""

from __future__ import annotations

import pytest

from legal import heap


class _Mallopt:
    """A stand-in for glibc's ``mallopt``: remembers each call and the value in force."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []
        self.mxfast: int | None = None

    def __call__(self, param: int, value: int) -> int:
        self.calls.append((param, value))
        if param == heap.M_MXFAST:
            self.mxfast = value
        return 1


def test_fastbins_off_for_the_block_then_the_default(monkeypatch):
    mallopt = _Mallopt()
    monkeypatch.setattr(heap, "_mallopt", lambda: mallopt)
    with heap.fastbins_off() as done:
        assert done and mallopt.mxfast == 0
    assert mallopt.calls == [(heap.M_MXFAST, 0), (heap.M_MXFAST, heap.DEFAULT_MXFAST)]


def test_fastbins_back_after_an_error(monkeypatch):
    mallopt = _Mallopt()
    monkeypatch.setattr(heap, "_mallopt", lambda: mallopt)
    with pytest.raises(RuntimeError), heap.fastbins_off():
        raise RuntimeError("a body failed")
    assert mallopt.mxfast == heap.DEFAULT_MXFAST


def test_without_mallopt_nothing_changes(monkeypatch):
    monkeypatch.setattr(heap, "_mallopt", lambda: None)
    assert heap.set_fastbins(0) is False
    with heap.fastbins_off() as done:
        assert done is False


def test_the_real_mallopt_takes_the_setting():
    if heap._mallopt() is None:  # pragma: no cover - not glibc
        pytest.skip("no mallopt in this C library")
    with heap.fastbins_off() as done:  # glibc's own call, then its default back
        assert done is True


def test_collector_relaxed_for_the_block_then_the_threshold_before():
    import gc

    before = gc.get_threshold()
    with heap.collector_relaxed():
        assert gc.get_threshold() == (heap.DERIVE_GC_THRESHOLD, *before[1:])
    assert gc.get_threshold() == before
    with pytest.raises(RuntimeError), heap.collector_relaxed(1234):
        assert gc.get_threshold()[0] == 1234
        raise RuntimeError
    assert gc.get_threshold() == before


def test_free_blocks_are_read_per_size():
    free = heap.free_small_blocks()
    assert free is not None
    assert set(free) == {16 * k for k in range(1, 33)}
    assert all(count >= 0 for count in free.values())


def test_a_filler_is_of_its_size():
    import sys

    for size in range(48, 513, 16):
        assert size - 16 < sys.getsizeof(heap._filler(size, 0)) <= size
    assert sys.getsizeof(heap._filler(32, 1)) == 24 and sys.getsizeof(heap._filler(16, 2)) == 16


def test_pinning_fills_the_scattered_free_blocks():
    held = [bytes(100) for _ in range(20_000)]  # 133 bytes: the 144-byte class
    del held[::2]  # a free block between every two live ones
    before = heap.free_small_blocks()
    assert before is not None and before[144] >= 10_000
    pinned = len(heap._PINNED)
    assert heap.pin_free_blocks() >= before[144]
    after = heap.free_small_blocks()
    assert after is not None and after[144] < before[144] // 10
    del heap._PINNED[pinned:]


def test_without_the_allocators_table_nothing_is_pinned(monkeypatch):
    monkeypatch.delattr("sys._debugmallocstats")
    assert heap.free_small_blocks() is None
    assert heap.pin_free_blocks() == 0


def test_without_a_standard_error_nothing_is_pinned(monkeypatch):
    import os

    def closed(fd):
        raise OSError(9, "Bad file descriptor")

    monkeypatch.setattr(os, "dup", closed)
    assert heap.free_small_blocks() is None
    assert heap.pin_free_blocks() == 0
