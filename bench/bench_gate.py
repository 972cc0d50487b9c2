"""Benchmark: the release gate's retrieval run in a fresh process, as the release stage runs it.

Run::

    .venv/bin/python -m bench.bench_gate --index-dir DIR --judgments evals/full_judgments_tuning.json \\
        [--runs 3] [--hits OUT.json] [--profile OUT.prof] [--alone]

Each run is a fresh Python process (the release stage's is a fresh process too) that imports the
legal core and the benchmark, mounts every ``<publisher>.sqlite`` of ``DIR`` (``LegalCore.mount``),
and runs the judged cases as :func:`pipelines.release_stage.benchmark` does
(:func:`release.benchmark.runner.warm_up`, then :func:`~release.benchmark.runner.run_cases`, no snippet cut:
:func:`serve.core.ops.search.without_snippets`; ``--snippets`` cuts them as before) — without hashing
the index files (the release stage passes the hashes it holds). Per run it reports the CPU
seconds (user + system) and wall of each part: ``import``, ``mount`` (the catalogues), ``first``
(the warm-up query: the first search of a process builds its per-index tables), ``cases`` (the
judged queries) and ``total``; the medians are printed. ``--hits`` writes every case's ranked
hits (whole, in order) of the last run, to compare two builds' answers;
``--profile`` writes a ``cProfile`` of the last run's mount, warm-up and cases.

``--alone`` answers another question instead of timing: is each publisher's section of a fanned-out
answer the answer of that publisher's index mounted alone? It runs every case over both indexes,
then over each index alone (``LegalCore.mount(..., publishers=(p,))``), and lists per publisher the
cases whose section's hits (work, version, anchor, validity: what scoring reads) differ. A case
listed there is why the gate cannot keep a per-index result keyed by that index's bytes: the other
index decides part of it (the plans' named acts and transposing laws, a strong publisher
suppressing the others, the stemmed or relaxed stage chosen over the whole answer, the routing).

The script runs with whatever code is on ``PYTHONPATH`` (run it as a file with another tree's
path first to measure that tree's code: paired runs of two commits alternate them).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def child(index_dir: Path, judgments: Path, hits: Path | None, profile: Path | None,
          snippets: bool = False) -> dict[str, Any]:
    """(In the fresh process.) One run: the parts' CPU and wall seconds; ``snippets``: the hits'
    snippets cut as a served search cuts them (the gate cuts none: :func:`serve.core.ops.search.without_snippets`)."""
    parts: dict[str, Any] = {}
    cpu, wall = _cpu(), time.monotonic()

    def mark(name: str) -> None:
        nonlocal cpu, wall
        now, at = _cpu(), time.monotonic()
        parts[name] = {"cpu_s": round(now - cpu, 3), "wall_s": round(at - wall, 3)}
        cpu, wall = now, at

    start_cpu, start_wall = cpu, wall
    from release.benchmark import load_judgments
    from release.benchmark.runner import LIMIT, run_cases, warm_up
    from serve.core import LegalCore
    from serve.core.ops.search import without_snippets

    mark("import")
    profiler = None
    if profile is not None:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    loaded = load_judgments(judgments)
    with LegalCore.mount(index_dir) as core, contextlib.nullcontext() if snippets else without_snippets():
        mark("mount")
        warm_up(core, "keyword")
        mark("first")
        runs = run_cases(core, loaded.cases, "keyword", limit=LIMIT)
        mark("cases")
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(str(profile))
    parts["total"] = {"cpu_s": round(_cpu() - start_cpu, 3), "wall_s": round(time.monotonic() - start_wall, 3)}
    if hits is not None:
        hits.write_text(json.dumps({r.case_id: [dict(h) for h in r.hits] for r in runs}, indent=1, sort_keys=True,
                                   default=str))
    return parts


def _sections(answer: Any) -> dict[str, list[Any]]:
    """``{publisher: [scoring.Hit, ...]}`` of an answer's publisher sections."""
    from release.benchmark.runner import sections
    from release.benchmark.scoring import Hit

    return {str(s.get("publisher")): [Hit.of(h) for h in s.get("hits") or []] for s in sections(answer)}


def alone_differences(index_dir: Path, judgments: Path) -> dict[str, list[str]]:
    """Per publisher, the ids of the cases whose section of the fanned-out answer (every index
    mounted) differs from the answer of that publisher's index mounted alone."""
    from release.benchmark import load_judgments
    from release.benchmark.runner import search_args
    from serve.core import LegalCore

    cases = load_judgments(judgments).cases
    with LegalCore.mount(index_dir) as core:
        publishers = core.publishers
        fanned = {c.id: _sections(core.call("search", search_args(c))) for c in cases}
    out: dict[str, list[str]] = {}
    for publisher in publishers:
        with LegalCore.mount(index_dir, publishers=(publisher,)) as core:
            out[publisher] = [c.id for c in cases
                              if _sections(core.call("search", search_args(c))).get(publisher, [])
                              != fanned[c.id].get(publisher, [])]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index-dir", type=Path, required=True)
    parser.add_argument("--judgments", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--hits", type=Path)
    parser.add_argument("--profile", type=Path)
    parser.add_argument("--alone", action="store_true",
                        help="list the cases whose publisher section differs from that index's answer alone")
    parser.add_argument("--snippets", action="store_true",
                        help="cut the hits' snippets as a served search does (the release gate cuts none)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.alone:
        found = alone_differences(args.index_dir, args.judgments)
        print(json.dumps({p: {"differing": len(ids), "cases": ids} for p, ids in found.items()}, indent=1))
        return 0
    if args.child:
        print(json.dumps(child(args.index_dir, args.judgments, args.hits, args.profile, args.snippets)))
        return 0
    samples: list[dict[str, Any]] = []
    for i in range(args.runs):
        last = i == args.runs - 1
        command = [sys.executable, str(Path(__file__).resolve()), "--child", "--index-dir", str(args.index_dir),
                   "--judgments", str(args.judgments)] + (["--snippets"] if args.snippets else [])
        if last and args.hits:
            command += ["--hits", str(args.hits)]
        if last and args.profile:
            command += ["--profile", str(args.profile)]
        out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        samples.append(json.loads(out.strip().splitlines()[-1]))
        print(json.dumps(samples[-1]), flush=True)
    medians = {part: {k: round(statistics.median(s[part][k] for s in samples), 3) for k in ("cpu_s", "wall_s")}
               for part in samples[0]}
    print(json.dumps({"runs": len(samples), "median": medians}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
