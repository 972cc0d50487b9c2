"""The supervisor's short-lived builder (``serve.workers.Supervisor(prepare=…)``).

``prepare`` runs in neither the supervisor nor a worker; the builder forks the first workers and is
gone, and they become the supervisor's children; a worker that dies is restarted by the supervisor
itself; the workers still end with the supervisor (SIGTERM, and SIGKILL through the parent-death
signal, asked for once they are the supervisor's)."""

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
import os, sys, time
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
sys.exit(Supervisor(2, serve_worker, sock, grace=5, prepare=prepare).run())
"""


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
def supervisor(out: Path) -> Iterator[tuple[subprocess.Popen[str], int]]:
    process = subprocess.Popen([sys.executable, "-c", SCRIPT, str(out)], cwd=ROOT, stdout=subprocess.PIPE,
                               text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert process.stdout is not None
        yield process, int(process.stdout.readline())
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()


def test_the_builder_prepares_forks_the_workers_and_is_gone(tmp_path: Path) -> None:
    with supervisor(tmp_path) as (process, pid):
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


def test_a_dead_worker_is_restarted_by_the_supervisor(tmp_path: Path) -> None:
    with supervisor(tmp_path) as (process, pid):
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


def test_the_workers_end_when_the_supervisor_is_killed(tmp_path: Path) -> None:
    with supervisor(tmp_path) as (process, pid):
        started = wait_for(lambda: (w := workers(tmp_path)) and len(w) == 2 and w)
        wait_for(lambda: children(pid) == set(started))
        process.kill()
        process.wait()
        assert wait_for(lambda: not any(alive(w) for w in started))
