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
