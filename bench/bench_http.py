"""Benchmark: HTTP load on loopback against ``lex serve`` over the fixture indexes.

Builds both fixture indexes (or takes ``--index-dir``), signs them with a throw-away key
(or, with ``--unsigned-dev``, mounts them unverified), starts ``lex serve`` in its own process
on 127.0.0.1 with the rate limits off, waits for ``/readyz``, then runs ``--clients``
concurrent clients (``httpx.AsyncClient`` keep-alive connections on one asyncio loop) for ``--seconds`` over a fixed
mix of the ten operations (``POST /api/v1/{operation}``) and a few web pages. Reports
requests/s, p50/p95/p99 latency overall and per request kind, the error count (anything but
HTTP 200), and the serving process's RSS (sampled during the run, and its peak ``VmHWM``).

Targets: p95 <= 50 ms, 0 errors, serving RSS <= 150 MB.

Usage::

    python -m bench.bench_http [--seconds 60] [--clients 8] [--index-dir var/index] [--json]

The fixtures are found at ``../shared/fixtures`` from the repository root (or ``$LEX_FIXTURES``).
The load generator shares the machine with the server: on a small box its own CPU use is
part of what is measured.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
TARGET_P95_MS = 50.0
TARGET_RSS_MB = 150.0
PASSPHRASE_ENV = "LEX_BENCH_PASSPHRASE"

GDPR, CRR, CODE = "eu-eurlex:32016r0679", "eu-eurlex:32013r0575", "lu-legilux:loi-2011-04-08-n2"
API_MIX: list[tuple[str, dict[str, Any]]] = [
    ("as_of", {"work": GDPR, "date": "2021-01-01", "anchors": ["art_6"]}),
    ("as_of", {"work": CRR, "date": "2020-03-01", "anchors": ["art_92"]}),
    ("as_of", {"work": CODE, "date": "2025-01-01", "anchors": ["art_l_211-2"]}),
    ("search", {"query": "protection des données"}),
    ("search", {"query": "Article 92 CRR"}),
    ("search", {"query": "own funds requirements", "time_scope": "as_of", "as_of": "2020-03-01"}),
    ("diff", {"work": CRR, "from_date": "2019-12-25", "to_date": "2020-03-01", "anchor": "art_92"}),
    ("timeline", {"work": CODE}),
    ("in_force_on", {"date": "2021-01-01", "limit": 20}),
    ("article_history", {"work": CRR, "anchor": "art_92"}),
    ("provenance", {"lex_id": f"{GDPR}:2016-05-04--af3e8edcc8aeb9b8c10e891880377cb0b363a8fa7005a1b45557d21afa592de5"}),
    ("coverage", {}),
    ("cited_by", {"work": GDPR}),
    ("changes_in_period", {"from_date": "2020-01-01", "to_date": "2022-12-31"}),
]
PAGE_MIX: list[tuple[str, str]] = [
    ("page:work", "/lu-legilux/loi-2011-04-08-n2"),
    ("page:search", "/search?q=protection+des+donn%C3%A9es"),
]


@dataclass
class Tally:
    """Latencies (seconds) per request kind, and failures."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, kind: str, seconds: float, ok: bool) -> None:
        with self.lock:
            self.latencies[kind].append(seconds)
            if not ok:
                self.errors[kind] += 1


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


# -- the artifact set ------------------------------------------------------------------------


def build_indexes(work: Path) -> Path:
    """Both fixture indexes under ``work/set/indexes`` (import → derive → index)."""
    from bench.bench_serve import build_fixture_indexes

    build_fixture_indexes(work)
    target = work / "set" / "indexes"
    target.mkdir(parents=True)
    for path in (work / "index").iterdir():
        path.rename(target / path.name)
    return work / "set"


def sign_set(directory: Path, keys: Path) -> Path:
    """Sign ``directory`` with a fresh key; return the public key (the trust root)."""
    from release.keys import keygen, load_signer
    from release.signing import sign_artifact_set

    passphrase = os.environ.get(PASSPHRASE_ENV, "bench-only").encode()
    files = keygen(keys, "ed25519", passphrase)
    sign_artifact_set(directory, [load_signer(files.private_key, passphrase)], created_by="bench_http")
    return files.public_key


# -- the server ------------------------------------------------------------------------------


@contextmanager
def lex_serve(args: list[str], stop_timeout: float = 20.0) -> Iterator[tuple[str, int]]:
    """Run ``lex serve ARGS --port 0`` on loopback; yield the URL it prints and its process id; stop
    it with SIGINT (killed after ``stop_timeout`` seconds)."""
    command = [sys.executable, "-m", "cli", "serve", *args, "--port", "0"]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        assert process.stdout is not None
        match = re.search(r"(http://127\.0\.0\.1:\d+/)", process.stdout.readline())
        if match is None:
            raise RuntimeError("lex serve did not print its URL")
        yield match.group(1), process.pid
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=stop_timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def serving(set_dir: Path, trust_root: Path | None) -> Iterator[tuple[str, int]]:
    """Run ``lex serve`` on an ephemeral loopback port; yield its URL and process id."""
    source = ["--trust-root", str(trust_root)] if trust_root else ["--unsigned-dev"]
    with lex_serve(["--index-dir", str(set_dir), *source, "--client-rate", "0", "--global-rate", "0",
                    "--log-level", "error",
                    "--workers", "1"]) as served:  # one process: the RSS sampled below is the whole server's
        yield served


def wait_ready(url: str, timeout: float = 120.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        response = httpx.get(f"{url}readyz", timeout=10)
        if response.status_code == 200:
            body: dict[str, Any] = response.json()
            return body
        if response.json().get("status") == "refused":
            raise RuntimeError(f"the server refused the artifact set: {response.json()['reason']}")
        time.sleep(0.2)
    raise RuntimeError("the server did not become ready")


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far (Linux ``/proc``)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int) -> dict[str, int]:
    """``VmRSS`` and ``VmHWM`` (peak) of a process, in KiB (Linux ``/proc``)."""
    out: dict[str, int] = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0])
    except OSError:
        pass
    return out


# -- the load --------------------------------------------------------------------------------


def _requests(url: str, pages: bool) -> list[tuple[str, str, str, dict[str, Any] | None]]:
    mix: list[tuple[str, str, str, dict[str, Any] | None]] = [
        (f"api:{op}", "POST", f"{url}api/v1/{op}", args) for op, args in API_MIX]
    if pages:
        mix += [(kind, "GET", url.rstrip("/") + path, None) for kind, path in PAGE_MIX]
    return mix


async def client_loop(url: str, stop: float, offset: int, tally: Tally, pages: bool) -> None:
    """One client: a keep-alive connection sending the mix in order until ``stop``."""
    mix = _requests(url, pages)
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    async with httpx.AsyncClient(timeout=30, limits=limits, headers={"accept": "application/json"}) as client:
        for kind, method, target, body in itertools.islice(itertools.cycle(mix), offset, None):
            if time.monotonic() >= stop:
                return
            start = time.perf_counter()
            try:
                response = await client.request(method, target, json=body)
                ok = response.status_code == 200
            except httpx.HTTPError:
                ok = False
            tally.add(kind, time.perf_counter() - start, ok)


async def _sample(pid: int, samples: list[int], stop: float) -> None:
    while time.monotonic() < stop:
        samples.append(rss_kib(pid).get("VmRSS", 0))
        await asyncio.sleep(0.5)


async def _load(url: str, pid: int, seconds: float, clients: int, pages: bool, samples: list[int]) -> Tally:
    tally = Tally()
    stop = time.monotonic() + seconds
    await asyncio.gather(_sample(pid, samples, stop),
                         *(client_loop(url, stop, i * 3, tally, pages) for i in range(clients)))
    return tally


def run_load(url: str, pid: int, seconds: float, clients: int, pages: bool) -> dict[str, Any]:
    """``clients`` concurrent clients on one asyncio loop (a cheap load generator)."""
    samples: list[int] = []
    started, cpu_start, own_start = time.perf_counter(), cpu_seconds(pid), time.process_time()
    tally = asyncio.run(_load(url, pid, seconds, clients, pages, samples))
    elapsed = time.perf_counter() - started
    report = summarize(tally, elapsed, samples, rss_kib(pid))
    report["server_cpu_ms_per_request"] = round((cpu_seconds(pid) - cpu_start) * 1000 / max(1, report["requests"]), 2)
    report["server_cpu_utilisation"] = round((cpu_seconds(pid) - cpu_start) / elapsed, 2)
    report["client_cpu_utilisation"] = round((time.process_time() - own_start) / elapsed, 2)
    return report


def summarize(tally: Tally, elapsed: float, samples: list[int], final: dict[str, int]) -> dict[str, Any]:
    every = [s for values in tally.latencies.values() for s in values]
    kinds = {kind: {"count": len(values), "errors": tally.errors.get(kind, 0),
                    "p50_ms": round(percentile(values, 0.50) * 1000, 2),
                    "p95_ms": round(percentile(values, 0.95) * 1000, 2)}
             for kind, values in sorted(tally.latencies.items())}
    p95 = percentile(every, 0.95) * 1000
    rss_peak_mb = max(final.get("VmHWM", 0), max(samples, default=0)) / 1024
    return {
        "seconds": round(elapsed, 2), "requests": len(every), "requests_per_s": round(len(every) / elapsed, 1),
        "errors": sum(tally.errors.values()),
        "p50_ms": round(percentile(every, 0.50) * 1000, 2), "p95_ms": round(p95, 2),
        "p99_ms": round(percentile(every, 0.99) * 1000, 2), "max_ms": round(max(every, default=0) * 1000, 2),
        "rss_mb_during": round(max(samples, default=0) / 1024, 1), "rss_mb_peak": round(rss_peak_mb, 1),
        "kinds": kinds,
        "meets": {"p95": p95 <= TARGET_P95_MS, "errors": not tally.errors, "rss": rss_peak_mb <= TARGET_RSS_MB},
    }


# -- the command -----------------------------------------------------------------------------


def print_human(report: dict[str, Any]) -> None:
    load = report["load"]
    out = sys.stderr
    print(f"{load['requests']} requests in {load['seconds']} s with {report['clients']} clients: "
          f"{load['requests_per_s']} req/s, {load['errors']} errors", file=out)
    print(f"latency p50 {load['p50_ms']} ms, p95 {load['p95_ms']} ms (target <= {TARGET_P95_MS}), "
          f"p99 {load['p99_ms']} ms, max {load['max_ms']} ms", file=out)
    print(f"server CPU: {load['server_cpu_ms_per_request']} ms per request, "
          f"{load['server_cpu_utilisation']} CPUs busy on average; load generator {load['client_cpu_utilisation']} "
          f"CPUs ({os.cpu_count()} on this machine)", file=out)
    print(f"serving RSS: {load['rss_mb_during']} MB during the run, peak {load['rss_mb_peak']} MB "
          f"(target <= {TARGET_RSS_MB}); mounted {report['rss_mb_ready']} MB", file=out)
    print(f"{'kind':<28}{'count':>8}{'errors':>8}{'p50 ms':>9}{'p95 ms':>9}", file=out)
    for kind, fig in load["kinds"].items():
        print(f"{kind:<28}{fig['count']:>8}{fig['errors']:>8}{fig['p50_ms']:>9}{fig['p95_ms']:>9}", file=out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="duration of the load (default 60)")
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients (default 8)")
    parser.add_argument("--index-dir", type=Path, help="an existing artifact set instead of building one")
    parser.add_argument("--unsigned-dev", action="store_true", help="mount without signing/verifying")
    parser.add_argument("--no-pages", action="store_true", help="only the JSON API, no web pages")
    parser.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    args = parser.parse_args(argv)
    report: dict[str, Any] = {"clients": args.clients, "python": sys.version.split()[0]}
    with tempfile.TemporaryDirectory(prefix="bench-http-") as tmp:
        work = Path(tmp)
        set_dir = args.index_dir or build_indexes(work)
        trust = None if args.unsigned_dev else sign_set(set_dir, work / "keys") if args.index_dir is None else None
        if args.index_dir is not None and not args.unsigned_dev:
            parser.error("--index-dir needs --unsigned-dev (the bench signs only the sets it builds)")
        with serving(set_dir, trust) as (url, pid):
            ready = wait_ready(url)
            report["artifact"] = ready["artifact"]
            report["rss_mb_ready"] = round(rss_kib(pid).get("VmRSS", 0) / 1024, 1)
            report["load"] = run_load(url, pid, args.seconds, args.clients, pages=not args.no_pages)
    print_human(report)
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    return 0 if all(report["load"]["meets"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
