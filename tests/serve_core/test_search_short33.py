"""Acts asked by short title, popular name or as of a date (issue #15, short33): the reading fixes
found by the short33 judgments, on the real fixture corpus."""

from __future__ import annotations

from typing import Any

import pytest

from derive.index.query import parse_query
from serve.core import LegalCore
from serve.core.searchplan import time_years


def _section(answer: dict[str, Any], publisher: str) -> dict[str, Any]:
    return next(s for s in answer["publishers"] if s["publisher"] == publisher)


@pytest.mark.parametrize(("query", "date"), [
    ("Fassung vom 1. Januar 2021", "2021-01-01"), ("Stand 3. März 2010", "2010-03-03"),
    ("am 15 Dezember 2019", "2019-12-15"), ("1. Oktober 2000", "2000-10-01"),
])
def test_german_dates_are_read(query: str, date: str) -> None:
    assert [d.date for d in parse_query(query).dates] == [date]


@pytest.mark.parametrize(("query", "residual"), [
    ("loi budgétaire 2014 version applicable au 1er janvier 2018", "loi budgétaire 2014"),
    ("Ausbildung der Polizei, in der Fassung vom 1. Januar 2021", "Ausbildung der Polizei,"),
    ("Positionslimits, Stand 1. Januar 2024", "Positionslimits,"),
    ("thresholds regulation 2013 as of 1 January 2015", "thresholds regulation 2013"),
    ("règlement dans sa version en vigueur le 12 mai 2020", "règlement"),
    ("loi du 1er janvier 2018", "loi du"),  # « du »: the act's own date, its form stays
])
def test_the_words_that_frame_a_date_as_the_questions_time_go_with_it(query: str, residual: str) -> None:
    assert parse_query(query).residual == residual


@pytest.mark.parametrize(("query", "kept"), [
    ("rts credit risk adjustments version 2020", "rts credit risk adjustments"),
    ("loi lycee clervaux dans sa version de 2017", "loi lycee clervaux"),
    ("joint decision process as of 2018", "joint decision process"),
    ("loi version applicable en 2015", "loi"),
    ("loi de 1979 sur l aide", "loi de 1979 sur l aide"),  # « de 1979 »: the act's year
    ("the law of 2015", "the law of 2015"),
])
def test_a_year_a_version_frame_introduces_is_the_questions_time(query: str, kept: str) -> None:
    tokens = query.split()
    consumed = time_years(tokens)
    assert " ".join(t for i, t in enumerate(tokens) if i not in consumed) == kept


@pytest.mark.parametrize("query", [
    "loi enseignement fondamental, Fassung vom 1. Januar 2015",
    "loi enseignement fondamental dans sa version de 2015",
    "loi enseignement fondamental version applicable au 1er janvier 2015",
])
def test_an_act_asked_as_of_a_date_is_found_by_its_own_words_not_by_relaxation(fixture_core: LegalCore,
                                                                                query: str) -> None:
    answer = fixture_core.call("search", {"query": query, "as_of": "2015-01-01", "fuzzy": "off"})
    lu = _section(answer, "lu-legilux")
    assert lu["query_plan"]["terms"] == ["loi", "enseignement", "fondamental"]
    assert lu["query_relaxed"] is None
    assert lu["hits"][0]["work"] == "lu-legilux:loi-2009-02-06-n3"
    assert lu["hits"][0]["match_reasons"] == ["keyword"]


# --- an EU act asked by its form and year: "VAT Rates Directive 2022", "thresholds regulation 2013"


def _mentions(section: dict[str, Any]) -> list[tuple[str, list[str]]]:
    return [(m["reason"], m["works"]) for m in section["query_plan"]["work_mentions"]]


def test_an_eu_act_asked_by_its_form_and_year_comes_first(fixture_core: LegalCore) -> None:
    # the CRR (Regulation No 575/2013) holds every word too and came first; of the 2013 regulations,
    # only No 1336/2013's whole title holds "thresholds" (its shortest title ends after the acts it amends)
    answer = fixture_core.call("search", {"query": "application thresholds regulation 2013", "fuzzy": "off"})
    eu = _section(answer, "eu-eurlex")
    assert _mentions(eu) == [("typed_reference", ["eu-eurlex:32013r1336"])]
    assert [h["work"] for h in eu["hits"][:2]] == ["eu-eurlex:32013r1336", "eu-eurlex:32013r0575"]


def test_an_eu_act_asked_by_its_form_and_year_answers_when_its_text_lacks_a_word(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": "public procurement thresholds regulation 2013", "fuzzy": "off"})
    eu = _section(answer, "eu-eurlex")
    assert eu["hits"][0]["work"] == "eu-eurlex:32013r1336"
    assert eu["hits"][0]["match_reasons"][0] == "typed_reference"


@pytest.mark.parametrize("query", [
    "procurement thresholds regulation 2014",  # no 2014 regulation is titled so
    "Regulation (EU) No 9999/2013 on application thresholds",  # the year of an act number not held
    "règlement grand-ducal sur les seuils de 2013",  # a Luxembourg form: no EUR-Lex reference
])
def test_no_eu_act_is_named_by_another_year_or_a_luxembourg_form(fixture_core: LegalCore, query: str) -> None:
    eu = _section(fixture_core.call("search", {"query": query, "fuzzy": "off"}), "eu-eurlex")
    assert not any(reason == "typed_reference" for reason, _ in _mentions(eu))


# --- an article number the named act's own text cites ("derogating from Article 193 of …")


def test_an_article_the_asked_act_cites_is_searched_as_its_words(fixture_core: LegalCore) -> None:
    # no provision numbered 30 holds these words: the Czech coal-mining decision's text cites
    # "Article 30(1) of Directive 2004/17/EC"; it was answered only by its metadata
    answer = fixture_core.call("search", {"query": "coal mining Czech Republic Article 30 decision", "fuzzy": "off"})
    eu = _section(answer, "eu-eurlex")
    assert eu["query_plan"]["article_key"] == "30"
    assert eu["hits"][0]["work"] == "eu-eurlex:32011d0306"
    assert eu["hits"][0]["match_reasons"] == ["keyword"]


def test_rts_is_searched_with_the_regulatory_technical_standards_it_abbreviates(fixture_core: LegalCore) -> None:
    # a reviewed synonym (derive/index/synonyms.json, short33, fit): no provision writes "RTS"
    answer = fixture_core.call("search", {"query": "RTS on position management controls", "fuzzy": "off"})
    eu = _section(answer, "eu-eurlex")
    assert eu["hits"][0]["work"] == "eu-eurlex:32022r1299"
    assert eu["hits"][0]["match_reasons"] == ["keyword"]
