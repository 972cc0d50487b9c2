"""The stage server of ``make bench-full`` (:class:`bench.bench_full.StageServer`): the exit status of
a stage process survives a stage process started meanwhile by the other publisher's chain.

A forkserver child's exit status is a few bytes on a pipe that ``multiprocessing`` reads once, in
``Popen.poll``, which both a join and every ``Process.start`` (for every live child) call. The
case below forces the interleaving the no-change build met once at random: chain A's process has
ended and A's join is about to read its status when chain B starts a process (and so polls A's).
Without the lock of :meth:`StageServer.launch` A's join then reads the pipe's end and reports 255
for a process that exited 0.
"""

from __future__ import annotations

import multiprocessing.connection
import os
import signal
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from bench.bench_full import StageFailure, StageServer, exit_meaning


@pytest.fixture()
def server() -> Iterator[StageServer]:
    found = StageServer(preload=[])  # nothing preloaded: the processes below import nothing
    try:
        yield found
    finally:
        found.close()


def test_a_start_in_one_chain_leaves_the_other_chain_its_exit_status(server: StageServer,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    real_wait = multiprocessing.connection.wait
    a_ended, b_started = threading.Event(), threading.Event()
    held: list[str] = []

    def wait(objects: Any, timeout: float | None = None) -> Any:
        ready = real_wait(objects, timeout)
        name = threading.current_thread().name
        if name == "chain-b" and timeout is None:
            b_started.set()  # B's process started (every live child polled); B now waits for its end
        if name == "chain-a" and timeout is None and not held:
            held.append(name)
            a_ended.set()  # A's process has ended; A has not read its status yet
            assert b_started.wait(30), "chain B never started its process"
        return ready

    monkeypatch.setattr(multiprocessing.connection, "wait", wait)
    codes: dict[str, int] = {}

    def chain_a() -> None:
        codes["a"] = server.launch(os.getpid, (), "stage a")

    def chain_b() -> None:
        assert a_ended.wait(30), "chain A's process never ended"
        codes["b"] = server.launch(os.getpid, (), "stage b")

    threads = [threading.Thread(target=chain_a, name="chain-a"), threading.Thread(target=chain_b, name="chain-b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert held == ["chain-a"]  # the interleaving happened
    assert codes == {"a": 0, "b": 0}


def test_a_stage_process_exit_code_is_returned(server: StageServer) -> None:
    assert server.launch(os._exit, (3,), "stage exits 3") == 3
    assert server.launch(signal.raise_signal, (signal.SIGTERM,), "stage killed") == -signal.SIGTERM


def test_a_stage_dies_of_sigterm_though_the_process_ignored_it() -> None:
    """A stage server (and its fork server) started while the process ignores SIGTERM, as the suite's
    process did once under CI: its stage still dies of SIGTERM and says so, not exit 0."""
    previous = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        server = StageServer(preload=[])
        try:
            assert server.launch(signal.raise_signal, (signal.SIGTERM,), "stage killed") == -signal.SIGTERM
        finally:
            server.close()
    finally:
        signal.signal(signal.SIGTERM, previous)


@pytest.mark.parametrize(("code", "meaning"), [
    (1, "exit 1"),
    (-signal.SIGKILL, "killed by SIGKILL"),
    (255, "exit 255 (also what multiprocessing reports when a forkserver child's status is lost)"),
])
def test_exit_meaning_names_the_signal_and_the_lost_status(code: int, meaning: str) -> None:
    assert exit_meaning(code) == meaning


def test_a_failed_stage_is_a_typed_error_with_its_code_report_and_log(tmp_path: Any) -> None:
    log = tmp_path / "stage.log"
    log.write_text("".join(f"line {i}\n" for i in range(40)))
    error = StageFailure.of("provisions[eu-eurlex]", "nochange", 255, report="written, success", log=log)
    assert error.code == "stage_failed"
    assert error.subject == "provisions[eu-eurlex]"
    text = str(error)
    assert "exit 255" in text and "report written, success" in text
    assert "line 39" in text and "line 19" not in text  # the log's last lines, not all of it


def test_cpu_timers_count_the_calls_of_a_named_function_and_of_a_method(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    import types

    from bench.bench_full import cpu_timers

    module = types.ModuleType("timed_module")

    def work(n: int) -> int:
        return sum(range(n))

    class Box:
        def size(self) -> int:
            return 3

    module.work = work  # type: ignore[attr-defined]
    module.Box = Box  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "timed_module", module)
    timers = cpu_timers("timed_module:work, timed_module:Box.size,")
    assert module.work(10) == 45 and module.work(3) == 3  # type: ignore[attr-defined]
    assert Box().size() == 3
    assert timers["timed_module:work"][1] == 2 and timers["timed_module:Box.size"][1] == 1
    assert timers["timed_module:work"][0] >= 0.0
    assert cpu_timers("") == {}


@pytest.mark.parametrize(("asked", "run"), [
    (["onechange"], ["reset", "onechange"]),  # OUT may hold the one-change build already
    (["nochange", "onechange"], ["nochange", "onechange"]),  # the no-change build resets it
    (["cold", "nochange", "onechange"], ["cold", "nochange", "onechange"]),
    (["nochange"], ["nochange"]),
])
def test_a_one_change_build_asked_first_is_preceded_by_a_reset_build(asked: list[str], run: list[str]) -> None:
    from bench.bench_full import reset_first

    assert reset_first(asked) == run


def _frozen_in_child(freeze: bool) -> int:
    import gc

    if freeze:
        from bench.bench_full import _freeze_inherited

        _freeze_inherited()
    return gc.get_freeze_count()


def test_a_forked_child_freezes_what_it_inherited() -> None:
    """:func:`bench.bench_full._freeze_inherited` (the first call of a stage process) moves the
    objects a forked child inherited out of the collector's generations (without it: none frozen,
    and every full collection in the child walks the preload's objects)."""
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply(_frozen_in_child, (False,)) == 0
        assert pool.apply(_frozen_in_child, (True,)) > 1000
