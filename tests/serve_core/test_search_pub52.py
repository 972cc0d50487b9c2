"""The publisher a question names keeps the lead the hand-set order of sections gave it: the learnt order of sections
does not take it away (ADR 0180, search.kept_asked_first)."""

from __future__ import annotations

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



# -- a question naming one of Luxembourg's own bodies (search.names_own_body) ------------------------------------


def _words(question: str) -> list[str]:
    return question.split(" ")


def test_a_question_naming_a_luxembourg_body_names_luxembourg() -> None:
    words = _words("obligation de compensation des produits derives de gre a gre surveillance par la cssf")
    assert search.names_own_body(words) and search.asks_of_country(words)
    assert search.names_own_body(_words("qui signe les proces verbaux de la chambre des deputes"))
    assert search.names_own_body(_words("missions de la police grand ducale"))
    assert search.asked_publisher(search.asks_eu_form("surveillance par la CSSF"), search.asks_of_country(words)) == LU


def test_a_body_of_the_union_or_a_part_of_a_name_is_no_luxembourg_body(monkeypatch: pytest.MonkeyPatch) -> None:
    assert not search.names_own_body(_words("supervision by esma of credit rating agencies"))
    assert not search.names_own_body(_words("police cooperation between member states"))
    assert not search.names_own_body(_words("rights of the data subject inter alia to access"))  # no acronym ALIA
    assert not search.names_own_body(_words("la chambre de commerce et les deputes"))  # words apart: no name
    monkeypatch.setattr(search, "OWN_BODIES_ASKED", False)
    assert not search.names_own_body(["cssf"])
