"""The publisher a question names keeps the lead the hand-set order of sections gave it: the learnt order of sections
does not take it away (ADR 0180, search.kept_asked_first)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from serve.core.ops import search

LU, EU = "lu-legilux", "eu-eurlex"


def _section(publisher: str, *works: str) -> dict[str, Any]:
    return {"publisher": publisher, "hits": [{"work": f"{publisher}:{w}"} for w in works]}


def test_the_asked_publisher_is_eurlex_for_a_directive_and_legilux_for_luxembourg() -> None:
    assert search.asked_publisher(eu_form=True, own_law=False) == EU
    assert search.asked_publisher(eu_form=True, own_law=True) == EU  # order_sections: the form asked comes first
    assert search.asked_publisher(eu_form=False, own_law=True) == LU
    assert search.asked_publisher(eu_form=False, own_law=False) is None


def test_a_question_naming_luxembourg_keeps_legilux_first_against_the_learnt_order() -> None:
    question = "enforcement in luxembourg of fines imposed in another eu member state"
    own = search.asks_of_country(question.split(" "))
    before = [_section(LU, "loi-2010-02-23-n1"), _section(EU, "32019l0001")]
    after = [before[1], before[0]]
    kept = search.kept_asked_first(before, after, search.asked_publisher(False, own))
    assert [s["publisher"] for s in kept] == [LU, EU]


def test_a_question_asking_for_a_directive_keeps_eurlex_first() -> None:
    before = [_section(EU, "31999l0093"), _section(LU, "loi-2000-08-14-n8")]
    after = [before[1], before[0]]
    assert search.asks_eu_form("directive relative aux signatures électroniques")
    assert search.kept_asked_first(before, after, EU) is before


def test_the_learnt_order_stands_when_the_question_names_no_publisher_or_its_lead_is_not_taken() -> None:
    before = [_section(LU, "loi-a"), _section(EU, "32014l0024")]
    after = [before[1], before[0]]
    assert search.kept_asked_first(before, after, None) is after  # nothing named: the learnt order decides
    assert search.kept_asked_first(before, before, LU) is before
    eu_first = [_section(EU, "32014l0024"), _section(LU, "loi-a")]
    lu_first = [eu_first[1], eu_first[0]]
    assert search.kept_asked_first(eu_first, lu_first, LU) is lu_first  # the learnt order gives the asked one the lead
    empty_lu = [_section(LU), _section(EU, "32014l0024")]
    assert search.kept_asked_first(empty_lu, list(reversed(empty_lu)), LU)[0]["publisher"] == EU  # no Legilux hit


def test_the_switch_turns_the_rule_off(monkeypatch: pytest.MonkeyPatch) -> None:
    before = [_section(LU, "loi-a"), _section(EU, "32014l0024")]
    after = [before[1], before[0]]
    monkeypatch.setattr(search, "ASKED_KEPT_FIRST", False)
    assert search.kept_asked_first(before, after, LU) is after


# -- an empty section beside sections titled by little of the question (search.relax_empty_alone) -----------------

TERMS = ["inspection", "travail", "participer", "controles", "machines", "vendues", "marche"]


def _index(publisher: str) -> Any:
    return SimpleNamespace(publisher=SimpleNamespace(value=publisher))


def _plans(terms: list[str]) -> dict[str, Any]:
    return {EU: SimpleNamespace(terms=terms), LU: SimpleNamespace(terms=terms)}


def _titled(section: dict[str, Any], coverage: float) -> dict[str, Any]:
    return {**section, "title_coverage": coverage}


def test_an_empty_section_beside_one_titled_by_little_of_the_question_is_relaxed_on_its_own() -> None:
    sections = [_titled(_section(EU, "32023r1230"), 0.1429), _section(LU)]
    asked: list[str] = []

    def relaxed(index: Any) -> dict[str, Any]:
        asked.append(index.publisher.value)
        return _section(LU, "loi-2010-05-27-n2")

    out = search.relax_empty_alone(sections, [_index(EU), _index(LU)], _plans(TERMS), relaxed)
    assert asked == [LU]
    assert out[0] is sections[0] and out[1]["hits"][0]["work"] == f"{LU}:loi-2010-05-27-n2"


def test_no_relaxation_beside_a_section_titled_by_the_question_or_of_a_short_question() -> None:
    def relaxed(index: Any) -> dict[str, Any]:
        raise AssertionError("not searched again")

    indexes = [_index(EU), _index(LU)]
    titled = [_titled(_section(EU, "32006l0042"), 0.5), _section(LU)]
    assert search.relax_empty_alone(titled, indexes, _plans(TERMS), relaxed) is titled
    short = [_titled(_section(EU, "32006l0042"), 0.0), _section(LU)]
    assert search.relax_empty_alone(short, indexes, _plans(["machines"]), relaxed) is short  # no weaker form
    routed = [_titled(_section(EU, "32006l0042"), 0.0), {**_section(LU), "routed": {"reason": "left out"}}]
    assert search.relax_empty_alone(routed, indexes, _plans(TERMS), relaxed) is routed
    nothing = [_section(EU), _section(LU)]
    assert search.relax_empty_alone(nothing, indexes, _plans(TERMS), relaxed) is nothing


def test_the_switch_turns_the_relaxation_off(monkeypatch: pytest.MonkeyPatch) -> None:
    sections = [_titled(_section(EU, "32023r1230"), 0.1429), _section(LU)]
    monkeypatch.setattr(search, "EMPTY_ALONE", False)
    assert search.relax_empty_alone(sections, [_index(EU), _index(LU)], _plans(TERMS),
                                    lambda index: _section(LU, "loi-a")) is sections
