"""Running cases through a search core: arguments, merge across publishers, unavailable modes, errors."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest

from legal.errors import RequestError
from release.benchmark.judgments import Case, JudgmentsError, parse_judgments
from release.benchmark.runner import check_cases, interleave, merged_hits, run_case, search_args
from serve.core import LegalCore

from .conftest import judgments_document


class FakeCore:
    """Answers every search with fixed publisher sections and records the arguments."""

    def __init__(self, sections: list[dict[str, Any]] | None = None, error: Exception | None = None) -> None:
        self.sections = sections or []
        self.error = error
        self.calls: list[Mapping[str, Any]] = []

    def call(self, name: str, args: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
        self.calls.append(dict(args or {}))
        if self.error is not None:
            raise self.error
        return {"operation": name, "outcome": "succeeded", "publishers": self.sections}


def ticking() -> Callable[[], float]:
    clock: Iterator[float] = iter(float(i) for i in range(1000))
    return lambda: next(clock)


def rows(publisher: str, n: int) -> list[dict[str, Any]]:
    return [{"work": f"{publisher}:w{i}", "rank": i} for i in range(1, n + 1)]


def test_search_args_follow_the_case(make_case: Callable[..., Case]) -> None:
    temporal = make_case(id="temporal-001", category="temporal", query="leverage ratio",
                         filters={"publisher": "eu-eurlex", "language": "en", "as_of": "2020-01-01",
                                  "works": ["eu-eurlex:32013r0575"]})
    assert search_args(temporal) == {
        "query": "leverage ratio", "limit": 10, "retrieval_mode": "keyword", "fuzzy": "off",
        "publisher": "eu-eurlex", "language": "en", "works": ["eu-eurlex:32013r0575"],
        "time_scope": "as_of", "as_of": "2020-01-01"}
    assert search_args(make_case(id="fuzzy-001", category="fuzzy"), "hybrid")["fuzzy"] == "auto"
    assert search_args(make_case(id="fuzzy-001", category="fuzzy", filters={"fuzzy": "off"}))["fuzzy"] == "off"
    assert search_args(make_case(), "hybrid")["retrieval_mode"] == "hybrid"


def test_interleave_takes_rank_by_rank_across_publishers() -> None:
    eu, lu = rows("eu", 3), rows("lu", 1)
    merged = interleave([eu, lu], limit=10)
    assert [r["work"] for r in merged] == ["eu:w1", "lu:w1", "eu:w2", "eu:w3"]
    assert len(interleave([rows("eu", 8), rows("lu", 8)], limit=10)) == 10
    assert interleave([]) == []


def test_merged_hits_of_a_single_publisher_answer() -> None:
    assert merged_hits({"outcome": "succeeded", "hits": rows("eu", 2)}) == rows("eu", 2)


def test_run_case_times_the_call_and_merges(make_case: Callable[..., Case]) -> None:
    core = FakeCore([{"publisher": "eu-eurlex", "outcome": "succeeded", "hits": rows("eu", 2)},
                     {"publisher": "lu-legilux", "outcome": "empty", "hits": []}])
    run = run_case(core, make_case(), timer=ticking())
    assert run.status == "ok"
    assert run.latency_ms == 1000.0
    assert [h["work"] for h in run.hits] == ["eu:w1", "eu:w2"]
    assert core.calls[0]["query"] == "q"


def test_an_unavailable_mode_is_recorded_not_scored_as_keyword(make_case: Callable[..., Case]) -> None:
    core = FakeCore([{"publisher": "eu-eurlex", "outcome": "succeeded", "hits": rows("eu", 1)},
                     {"publisher": "lu-legilux", "outcome": "retrieval_mode_unavailable",
                      "retrieval_unavailable_reason": "not_activated", "hits": []}])
    run = run_case(core, make_case(), "hybrid", timer=ticking())
    assert (run.status, run.detail, run.hits) == ("unavailable", "not_activated", ())


def test_a_refused_call_is_an_error_case(make_case: Callable[..., Case]) -> None:
    run = run_case(FakeCore(error=RequestError("nope", code="invalid_argument")), make_case(), timer=ticking())
    assert run.status == "error"
    assert run.detail.startswith("invalid_argument")


def test_cases_the_search_declaration_refuses_are_caught_before_running() -> None:
    case = {"id": "conceptual-001", "category": "conceptual", "query": "x", "filters": {"document_type": "X" * 65},
            "relevant": [{"work": "eu-eurlex:32016r0679", "grade": 3}], "expect_no_hits": False}
    cases = parse_judgments(judgments_document([case])).cases
    with pytest.raises(JudgmentsError) as caught:
        check_cases(cases, LegalCore.operation("search").validate)
    assert (caught.value.code, caught.value.subject) == ("case_not_searchable", "conceptual-001")
    with pytest.raises(JudgmentsError) as caught:
        check_cases(cases, LegalCore.operation("search").validate, "semantic")
    assert caught.value.code == "invalid_mode"
