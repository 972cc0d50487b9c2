"""What a first ingest's commit holds, against the ingest's peak (issue #13, ADR 0058).

::

    python -m bench.commit_memory --n 4 16 [--out DIR] [--tracemalloc]

Runs :mod:`bench.ingest_memory`'s fresh ingest and re-ingest of the scale harness's replay, each
child started through this module's probe, which watches every commit of :mod:`corpus_tree.txn`
(``_commit``: the journal planned, applied, marked committed) and prints, per N, mode and commit:

- ``files``, ``ops``, ``new_dirs``, ``blobs``: what the journal lists;
- ``hwm_enter_mb`` → ``hwm_exit_mb``: the process's ``VmHWM`` as the commit starts and ends (a
  commit that does not raise it does not set the ingest's peak RSS), and ``rss_enter_mb``;
- with ``--tracemalloc`` (then the ``VmHWM`` figures are inflated by the tracing): ``peak_before_mb``
  (the traced peak of the publisher's ingest up to the commit), ``current_enter_mb``,
  ``journal_mb`` (what the planned journal — its ops and directory lists — holds: the traced
  memory ``_plan`` allocates and returns) and ``commit_peak_mb`` (the traced peak from the commit's
  start to its end). The publisher's ``traced_peak_mb`` that :mod:`bench.ingest_memory` prints is
  then the peak from its commit's start only.

A re-ingest that changes nothing makes no commit (``Stage.commit`` returns before ``_commit``).
Internal: ``python -m bench.commit_memory _probe --log FILE -- <the ingest child's command>``.
"""

from __future__ import annotations

import json
import sys
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _status() -> dict[str, float]:
    out: dict[str, float] = {}
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmHWM", "VmRSS"):
                out[key] = round(int(value.split()[0]) / 1024, 2)
    return out


def _mb(size: int) -> float:
    return round(size / 2**20, 2)


def probe(log: Path, ingest_argv: list[str]) -> None:
    """Run the ingest child ``ingest_argv`` with ``txn._commit`` and ``txn._plan`` watched."""
    import bench.ingest_memory as ingest_memory
    from corpus_tree import txn

    commit, plan = txn._commit, txn._plan
    facts: dict[str, Any] = {}

    def watched_plan(*args: Any, **kwargs: Any) -> Any:
        before = tracemalloc.get_traced_memory()[0] if tracemalloc.is_tracing() else 0
        journal = plan(*args, **kwargs)
        facts.update(ops=journal["files"], new_dirs=journal["dirs"],
                     blob_dirs=len(journal["blob_dirs"]))
        if tracemalloc.is_tracing():
            facts["journal_mb"] = _mb(tracemalloc.get_traced_memory()[0] - before)
        return journal

    def watched_commit(root: Any, evidence: Any, files: Any, blobs: Any, *args: Any, **kwargs: Any) -> Any:
        facts.clear()
        status = _status()
        facts.update(files=len(files), blobs=len(blobs), rss_enter_mb=status["VmRSS"],
                     hwm_enter_mb=status["VmHWM"])
        if tracemalloc.is_tracing():
            current, peak = tracemalloc.get_traced_memory()
            facts.update(current_enter_mb=_mb(current), peak_before_mb=_mb(peak))
            tracemalloc.reset_peak()
        report = commit(root, evidence, files, blobs, *args, **kwargs)
        facts["hwm_exit_mb"] = _status()["VmHWM"]
        if tracemalloc.is_tracing():
            facts["commit_peak_mb"] = _mb(tracemalloc.get_traced_memory()[1])
        with log.open("a", encoding="utf-8") as out:
            out.write(json.dumps({"argv": ingest_argv, **facts}, sort_keys=True) + "\n")
        return report

    txn._commit, txn._plan = watched_commit, watched_plan  # type: ignore[assignment]
    ingest_memory.main(ingest_argv)


def main(argv: list[str]) -> None:
    import bench.ingest_memory as ingest_memory

    if ingest_memory.run_probe(argv, "python -m bench.commit_memory", probe):
        return
    from bench.scale.__main__ import default_fixtures
    from bench.scale.corpus import prepare_base

    parser = ingest_memory.watched_parser("python -m bench.commit_memory", __doc__, "bench/out/commit_memory")
    parser.add_argument("--tracemalloc", action="store_true", help="trace the children (VmHWM then inflated)")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    prepare_base((args.fixtures or default_fixtures()).resolve(), out / "base")
    log = out / "commits.jsonl"
    for n in args.n:
        log.unlink(missing_ok=True)
        wrap = [sys.executable, "-m", "bench.commit_memory", "_probe", "--log", str(log), "--"]
        ingest_memory.measure(n, out, out / "base", ROOT, trace=args.tracemalloc, keep=False, wrap=wrap)
        for line in log.read_text(encoding="utf-8").splitlines() if log.exists() else []:
            event = json.loads(line)
            argv_of = event.pop("argv")
            mode = ingest_memory.MODES["--reingest" in argv_of]
            print(json.dumps({"commit": True, "n": n, "mode": mode, **event}, sort_keys=True), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
