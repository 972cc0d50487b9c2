"""What every artifact set must hold, whoever assembled it: the dataset contract's files.

A set carries each publisher's dataset under ``dataset/<publisher>/``. Every file of the dataset
contract (:data:`legal.artifacts.DATASET_FILES`: the four Parquet tables of ``lex-dataset/3`` and
the gaps) travels together: a set that holds any file of a publisher's dataset directory but not
all of them is refused ``incomplete_dataset``, naming the first missing file, both when it is
signed (:func:`release.statement.build_statement`) and when it is verified
(:func:`release.statement.parse_statement`, before any file is opened). Files of a set that are
not under ``dataset/<publisher>/`` are not constrained here.

Sets signed before the tables travelled carry ``provisions.parquet`` and ``gaps.jsonl`` only
(:data:`LEGACY_DATASET_FILES`, the ``lex-dataset/2`` layout). Verification still accepts a
publisher directory holding exactly those two files, so such a set can still be verified, mounted
and rolled back to; its statement was signed as it is, so nothing could have been stripped from it
without breaking the signature. Signing a new set always requires every file.
"""

from __future__ import annotations

from collections.abc import Iterable

from legal.artifacts import DATASET_FILES

DATASET_DIR = "dataset"
#: The dataset files of a set signed before ``lex-dataset/3`` (accepted when verifying only).
LEGACY_DATASET_FILES = frozenset({"provisions.parquet", "gaps.jsonl"})


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


def missing_dataset_files(names: Iterable[str], *, accept_legacy: bool = False) -> list[str]:
    """The contract's dataset files that ``names`` lacks, for every publisher it has a dataset of.

    ``accept_legacy``: a publisher directory holding exactly :data:`LEGACY_DATASET_FILES` lacks
    nothing (verification of sets signed before the tables travelled)."""
    listed = set(names)
    missing: list[str] = []
    for publisher in dataset_publishers(listed):
        prefix = dataset_name(publisher, "")
        held = {name[len(prefix):] for name in listed if name.startswith(prefix)}
        if accept_legacy and held == LEGACY_DATASET_FILES:
            continue
        missing.extend(dataset_name(publisher, f) for f in DATASET_FILES if f not in held)
    return missing
