"""The derive stage declares, records and checks every table of the dataset contract.

Over the session's baseline (two full runs over the bundled sample): the ``provisions``
materialisation records rows, bytes and SHA-256 of ``provisions``, ``states``,
``version_events`` and ``version_visibility`` (as the files on disk hold them); the signed set
carries each of them; and the skip decision covers them — a deleted or altered table (in the
merged dataset or in a shard) makes the stage run again and puts the same bytes back, where it
used to be skipped as "inputs unchanged".
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from legal.artifacts import DATASET_FILES, DATASET_TABLES
from legal.ids import Publisher
from pipelines import derive_stage
from pipelines.settings import PUBLISHERS, SHARDS
from tests.pipelines.conftest import Baseline, copy_workdir, settings

SKIPPED = "inputs unchanged"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_provisions_materialisation_records_every_table(baseline: Baseline) -> None:
    lex = settings(baseline.workdir)
    for publisher in PUBLISHERS:
        dataset = lex.derived(publisher)
        for run in (baseline.first, baseline.second):  # built, then skipped: the same facts
            tables = run.evidence[publisher].meta("provisions", publisher)["tables"]
            assert list(tables) == list(DATASET_TABLES)
            for name, facts in tables.items():
                path = dataset / name
                assert facts == {"rows": pq.read_metadata(path).num_rows, "bytes": path.stat().st_size,
                                 "sha256": _sha(path)}, (publisher, name)
            assert tables["provisions.parquet"]["rows"] == run.evidence[publisher].meta(
                "provisions", publisher)["provisions"]
            assert all(tables[name]["rows"] > 0 for name in DATASET_TABLES)
        shard = baseline.first.evidence[publisher].meta("provision_shards", f"{publisher}|0")
        assert list(shard["tables"]) == list(DATASET_TABLES)


def test_the_promoted_set_carries_every_dataset_file_as_derived(baseline: Baseline) -> None:
    lex = settings(baseline.workdir)
    set_dir = lex.release_dir() / "sets" / baseline.first.release.meta("artifact_set")["set_id"]
    for publisher in PUBLISHERS:
        for name in DATASET_FILES:
            assert _sha(set_dir / "dataset" / publisher / name) == _sha(lex.derived(publisher) / name), name


@pytest.mark.parametrize("change", ["deleted", "altered"])
@pytest.mark.parametrize("table", DATASET_TABLES[1:])
def test_a_deleted_or_altered_table_is_not_skipped_as_unchanged(tmp_path: Path, baseline: Baseline,
                                                                table: str, change: str) -> None:
    lex = settings(copy_workdir(baseline.workdir, tmp_path / "work"))
    publisher = Publisher.LEGILUX
    path = lex.derived(publisher.value) / table
    original = path.read_bytes()
    assert derive_stage.run(lex, publisher).skipped  # as copied: current
    if change == "deleted":
        path.unlink()
    else:
        path.write_bytes(original[:-8] + b"\x00" * 8)
    result = derive_stage.run(lex, publisher)
    assert not result.skipped and result.metadata["skipped"] == ""
    assert result.metadata["shards_derived_in_step"] == []  # the shards were current: merged again only
    assert path.read_bytes() == original and result.metadata["tables"][table]["sha256"] == _sha(path)
    assert derive_stage.run(lex, publisher).skipped  # and current again


def test_a_shard_without_a_table_is_derived_again(tmp_path: Path, baseline: Baseline) -> None:
    lex = settings(copy_workdir(baseline.workdir, tmp_path / "work"))
    publisher = Publisher.EURLEX
    shard = lex.shard(publisher.value, 1, SHARDS) / "version_events.parquet"
    original = shard.read_bytes()
    assert derive_stage.run_shard(lex, publisher, 1).skipped
    shard.unlink()
    result = derive_stage.run_shard(lex, publisher, 1)
    assert not result.skipped and shard.read_bytes() == original
    assert result.data_version == baseline.first.evidence[publisher.value].data_versions[
        f"provision_shards[{publisher.value}|1]"]
