"""Evaluation test fixtures: the real fixture indexes (shared session build) and judgment helpers."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from release.benchmark import BenchmarkRun, Judgments, retrieval_benchmark
from release.benchmark.judgments import Case, parse_case
from serve.core import LegalCore

ROOT = Path(__file__).resolve().parents[2]
JUDGMENTS = ROOT / "evals" / "retrieval_judgments.json"
CREATED_AT = "2026-08-22T00:00:00Z"


def benchmark(index_dir: Path, judgments: Judgments, **options: Any) -> tuple[dict[str, Any], BenchmarkRun]:
    """The benchmark with the real legal core injected (mounted over ``index_dir`` here, as callers do)."""
    with LegalCore.mount(index_dir) as core:
        return retrieval_benchmark(core, index_dir, judgments, **options)


@pytest.fixture()
def make_case() -> Callable[..., Case]:
    """A validated case from keyword overrides of a minimal conceptual case."""
    def build(**fields: Any) -> Case:
        raw: dict[str, Any] = {"id": "conceptual-001", "category": "conceptual", "query": "q",
                               "relevant": [{"work": "eu-eurlex:32016r0679", "grade": 3}], "expect_no_hits": False}
        raw.update(fields)
        return parse_case(raw)
    return build


def judgments_document(cases: list[dict[str, Any]]) -> bytes:
    return json.dumps({"schema": "lex-retrieval-judgments/1", "review": {"status": "engineer-written"},
                       "cases": cases}).encode("utf-8")
