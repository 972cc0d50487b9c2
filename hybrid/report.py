"""The keyword-versus-hybrid comparison report that the hybrid gate reads.

:func:`comparison_report` turns two runs of the retrieval benchmark over the same judgments,
indexes, vectors and encoder (keyword mode, then hybrid mode with the lanes attached for
measurement) into a ``lex-retrieval-benchmark/1`` document (:mod:`release.report`):

- ``bound.subjects``: every index file, vectors file and manifest, and the encoder's weights and
  engine (:func:`hybrid.activate.artifact_subjects`);
- ``metrics``: the gated ones of :data:`hybrid.gate.HYBRID_POLICY`, plus descriptive
  ``keyword_*`` / ``hybrid_*`` values (overall, conceptual, French-language and bilingual cases);
- ``gates`` / ``passed``: evaluated under the hybrid policy; ``context.decision`` repeats the
  outcome in words (``activate`` and the failing gates);
- ``context``: protocol, judgments digest, encoder identity, vectors summary, memory and
  latency details, both modes' per-category tables, and a per-case comparison.
"""

from __future__ import annotations

import os
import platform
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hybrid.gate import BENCHMARK_KIND, HYBRID_POLICY, decide, gate_details
from release.benchmark.benchmark import BenchmarkRun, IndexFile, aggregate_json, case_json
from release.benchmark.judgments import Judgments, describe
from release.benchmark.scoring import CaseScore, aggregate
from release.report import bind, build_report, metric

RUNNER = "python -m bench.bench_hybrid"
NO_REGRESSION_CATEGORIES = ("exact", "negative", "gap")
_STATUS_LINE = re.compile(r"^(VmRSS|VmHWM):\s+(\d+) kB$", re.M)


@dataclass(frozen=True)
class Memory:
    """Resident memory (bytes) before the lanes were attached, after the hybrid run, and the peak."""

    rss_before: int
    rss_after: int
    rss_peak: int
    lanes_bytes: int

    @property
    def added(self) -> int:
        return max(0, self.rss_after - self.rss_before)


def process_memory() -> tuple[int, int]:
    """``(current RSS, peak RSS)`` of this process in bytes (Linux ``/proc``; zeros elsewhere)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            found = dict(_STATUS_LINE.findall(fh.read()))
    except OSError:
        return 0, 0
    return int(found.get("VmRSS", 0)) * 1024, int(found.get("VmHWM", 0)) * 1024


def _mib(value: int) -> str:
    return metric(value / (1024 * 1024), places=1)


def regressions(keyword: Sequence[CaseScore], hybrid: Sequence[CaseScore], category: str) -> list[str]:
    """Case ids of ``category`` that keyword passes and hybrid does not."""
    k = {s.case_id: s for s in keyword if s.category == category}
    return [s.case_id for s in hybrid if s.case_id in k and k[s.case_id].passed and not s.passed]


def _subset_ndcg(scores: Sequence[CaseScore], ids: set[str]) -> float | None:
    return aggregate([s for s in scores if s.case_id in ids]).ndcg_at_10


def _ratio(a: float | None, b: float | None) -> str | None:
    if a is None or b is None or b <= 0:
        return None
    return metric(a / b)


def comparison_metrics(keyword: BenchmarkRun, hybrid: BenchmarkRun, judgments: Judgments,
                       memory: Memory) -> dict[str, str]:
    out: dict[str, str] = {"cases": metric(len(hybrid.scores), 0),
                           "cases_unavailable": metric(sum(1 for r in hybrid.runs if r.status == "unavailable"), 0)}
    if hybrid.status != "ok" or keyword.status != "ok":
        return out
    french = {c.id for c in judgments.cases if c.filters.language == "fr" or c.category == "bilingual"}
    values: dict[str, str | None] = {}
    for name in NO_REGRESSION_CATEGORIES:
        values[f"{name}_regressions"] = metric(len(regressions(keyword.scores, hybrid.scores, name)), 0)
    values["temporal_leakage_failures"] = metric(hybrid.overall.temporal_leakage_failures, 0)
    kc, hc = keyword.per_category.get("conceptual"), hybrid.per_category.get("conceptual")
    values["conceptual_ndcg_ratio"] = _ratio(hc.ndcg_at_10 if hc else None, kc.ndcg_at_10 if kc else None)
    values["ndcg_ratio"] = _ratio(hybrid.overall.ndcg_at_10, keyword.overall.ndcg_at_10)
    for mode, run in (("keyword", keyword), ("hybrid", hybrid)):
        agg = run.overall
        cat = run.per_category.get("conceptual")
        for name, value in (("ndcg_at_10", agg.ndcg_at_10), ("mrr", agg.mrr), ("recall_at_10", agg.recall_at_10),
                            ("conceptual_ndcg_at_10", cat.ndcg_at_10 if cat else None),
                            ("french_bilingual_ndcg_at_10", _subset_ndcg(run.scores, french)),
                            ("no_hit_accuracy", agg.no_hit_accuracy),
                            ("exact_first_accuracy", agg.exact_first_accuracy)):
            values[f"{mode}_{name}"] = metric(value) if value is not None else None
        values[f"{mode}_cases_passed"] = metric(agg.passed, 0)
        values[f"{mode}_latency_p50_ms"] = metric(agg.latency_p50_ms, 3) if agg.latency_p50_ms is not None else None
    values["latency_p95_ms"] = (metric(hybrid.overall.latency_p95_ms, 3)
                                if hybrid.overall.latency_p95_ms is not None else None)
    values["keyword_latency_p95_ms"] = (metric(keyword.overall.latency_p95_ms, 3)
                                        if keyword.overall.latency_p95_ms is not None else None)
    values["hybrid_memory_mib"] = _mib(memory.added)
    values["process_rss_peak_mib"] = _mib(memory.rss_peak)
    out.update({k: v for k, v in values.items() if v is not None})
    return out


def case_comparison(keyword: Sequence[CaseScore], hybrid: Sequence[CaseScore]) -> list[dict[str, Any]]:
    k = {s.case_id: s for s in keyword}
    rows = []
    for s in hybrid:
        base = k.get(s.case_id)
        rows.append({"id": s.case_id, "category": s.category,
                     "keyword": case_json(base) if base is not None else None, "hybrid": case_json(s)})
    return rows


def comparison_report(keyword: BenchmarkRun, hybrid: BenchmarkRun, judgments: Judgments, files: Sequence[IndexFile],
                      subjects: Mapping[str, str], encoder: Mapping[str, Any], vectors: Sequence[Mapping[str, Any]],
                      memory: Memory, *, created_at: str, extra: Mapping[str, Any] | None = None,
                      runner: str = RUNNER) -> dict[str, Any]:
    metrics = comparison_metrics(keyword, hybrid, judgments, memory)
    passed, gates = decide(metrics, HYBRID_POLICY)
    context: dict[str, Any] = {
        "benchmark": BENCHMARK_KIND,
        "decision": {"activate": passed, "failed_gates": gate_details(gates),
                     "rule": "hybrid mounts only when every gate of hybrid.gate.HYBRID_POLICY passes; "
                             "keyword stays the default either way"},
        "protocol": {"operation": "search", "limit": 10, "modes": ["keyword", "hybrid"],
                     "ranking_unit": "distinct work", "merge": "as lex bench retrieval",
                     "regression_categories": list(NO_REGRESSION_CATEGORIES),
                     "french_bilingual_cases": "language filter fr, or category bilingual",
                     "memory": "resident set size of the benchmark process (/proc/self/status)"},
        "judgments": dict(describe(judgments)),
        "encoder": dict(encoder),
        "indexes": [f.to_json() for f in files],
        "vectors": [dict(v) for v in vectors],
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "machine": platform.machine()},
        "memory": {"rss_before_lanes_bytes": memory.rss_before, "rss_after_hybrid_run_bytes": memory.rss_after,
                   "rss_peak_bytes": memory.rss_peak, "lanes_bytes": memory.lanes_bytes},
        "cold_query_ms": {"keyword": metric(keyword.cold_query_ms, 3), "hybrid": metric(hybrid.cold_query_ms, 3)},
        "hybrid_status": hybrid.status,
        "hybrid_unavailable_reason": hybrid.unavailable_reason,
        "per_category": {"keyword": {c: aggregate_json(a) for c, a in keyword.per_category.items()},
                         "hybrid": {c: aggregate_json(a) for c, a in hybrid.per_category.items()}},
        "regressions": {c: regressions(keyword.scores, hybrid.scores, c) for c in NO_REGRESSION_CATEGORIES},
        "hybrid_failures": [{"id": s.case_id, "reasons": list(s.failures)} for s in hybrid.scores if s.failures],
        "cases": case_comparison(keyword.scores, hybrid.scores),
        **dict(extra or {}),
    }
    return build_report(bind(subjects=subjects), metrics, created_at=created_at, runner=runner,
                        policy=HYBRID_POLICY, context=context)
