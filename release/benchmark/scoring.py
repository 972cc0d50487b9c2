"""Score one case from its ranked hits, and aggregate case scores per category and overall.

Ranked units are distinct works in first-appearance order (index_ops.md §6: "ranked distinct
works"). When a relevant item names the versions that count, a hit of that work in any other
version is a distinct, non-relevant unit (``<work>@other-version``), so a right work in the
wrong state earns nothing. A hit *leaks* when the case has ``as_of`` and the hit's state
does not cover that day (``valid_from <= as_of < end_exclusive``; a hit without an interval
cannot prove it covers the day and counts as a leak), or when it matches a forbidden item.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from release.benchmark import metrics
from release.benchmark.judgments import Case

OTHER_VERSION = "@other-version"


@dataclass(frozen=True)
class Hit:
    """The fields of a search hit that scoring reads."""

    work: str | None
    version_key: str | None
    anchor: str | None
    valid_from: str | None
    end_exclusive: str | None

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> Hit:
        def text(key: str) -> str | None:
            value = row.get(key)
            return value if isinstance(value, str) and value else None
        return cls(text("work"), text("version_key"), text("anchor"), text("valid_from"), text("end_exclusive"))

    def covers(self, day: str) -> bool:
        """Whether this hit's state is valid on ``day`` (half-open interval)."""
        if self.valid_from is None or self.valid_from > day:
            return False
        return self.end_exclusive is None or day < self.end_exclusive

    def label(self) -> str:
        return f"{self.work}:{self.version_key or '?'}" + (f"#{self.anchor}" if self.anchor else "")


@dataclass(frozen=True)
class CaseScore:
    """What one case measured. Relevance fields are ``None`` for no-hit cases and vice versa."""

    case_id: str
    category: str
    hits: int
    ranked: tuple[str, ...]
    first_relevant_rank: int | None = None
    reciprocal_rank: float | None = None
    recall_at_10: float | None = None
    ndcg_at_10: float | None = None
    anchor_recall_at_10: float | None = None
    exact_first: bool | None = None
    no_hit_correct: bool | None = None
    leaks: tuple[str, ...] = ()
    latency_ms: float | None = None
    status: str = "ok"
    failures: tuple[str, ...] = field(default=())

    @property
    def passed(self) -> bool:
        return not self.failures


# -- one case ------------------------------------------------------------------------------


def unit_of(case: Case, hit: Hit) -> tuple[str, int]:
    """The ranked unit of a hit and its gain."""
    work = hit.work or "?"
    item = case.relevant_for(hit.work)
    if item is None:
        return work, 0
    if not item.accepts(hit.version_key):
        return work + OTHER_VERSION, 0
    return work, item.grade


def ranked_units(case: Case, hits: Sequence[Hit], k: int = metrics.K) -> list[tuple[str, int]]:
    """Distinct units in first-appearance order, at most ``k``."""
    out: list[tuple[str, int]] = []
    seen: set[str] = set()
    for hit in hits:
        unit, gain = unit_of(case, hit)
        if unit not in seen:
            seen.add(unit)
            out.append((unit, gain))
    return out[:k]


def leaking(case: Case, hits: Sequence[Hit]) -> list[str]:
    """Labels of the hits that leak (wrong date for ``as_of``, or forbidden)."""
    as_of = case.filters.as_of
    out = []
    for hit in hits:
        if as_of is not None and not hit.covers(as_of):
            out.append(f"{hit.label()} not valid on {as_of}")
        elif any(f.matches(hit.work, hit.version_key) for f in case.forbidden):
            out.append(f"{hit.label()} is forbidden")
    return out


def anchor_recall(case: Case, hits: Sequence[Hit]) -> float | None:
    """Share of the judged (work, anchor) pairs present among the hits (``None`` if none judged)."""
    wanted = {(r.work, a) for r in case.relevant for a in r.anchors}
    if not wanted:
        return None
    found = {(h.work, h.anchor) for h in hits
             if (item := case.relevant_for(h.work)) is not None and item.accepts(h.version_key)}
    return len(wanted & found) / len(wanted)


def no_hit_correct(case: Case, hits: Sequence[Hit]) -> bool:
    """No hit at all; or, when work rows are allowed, no provision (text) hit."""
    if case.work_rows_allowed:
        return all(h.anchor is None for h in hits)
    return not hits


def score_case(case: Case, rows: Sequence[Mapping[str, Any]], *, latency_ms: float | None = None,
               status: str = "ok", k: int = metrics.K) -> CaseScore:
    """Score ``case`` from its merged, ranked hit rows."""
    hits = [Hit.of(r) for r in rows]
    units = ranked_units(case, hits, k)
    leaks = tuple(leaking(case, hits))
    base = CaseScore(case.id, case.category, len(hits), tuple(u for u, _ in units), leaks=leaks,
                     latency_ms=latency_ms, status=status)
    if status != "ok":
        return _with_failures(base, (f"case not run: {status}",))
    if case.expect_no_hits:
        return _no_hit_score(case, hits, base)
    return _relevance_score(case, hits, units, base)


def _no_hit_score(case: Case, hits: Sequence[Hit], base: CaseScore) -> CaseScore:
    correct = no_hit_correct(case, hits)
    failures = [] if correct else [f"{len(hits)} hit(s) where none was expected: "
                                   + ", ".join(h.label() for h in hits[:3])]
    return _with_failures(replace(base, no_hit_correct=correct), (*failures, *base.leaks))


def _relevance_score(case: Case, hits: Sequence[Hit], units: Sequence[tuple[str, int]], base: CaseScore) -> CaseScore:
    gains = [gain for _, gain in units]
    found = sum(1 for unit, gain in units if gain > 0 and not unit.endswith(OTHER_VERSION))
    rank = metrics.first_relevant_rank(gains)
    exact_first = None
    failures: list[str] = []
    if case.category == "exact":
        exact_first = bool(gains) and gains[0] == case.top_grade
        if not exact_first:
            failures.append(f"first ranked work is {units[0][0] if units else 'none'}, not the identified work")
    if rank is None:
        failures.append("no relevant work in the first 10")
    scored = replace(base, first_relevant_rank=rank, reciprocal_rank=metrics.reciprocal_rank(gains),
                      recall_at_10=metrics.recall(found, len(case.relevant)),
                      ndcg_at_10=metrics.ndcg(gains, [r.grade for r in case.relevant]),
                      anchor_recall_at_10=anchor_recall(case, hits), exact_first=exact_first)
    return _with_failures(scored, (*failures, *base.leaks))


def _with_failures(score: CaseScore, failures: Sequence[str]) -> CaseScore:
    return replace(score, failures=tuple(failures))


# -- aggregation ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Aggregate:
    """Metrics over a group of case scores (``None`` = not measured for this group)."""

    cases: int
    passed: int
    mrr: float | None
    recall_at_10: float | None
    ndcg_at_10: float | None
    exact_first_accuracy: float | None
    temporal_leakage_failures: int
    no_hit_accuracy: float | None
    anchor_recall_at_10: float | None
    latency_p50_ms: float | None
    latency_p95_ms: float | None


def aggregate(scores: Sequence[CaseScore]) -> Aggregate:
    """Means over the cases where each metric applies; leakage is a count of leaking hits."""
    latencies = [s.latency_ms for s in scores if s.latency_ms is not None]
    return Aggregate(
        cases=len(scores),
        passed=sum(1 for s in scores if s.passed),
        mrr=metrics.mean(s.reciprocal_rank for s in scores),
        recall_at_10=metrics.mean(s.recall_at_10 for s in scores),
        ndcg_at_10=metrics.mean(s.ndcg_at_10 for s in scores),
        exact_first_accuracy=metrics.share(s.exact_first for s in scores),
        temporal_leakage_failures=sum(len(s.leaks) for s in scores),
        no_hit_accuracy=metrics.share(s.no_hit_correct for s in scores),
        anchor_recall_at_10=metrics.mean(s.anchor_recall_at_10 for s in scores),
        latency_p50_ms=metrics.nearest_rank(latencies, 50),
        latency_p95_ms=metrics.nearest_rank(latencies, 95),
    )


def by_category(scores: Sequence[CaseScore], categories: Sequence[str]) -> dict[str, Aggregate]:
    return {c: aggregate([s for s in scores if s.category == c]) for c in categories
            if any(s.category == c for s in scores)}
