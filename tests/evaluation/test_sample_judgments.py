"""The sample-corpus judgments (``evals/sample_judgments.json``) and the benchmark over the sample.

``make demo`` and the release stage (``pipelines/release_stage.py``) benchmark an index of the
bundled synthetic sample (``publishers/sample/corpus``) with these judgments, and promote
only when every gate passes. These tests check that the judgments are valid, that every key
they name exists in the sample and fits the case's date, and run the benchmark end to end on
an index built from the sample here (import → derive → index, in a temporary directory).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from corpus_tree import CorpusTree
from derive.index.build import build_index
from derive.index.inputs import read_dataset, read_tree
from legal.ids import Publisher
from publishers.sample import sample_corpus_roots
from release.benchmark import BenchmarkRun, Judgments, load_judgments
from release.benchmark.judgments import CATEGORIES
from release.report import REPORT_SCHEMA, check_report_shape

from .conftest import benchmark

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_JUDGMENTS = ROOT / "evals" / "sample_judgments.json"
BUILT_AT = "2026-11-30T00:00:00Z"
CREATED_AT = "2026-11-30T00:00:00Z"
#: Gates that pass on the sample index (see docs/retrieval-benchmark.md, "Sample corpus judgments").
PASSING_GATES = ("mrr", "ndcg_at_10", "exact_first_accuracy", "temporal_leakage_failures", "no_hit_accuracy")


@dataclass(frozen=True)
class HeldState:
    """One version record of the committed sample."""

    work: str
    key: str
    valid_from: str
    end_exclusive: str | None
    has_text: bool

    def covers(self, day: str) -> bool:
        return self.valid_from <= day and (self.end_exclusive is None or day < self.end_exclusive)


def _end_exclusive(publisher: str, valid_to: str | None) -> str | None:
    """Legilux gives ``valid_to`` exclusive, EUR-Lex inclusive (docs/sample-corpus.md)."""
    if valid_to is None or publisher == Publisher.LEGILUX.value:
        return valid_to
    return (dt.date.fromisoformat(valid_to) + dt.timedelta(days=1)).isoformat()


@pytest.fixture(scope="module")
def judgments() -> Judgments:
    return load_judgments(SAMPLE_JUDGMENTS)


@pytest.fixture(scope="module")
def held() -> dict[str, dict[str, HeldState]]:
    """``<publisher>:<slug>`` → version key → state, read from the committed sample records."""
    out: dict[str, dict[str, HeldState]] = {}
    for publisher, root in sample_corpus_roots().items():
        for work_dir in sorted((root / "works").iterdir()):
            work = json.loads((work_dir / "meta.json").read_text(encoding="utf-8"))["lex_work_id"]
            states = out.setdefault(work, {})
            for meta in sorted(work_dir.glob("versions/*/meta.json")):
                record = json.loads(meta.read_text(encoding="utf-8"))
                text = any(e.get("text", {}).get("available") and e.get("observations")
                           for e in record["expressions"])
                states[meta.parent.name] = HeldState(work, meta.parent.name, record["valid_from"],
                                                     _end_exclusive(publisher, record.get("valid_to")), text)
    return out


@dataclass(frozen=True)
class SampleBuild:
    index_dir: Path
    provisions: frozenset[tuple[str, str, str]]  # (work, version key, anchor)


@pytest.fixture(scope="module")
def sample_build(tmp_path_factory: pytest.TempPathFactory) -> SampleBuild:
    """Trees, datasets and indexes of both sample roots, built once for this module."""
    from corpus_tree.importer import import_published
    from derive.dataset import build_dataset

    root = tmp_path_factory.mktemp("sample-index")
    index_dir = root / "index"
    provisions: set[tuple[str, str, str]] = set()
    for publisher, src in sorted(sample_corpus_roots().items()):
        tree_dir, dataset_dir = root / f"tree-{publisher}", root / f"dataset-{publisher}"
        import_published(src, tree_dir, durable=False)
        build_dataset(CorpusTree.open(tree_dir), dataset_dir, use_cache=False)
        dataset = read_dataset(dataset_dir)
        build_index(Publisher.parse(publisher), read_tree(CorpusTree.open(tree_dir)), dataset, index_dir,
                    built_at=BUILT_AT)
        provisions.update((r.work_id, r.version_key, r.anchor) for r in dataset.rows)
    return SampleBuild(index_dir, frozenset(provisions))


@pytest.fixture(scope="module")
def sample_run(sample_build: SampleBuild, judgments: Judgments) -> tuple[dict[str, Any], BenchmarkRun]:
    return benchmark(sample_build.index_dir, judgments, created_at=CREATED_AT)


# -- the judgments ---------------------------------------------------------------------------


def test_the_sample_judgments_validate(judgments: Judgments) -> None:
    assert 24 <= len(judgments.cases) <= 32
    assert judgments.categories() == CATEGORIES
    assert judgments.review_status == "engineer-written"
    assert all(case.note for case in judgments.cases)


def test_every_judged_work_and_version_exists_in_the_sample(judgments: Judgments,
                                                            held: dict[str, dict[str, HeldState]]) -> None:
    assert len(held) == 7
    assert sum(len(states) for states in held.values()) == 21
    for case in judgments.cases:
        for work in case.filters.works:
            assert work in held, (case.id, work)
        for item in case.relevant:
            assert item.work in held, (case.id, item.work)
            assert set(item.versions) <= set(held[item.work]), (case.id, item.versions)
        for forbidden in case.forbidden:
            assert forbidden.work in held, (case.id, forbidden.work)
            assert forbidden.version is None or forbidden.version in held[forbidden.work], (case.id, forbidden)


def test_every_judged_anchor_is_a_provision_of_the_sample(judgments: Judgments, sample_build: SampleBuild,
                                                          held: dict[str, dict[str, HeldState]]) -> None:
    for case in judgments.cases:
        for item in case.relevant:
            versions = item.versions or tuple(held[item.work])
            for anchor in item.anchors:
                present = [v for v in versions if (item.work, v, anchor) in sample_build.provisions]
                if item.versions:
                    assert present == list(item.versions), (case.id, item.work, anchor)
                else:
                    assert present, (case.id, item.work, anchor)


def test_judged_versions_fit_the_case_date(judgments: Judgments, held: dict[str, dict[str, HeldState]]) -> None:
    """Relevant states are valid on ``as_of``; forbidden states are the wrong-date ones."""
    for case in judgments.cases:
        day = case.filters.as_of
        if day is None:
            continue
        for item in case.relevant:
            for key in item.versions:
                assert held[item.work][key].covers(day), (case.id, key)
        for forbidden in case.forbidden:
            if forbidden.version is not None:
                assert not held[forbidden.work][forbidden.version].covers(day), (case.id, forbidden.version)
    temporal = [c for c in judgments.cases if c.category == "temporal"]
    assert all(c.forbidden and all(r.versions for r in c.relevant) for c in temporal)


def test_gap_dates_fall_on_text_less_states(judgments: Judgments, held: dict[str, dict[str, HeldState]]) -> None:
    for case in judgments.cases:
        if case.category != "gap":
            continue
        day = case.filters.as_of
        assert day is not None and case.work_rows_allowed, case.id
        text_less = {s.work for states in held.values() for s in states.values() if s.covers(day) and not s.has_text}
        assert text_less, case.id
        assert set(case.filters.works) <= text_less, case.id


def test_the_same_day_pair_is_judged_as_ambiguous(judgments: Judgments, held: dict[str, dict[str, HeldState]]) -> None:
    work = "lu-legilux:loi-2016-05-20-n904"
    pair = sorted(k for k, s in held[work].items() if s.valid_from == "2022-01-01")
    assert len(pair) == 2
    judged = [r for c in judgments.cases if c.category == "ambiguity" for r in c.relevant if r.work == work]
    assert any(sorted(r.versions) == pair for r in judged)


# -- the benchmark on the sample index -------------------------------------------------------


def _digests(index_dir: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(index_dir.glob("*.sqlite"))}


def test_the_sample_report_is_bound_to_the_index_files(sample_run: tuple[dict[str, Any], BenchmarkRun],
                                                       sample_build: SampleBuild) -> None:
    report, _ = sample_run
    digests = _digests(sample_build.index_dir)
    assert set(digests) == {"eu-eurlex.sqlite", "lu-legilux.sqlite"}
    assert report["bound"] == {"subjects": digests}
    identities = {i["name"]: i for i in report["context"]["indexes"]}
    assert {name: i["sha256"] for name, i in identities.items()} == digests
    assert {i["built_at"] for i in identities.values()} == {BUILT_AT}


def test_the_sample_report_is_well_formed(sample_run: tuple[dict[str, Any], BenchmarkRun],
                                          judgments: Judgments) -> None:
    report, result = sample_run
    check_report_shape(report)
    assert report["schema"] == REPORT_SCHEMA
    assert report["created_at"] == CREATED_AT
    assert result.status == "ok"
    assert report["metrics"]["cases"] == str(len(judgments.cases))
    assert report["metrics"]["cases_unavailable"] == report["metrics"]["cases_errored"] == "0"
    assert report["context"]["judgments"]["sha256"] == judgments.sha256
    assert set(report["context"]["per_category"]) == set(CATEGORIES)
    assert [c["id"] for c in report["context"]["cases"]] == [c.id for c in judgments.cases]
    failing = {f["id"] for f in report["context"]["failures"]}
    assert failing == {c["id"] for c in report["context"]["cases"] if not c["passed"]}
    assert report["passed"] is all(g["passed"] for g in report["gates"])


def test_the_correctness_gates_pass_on_the_sample(sample_run: tuple[dict[str, Any], BenchmarkRun]) -> None:
    """No leak, no false hit on negative and gap cases, identifiers first; MRR and nDCG above their floors."""
    report, _ = sample_run
    gates = {g["name"]: g for g in report["gates"]}
    assert {name: gates[name]["passed"] for name in PASSING_GATES} == dict.fromkeys(PASSING_GATES, True), gates
    assert report["metrics"]["temporal_leakage_failures"] == "0"


def test_every_default_gate_passes_on_the_sample(sample_run: tuple[dict[str, Any], BenchmarkRun]) -> None:
    report, _ = sample_run
    assert report["passed"], [g for g in report["gates"] if not g["passed"]]
