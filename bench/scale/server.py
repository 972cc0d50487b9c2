"""The replay publisher of a scaled corpus, in its own process (``python -m bench.scale _serve``).

The child builds the replicated records from the base trees, writes what it serves to
``<run>/served.json`` (counts and the EUR-Lex seeds the ingest uses as its scope), warms the
Formex zips (a real Cellar has them ready), starts the replay on ``127.0.0.1`` (any free port)
and prints its base URL; it serves until its stdin closes. The parent reads the server's CPU
time (startup, and during the ingest) and peak RSS from ``/proc`` before stopping it: the publisher's cost is reported apart
from the ingest stage's.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.scale.measure import ROOT, process_figures


def serve_main(base: Path, n: int, served: Path, works: dict[str, list[str] | None]) -> None:
    """Child: build, announce, serve until stdin closes."""
    from bench.scale.corpus import BASE_DIRS, ScaledCorpus
    from legal.ids import Publisher
    from publishers.replay import ReplayPublisher, serve_in_thread

    started = time.perf_counter()
    trees = {p: base / d for p, d in BASE_DIRS.items()}
    corpus = ScaledCorpus.build(trees, n, {Publisher(k): v for k, v in works.items()})
    replay = ReplayPublisher(corpus.sources())
    zips = replay.warm()
    summary = corpus.summary() | {"formex_zips": zips, "startup_s": round(time.perf_counter() - started, 3)}
    served.write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    with serve_in_thread(replay.app()) as url:
        print(url, flush=True)
        sys.stdin.read()


@dataclass
class Server:
    """A running replay child: its URL, pid and what it serves."""

    url: str
    pid: int
    served: dict[str, Any]
    figures: dict[str, Any] = field(default_factory=dict)


@contextlib.contextmanager
def replay_server(base: Path, n: int, served: Path, log: Path, works: dict[str, list[str] | None],
                  code: Path = ROOT) -> Iterator[Server]:
    """Start the replay child (in ``code``), yield it, read its ``/proc`` figures, stop it."""
    args = [sys.executable, "-m", "bench.scale", "_serve", "--base", str(base), "--n", str(n),
            "--served", str(served), "--works", json.dumps(works)]
    with log.open("ab") as err:
        proc = subprocess.Popen(args, cwd=code, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        line = _await_url(proc)
        server = Server(line, proc.pid, json.loads(served.read_text()))
        before = process_figures(proc.pid)
        yield server
        after = process_figures(proc.pid)
        server.figures = {"startup_cpu_s": before["cpu_s"], "cpu_s": _minus(after["cpu_s"], before["cpu_s"]),
                          "peak_rss_mb": after["peak_rss_mb"]}
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.terminate()
            proc.wait(timeout=10)
        proc.stdout.close()


def _minus(a: float | None, b: float | None) -> float | None:
    return round(a - b, 2) if a is not None and b is not None else None


def _await_url(proc: subprocess.Popen[bytes]) -> str:
    assert proc.stdout is not None
    line = proc.stdout.readline().decode().strip()  # blocks until the child announces or exits
    if not line.startswith("http://127.0.0.1:"):
        raise SystemExit(f"replay server did not start (exit {proc.poll()}); see its log")
    return line
