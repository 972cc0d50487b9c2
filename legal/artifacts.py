"""File names that more than one package agrees on: a publisher's index and its stamp, the dataset's files.

``derive`` writes these files, ``release`` lays them out in an artifact set, ``serve`` opens
them; none of those may import another's naming rule, so the rule lives here, once.
"""

from __future__ import annotations


def index_file_name(publisher: str) -> str:
    """The SQLite index of ``publisher``: ``<publisher>.sqlite``."""
    return f"{publisher}.sqlite"


def stamp_file_name(publisher: str) -> str:
    """The build stamp beside that index: ``<publisher>.stamp.json``."""
    return f"{publisher}.stamp.json"


#: The tables of the dataset contract (docs/contracts.md §2, ``lex-dataset/3``): ``derive`` writes
#: them into each publisher's dataset directory, ``release`` carries every one of them in a signed
#: artifact set (``dataset/<publisher>/<file>``) and refuses a set that lacks one, the pipeline's
#: derive stage records and checks them.
DATASET_TABLES = ("provisions.parquet", "states.parquet", "version_events.parquet", "version_visibility.parquet")
#: The dataset's typed gaps (one JSON line per version/language without text).
DATASET_GAPS = "gaps.jsonl"
#: Every dataset file an artifact set carries per publisher.
DATASET_FILES = (*DATASET_TABLES, DATASET_GAPS)
