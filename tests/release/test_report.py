"""Benchmark reports: shape, gates, binding to artifact identities, signatures."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from legal.canonical import canonical_bytes
from legal.errors import ReleaseError
from release import signatures, verify_artifact_set
from release.keys import KeySigner, TrustStore
from release.report import (
    GatePolicy,
    bind,
    bind_to_verified_set,
    build_report,
    evaluate_gates,
    load_gate_policy,
    metric,
    report_statement,
    sign_report,
    verify_report,
)
from release.verify import VerifiedSet

from .conftest import FIXED_TIME, SignFn, write_build

GOOD = {
    "mrr": "0.81", "recall_at_10": "0.93", "ndcg_at_10": "0.77", "exact_first_accuracy": "1",
    "temporal_leakage_failures": "0", "no_hit_accuracy": "1", "latency_p95_ms": "38.5",
}


def good_metrics(**overrides: str) -> dict[str, str]:
    return {**GOOD, **overrides}


def report_for(bound: dict[str, Any], metrics: dict[str, str] | None = None, **kwargs: Any) -> dict[str, Any]:
    return build_report(bound, metrics or good_metrics(), created_at=FIXED_TIME, runner="tests", **kwargs)


@pytest.fixture()
def verified(build: Path, sign: SignFn, trust: TrustStore) -> VerifiedSet:
    sign(build)
    return verify_artifact_set(build, trust)


def code_of(call: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(ReleaseError) as caught:
        call(*args, **kwargs)
    return caught.value.code


# -- metrics and gates ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.8123456789, "0.812346"), (1.0, "1"), (0, "0"), (250, "250"), (41.25, "41.25"), (Decimal("0.10"), "0.1"),
     (-0.0, "0")],
)
def test_metric_text(value: Any, text: str) -> None:
    assert metric(value) == text


@pytest.mark.parametrize("value", [float("nan"), float("inf"), "abc", True])
def test_metric_refuses_non_numbers(value: Any) -> None:
    assert code_of(metric, value) == "malformed_report"


def test_default_gates_cover_the_named_metrics() -> None:
    names = [rule.metric for rule in GatePolicy().rules]
    assert names == ["mrr", "recall_at_10", "ndcg_at_10", "exact_first_accuracy",
                     "temporal_leakage_failures", "no_hit_accuracy", "latency_p95_ms"]
    assert all(row["passed"] for row in evaluate_gates(GOOD))


@pytest.mark.parametrize(
    ("metric_name", "value"),
    [("mrr", "0.49"), ("recall_at_10", "0.5"), ("ndcg_at_10", "0.1"), ("exact_first_accuracy", "0.99"),
     ("temporal_leakage_failures", "1"), ("no_hit_accuracy", "0.9"), ("latency_p95_ms", "250.001")],
)
def test_each_gate_can_fail(metric_name: str, value: str) -> None:
    rows = {row["name"]: row for row in evaluate_gates(good_metrics(**{metric_name: value}))}
    assert [name for name, row in rows.items() if not row["passed"]] == [metric_name]


def test_boundaries_pass() -> None:
    rows = evaluate_gates(good_metrics(mrr="0.5", latency_p95_ms="250"))
    assert all(row["passed"] for row in rows)


def test_a_missing_metric_fails_its_gate() -> None:
    metrics = good_metrics()
    del metrics["no_hit_accuracy"]
    row = next(r for r in evaluate_gates(metrics) if r["name"] == "no_hit_accuracy")
    assert row == {"name": "no_hit_accuracy", "comparison": ">=", "threshold": "1", "value": None, "passed": False}


def test_thresholds_are_configurable(tmp_path: Path) -> None:
    policy = GatePolicy().with_thresholds({"mrr": "0.9", "latency_p95_ms": 30})
    failed = [row["name"] for row in evaluate_gates(GOOD, policy) if not row["passed"]]
    assert failed == ["mrr", "latency_p95_ms"]
    path = tmp_path / "gates.json"
    path.write_text(json.dumps({"thresholds": {"ndcg_at_10": 0.8}}))
    assert [r["name"] for r in evaluate_gates(GOOD, load_gate_policy(path)) if not r["passed"]] == ["ndcg_at_10"]
    assert code_of(GatePolicy().with_thresholds, {"unknown": "1"}) == "gate_policy_invalid"
    assert code_of(GatePolicy().with_thresholds, {"mrr": "high"}) == "gate_policy_invalid"


def test_report_shape() -> None:
    report = report_for(bind(set_id="a" * 64))
    assert report["schema"] == "lex-retrieval-benchmark/1"
    assert report["passed"] is True
    assert next(g["name"] for g in report["gates"]) == "mrr"
    canonical_bytes(report)  # no floats anywhere
    statement = report_statement(report)
    assert statement["predicateType"] == "https://lex-evidence.dev/retrieval-benchmark/v1"
    assert statement["subject"] == [{"name": "lex-artifact-set", "digest": {"sha256": "a" * 64}}]


def test_a_float_metric_is_refused() -> None:
    assert code_of(report_for, bind(set_id="a" * 64), good_metrics(mrr=0.8)) == "malformed_report"  # type: ignore[arg-type]


# -- sign and verify -----------------------------------------------------------------------


def test_sign_and_verify_bound_to_the_set(verified: VerifiedSet, ed_signer: KeySigner, trust: TrustStore) -> None:
    envelope = sign_report(report_for(bind_to_verified_set(verified)), [ed_signer])
    checked = verify_report(envelope.to_bytes(), trust, expected=verified)
    assert checked.bound == {"set_id": verified.set_id}
    assert checked.key_ids == (ed_signer.key_id,)
    assert len(checked.gates) == 7


def test_bound_by_index_digests(verified: VerifiedSet, ed_signer: KeySigner, trust: TrustStore) -> None:
    bound = bind_to_verified_set(verified, ["indexes/eu-eurlex.sqlite"])
    envelope = sign_report(report_for(bound), [ed_signer])
    assert verify_report(envelope, trust, expected=verified).bound == bound


def test_a_report_for_another_set_is_refused(verified: VerifiedSet, tmp_path: Path, sign: SignFn,
                                            ed_signer: KeySigner, trust: TrustStore) -> None:
    other = write_build(tmp_path / "other", {"x.sqlite": b"other bytes"})
    sign(other)
    envelope = sign_report(report_for(bind_to_verified_set(verify_artifact_set(other, trust))), [ed_signer])
    assert code_of(verify_report, envelope, trust, expected=verified) == "report_for_other_identity"


def test_a_report_for_other_index_bytes_is_refused(verified: VerifiedSet, ed_signer: KeySigner,
                                                   trust: TrustStore) -> None:
    bound = bind(subjects={"indexes/eu-eurlex.sqlite": "b" * 64})
    envelope = sign_report(report_for(bound), [ed_signer])
    assert code_of(verify_report, envelope, trust, expected=verified) == "report_for_other_identity"
    absent = bind(subjects={"indexes/lu-legilux.sqlite": verified.subjects["indexes/eu-eurlex.sqlite"].sha256})
    envelope = sign_report(report_for(absent), [ed_signer])
    assert code_of(verify_report, envelope, trust, expected=verified) == "report_for_other_identity"


def test_a_failing_report_is_gate_failed(verified: VerifiedSet, ed_signer: KeySigner, trust: TrustStore) -> None:
    report = report_for(bind_to_verified_set(verified), good_metrics(temporal_leakage_failures="2"))
    assert report["passed"] is False
    envelope = sign_report(report, [ed_signer])
    assert code_of(verify_report, envelope, trust, expected=verified) == "gate_failed"


def test_lax_thresholds_in_the_report_do_not_help(verified: VerifiedSet, ed_signer: KeySigner,
                                                  trust: TrustStore) -> None:
    lax = GatePolicy().with_thresholds({"mrr": "0.1"})
    report = report_for(bind_to_verified_set(verified), good_metrics(mrr="0.2"), policy=lax)
    assert report["passed"] is True
    envelope = sign_report(report, [ed_signer])
    assert code_of(verify_report, envelope, trust, expected=verified) == "gate_failed"
    assert verify_report(envelope, trust, expected=verified, policy=lax).gates


def test_stricter_verifier_policy_applies(verified: VerifiedSet, ed_signer: KeySigner, trust: TrustStore) -> None:
    envelope = sign_report(report_for(bind_to_verified_set(verified)), [ed_signer])
    strict = GatePolicy().with_thresholds({"latency_p95_ms": "10"})
    assert code_of(verify_report, envelope, trust, expected=verified, policy=strict) == "gate_failed"


def test_claims_that_disagree_with_metrics_cannot_be_signed(ed_signer: KeySigner) -> None:
    report = report_for(bind(set_id="a" * 64))
    report["gates"][0]["passed"] = False
    assert code_of(sign_report, report, [ed_signer]) == "report_inconsistent"
    report = report_for(bind(set_id="a" * 64), good_metrics(mrr="0.1"))
    report["passed"] = True
    assert code_of(sign_report, report, [ed_signer]) == "report_inconsistent"


def test_inconsistent_signed_claims_are_refused(verified: VerifiedSet, ed_signer: KeySigner,
                                                trust: TrustStore) -> None:
    report = report_for(bind_to_verified_set(verified), good_metrics(mrr="0.1"))
    report["gates"][0]["passed"] = True
    report["passed"] = True
    statement = report_statement(report)
    envelope = signatures.sign(canonical_bytes(statement), signatures.INTOTO_PAYLOAD_TYPE, [ed_signer])
    assert code_of(verify_report, envelope, trust, expected=verified) == "report_inconsistent"


def test_statement_subjects_must_match_bound(verified: VerifiedSet, ed_signer: KeySigner, trust: TrustStore) -> None:
    statement = report_statement(report_for(bind_to_verified_set(verified)))
    statement["subject"][0]["digest"]["sha256"] = "c" * 64
    envelope = signatures.sign(canonical_bytes(statement), signatures.INTOTO_PAYLOAD_TYPE, [ed_signer])
    assert code_of(verify_report, envelope, trust, expected=verified) == "report_inconsistent"


@pytest.mark.parametrize("damage", ["unknown-key", "flip-payload", "truncate-sig", "garbage"])
def test_signature_failures_are_bad_report_signature(verified: VerifiedSet, ed_signer: KeySigner,
                                                     stranger: KeySigner, trust: TrustStore, damage: str) -> None:
    report = report_for(bind_to_verified_set(verified))
    envelope = sign_report(report, [stranger if damage == "unknown-key" else ed_signer])
    data = envelope.to_bytes()
    if damage == "flip-payload":
        data = signatures.Envelope(envelope.payload_type, envelope.payload.replace(b"0.81", b"0.99"),
                             envelope.signatures).to_bytes()
    elif damage == "truncate-sig":
        sig = envelope.signatures[0]
        data = signatures.Envelope(envelope.payload_type, envelope.payload,
                             (signatures.Signature(sig.keyid, sig.sig[:32]),)).to_bytes()
    elif damage == "garbage":
        data = b"{not json"
    assert code_of(verify_report, data, trust, expected=verified) == "bad_report_signature"


def test_an_artifact_set_statement_is_not_a_report(build: Path, sign: SignFn, trust: TrustStore) -> None:
    sign(build)
    assert code_of(verify_report, build / "statement.dsse.json", trust) == "wrong_predicate_type"


@pytest.mark.parametrize(
    "bound", [{}, {"set_id": "xyz"}, {"subjects": {}}, {"subjects": {"../x": "a" * 64}}, {"other": "a" * 64}],
    ids=["empty", "bad-set-id", "empty-subjects", "unsafe-name", "unknown-member"],
)
def test_bad_bound_is_malformed(bound: dict[str, Any]) -> None:
    assert code_of(report_for, bound) in {"malformed_report", "unsafe_path"}
