"""Orchestration of a scale run: base trees once, then per N a replay child and five stage
children, then growth, table, JSON and plot.

Layout under ``--out`` (default ``bench/out/scale``)::

    scale.json  scale.md  scale.png  scale.log
    work/base/{lu,eu}/     the fixture corpora imported once (kept between runs)
    work/code/             the frozen copy of the code every child runs (bench/scale/snapshot.py)
    work/n<N>/             tree, dataset, index, release, keys of one N (removed unless --keep)
"""

from __future__ import annotations

import os
import platform
import shutil
import sqlite3
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.scale import report
from bench.scale.corpus import prepare_base
from bench.scale.measure import ROOT, Measured, run_measured, stage_command
from bench.scale.server import replay_server
from bench.scale.snapshot import code_digest, snapshot
from bench.scale.stages import STAGES, RunDirs


@dataclass
class Options:
    """What to run: the Ns, the fixtures, an optional subset of works per publisher."""

    ns: list[int]
    out: Path
    fixtures: Path
    works: dict[str, list[str] | None] = field(default_factory=lambda: {"lu-legilux": None, "eu-eurlex": None})
    keep: bool = False
    plot: bool = True
    base: Path | None = None  # where the fixture corpora are imported (default: <out>/work/base)


def run_scale(options: Options) -> dict[str, Any]:
    """Run every N in order; write ``scale.json`` after each N (a partial run keeps its results)."""
    options.out.mkdir(parents=True, exist_ok=True)
    log = options.out / "scale.log"
    started = time.perf_counter()
    base = options.base or options.out / "work" / "base"
    prepare_base(options.fixtures, base)
    code = snapshot(options.out / "work" / "code")
    results: dict[str, Any] = {"schema": "lex-scale-bench/1", "meta": machine() | {"code_digest": code_digest(code)},
                               "setup_import_s": round(time.perf_counter() - started, 3),
                               "works_subset": {k: v for k, v in options.works.items() if v}, "runs": []}
    for n in options.ns:
        results["runs"].append(run_one(n, base, code, options, log))
        finish(results, options)
    return results


def finish(results: dict[str, Any], options: Options) -> None:
    loads = [x for r in results["runs"] for x in (r["load_min"], r["load_max"])]
    results["meta"].update(load_min=min(loads), load_max=max(loads))
    report.render(results, options.out, draw=options.plot)


def run_one(n: int, base: Path, code: Path, options: Options, log: Path) -> dict[str, Any]:
    """Serve N replicas, ingest them, then derive, index, sign and verify — each measured."""
    dirs = RunDirs(options.out / "work" / f"n{n}")
    if dirs.root.exists():
        shutil.rmtree(dirs.root)
    dirs.root.mkdir(parents=True)
    stages: dict[str, Measured] = {}
    with replay_server(base, n, dirs.served, log, options.works, code) as server:
        stages["ingest"] = run_measured("ingest", stage_command("ingest", dirs.root, url=server.url, n=n), log, code)
    for stage in STAGES[1:]:
        stages[stage] = run_measured(stage, stage_command(stage, dirs.root), log, code)
    record = run_record(n, stages, server.served, server.figures)
    if not options.keep:
        shutil.rmtree(dirs.root)
    return record


def run_record(n: int, stages: dict[str, Measured], served: dict[str, Any],
               server_figures: dict[str, Any]) -> dict[str, Any]:
    """One N's figures: sizes, per-stage measurements, totals and index bytes per provision."""
    ingest, index = stages["ingest"].facts, stages["index"].facts
    counts = ingest["manifest_counts"]
    loads = [m.load_before[0] for m in stages.values()] + [m.load_after[0] for m in stages.values()]
    served_counts = {p: {k: v for k, v in c.items() if k != "seeds"} for p, c in served["publishers"].items()}
    return {
        "n": n, "works": counts["works"], "versions": counts["versions"],
        "provisions": index["provisions"], "dataset_provisions": stages["derive"].facts["provisions"],
        "body_bytes": sum(ingest[p]["body_bytes"] for p in ("lu-legilux", "eu-eurlex")),
        "distinct_bodies": counts.get("distinct_bodies_held"),
        "tree_bytes": ingest["output_bytes"], "dataset_bytes": stages["derive"].facts["output_bytes"],
        "index_bytes": index["index_bytes"], "index_text_bytes": index["text_bytes"],
        "distinct_texts": index["texts"],
        "index_bytes_per_provision": _per(index["index_bytes"], index["provisions"]),
        "index_bytes_per_provision_excl_texts": _per(index["index_bytes"] - index["text_bytes"], index["provisions"]),
        "served": served_counts, "replay_server": {**server_figures, "startup_s": served.get("startup_s")},
        "stages": {name: m.to_dict() for name, m in stages.items()},
        "total_wall_s": round(sum(m.wall_s for m in stages.values()), 3),
        "total_cpu_s": round(sum(m.cpu_s for m in stages.values()), 3),
        "max_peak_rss_mb": round(max(m.peak_rss_mb for m in stages.values()), 1),
        "load_min": round(min(loads), 2), "load_max": round(max(loads), 2),
    }


def _per(numerator: float, denominator: float) -> float:
    return round(numerator / denominator, 1) if denominator else 0.0


def machine() -> dict[str, Any]:
    """Where the run happened (no paths): CPUs, versions, commit, start time, load."""
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                text=True, check=False).stdout.strip() or None
    except OSError:
        commit = None
    return {"cpus": os.cpu_count(), "python": platform.python_version(), "sqlite": sqlite3.sqlite_version,
            "platform": platform.platform(terse=True), "commit": commit,
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "load_at_start": [round(x, 2) for x in os.getloadavg()]}
