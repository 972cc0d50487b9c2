"""Both publishers' ``evidence`` runs at once, as a backfill over both partitions runs them
(``max_concurrent_runs: 2`` in ``deploy/dagster.yaml``; ``make bench-full`` does the same): two
processes sharing one work directory and one ``DAGSTER_HOME``, started together. Nothing they
share interferes — the SQLite run and event storage, the stage state directory with its shared
``file-hashes.json``, the evidence store, the per-tree locks — and what they build is
what each built is what a build of its tree alone gives; the release built on top verifies."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest

from corpus_tree import CorpusTree
from derive.dataset import build_dataset
from derive.verify import compare_dirs
from legal.ids import Publisher
from pipelines.release_stage import key_paths
from pipelines.settings import PUBLISHERS, LexSettings
from release.verify import verify_artifact_set
from tests.pipelines.conftest import ROOT, definitions, run_job, settings


@pytest.mark.timeout(900)  # two runs side by side, then the release and two reference builds
def test_both_publishers_evidence_runs_side_by_side(tmp_path: Path) -> None:
    workdir, home, barrier = tmp_path / "work", tmp_path / "dagster_home", tmp_path / "barrier"
    home.mkdir()
    barrier.mkdir()
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    # opened once before the runs (a fresh SQLite instance creates its tables when first opened)
    with dg.DagsterInstance.from_config(str(home)) as instance:
        env = {**os.environ, "DAGSTER_HOME": str(home), "DAGSTER_DISABLE_TELEMETRY": "1",
               "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
        drivers = {p: subprocess.Popen([sys.executable, "-m", "tests.pipelines.partition_driver", str(workdir), p,
                                        str(barrier)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True)
                   for p in PUBLISHERS}
        reports = {}
        for publisher, proc in drivers.items():
            out, err = proc.communicate(timeout=900)
            assert proc.returncode == 0, (publisher, proc.returncode, err[-4000:])
            reports[publisher] = json.loads(out.strip().splitlines()[-1])
        assert all(r["success"] and all(r["checks"].values()) for r in reports.values()), reports

        # the two runs overlapped: each started before the other ended
        records = {p: instance.get_run_record_by_id(r["run_id"]) for p, r in reports.items()}
        assert all(r is not None and r.start_time and r.end_time for r in records.values())
        lu, eu = (records[p] for p in PUBLISHERS)
        assert lu is not None and eu is not None
        assert lu.start_time is not None and eu.start_time is not None
        assert lu.end_time is not None and eu.end_time is not None
        assert lu.start_time < eu.end_time and eu.start_time < lu.end_time
        # both runs are in the shared storage with their partitions
        runs = instance.get_runs(filters=dg.RunsFilter(job_name="evidence"))
        assert sorted(r.tags.get("dagster/partition", "") for r in runs) == sorted(PUBLISHERS)

        release = run_job(definitions(workdir), "release", instance)
        assert release.success and all(release.checks.values())

    # what each built is what a build of its tree alone gives: every dataset file byte for byte,
    # the index's content digest (the sample is fetched with the time of fetching, so two work
    # directories' trees differ: the reference is a cold build of this one's)
    lex = settings(workdir)
    for publisher in PUBLISHERS:
        _same_as_alone(lex, publisher, tmp_path / "alone" / publisher)
    set_id = release.meta("artifact_set")["set_id"]
    _, public, _, _ = key_paths(lex)
    assert verify_artifact_set(lex.release_dir() / "sets" / set_id, [public]).set_id == set_id


def _same_as_alone(lex: LexSettings, publisher: str, scratch: Path) -> None:
    from derive.index.build import build_from_paths
    from derive.index.digest import content_digest

    tree = CorpusTree.open(lex.tree(publisher), evidence_dir=lex.evidence_dir or None)
    build_dataset(tree, scratch / "dataset", use_cache=False, workers=1)
    report = compare_dirs(scratch / "dataset", lex.derived(publisher))
    assert report.ok and report.compared >= 6, (publisher, report.mismatched, report.missing, report.extra)
    alone = build_from_paths(Publisher.parse(publisher), tree, scratch / "dataset", scratch / "index",
                             built_at=lex.built_at_stamp())
    with contextlib.closing(sqlite3.connect(f"file:{lex.indexes() / f'{publisher}.sqlite'}?mode=ro", uri=True)) as conn:
        assert content_digest(conn) == alone.stamp["content_digest"], publisher
