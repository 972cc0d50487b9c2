"""A dataset that carries only its Parquet (as a release may) reads as the same rows as its JSONL:
typed ``date32`` columns come back as the ISO text the rows were written with."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from derive.index.inputs import read_dataset
from tests.index.pipeline import fixture_build


@pytest.mark.parametrize("publisher", ["lu", "eu"])
def test_parquet_only_dataset_reads_as_the_jsonl_rows(fixtures_dir: Path, tmp_path_factory: pytest.TempPathFactory,
                                                      tmp_path: Path, publisher: str) -> None:
    source = fixture_build(fixtures_dir, tmp_path_factory).datasets[publisher]
    parquet_only = tmp_path / "dataset"
    shutil.copytree(source, parquet_only)
    (parquet_only / "provisions.jsonl").unlink()
    from_jsonl, from_parquet = read_dataset(source), read_dataset(parquet_only)
    assert len(from_parquet.rows) == len(from_jsonl.rows) > 0
    assert [r.__dict__ if hasattr(r, "__dict__") else r for r in from_parquet.rows] == \
        [r.__dict__ if hasattr(r, "__dict__") else r for r in from_jsonl.rows]
