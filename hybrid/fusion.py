"""Reciprocal rank fusion (RRF) of ranked lanes, pure and deterministic.

``score(key) = Σ_lanes weight_lane / (k + rank_lane(key))`` with 1-based ranks and ``k = 60``
(Cormack et al.; the reference's value). Ties break by the best rank in the first lane (the
keyword lane: a lexical match outranks a purely semantic one at equal score), then by the best
rank in any lane, then by first appearance, so the order never depends on dict or set order.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

RRF_K = 60


@dataclass(frozen=True)
class Fused:
    key: Hashable
    score: float
    ranks: tuple[int | None, ...]  # 1-based rank of the key in each lane, None when absent


def rrf(lanes: Sequence[Sequence[Hashable]], *, k: int = RRF_K, weights: Sequence[float] | None = None) -> list[Fused]:
    """Fuse ranked lists of keys (ranks count distinct keys; a repeat within a lane is ignored)."""
    weights = list(weights) if weights is not None else [1.0] * len(lanes)
    if len(weights) != len(lanes):
        raise ValueError("one weight per lane")
    ranks: dict[Hashable, list[int | None]] = {}
    order: dict[Hashable, int] = {}
    for lane_no, lane in enumerate(lanes):
        rank = 0
        for key in lane:
            slots = ranks.setdefault(key, [None] * len(lanes))
            order.setdefault(key, len(order))
            if slots[lane_no] is None:  # a repeated key keeps its first rank and takes no other
                rank += 1
                slots[lane_no] = rank
    fused = []
    for key, slots in ranks.items():
        score = sum(w / (k + r) for w, r in zip(weights, slots, strict=True) if r is not None)
        fused.append(Fused(key, score, tuple(slots)))
    big = 1 << 30

    def sort_key(f: Fused) -> tuple[float, int, int, int]:
        first = f.ranks[0] if f.ranks and f.ranks[0] is not None else big
        best = min((r for r in f.ranks if r is not None), default=big)
        return (-f.score, first, best, order[f.key])

    return sorted(fused, key=sort_key)
