"""Issue #15, fortieth session (concept40): a section that found nothing is searched again on its own
beside any other section's hits (:data:`serve.core.ops.search.RELAX_BESIDE_ANSWERED`, ADR 0124).

Before, one publisher's provisions holding every word of a plain-word question kept the other
publisher's section from being relaxed unless those provisions were on works named by none of the
question's words or held them by chance (twenty-third session, :func:`chance_hits`). The relaxed
section is then weighed by the routing rules as any section of weaker matches.

On the real fixture corpus (``LEX_FIXTURES``), with a pure check of the function beside.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from serve.core import LegalCore
from serve.core.ops import search
from serve.core.ops.search import _relax_beside_untitled

EU, LU = "eu-eurlex", "lu-legilux"


def _section(answer: dict[str, Any], publisher: str) -> dict[str, Any]:
    return next(s for s in answer["publishers"] if s["publisher"] == publisher)


@pytest.fixture
def rule_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "RELAX_BESIDE_ANSWERED", False)


def _answer(core: LegalCore, query: str) -> dict[str, Any]:
    return core.call("search", {"query": query, "limit": 10, "fuzzy": "off"})


def test_an_empty_section_beside_titled_all_words_hits_is_relaxed_and_routed_by_the_routing_rules(
        fixture_core: LegalCore) -> None:
    # the 2011 Luxembourg law on the consumer code holds every word in one provision and is named by
    # « consommation »; the EU section, empty at the strict stage, is relaxed on its own, finds one
    # work, and yields to the section holding every word (route_sections), saying why it is empty
    query = "qu'est-ce qu'une communication commerciale au sens du droit de la consommation ?"
    answer = _answer(fixture_core, query)
    lu, eu = _section(answer, LU), _section(answer, EU)
    assert lu["hits"][0]["work"] == "lu-legilux:loi-2011-04-08-n2" and lu["hits"][0]["match_reasons"] == ["keyword"]
    assert eu["hits"] == [] and eu["routed"]["reason"] == "another publisher holds every word of the query"
    assert eu["routed"]["left_out"] == 1


def test_the_relaxed_section_says_why_it_found_nothing(fixture_core: LegalCore) -> None:
    # one EU provision (the CRR's) holds the four English words; the Legilux section, relaxed on its own,
    # holds none of the English words and says so instead of answering an empty section with no reason
    answer = _answer(fixture_core, "closely correlated currencies own funds requirements")
    eu, lu = _section(answer, EU), _section(answer, LU)
    assert [h["work"] for h in eu["hits"]] == ["eu-eurlex:32013r0575"]
    assert lu["hits"] == [] and lu["relaxation_withheld"]["reason"] == "unknown_terms"


def test_with_the_rule_off_the_empty_section_is_not_searched_again(fixture_core: LegalCore, rule_off: None) -> None:
    answer = _answer(fixture_core, "closely correlated currencies own funds requirements")
    lu = _section(answer, LU)
    assert lu["hits"] == [] and lu["relaxation_withheld"] is None and lu.get("routed") is None
    answer = _answer(fixture_core, "qu'est-ce qu'une communication commerciale au sens du droit de la consommation ?")
    eu = _section(answer, EU)
    assert eu["hits"] == [] and eu.get("routed") is None


def _answered(reasons: list[str], cover: float) -> dict[str, Any]:
    return {"publisher": EU, "outcome": "succeeded", "title_coverage": cover,
            "hits": [{"work": f"{EU}:w", "anchor": "art_1", "match_reasons": reasons}]}


def test_any_answered_section_lets_an_empty_one_be_relaxed() -> None:
    indexes = [SimpleNamespace(publisher=SimpleNamespace(value=p)) for p in (EU, LU)]
    plans = {p: SimpleNamespace(terms=["inspection", "travail", "controles", "machines"]) for p in (EU, LU)}
    empty = {"publisher": LU, "outcome": "empty", "hits": [], "title_coverage": None}
    relaxed = {**_answered(["any_term"], 0.25), "publisher": LU}
    titled = [_answered(["keyword"], 0.5), empty]  # a section titled by the words, its hits not by chance
    assert _relax_beside_untitled(titled, indexes, plans, lambda i: relaxed) == [titled[0], relaxed]  # type: ignore[arg-type]
    routed = [_answered(["keyword"], 0.5), {**empty, "routed": {"reason": "x"}}]
    assert _relax_beside_untitled(routed, indexes, plans, lambda i: relaxed) == routed  # type: ignore[arg-type]
    nothing = [{**empty, "publisher": EU}, empty]
    assert _relax_beside_untitled(nothing, indexes, plans, lambda i: relaxed) == nothing  # type: ignore[arg-type]
    one_word = {p: SimpleNamespace(terms=["machines"]) for p in (EU, LU)}  # no weaker form to search
    assert _relax_beside_untitled(titled, indexes, one_word, lambda i: relaxed) == titled  # type: ignore[arg-type]
