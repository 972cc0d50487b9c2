"""The documentation names every table and every operation it describes."""

from __future__ import annotations

from pathlib import Path

from derive.index.schema import DDL, DIGEST_ORDER
from serve.core import OPERATIONS

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _tables() -> list[str]:
    names = []
    for statement in DDL:
        words = statement.split()
        if words[0] == "CREATE" and words[1] in {"TABLE", "VIRTUAL"}:
            name = words[2] if words[1] == "TABLE" else words[3]
            names.append(name.split("(")[0])
    return names


def test_index_doc_describes_every_table() -> None:
    text = (DOCS / "index.md").read_text(encoding="utf-8")
    missing = [t for t in _tables() if f"`{t}`" not in text]
    assert not missing, missing
    assert ", ".join(t for t, _ in DIGEST_ORDER) in " ".join(text.split())


def test_legal_core_doc_describes_every_operation() -> None:
    text = (DOCS / "legal-core.md").read_text(encoding="utf-8")
    assert not [name for name in OPERATIONS if f"| `{name}` |" not in text]
