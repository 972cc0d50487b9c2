"""Issue #15, tenth session: questions in a lawyer's words. A provision holding a majority of an
unnamed question's words (reason ``partial_terms``) ranks among the provisions holding every word,
its relevance weighed by :data:`serve.core.ops.search.PARTIAL_WEIGHT`, instead of after all of them:
a long text off the subject (a collective agreement, a budget law) holds every word of a long
question by chance, the act that answers it holds most of them densely. On the real fixture corpus
(``LEX_FIXTURES``) where it covers the rule."""

from __future__ import annotations

from typing import Any

import pytest

from serve.core import LegalCore, ranking
from serve.core.ops import search
from serve.core.searchplan import Plan

EU = "eu-eurlex"


def _hit(work: int, anchor: str | None, score: float | None, *reasons: str) -> search.Hit:
    return search.Hit({"work_rowid": work, "anchor": anchor, "score": score}, list(reasons))


def _plan(**changes: Any) -> Plan:
    fields: dict[str, Any] = {
        "terms": ["duree", "maximale", "periode", "essai", "salarie"],
        "article_key": None,
        "anchor": None,
        "mentions": [],
        "constraints": [],
        "explicit_works": False,
    }
    return Plan(**{**fields, **changes})


def _ranked(hits: list[search.Hit], plan: Plan, grain: str = "works") -> list[int]:
    profiles = {w: ranking.WorkProfile("in_force", "principal", "law", "…") for w in (1, 2, 3)}
    options = search.LaneOptions(limit=10, grain=grain)
    return [h.row["work_rowid"] for h in search.rank_hits(hits, profiles, plan, options)]


def test_a_dense_majority_of_words_outranks_a_weak_all_words_provision() -> None:
    hits = [_hit(1, "art1", -10.0, "keyword"), _hit(2, "art2", -30.0, "partial_terms")]
    assert _ranked(hits, _plan()) == [2, 1]  # 30 × 0.7 = 21 > 10


def test_an_all_words_provision_keeps_its_lead_over_a_comparable_partial_one() -> None:
    hits = [_hit(1, "art1", -20.0, "keyword"), _hit(2, "art2", -25.0, "partial_terms")]
    assert _ranked(hits, _plan()) == [1, 2]  # 25 × 0.7 = 17.5 < 20


def test_the_rule_holds_only_for_unnamed_questions_at_the_works_grain() -> None:
    hits = [_hit(1, "art1", -10.0, "keyword"), _hit(2, "art2", -30.0, "partial_terms")]
    # a work named softly: the all-words rows first
    assert _ranked(hits, _plan(boost=[3])) == [1, 2]
    assert _ranked(hits, _plan(constraints=[3])) == [1, 2]
    assert _ranked(hits, _plan(), grain="provisions") == [1, 2]


def test_other_weak_lanes_stay_after_the_direct_tier() -> None:
    plan = _plan()
    assert search.hit_tier(_hit(2, "a", -30.0, "any_term"), True) == (search.TIER_WEAK, 1.0)
    assert search.hit_tier(_hit(2, None, None, "work_metadata"), True) == (search.TIER_WEAK, 1.0)
    assert search.hit_tier(_hit(2, "a", -30.0, "partial_terms"), False) == (search.TIER_WEAK, 1.0)
    assert search.hit_tier(_hit(2, "a", -30.0, "partial_terms"), True) == (
        search.TIER_DIRECT,
        search.PARTIAL_WEIGHT,
    )
    assert search.partial_competes(plan, search.LaneOptions(limit=10))


def test_on_the_fixtures_a_partial_provision_competes_by_its_score(
    fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch
) -> None:
    query = {
        "query": "controller must notify a breach to the supervisory authority without delay",
        "limit": 10,
        "publisher": EU,
    }

    def reasons() -> list[list[str]]:
        answer = fixture_core.call("search", query)
        section = next(iter(answer.get("publishers") or [answer]))
        return [h["match_reasons"] for h in section["hits"]]

    # the GDPR's breach provisions hold every word and outscore (39.9 against 26.5 × 0.7) the merger
    # regulation's provision holding a majority of them
    assert reasons()[:2] == [["keyword"], ["partial_terms"]]
    # the weight is what decides: weighed far up, the partial provision leads the same answer
    monkeypatch.setattr(search, "PARTIAL_WEIGHT", 100.0)
    assert reasons()[0] == ["partial_terms"]
