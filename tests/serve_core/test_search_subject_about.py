"""Issue #15, neg30: an act-shaped question whose most specific subject word no held act is about (ADR 0084).

The fixture indexes (the real fixture corpora) hold "restorative" and "household" in one EUR-Lex provision
each and in no work's name; "measures", "insurance" and "products" are words many acts are about. "law on
restorative insurance" answered eight Legilux provisions holding « assurance » before the rule; it answers
nothing now. "law on restorative measures" is kept: a provision holds "restorative measures" together,
the subject as the question writes it. "climatic" is held by two provisions too, but its French terms
from the cross-language lexicon (« climat », « climatique ») are in names: the question is kept.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from serve.core import LegalCore
from serve.core.envelope import CallContext
from serve.core.ops import subject_about
from serve.core.ops.subject_about import (
    about,
    mark_subject_not_about,
    plan_translations,
    provisions_holding,
    rarest_held,
    subject_forms,
    subject_not_about,
    together,
)
from serve.core.searchplan import Plan

EU, LU = "eu-eurlex", "lu-legilux"


@pytest.fixture
def conns(fixture_indexes) -> Iterator[list[sqlite3.Connection]]:  # type: ignore[no-untyped-def]
    index_dir = Path(fixture_indexes.index_dir)
    out = [sqlite3.connect(f"file:{index_dir / f'{p}.sqlite'}?mode=ro", uri=True) for p in (EU, LU)]
    yield out
    for conn in out:
        conn.close()


def _sections(core: LegalCore, query: str) -> list[dict[str, object]]:
    return list(core.call("search", {"query": query})["publishers"])


def test_the_subject_words_of_an_act_shaped_question_with_their_french_terms() -> None:
    assert subject_forms("law on restorative measures") == [
        ("restorative", ("restorative",)), ("measures", ("measures", "mesures", "mesurer"))]
    assert subject_forms("Birds Directive") == [("birds", ("birds",))]
    # a question of no act shape is not weighed
    assert subject_forms("why does my bank ask for a code from my phone") is None


def test_a_word_written_in_capitals_is_a_sigle_not_weighed() -> None:
    assert subject_forms("loi PACTE sur la croissance des entreprises") is not None
    assert "pacte" not in dict(subject_forms("loi PACTE sur la croissance des entreprises") or [])


def test_the_planner_translations_are_forms_of_the_word() -> None:
    forms = dict(subject_forms("law on restorative measures", {"restorative": ["reparatrice"]}) or [])
    assert forms["restorative"] == ("restorative", "reparatrice")
    plan = Plan(terms=["gesetz"], article_key=None, anchor=None, mentions=[], constraints=[], explicit_works=False,
                translations={"used": [{"from": "interessenvereinigungen", "to": ["interets", "groupement"]}]})
    assert plan_translations({LU: plan}) == {"interessenvereinigungen": ["interets", "groupement"]}


def test_the_rarest_word_is_the_one_fewest_provisions_hold_among_held_words() -> None:
    assert rarest_held([("measures", 128), ("restorative", 1)]) == "restorative"
    assert rarest_held([("unheld", 0), ("measures", 128)]) == "measures"  # a word held nowhere is not weighed
    assert rarest_held([("unheld", 0)]) is None


def test_a_word_held_in_passing_is_not_what_an_act_is_about(conns: list[sqlite3.Connection]) -> None:
    assert sum(provisions_holding(c, "restorative") for c in conns) >= 1
    assert not any(about(c, ("restorative",)) for c in conns)
    assert any(about(c, ("measures",)) for c in conns)  # many acts are about measures
    assert any(about(c, ("climatic", "climat", "climatique")) for c in conns)  # the French terms are in names


def test_the_question_whose_specific_word_no_act_is_about(conns: list[sqlite3.Connection]) -> None:
    assert subject_not_about(conns, "law on restorative insurance") == "restorative"
    assert subject_not_about(conns, "law on household pets") == "household"
    assert subject_not_about(conns, "law on climatic conditions") is None


def test_a_specific_word_written_beside_another_subject_word_keeps_the_question(
        conns: list[sqlite3.Connection]) -> None:
    assert not any(about(c, ("restorative",)) for c in conns)
    assert any(together(c, ("restorative",), [("measures", "mesures")]) for c in conns)
    assert not any(together(c, ("restorative",), [("insurance", "assurance")]) for c in conns)
    assert subject_not_about(conns, "law on restorative measures") is None


def test_law_on_restorative_insurance_answers_no_hits(fixture_core: LegalCore) -> None:
    for section in _sections(fixture_core, "law on restorative insurance"):
        assert section.get("hits") in (None, [])
        assert section["relaxation_withheld"] == {"reason": "subject_not_about", "word": "restorative"}


def test_law_on_household_pets_answers_no_hits(fixture_core: LegalCore) -> None:
    for section in _sections(fixture_core, "law on household pets"):
        assert section.get("hits") in (None, [])
        assert (section["relaxation_withheld"] or {}).get("reason") == "subject_not_about"


def test_a_word_whose_french_terms_name_acts_keeps_its_answer(fixture_core: LegalCore) -> None:
    assert any(s.get("hits") for s in _sections(fixture_core, "law on climatic conditions"))
    assert any(s.get("hits") for s in _sections(fixture_core, "law on restorative measures"))


def test_off_the_question_answers_as_before(fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(subject_about, "SUBJECT_ABOUT", False)
    assert any(s.get("hits") for s in _sections(fixture_core, "law on restorative insurance"))


def test_a_question_naming_a_work_is_never_weighed(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": "law on restorative insurance",
                                          "works": ["eu-eurlex:32016r0679"]})
    assert all((s.get("relaxation_withheld") or {}).get("reason") != "subject_not_about"
               for s in answer["publishers"])


def _plan(**kw: object) -> Plan:
    fields: dict[str, object] = {"terms": ["law", "restorative", "measures"], "article_key": None, "anchor": None,
                                 "mentions": [], "constraints": [], "explicit_works": False, **kw}
    return Plan(**fields)  # type: ignore[arg-type]


_QUESTION = "law on restorative insurance"


def test_the_plans_are_marked_unless_one_resolves_or_cites_a_work(fixture_core: LegalCore) -> None:
    ctx = CallContext(operation="search", indexes=fixture_core.indexes, artifact={}, deadline_seconds=5.0)
    indexes = list(fixture_core.indexes.values())
    plans = {EU: _plan(), LU: _plan()}
    mark_subject_not_about(ctx, indexes, plans, _QUESTION)
    assert plans[EU].name_not_held == {"reason": "subject_not_about", "word": "restorative"}
    for kw in ({"boost": [1]}, {"constraints": [1]}, {"article_key": "art_1"}, {"act_number": True}):
        plans = {EU: _plan(**kw), LU: _plan()}
        mark_subject_not_about(ctx, indexes, plans, _QUESTION)
        assert plans[EU].name_not_held is None and plans[LU].name_not_held is None, kw
