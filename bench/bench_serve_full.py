"""Benchmark: the legal core and the served app over full-corpus indexes.

Mounts a directory of ``<publisher>.sqlite`` indexes (``--index-dir``; e.g. the release of
``make bench-full``, unsigned mounting), derives a fixed workload from the indexes themselves
(seeded: works, anchors and dates; search words of rare, middle and very high document frequency
in French, English and German; the largest diffs of the corpus), then:

1. **in process** — every operation called directly on ``LegalCore`` (one thread; mounted, warmed
   and its heap settled by ``gc.freeze`` as a served worker's is), and the MCP
   tool path (validation, admission gate, worker thread, JSON result): p50/p95/p99 wall time and
   CPU time per call; the diffs once more with nothing remembered of their pairs
   (``diff:cold``: ``serve.core.ops.diff.PAIRS`` cleared before each call); with ``--mcp-stdio``
   the MCP row's calls once more through a real ``lex mcp`` server over stdio (server CPU per call,
   and a check that its reply lines are the bytes the in-process row shapes);
2. **served** — ``lex serve --unsigned-dev`` on loopback in its own process, ``--clients``
   keep-alive clients for ``--seconds`` over all ten operations plus the web pages (the largest
   diffs included): requests/s, p50/p95/p99, errors, server CPU per request and peak RSS.

Writes ``OUT/bench-serve.json`` and ``OUT/bench-serve.md`` (the table of ``bench/README.md``).
Targets (full corpora): ``as_of`` p95 ≤ 2 ms; ``search`` ≤ 10 ms; ``diff`` p95 ≤ 20 ms and
p99 ≤ 100 ms; other operations and MCP p95 ≤ 10 ms; served: 0 errors, p95 ≤ 50 ms, ≥ 300 req/s,
server RSS ≤ 150 MB.

Usage::

    python -m bench.bench_serve_full --index-dir var/index --out var/bench-serve [--seconds 60]
        [--clients 8] [--passes P] [--calls 200] [--seed 14] [--skip-served] [--mcp-stdio]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import random
import re
import sqlite3
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

from bench.bench_http import lex_serve

ROOT = Path(__file__).resolve().parents[1]
TARGETS_MS = {"as_of": 2.0, "search": 10.0, "diff": 20.0, "mcp": 10.0}
DEFAULT_TARGET_MS = 10.0
DIFF_P99_MS = 100.0
SERVED = {"p95_ms": 50.0, "requests_per_s": 300.0, "rss_mb": 150.0}
WORD = re.compile(r"[^\W\d_]{4,}")
#: Anchors the API accepts (``serve.core.registry.ANCHOR_PATTERN``; a few real anchors hold letters
#: outside it and cannot be asked for: reported, not benchmarked).
ANCHOR = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
Call = tuple[str, dict[str, Any]]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


# -- the workload, derived from the indexes ----------------------------------------------------


def _open(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path.resolve().as_uri() + "?mode=ro&immutable=1", uri=True)


def _terms(conn: sqlite3.Connection, rng: random.Random, language: str, per_band: int = 6) -> dict[str, list[str]]:
    """Words of provisions in ``language`` by document frequency: rare, mid, very high (at most
    ``per_band`` of each)."""
    rows = conn.execute("SELECT p.text_sha256 FROM provisions p JOIN expressions e USING (expression_rowid) "
                        "WHERE e.language = ? ORDER BY p.expression_rowid DESC, p.seq LIMIT 50000", (language,)).fetchall()
    if not rows:
        return {}
    from derive.index.textstore import read_text
    counts: Counter[str] = Counter()
    for (sha,) in rng.sample(rows, min(300, len(rows))):
        counts.update(w.lower() for w in WORD.findall(read_text(conn, sha)))
    docs = dict(conn.execute(f"SELECT term, docs FROM vocabulary WHERE term IN ({','.join('?' * len(counts))})",
                             list(counts)).fetchall()) if counts else {}
    ranked = sorted(docs.items(), key=lambda kv: kv[1])
    if not ranked:
        return {}
    top = max(d for _, d in ranked)
    bands = {"rare": [t for t, d in ranked if 2 <= d <= 5],
             "mid": [t for t, d in ranked if top * 0.005 <= d <= top * 0.05],
             "high": [t for t, d in ranked[-15:]]}
    return {band: rng.sample(words, min(per_band, len(words))) for band, words in bands.items() if words}


def _largest_diffs(conn: sqlite3.Connection, publisher: str, n: int) -> list[Call]:
    rows = conn.execute(
        "SELECT w.work_id, MIN(v.valid_from), MAX(v.valid_from), SUM(e.provision_count) AS weight "
        "FROM versions v JOIN works w USING (work_rowid) JOIN expressions e USING (version_rowid) "
        "WHERE v.withdrawn = 0 AND e.language = w.primary_language GROUP BY w.work_rowid "
        "HAVING COUNT(DISTINCT v.valid_from) > 1 ORDER BY weight DESC LIMIT ?", (n,)).fetchall()
    calls = [("diff", {"work": w, "from_date": a, "to_date": b}) for w, a, b, _ in rows]
    if publisher == "lu-legilux":
        calls.append(("diff", {"work": "lu-legilux:rgd-2012-12-26-n14", "from_date": "2017-02-01",
                               "to_date": "2023-05-01"}))
    return calls


def _day(rng: random.Random, start: str = "1995-01-01", stop: str = "2026-06-30") -> str:
    import datetime as dt
    a, b = dt.date.fromisoformat(start), dt.date.fromisoformat(stop)
    return (a + dt.timedelta(days=rng.randrange((b - a).days + 1))).isoformat()


def workload(index_dir: Path, seed: int, calls: int) -> dict[str, list[Call]]:
    """``calls`` calls per operation (``search`` by band and language as well), fixed by ``seed``."""
    rng = random.Random(seed)
    ops: dict[str, list[Call]] = defaultdict(list)
    largest: list[Call] = []
    for path in sorted(index_dir.glob("*.sqlite")):
        conn = _open(path)
        publisher = conn.execute("SELECT v FROM stamp WHERE k = 'publisher'").fetchone()[0]
        states = conn.execute(
            "SELECT w.work_id, v.valid_from, v.version_key, e.expression_rowid FROM versions v "
            "JOIN works w USING (work_rowid) JOIN expressions e USING (version_rowid) "
            "WHERE v.withdrawn = 0 AND e.text_state = 'provisions' AND e.language = w.primary_language").fetchall()
        by_work: dict[str, list[tuple[str, str, int]]] = defaultdict(list)
        for work, start, key, expression in states:
            by_work[work].append((start, key, expression))
        works = sorted(by_work)
        for _ in range(calls // 2):
            work = rng.choice(works)
            start, _, expression = rng.choice(by_work[work])
            anchors = [r[0] for r in conn.execute("SELECT anchor FROM provisions WHERE expression_rowid = ? "
                                                  "ORDER BY seq", (expression,)) if ANCHOR.match(r[0])]
            if not anchors:
                continue
            ops["as_of"].append(("as_of", {"work": work, "date": start, "anchors": rng.sample(anchors, min(3, len(anchors)))}))
            ops["timeline"].append(("timeline", {"work": work}))
            ops["cited_by"].append(("cited_by", {"work": work}))
            ops["provenance"].append(("provenance", {"lex_id": f"{work}:{rng.choice(by_work[work])[1]}"}))
            anchor = rng.choice(anchors)
            ops["article_history"].append(("article_history", {"work": work, "anchor": anchor}))
            starts = sorted({s for s, _, _ in by_work[work]})
            if len(starts) > 1:
                a, b = sorted(rng.sample(starts, 2))
                ops["diff:random"].append(("diff", {"work": work, "from_date": a, "to_date": b}))
        for _ in range(calls // 4):
            ops["in_force_on"].append(("in_force_on", {"date": _day(rng), "publisher": publisher}))
            a, b = sorted((_day(rng), _day(rng)))
            ops["changes_in_period"].append(("changes_in_period", {"from_date": a, "to_date": b, "publisher": publisher}))
        ops["coverage"].append(("coverage", {"publisher": publisher}))
        for language in ("fr", "en", "de"):
            for band, words in _terms(conn, rng, language).items():
                for word in words:
                    ops[f"search:{language}:{band}"].append(("search", {"query": word}))
                if len(words) > 1:
                    ops[f"search:{language}:{band}"].append(("search", {"query": " ".join(words[:2])}))
        largest += _largest_diffs(conn, publisher, 10)
        conn.close()
    ops["coverage"].append(("coverage", {}))
    ops["in_force_on"].append(("in_force_on", {"date": "2024-01-01"}))
    ops["changes_in_period"].append(("changes_in_period", {"from_date": "1990-01-01", "to_date": "2030-12-31"}))
    ops["diff:largest"] = largest
    return dict(ops)


# -- in process --------------------------------------------------------------------------------


def _figures(walls: list[float], cpus: list[float]) -> dict[str, Any]:
    return {"calls": len(walls),
            **{f"p{q}_ms": round(percentile(walls, q / 100) * 1000, 2) for q in (50, 95, 99)},
            "max_ms": round(max(walls, default=0) * 1000, 2),
            **{f"cpu_p{q}_ms": round(percentile(cpus, q / 100) * 1000, 2) for q in (50, 95, 99)},
            "cpu_mean_ms": round(sum(cpus) / max(1, len(cpus)) * 1000, 2)}


def in_process(index_dir: Path, ops: dict[str, list[Call]], repeat: int) -> dict[str, Any]:
    from serve.core import LegalCore
    from serve.core.ops import diff as diff_op
    from serve.mount import settle_heap

    out: dict[str, Any] = {}
    with LegalCore.mount(index_dir, {"set_id": "bench-unsigned"}) as core:
        for call in itertools.chain.from_iterable(ops.values()):  # warm the page cache once
            core.call(*call)
        settle_heap()  # as a served worker does once mounted and warmed (serve.mount.settle_heap)
        merged: dict[str, tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
        outcomes: dict[str, Counter[str]] = defaultdict(Counter)
        for kind, calls in sorted(ops.items()):
            walls, cpus = [], []
            for _ in range(repeat):
                for name, args in calls:
                    w0, c0 = time.perf_counter(), time.thread_time()
                    answer = core.call(name, args)
                    cpus.append(time.thread_time() - c0)
                    walls.append(time.perf_counter() - w0)
                    outcomes[kind][str(answer.get("outcome"))] += 1
                    if answer.get("diff_truncated") or any(p.get("diff_truncated") for p in answer.get("publishers", [])):
                        outcomes[kind]["diff_truncated"] += 1
            out[kind] = {**_figures(walls, cpus), "outcomes": dict(outcomes[kind])}
            merged[kind.split(":")[0]][0].extend(walls)
            merged[kind.split(":")[0]][1].extend(cpus)
        def forgetting(prefix: str, forget: Callable[[], None]) -> dict[str, Any]:
            """The calls of every kind starting with ``prefix``, ``forget()`` run before each one."""
            walls: list[float] = []
            cpus: list[float] = []
            for kind, calls in sorted(ops.items()):
                if kind.startswith(prefix):
                    for name, args in calls:
                        forget()
                        w0, c0 = time.perf_counter(), time.thread_time()
                        core.call(name, args)
                        cpus.append(time.thread_time() - c0)
                        walls.append(time.perf_counter() - w0)
            return _figures(walls, cpus)

        def forget_ranked() -> None:
            for index in core.indexes.values():
                index.ranked_cache.clear()

        # searches with nothing remembered: every frequent match ranked afresh; the same diffs with no
        # pair remembered from an earlier answer
        out["search_cold"] = forgetting("search:", forget_ranked)
        out["diff:cold"] = forgetting("diff:", diff_op.PAIRS.clear)
        for op, (walls, cpus) in merged.items():  # an operation over all its kinds (diff: largest included)
            found: Counter[str] = Counter()
            for kind in ops:
                if kind.split(":")[0] == op:
                    found.update(outcomes[kind])
            out[op] = {**_figures(walls, cpus), "outcomes": dict(found)}
    return out


#: The protocol version the MCP row's results are shaped for (the SDK's newest).
MCP_PROTOCOL = "2025-11-25"


def mcp_reply(result: Any, protocol: str = MCP_PROTOCOL) -> bytes:
    """The JSON-RPC reply's bytes of one tool result, made as ``lex mcp`` makes them: the handler's
    result held back to its stand-in (:func:`serve.mcp_server.held_back`; a model is dumped first),
    the runner's dump, validation and shaping of that stand-in for the client's (handshake-era)
    protocol version, the text and structured content put back by the server's
    :class:`serve.mcp_server.StructuredPassThrough`, and the reply the transport writes."""
    import mcp_types as types
    from mcp_types import methods
    from pydantic import BaseModel

    from serve.mcp_server import held_back, put_back

    dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True) if isinstance(result, BaseModel) \
        else dict(result)
    stand_in, payload = held_back(dumped)
    shaped = methods.serialize_server_result("tools/call", protocol, dict(stand_in))  # the runner's dump
    if payload is not None:
        shaped = put_back(shaped, payload)
    reply = types.JSONRPCResponse(jsonrpc="2.0", id=1, result=shaped)
    return reply.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8")


def mcp_in_process(index_dir: Path, ops: dict[str, list[Call]]) -> dict[str, Any]:
    """The MCP tool path in process: validation, admission, worker thread, the SDK's JSON-RPC
    reply (:func:`mcp_reply`); mounted and its heap settled as a served worker's is."""
    import mcp_types as types

    from serve.app import new_state
    from serve.core import OPERATIONS
    from serve.http.catalog import catalog
    from serve.mcp_server import call_tool
    from serve.mount import MountConfig, settle_heap

    state = new_state(MountConfig(index_dir=index_dir, unsigned_dev=True))
    state.mount()
    settle_heap()
    tools = catalog(OPERATIONS)
    calls = _mcp_calls(ops)

    async def run() -> tuple[list[float], list[float]]:
        walls, cpus = [], []
        for name, args in calls:
            w0, c0 = time.perf_counter(), time.process_time()
            result = await call_tool(state, tools, types.CallToolRequestParams(name=name, arguments=args))
            mcp_reply(result)
            cpus.append(time.process_time() - c0)
            walls.append(time.perf_counter() - w0)
        return walls, cpus

    try:
        asyncio.run(run())  # warm
        walls, cpus = asyncio.run(run())
    finally:
        state.close()
    return _figures(walls, cpus)


def _mcp_calls(ops: dict[str, list[Call]]) -> list[Call]:
    """The MCP rows' calls: the first 20 of every kind but the largest diffs."""
    return [c for kind, cs in sorted(ops.items()) if kind != "diff:largest" for c in cs[:20]]


def _schedstat_ns(pid: int) -> int:
    """CPU time of every thread of ``pid`` so far, in ns (``/proc/<pid>/task/*/schedstat``)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").glob("*/schedstat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            total += int(task.read_text().split()[0])
    return total


def mcp_stdio(index_dir: Path, ops: dict[str, list[Call]]) -> dict[str, Any]:
    """The MCP row's calls through a real ``lex mcp`` server over stdio, in its own process, one
    call at a time: what a client pays on top of the in-process row (reading and dispatching the
    JSON-RPC request, the SDK's runner and middleware, the transport's threads and writes). Server
    CPU per call (all its threads, from ``schedstat``: ns, not clock ticks) next to the client's
    wall time; ``replies_as_mcp_reply`` counts the reply lines byte-identical to
    :func:`mcp_reply` of their result (all of them: the in-process row shapes the same bytes)."""
    command = [sys.executable, "-m", "cli", "mcp", "--index-dir", str(index_dir), "--unsigned-dev"]
    process = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
    assert process.stdin is not None and process.stdout is not None
    stdin, stdout = process.stdin, process.stdout

    def send(message: dict[str, Any]) -> None:
        stdin.write(json.dumps(message).encode("utf-8") + b"\n")
        stdin.flush()

    calls = _mcp_calls(ops)

    def one_pass() -> tuple[list[float], list[float], int]:
        walls, cpus, same = [], [], 0
        for name, args in calls:
            c0, w0 = _schedstat_ns(process.pid), time.perf_counter()
            send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": args}})
            line = stdout.readline().rstrip(b"\n")
            walls.append(time.perf_counter() - w0)
            cpus.append((_schedstat_ns(process.pid) - c0) / 1e9)
            same += line == mcp_reply(json.loads(line)["result"])
        return walls, cpus, same

    try:
        send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": MCP_PROTOCOL, "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
        stdout.readline()
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        one_pass()  # warm, as the in-process row
        walls, cpus, same = one_pass()
    finally:
        stdin.close()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
    return {**_figures(walls, cpus), "replies_as_mcp_reply": same}


# -- served ------------------------------------------------------------------------------------


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        with contextlib.suppress(OSError):
            out += [int(x) for x in task.read_text().split()]
    return out


def process_tree(pid: int) -> list[int]:
    """The server's processes: the one started and its descendants (the workers)."""
    tree, todo = [], [pid]
    while todo:
        current = todo.pop()
        tree.append(current)
        todo += _children(current)
    return tree


def _cpu(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


#: What a process's PSS is made of (``/proc/<pid>/smaps_rollup``), reported per process.
ROLLUP_PARTS = ("Pss_Anon", "Pss_File", "Shared_Clean", "Shared_Dirty", "Private_Clean", "Private_Dirty")


def memory_parts(memory: dict[str, int]) -> dict[str, float]:
    """``Pss`` and its :data:`ROLLUP_PARTS` of one process, in MB."""
    return {key: round(memory.get(key, 0) / 1024, 1) for key in ("Pss", *ROLLUP_PARTS)}


def memory_kib(pid: int) -> dict[str, int]:
    """``Rss`` and ``Pss`` (smaps_rollup: shared pages split between the processes mapping them),
    their parts (:data:`ROLLUP_PARTS`: anonymous and file-backed PSS, shared and private clean and
    dirty pages) and the peak ``VmHWM`` of a process, in KiB."""
    out: dict[str, int] = {}
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("Rss", "Pss", *ROLLUP_PARTS):
                out[key] = int(value.split()[0])
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key == "VmHWM":
                out[key] = int(value.split()[0])
    except (OSError, ValueError, IndexError):
        pass
    return out


def _raw_requests(host: str, port: int, mix: list[tuple[str, str, str, dict[str, Any] | None]]) -> list[tuple[str, bytes]]:
    """The mix as ready HTTP/1.1 request bytes (keep-alive), so the clients do little more than I/O."""
    out = []
    for kind, method, path, body in mix:
        data = json.dumps(body).encode() if body is not None else b""
        head = (f"{method} /{path} HTTP/1.1\r\nhost: {host}:{port}\r\naccept: application/json\r\n"
                + (f"content-type: application/json\r\ncontent-length: {len(data)}\r\n" if body is not None else "")
                + "\r\n")
        out.append((kind, head.encode() + data))
    return out


async def _response(reader: asyncio.StreamReader) -> tuple[int, bool]:
    """Read one response; its status and whether the server keeps the connection open."""
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    lower = head.lower()
    at = lower.find(b"\r\ncontent-length:")
    if at >= 0:
        await reader.readexactly(int(lower[at + 17:lower.index(b"\r\n", at + 2)]))
    elif b"transfer-encoding: chunked" in lower:
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            await reader.readexactly(size + 2)
            if size == 0:
                break
    return status, b"connection: close" not in lower


async def _client(host: str, port: int, requests: list[tuple[str, bytes]], stop: float, offset: int,
                  tally: dict[str, Any], limit: int | None = None) -> None:
    """One keep-alive client sending the mix in order until ``stop`` or, given ``limit``, that many
    requests (reconnects if closed)."""
    connection: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
    for sent, (kind, raw) in enumerate(itertools.islice(itertools.cycle(requests), offset, None)):
        if time.monotonic() >= stop or (limit is not None and sent >= limit):
            break
        start = time.perf_counter()
        ok = False
        try:
            if connection is None:
                connection = await asyncio.open_connection(host, port)
            reader, writer = connection
            writer.write(raw)
            status, keep = await asyncio.wait_for(_response(reader), 30)
            ok = status == 200
            if not ok:
                tally["statuses"][f"{kind} {status}"] += 1
            if not keep:
                writer.close()
                connection = None
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ValueError) as error:
            tally["statuses"][f"{kind} {type(error).__name__}"] += 1
            if connection is not None:
                connection[1].close()
            connection = None
        tally["latencies"][kind].append(time.perf_counter() - start)
        if not ok:
            tally["errors"][kind] += 1
    if connection is not None:
        connection[1].close()


async def _sample(pid: int, stop: float, samples: list[dict[str, Any]]) -> None:
    while time.monotonic() < stop:
        per = {p: memory_kib(p) for p in process_tree(pid)}
        samples.append({"rss": sum(m.get("Rss", 0) for m in per.values()),
                        "pss": sum(m.get("Pss", 0) for m in per.values()), "processes": len(per)})
        await asyncio.sleep(2.0)


def load(url: str, pid: int, mix: list[tuple[str, str, str, dict[str, Any] | None]], seconds: float,
         clients: int, passes: int | None = None) -> dict[str, Any]:
    """``clients`` keep-alive clients on one asyncio loop for ``seconds`` (or, given ``passes``, until
    each has sent the whole mix that many times, within ``seconds``: the same requests however busy
    the machine, for memory figures); latencies, errors, and the CPU and memory of every server
    process (supervisor and workers) and of this client process."""
    host, port = url.split("//")[1].rstrip("/").rsplit(":", 1)
    requests = _raw_requests(host, int(port), mix)
    tally: dict[str, Any] = {"latencies": defaultdict(list), "errors": Counter(), "statuses": Counter()}
    samples: list[dict[str, Any]] = []
    tree = process_tree(pid)
    cpu0 = {p: _cpu(p) for p in tree}
    started, own0 = time.perf_counter(), time.process_time()

    async def run() -> None:
        stop = time.monotonic() + seconds
        sampler = asyncio.ensure_future(_sample(pid, stop, samples))
        limit = None if passes is None else passes * len(requests)
        await asyncio.gather(*(_client(host, int(port), requests, stop, i * 7, tally, limit) for i in range(clients)))
        sampler.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sampler
        per = {p: memory_kib(p) for p in process_tree(pid)}
        samples.append({"rss": sum(m.get("Rss", 0) for m in per.values()),
                        "pss": sum(m.get("Pss", 0) for m in per.values()), "processes": len(per)})

    asyncio.run(run())
    elapsed = time.perf_counter() - started
    own = time.process_time() - own0
    tree_after = process_tree(pid)
    server_cpu = sum(_cpu(p) - cpu0.get(p, 0.0) for p in tree_after)
    final = {p: memory_kib(p) for p in tree_after}
    every = [x for values in tally["latencies"].values() for x in values]
    requests_done = len(every)
    p95 = percentile(every, 0.95)
    kinds = {kind: {"count": len(v), "errors": tally["errors"].get(kind, 0),
                    "p50_ms": round(percentile(v, 0.50) * 1000, 2), "p95_ms": round(percentile(v, 0.95) * 1000, 2),
                    "over_p95": sum(1 for x in v if x > p95)}
             for kind, v in sorted(tally["latencies"].items())}
    mb = 1024.0
    return {
        "seconds": round(elapsed, 2), "requests": requests_done, "requests_per_s": round(requests_done / elapsed, 1),
        "errors": sum(tally["errors"].values()), "error_statuses": dict(tally["statuses"]),
        **{f"p{q}_ms": round(percentile(every, q / 100) * 1000, 2) for q in (50, 95, 99)},
        "max_ms": round(max(every, default=0) * 1000, 2),
        "server_processes": len(tree_after), "server_restarted": sorted(set(tree_after) ^ set(tree)) != [],
        "server_cpu_ms_per_request": round(server_cpu * 1000 / max(1, requests_done), 2),
        "server_cpu_utilisation": round(server_cpu / elapsed, 2),
        "client_cpu_ms_per_request": round(own * 1000 / max(1, requests_done), 2),
        "client_cpu_utilisation": round(own / elapsed, 2),
        "rss_mb_peak_sum": round(max((s["rss"] for s in samples), default=0) / mb, 1),
        "pss_mb_peak_sum": round(max((s["pss"] for s in samples), default=0) / mb, 1),
        "rss_mb_peak_per_process": [round(m.get("VmHWM", 0) / mb, 1) for m in final.values()],
        "pss_mb_final_per_process": [round(m.get("Pss", 0) / mb, 1) for m in final.values()],
        "memory_mb_final_per_process": [memory_parts(m) for m in final.values()],
        # the figure compared with the target: the sum of PSS (every page counted once over the processes)
        "rss_mb_peak": round(max((s["pss"] for s in samples), default=0) / mb, 1),
        "kinds": kinds,
    }


@contextlib.contextmanager
def serving(index_dir: Path, workers: int, executing: int | None,
            answer_cache: float | None = None) -> Iterator[tuple[str, int]]:
    """``lex serve --unsigned-dev`` on an ephemeral loopback port, rate limits off; its URL and pid.
    ``answer_cache``: its ``--answer-cache`` MiB (None: its default)."""
    args = ["--index-dir", str(index_dir), "--unsigned-dev", "--client-rate", "0", "--global-rate", "0",
            "--log-level", "error", "--workers", str(workers)]
    if executing:
        args += ["--executing", str(executing)]
    if answer_cache is not None:
        args += ["--answer-cache", f"{answer_cache:g}"]
    with lex_serve(args, stop_timeout=30) as served:
        yield served


def wait_ready(url: str, workers: int, timeout: float = 180.0) -> None:
    """Wait until ``/readyz`` answers 200 from every worker (fresh connections land on any of them)."""
    import http.client

    host, port = url.split("//")[1].rstrip("/").rsplit(":", 1)
    seen: set[Any] = set()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and len(seen) < workers:
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        try:
            connection.request("GET", "/readyz")
            response = connection.getresponse()
            body = json.loads(response.read())
        except OSError:
            body, response = {}, None
        finally:
            connection.close()
        if response is not None and response.status == 200:
            seen.add(body.get("worker"))
        elif body.get("status") == "refused":
            raise RuntimeError(f"the server refused the artifact set: {body['reason']}")
        else:
            time.sleep(0.2)
    if len(seen) < workers:
        raise RuntimeError("the server did not become ready")


#: API calls of each kind in the served mix (``--mix-calls``): 162 distinct requests in all.
MIX_CALLS = 8
#: One request of the served mix: its kind, method, path (no leading ``/``) and JSON body.
MixItem = tuple[str, str, str, dict[str, Any] | None]
#: Search words drawn per band and language for the served mix's later rounds (``--mix-rounds``).
ROUND_WORDS = 40


def _cycle(calls: list[Call], start: int, count: int) -> list[Call]:
    """``count`` calls of ``calls`` from ``start``, wrapping around (fewer when there are fewer)."""
    if not calls:
        return []
    return [calls[(start + i) % len(calls)] for i in range(min(count, len(calls)))]


def canonical(arguments: dict[str, Any] | None) -> str:
    """A request body as sorted JSON (to count distinct requests)."""
    return json.dumps(arguments, sort_keys=True)


def served_mix(ops: dict[str, list[Call]], mix_calls: int = MIX_CALLS, rounds: int = 1) -> list[MixItem]:
    """The served mix: ``mix_calls`` API calls of each kind, diff, work, version and search pages
    and ``/healthz``, in a fixed shuffled order. With ``rounds`` > 1 it is that many such mixes of
    the same make-up, each round taking the next calls of every kind (wrapping around a kind that
    has fewer): fewer repeated requests, the same share of each kind."""
    mix: list[MixItem] = []
    for r in range(rounds):
        part: list[MixItem] = []
        for kind, calls in sorted(ops.items()):
            for name, args in _cycle(calls, r * mix_calls, mix_calls):
                part.append((f"api:{kind}", "POST", f"api/v1/{name}", args))
        for _, args in _cycle(ops.get("diff:largest", []), r * 6, 6):
            publisher, slug = args["work"].split(":", 1)
            part.append(("page:diff", "GET", f"{publisher}/{slug}/diff/{args['from_date']}/{args['to_date']}", None))
        for _, args in _cycle(ops.get("as_of", []), r * 4, 4):
            publisher, slug = args["work"].split(":", 1)
            part.append(("page:work", "GET", f"{publisher}/{slug}", None))
            part.append(("page:version", "GET", f"{publisher}/{slug}/{args['date']}", None))
        for _, args in _cycle(ops.get("search:fr:mid", []), r * 3, 3):
            part.append(("page:search", "GET", f"search?q={quote(args['query'])}", None))
        part.append(("healthz", "GET", "healthz", None))
        random.Random(r).shuffle(part)  # round 0: the single mix's order
        mix += part
    return mix


def round_searches(index_dir: Path, seed: int, ops: dict[str, list[Call]]) -> dict[str, list[Call]]:
    """``ops`` with every ``search:<language>:<band>`` kind extended by further words of its band
    (:data:`ROUND_WORDS` drawn, then pairs of them), from an RNG of its own: the later rounds of a
    served mix ask new questions, while the first round (and every in-process figure, which uses
    ``ops``) stays as it was."""
    rng = random.Random(f"{seed}:rounds")
    out = {kind: list(calls) for kind, calls in ops.items()}
    for path in sorted(index_dir.glob("*.sqlite")):
        conn = _open(path)
        for language in ("fr", "en", "de"):
            for band, words in _terms(conn, rng, language, ROUND_WORDS).items():
                kind = f"search:{language}:{band}"
                asked = {c[1]["query"] for c in out.get(kind, [])}
                fresh = [w for w in words if w not in asked]
                fresh += [f"{a} {b}" for a, b in zip(fresh[::2], fresh[1::2], strict=False)]
                out.setdefault(kind, []).extend(("search", {"query": q}) for q in fresh)
        conn.close()
    return out


def served(index_dir: Path, ops: dict[str, list[Call]], seconds: float, clients: int, workers: int,
           executing: int | None, passes: int | None = None, answer_cache: float | None = None,
           mix_calls: int = MIX_CALLS, rounds: int = 1, seed: int = 14) -> dict[str, Any]:
    if rounds > 1:
        ops = round_searches(index_dir, seed, ops)
    mix = served_mix(ops, mix_calls, rounds)
    before = [load_average()]
    with serving(index_dir, workers, executing, answer_cache) as (url, pid):
        wait_ready(url, workers)
        ready = {p: memory_kib(p) for p in process_tree(pid)}
        report = load(url, pid, mix, seconds, clients, passes)
    report["load_average"] = [*before, load_average()]
    report["mix_size"] = len(mix)
    report["mix_distinct"] = len({(method, path, canonical(arguments)) for _, method, path, arguments in mix})
    report["mix_rounds"] = rounds
    report["passes"] = passes
    report["workers"] = workers
    report["executing"] = executing
    report["answer_cache_mb"] = answer_cache
    report["mounted_rss_mb_per_process"] = [round(m.get("Rss", 0) / 1024, 1) for m in ready.values()]
    report["mounted_pss_mb_sum"] = round(sum(m.get("Pss", 0) for m in ready.values()) / 1024, 1)
    report["memory_mb_mounted_per_process"] = [memory_parts(m) for m in ready.values()]
    return report


# -- the report --------------------------------------------------------------------------------


def verdicts(report: dict[str, Any]) -> dict[str, Any]:
    inproc = report.get("in_process", {})
    out = {}
    for op, fig in inproc.items():
        if ":" in op:
            continue
        target = TARGETS_MS.get(op, DEFAULT_TARGET_MS)
        out[op] = {"p95_ms": fig["p95_ms"], "cpu_p95_ms": fig["cpu_p95_ms"], "target_ms": target,
                   "met_wall": fig["p95_ms"] <= target, "met_cpu": fig["cpu_p95_ms"] <= target}
    if "diff" in inproc:
        out["diff_p99"] = {"p99_ms": inproc["diff"]["p99_ms"], "cpu_p99_ms": inproc["diff"]["cpu_p99_ms"],
                           "target_ms": DIFF_P99_MS, "met_wall": inproc["diff"]["p99_ms"] <= DIFF_P99_MS}
    if "mcp" in report:
        fig = report["mcp"]
        out["mcp"] = {"p95_ms": fig["p95_ms"], "cpu_p95_ms": fig["cpu_p95_ms"], "target_ms": TARGETS_MS["mcp"],
                      "met_wall": fig["p95_ms"] <= TARGETS_MS["mcp"], "met_cpu": fig["cpu_p95_ms"] <= TARGETS_MS["mcp"]}
    if "served" in report:
        s = report["served"]
        out["served"] = {"errors": s["errors"], "p95_ms": s["p95_ms"], "requests_per_s": s["requests_per_s"],
                         "pss_mb_peak_sum": s["pss_mb_peak_sum"], "rss_mb_peak_sum": s["rss_mb_peak_sum"],
                         "met": {"errors": s["errors"] == 0, "p95": s["p95_ms"] <= SERVED["p95_ms"],
                                 "throughput": s["requests_per_s"] >= SERVED["requests_per_s"],
                                 "memory_pss_sum": s["pss_mb_peak_sum"] <= SERVED["rss_mb"]}}
    return out


def markdown(report: dict[str, Any]) -> str:
    lines = ["| operation | calls | p50 ms | p95 ms | p99 ms | max ms | CPU p95 ms | CPU p99 ms | target p95 ms |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for op, fig in sorted(report.get("in_process", {}).items()):
        target = TARGETS_MS.get(op.split(":")[0], DEFAULT_TARGET_MS)
        lines.append(f"| {op} | {fig['calls']} | {fig['p50_ms']} | {fig['p95_ms']} | {fig['p99_ms']} | "
                     f"{fig['max_ms']} | {fig['cpu_p95_ms']} | {fig['cpu_p99_ms']} | {target:g} |")
    if "mcp" in report:
        fig = report["mcp"]
        lines.append(f"| MCP tool (in process) | {fig['calls']} | {fig['p50_ms']} | {fig['p95_ms']} | {fig['p99_ms']} | "
                     f"{fig['max_ms']} | {fig['cpu_p95_ms']} | {fig['cpu_p99_ms']} | 10 |")
    if "mcp_stdio" in report:
        fig = report["mcp_stdio"]
        lines.append(f"| MCP tool (lex mcp over stdio; server CPU) | {fig['calls']} | {fig['p50_ms']} | {fig['p95_ms']} | "
                     f"{fig['p99_ms']} | {fig['max_ms']} | {fig['cpu_p95_ms']} | {fig['cpu_p99_ms']} | – |")
    if "served" in report:
        s = report["served"]
        lines += ["", "| served | workers | clients | seconds | requests | req/s | errors | p50 ms | p95 ms | p99 ms | "
                      "max ms | server CPU ms/request | server CPUs | client CPU ms/request | PSS sum peak MB | "
                      "RSS sum peak MB | peak RSS per process MB | load average |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|",
                  f"| all kinds | {s['workers']} | {report['clients']} | {s['seconds']} | {s['requests']} | "
                  f"{s['requests_per_s']} | {s['errors']} | {s['p50_ms']} | {s['p95_ms']} | {s['p99_ms']} | "
                  f"{s['max_ms']} | {s['server_cpu_ms_per_request']} | {s['server_cpu_utilisation']} | "
                  f"{s['client_cpu_ms_per_request']} | {s['pss_mb_peak_sum']} | {s['rss_mb_peak_sum']} | "
                  f"{' + '.join(map(str, s['rss_mb_peak_per_process']))} | "
                  f"{' → '.join('/'.join(map(str, la)) for la in s['load_average'])} |",
                  "", f"Served mix: {s.get('mix_size')} requests ({s.get('mix_distinct', s.get('mix_size'))} distinct, "
                      f"{s.get('mix_rounds', 1)} round(s)), cycled by each client; answer cache "
                      f"{'lex serve default' if s.get('answer_cache_mb') is None else str(s['answer_cache_mb']) + ' MiB'}"
                      " per worker."]
    lines.append("")
    lines.append(f"Load average (1/5/15 min) during the in-process run: "
                 f"{' → '.join('/'.join(map(str, la)) for la in report['load_average'])}; "
                 f"indexes: {', '.join(report['indexes'])}; seed {report['seed']}.")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index-dir", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--calls", type=int, default=200, help="Calls generated per operation (and publisher).")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--passes", type=int, default=None,
                        help="Each served client stops after this many passes over the mix (within --seconds): "
                             "the same requests however busy the machine, for comparable memory figures.")
    parser.add_argument("--skip-served", action="store_true")
    parser.add_argument("--skip-mcp", action="store_true")
    parser.add_argument("--mcp-stdio", action="store_true",
                        help="Also run the MCP row's calls through a real `lex mcp` server over stdio (server CPU per call).")
    parser.add_argument("--skip-inprocess", action="store_true", help="Only the served run (no in-process, no MCP).")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="lex serve --workers.")
    parser.add_argument("--executing", type=int, default=None, help="lex serve --executing (default: its own).")
    parser.add_argument("--answer-cache", type=float, default=None,
                        help="lex serve --answer-cache MiB (default: its own; 0: every request runs the core).")
    parser.add_argument("--mix-calls", type=int, default=MIX_CALLS,
                        help="API calls of each kind in the served mix (more: fewer repeated requests).")
    parser.add_argument("--mix-rounds", type=int, default=1,
                        help="Rounds of the served mix, each of the same make-up with the next calls of every kind "
                             "(further search words drawn by the seed): fewer repeated requests, the same shares.")
    args = parser.parse_args(argv)
    index_dir = args.index_dir.resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {"indexes": sorted(p.name for p in index_dir.glob("*.sqlite")), "seed": args.seed,
                              "clients": args.clients, "cpus": os.cpu_count(), "load_average": [load_average()]}
    ops = workload(index_dir, args.seed, args.calls)
    report["workload"] = {k: len(v) for k, v in sorted(ops.items())}
    report["largest_diffs"] = [c[1] for c in ops.get("diff:largest", [])]
    step: Callable[[str], None] = lambda what: print(f"[bench-serve] {what} (load {load_average()})", file=sys.stderr)  # noqa: E731
    if not args.skip_inprocess:
        step("in process")
        report["in_process"] = in_process(index_dir, ops, args.repeat)
    if not args.skip_mcp and not args.skip_inprocess:
        step("MCP in process")
        report["mcp"] = mcp_in_process(index_dir, ops)
    if args.mcp_stdio:
        step("MCP over stdio")
        report["mcp_stdio"] = mcp_stdio(index_dir, ops)
    report["load_average"].append(load_average())
    if not args.skip_served:
        step("served")
        report["served"] = served(index_dir, ops, args.seconds, args.clients, args.workers, args.executing, args.passes,
                                  args.answer_cache, args.mix_calls, args.mix_rounds, args.seed)
    report["verdicts"] = verdicts(report)
    (args.out / "bench-serve.json").write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    (args.out / "bench-serve.md").write_text(markdown(report))
    print(markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
