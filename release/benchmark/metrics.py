"""Ranking metrics, as pure functions over gain lists (index_ops.md §6).

A *gain list* is the judged grade of each distinct ranked unit, best rank first (0 for a
unit that is not relevant). With every grade equal to 1 the functions reduce to the
reference's binary definitions:

- reciprocal rank: ``1 / rank`` of the first unit with a positive gain, else 0;
- recall@k: relevant units found in the first k over all relevant units;
- nDCG@k: ``DCG = Σ gain_i / log2(i + 2)`` over the first k (i from 0), divided by the DCG
  of the ideal ordering of the judged grades (at most k of them); linear gain, so a grade-3
  answer weighs three times a grade-1 related item;
- latency percentiles: nearest rank (``ceil(q/100 · n)``-th smallest sample).

Empty denominators return ``None`` ("not measured"), never a flattering 1.0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

K = 10


def dcg(gains: Sequence[float], k: int = K) -> float:
    """Discounted cumulative gain of the first ``k`` gains."""
    return sum(gain / math.log2(i + 2) for i, gain in enumerate(gains[:k]))


def ndcg(gains: Sequence[float], grades: Iterable[float], k: int = K) -> float:
    """nDCG@k of ``gains`` against the judged ``grades`` (0.0 when nothing is relevant)."""
    ideal = dcg(sorted((g for g in grades if g > 0), reverse=True), k)
    return dcg(gains, k) / ideal if ideal > 0 else 0.0


def first_relevant_rank(gains: Sequence[float], k: int = K) -> int | None:
    """1-based rank of the first positive gain within the first ``k``."""
    return next((i + 1 for i, gain in enumerate(gains[:k]) if gain > 0), None)


def reciprocal_rank(gains: Sequence[float], k: int = K) -> float:
    rank = first_relevant_rank(gains, k)
    return 1.0 / rank if rank is not None else 0.0


def recall(found: int, relevant: int) -> float | None:
    """Share of the relevant units found (``None`` when nothing is relevant)."""
    if relevant <= 0:
        return None
    return min(found, relevant) / relevant


def mean(values: Iterable[float | None]) -> float | None:
    """Mean of the measured values (``None`` entries skipped; ``None`` if none remain)."""
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def share(flags: Iterable[bool | None]) -> float | None:
    """Share of true flags among the measured ones (``None`` entries skipped)."""
    return mean(None if f is None else (1.0 if f else 0.0) for f in flags)


def nearest_rank(samples: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile (0 < q ≤ 100) by nearest rank; ``None`` without samples."""
    if not samples:
        return None
    if not 0 < q <= 100:
        raise ValueError("percentile must be in (0, 100]")
    ordered = sorted(samples)
    return ordered[max(1, math.ceil(q / 100 * len(ordered))) - 1]
