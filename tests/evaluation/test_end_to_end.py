"""End to end on indexes built from ../shared/fixtures: the report, its binding, its signature, the CLI."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cli.bench import group as bench_group
from legal.errors import ReleaseError
from release.benchmark import BenchmarkRun, load_judgments
from release.keys import (
    KeySigner,
    TrustStore,
    generate_private_key,
    load_trust_roots,
    private_pem,
    public_pem,
)
from release.report import REPORT_SCHEMA, check_report_shape, sign_report, verify_report
from tests.index.pipeline import FixtureBuild

from .conftest import CREATED_AT, JUDGMENTS, benchmark

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def keyword_run(fixture_indexes: FixtureBuild) -> tuple[dict[str, Any], BenchmarkRun]:
    return benchmark(fixture_indexes.index_dir, load_judgments(JUDGMENTS), created_at=CREATED_AT)


@pytest.fixture(scope="module")
def signer() -> KeySigner:
    return KeySigner.of(generate_private_key("ed25519"))


def file_digests(index_dir: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(index_dir.glob("*.sqlite"))}


def test_the_report_is_bound_to_the_index_files(keyword_run: tuple[dict[str, Any], BenchmarkRun],
                                                fixture_indexes: FixtureBuild) -> None:
    report, _ = keyword_run
    digests = file_digests(fixture_indexes.index_dir)
    assert set(digests) == {"eu-eurlex.sqlite", "lu-legilux.sqlite"}
    assert report["bound"] == {"subjects": digests}
    identities = {i["name"]: i for i in report["context"]["indexes"]}
    assert {name: i["sha256"] for name, i in identities.items()} == digests
    assert all(len(i["content_digest"]) == 64 for i in identities.values())


def test_the_report_has_the_release_shape_and_consistent_gates(keyword_run: tuple[dict[str, Any], BenchmarkRun]) -> None:
    report, result = keyword_run
    check_report_shape(report)
    assert report["schema"] == REPORT_SCHEMA
    assert report["created_at"] == CREATED_AT
    assert result.status == "ok"
    assert report["metrics"]["cases"] == str(len(load_judgments(JUDGMENTS).cases))
    assert report["metrics"]["cases_unavailable"] == "0"
    for name in ("mrr", "recall_at_10", "ndcg_at_10", "exact_first_accuracy", "temporal_leakage_failures",
                 "no_hit_accuracy", "latency_p50_ms", "latency_p95_ms"):
        assert name in report["metrics"], name
    assert {g["name"] for g in report["gates"]} >= {"mrr", "temporal_leakage_failures", "latency_p95_ms"}
    assert report["passed"] is all(g["passed"] for g in report["gates"])
    assert set(report["context"]["per_category"]) == set(load_judgments(JUDGMENTS).categories())
    assert len(report["context"]["cases"]) == len(load_judgments(JUDGMENTS).cases)
    failing = {f["id"] for f in report["context"]["failures"]}
    assert failing == {c["id"] for c in report["context"]["cases"] if not c["passed"]}


def test_the_signed_report_verifies(keyword_run: tuple[dict[str, Any], BenchmarkRun], signer: KeySigner,
                                    tmp_path: Path) -> None:
    report, _ = keyword_run
    root = tmp_path / "root.pub.pem"
    root.write_bytes(public_pem(signer.private_key.public_key()))
    trust: TrustStore = load_trust_roots([root])
    checked = verify_report(sign_report(report, [signer]), trust)
    assert checked.report["bound"] == report["bound"]
    tampered = json.loads(json.dumps(report))
    tampered["metrics"]["mrr"] = "1"
    with pytest.raises(ReleaseError):
        sign_report(tampered, [signer])  # gate rows no longer agree with the metrics


def test_hybrid_mode_is_reported_unavailable(fixture_indexes: FixtureBuild) -> None:
    report, result = benchmark(fixture_indexes.index_dir, load_judgments(JUDGMENTS), created_at=CREATED_AT,
                               mode="hybrid")
    assert result.status == "retrieval_mode_unavailable"
    assert report["context"]["retrieval_unavailable_reason"]
    assert report["passed"] is False
    assert "mrr" not in report["metrics"]
    assert report["bound"] == {"subjects": file_digests(fixture_indexes.index_dir)}


def test_cli_writes_and_signs_the_report(fixture_indexes: FixtureBuild, signer: KeySigner, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    key = tmp_path / "key.pem"
    key.write_bytes(private_pem(signer.private_key, b"secret"))
    monkeypatch.setenv("LEX_BENCH_TEST_PASSPHRASE", "secret")
    out = tmp_path / "out" / "report.json"
    result = CliRunner().invoke(bench_group, [
        "retrieval", "--index-dir", str(fixture_indexes.index_dir), "--out", str(out), "--sign-key", str(key),
        "--passphrase-env", "LEX_BENCH_TEST_PASSPHRASE", "--created-at", CREATED_AT])
    report = json.loads(out.read_text(encoding="utf-8"))
    assert result.exit_code == (0 if report["passed"] else 5), result.output
    assert "overall" in result.output
    assert report["bound"] == {"subjects": file_digests(fixture_indexes.index_dir)}
    root = tmp_path / "root.pub.pem"
    root.write_bytes(public_pem(signer.private_key.public_key()))
    checked = verify_report(tmp_path / "out" / "report.dsse.json", load_trust_roots([root]))
    assert checked.report == report
