"""docs/contracts.md §2 and the dataset files name the same columns (drift fails here)."""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow.parquet as pq

from derive import events as E
from derive import rows as R
from derive import states as S
from derive.parquet import VALIDITY_COLUMNS, parquet_schema
from tests.derive.conftest import read_jsonl

CONTRACTS = Path(__file__).resolve().parents[2] / "docs" / "contracts.md"


def _tables() -> list[list[str]]:
    """The column tables of §2, each as the list of its column names."""
    text = CONTRACTS.read_text(encoding="utf-8")
    section = text[text.index("## 2."):text.index("## 3.")]
    tables: list[list[str]] = []
    current: list[str] | None = None
    for line in section.splitlines():
        if line.startswith("| column |"):
            current = []
            tables.append(current)
        elif current is not None and line.startswith("|") and not line.startswith("|---"):
            current.extend(re.findall(r"`([a-z0-9_]+)`", line.split("|")[1]))
        elif not line.startswith("|"):
            current = None
    return tables


def test_contract_has_the_provision_state_and_transaction_tables():
    provisions, states, events, visibility = _tables()
    assert provisions[0] == "provision_id" and states[0] == "work_id"
    assert "event" in events and "known_from" in visibility


def test_provisions_parquet_has_every_documented_column_and_no_other(eu_dataset, lu_dataset):
    documented = set(_tables()[0])
    for out, _ in (eu_dataset, lu_dataset):
        written = set(pq.read_schema(out / "provisions.parquet").names)
        assert written == set(parquet_schema(R.SCHEMA).names)
        assert not written - documented, f"undocumented columns: {sorted(written - documented)}"
        assert not documented - written, f"documented but not written: {sorted(documented - written)}"


def test_jsonl_has_the_documented_columns_but_the_parquet_only_ones(eu_dataset):
    documented = set(_tables()[0]) - set(VALIDITY_COLUMNS)
    keys = set(read_jsonl(eu_dataset[0] / "provisions.jsonl")[0])
    assert keys == set(R.COLUMNS)
    assert keys == documented


def test_states_parquet_matches_its_table(eu_dataset):
    documented = _tables()[1]
    written = pq.read_schema(eu_dataset[0] / "states.parquet").names
    assert sorted(documented) == sorted(written) == sorted(S.COLUMNS)


def test_transaction_tables_match_their_tables(eu_dataset, lu_dataset):
    _, _, events, visibility = _tables()
    for out, _ in (eu_dataset, lu_dataset):
        assert sorted(pq.read_schema(out / "version_events.parquet").names) == sorted(events) == sorted(E.EVENT_COLUMNS)
        written = pq.read_schema(out / "version_visibility.parquet").names
        assert sorted(written) == sorted(visibility) == sorted(E.VISIBILITY_COLUMNS)


def test_every_parquet_file_names_the_contract_and_its_table(eu_dataset):
    for table in ("provisions", "states", "version_events", "version_visibility"):
        meta = pq.read_schema(eu_dataset[0] / f"{table}.parquet").metadata
        assert meta[b"lex:contract"] == b"lex-dataset/3" and meta[b"lex:table"] == table.encode()
