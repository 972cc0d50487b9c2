"""With no index mounted, every operation answers no_corpus_mounted (never an empty list)."""

from __future__ import annotations

from pathlib import Path

import pytest

from serve.core import OPERATIONS, LegalCore

VALID = {
    "search": {"query": "data protection"},
    "as_of": {"work": "eu-eurlex:32016r0679", "date": "2021-01-01"},
    "timeline": {"work": "eu-eurlex:32016r0679"},
    "in_force_on": {"date": "2021-01-01"},
    "diff": {"work": "eu-eurlex:32016r0679", "from_date": "2016-01-01", "to_date": "2021-01-01"},
    "article_history": {"work": "eu-eurlex:32016r0679", "anchor": "art_6"},
    "provenance": {"lex_id": "eu-eurlex:32016r0679"},
    "coverage": {},
    "cited_by": {"work": "eu-eurlex:32016r0679"},
    "changes_in_period": {"from_date": "2020-01-01", "to_date": "2021-01-01"},
}


def test_every_operation_has_a_sample() -> None:
    assert set(VALID) == set(OPERATIONS)


@pytest.mark.parametrize("op", sorted(VALID))
def test_no_corpus_mounted(op: str, tmp_path: Path) -> None:
    for core in (LegalCore.empty(), LegalCore(), LegalCore.mount(tmp_path, {"set_id": "s"})):
        answer = core.call(op, VALID[op])
        assert answer["outcome"] == "no_corpus_mounted"
        assert answer["operation"] == op
        assert "publishers" not in answer and "hits" not in answer
        assert answer["detail"]
