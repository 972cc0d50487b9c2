"""Peak memory of the import and of ``derive verify`` as the corpus grows (issue #13, slope32).

::

    python -m bench.stage_slopes --n 1 4 16 [32] [--out DIR] [--fixtures DIR] [--code DIR]
                                 [--workers 1] [--trace FRAMES] [--keep] [--stages import derive verify]
                                 [--publishers lu-legilux eu-eurlex] [--corpora DIR]

For each N, both fixture corpora are replicated N times *in the published layout*
(:func:`bench.scale.published.replicate_published`, renamed as the scale harness renames), then
per publisher, each in a fresh child process started in ``--code`` (default: this checkout):

- ``import``: :func:`corpus_tree.importer.import_published` of the replicated corpus into a new
  tree (``lex corpus import``);
- ``derive``: :func:`derive.dataset.build_dataset` of that tree, no cache (the dataset verified next);
- ``verify``: :func:`derive.verify.verify_dataset` then :func:`derive.lint.lint_dataset`, as
  ``lex derive verify DATASET --tree TREE`` runs them (``--workers``, default 1: the whole stage in
  one process, so its ``VmHWM`` is the stage's peak; the CLI's default is the machine's cores). Its
  facts split the peak in two: ``rederive_peak_mb`` (``VmHWM`` when the comparison starts) and
  ``compare_lint_peak_mb`` (the peak of the comparison and the lint, ``VmHWM`` reset between them
  through ``/proc/self/clear_refs``; :mod:`bench.derive_rss`'s helpers).

Each child is measured by :func:`bench.scale.measure.run_measured`: its own ``VmHWM`` (read at
its end), CPU seconds (``wait4``: the process and the workers it waited for) and the load average.
Printed: one JSON line per N, publisher and stage, then a table with the growth in MB per replica
between consecutive Ns.

``--corpora DIR``: replicate the full exported corpora under ``DIR`` (``lex-corpus-lu-legilux``,
``lex-corpus-eu-eurlex``) instead of the fixtures, every body of every replica a hard link to the
source's file (``replicate_published(..., perturb=False)``: a copy is gigabytes per replica; ``DIR``
must be on the output's file system). The records are renamed and sealed again as for the fixtures;
the replicas share their bodies' hashes, so the evidence store holds them once and the import
verifies each further replica's bodies as further files of listed hashes.

``--trace FRAMES`` runs the children traced (``PYTHONTRACEMALLOC``; ``VmHWM`` then inflated, not
comparable): a watcher thread takes a ``tracemalloc`` snapshot each time the traced memory passes
10 % above the last one, so the last snapshot is within 10 % of the peak (and one 50 ms poll);
it is grouped by holder (:func:`bench.ingest_holders.holder_of`, the project's packages with
``derive``) and by module, and the growth per replica between the two largest Ns is printed.

Internal: ``python -m bench.stage_slopes _stage {import,derive,verify} --tree T [--src S]
[--dataset D] [--workers W] [--holders FILE]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
STAGES = ("import", "derive", "verify")
CORPORA = {"lu-legilux": "lex-corpus-lu-legilux", "eu-eurlex": "lex-corpus-eu-eurlex"}
#: the packages whose frames name a holder here
PROJECT = ("publishers", "corpus_tree", "legal", "derive", "bench")


# -- the children --------------------------------------------------------------------------------


class PeakWatcher:
    """While tracing: snapshot the traced heap each time it passes ``step`` above the last snapshot."""

    def __init__(self, step: float = 1.10, poll: float = 0.05) -> None:
        self.step, self.poll = step, poll
        self.snapshot: tracemalloc.Snapshot | None = None
        self.level = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> PeakWatcher:
        if tracemalloc.is_tracing():
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.poll):
            current = tracemalloc.get_traced_memory()[0]
            if current > self.level * self.step:
                self.snapshot = None  # the old one's memory is not counted in the next
                self.snapshot = tracemalloc.take_snapshot()
                self.level = current

    def holders(self) -> dict[str, Any]:
        """The last snapshot grouped by holder and by module, with its level and the traced peak."""
        from bench.ingest_holders import holder_of

        if self.snapshot is None:
            return {}
        by_holder: dict[str, int] = {}
        seen: dict[int, str] = {}
        for trace in self.snapshot.traces._traces:  # type: ignore[attr-defined]  # raw: most recent frame first
            key = seen.get(id(trace[2]))
            if key is None:
                key = seen[id(trace[2])] = holder_of(trace[2], PROJECT)
            by_holder[key] = by_holder.get(key, 0) + trace[1]
        by_module: dict[str, int] = {}
        for key, size in by_holder.items():
            module = key.rsplit(":", 1)[0]
            by_module[module] = by_module.get(module, 0) + size
        return {"snapshot_current": self.level, "traced_peak": tracemalloc.get_traced_memory()[1],
                "holders": by_holder, "modules": by_module}


class SinkWatcher:
    """Untraced, in this process: at each new high of ``VmRSS`` (polled every ``poll`` s), what the
    derivation's Parquet sinks buffer (rows, JSONL bytes of the row group being gathered), what Arrow's
    memory pool has allocated, and the gap and error lists' lengths (``at_peak``)."""

    def __init__(self, poll: float = 0.05) -> None:
        self.poll = poll
        self.at_peak: dict[str, Any] = {}
        self.assemblers: list[Any] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> SinkWatcher:
        import derive.dataset as dataset_module

        real = dataset_module._Assembler.__init__
        watched = self.assemblers

        def init(this: Any, *args: Any, **kwargs: Any) -> None:
            real(this, *args, **kwargs)
            watched.append(this)

        self._real = real
        dataset_module._Assembler.__init__ = init  # type: ignore[method-assign]
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        import derive.dataset as dataset_module

        self._stop.set()
        self._thread.join()
        dataset_module._Assembler.__init__ = self._real  # type: ignore[method-assign]

    def _run(self) -> None:
        import pyarrow as pa

        from bench.derive_rss import _status

        high = 0.0
        while not self._stop.wait(self.poll):
            rss = _status().get("VmRSS") or 0.0
            if rss <= high or not self.assemblers:
                continue
            high = rss
            a = self.assemblers[-1]
            sinks = {name: [getattr(a, name).rows, round(getattr(a, name).bytes / 2**20, 1)]
                     for name in ("parquet", "states", "events", "visibility")}
            self.at_peak = {"rss_mb": rss, "arrow_mb": round(pa.total_allocated_bytes() / 2**20, 1),
                            "sinks_rows_jsonl_mb": sinks, "gaps": len(a.gaps), "errors": len(a.errors)}


def stage(name: str, tree: Path, src: Path | None, dataset: Path | None, workers: int) -> dict[str, Any]:
    """Run one stage in this process; its facts."""
    if name == "import":
        from corpus_tree.importer import import_published

        assert src is not None
        report = import_published(src, tree)
        return {"works": report.works, "records": report.records_verified, "bodies_added": report.bodies_added,
                "held_elsewhere": report.bodies_held_elsewhere}
    from corpus_tree import CorpusTree

    assert dataset is not None
    if name == "derive":
        from derive.dataset import build_dataset

        built = build_dataset(CorpusTree.open(tree), dataset, use_cache=False, workers=workers)
        return {"works": built.works, "versions": built.versions, "provisions": built.provisions}
    import derive.verify as verify_module
    from bench.derive_rss import _reset_peak, _status
    from derive.lint import lint_dataset

    phases: dict[str, float | None] = {}
    compare = verify_module.compare_dirs

    def marked(expected: Path, actual: Path) -> verify_module.VerifyReport:
        phases["rederive_peak_mb"] = _status().get("VmHWM")  # the re-derivation's peak (and start-up's)
        _reset_peak()  # from here: the comparison's and the lint's own peak
        return compare(expected, actual)

    verify_module.compare_dirs = marked  # type: ignore[assignment]
    with SinkWatcher() as sinks:
        verified = verify_module.verify_dataset(dataset, CorpusTree.open(tree), workers=workers)
    phases["at_rss_peak"] = sinks.at_peak
    lint_dataset(dataset)
    phases["compare_lint_peak_mb"] = _status().get("VmHWM")
    return {"ok": verified.ok, "line": verified.line(), "phases": phases}


def child(argv: list[str]) -> None:
    from bench.scale.stages import vm_hwm_kb

    parser = argparse.ArgumentParser(prog="python -m bench.stage_slopes _stage")
    parser.add_argument("stage", choices=STAGES)
    parser.add_argument("--tree", type=Path, required=True)
    parser.add_argument("--src", type=Path, default=None)
    parser.add_argument("--dataset", type=Path, default=None)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--holders", type=Path, default=None, help="traced: write the peak's holders here")
    args = parser.parse_args(argv)
    with PeakWatcher() as watcher:
        facts = stage(args.stage, args.tree, args.src, args.dataset, args.workers)
    if args.holders is not None and tracemalloc.is_tracing():
        args.holders.write_text(json.dumps(watcher.holders(), sort_keys=True))
    facts["vm_hwm_kb"] = vm_hwm_kb()
    rederive = facts.get("phases", {}).get("rederive_peak_mb")
    if rederive is not None and facts["vm_hwm_kb"] is not None:  # the high-water mark was reset after it
        facts["vm_hwm_kb"] = max(facts["vm_hwm_kb"], round(rederive * 1024))
    print(json.dumps(facts, sort_keys=True))
    if facts.get("ok") is False:
        raise SystemExit(3)  # as ``lex derive verify``


# -- the parent ----------------------------------------------------------------------------------


def measure_n(n: int, out: Path, fixtures: Path, code: Path, workers: int, trace: int, keep: bool,
              stages: tuple[str, ...] = STAGES, publishers: tuple[str, ...] = tuple(CORPORA),
              perturb: bool = True) -> list[dict[str, Any]]:
    """Replicate, then import, derive and verify each publisher at ``n`` (``stages``: these only; the
    import and the derivation run anyway when a later stage needs their output); one row per stage.
    ``perturb=False``: the bodies are hard links (``--corpora``)."""
    from bench.scale.measure import run_measured
    from bench.scale.published import replicate_published

    run = out / f"n{n}"
    if run.exists():
        shutil.rmtree(run)
    run.mkdir(parents=True)
    log = out / "stage_slopes.log"
    rows = []
    env_trace = {"PYTHONTRACEMALLOC": str(trace)} if trace else {}
    for publisher in publishers:
        corpus = CORPORA[publisher]
        started = time.perf_counter()
        counts = replicate_published(fixtures / corpus, run / "published" / corpus, n, perturb=perturb)
        print(json.dumps({"n": n, "publisher": publisher, "replicated": counts,
                          "replicate_s": round(time.perf_counter() - started, 1)}), flush=True)
        tree, dataset = run / f"tree-{publisher}", run / f"dataset-{publisher}"
        for name in STAGES[:max(STAGES.index(s) for s in stages) + 1]:
            holders = run / f"holders-{publisher}-{name}.json"
            args = [sys.executable, "-m", "bench.stage_slopes", "_stage", name, "--tree", str(tree),
                    "--src", str(run / "published" / corpus), "--dataset", str(dataset),
                    "--workers", str(workers), "--holders", str(holders)]
            traced = name != "derive" and name in stages
            with _env(PYTHONPATH=str(code), **(env_trace if traced else {})):
                measured = run_measured(name, args, log, code)
            row = {"n": n, "publisher": publisher, "stage": name, "vm_hwm_mb": round(measured.peak_rss_mb, 1),
                   "cpu_s": round(measured.cpu_s, 2), "wall_s": round(measured.wall_s, 1),
                   "load": [round(measured.load_before[0], 2), round(measured.load_after[0], 2)],
                   "traced": bool(trace) and traced, "facts": measured.facts}
            if holders.exists():
                row["holders_file"] = str(holders)
            if name in stages:
                print(json.dumps(row, sort_keys=True), flush=True)
                rows.append(row)
        shutil.rmtree(run / "published" / corpus)
    if not keep:
        for path in run.iterdir():
            if path.is_dir():
                shutil.rmtree(path)
    return rows


class _env:
    """Set environment variables for the children started inside the block."""

    def __init__(self, **values: str) -> None:
        self.values, self.saved = values, {k: os.environ.get(k) for k in values}

    def __enter__(self) -> None:
        os.environ.update(self.values)

    def __exit__(self, *exc: object) -> None:
        for key, value in self.saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def table(rows: list[dict[str, Any]]) -> str:
    """Markdown: per stage and publisher, VmHWM, MB per replica since the previous N, CPU, load."""
    lines = ["| stage | publisher | N | VmHWM MB | MB per replica | CPU s | load (1 min) |",
             "|---|---|---:|---:|---:|---:|---|"]
    for name in STAGES:
        for publisher in CORPORA:
            mine = sorted((r for r in rows if r["stage"] == name and r["publisher"] == publisher),
                          key=lambda r: r["n"])
            previous = None
            for r in mine:
                slope = "" if previous is None else \
                    f"{(r['vm_hwm_mb'] - previous['vm_hwm_mb']) / (r['n'] - previous['n']):+.2f}"
                lines.append(f"| {name} | {publisher} | {r['n']} | {r['vm_hwm_mb']:.1f} | {slope} | "
                             f"{r['cpu_s']:.1f} | {r['load'][0]:.1f}–{r['load'][1]:.1f} |")
                previous = r
    return "\n".join(lines)


def holder_growth(rows: list[dict[str, Any]], top: int) -> None:
    """Between the two largest traced Ns: the growth of each stage's peak, by module and by holder."""
    from bench.ingest_holders import growth

    traced = [r for r in rows if r.get("holders_file")]
    ns = sorted({r["n"] for r in traced})
    if len(ns) < 2:
        return
    small, large = ns[-2], ns[-1]
    for name in ("import", "verify"):
        for publisher in CORPORA:
            pair = [next((r for r in traced if (r["n"], r["stage"], r["publisher"]) == (k, name, publisher)), None)
                    for k in (small, large)]
            if pair[0] is None or pair[1] is None:
                continue
            a, b = (json.loads(Path(r["holders_file"]).read_text()) for r in pair)
            if not a or not b:
                continue
            per = large - small
            print(json.dumps({
                "growth": f"N {small} -> {large}", "stage": name, "publisher": publisher,
                "snapshot_mb": [round(a["snapshot_current"] / 2**20, 1), round(b["snapshot_current"] / 2**20, 1)],
                "traced_peak_mb": [round(a["traced_peak"] / 2**20, 1), round(b["traced_peak"] / 2**20, 1)],
                "mb_per_replica": round((b["snapshot_current"] - a["snapshot_current"]) / per / 2**20, 3),
                "modules": [[k, round(v, 3)] for k, v in growth(a["modules"], b["modules"], per)[:top]],
                "holders": [[k, round(v, 3)] for k, v in growth(a["holders"], b["holders"], per)[:top]],
            }, sort_keys=True), flush=True)


def main(argv: list[str]) -> None:
    if argv and argv[0] == "_stage":
        child(argv[1:])
        return
    from bench.ingest_memory import watched_parser
    from bench.scale.__main__ import default_fixtures

    parser = watched_parser("python -m bench.stage_slopes", __doc__, "bench/out/stage_slopes")  # --n --out --fixtures
    parser.set_defaults(n=[1, 4, 16])
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose stages are measured")
    parser.add_argument("--workers", type=int, default=1, help="derive and verify processes (default 1)")
    parser.add_argument("--trace", type=int, default=0, metavar="FRAMES",
                        help="trace import and verify (frames per allocation); VmHWM then not comparable")
    parser.add_argument("--top", type=int, default=12, help="holders printed per traced stage")
    parser.add_argument("--keep", action="store_true", help="keep each N's trees and datasets")
    parser.add_argument("--stages", nargs="+", choices=STAGES, default=list(STAGES), help="default: all three")
    parser.add_argument("--publishers", nargs="+", choices=list(CORPORA), default=list(CORPORA))
    parser.add_argument("--corpora", type=Path, default=None,
                        help="replicate the full exported corpora in DIR (bodies hard-linked), not the fixtures")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    fixtures = (args.corpora or args.fixtures or default_fixtures()).resolve()
    rows = [row for n in sorted(set(args.n))
            for row in measure_n(n, out, fixtures, args.code.resolve(), args.workers, args.trace, args.keep,
                                 tuple(args.stages), tuple(args.publishers), perturb=args.corpora is None)]
    (out / "stage_slopes.json").write_text(json.dumps(rows, indent=1, sort_keys=True))
    print(table(rows))
    holder_growth(rows, args.top)


if __name__ == "__main__":
    main(sys.argv[1:])
