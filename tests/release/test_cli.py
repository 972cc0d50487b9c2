"""``lex release``: the operator's commands in order, and typed failures with exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli.main import main
from release.keys import load_signer
from release.report import bind, build_report, sign_report

from .conftest import FIXED_TIME, write_build


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture()
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("LEX_SIGNING_PASSPHRASE", "operator passphrase")
    monkeypatch.delenv("LEX_TRUST_ROOTS", raising=False)
    monkeypatch.setenv("LEX_RELEASE_ACTOR", "operator")
    return tmp_path


def test_the_operator_flow(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    keys, build, root = env / "keys", write_build(env / "build"), env / "releases"
    pub = keys / "release-signing.pub.pem"
    code, out, _ = run(capsys, "release", "keygen", "--out", keys, "--algorithm", "p256")
    assert code == 0 and "key id" in out
    code, out, _ = run(capsys, "release", "sign", build, "--key", keys / "release-signing.key.pem",
                       "--label", "corpus_commit=abc")
    assert code == 0 and out.startswith("signed set ")
    code, out, _ = run(capsys, "release", "verify", build, "--trust-root", pub, "--json")
    assert code == 0
    verified = json.loads(out)
    set_id = verified["set_id"]
    assert "indexes/eu-eurlex.sqlite" in verified["subjects"]

    code, out, _ = run(capsys, "release", "candidate", root, build, "--trust-root", pub)
    assert code == 0 and set_id in out
    code, _, err = run(capsys, "release", "promote", root, set_id[:12], "--trust-root", pub)
    assert code == 2 and "release/no_report" in err

    report = build_report(bind(set_id=set_id), {
        "mrr": "0.7", "recall_at_10": "0.9", "ndcg_at_10": "0.6", "exact_first_accuracy": "1",
        "temporal_leakage_failures": "0", "no_hit_accuracy": "1", "latency_p95_ms": "12"},
        created_at=FIXED_TIME, runner="tests")
    (env / "report.json").write_text(json.dumps(report))
    code, out, _ = run(capsys, "release", "report", "sign", env / "report.json", "--key",
                       keys / "release-signing.key.pem", "--out", env / "report.dsse.json")
    assert code == 0
    code, out, _ = run(capsys, "release", "report", "verify", env / "report.dsse.json", "--trust-root", pub,
                       "--set", build)
    assert code == 0 and "pass  mrr >= 0.5: 0.7" in out
    code, out, _ = run(capsys, "release", "evaluate", root, set_id[:12], "--report", env / "report.dsse.json",
                       "--trust-root", pub)
    assert code == 0 and "7 gates passed" in out
    code, out, _ = run(capsys, "release", "promote", root, set_id, "--trust-root", pub)
    assert code == 0 and f"current  {set_id}" in out
    code, out, _ = run(capsys, "release", "status", root)
    assert code == 0 and f"current    {set_id}" in out and "3 entries, ok" in out
    code, out, _ = run(capsys, "release", "ledger", "verify", root)
    assert code == 0 and out.startswith("OK ledger: 3 entries")
    code, _, err = run(capsys, "release", "rollback", root, "--reason", "drill", "--trust-root", pub)
    assert code == 2 and "release/no_rollback" in err

    entries = [json.loads(line) for line in (root / "ledger.jsonl").read_text().splitlines()]
    assert {e["actor"] for e in entries} == {"operator"}

    # an edited pointers.json (current forged, ledger_head left alone) is caught by every reader
    pointers = json.loads((root / "pointers.json").read_text())
    (root / "pointers.json").write_text(json.dumps({**pointers, "current": None, "rollback": set_id}))
    code, _, err = run(capsys, "release", "ledger", "verify", root)
    assert code == 2 and "release/pointers_mismatch" in err
    code, out, _ = run(capsys, "release", "status", root)
    assert code == 2 and f"current    {set_id}" in out and "BROKEN: pointers_mismatch" in out


def test_verify_reports_typed_failures(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    keys, build = env / "keys", write_build(env / "build")
    run(capsys, "release", "keygen", "--out", keys)
    run(capsys, "release", "sign", build, "--key", keys / "release-signing.key.pem")
    (build / "eu-scope.json").unlink()
    code, _, err = run(capsys, "release", "verify", build, "--trust-root", keys / "release-signing.pub.pem")
    assert code == 2 and "[release/missing_file] (eu-scope.json)" in err


def test_trust_roots_from_the_environment(env: Path, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    keys, build = env / "keys", write_build(env / "build")
    run(capsys, "release", "keygen", "--out", keys)
    run(capsys, "release", "sign", build, "--key", keys / "release-signing.key.pem")
    code, _, err = run(capsys, "release", "verify", build)
    assert code == 2 and "release/no_trust_roots" in err
    monkeypatch.setenv("LEX_TRUST_ROOTS", str(keys / "release-signing.pub.pem"))
    code, out, _ = run(capsys, "release", "verify", build)
    assert code == 0 and out.startswith("OK set ")


def test_missing_passphrase_is_typed(env: Path, capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEX_SIGNING_PASSPHRASE")
    code, _, err = run(capsys, "release", "keygen", "--out", env / "keys")
    assert code == 2 and "release/passphrase_missing" in err
    monkeypatch.setenv("OTHER_PASS", "x")
    code, _, _ = run(capsys, "release", "keygen", "--out", env / "keys", "--passphrase-env", "OTHER_PASS")
    assert code == 0
    assert load_signer(env / "keys" / "release-signing.key.pem", b"x").algorithm == "ed25519"


def test_sign_with_sigstore_and_no_identity_is_typed(env: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SIGSTORE_ID_TOKEN", "GITHUB_ACTIONS", "ACTIONS_ID_TOKEN_REQUEST_URL",
                 "GOOGLE_SERVICE_ACCOUNT_NAME", "BUILDKITE", "GITLAB_CI", "CIRCLECI"):
        monkeypatch.delenv(name, raising=False)
    build = write_build(env / "build")
    code, _, err = run(capsys, "release", "sign", build, "--sigstore")
    assert code == 2 and "release/no_oidc_identity" in err
    assert not (build / "statement.dsse.json").exists()


def test_verify_sigstore_needs_a_pinned_identity(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build = write_build(env / "build")
    (env / "bundle.json").write_text("{}")
    code, _, err = run(capsys, "release", "verify", build, "--sigstore-bundle", env / "bundle.json")
    assert code == 2 and "--identity" in err


def test_report_sign_refuses_an_inconsistent_report(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    keys = env / "keys"
    run(capsys, "release", "keygen", "--out", keys)
    report = build_report(bind(set_id="a" * 64), {"mrr": "0.1"}, created_at=FIXED_TIME, runner="tests")
    report["passed"] = True
    (env / "report.json").write_text(json.dumps(report))
    code, _, err = run(capsys, "release", "report", "sign", env / "report.json", "--key",
                       keys / "release-signing.key.pem", "--out", env / "out.json")
    assert code == 2 and "release/report_inconsistent" in err
    signer = load_signer(keys / "release-signing.key.pem", b"operator passphrase")
    assert sign_report(build_report(bind(set_id="a" * 64), {"mrr": "0.1"}, created_at=FIXED_TIME,
                                    runner="tests"), [signer]).payload


def test_every_command_has_help_with_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    for command in (["keygen"], ["sign"], ["verify"], ["candidate"], ["evaluate"], ["promote"], ["rollback"],
                    ["status"], ["ledger", "verify"], ["report", "sign"], ["report", "verify"]):
        code, out, _ = run(capsys, "release", *command, "--help")
        assert code == 0 and "Example" in out, command
