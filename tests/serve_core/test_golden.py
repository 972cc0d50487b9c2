"""Every operation answers the fixtures exactly as the golden files say (digests of the answers,
artifact identity aside): precomputed tables, pooled connections and bounded diffs change speed,
never answers. Regenerate deliberately with ``python -m tests.serve_core.regen_golden``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from serve.core import LegalCore
from tests.serve_core.golden_calls import answers

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("name,search", [("answers.json", False), ("search.json", True)])
def test_answers_equal_the_golden_file(fixture_core: LegalCore, name: str, search: bool) -> None:
    expected = json.loads((GOLDEN / name).read_text())
    found = answers(fixture_core, search=search)
    assert sorted(found) == sorted(expected), "the golden calls changed: regenerate deliberately"
    moved = [k for k in sorted(expected) if found[k] != expected[k]]
    assert not moved, f"{len(moved)} of {len(expected)} answers moved, e.g. {moved[:5]}"
