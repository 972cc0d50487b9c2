"""Issue #15, neg33: a question naming its act as another state's (« Code du travail français », « loi
française du … », "Swiss Federal Act on Data Protection", « Mindestlohngesetz Deutschland ») asks for an
act neither Legilux nor EUR-Lex holds: every section answers no hits, typed ``foreign_law``, even where
Luxembourg holds a code of the same name. A held act whose name holds the state beside the act word
(« arrêté royal belge ») keeps the question. On the real fixture corpus (``LEX_FIXTURES``).

:func:`serve.core.jurisdiction.foreign_law` (the shape, pure) and
:func:`serve.core.ops.search.foreign_law_not_held` (the check against the names).
"""

from __future__ import annotations

from typing import Any

import pytest

from serve.core import LegalCore
from serve.core.jurisdiction import ForeignLaw, foreign_law

LU = "lu-legilux"
LABOUR_CODE = "lu-legilux:loi-2006-07-31-n2"  # "Code du travail" in SELECTION.tsv
CONSUMER_CODE = "lu-legilux:loi-2011-04-08-n2"  # "Code de la consommation"
BELGIAN_DECREE_PUBLISHED = "lu-legilux:rmin-2024-07-18-a293"  # « … portant publication de l'arrêté royal belge … »


def _answer(core: LegalCore, query: str) -> dict[str, Any]:
    return core.call("search", {"query": query, "limit": 10})


def _works(answer: dict[str, Any]) -> list[str]:
    return [hit["work"] for hit in answer["merged"]]


@pytest.mark.parametrize(("query", "shape"), [
    ("loi française du 29 juillet 1881 sur la liberté de la presse", ForeignLaw("francaise", "loi")),
    ("Code du travail français", ForeignLaw("francais", "code")),
    ("Code pénal suisse article 115", ForeignLaw("suisse", "code")),
    ("Code de la sécurité sociale belge", ForeignLaw("belge", "code")),
    ("Swiss Federal Act on Data Protection", ForeignLaw("swiss", "act")),
    ("Spanish housing law rent cap", ForeignLaw("spanish", "law")),
    ("US Foreign Corrupt Practices Act", ForeignLaw("US", "act")),
    ("belgisches Sterbehilfegesetz", ForeignLaw("belgisches", "sterbehilfegesetz")),
    ("Schweizer Bundesgesetz über die Raumplanung", ForeignLaw("schweizer", "bundesgesetz")),
    ("Mindestlohngesetz Deutschland", ForeignLaw("deutschland", "mindestlohngesetz")),
    ("droit belge", ForeignLaw("belge", "droit")),
])
def test_an_act_named_as_another_states(query: str, shape: ForeignLaw) -> None:
    assert foreign_law(query) == shape


@pytest.mark.parametrize("query", [
    "Code du travail",  # Luxembourg's own code
    "loi luxembourgeoise sur les frontaliers français",  # Luxembourg's law on a foreign matter
    "Luxembourg law on French cross-border workers",
    "loi sur l'emploi de la langue française",  # a law on a language: the link word
    "the German version of the Data Act",  # a language version: no act word right after the adjective
    "droit des ressortissants suisses",  # « droit »: a right of Swiss nationals
    "loi portant approbation de la convention avec la Belgique",  # Luxembourg's approval of a treaty
    "accord entre la France et le Luxembourg",
    "directive on the rights of French workers posted abroad",  # an EU act's form
    "Regulation on imports from China",
    "tell us the law on parental leave",  # "us" in lower case is a pronoun
])
def test_questions_that_ask_the_corpus_own_law(query: str) -> None:
    assert foreign_law(query) is None


@pytest.mark.parametrize(("query", "state", "act"), [
    ("Code du travail français", "francais", "code"),
    ("Code de la consommation belge", "belge", "code"),
    # the article cited is the foreign code's, not article L. 121-1 of Luxembourg's Code du travail
    ("article L. 121-1 du Code du travail français", "francais", "code"),
])
def test_another_states_code_answers_no_hits_where_luxembourg_holds_one_of_its_name(
        fixture_core: LegalCore, query: str, state: str, act: str) -> None:
    answer = _answer(fixture_core, query)
    assert answer["merged"] == []
    for section in answer["publishers"]:
        assert section["relaxation_withheld"] == {"reason": "foreign_law", "state": state, "act": act}


@pytest.mark.parametrize(("query", "work"), [
    ("Code du travail", LABOUR_CODE),
    ("Code de la consommation", CONSUMER_CODE),
])
def test_luxembourgs_own_code_of_that_name_still_answers(fixture_core: LegalCore, query: str, work: str) -> None:
    assert _works(_answer(fixture_core, query))[:1] == [work]


def test_a_held_name_holding_the_state_beside_the_act_keeps_the_question(fixture_core: LegalCore) -> None:
    # the ministerial regulation publishing a Belgian royal decree is titled « … l'arrêté royal belge … »
    query = "arrêté royal belge du 13 mars 2016 déterminant les régimes douaniers"
    assert foreign_law(query) == ForeignLaw("belge", "arrete")
    answer = _answer(fixture_core, query)
    assert BELGIAN_DECREE_PUBLISHED in _works(answer)
    assert all((s.get("relaxation_withheld") or {}).get("reason") != "foreign_law" for s in answer["publishers"])
