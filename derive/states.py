"""The states table (``states.parquet``, docs/derive.md §6.5): distinct text states as rows.

One row per work, language, anchor and maximal run of consecutive versions with the same
``text_sha256`` — exactly the states of the work's history file (:mod:`derive.history`), so an
article's history is a filter, not a gaps-and-islands query over ``provisions``. Intervals are the
history's *derived* ones (a state ends the day before the next later version's ``valid_from``;
the last is open), given in both conventions like the provisions.
"""

from __future__ import annotations

import datetime as _dt
import json
from typing import Any

import pyarrow as pa

from derive.parquet import DICT

COLUMNS = (
    "work_id", "publisher", "language", "anchor", "state", "text_sha256", "previous_text_sha256", "valid_from",
    "valid_to_inclusive", "valid_to_exclusive", "first_lex_id", "first_provision_id",
    "article_valid_from", "validity_conflict",
)

# Rows are built typed; the sink's conversion leaves them as they are.
SCHEMA = pa.schema([
    ("work_id", pa.string()), ("publisher", DICT), ("language", DICT), ("anchor", pa.string()),
    ("state", pa.int32()), ("text_sha256", pa.string()), ("previous_text_sha256", pa.string()),
    ("valid_from", pa.date32()),
    ("valid_to_inclusive", pa.date32()), ("valid_to_exclusive", pa.date32()), ("first_lex_id", pa.string()),
    ("first_provision_id", pa.string()), ("article_valid_from", pa.date32()), ("validity_conflict", pa.bool_()),
])


def _date(value: str | None) -> _dt.date | None:
    return None if value is None else _dt.date.fromisoformat(value)


def state_rows(history: dict[str, Any]) -> list[dict[str, Any]]:
    """The states of one work's history document, sorted by (language, anchor, valid_from)."""
    work_id = history["work_id"]
    publisher = work_id.split(":", 1)[0]
    rows: list[dict[str, Any]] = []
    for language, anchors in sorted(history["anchors_by_language"].items()):
        for anchor, runs in sorted(anchors.items()):
            ordered = sorted(runs, key=lambda r: r["valid_from"])
            previous: str | None = None
            for number, run in enumerate(ordered, 1):
                end = _date(run["valid_to"])
                rows.append({
                    "work_id": work_id, "publisher": publisher, "language": language, "anchor": anchor,
                    "state": number, "text_sha256": run["text_sha256"], "previous_text_sha256": previous,
                    "valid_from": _date(run["valid_from"]),
                    "valid_to_inclusive": end,
                    "valid_to_exclusive": None if end is None else end + _dt.timedelta(days=1),
                    "first_lex_id": run["in_version"], "first_provision_id": f"{run['in_version']}#{anchor}",
                    "article_valid_from": _date(run.get("article_valid_from")),
                    "validity_conflict": bool(run.get("validity_conflict", False)),
                })
                previous = run["text_sha256"]
    return rows


def states_table(history: bytes) -> tuple[pa.Table, int]:
    """The states of one work's history file as a table of :data:`SCHEMA`, and a size measure
    (the history file's length) for the sink's row-group bound."""
    rows = state_rows(json.loads(history))
    plain = pa.schema([pa.field(f.name, pa.string()) if f.type == DICT else f for f in SCHEMA])
    table = pa.Table.from_pylist(rows, schema=plain)
    return table, len(history)
