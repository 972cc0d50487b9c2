"""Issue #15, fifth pass: a provision holding a strict majority of the query's words
(``partial_terms``) competes with the all-words hits on its BM25 instead of being ranked after
every one of them; weaker lanes (any word, relaxed, title words, metadata) still come after. On
the real fixture corpus (``LEX_FIXTURES``)."""

from __future__ import annotations

from typing import Any

from serve.core import LegalCore
from serve.core.ops import search
from serve.core.searchplan import Plan

EU = "eu-eurlex"


def _section(core: LegalCore, query: str, publisher: str) -> list[dict[str, Any]]:
    answer = core.call("search", {"query": query, "fuzzy": "off"})
    return list(next(s for s in answer["publishers"] if s["publisher"] == publisher)["hits"])


def test_a_majority_of_words_hit_with_the_better_bm25_precedes_an_all_words_hit(fixture_core: LegalCore) -> None:
    # On the fixture corpus one EU provision holds every word of the question (in the merger
    # regulation), and the package travel directive holds three of the four in one provision and
    # scores better: it now comes first, where it used to follow every all-words hit.
    hits = _section(fixture_core, "contrats de crédit aux consommateurs", EU)
    reasons = [h["match_reasons"] for h in hits]
    assert ["partial_terms"] in reasons and ["keyword"] in reasons
    assert reasons.index(["partial_terms"]) < reasons.index(["keyword"])
    assert hits[0]["work"] == f"{EU}:32015l2302"


def _hit(work: int, score: float, reason: str) -> search.Hit:
    return search.Hit({"work_rowid": work, "score": score, "anchor": "art_1"}, [reason])


def test_the_rule_orders_by_relevance_inside_the_direct_tier_and_keeps_weaker_lanes_after() -> None:
    plan = Plan([], None, None, [], [], False)
    options = search.LaneOptions(10)
    # the better BM25 (more negative) first, whatever its lane among keyword, stem and partial_terms
    ranked = search.rank_hits([_hit(1, -2.0, "keyword"), _hit(2, -6.0, "partial_terms"), _hit(3, -4.0, "stem")],
                              {}, plan, options)
    assert [h.row["work_rowid"] for h in ranked] == [2, 3, 1]
    # the lanes of some words only (any_term, relaxed), names and metadata still follow every direct hit
    for weak in ("any_term", "relaxed", "title_words", "work_metadata"):
        ranked = search.rank_hits([_hit(1, -9.0, weak), _hit(2, -1.0, "keyword")], {}, plan, options)
        assert [h.row["work_rowid"] for h in ranked] == [2, 1]
    # a section whose hits are all majority-of-words hits still yields to one holding every word
    assert "partial_terms" in search._WEAK_REASONS
