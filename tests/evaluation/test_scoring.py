"""Per-case scoring: ranked works, version-bound relevance, leakage, no-hit accuracy, aggregation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from release.benchmark.judgments import Case
from release.benchmark.scoring import (
    Hit,
    aggregate,
    by_category,
    leaking,
    no_hit_correct,
    ranked_units,
    score_case,
)

GDPR = "eu-eurlex:32016r0679"
CORRIGENDUM = "eu-eurlex:32016r0679r(02)"
CRR = "eu-eurlex:32013r0575"
V2019 = "2019-12-25--" + "a" * 64
V2021 = "2021-06-29--" + "b" * 64
TWIN = "2019-12-25--" + "c" * 64


def hit(work: str, version: str | None = None, anchor: str | None = "art_1", valid_from: str | None = "2016-05-04",
        end: str | None = None) -> dict[str, Any]:
    return {"work": work, "version_key": version or f"{valid_from}--{'0' * 64}", "anchor": anchor,
            "valid_from": valid_from, "end_exclusive": end}


def test_ranked_units_are_distinct_works_in_first_appearance_order(make_case: Callable[..., Case]) -> None:
    case = make_case(relevant=[{"work": GDPR, "grade": 3}, {"work": CORRIGENDUM, "grade": 1}])
    hits = [Hit.of(h) for h in (hit(CRR), hit(GDPR), hit(GDPR, anchor="art_2"), hit(CORRIGENDUM))]
    assert ranked_units(case, hits) == [(CRR, 0), (GDPR, 3), (CORRIGENDUM, 1)]


def test_relevance_scores_of_one_case(make_case: Callable[..., Case]) -> None:
    case = make_case(relevant=[{"work": GDPR, "grade": 3, "anchors": ["art_33"]}, {"work": CORRIGENDUM, "grade": 1}])
    score = score_case(case, [hit(CRR), hit(GDPR, anchor="art_33"), hit(GDPR, anchor="art_34")])
    assert score.ranked == (CRR, GDPR)
    assert score.first_relevant_rank == 2
    assert score.reciprocal_rank == 0.5
    assert score.recall_at_10 == 0.5
    assert score.ndcg_at_10 == pytest.approx((3 / 1.5849625007211563) / (3 + 1 / 1.5849625007211563))
    assert score.anchor_recall_at_10 == 1.0
    assert score.passed


def test_a_right_work_in_the_wrong_version_earns_nothing(make_case: Callable[..., Case]) -> None:
    case = make_case(relevant=[{"work": CRR, "grade": 3, "versions": [V2019]}])
    score = score_case(case, [hit(CRR, V2021, valid_from="2021-06-29"), hit(CRR, V2019, valid_from="2019-12-25")])
    assert score.ranked == (CRR + "@other-version", CRR)
    assert score.first_relevant_rank == 2
    assert score.recall_at_10 == 1.0


def test_exact_first_needs_the_top_graded_work_first(make_case: Callable[..., Case]) -> None:
    case = make_case(id="exact-001", category="exact",
                     relevant=[{"work": GDPR, "grade": 3}, {"work": CORRIGENDUM, "grade": 1}])
    assert score_case(case, [hit(GDPR), hit(CORRIGENDUM)]).exact_first is True
    wrong = score_case(case, [hit(CORRIGENDUM), hit(GDPR)])
    assert wrong.exact_first is False
    assert not wrong.passed
    assert score_case(case, []).exact_first is False


def test_leakage_counts_hits_not_valid_on_as_of(make_case: Callable[..., Case]) -> None:
    case = make_case(id="temporal-001", category="temporal", filters={"as_of": "2020-01-01"},
                     relevant=[{"work": CRR, "grade": 3}])
    hits = [Hit.of(h) for h in (
        hit(CRR, V2019, valid_from="2019-12-25", end="2020-06-27"),      # covers 2020-01-01
        hit(CRR, V2021, valid_from="2021-06-29", end="2021-09-30"),      # later state: leak
        hit(CRR, valid_from="2019-12-25", end="2020-01-01"),             # ends the day before (half-open): leak
        hit(CRR, valid_from=None),                                       # no interval: cannot prove it, leak
        hit(GDPR, valid_from="2016-05-04", end=None),                    # open interval covering: fine
    )]
    leaks = leaking(case, hits)
    assert len(leaks) == 3
    assert all("not valid on 2020-01-01" in text for text in leaks)


def test_forbidden_versions_leak_even_without_as_of(make_case: Callable[..., Case]) -> None:
    case = make_case(id="ambiguity-001", category="ambiguity", relevant=[{"work": CRR, "grade": 3, "versions": [V2019]}],
                     forbidden=[{"work": CRR, "version": TWIN, "reason": "withdrawn twin"}])
    score = score_case(case, [hit(CRR, V2019, valid_from="2019-12-25"), hit(CRR, TWIN, valid_from="2019-12-25")])
    assert score.leaks == (f"{CRR}:{TWIN}#art_1 is forbidden",)
    assert not score.passed


def test_no_hit_accuracy(make_case: Callable[..., Case]) -> None:
    negative = make_case(id="negative-001", category="negative", relevant=[], expect_no_hits=True)
    gap = make_case(id="gap-001", category="gap", relevant=[], expect_no_hits=True, work_rows_allowed=True)
    work_row = Hit.of(hit(CRR, anchor=None))
    provision = Hit.of(hit(CRR))
    assert no_hit_correct(negative, []) is True
    assert no_hit_correct(negative, [work_row]) is False
    assert no_hit_correct(gap, [work_row]) is True
    assert no_hit_correct(gap, [work_row, provision]) is False
    assert score_case(negative, []).no_hit_correct is True
    assert score_case(negative, [hit(CRR)]).failures[0].startswith("1 hit(s) where none was expected")
    assert score_case(negative, []).reciprocal_rank is None


def test_a_case_that_did_not_run_fails(make_case: Callable[..., Case]) -> None:
    score = score_case(make_case(), [], status="unavailable")
    assert score.failures == ("case not run: unavailable",)
    assert score.reciprocal_rank is None


def test_aggregate_by_category(make_case: Callable[..., Case]) -> None:
    found = score_case(make_case(id="conceptual-001"), [hit(GDPR)], latency_ms=10.0)
    missed = score_case(make_case(id="conceptual-002"), [hit(CRR)], latency_ms=30.0)
    empty = score_case(make_case(id="negative-001", category="negative", relevant=[], expect_no_hits=True), [],
                       latency_ms=20.0)
    overall = aggregate([found, missed, empty])
    assert overall.cases == 3 and overall.passed == 2
    assert overall.mrr == 0.5
    assert overall.recall_at_10 == 0.5
    assert overall.no_hit_accuracy == 1.0
    assert overall.exact_first_accuracy is None            # no exact case: not measured
    assert overall.temporal_leakage_failures == 0
    assert overall.latency_p50_ms == 20.0 and overall.latency_p95_ms == 30.0
    groups = by_category([found, missed, empty], ["exact", "conceptual", "negative"])
    assert list(groups) == ["conceptual", "negative"]
    assert groups["negative"].mrr is None
    assert groups["conceptual"].no_hit_accuracy is None
