"""End to end, in process, over the bundled sample: every asset, every check; a second run that
does nothing; the fan-out chain (ingest → shards → merge + index) driven by its sensors; and one
changed work that re-runs only its publisher's stages.

Run times are recorded (``record_property`` and the captured output), never asserted: timing
belongs to the bench.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path

import dagster as dg
import pytest

from corpus_tree import CorpusTree
from corpus_tree.verify import verify_tree
from derive.dataset import build_dataset, shard_of
from derive.verify import compare_dirs, verify_dataset
from legal.ids import Publisher
from pipelines import sources
from pipelines.release_stage import current, key_paths
from pipelines.settings import PUBLISHERS, SHARDS, LexSettings
from release.verify import verify_artifact_set
from tests.pipelines.conftest import (
    Baseline,
    copy_workdir,
    definitions,
    full_run,
    run_job,
    settings,
)
from tests.pipelines.corpus_edit import CHANGED_SLUG, MARKER, changed_lu_corpus

EVIDENCE_ASSETS = ("corpus_tree", "provisions", "search_index")
EVIDENCE_CHECKS = ("corpus_tree:verifies", "provisions:deterministic_sample",
                   "provisions:empty_provisions_not_increasing", "search_index:stamp_digest_recomputes")
SKIPPED = "inputs unchanged"


def test_first_run_materialises_every_asset_with_every_check_passing(baseline: Baseline,
                                                                     record_property: pytest.RecordProperty) -> None:
    record_property("first_run_seconds", round(baseline.first.seconds, 2))
    print(f"first run: {baseline.first.seconds:.1f}s")
    for publisher, outcome in baseline.first.evidence.items():
        assert outcome.success
        # the shards derived in the provisions step are recorded as their own partitions
        shards = {f"provision_shards[{publisher}|{i}]" for i in range(SHARDS)}
        assert set(outcome.metadata) == {f"{a}[{publisher}]" for a in EVIDENCE_ASSETS} | shards
        assert all(outcome.metadata[s]["run_in_step"] == "provisions" for s in shards)
        assert all(outcome.data_versions[s] for s in shards)
        assert outcome.checks == dict.fromkeys(EVIDENCE_CHECKS, True)
        tree = outcome.meta("corpus_tree", publisher)
        assert tree["new_bodies"] > 0 and tree["works"] > 0
        derived = outcome.meta("provisions", publisher)
        assert derived["skipped"] == "" and derived["provisions"] > 0
        assert derived["shards_derived_in_step"] == list(range(SHARDS))
        assert derived["works_derived_in_step"] == tree["works"]
        assert outcome.meta("search_index", publisher)["skipped"] == ""
    release = baseline.first.release
    assert release.success and release.checks == {"artifact_set:verifies_against_trust_root": True}
    meta = release.meta("artifact_set")
    # promoted exactly when the signed benchmark report passes its gates (the gates and the
    # sample judgments belong to the benchmark; a failing gate leaves a verified candidate)
    assert meta["skipped"] == "" and meta["promoted"] is meta["report_passed"]
    assert (settings(baseline.workdir).release_dir() / "sets" / meta["set_id"]).is_dir()


def test_second_run_skips_every_stage_and_downloads_nothing(baseline: Baseline,
                                                            record_property: pytest.RecordProperty) -> None:
    record_property("second_run_seconds", round(baseline.second.seconds, 2))
    print(f"second run: {baseline.second.seconds:.1f}s (first {baseline.first.seconds:.1f}s)")
    for publisher, outcome in baseline.second.evidence.items():
        assert outcome.success and all(outcome.checks.values()) and len(outcome.checks) == len(EVIDENCE_CHECKS)
        assert outcome.meta("corpus_tree", publisher)["new_bodies"] == 0
        for asset in ("provisions", "search_index"):
            assert outcome.meta(asset, publisher)["skipped"] == SKIPPED, asset
        assert outcome.meta("provisions", publisher)["shards_derived_in_step"] == []
        assert set(outcome.metadata) == {f"{a}[{publisher}]" for a in EVIDENCE_ASSETS}  # no shard ran
        first = baseline.first.evidence[publisher]
        assert outcome.data_versions == {k: v for k, v in first.data_versions.items()
                                         if not k.startswith("provision_shards")}  # same outputs, same versions
    release = baseline.second.release
    assert release.success and all(release.checks.values())
    meta = release.meta("artifact_set")
    assert meta["skipped"] == SKIPPED and meta["set_id"] == baseline.first.release.meta("artifact_set")["set_id"]


def test_outputs_verify_and_the_merged_shards_equal_an_unsharded_build(baseline: Baseline) -> None:
    lex = settings(baseline.workdir)
    for publisher in PUBLISHERS:
        assert verify_tree(lex.tree(publisher)).ok
        tree = CorpusTree.open(lex.tree(publisher))
        report = verify_dataset(lex.derived(publisher), tree)
        assert report.ok and report.compared > 0, report.line()
        assert not (lex.derived(publisher) / "shard.json").exists()
    set_id = baseline.first.release.meta("artifact_set")["set_id"]
    if baseline.first.release.meta("artifact_set")["promoted"]:
        assert current(lex) == set_id
    _, public, _, _ = key_paths(lex)
    assert verify_artifact_set(lex.release_dir() / "sets" / set_id, [public]).set_id == set_id


def test_fan_out_chain_driven_by_its_sensors(tmp_path: Path, dagster_instance: dg.DagsterInstance) -> None:
    """ingest (one publisher) → shards_after_ingest → one derive_shards run per shard →
    index_after_shards (only once all shards succeeded) → index; the merged dataset is
    byte-identical to an unsharded build of the same tree."""
    publisher = "lu-legilux"
    defs = definitions(tmp_path / "work")
    ingest = run_job(defs, "ingest", dagster_instance, publisher)
    assert ingest.success and ingest.checks == {"corpus_tree:verifies": True}

    def evaluate(name: str, outcome: object) -> object:
        result = outcome.result  # type: ignore[attr-defined]
        context = dg.build_run_status_sensor_context(
            sensor_name=name, dagster_event=result.get_run_success_event(), dagster_instance=dagster_instance,
            dagster_run=result.dagster_run)
        return defs.resolve_sensor_def(name)(context)

    requests = evaluate("shards_after_ingest", ingest)
    assert isinstance(requests, list)
    assert [str(r.partition_key) for r in requests] == [f"{publisher}|{i}" for i in range(SHARDS)]
    index_request: object = None
    for n, request in enumerate(requests, start=1):
        shard = run_job(defs, "derive_shards", dagster_instance, str(request.partition_key), tags=dict(request.tags))
        assert shard.success
        meta = shard.meta("provision_shards", str(request.partition_key))
        assert meta["skipped"] == "" and meta["shard"] == f"{n - 1}/{SHARDS}"
        index_request = evaluate("index_after_shards", shard)
        if n < SHARDS:
            assert isinstance(index_request, dg.SkipReason), index_request
    assert isinstance(index_request, dg.RunRequest) and index_request.partition_key == publisher
    index = run_job(defs, "index", dagster_instance, publisher, tags=dict(index_request.tags))
    assert index.success and all(index.checks.values()) and len(index.checks) == 3
    merged = index.meta("provisions", publisher)
    assert merged["skipped"] == "" and merged["shards_derived_in_step"] == []
    lex = settings(tmp_path / "work")
    report = verify_dataset(lex.derived(publisher), CorpusTree.open(lex.tree(publisher)))
    assert report.ok and report.compared > 0, report.line()  # = an unsharded build of the same tree


def _same_as_cold(lex: LexSettings, scratch: Path) -> None:
    """The Legilux dataset and index of ``lex`` equal a cold build of its tree: every dataset
    file byte for byte, the index's content digest."""
    from derive.index.build import build_from_paths
    from derive.index.digest import content_digest

    tree = CorpusTree.open(lex.tree("lu-legilux"), evidence_dir=lex.evidence_dir or None)
    build_dataset(tree, scratch / "dataset", use_cache=False, workers=1)
    report = compare_dirs(scratch / "dataset", lex.derived("lu-legilux"))
    assert report.ok and report.compared >= 6, (report.mismatched, report.missing, report.extra)
    cold = build_from_paths(Publisher.LEGILUX, tree, scratch / "dataset", scratch / "index",
                            built_at=lex.built_at_stamp())
    digests = []
    for path in (lex.indexes() / "lu-legilux.sqlite", cold.index_path):
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
            digests.append(content_digest(conn))
    assert digests[0] == digests[1] == cold.stamp["content_digest"]


def test_one_changed_work_reruns_only_its_publisher(tmp_path: Path, baseline: Baseline,
                                                    dagster_instance: dg.DagsterInstance,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The Legilux sample, served with one work given a new consolidated state: Legilux's
    stages re-run (one body downloaded, one work re-derived), EUR-Lex's are all skipped, and a
    new artifact set is signed and promoted."""
    workdir = copy_workdir(baseline.workdir, tmp_path / "work")
    original = sources.sample_root
    changed = changed_lu_corpus(original(Publisher.LEGILUX), tmp_path / "lu-changed")
    monkeypatch.setattr(sources, "sample_root",
                        lambda p: changed if p is Publisher.LEGILUX else original(p))
    run = full_run(definitions(workdir), dagster_instance)
    assert all(o.success for o in run.outcomes())
    assert all(all(o.checks.values()) for o in run.outcomes())

    lu = run.evidence["lu-legilux"]
    tree = lu.meta("corpus_tree", "lu-legilux")
    assert tree["new_bodies"] == 1
    assert tree["versions"] == baseline.first.evidence["lu-legilux"].meta("corpus_tree", "lu-legilux")["versions"] + 1
    derived = lu.meta("provisions", "lu-legilux")
    assert derived["skipped"] == "" and derived["works_derived_in_step"] == 1
    # only the changed work's shard was derived; the others kept their files byte for byte
    assert derived["shards_derived_in_step"] == [shard_of(CHANGED_SLUG, SHARDS)]
    # the rebuilt shard's other works' rows were copied from its previous output
    assert derived["works_copied_in_step"] > 0, derived
    _same_as_cold(settings(workdir), tmp_path / "cold")
    index_meta = lu.meta("search_index", "lu-legilux")
    assert index_meta["skipped"] == ""
    # updated from the index the first run built and verified: the check hashed the texts this build wrote
    assert index_meta["build_mode"] == "incremental" and index_meta["texts_checked_from_block"] > 1, index_meta
    assert baseline.first.evidence["lu-legilux"].meta("search_index", "lu-legilux")["texts_checked_from_block"] == 1
    rows = [json.loads(line) for line in (settings(workdir).derived("lu-legilux") / "provisions.jsonl").open("rb")]
    assert any(MARKER in r["text_md"] for r in rows if r["work_id"] == f"lu-legilux:{CHANGED_SLUG}")

    eu = run.evidence["eu-eurlex"]
    assert eu.meta("corpus_tree", "eu-eurlex")["new_bodies"] == 0
    for asset in ("provisions", "search_index"):
        assert eu.meta(asset, "eu-eurlex")["skipped"] == SKIPPED
    assert eu.data_versions == {k: v for k, v in baseline.first.evidence["eu-eurlex"].data_versions.items()
                                if not k.startswith("provision_shards")}  # no EUR-Lex shard ran

    release = run.release.meta("artifact_set")
    assert release["skipped"] == "" and release["promoted"] is release["report_passed"]
    assert release["set_id"] != baseline.first.release.meta("artifact_set")["set_id"]
    pointers = json.loads((settings(workdir).release_dir() / "pointers.json").read_bytes())
    held = {pointers["current"], *pointers.get("candidates", {})}
    assert release["set_id"] in held
