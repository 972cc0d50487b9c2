"""Issue #15, fifty-third session (conlu53): French plain-word questions on Legilux acts where another Legilux act
comes first (ADR 0188).

- :func:`serve.core.ops.search.code_over_untitled` and :func:`serve.core.ops.search.code_body_step`: a code listed
  among a Legilux section's first five works goes first when the first work's title says at most one of the question's
  words, its act terms cover none of it, and one provision of the code holds at least two of the question's words and
  as many as the first work's fullest provision (:func:`serve.core.ops.search.provision_words`).

The decision is tested on small sets; the step's reading of the provisions on the fixture corpus (``LEX_FIXTURES``).
"""

from __future__ import annotations

from typing import Any

import pytest

from serve.core import LegalCore, actterms
from serve.core.envelope import CallContext
from serve.core.ops import search
from tests.serve_core.term_matches import section as _section
from tests.serve_core.term_matches import works as _works

CONSUMER_CODE = "lu-legilux:loi-2011-04-08-n2"  # « Code de la consommation » (document type CODE)
TRANSPORT = "lu-legilux:loi-2021-02-05-a106"  # « Loi du 5 février 2021 sur les transports publics. »
LEAVE = "lu-legilux:loi-2023-01-06-a16"  # « Loi du 6 janvier 2023 portant institution d'un congé culturel. »
RECUEIL = "lu-legilux:loi-1925-12-17-n1"  # « Code de la sécurité sociale » (document type CODE_RECUEIL)


@pytest.mark.parametrize(("said", "covered", "held", "first"), [
    (0, 0.0, (1, 4), True),
    (1, 0.0, (3, 3), True),  # as many as the first's fullest provision
    (2, 0.0, (1, 4), False),  # the first's title says two of the question's words
    (0, 0.2, (1, 4), False),  # the first's act terms cover some of the question
    (0, 0.0, (3, 2), False),  # the code's fullest provision holds fewer words
    (0, 0.0, (0, 1), False)])  # one word is any provision's
def test_a_code_over_a_first_work_neither_titled_nor_termed(said: int, covered: float, held: tuple[int, int],
                                                            first: bool) -> None:
    assert search.code_over_untitled(said, covered, held) is first


def _ctx(core: LegalCore) -> CallContext:
    return CallContext("search", core.indexes, {}, 10.0)


def _args(query: str, **more: Any) -> dict[str, Any]:
    return {"query": query, "works": [], "result_grain": "works", "time_scope": "current", **more}


def _matches(found: dict[str, float]) -> Any:
    def matches(ctx: Any, sections: Any, plans: Any, words: Any) -> list[tuple[str, int, actterms.Match[int]]]:
        return [(w, 0, actterms.Match(i, c, ("retractation",), ("droit de retractation",)))
                for i, (w, c) in enumerate(found.items())]
    return matches


def test_the_provisions_a_work_holds_on_the_fixture_index(fixture_core: LegalCore) -> None:
    index = fixture_core.indexes["lu-legilux"]
    code = index.catalogue.rowid_of[CONSUMER_CODE.split(":", 1)[1]]
    leave = index.catalogue.rowid_of[LEAVE.split(":", 1)[1]]
    with index.session(10.0) as conn:
        assert search.provision_words(conn, code, ["delai", "retractation", "contrat", "distance"]) == 4
        assert search.provision_words(conn, leave, ["delai", "retractation", "contrat", "distance"]) == 2
        assert search.provision_words(conn, leave, []) == 0


def test_the_code_body_step_on_fixture_provisions(fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = _ctx(fixture_core)
    query = "délai de rétractation d'un contrat conclu à distance"
    # the first's title says none of the words and the terms none; one article of the code holds all four
    monkeypatch.setattr(search, "act_term_matches", _matches({}))
    sections = [_section("lu-legilux", (LEAVE, ["keyword"]), (TRANSPORT, ["keyword"]), (CONSUMER_CODE, ["keyword"]))]
    assert search.code_body_step(ctx, sections, {}, _args(query))
    assert _works(sections[0]) == [CONSUMER_CODE, LEAVE, TRANSPORT]
    # the act terms tie the first to the question: it stays
    monkeypatch.setattr(search, "act_term_matches", _matches({LEAVE: 0.3}))
    sections = [_section("lu-legilux", (LEAVE, ["keyword"]), (CONSUMER_CODE, ["keyword"]))]
    assert not search.code_body_step(ctx, sections, {}, _args(query))
    # a first work whose title says two of the question's words stays
    monkeypatch.setattr(search, "act_term_matches", _matches({}))
    sections = [_section("lu-legilux", (TRANSPORT, ["keyword"]), (CONSUMER_CODE, ["keyword"]))]
    assert not search.code_body_step(ctx, sections, {}, _args("transports publics et rétractation du contrat"))
    # a code listed past the depth read, a works search, and the switch
    sections = [_section("lu-legilux", (LEAVE, ["keyword"]), (CONSUMER_CODE, ["keyword"]))]
    assert not search.code_body_step(ctx, sections, {}, _args(query, works=[CONSUMER_CODE]))
    monkeypatch.setattr(search, "CODE_BODY_DEPTH", 1)
    assert not search.code_body_step(ctx, sections, {}, _args(query))
    monkeypatch.setattr(search, "CODE_BODY_DEPTH", 5)
    monkeypatch.setattr(search, "CODE_BODY", False)
    assert not search.code_body_step(ctx, sections, {}, _args(query))
    assert _works(sections[0]) == [LEAVE, CONSUMER_CODE]


def test_a_recueil_is_not_put_first_nor_read_first(fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = _ctx(fixture_core)
    monkeypatch.setattr(search, "act_term_matches", _matches({}))
    query = "délai de rétractation d'un contrat conclu à distance"
    sections = [_section("lu-legilux", (LEAVE, ["keyword"]), (RECUEIL, ["keyword"]))]
    assert not search.code_body_step(ctx, sections, {}, _args(query))
    sections = [_section("lu-legilux", (RECUEIL, ["keyword"]), (CONSUMER_CODE, ["keyword"]))]
    assert not search.code_body_step(ctx, sections, {}, _args(query))


@pytest.mark.parametrize(("said", "covered", "held", "hierarchy", "later"), [
    (0, (0.0, 0.3), (2, 2), ("law", "law"), True),
    (0, (0.0, 0.3), (1, 3), ("regulation", "law"), True),
    (1, (0.0, 0.3), (2, 2), ("law", "law"), False),  # the first's title says a word of the question
    (0, (0.1, 0.3), (2, 2), ("law", "law"), False),  # the first's act terms cover some of it
    (0, (0.0, 0.0), (2, 3), ("law", "law"), False),  # the later work's terms cover none
    (0, (0.0, 0.3), (3, 2), ("law", "law"), False),  # its fullest provision holds fewer words
    (0, (0.0, 0.3), (0, 1), ("law", "law"), False),  # one word only
    (0, (0.0, 0.3), (1, 3), ("law", "regulation"), False)])  # a règlement after a law
def test_a_termed_work_over_a_first_held_by_its_body_alone(said: int, covered: tuple[float, float],
                                                           held: tuple[int, int], hierarchy: tuple[str, str],
                                                           later: bool) -> None:
    assert search.termed_over_untitled(said, covered, held, hierarchy) is later


def test_the_termed_work_goes_first_on_fixture_provisions(fixture_core: LegalCore,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = _ctx(fixture_core)
    monkeypatch.setattr(search, "TERMED_BODY", True)
    query = "droits des voyageurs dans les transports"
    # the cultural leave law's title says none of the words, nor do its terms; the transport law is termed and one of
    # its provisions holds three of the words
    monkeypatch.setattr(search, "act_term_matches", _matches({TRANSPORT: 0.3}))
    sections = [_section("lu-legilux", (LEAVE, ["keyword"]), (TRANSPORT, ["keyword"]))]
    assert search.code_body_step(ctx, sections, {}, _args(query))
    assert _works(sections[0]) == [TRANSPORT, LEAVE]
    monkeypatch.setattr(search, "act_term_matches", _matches({}))
    sections = [_section("lu-legilux", (LEAVE, ["keyword"]), (TRANSPORT, ["keyword"]))]
    assert not search.code_body_step(ctx, sections, {}, _args(query))
    monkeypatch.setattr(search, "act_term_matches", _matches({TRANSPORT: 0.3}))
    monkeypatch.setattr(search, "TERMED_BODY", False)
    assert not search.code_body_step(ctx, sections, {}, _args(query))


@pytest.mark.parametrize(("covered", "held", "hierarchy", "second"), [
    ((0.2, 0.3), (1, 3), ("law", "law"), True),
    ((0.0, 0.3), (2, 4), ("regulation", "law"), True),
    ((0.3, 0.3), (1, 3), ("law", "law"), False),  # the terms cover both alike
    ((0.2, 0.3), (2, 3), ("law", "law"), False),  # one word more only
    ((0.2, 0.3), (1, 3), ("law", "regulation"), False)])  # a règlement after a law
def test_a_second_work_termed_and_held_better(covered: tuple[float, float], held: tuple[int, int],
                                              hierarchy: tuple[str, str], second: bool) -> None:
    assert search.body_second(covered, held, hierarchy) is second


def test_the_body_second_step_on_fixture_provisions(fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = _ctx(fixture_core)
    monkeypatch.setattr(search, "BODY_SECOND", True)
    query = "droits des voyageurs dans les transports"
    monkeypatch.setattr(search, "act_term_matches", _matches({LEAVE: 0.1, TRANSPORT: 0.3}))
    sections = [_section("lu-legilux", (LEAVE, ["keyword"]), (TRANSPORT, ["keyword"]))]
    assert search.body_second_step(ctx, sections, {}, _args(query))
    assert _works(sections[0]) == [TRANSPORT, LEAVE]
    # the terms say the first better: it stays
    monkeypatch.setattr(search, "act_term_matches", _matches({LEAVE: 0.4, TRANSPORT: 0.3}))
    sections = [_section("lu-legilux", (LEAVE, ["keyword"]), (TRANSPORT, ["keyword"]))]
    assert not search.body_second_step(ctx, sections, {}, _args(query))
    monkeypatch.setattr(search, "act_term_matches", _matches({TRANSPORT: 0.3}))
    monkeypatch.setattr(search, "BODY_SECOND", False)
    assert not search.body_second_step(ctx, sections, {}, _args(query))
    assert _works(sections[0]) == [LEAVE, TRANSPORT]
