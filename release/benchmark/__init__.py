"""The retrieval benchmark: judged queries run against the legal core, scored, reported.

Public API:

- :func:`load_judgments` / :class:`Judgments` / :class:`JudgmentsError` — the judgments file
  (``evals/retrieval_judgments.json``, schema ``lex-retrieval-judgments/1``), validated;
- :func:`retrieval_benchmark` — run every case, in ``keyword`` or ``hybrid`` mode, against an
  injected legal core (:class:`BenchmarkCore`, mounted by the caller: release never imports
  ``serve``) and build the signed-report document of :mod:`release.report`, bound to the
  index file digests (and the verified set id);
- :mod:`release.benchmark.metrics` — MRR, recall@10, nDCG@10, percentiles (pure functions);
- :mod:`release.benchmark.scoring` — per-case scoring (ranked works, leakage, no-hit) and
  aggregation per category.

Definitions and the current figures: ``docs/retrieval-benchmark.md``.
"""

from __future__ import annotations

from release.benchmark.benchmark import (
    BenchmarkCore,
    BenchmarkRun,
    benchmark_report,
    retrieval_benchmark,
    run,
)
from release.benchmark.judgments import (
    Case,
    Judgments,
    JudgmentsError,
    load_judgments,
    parse_judgments,
)

__all__ = [
    "BenchmarkCore",
    "BenchmarkRun",
    "Case",
    "Judgments",
    "JudgmentsError",
    "benchmark_report",
    "load_judgments",
    "parse_judgments",
    "retrieval_benchmark",
    "run",
]
