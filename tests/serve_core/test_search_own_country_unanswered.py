"""Issue #15, neg53 (ADR 0192): a question asking how a thing is in Luxembourg (it names Luxembourg and no other
state, place, EU word or treaty) that Legilux answers with nothing once the act terms were read, and that EUR-Lex
answers only by EuroVoc labels, asks for a Luxembourg law or body no index holds: every section answers no hits, typed
``own_law_not_held``. A EUR-Lex row holding some of the question's words, a Legilux row, a routed Legilux section or a
question naming an act leaves the answer as it is. Pure; the plans and sections are stand-ins."""

from __future__ import annotations

from typing import Any

import pytest

from derive.index.text import normalize
from serve.core import jurisdiction
from serve.core.ops import search


@pytest.mark.parametrize("query", [
    "Luxembourg video game regulatory authority and its powers",
    "autorité luxembourgeoise des jeux vidéo",
    "Luxemburger Behörde für Videospiele",
])
def test_luxembourg_alone(query: str) -> None:
    assert jurisdiction.luxembourg_alone(normalize(query).split())


@pytest.mark.parametrize("query", [
    "video game regulatory authority",  # no country
    "Luxembourg rules implementing the EU regulation on drones",  # an EU word
    "convention between Luxembourg and Belgium on frontier workers",  # a treaty, another state
    "Luxembourg relations with the Belgian Senate",  # another state's adjective
])
def test_not_luxembourg_alone(query: str) -> None:
    assert not jurisdiction.luxembourg_alone(normalize(query).split())


def _section(publisher: str, *reasons: list[str], routed: bool = False) -> dict[str, Any]:
    section: dict[str, Any] = {"publisher": publisher, "hits": [
        {"work": f"{publisher}:w{i}", "match_reasons": r, "provisions": []} for i, r in enumerate(reasons)]}
    if routed:
        section["routed"] = {"reason": "weaker_titled"}
    return section


class _Plan:
    mentions: tuple[str, ...] = ()
    constraints: tuple[str, ...] = ()
    act_number = None
    anchor = None
    article_key = None
    boost = None
    strong = False

    def __init__(self) -> None:
        self.name_not_held: dict[str, Any] | None = None


QUERY = "Luxembourg video game regulatory authority and its powers"


def _plans() -> dict[str, _Plan]:
    return {"eu-eurlex": _Plan(), "lu-legilux": _Plan()}


def test_labels_only_beside_an_empty_legilux_answers_nothing() -> None:
    plans = _plans()
    sections = [_section("eu-eurlex", ["work_metadata"]), _section("lu-legilux")]
    assert search.own_country_unanswered(plans, sections, QUERY)  # type: ignore[arg-type]
    assert all(p.name_not_held == {"reason": "own_law_not_held"} for p in plans.values())


@pytest.mark.parametrize("sections", [
    [_section("eu-eurlex", ["work_metadata"], ["any_term"]), _section("lu-legilux")],  # some words held
    [_section("eu-eurlex", ["work_metadata"], ["act_term"]), _section("lu-legilux")],  # the act terms say it
    [_section("eu-eurlex", ["work_metadata"]), _section("lu-legilux", ["act_term"])],  # Legilux answers
    [_section("eu-eurlex", ["work_metadata"]), _section("lu-legilux", routed=True)],  # Legilux routed out
    [_section("eu-eurlex"), _section("lu-legilux")],  # nothing to empty
])
def test_other_answers_left_alone(sections: list[dict[str, Any]]) -> None:
    plans = _plans()
    assert not search.own_country_unanswered(plans, sections, QUERY)  # type: ignore[arg-type]
    assert all(p.name_not_held is None for p in plans.values())


def test_a_question_not_asking_of_luxembourg_or_naming_an_act_left_alone() -> None:
    sections = [_section("eu-eurlex", ["work_metadata"]), _section("lu-legilux")]
    assert not search.own_country_unanswered(_plans(), sections, "video game regulatory authority")  # type: ignore[arg-type]
    plans = _plans()
    plans["eu-eurlex"].mentions = ("x",)
    assert not search.own_country_unanswered(plans, sections, QUERY)  # type: ignore[arg-type]


def test_off_by_constant(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "OWN_COUNTRY_UNANSWERED", False)
    sections = [_section("eu-eurlex", ["work_metadata"]), _section("lu-legilux")]
    assert not search.own_country_unanswered(_plans(), sections, QUERY)  # type: ignore[arg-type]
