"""The evaluation cases: the deterministic planner answers them, and the real core accepts its plans."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from assistant.catalog import Catalog
from assistant.core_port import operation_schemas
from assistant.service import Assistant, Deadlines, thread_call
from assistant.subjects import CatalogueIndex, StaticCatalogue
from bench import bench_assistant
from serve.core import OPERATIONS, LegalCore

CASES = Path(bench_assistant.__file__).resolve().parents[1] / "evals" / "assistant_cases.json"


@pytest.fixture(autouse=True)
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("LEX_MODEL", "AZURE_OPENAI")):
            monkeypatch.delenv(name)


def test_catalogue_of_cases_is_well_formed() -> None:
    doc = json.loads(CASES.read_text(encoding="utf-8"))
    ids = [c["id"] for c in doc["cases"]]
    assert len(ids) >= 25 and len(set(ids)) == len(ids)
    assert {"canary-current-turn", "canary-restored-transcript"} <= set(ids)
    restored = next(c for c in doc["cases"] if c["id"] == "canary-restored-transcript")
    assert "RESTORED_TRANSCRIPT_CANARY_20C4" in restored["history"][0]
    for case in doc["cases"]:
        assert case["expected"]["operations"], case["id"]


def test_deterministic_planner_answers_every_case() -> None:
    lines: list[str] = []
    summary = bench_assistant.run(CASES, deterministic=True, out=lines.append)
    assert summary["planner"] == "deterministic" and summary["core"] == "offline-stub"
    assert summary["failed"] == [], "\n".join(lines)
    assert summary["score"] == 1.0 and lines[-1].startswith("assistant eval: ")


def test_real_core_accepts_every_executed_plan() -> None:
    """Against the real (empty) core every call is validated by the real declarations."""
    doc = json.loads(CASES.read_text(encoding="utf-8"))
    bot = Assistant(thread_call(LegalCore.empty()), Catalog.from_schemas(operation_schemas(OPERATIONS)),
                    CatalogueIndex(StaticCatalogue.from_records(doc["catalogue"])), None, Deadlines())

    async def outcomes(case: dict[str, Any]) -> list[tuple[str, str]]:
        result = await bench_assistant._ask_case(bot, case)
        return [(o["legal_outcome"], o["transport_outcome"]) for o in result.body["operations"]]

    for case in doc["cases"]:
        for legal, transport in asyncio.run(outcomes(case)):
            assert legal != "invalid_request" and transport == "completed", case["id"]


def test_date_cases_cover_the_issue_and_the_deterministic_planner_passes_them() -> None:
    doc = bench_assistant.load_cases(bench_assistant.DATE_CASES)
    cases = doc["cases"]
    assert len(cases) >= 120 and sum(c["adversarial"] for c in cases) >= 30
    assert {c["language"] for c in cases} == {"en", "fr", "de"}
    lines: list[str] = []
    summary = bench_assistant.run(bench_assistant.DATE_CASES, deterministic=True, out=lines.append)
    assert summary["failed"] == [], "\n".join(lines)
    assert summary["scored"] == len([c for c in cases if not c.get("needs_full_corpus")])
    assert summary["categories"]["adversarial"]["rate"] == 1.0
    provenance = summary["date_provenance"]
    assert provenance["dates"] > 100 and provenance["attested"] == provenance["dates"]


def test_an_executed_date_without_provenance_fails_its_case() -> None:
    plan = {"phase": "operation_plan", "operations": [
        {"operation_id": "r:0", "dates": [{"argument": "date", "value": "2020-03-01", "source": "stated"}]}]}
    attested = {"trace": [plan, {"phase": "primary", "operation_id": "r:0", "args": {"date": "2020-03-01"}}]}
    assert bench_assistant.executed_date_sources(attested) == ["stated"]
    forged = {"trace": [plan, {"phase": "primary", "operation_id": "r:0", "args": {"date": "2025-06-15"}}]}
    assert bench_assistant.executed_date_sources(forged) == [""]
    results = [bench_assistant.CaseResult("a", dates=["stated", "today"]), bench_assistant.CaseResult("b", dates=[""])]
    assert bench_assistant.date_provenance(results) == {"dates": 3, "attested": 2, "rate": 0.6667,
                                                        "by_source": {"stated": 1, "today": 1}}
