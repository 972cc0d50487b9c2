"""``known_on`` cost over a directory of indexes: the same calls with and without "as known on".

::

    python -m bench.bench_known_on --index-dir DIR [--works 40] [--known-on YYYY-MM-DD ...] [--json OUT]

In-process, one thread. Per publisher, the ``--works`` works with the most transaction-time
events are asked ``as_of`` (on their latest state's start), ``timeline``, ``diff`` (first to
latest start) and ``provenance`` (latest state), once without ``known_on`` and once per
``--known-on`` day (default: the middle day between the first and the last recorded event, and
the indexes' build day). The publisher-wide ``in_force_on`` is asked cold (the first call for a
day builds that day's view of the whole index) and warm; then eight searches. Prints wall and CPU milliseconds
(median, p95) per operation and mode, the load average, and how much of the index each day's view
leaves out (states sighted later, withdrawn then, texts not held then).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sqlite3
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from serve.core import LegalCore
from serve.core.known_index import index_at

#: Searches asked with and without ``known_on`` (after ``in_force_on`` built each day's view).
SEARCHES = ("protection des données", "data protection", "contrat de travail", "marchés publics",
            "impôt sur le revenu", "article 6", "capital requirements", "Datenschutz")


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000, out


def _busy_works(path: Path, n: int) -> list[tuple[str, str, str, str]]:
    """``(work_id, first start, latest start, latest lex id)`` of the works with the most events."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = conn.execute(
        "SELECT w.work_id, MIN(v.valid_from), MAX(v.valid_from), COUNT(*) AS n FROM events e "
        "JOIN versions v USING (version_rowid) JOIN works w USING (work_rowid) "
        "GROUP BY w.work_rowid ORDER BY n DESC, w.work_id LIMIT ?", (n,)).fetchall()
    out = []
    for work_id, first, latest, _ in rows:
        lex = conn.execute("SELECT v.lex_id FROM versions v JOIN works w USING (work_rowid) WHERE w.work_id = ? "
                           "AND v.valid_from = ? ORDER BY v.version_key LIMIT 1", (work_id, latest)).fetchone()[0]
        out.append((str(work_id), str(first), str(latest), str(lex)))
    conn.close()
    return out


def _middle_day(paths: list[Path]) -> str:
    days: list[str] = []
    for path in paths:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        days.extend(str(v) for r in conn.execute("SELECT MIN(substr(observed_from, 1, 10)), "
                                                   "MAX(substr(observed_from, 1, 10)) FROM events") for v in r)
        conn.close()
    first, last = dt.date.fromisoformat(min(days)), dt.date.fromisoformat(max(days))
    return (first + (last - first) / 2).isoformat()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index-dir", type=Path, required=True)
    parser.add_argument("--works", type=int, default=40)
    parser.add_argument("--known-on", action="append", default=[])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    core = LegalCore.mount(args.index_dir, {"set_id": "bench-known-on"}, deadline_seconds=60.0)
    paths = [index.path for index in core.indexes.values()]
    days = args.known_on or [_middle_day(paths), core.horizon]
    load_before = os.getloadavg()
    timings: dict[str, dict[str, list[tuple[float, float]]]] = {}
    outcomes: dict[str, dict[str, dict[str, int]]] = {}

    def record(op: str, mode: str, ms: tuple[float, float], outcome: str) -> None:
        timings.setdefault(op, {}).setdefault(mode, []).append(ms)
        counts = outcomes.setdefault(op, {}).setdefault(mode, {})
        counts[outcome] = counts.get(outcome, 0) + 1

    for index in core.indexes.values():
        for work, first, latest, lex_id in _busy_works(index.path, args.works):
            calls = {
                "as_of": {"work": work, "date": latest, "mode": "outline"},
                "timeline": {"work": work, "include_withdrawn": True},
                "diff": {"work": work, "from_date": first, "to_date": latest},
                "provenance": {"lex_id": lex_id},
            }
            for op, call in calls.items():
                for mode, extra in [("default", {}), *((f"known_on={d}", {"known_on": d}) for d in days)]:
                    wall, cpu, answer = _timed(lambda op=op, call=call, extra=extra: core.call(op, {**call, **extra}))
                    record(op, mode, (wall, cpu), str(answer["outcome"]))
    views: dict[str, dict[str, Any]] = {}
    for day in days:
        for phase in ("cold", "warm"):
            wall, cpu, answer = _timed(lambda day=day: core.call("in_force_on", {"date": "2020-01-01", "known_on": day}))
            record("in_force_on", f"known_on={day} {phase}", (wall, cpu), str(answer["outcome"]))
        for name, index in core.indexes.items():
            then = index_at(index, day)
            views.setdefault(day, {})[name] = {"states_live": len(then.live), "sighted_later": then.sighted_later,
                                               "withdrawn_then": then.withdrawn_then,
                                               "expressions_text_not_held_then": len(then.unproven_text)}
    for _ in range(2):
        wall, cpu, answer = _timed(lambda: core.call("in_force_on", {"date": "2020-01-01"}))
        record("in_force_on", "default", (wall, cpu), str(answer["outcome"]))
    for query in SEARCHES:
        for mode, extra in [("default", {}), *((f"known_on={d}", {"known_on": d}) for d in days)]:
            wall, cpu, answer = _timed(lambda query=query, extra=extra: core.call("search", {"query": query, **extra}))
            record("search", mode, (wall, cpu), str(answer["outcome"]))
    load_after = os.getloadavg()
    report: dict[str, Any] = {"index_dir": args.index_dir.name, "known_on": days, "works_per_publisher": args.works,
                              "load_before": load_before, "load_after": load_after, "views": views, "operations": {}}
    print(f"load average before {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}, "
          f"after {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    print(f"{'operation':<12} {'mode':<30} {'n':>4} {'wall med':>9} {'wall p95':>9} {'cpu med':>8} {'cpu p95':>8}  outcomes")
    for op, modes in timings.items():
        for mode, values in modes.items():
            walls, cpus = [w for w, _ in values], [c for _, c in values]
            row = {"n": len(values), "wall_ms_median": statistics.median(walls), "wall_ms_p95": _pct(walls, 0.95),
                   "cpu_ms_median": statistics.median(cpus), "cpu_ms_p95": _pct(cpus, 0.95),
                   "outcomes": outcomes[op][mode]}
            report["operations"].setdefault(op, {})[mode] = row
            print(f"{op:<12} {mode:<30} {row['n']:>4} {row['wall_ms_median']:>9.2f} {row['wall_ms_p95']:>9.2f} "
                  f"{row['cpu_ms_median']:>8.2f} {row['cpu_ms_p95']:>8.2f}  "
                  + ", ".join(f"{k} {v}" for k, v in sorted(row["outcomes"].items())))
    for day, per in views.items():
        for name, counts in per.items():
            print(f"view {day} {name}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    core.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
