"""The DuckDB and pandas examples of docs/derive.md §6.5 (over the fixture datasets) and §6.6
(transaction time, over the dataset of a tree with a withdrawn and a resighted version)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

duckdb = pytest.importorskip("duckdb")
pd = pytest.importorskip("pandas")

DOC = Path(__file__).resolve().parents[2] / "docs" / "derive.md"


def _section(start: str = "### 6.5", end: str = "### 6.6") -> str:
    text = DOC.read_text(encoding="utf-8")
    return text[text.index(start):text.index(end)]


def _examples(start: str = "### 6.5", end: str = "### 6.6") -> list[tuple[str, list[str]]]:
    """(query, expected lines) for each ```sql block followed by a ```text block."""
    pairs = re.findall(r"```sql\n(.*?)```\s*```text\n(.*?)```", _section(start, end), re.S)
    return [(sql, expected.splitlines()) for sql, expected in pairs]


def _transaction_examples() -> list[tuple[str, list[str]]]:
    return _examples("### 6.6", "## 7. The git lens")


@pytest.fixture()
def layout(eu_dataset, lu_dataset, tmp_path: Path) -> Iterator[Path]:
    """``dataset/<publisher>/`` as a release lays it out, the working directory of the examples."""
    (tmp_path / "dataset").mkdir()
    (tmp_path / "dataset" / "eu-eurlex").symlink_to(eu_dataset[0])
    (tmp_path / "dataset" / "lu-legilux").symlink_to(lu_dataset[0])
    before = Path.cwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(before)


@pytest.fixture()
def transaction_layout(transaction_dataset, tmp_path: Path) -> Iterator[Path]:
    """``dataset/eu-eurlex/`` holding the dataset of the withdrawn-and-resighted tree."""
    (tmp_path / "dataset").mkdir()
    (tmp_path / "dataset" / "eu-eurlex").symlink_to(transaction_dataset)
    before = Path.cwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(before)


def _run(sql: str) -> list[str]:
    return [" | ".join(str(v) for v in row) for row in duckdb.sql(sql).fetchall()]


def test_the_doc_has_its_examples():
    assert len(_examples()) == 4
    assert len(re.findall(r"```python\n", _section())) == 1


@pytest.mark.parametrize("number", range(4))
def test_duckdb_example_gives_the_documented_rows(layout, number):
    sql, expected = _examples()[number]
    assert _run(sql) == expected


def test_pandas_example_agrees_with_duckdb(layout):
    code = re.findall(r"```python\n(.*?)```", _section(), re.S)[0]
    names: dict[str, object] = {}
    exec(compile(code, str(DOC), "exec"), names)  # the documentation's own example
    states, changed = names["states"], names["changed"]
    assert isinstance(states, pd.DataFrame) and isinstance(changed, pd.DataFrame)
    first = _run(_examples()[0][0])
    mine = [f"{r.state} | {r.valid_from} | {r.valid_to_inclusive} | {r.text_sha256[:8]}"
            for r in states.itertuples()]
    assert mine == first
    third = [line.split(" | ")[:3] for line in _run(_examples()[2][0])]
    assert [[r.work_id, r.anchor, str(r.valid_from)] for r in changed.itertuples()] == third
    both = pd.read_parquet("dataset/eu-eurlex/provisions.parquet")
    assert isinstance(both["publisher"].dtype, pd.CategoricalDtype)  # dictionary-encoded


def test_the_transaction_section_has_its_examples():
    assert len(_transaction_examples()) == 2


@pytest.mark.parametrize("number", range(2))
def test_transaction_time_example_gives_the_documented_rows(transaction_layout, number):
    sql, expected = _transaction_examples()[number]
    assert _run(sql) == expected
