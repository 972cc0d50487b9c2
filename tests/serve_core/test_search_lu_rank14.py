"""Issue #15, fourteenth pass (lurank14): the word naming Luxembourg in a question asked of Legilux
("Luxembourg law on …", "Luxemburger …gesetz", "… au Luxembourg") says which country's law is
meant, not a word the act's text must hold. Pure tests on the plan's terms; end to end on the real
fixture corpus (``LEX_FIXTURES``)."""

from __future__ import annotations

from typing import Any

import pytest

from derive.index import relax
from serve.core import LegalCore, ranking

LU, EU = "lu-legilux", "eu-eurlex"


def _content(term: str) -> bool:
    return not relax.relaxable(term)


def _sections(core: LegalCore, query: str) -> dict[str, dict[str, Any]]:
    answer = core.call("search", {"query": query, "limit": 10})
    return {s["publisher"]: dict(s) for s in answer["publishers"]}


@pytest.mark.parametrize(("terms", "synonyms", "translated", "kept"), [
    # English: the country's name goes, the subject stays
    (["luxembourg", "law", "euthanasia"], {}, True, ["law", "euthanasia"]),
    # German: a word the lexicon renders by the country's name only goes too
    (["luxemburger", "staatsangehorigkeit", "gesetz"], {"luxemburger": ["luxembourg"]}, True,
     ["staatsangehorigkeit", "gesetz"]),
    # French, enough words left: "… à l'école au Luxembourg"
    (["partir", "quel", "age", "enfant", "peut", "aller", "ecole", "luxembourg"], {}, False,
     ["partir", "quel", "age", "enfant", "peut", "aller", "ecole"]),
    # French, few words left: the any-word relaxation needs the third word, kept
    (["euthanasie", "legale", "luxembourg"], {}, False, ["euthanasie", "legale", "luxembourg"]),
    # the French adjective is an act's subject ("sur la nationalité luxembourgeoise")
    (["nationalite", "luxembourgeoise", "acquisition", "naturalisation"], {}, False,
     ["nationalite", "luxembourgeoise", "acquisition", "naturalisation"]),
    # … but after a word for the law itself it names the country ("droit luxembourgeois")
    (["collectes", "domicile", "droit", "luxembourgeois"], {}, False, ["collectes", "domicile", "droit"]),
    # the country's name alone is the question
    (["luxembourg"], {}, True, ["luxembourg"]),
])
def test_the_country_word_is_not_a_word_a_legilux_act_must_hold(
        terms: list[str], synonyms: dict[str, list[str]], translated: bool, kept: list[str]) -> None:
    assert ranking.without_own_country(terms, synonyms, translated, _content) == kept


def test_a_word_the_lexicon_renders_by_more_than_the_country_is_kept() -> None:
    # a mined rendering "luxembourg" beside another French word: the word means more than the country
    assert ranking.own_country_terms(["banque", "zentral"], {"zentral": ["luxembourg", "centrale"]}) == set()


def test_the_country_word_inside_a_name_is_kept() -> None:
    tokens = "statistiques de paiement banque centrale du luxembourg".split()
    assert ranking.country_in_names(tokens) == {"luxembourg"}
    terms = ["statistiques", "paiement", "banque", "centrale", "luxembourg"]
    assert ranking.without_own_country(terms, {}, False, _content, ranking.country_in_names(tokens)) == terms
    assert ranking.country_in_names("cannabis chez soi au luxembourg".split()) == frozenset()


@pytest.mark.parametrize(("query", "work"), [
    ("Luxembourg law on public transport", "lu-legilux:loi-2021-02-05-a106"),
    ("Luxembourg law on mutual societies", "lu-legilux:loi-2019-08-01-a530"),
])
def test_an_english_question_naming_luxembourg_is_searched_on_legilux_without_the_country_word(
        fixture_core: LegalCore, query: str, work: str) -> None:
    sections = _sections(fixture_core, query)
    lu = sections[LU]
    assert "luxembourg" not in lu["query_plan"]["terms"]
    assert lu["hits"] and lu["hits"][0]["work"] == work
    # EUR-Lex keeps every word of the question
    assert "luxembourg" in sections[EU]["query_plan"]["terms"]


def test_a_name_holding_the_country_word_keeps_it_on_legilux(fixture_core: LegalCore) -> None:
    lu = _sections(fixture_core, "statistiques de paiement Banque centrale du Luxembourg")[LU]
    assert "luxembourg" in lu["query_plan"]["terms"]
    assert lu["hits"][0]["work"] == "lu-legilux:rbcl-2021-07-12-a524"
