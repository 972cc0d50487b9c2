"""Cross-publisher ranking of search hits: one normalised score per hit, one merged list.

Each publisher section ranks its own hits, but two sections are not on one scale: BM25 values
come from two indexes, and lanes differ in strength (an identifier beats a keyword match, which
beats a fallback). Every hit of an answer therefore gets a ``score`` in ``(0, 1]``:

``score = weight(match reasons) × bm25 / best bm25 of the same reasons over every section``

(the BM25 factor is 1 for lanes without BM25: identifiers, work rows, a bare article number,
metadata). The weight of a hit is the smallest weight of its match reasons (:data:`WEIGHTS`,
the lanes' documented order of evidence strength; a reason not listed weighs
:data:`DEFAULT_WEIGHT`), so ``["article_intent", "any_term"]`` weighs as a relaxed match.

``merged`` interleaves the sections by that score: a k-way merge that always takes the section
head with the highest score (ties: publisher order), never reorders a section (a hit's merge
key is capped by the key of the hit ranked before it in its section), and stops at ``limit``.
Unlike round-robin, a strong match of one publisher is never pushed down by a weak one of
another. The per-publisher sections are unchanged. With ``lead``, the head of the first section
comes first whatever its score: the search orders its sections by evidence
(:func:`serve.core.ops.search.order_sections`), and the merged list then agrees with that order
on which publisher answers first.

:func:`cap_per_work` keeps at most ``per_work_limit`` hits of one work in a section.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

WEIGHTS: Mapping[str, float] = {
    "exact_identifier": 1.0, "exact_title": 1.0, "exact_publisher_short_title": 1.0, "exact_alias": 1.0,
    "article_intent": 0.9, "contained_identifier": 0.9, "contained_title": 0.9,
    "contained_publisher_short_title": 0.9, "contained_alias": 0.9,
    "keyword": 0.8, "relaxed": 0.7, "stem": 0.6, "fuzzy": 0.5, "title_words": 0.5, "act_term": 0.5, "any_term": 0.4,
    "work_metadata": 0.2,
}
DEFAULT_WEIGHT = 0.5
T = TypeVar("T")


def weight(reasons: Sequence[str]) -> float:
    return min((WEIGHTS.get(r, DEFAULT_WEIGHT) for r in reasons), default=DEFAULT_WEIGHT)


def _bm25(hit: Mapping[str, Any]) -> float | None:
    value = hit.get("bm25")
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) and value < 0 else None


def score_hits(sections: Sequence[Mapping[str, Any]]) -> None:
    """Set ``score`` on every hit of every section (in place)."""
    best: dict[tuple[str, ...], float] = {}
    for section in sections:
        for hit in section.get("hits") or []:
            value = _bm25(hit)
            if value is not None:
                key = tuple(hit.get("match_reasons") or ())
                best[key] = min(best.get(key, 0.0), value)
    for section in sections:
        for hit in section.get("hits") or []:
            reasons = tuple(hit.get("match_reasons") or ())
            value = _bm25(hit)
            factor = value / best[reasons] if value is not None and best.get(reasons) else 1.0
            hit["score"] = max(round(weight(reasons) * factor, 4), 0.0001)


def merged(sections: Sequence[Mapping[str, Any]], limit: int, *, lead: bool = False) -> list[dict[str, Any]]:
    """The hits of every section interleaved by ``score``, led by the first section's head with
    ``lead`` (see the module docstring)."""
    queues = [[dict(h) for h in s.get("hits") or []] for s in sections]
    publishers = [str(s.get("publisher")) for s in sections]
    positions = [0] * len(queues)
    ceilings = [float("inf")] * len(queues)
    out: list[dict[str, Any]] = []
    while len(out) < limit:
        heads = [(min(float(q[positions[i]].get("score") or 0.0), ceilings[i]), -i)
                 for i, q in enumerate(queues) if positions[i] < len(q)]
        if not heads:
            break
        key, negative = max(heads)
        if lead and not out and queues and queues[0]:
            key, negative = heads[0]
        i = -negative
        hit = queues[i][positions[i]]
        positions[i] += 1
        ceilings[i] = key
        out.append({**hit, "rank": len(out) + 1, "publisher": publishers[i], "publisher_rank": hit.get("rank")})
    return out


def cap_per_work(items: Iterable[T], key: Callable[[T], Hashable], cap: int | None) -> list[T]:
    """``items`` in order, at most ``cap`` per key (all of them when ``cap`` is ``None``)."""
    if cap is None:
        return list(items)
    counts: dict[Hashable, int] = {}
    out = []
    for item in items:
        k = key(item)
        counts[k] = counts.get(k, 0) + 1
        if counts[k] <= cap:
            out.append(item)
    return out
