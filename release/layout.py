"""What every artifact set must hold, whoever assembled it: the dataset contract's files.

A set carries each publisher's dataset under ``dataset/<publisher>/``. Every file of the dataset
contract (:data:`legal.artifacts.DATASET_FILES`: the four Parquet tables of ``lex-dataset/3`` and
the gaps) travels together: a set that holds any file of a publisher's dataset directory but not
all of them is refused ``incomplete_dataset``, naming the first missing file, both when it is
signed (:func:`release.statement.build_statement`) and when it is verified
(:func:`release.statement.parse_statement`, before any file is opened). Files of a set that are
not under ``dataset/<publisher>/`` are not constrained here.
"""

from __future__ import annotations

from collections.abc import Iterable

from legal.artifacts import DATASET_FILES

DATASET_DIR = "dataset"


def dataset_name(publisher: str, file_name: str) -> str:
    """``dataset/<publisher>/<file_name>``: where a publisher's dataset file sits in a set."""
    return f"{DATASET_DIR}/{publisher}/{file_name}"


def dataset_publishers(names: Iterable[str]) -> list[str]:
    """The publishers with a dataset directory among ``names`` (``dataset/<publisher>/...``), sorted."""
    found = set()
    for name in names:
        parts = name.split("/")
        if len(parts) >= 3 and parts[0] == DATASET_DIR:
            found.add(parts[1])
    return sorted(found)


def missing_dataset_files(names: Iterable[str]) -> list[str]:
    """The contract's dataset files that ``names`` lacks, for every publisher it has a dataset of."""
    listed = set(names)
    return [dataset_name(publisher, file_name)
            for publisher in dataset_publishers(listed)
            for file_name in DATASET_FILES
            if dataset_name(publisher, file_name) not in listed]
