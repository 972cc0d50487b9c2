"""Benchmark: import + verify of both real fixture corpora into a fresh corpus tree.

Prints, over a few repetitions (median and p95): wall time of the import of both corpora,
of the verification, and of both together, plus their CPU times (less sensitive to a busy
machine); records imported per second; MB of evidence hashed (import + verify) and the
hashing rate of the store (SHA-256 over every stored blob, the code path ``verify`` uses),
per wall second and per CPU second. The machine's load average (``/proc/loadavg``) is
printed before and after.

Targets: whole fixture import + verify < 5 s; hashing >= 500 MB/s.

Usage::

    python -m bench.bench_corpus [--repeat 5] [--no-durable] [--json]

The fixtures are found at ``../shared/fixtures`` from the repository root (or
``$LEX_FIXTURES``), as the tests find them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from corpus_tree import CorpusTree
from corpus_tree.importer import import_published
from corpus_tree.verify import verify_tree
from legal.canonical import hash_file

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(os.environ.get("LEX_FIXTURES", ROOT.parent / "shared" / "fixtures"))
CORPORA = ("lex-corpus-lu-legilux", "lex-corpus-eu-eurlex")


def _loadavg() -> str:
    try:
        return Path("/proc/loadavg").read_text().strip()
    except OSError:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _hash_store(tree: CorpusTree) -> tuple[int, float, float]:
    start, cpu = time.perf_counter(), time.process_time()
    total = 0
    for sha in tree.evidence.iter_hashes():
        actual, size = hash_file(tree.evidence.path_of(sha))
        assert actual == sha
        total += size
    return total, time.perf_counter() - start, time.process_time() - cpu


def run_once(durable: bool) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="bench-corpus-") as tmp:
        target = Path(tmp) / "tree"
        start, cpu0 = time.perf_counter(), time.process_time()
        records = 0
        hashed = 0
        for name in CORPORA:
            report = import_published(FIXTURES / name, target, durable=durable)
            records += report.records_verified
            hashed += report.bytes_hashed
        imported, cpu_imported = time.perf_counter(), time.process_time()
        check = verify_tree(target)
        verified, cpu1 = time.perf_counter(), time.process_time()
        if not check.ok:
            raise SystemExit(f"verify failed: {check.problems[:3]}")
        store_bytes, store_seconds, store_cpu = _hash_store(CorpusTree.open(target))
        return {
            "import_s": imported - start,
            "verify_s": verified - imported,
            "total_s": verified - start,
            "total_cpu_s": cpu1 - cpu0,
            "import_cpu_s": cpu_imported - cpu0,
            "verify_cpu_s": cpu1 - cpu_imported,
            "records": records,
            "records_per_s": records / (imported - start),
            "evidence_mb_hashed": (hashed + check.bytes_hashed) / 1e6,
            "store_mb": store_bytes / 1e6,
            "hash_mb_per_s": store_bytes / 1e6 / store_seconds,
            "hash_mb_per_cpu_s": store_bytes / 1e6 / max(store_cpu, 1e-9),
        }


HIGHER_IS_BETTER = {"records_per_s", "hash_mb_per_s", "hash_mb_per_cpu_s"}


def summarise(runs: list[dict[str, float]]) -> dict[str, Any]:
    """Median and p95 per metric; for rates the p95 is taken on the slow side (5th percentile)."""
    out: dict[str, Any] = {"repetitions": len(runs)}
    for key in runs[0]:
        values = [r[key] for r in runs]
        worst = -_p95([-v for v in values]) if key in HIGHER_IS_BETTER else _p95(values)
        out[key] = {"median": statistics.median(values), "p95": worst}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-durable", action="store_true", help="skip sync(2) barriers (measure CPU cost)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not all((FIXTURES / name / "manifest.json").is_file() for name in CORPORA):
        print(f"fixtures not found under {FIXTURES} (set LEX_FIXTURES)", file=sys.stderr)
        return 2
    load_before = _loadavg()
    runs = [run_once(not args.no_durable) for _ in range(args.repeat)]
    summary = summarise(runs)
    summary["durable"] = not args.no_durable
    summary["load_before"], summary["load_after"] = load_before, _loadavg()
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(f"corpus import + verify, both fixture corpora, {args.repeat} runs, durable={not args.no_durable}"
          f" (p95 of rates = slow side; {os.cpu_count()} CPUs)")
    print(f"  load average before: {summary['load_before']}  after: {summary['load_after']}")
    units = {"import_s": "s", "verify_s": "s", "total_s": "s", "total_cpu_s": "s", "import_cpu_s": "s",
             "verify_cpu_s": "s", "records": "",
             "records_per_s": "rec/s", "evidence_mb_hashed": "MB", "store_mb": "MB", "hash_mb_per_s": "MB/s",
             "hash_mb_per_cpu_s": "MB/s"}
    for key, unit in units.items():
        s = summary[key]
        print(f"  {key:<20} median {s['median']:>9.2f} {unit:<6} p95 {s['p95']:>9.2f} {unit}")
    total = summary["total_s"]["median"]
    rate = summary["hash_mb_per_s"]["median"]
    print(f"  target import+verify < 5 s: {'met' if total < 5 else 'MISSED'} ({total:.2f} s); "
          f"hashing >= 500 MB/s: {'met' if rate >= 500 else 'MISSED'} ({rate:.0f} MB/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
