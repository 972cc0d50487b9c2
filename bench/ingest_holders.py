"""What the ingest holds at its checkpoints, and what of it grows with the corpus (issue #13, mem28).

::

    python -m bench.ingest_holders --n 4 16 [--out DIR] [--frames 25] [--top 12]

Runs :mod:`bench.ingest_memory`'s fresh ingest and re-ingest of the scale harness's replay (traced:
``PYTHONTRACEMALLOC=<frames>``, from the interpreter's start), each child started through this
module's probe, which takes a ``tracemalloc`` snapshot at three checkpoints of each publisher's run:

- ``summaries``: the plan's scan of the tree is done (:func:`publishers.ingest._existing` returned:
  the listing, the publisher's summaries and the other publishers' fold rows are held);
- ``plan``: the plan is made (:func:`publishers.ingest._plan` returned);
- ``first_observe``: the writer reaches the first version (the plan made, the works folded);
- ``last_observe``: the writer reaches the last version (the listing consumed, the written
  versions' rows and staged paths held).

Each snapshot is grouped by **holder**: the innermost frame of an allocation's traceback in the
project's packages (``publishers``, ``corpus_tree``, ``legal``, ``bench``), else its innermost
frame. ``current_mb`` is the traced memory at the checkpoint and ``peak_mb`` the traced peak since
the previous checkpoint (the probe's own work is not counted: the peak is reset after it).

Printed: one JSON line per N, mode, publisher and checkpoint (``current_mb``, ``peak_mb``); then,
between the smallest and the largest N, per checkpoint the growth of the current memory and of its
``--top`` holders, in **MB per replica**.

Internal: ``python -m bench.ingest_holders _probe --log FILE -- <the ingest child's command>``.
"""

from __future__ import annotations

import json
import sys
import tracemalloc
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: the project's packages whose frames name a holder
PROJECT = ("publishers", "corpus_tree", "legal", "bench")
CHECKPOINTS = ("summaries", "plan", "first_observe", "last_observe")
#: a raw frame of ``tracemalloc``: ``(filename, lineno)``
Frame = tuple[str, int]


def holder_of(frames: Sequence[Frame], project: Sequence[str] = PROJECT) -> str:
    """The holder of an allocation whose traceback is ``frames`` (the most recent first, as
    ``tracemalloc`` records them): ``<package>/<file>:<line>`` of the innermost frame in one of the
    ``project``'s packages, else ``~<file>:<line>`` of the innermost frame."""
    for filename, lineno in frames:
        parts = filename.replace("\\", "/").split("/")
        for at in range(len(parts) - 2, -1, -1):  # a module of a subpackage too (publishers/http/sparql.py)
            if parts[at] in project:
                return f"{'/'.join(parts[at:])}:{lineno}"
    if not frames:
        return "~<unknown>"
    filename, lineno = frames[0]
    return f"~{filename.replace(chr(92), '/').split('/')[-1]}:{lineno}"


def holders(traces: Iterable[tuple[int, int, Sequence[Frame]]]) -> dict[str, int]:
    """Bytes per holder of raw traces ``(domain, size, frames, ...)`` (a traceback shared by several
    traces, as ``tracemalloc`` hands them out, is resolved once)."""
    out: dict[str, int] = {}
    seen: dict[int, str] = {}
    for trace in traces:
        size, frames = trace[1], trace[2]
        key = seen.get(id(frames))
        if key is None:
            key = seen[id(frames)] = holder_of(frames)
        out[key] = out.get(key, 0) + size
    return out


def growth(small: dict[str, int], large: dict[str, int], replicas: int) -> list[tuple[str, float]]:
    """``(holder, MB per replica)`` from the holders at N = n to those at N = n + ``replicas``,
    the largest change first."""
    keys = set(small) | set(large)
    rows = [(k, (large.get(k, 0) - small.get(k, 0)) / replicas / 2**20) for k in keys]
    return sorted(rows, key=lambda kv: (-abs(kv[1]), kv[0]))


def _mb(size: int) -> float:
    return round(size / 2**20, 3)


def probe(log: Path, ingest_argv: list[str]) -> None:
    """Run the ingest child ``ingest_argv`` with its checkpoints watched (see the module docstring)."""
    import bench.ingest_memory as ingest_memory
    import publishers.ingest as ingest

    state: dict[str, str] = {"publisher": "?"}

    def snap(checkpoint: str) -> None:
        if not tracemalloc.is_tracing():
            return
        current, peak = tracemalloc.get_traced_memory()
        status = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
        snapshot = tracemalloc.take_snapshot()
        held = holders(snapshot.traces._traces)  # type: ignore[attr-defined]  # raw: most recent frame first
        del snapshot
        with log.open("a", encoding="utf-8") as out:
            out.write(json.dumps({"publisher": state["publisher"], "checkpoint": checkpoint,
                                  "current": current, "peak": peak, "holders": held,
                                  "hwm_kb": int(status["VmHWM"].split()[0]), "rss_kb": int(status["VmRSS"].split()[0])}) + "\n")
        del held
        tracemalloc.reset_peak()

    existing = ingest._existing
    call = ingest._Observer.__call__
    plan = ingest._plan

    def watched_existing(tree: Any, publisher: Any) -> Any:
        state["publisher"] = publisher.value
        summaries = existing(tree, publisher)
        snap("summaries")
        return summaries

    def watched_plan(*args: Any, **kwargs: Any) -> Any:
        made = plan(*args, **kwargs)
        snap("plan")
        return made

    def watched_call(self: Any, v: Any) -> Any:
        if self.next == 0:
            snap("first_observe")
        if self.next == self.count - 1:
            snap("last_observe")
        return call(self, v)

    ingest._existing = watched_existing  # type: ignore[assignment]
    ingest._plan = watched_plan  # type: ignore[assignment]
    ingest._Observer.__call__ = watched_call  # type: ignore[method-assign]
    ingest_memory.main(ingest_argv)


def main(argv: list[str]) -> None:
    import bench.ingest_memory as ingest_memory

    if ingest_memory.run_probe(argv, "python -m bench.ingest_holders", probe):
        return
    parser = ingest_memory.watched_parser("python -m bench.ingest_holders", __doc__, "bench/out/ingest_holders")
    parser.add_argument("--frames", type=int, default=25, help="frames traced per allocation")
    parser.add_argument("--top", type=int, default=12, help="holders printed per checkpoint")
    parser.add_argument("--per-publisher", action="store_true",
                        help="each publisher's ingest in its own child process (the product's shape)")
    parser.add_argument("--only", nargs="+", default=[], metavar="PUBLISHER",
                        help="with --per-publisher: only these publishers' children (e.g. lu-legilux)")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    log = out / "holders.jsonl"
    seen: dict[tuple[int, str, str, str], dict[str, Any]] = {}
    wrap = [sys.executable, "-m", "bench.ingest_holders", "_probe", "--log", str(log), "--"]
    for n, events in ingest_memory.probed_runs(args.n, out, args.fixtures, ROOT, trace=args.frames, log=log,
                                               wrap=wrap, per_publisher=args.per_publisher, only=args.only):
        modes = iter(ingest_memory.MODES)
        mode = next(modes)
        for event in events:
            if (n, mode, event["publisher"], event["checkpoint"]) in seen:
                mode = next(modes)  # the re-ingest's snapshots follow the fresh ingest's
            seen[(n, mode, event["publisher"], event["checkpoint"])] = event
            print(json.dumps({"n": n, "mode": mode, "publisher": event["publisher"],
                              "checkpoint": event["checkpoint"], "current_mb": _mb(event["current"]),
                              "peak_mb": _mb(event["peak"]),
                              "hwm_mb": round(event.get("hwm_kb", 0) / 1024, 2),
                              "rss_mb": round(event.get("rss_kb", 0) / 1024, 2)}, sort_keys=True), flush=True)
    for mode, publisher, checkpoint, event, other, per in ingest_memory.growth_pairs(seen, args.n):
        print(json.dumps({"growth": f"N {min(args.n)} -> {max(args.n)}", "mode": mode, "publisher": publisher,
                          "checkpoint": checkpoint,
                          "current_mb_per_replica": round((other["current"] - event["current"]) / per / 2**20, 3),
                          "holders_mb_per_replica": [[k, round(v, 3)] for k, v in
                                                     growth(event["holders"], other["holders"], per)[:args.top]]},
                         sort_keys=True), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
