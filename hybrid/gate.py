"""The activation gate of the hybrid lane: a signed comparison report for the exact artifacts.

Hybrid retrieval is switched on only by evidence: a ``lex-retrieval-benchmark/1`` report whose
``context.benchmark`` is ``hybrid-retrieval``, signed by a pinned trust root, bound (``bound.subjects``)
to the SHA-256 of exactly the mounted index files, their vectors and manifests, and the encoder's
weights and engine, and whose metrics pass :data:`HYBRID_POLICY` — the verifier's policy, never
the thresholds written in the report:

| metric | gate | meaning |
|---|---|---|
| ``exact_regressions`` | = 0 | exact-identifier cases keyword passes and hybrid fails |
| ``negative_regressions`` | = 0 | negative (no-answer) cases keyword passes and hybrid fails |
| ``gap_regressions`` | = 0 | gap cases keyword passes and hybrid fails |
| ``temporal_leakage_failures`` | = 0 | hybrid hits outside ``as_of`` or forbidden |
| ``conceptual_ndcg_ratio`` | ≥ 1.10 | hybrid / keyword nDCG@10 over conceptual cases |
| ``ndcg_ratio`` | ≥ 0.98 | hybrid / keyword nDCG@10 over all cases |
| ``latency_p95_ms`` | ≤ 250 | hybrid, in process, nearest rank |
| ``hybrid_memory_mib`` | ≤ 512 | resident memory added by the encoder, the vectors and the run |
| ``process_rss_peak_mib`` | ≤ 1536 | peak resident memory of the process (75 % of a 2 GiB box) |

:func:`check_report` returns the typed reason and details of a refusal, or ``None``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from legal.errors import ReleaseError
from release.keys import TrustStore
from release.report import GatePolicy, GateRule, evaluate_gates, failed_gates, verify_report

BENCHMARK_KIND = "hybrid-retrieval"
#: Names of the encoder's files among the bound subjects.
ENCODER_WEIGHTS_SUBJECT = "encoder/weights"
ENCODER_ENGINE_SUBJECT = "encoder/engine"

HYBRID_RULES: tuple[GateRule, ...] = (
    GateRule("exact_regressions", "==", Decimal("0")),
    GateRule("negative_regressions", "==", Decimal("0")),
    GateRule("gap_regressions", "==", Decimal("0")),
    GateRule("temporal_leakage_failures", "==", Decimal("0")),
    GateRule("conceptual_ndcg_ratio", ">=", Decimal("1.10")),
    GateRule("ndcg_ratio", ">=", Decimal("0.98")),
    GateRule("latency_p95_ms", "<=", Decimal("250")),
    GateRule("hybrid_memory_mib", "<=", Decimal("512")),
    GateRule("process_rss_peak_mib", "<=", Decimal("1536")),
)
HYBRID_POLICY = GatePolicy(HYBRID_RULES)


@dataclass(frozen=True)
class Refusal:
    reason: str
    details: tuple[str, ...]


def gate_details(gates: Sequence[Mapping[str, Any]]) -> list[str]:
    """Human-readable failing gates: ``conceptual_ndcg_ratio 1.02 (needs >= 1.1)``."""
    failed = set(failed_gates(gates))
    return [f"{g['name']} {g['value'] if g['value'] is not None else 'missing'} "
            f"(needs {g['comparison']} {g['threshold']})" for g in gates if g["name"] in failed]


def decide(metrics: Mapping[str, str], policy: GatePolicy = HYBRID_POLICY) -> tuple[bool, list[dict[str, Any]]]:
    """Evaluate the hybrid gates over a report's metrics: (passed, gate rows)."""
    gates = evaluate_gates(metrics, policy)
    return not failed_gates(gates), gates


def check_report(path: Path | None, trust: TrustStore | None, expected_subjects: Mapping[str, str],
                 encoder: Mapping[str, Any], policy: GatePolicy = HYBRID_POLICY) -> Refusal | None:
    """Why the signed report at ``path`` does not activate hybrid for these artifacts (``None``: it does)."""
    if path is None or not path.is_file():
        return Refusal("benchmark_missing", ("no signed hybrid benchmark report is configured",))
    if trust is None:
        return Refusal("benchmark_invalid", ("no trust root is configured to verify the report",))
    try:
        verified = verify_report(path, trust)
    except ReleaseError as exc:
        return Refusal("benchmark_invalid", (f"{exc.code}: {exc.message}",))
    report = verified.report
    context = report.get("context")
    if not isinstance(context, dict) or context.get("benchmark") != BENCHMARK_KIND:
        return Refusal("benchmark_invalid", (f"the report is not a {BENCHMARK_KIND} report",))
    bound = dict(report["bound"].get("subjects", {}))
    if bound != dict(expected_subjects):
        names = sorted(n for n in set(bound) | set(expected_subjects) if bound.get(n) != expected_subjects.get(n))
        return Refusal("benchmark_identity_mismatch", tuple(f"{n}: measured artifact differs" for n in names))
    if context.get("encoder") != dict(encoder):
        return Refusal("benchmark_identity_mismatch", ("encoder: the report measured another encoder",))
    passed, gates = decide(report["metrics"], policy)
    if not passed or report.get("passed") is not True:
        return Refusal("benchmark_gate_failed", tuple(gate_details(gates)) or ("report.passed is false",))
    return None
