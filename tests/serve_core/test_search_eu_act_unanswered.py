"""Issue #15, neg51 (ADR 0176): a question asking for an act of the Union by its form or its name (« règlement
européen sur les produits cosmétiques pour animaux de compagnie », "European Media Freedom Act protection of
journalists' sources") that EUR-Lex answers with nothing, or only by EuroVoc labels or some of its words, and that
the other sections answer only so or by their names' words, asks for an EU act no index holds: every section answers
no hits, typed ``eu_act_not_held``. A question asking for Luxembourg's law carrying it out, or answered by an act
holding its words, is left alone. :func:`serve.core.ops.search.asks_eu_act` and :func:`weak_rows_only` are pure;
:func:`eu_act_unanswered` reads the plans and sections only."""

from __future__ import annotations

from typing import Any

import pytest

from derive.index.text import normalize
from serve.core.ops import search


@pytest.mark.parametrize("query", [
    "règlement européen sur les produits cosmétiques pour animaux de compagnie",
    "directive européenne sur le temps de travail",
    "directive (UE) sur les licences de pêche",
    "EU regulation on cosmetic products",
    "europäische Richtlinie über Pauschalreisen",
    "European Media Freedom Act protection of journalists' sources",
    "EU AI Act prohibited practices",
    "Chat Control regulation scanning private messages for abuse",  # "regulation" in an English question
    "directive sur les emballages",  # a form only the Union's acts have
    "Richtlinie über Pauschalreisen",
])
def test_an_eu_act_asked(query: str) -> None:
    assert search.asks_eu_act(normalize(query).split())


@pytest.mark.parametrize("query", [
    "loi transposant la directive européenne sur les services de paiement",  # Luxembourg's law carrying it out
    "règlement grand-ducal sur les produits cosmétiques",
    "Luxembourg rules implementing the EU regulation on drones",
    "Geodateninfrastruktur Umsetzung der INSPIRE Richtlinie",
    "produits cosmétiques pour animaux",  # no form
    "grand-ducal regulation on speed limits",  # Luxembourg's regulation
    "Institut luxembourgeois de regulation",  # a body's regulating, typed without its accent
    "règlement sur les produits cosmétiques",  # « règlement » alone: Luxembourg's too
])
def test_not_an_eu_act_asked(query: str) -> None:
    assert not search.asks_eu_act(normalize(query).split())


def _section(publisher: str, *reasons: list[str]) -> dict[str, Any]:
    return {"publisher": publisher, "hits": [{"work": f"{publisher}:w{i}", "match_reasons": r, "provisions": []}
                                             for i, r in enumerate(reasons)]}


class _Plan:
    mentions: tuple[str, ...] = ()
    constraints: tuple[str, ...] = ()
    act_number = None
    anchor = None
    article_key = None

    def __init__(self) -> None:
        self.name_not_held: dict[str, Any] | None = None


QUERY = "règlement européen sur les produits cosmétiques pour animaux de compagnie"


def test_an_eu_act_answered_by_some_words_only_answers_nothing() -> None:
    plans = {"eu-eurlex": _Plan(), "lu-legilux": _Plan()}
    sections = [_section("eu-eurlex"), _section("lu-legilux", ["any_term"], ["partial_terms", "translated"])]
    assert search.eu_act_unanswered(plans, sections, QUERY)  # type: ignore[arg-type]
    assert all(p.name_not_held == {"reason": "eu_act_not_held"} for p in plans.values())


def test_an_eu_act_answered_by_labels_and_title_words_only_answers_nothing() -> None:
    plans = {"eu-eurlex": _Plan(), "lu-legilux": _Plan()}
    sections = [_section("eu-eurlex", ["work_metadata"]), _section("lu-legilux", ["title_words"])]
    assert search.eu_act_unanswered(plans, sections, "European Media Freedom Act protection of journalists' sources")  # type: ignore[arg-type]


@pytest.mark.parametrize("sections", [
    [_section("eu-eurlex", ["keyword"]), _section("lu-legilux", ["any_term"])],  # EUR-Lex holds every word
    [_section("eu-eurlex"), _section("lu-legilux", ["keyword"])],  # a Luxembourg act holding every word
    [_section("eu-eurlex", ["title_words"]), _section("lu-legilux", ["any_term"])],  # an EU act titled so
    [_section("eu-eurlex", ["any_term"]), _section("lu-legilux")],  # the Union's acts asked in plain words
    [_section("eu-eurlex"), _section("lu-legilux")],  # nothing to empty
])
def test_an_eu_act_answered_otherwise_is_kept(sections: list[dict[str, Any]]) -> None:
    plans = {"eu-eurlex": _Plan(), "lu-legilux": _Plan()}
    assert not search.eu_act_unanswered(plans, sections, QUERY)  # type: ignore[arg-type]
    assert all(p.name_not_held is None for p in plans.values())


def test_the_rule_switches_off() -> None:
    plans = {"eu-eurlex": _Plan(), "lu-legilux": _Plan()}
    sections = [_section("eu-eurlex"), _section("lu-legilux", ["any_term"])]
    try:
        search.EU_ACT_UNANSWERED = False
        assert not search.eu_act_unanswered(plans, sections, QUERY)  # type: ignore[arg-type]
    finally:
        search.EU_ACT_UNANSWERED = True
