"""Benchmark: where a search's CPU goes with nothing remembered, search by search.

Mounts a directory of full-corpus indexes (``--index-dir``, unsigned), takes the search calls of
:func:`bench.bench_serve_full.workload` (the same seed, so the same 105 searches as the
``search_cold`` row of ``bench-serve.md``), warms every call once, then ``--rounds`` times asks each
search cold (every index's ``ranked_cache`` cleared first, as ``search_cold`` does) and warm (asked
again at once). Each call's thread CPU is split into exclusive parts by timing a few functions of
:mod:`serve.core.ops.search` (a part's time excludes the parts it calls): the full bm25 ranking of a
match (``ranked_rows``), the ranking from the stored windows of its phrases (``bounded_window``), a
ranked window's rows (``window_occurrences``), snippets cut from stored texts (``text_snippets``),
the ranking of hits (``rank_hits``), the answer's rows (``shape_hits``), the plan, the Snowball
forms, the title coverage and the work breadth; ``rest`` is what no part holds. Per search and
mode the least of its rounds is kept.

Prints the cold and warm p50/p95/sum, the cold CPU by part, and the ``--worst`` slowest cold
searches with their parts (a Markdown table). The timers cost a little CPU themselves: compare
parts with each other, and take p95 figures from ``bench_serve_full``.

Usage::

    python -m bench.search_cold_parts --index-dir DIR/indexes [--rounds 3] [--worst 10] [--seed 14]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

#: ``(function of serve.core.ops.search, part name)``, timed exclusively.
PARTS = (
    ("ranked_rows", "full bm25"),
    ("bounded_window", "bounded_window"),
    ("precomputed_window", "stored window read"),
    ("window_occurrences", "window_occurrences"),
    ("text_snippets", "snippets"),
    ("rank_hits", "rank_hits"),
    ("shape_hits", "shape_hits"),
    ("_plan", "plan"),
    ("snowball_variants", "snowball_variants"),
    ("works_title_coverage", "title_coverage"),
    ("work_breadth", "work_breadth"),
)


class PartClock:
    """Exclusive thread CPU per part: a timed call's time less the timed calls it made."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = defaultdict(float)
        self._children: list[float] = []

    def timed(self, part: str, function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def timed_call(*args: Any, **kwargs: Any) -> Any:
            self._children.append(0.0)
            started = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                elapsed = time.thread_time() - started
                inner = self._children.pop()
                self.spent[part] += elapsed - inner
                if self._children:
                    self._children[-1] += elapsed

        return timed_call


@contextlib.contextmanager
def timing(clock: PartClock) -> Iterator[None]:
    """The :data:`PARTS` of :mod:`serve.core.ops.search` timed by ``clock`` (restored on exit)."""
    from serve.core.ops import search

    originals = {name: getattr(search, name) for name, _ in PARTS}
    try:
        for name, part in PARTS:
            setattr(search, name, clock.timed(part, originals[name]))
        yield
    finally:
        for name, function in originals.items():
            setattr(search, name, function)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[round(q * (len(ordered) - 1))]


Measured = dict[tuple[str, str, str], tuple[float, dict[str, float]]]


def measure(index_dir: Path, seed: int, rounds: int) -> Measured:
    """``(kind, query, mode) -> (ms, {part: ms})``, the least of ``rounds`` per search and mode."""
    from bench.bench_serve_full import workload
    from serve.core import LegalCore

    searches = [
        (kind, args)
        for kind, calls in sorted(workload(index_dir, seed, 200).items())
        if kind.startswith("search:")
        for _, args in calls
    ]
    clock = PartClock()
    best: Measured = {}
    with LegalCore.mount(index_dir, {"set_id": "bench-unsigned"}, deadline_seconds=600) as core:
        for _, args in searches:  # the page cache and the memories built once per process
            core.call("search", args)
        with timing(clock):
            for _ in range(rounds):
                for kind, args in searches:
                    for mode in ("cold", "warm"):
                        if mode == "cold":
                            for index in core.indexes.values():
                                index.ranked_cache.clear()
                        clock.spent.clear()
                        started = time.thread_time()
                        core.call("search", args)
                        total = (time.thread_time() - started) * 1e3
                        parts = {part: ms * 1e3 for part, ms in clock.spent.items()}
                        parts["rest"] = total - sum(parts.values())
                        key = (kind, str(args["query"]), mode)
                        if key not in best or total < best[key][0]:
                            best[key] = (total, parts)
    return best


def report(best: Measured, worst: int) -> str:
    lines = []
    for mode in ("cold", "warm"):
        values = [ms for (_, _, m), (ms, _) in best.items() if m == mode]
        lines.append(
            f"{mode}: p50 {percentile(values, 0.5):.2f} ms, p95 {percentile(values, 0.95):.2f} ms, "
            f"sum {sum(values):.0f} ms over {len(values)} searches"
        )
    by_part: dict[str, float] = defaultdict(float)
    for (_, _, mode), (_, parts) in best.items():
        if mode == "cold":
            for part, ms in parts.items():
                by_part[part] += ms
    lines.append(
        "cold CPU by part (ms, sum over the searches): "
        + ", ".join(
            f"{part} {ms:.0f}" for part, ms in sorted(by_part.items(), key=lambda kv: -kv[1])
        )
    )
    lines += [
        "",
        "| search (language:band) | cold ms | warm ms | cold by part (ms) |",
        "|---|---:|---:|---|",
    ]
    cold = sorted(((k, v) for k, v in best.items() if k[2] == "cold"), key=lambda kv: -kv[1][0])
    for (kind, query, _), (ms, parts) in cold[:worst]:
        warm = best[(kind, query, "warm")][0]
        shown = ", ".join(
            f"{part} {v:.1f}"
            for part, v in sorted(parts.items(), key=lambda kv: -kv[1])
            if v >= 0.5
        )
        lines.append(
            f"| {query} ({kind.removeprefix('search:')}) | {ms:.1f} | {warm:.1f} | {shown} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--index-dir", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--worst", type=int, default=10)
    args = parser.parse_args(argv)
    print(report(measure(args.index_dir.resolve(), args.seed, args.rounds), args.worst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
