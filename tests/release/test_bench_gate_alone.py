"""``bench.bench_gate --alone``: per publisher, the cases whose section of the fanned-out answer is
not the answer of that publisher's index mounted alone (why the release gate keeps no per-index
result keyed by one index's bytes)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bench.bench_gate import alone_differences
from tests.index.handmade import build_handmade
from tests.release.test_bench_retrieval import CASES  # the same three judged cases


@pytest.fixture(scope="module")
def indexes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gate-alone") / "indexes"
    build_handmade(out)
    return out


def _judgments(path: Path) -> Path:
    path.write_text(json.dumps({"schema": "lex-retrieval-judgments/1", "review": {"status": "engineer-written"},
                                "cases": CASES}))
    return path


def test_every_mounted_publisher_is_compared_case_by_case(indexes: Path, tmp_path: Path) -> None:
    found = alone_differences(indexes, _judgments(tmp_path / "j.json"))
    assert sorted(found) == ["eu-eurlex", "lu-legilux"]
    ids = {c["id"] for c in CASES}
    assert all(set(cases) <= ids for cases in found.values())


def test_an_index_mounted_alone_differs_from_nothing(indexes: Path, tmp_path: Path) -> None:
    alone = tmp_path / "lu-only"
    alone.mkdir()
    for name in ("lu-legilux.sqlite", "lu-legilux.stamp.json"):
        shutil.copy2(indexes / name, alone / name)
    assert alone_differences(alone, _judgments(tmp_path / "j.json")) == {"lu-legilux": []}
