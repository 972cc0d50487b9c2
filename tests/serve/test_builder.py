"""The supervisor's short-lived builder (``serve.workers.Supervisor(prepare=…)``) and the lean
supervisor (``relaunch=…``).

``prepare`` runs in neither the supervisor nor a worker; the builder forks the first workers and is
gone, and they become the supervisor's children; a worker that dies is restarted by the supervisor
itself; the workers still end with the supervisor (SIGTERM, and SIGKILL through the parent-death
signal, asked for once they are the supervisor's). With ``relaunch``, the supervisor runs on as a
fresh interpreter that loaded none of the program's modules (same pid), and a worker that dies is
started again by running the program's command line as that worker."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.serve.server import children_of as children
from tests.serve.server import wait_for

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork, prctl and /proc: Linux")

SCRIPT = r"""
import os, sqlite3, sys, time
from pathlib import Path
from serve.workers import Supervisor, listen

out = Path(sys.argv[1])

def prepare():
    (out / "prepare").write_text(f"{os.getpid()} {os.getppid()}")

def serve_worker(index, handoff):
    (out / f"worker-{index}-{os.getpid()}").write_text(f"{os.getppid()}")
    while True:
        time.sleep(1)

sock = listen("127.0.0.1", 0)
print(os.getpid(), flush=True)
lean = sys.argv[2] == "lean"
sys.exit(Supervisor(2, serve_worker, sock, grace=5, prepare=prepare, relaunch=sys.orig_argv if lean else None).run())
"""
MODES = ("forking", "lean")


def alive(pid: int) -> bool:
    try:
        return "zombie" not in Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False





def workers(out: Path) -> dict[int, tuple[int, int]]:
    """pid -> (worker index, parent pid when it started serving)."""
    return {int(p.name.split("-")[2]): (int(p.name.split("-")[1]), int(p.read_text()))
            for p in out.glob("worker-*") if p.read_text()}


@contextmanager
def supervisor(out: Path, mode: str = "forking") -> Iterator[tuple[subprocess.Popen[str], int]]:
    process = subprocess.Popen([sys.executable, "-c", SCRIPT, str(out), mode], cwd=ROOT, stdout=subprocess.PIPE,
                               text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert process.stdout is not None
        yield process, int(process.stdout.readline())
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()


@pytest.mark.parametrize("mode", MODES)
def test_the_builder_prepares_forks_the_workers_and_is_gone(tmp_path: Path, mode: str) -> None:
    with supervisor(tmp_path, mode) as (process, pid):
        started = wait_for(lambda: (w := workers(tmp_path)) and len(w) == 2 and w)
        builder, parent = (int(x) for x in (tmp_path / "prepare").read_text().split())
        assert parent == pid and builder not in started and builder != pid
        assert sorted(index for index, _ in started.values()) == [0, 1]
        assert {ppid for _, ppid in started.values()} == {pid}  # served only once they are the supervisor's
        wait_for(lambda: not alive(builder))
        assert wait_for(lambda: children(pid) == set(started))
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0
        assert wait_for(lambda: not any(alive(w) for w in started))


@pytest.mark.parametrize("mode", MODES)
def test_a_dead_worker_is_restarted_by_the_supervisor(tmp_path: Path, mode: str) -> None:
    with supervisor(tmp_path, mode) as (process, pid):
        started = wait_for(lambda: (w := workers(tmp_path)) and len(w) == 2 and w)
        wait_for(lambda: children(pid) == set(started))
        victim = min(started)
        os.kill(victim, signal.SIGKILL)
        now = wait_for(lambda: (w := workers(tmp_path)) and len(w) == 3 and w)
        (new,) = set(now) - set(started)
        assert now[new] == (started[victim][0], pid)
        assert wait_for(lambda: children(pid) == set(now) - {victim})
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0


@pytest.mark.parametrize("mode", MODES)
def test_the_workers_end_when_the_supervisor_is_killed(tmp_path: Path, mode: str) -> None:
    with supervisor(tmp_path, mode) as (process, pid):
        started = wait_for(lambda: (w := workers(tmp_path)) and len(w) == 2 and w)
        wait_for(lambda: children(pid) == set(started))
        process.kill()
        process.wait()
        assert wait_for(lambda: not any(alive(w) for w in started))


def maps(pid: int) -> str:
    return Path(f"/proc/{pid}/maps").read_text()


def test_the_lean_supervisor_keeps_its_pid_and_none_of_the_program(tmp_path: Path) -> None:
    """The program imported sqlite3 before it supervised: the workers hold it, the lean supervisor
    (the same pid, a fresh ``python -I -S``) does not; a relaunched worker runs the program again
    as its worker (``prepare`` is not run again) and is the supervisor's child."""
    with supervisor(tmp_path, "lean") as (process, pid):
        started = wait_for(lambda: (w := workers(tmp_path)) and len(w) == 2 and w)
        lean = [sys.executable.encode(), b"-I", b"-S", b"-c"]
        assert wait_for(lambda: Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[:4] == lean)
        assert wait_for(lambda: children(pid) == set(started))
        assert "_sqlite3" not in maps(pid)
        assert all("_sqlite3" in maps(worker) for worker in started)
        prepared = (tmp_path / "prepare").read_text()
        victim = max(started)
        os.kill(victim, signal.SIGKILL)
        now = wait_for(lambda: (w := workers(tmp_path)) and len(w) == 3 and w)
        (new,) = set(now) - set(started)
        assert now[new] == (started[victim][0], pid)
        assert (tmp_path / "prepare").read_text() == prepared
        assert "_sqlite3" in maps(new) and "_sqlite3" not in maps(pid)
        process.kill()  # the relaunched worker ends with the supervisor too (its parent-death signal)
        process.wait()
        assert wait_for(lambda: not any(alive(w) for w in now if w != victim))
