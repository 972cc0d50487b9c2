"""An inline image in a real Legilux body (``loi-1980-03-07-n1`` 2026-08-08 carries base64 PNG
``data:`` URIs) becomes a typed figure placeholder in the provision and is absent from the index's
full-text search: no base64, no "png", no byte counts among the indexed terms."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from derive.index.text import fts_text
from tests.index.pipeline import fixture_build

WORK = "lu-legilux:loi-1980-03-07-n1"


def _figured_rows(dataset: Path) -> list[dict[str, object]]:
    rows = []
    with open(dataset / "provisions.jsonl", encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row["work_id"] == WORK and row.get("figures"):
                rows.append(row)
    return rows


def test_inline_images_are_placeholders_and_not_indexed(fixtures_dir: Path,
                                                        tmp_path_factory: pytest.TempPathFactory) -> None:
    build = fixture_build(fixtures_dir, tmp_path_factory)
    rows = _figured_rows(build.datasets["lu"])
    assert rows, "the fixture body's inline images should be typed figures"
    for row in rows:
        text = str(row["text_md"])
        assert "base64" not in text and "data:image" not in text
        for figure in row["figures"]:  # type: ignore[union-attr]
            assert figure["media_type"] == "image/png" and len(figure["sha256"]) == 64 and figure["size"] > 0
            assert f"[figure {figure['n']}: image/png, {figure['size']} bytes]" in text
        assert "[figure" not in fts_text(text)
    index = build.index_dir / "lu-legilux.sqlite"
    with sqlite3.connect(f"file:{index}?mode=ro", uri=True) as conn:
        terms = {t for (t,) in conn.execute("SELECT term FROM vocabulary")}
    assert "png" not in terms and "ivborw0kggo" not in terms  # the PNG signature's base64 prefix
    assert not any(t.startswith("ivborw0kggo") for t in terms)
