"""Synthetic hybrid comparison reports, signed, for gate tests."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hybrid.gate import BENCHMARK_KIND, HYBRID_POLICY
from release.keys import KeySigner
from release.report import bind, build_report, sign_report

PASSING: dict[str, str] = {
    "exact_regressions": "0", "negative_regressions": "0", "gap_regressions": "0",
    "temporal_leakage_failures": "0", "conceptual_ndcg_ratio": "1.15", "ndcg_ratio": "1.01",
    "latency_p95_ms": "80", "hybrid_memory_mib": "150", "process_rss_peak_mib": "400",
}


def report(subjects: Mapping[str, str], encoder: Mapping[str, Any], **changes: str) -> dict[str, Any]:
    metrics = {**PASSING, **changes}
    return build_report(bind(subjects=subjects), metrics, created_at="2026-08-22T00:00:00Z", runner="tests",
                        policy=HYBRID_POLICY, context={"benchmark": BENCHMARK_KIND, "encoder": dict(encoder)})


def signed(path: Path, document: Mapping[str, Any], signer: KeySigner) -> Path:
    path.write_bytes(sign_report(document, [signer]).to_bytes())
    return path
