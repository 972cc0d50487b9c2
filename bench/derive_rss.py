"""Derive a few chosen works alone, to measure one work's peak RSS (issue #13).

``python -m bench.derive_rss --tree TREE --out DIR --work SLUG [--work SLUG …] [--workers N]
[--cache DIR | --no-cache] [--shards N]`` runs :func:`derive.dataset.build_dataset` restricted to
those works (the code path of ``lex derive run``; with ``--shards N``, the pipeline's derive stage:
N shards one after the other, then :func:`derive.dataset.merge_shards`, in this process) and prints wall time, CPU time and peak RSS of this process
and of its worker processes, and per phase (each shard, the merge) this process's wall, CPU and peak
RSS during the phase (``VmHWM`` reset at its start), also to stderr as each ends. Run it under
``/usr/bin/time -v`` for the kernel's own figures.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import resource
import sys
import time
from pathlib import Path

from corpus_tree import CorpusTree
from derive.dataset import BuildReport, build_dataset, merge_shards


def _status() -> dict[str, float]:
    """This process's ``VmRSS`` and ``VmHWM`` (MB = KiB/1024); empty off Linux."""
    found: dict[str, float] = {}
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key] = round(int(value.split()[0]) / 1024, 1)
    except OSError:
        pass
    return found


def _reset_peak() -> None:
    """Reset ``VmHWM`` to the current RSS (``/proc/self/clear_refs``: 5), where the kernel allows it."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


class _Phases:
    """Per-phase figures of this process, printed to stderr as each phase ends: wall, CPU, the
    peak RSS during the phase (``VmHWM`` reset at its start) and the RSS left at its end."""

    def __init__(self) -> None:
        self.rows: list[dict[str, object]] = []

    def run(self, name: str, step: object) -> object:
        _reset_peak()
        before = _status().get("VmRSS")
        wall, cpu = time.perf_counter(), time.process_time()
        result = step() if callable(step) else None
        row = {"phase": name, "wall_s": round(time.perf_counter() - wall, 2),
               "cpu_s": round(time.process_time() - cpu, 2), "rss_before_mb": before,
               "peak_rss_mb": _status().get("VmHWM"), "rss_after_mb": _status().get("VmRSS")}
        self.rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
        return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tree", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--work", action="append", default=None, help="work slug (repeatable; default: every work)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--cache", default=None)
    parser.add_argument("--no-cache", action="store_true")
    parser.add_argument("--shards", type=int, default=0, help="derive N shards, then merge them")
    args = parser.parse_args(argv)
    tree = CorpusTree.open(args.tree)
    wall, cpu = time.perf_counter(), time.process_time()
    phases = _Phases()
    report: BuildReport
    if args.shards:
        outs = [f"{args.out}.shard-{i}" for i in range(args.shards)]
        for i, out in enumerate(outs):
            phases.run(f"shard {i}/{args.shards}", lambda i=i, out=out: build_dataset(
                tree, out, cache=args.cache and f"{args.cache}-{i}", use_cache=not args.no_cache,
                workers=args.workers, only=args.work, shard=(i, args.shards)))
        merged = phases.run("merge", lambda: merge_shards(outs, args.out))
        assert isinstance(merged, BuildReport)
        report = merged
    else:
        built = phases.run("build", lambda: build_dataset(tree, args.out, cache=args.cache,
                                                          use_cache=not args.no_cache, workers=args.workers,
                                                          only=args.work))
        assert isinstance(built, BuildReport)
        report = built
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({
        "works": args.work, "wall_s": round(time.perf_counter() - wall, 2),
        "cpu_s": round(time.process_time() - cpu + kids.ru_utime + kids.ru_stime, 2),
        "peak_rss_mb": round(own.ru_maxrss / 1024, 1), "workers_peak_rss_mb": round(kids.ru_maxrss / 1024, 1),
        "shards": args.shards, "workers": args.workers,
        "provisions": report.provisions, "works_derived": report.works_derived,
        "works_reused": report.works_reused, "phases": phases.rows,
    }))


if __name__ == "__main__":
    main()
