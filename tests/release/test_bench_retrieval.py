"""``lex bench retrieval`` (issue #16, defect 4): a set in the release layout is benchmarked
and bound to the set's file names; nothing measured is a typed refusal, never a signed report;
one gate policy file serves every command."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from cli.main import cli
from legal.errors import LexError
from release.keys import KeySigner, TrustStore
from release.promotion import ReleaseRoot
from release.report import GATES_ENV, gate_policy, sign_report
from release.signing import sign_artifact_set
from tests.index.handmade import build_handmade

CASES = [{"id": "conceptual-001", "category": "conceptual", "query": "choses",
          "relevant": [{"work": "lu-legilux:loi-2099-01-01-n1", "grade": 3}], "expect_no_hits": False},
         {"id": "exact-001", "category": "exact", "query": "32099R0001",
          "relevant": [{"work": "eu-eurlex:32099r0001", "grade": 3}], "expect_no_hits": False},
         {"id": "negative-001", "category": "negative", "query": "decommissioning of nuclear submarines",
          "relevant": [], "expect_no_hits": True}]
LAX = {"thresholds": {"mrr": "0", "recall_at_10": "0", "ndcg_at_10": "0", "exact_first_accuracy": "0",
                      "no_hit_accuracy": "0", "latency_p95_ms": "100000"}}


@pytest.fixture(scope="module")
def indexes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bench") / "indexes"
    build_handmade(out)
    return out


def judgments(path: Path, cases: list[dict[str, Any]] = CASES) -> Path:
    path.write_text(json.dumps({"schema": "lex-retrieval-judgments/1", "review": {"status": "engineer-written"},
                                "cases": cases}))
    return path


def bench(*args: str | Path, env: dict[str, str] | None = None) -> Any:
    return CliRunner().invoke(cli, ["bench", "retrieval", *map(str, args)], env=env)


def test_a_set_in_the_release_layout_is_benchmarked_and_bound_to_its_file_names(
        tmp_path: Path, indexes: Path, ed_signer: KeySigner, trust: TrustStore) -> None:
    build = tmp_path / "build"
    shutil.copytree(indexes, build / "indexes")
    sign_artifact_set(build, [ed_signer], created_by="tests", created_at="2026-08-01T00:00:00Z")
    gates = tmp_path / "gates.json"
    gates.write_text(json.dumps(LAX))
    env = {GATES_ENV: str(gates)}
    result = bench("--index-dir", build, "--judgments", judgments(tmp_path / "j.json"),
                   "--out", tmp_path / "report.json", "--created-at", "2026-08-02T00:00:00Z", env=env)
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "report.json").read_text())
    assert sorted(report["bound"]["subjects"]) == ["indexes/eu-eurlex.sqlite", "indexes/lu-legilux.sqlite"]
    assert report["metrics"]["cases"] == "3"
    # evaluate accepts it for that set, under the same gate file (read from the environment)
    signed = tmp_path / "report.dsse.json"
    signed.write_bytes(sign_report(report, [ed_signer]).to_bytes())
    root = ReleaseRoot(tmp_path / "releases", trust, actor="tests", policy=gate_policy(env=env))
    set_id = root.candidate(build).set_id
    assert root.evaluate(set_id, signed).gates
    assert root.promote(set_id).current == set_id


@pytest.mark.parametrize("layout", ["empty", "stray-files"])
def test_an_unknown_layout_is_refused_and_writes_nothing(tmp_path: Path, layout: str) -> None:
    directory = tmp_path / "dir"
    (directory / "indexes").mkdir(parents=True)
    if layout == "stray-files":
        (directory / "indexes" / "notes.txt").write_text("x")
    result = bench("--index-dir", directory, "--judgments", judgments(tmp_path / "j.json"),
                   "--out", tmp_path / "report.json")
    assert result.exit_code != 0
    assert isinstance(result.exception, LexError) or "unknown_layout" in result.output
    assert not (tmp_path / "report.json").exists()


def _refusal(result: Any) -> str:
    error = result.exception
    return f"{error.family}/{error.code}" if isinstance(error, LexError) else result.output


def test_refusal_codes(tmp_path: Path, indexes: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    out = tmp_path / "report.json"
    assert _refusal(bench("--index-dir", empty, "--judgments", judgments(tmp_path / "j.json"),
                          "--out", out)) == "evaluation/unknown_layout"
    assert not out.exists()


def test_no_case_answered_is_refused(indexes: Path, tmp_path: Path) -> None:
    from release.benchmark import load_judgments, retrieval_benchmark
    from release.benchmark.benchmark import BenchmarkRefused
    from serve.core import LegalCore

    with LegalCore.mount(indexes) as core:
        class Nothing:
            indexes = core.indexes

            def stamps(self) -> dict[str, dict[str, str]]:
                return core.stamps()

            def operation(self, name: str) -> Any:
                return core.operation(name)

            def call(self, name: str, args: Any = None) -> dict[str, Any]:
                return {"outcome": "no_corpus_mounted"}

        with pytest.raises(BenchmarkRefused) as caught:
            retrieval_benchmark(Nothing(), indexes, load_judgments(judgments(tmp_path / "j.json")),
                                created_at="2026-08-02T00:00:00Z")
    assert caught.value.code == "no_case_ran"


def test_an_index_without_provisions_is_refused(indexes: Path, tmp_path: Path) -> None:
    from release.benchmark import load_judgments, retrieval_benchmark
    from release.benchmark.benchmark import BenchmarkRefused
    from serve.core import LegalCore

    with LegalCore.mount(indexes) as core:
        class Empty:
            indexes = core.indexes

            def stamps(self) -> dict[str, dict[str, str]]:
                return {p: {**s, "count.provisions": "0"} for p, s in core.stamps().items()}

            def operation(self, name: str) -> Any:
                return core.operation(name)

            def call(self, name: str, args: Any = None) -> Any:
                return core.call(name, args)

        with pytest.raises(BenchmarkRefused) as caught:
            retrieval_benchmark(Empty(), indexes, load_judgments(judgments(tmp_path / "j.json")),
                                created_at="2026-08-02T00:00:00Z")
    assert caught.value.code == "empty_index"


def test_one_gate_file_from_the_environment(tmp_path: Path) -> None:
    gates = tmp_path / "gates.json"
    gates.write_text(json.dumps({"thresholds": {"mrr": "0.9"}}))
    policy = gate_policy(env={GATES_ENV: str(gates)})
    assert {r["name"]: r["threshold"] for r in policy.to_json()}["mrr"] == "0.9"
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"thresholds": {"mrr": "0.2"}}))
    explicit = gate_policy(other, env={GATES_ENV: str(gates)})  # --gates wins
    assert {r["name"]: r["threshold"] for r in explicit.to_json()}["mrr"] == "0.2"
