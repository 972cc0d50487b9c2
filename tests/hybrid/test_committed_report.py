"""The committed hybrid comparison report verifies under the committed public key, and says no."""

from __future__ import annotations

import json
from pathlib import Path

from hybrid.gate import BENCHMARK_KIND, decide, gate_details
from release.keys import load_trust_roots
from release.report import verify_report

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_committed_report_is_signed_and_matches_its_json() -> None:
    trust = load_trust_roots([DOCS / "keys" / "hybrid-report.pub.pem"])
    verified = verify_report(DOCS / "hybrid-report.dsse.json", trust)
    assert verified.report == json.loads((DOCS / "hybrid-report.json").read_text(encoding="utf-8"))
    assert verified.report["context"]["benchmark"] == BENCHMARK_KIND


def test_committed_report_decision_is_the_gate_decision() -> None:
    report = json.loads((DOCS / "hybrid-report.json").read_text(encoding="utf-8"))
    passed, gates = decide(report["metrics"])
    assert passed is report["passed"] is report["context"]["decision"]["activate"]
    assert gate_details(gates) == report["context"]["decision"]["failed_gates"]
    assert {"encoder/weights", "encoder/engine", "eu-eurlex.sqlite", "lu-legilux.vectors.npy"} <= set(
        report["bound"]["subjects"])
