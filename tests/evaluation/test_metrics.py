"""The metric functions on hand-computed examples (index_ops.md §6 definitions)."""

from __future__ import annotations

import math

import pytest

from release.benchmark import metrics


def test_reciprocal_rank_is_one_over_the_first_relevant_rank() -> None:
    assert metrics.reciprocal_rank([0, 0, 1, 1]) == pytest.approx(1 / 3)
    assert metrics.reciprocal_rank([2, 0]) == 1.0
    assert metrics.reciprocal_rank([0] * 10) == 0.0
    assert metrics.reciprocal_rank([]) == 0.0


def test_reciprocal_rank_only_looks_at_the_first_ten() -> None:
    assert metrics.reciprocal_rank([0] * 10 + [1]) == 0.0
    assert metrics.first_relevant_rank([0] * 9 + [1]) == 10


def test_mean_reciprocal_rank_over_cases() -> None:
    # ranks 1, 2 and "not found": (1 + 0.5 + 0) / 3
    rrs = [metrics.reciprocal_rank(g) for g in ([1], [0, 1], [0, 0])]
    assert metrics.mean(rrs) == pytest.approx(0.5)


def test_binary_ndcg_matches_the_reference_formula() -> None:
    # one relevant work, found at rank 2: (1/log2(3)) / (1/log2(2))
    assert metrics.ndcg([0, 1], [1]) == pytest.approx(1 / math.log2(3))
    # two relevant, found at ranks 1 and 3: (1 + 1/2) / (1 + 1/log2(3))
    assert metrics.ndcg([1, 0, 1], [1, 1]) == pytest.approx(1.5 / (1 + 1 / math.log2(3)))
    assert metrics.ndcg([1, 1], [1, 1]) == pytest.approx(1.0)
    assert metrics.ndcg([0, 0], [1]) == 0.0


def test_graded_ndcg_uses_linear_gains_and_the_ideal_order() -> None:
    # grade-1 item first, grade-3 item second; ideal is 3 then 1
    dcg = 1 + 3 / math.log2(3)
    ideal = 3 + 1 / math.log2(3)
    assert metrics.ndcg([1, 3], [3, 1]) == pytest.approx(dcg / ideal)
    assert metrics.ndcg([1, 3], [3, 1]) == pytest.approx(0.796708, abs=1e-6)


def test_ndcg_ideal_is_capped_at_ten_relevant_items() -> None:
    gains = [1] * 10
    assert metrics.ndcg(gains, [1] * 12) == pytest.approx(1.0)


def test_recall_at_10() -> None:
    assert metrics.recall(1, 2) == 0.5
    assert metrics.recall(3, 3) == 1.0
    assert metrics.recall(0, 4) == 0.0
    assert metrics.recall(0, 0) is None


def test_mean_and_share_skip_unmeasured_values() -> None:
    assert metrics.mean([None, 1.0, 0.0]) == 0.5
    assert metrics.mean([None]) is None
    assert metrics.share([True, False, None, True]) == pytest.approx(2 / 3)
    assert metrics.share([]) is None


def test_nearest_rank_percentiles() -> None:
    samples = [50.0, 15.0, 40.0, 20.0, 35.0]
    assert metrics.nearest_rank(samples, 50) == 35.0   # ceil(2.5) = 3rd
    assert metrics.nearest_rank(samples, 95) == 50.0   # ceil(4.75) = 5th
    assert metrics.nearest_rank(samples, 30) == 20.0   # ceil(1.5) = 2nd
    assert metrics.nearest_rank(samples, 100) == 50.0
    assert metrics.nearest_rank([7.0], 95) == 7.0
    assert metrics.nearest_rank([], 50) is None
    with pytest.raises(ValueError):
        metrics.nearest_rank(samples, 0)
