"""Benchmark: ingest both fixture corpora through the replay publisher (politeness delay 0).

Setup (not timed as ingest): import the two published fixture trees into temporary trees of
ours, then start ``lex replay serve`` on them in a separate process (a real server: the
client does not share its interpreter). Then, per repetition and per publisher:

1. **first run** into an empty tree: wall time, requests/s, MB/s (bytes on the wire),
   bodies/s (bodies whose bytes were downloaded; "held elsewhere" stubs are counted apart),
   and the CPU seconds of the client (this process) and of the server process;
2. **no-change re-run** into the same tree: wall time as a ratio of the first run, against
   the same server (its SPARQL answer cache warm; ``--reruns`` times, the median counts) and
   once against a freshly started server (cold cache: every SPARQL query answered again).

Every run opens its tree afresh (nothing is carried over in memory between runs). The
machine's load average (``/proc/loadavg``) is printed before and after; medians over the
repetitions are printed, every run's figures go to ``--json``.

Targets: ≥ 50 bodies/s; re-run < 10 % of the first run.

    python bench/bench_ingest.py [--repeat 3] [--reruns 3] [--fixtures DIR] [--json OUT]

The fixtures directory defaults to ``$LEX_FIXTURES`` or ``../shared/fixtures`` next to the
repository.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from corpus_tree import CorpusTree
from corpus_tree.importer import import_published
from legal.ids import Publisher
from publishers import adapter_for
from publishers.eurlex import EurlexScope
from publishers.ingest import IngestReport, ingest

ROOT = Path(__file__).resolve().parents[1]
CORPORA = {Publisher.LEGILUX: "lex-corpus-lu-legilux", Publisher.EURLEX: "lex-corpus-eu-eurlex"}


def fixtures_dir(given: str | None) -> Path:
    path = Path(given or os.environ.get("LEX_FIXTURES") or ROOT.parent / "shared" / "fixtures")
    if not path.is_dir():
        raise SystemExit(f"fixtures not found at {path} (use --fixtures or LEX_FIXTURES)")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of process ``pid`` (Linux ``/proc``; ``None`` elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


@dataclasses.dataclass
class Server:
    base: str
    pid: int

    def cpu(self) -> float | None:
        return cpu_seconds(self.pid)


@contextlib.contextmanager
def replay_server(trees: list[Path]) -> Iterator[Server]:
    """``lex replay serve`` on the trees, in a child process; yields its base URL and pid."""
    port = free_port()
    args = [sys.executable, "-m", "cli", "replay", "serve", "--port", str(port)]
    for tree in trees:
        args += ["--corpus", str(tree)]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"replay server exited: {proc.stderr.read().decode() if proc.stderr else ''}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(base + "/_replay/stats", timeout=1).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise SystemExit("replay server did not start")
            time.sleep(0.1)
        yield Server(base, proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def scope_of(tree: Path) -> EurlexScope:
    return EurlexScope.of([w.work_identifier.rsplit("/", 1)[-1] for w in CorpusTree.open(tree).works()])


def run(publisher: Publisher, server: Server, path: Path,
        scope: EurlexScope | None) -> tuple[float, IngestReport, dict[str, float | None]]:
    tree = CorpusTree.open(path)  # a fresh handle per run: nothing cached from the last one
    with httpx.Client() as client:
        adapter = adapter_for(publisher, client, replay_url=server.base, delay=0.0)
        server_cpu, client_cpu = server.cpu(), time.process_time()
        started = time.perf_counter()
        report = ingest(adapter, tree, scope=scope)
        wall = time.perf_counter() - started
        after = server.cpu()
        cpu = {"client_cpu_s": round(time.process_time() - client_cpu, 3),
               "server_cpu_s": round(after - server_cpu, 3) if after is not None and server_cpu is not None else None}
        return wall, report, cpu


def figures(wall: float, report: IngestReport, cpu: dict[str, float | None]) -> dict[str, Any]:
    return {
        **cpu,
        "wall_s": round(wall, 3),
        "requests": report.requests,
        "requests_per_s": round(report.requests / wall, 1),
        "mb_downloaded": round(report.bytes_downloaded / 1e6, 2),
        "mb_per_s": round(report.bytes_downloaded / 1e6 / wall, 2),
        "bodies": report.bodies_fetched,
        "bodies_per_s": round(report.bodies_fetched / wall, 1),
        "bodies_per_s_fetch_phase": round(report.bodies_fetched / max(report.timings.get("fetch_s", 0), 1e-9), 1),
        "held_elsewhere": report.bodies_held_elsewhere,
        "versions": report.versions,
        "events": report.events,
        "wrote_anything": bool(report.apply and report.apply.wrote_anything),
        "phases_s": {k: round(v, 3) for k, v in report.timings.items()},
    }


def loadavg() -> str:
    try:
        return Path("/proc/loadavg").read_text().strip()
    except OSError:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())


def repetition(work: Path, sources: dict[Publisher, Path], scopes: dict[Publisher, EurlexScope | None],
               n: int, reruns: int) -> dict[str, Any]:
    """One whole measurement: first runs, warm re-runs (the median one is kept as
    ``rerun_warm``, all of them in ``rerun_warm_all``), then cold re-runs on a new server."""
    out: dict[str, Any] = {}
    targets = {p: CorpusTree.create(work / f"target-{n}-{p.value}").root for p in CORPORA}
    with replay_server(list(sources.values())) as server:
        for p in CORPORA:
            out[p.value] = {"first_run": figures(*run(p, server, targets[p], scopes[p]))}
        for p in CORPORA:
            warm = [figures(*run(p, server, targets[p], scopes[p])) for _ in range(max(1, reruns))]
            out[p.value]["rerun_warm_all"] = warm
            out[p.value]["rerun_warm"] = sorted(warm, key=lambda f: f["wall_s"])[len(warm) // 2]
    with replay_server(list(sources.values())) as server:
        for p in CORPORA:
            out[p.value]["rerun_cold"] = figures(*run(p, server, targets[p], scopes[p]))
    for p in CORPORA:
        for r in [*out[p.value]["rerun_warm_all"], out[p.value]["rerun_cold"]]:
            assert not r["events"] and r["bodies"] == 0 and not r["wrote_anything"], (p, r)
    first = [out[p.value]["first_run"] for p in CORPORA]
    warm = [out[p.value]["rerun_warm"] for p in CORPORA]
    wall = sum(f["wall_s"] for f in first)
    bodies = sum(f["bodies"] for f in first)
    out["both"] = {
        "first_run_wall_s": round(wall, 3),
        "bodies": bodies,
        "bodies_per_s": round(bodies / wall, 1),
        "rerun_warm_wall_s": round(sum(f["wall_s"] for f in warm), 3),
        "rerun_warm_ratio": round(sum(f["wall_s"] for f in warm) / wall, 4),
        "first_run_cpu_s": round(sum(_cpu(f) for f in first), 3),
        "rerun_warm_cpu_s": round(sum(_cpu(f) for f in warm), 3),
    }
    out["both"]["rerun_warm_cpu_ratio"] = round(out["both"]["rerun_warm_cpu_s"] / out["both"]["first_run_cpu_s"], 4)
    return out


def _cpu(f: dict[str, Any]) -> float:
    """Client plus server CPU seconds of one run."""
    return float(f["client_cpu_s"]) + float(f["server_cpu_s"] or 0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fixtures", default=None)
    parser.add_argument("--repeat", type=int, default=3, help="whole measurements (medians are printed)")
    parser.add_argument("--reruns", type=int, default=3, help="warm no-change re-runs per measurement (median kept)")
    parser.add_argument("--json", dest="out", default=None, help="write the figures as JSON here")
    args = parser.parse_args()
    fixtures = fixtures_dir(args.fixtures)
    results: dict[str, Any] = {"load_before": loadavg(), "cpus": os.cpu_count(), "runs": []}
    with tempfile.TemporaryDirectory(prefix="lex-bench-") as tmp:
        work = Path(tmp)
        sources = {}
        for publisher, name in CORPORA.items():
            started = time.perf_counter()
            sources[publisher] = work / f"source-{publisher.value}"
            import_published(fixtures / name, sources[publisher])
            results.setdefault("setup_import_s", {})[publisher.value] = round(time.perf_counter() - started, 3)
        scopes = {p: (scope_of(sources[p]) if p is Publisher.EURLEX else None) for p in CORPORA}
        for n in range(args.repeat):
            results["runs"].append(repetition(work, sources, scopes, n, args.reruns))
    results["load_after"] = loadavg()
    summarise(results)
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")


def _median(values: list[Any]) -> float:
    return float(statistics.median(float(v) for v in values))


def summarise(results: dict[str, Any]) -> None:
    runs = results["runs"]
    print(f"load average before: {results['load_before']}  after: {results['load_after']}  "
          f"({results['cpus']} CPUs; medians of {len(runs)} repetitions)")
    print(f"{'publisher':<11} {'wall s':>7} {'req/s':>7} {'MB/s':>6} {'bodies':>6} {'bodies/s':>8} "
          f"{'rerun warm':>10} {'rerun cold':>10} {'client cpu':>10} {'server cpu':>10} {'rerun cpu':>9}")
    summary: dict[str, Any] = {}
    for p in CORPORA:
        first = [r[p.value]["first_run"] for r in runs]
        warm = [r[p.value]["rerun_warm"] for r in runs]
        cold = [r[p.value]["rerun_cold"] for r in runs]
        row = {
            "wall_s": _median([f["wall_s"] for f in first]),
            "requests_per_s": _median([f["requests_per_s"] for f in first]),
            "mb_per_s": _median([f["mb_per_s"] for f in first]),
            "bodies": first[0]["bodies"],
            "bodies_per_s": _median([f["bodies_per_s"] for f in first]),
            "rerun_warm_ratio": _median([w["wall_s"] / f["wall_s"] for w, f in zip(warm, first, strict=True)]),
            "rerun_cold_ratio": _median([c["wall_s"] / f["wall_s"] for c, f in zip(cold, first, strict=True)]),
            "client_cpu_s": _median([f["client_cpu_s"] for f in first]),
            "server_cpu_s": _median([f["server_cpu_s"] or 0.0 for f in first]),
            "rerun_warm_cpu_s": _median([_cpu(w) for w in warm]),
        }
        summary[p.value] = row
        print(f"{p.value:<11} {row['wall_s']:>7.2f} {row['requests_per_s']:>7.1f} {row['mb_per_s']:>6.2f} "
              f"{row['bodies']:>6} {row['bodies_per_s']:>8.1f} {row['rerun_warm_ratio']:>10.1%} "
              f"{row['rerun_cold_ratio']:>10.1%} {row['client_cpu_s']:>10.3f} {row['server_cpu_s']:>10.3f} "
              f"{row['rerun_warm_cpu_s']:>9.3f}")
    both = {key: _median([r["both"][key] for r in runs]) for key in runs[0]["both"]}
    summary["both"] = both
    print(f"{'both':<11} {both['first_run_wall_s']:>7.2f} {'':>7} {'':>6} {int(both['bodies']):>6} "
          f"{both['bodies_per_s']:>8.1f} {both['rerun_warm_ratio']:>10.1%}")
    print(f"both, CPU seconds (client + server): first run {both['first_run_cpu_s']:.2f}, "
          f"no-change re-run {both['rerun_warm_cpu_s']:.2f} ({both['rerun_warm_cpu_ratio']:.1%})")
    print(f"targets: >= 50 bodies/s {'met' if both['bodies_per_s'] >= 50 else 'MISSED'} "
          f"({both['bodies_per_s']:.1f}); re-run < 10 % {'met' if both['rerun_warm_ratio'] < 0.10 else 'MISSED'} "
          f"({both['rerun_warm_ratio']:.1%})")
    results["summary"] = summary


if __name__ == "__main__":
    main()
