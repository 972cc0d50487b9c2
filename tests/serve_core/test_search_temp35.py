"""Questions asked at a date or in a period (issue #15, temp35): how the question's own words say when —
a month and a year, a bound (« avant 1993 », "before the 2020 amendment", « entre 2017 et 2019 »), a state
frame ("as it stood in 1980", « telle qu'en vigueur en 2009 ») — are the question's time, not words the
act's text must hold; on the real fixture corpus."""

from __future__ import annotations

from typing import Any

import pytest

from derive.index.query import parse_query
from serve.core import LegalCore
from serve.core.searchplan import cited_article, time_years


def _section(answer: dict[str, Any], publisher: str) -> dict[str, Any]:
    return next(s for s in answer["publishers"] if s["publisher"] == publisher)


def _kept(query: str) -> str:
    tokens = query.split()
    consumed = time_years(tokens)
    return " ".join(t for i, t in enumerate(tokens) if i not in consumed)


@pytest.mark.parametrize(("query", "kept"), [
    ("regime d aides aux entreprises en fevrier 2021", "regime d aides aux entreprises"),
    ("partial unemployment compensation rate in march 2021", "partial unemployment compensation rate"),
    ("liste nationale des varietes im mai 2021", "liste nationale des varietes"),
    ("public disclosures under the crr as of june 2026", "public disclosures under the crr"),
    ("rts credit risk version marz 2020", "rts credit risk"),
])
def test_a_month_before_a_year_is_the_questions_time(query: str, kept: str) -> None:
    assert _kept(query) == kept


@pytest.mark.parametrize(("query", "kept"), [
    ("organisation medicale du centre hospitalier avant 1993", "organisation medicale du centre hospitalier"),
    ("gsii identification methodology before 2021", "gsii identification methodology"),
    ("arbeitszeit richtlinie bis 2017", "arbeitszeit richtlinie"),
    ("representants des etrangers entre 2017 et 2019", "representants des etrangers"),
    ("diversified indices standards before the 2020 amendment", "diversified indices standards"),
    ("tache des instituteurs avant la reforme de 2025", "tache des instituteurs"),
    ("loi sur le bail avant sa modification de 2018", "loi sur le bail"),
    ("staatsangehorigkeit vor der anderung 2017", "staatsangehorigkeit"),
])
def test_a_year_a_bound_introduces_is_the_questions_time(query: str, kept: str) -> None:
    assert _kept(query) == kept


@pytest.mark.parametrize(("query", "kept"), [
    ("civic decoration of 1946 as it stood in 1980", "civic decoration of 1946"),
    ("forfait d education loi de 2002 telle qu en vigueur en 2009", "forfait d education loi de 2002"),
    ("gdpr article 6 as in force in 2019", "gdpr article 6"),
])
def test_a_year_a_state_frame_introduces_is_the_questions_time(query: str, kept: str) -> None:
    assert _kept(query) == kept


@pytest.mark.parametrize(("query", "kept"), [
    ("loi pendant l annee 2015", "loi"),
    ("loi jusqu en 2015", "loi"),
    ("loi au cours de l annee 2015", "loi au"),
    ("gesetz gultig im jahr 2012", "gesetz"),
    ("reglement valable en 2012", "reglement"),
    ("law applicable in 2012", "law"),
    ("reglement en vigueur au mois de mars 2019", "reglement"),
    ("law as of end of 2015", "law"),
    ("directive as of mid 2018", "directive"),
    ("loi debut 2019", "loi"),
    ("gesetz anfang 2019", "gesetz"),
    ("regulation valid from 2012 to 2014", "regulation"),
    ("loi en vigueur de 2012 a 2014", "loi"),
    ("verordnung von 2012 bis 2014", "verordnung"),
    ("the 2015 version of the working time directive", "of the working time directive"),
    ("gesetz in der 2012 geltenden fassung", "gesetz"),
])
def test_a_year_of_a_period_or_a_state_is_the_questions_time(query: str, kept: str) -> None:
    assert _kept(query) == kept


@pytest.mark.parametrize(("query", "residual"), [
    ("loi avant le 1er janvier 2020", "loi"),
    ("directive before 1 January 2020", "directive"),
    ("Gesetz vor dem 1. Januar 2020", "Gesetz"),
    ("loi jusqu'au 31 mars 2019", "loi"),
    ("loi entre le 1er janvier 2015 et le 31 décembre 2016", "loi et le"),
    ("directive from 1 March 2015 to 1 March 2016", "directive to"),
    ("loi du 1er janvier 2018", "loi du"),  # « du »: the act's own date, its form stays
])
def test_the_words_that_bound_a_date_go_with_it(query: str, residual: str) -> None:
    assert parse_query(query).residual == residual


@pytest.mark.parametrize("query", [
    "directive de 2000 version applicable",  # « de 2000 »: the act's year, before the version frame
    "loi de 1979 sur l aide",  # « de 1979 »: the act's year
    "the law of 2015",
    "horizon 2020 programme",
    "soldes de l hiver 2020",
    "armed force of 2015",
])
def test_an_acts_own_year_stays_a_word(query: str) -> None:
    assert _kept(query) == query


@pytest.mark.parametrize("query", [
    "loi enseignement fondamental en janvier 2015",
    "loi enseignement fondamental avant 2016",
    "loi enseignement fondamental entre 2014 et 2015",
    "loi enseignement fondamental avant la réforme de 2016",
    "loi enseignement fondamental telle qu'en vigueur en 2015",
])
def test_an_act_asked_in_a_period_is_found_by_its_own_words_not_by_relaxation(fixture_core: LegalCore,
                                                                               query: str) -> None:
    answer = fixture_core.call("search", {"query": query, "as_of": "2015-01-01", "fuzzy": "off"})
    lu = _section(answer, "lu-legilux")
    assert lu["query_plan"]["terms"] == ["loi", "enseignement", "fondamental"]
    assert lu["query_relaxed"] is None
    assert lu["hits"][0]["work"] == "lu-legilux:loi-2009-02-06-n3"
    assert lu["hits"][0]["match_reasons"] == ["keyword"]


# --- an article the asked act's title cites: « portant dérogation aux articles 6, 7 … du règlement … »


@pytest.mark.parametrize(("query", "words"), [
    ("dérogation à l'article L. 121-6 du Code du travail", ["l", "121", "6"]),
    ("règlement portant exécution de l'article 143 de la loi", ["143"]),
    ("Latvia VAT derogation Article 193 decision", ["193"]),
])
def test_an_article_after_a_citing_word_is_cited_by_the_asked_act(query: str, words: list[str]) -> None:
    assert cited_article(parse_query(query)) == words


@pytest.mark.parametrize("query", [
    "article 6 du règlement grand-ducal du 10 avril 2020",
    "délai de préavis article L. 124-4 du Code du travail",
    "exécution des peines et article 5 du code pénal",  # the citing word is too far from the article
    "derogations under Article 23 of the GDPR",  # the article asked for itself
])
def test_an_article_asked_for_itself_is_not_cited(query: str) -> None:
    assert cited_article(parse_query(query)) == []


def test_an_act_derogating_from_articles_of_another_is_found_by_its_title(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": "dérogation aux articles 6 et 7 du règlement grand-ducal "
                                                   "déterminant les branches enseignées et les diplômes", "fuzzy": "off"})
    lu = _section(answer, "lu-legilux")
    assert lu["query_plan"].get("article_key") is None
    assert "6" in lu["query_plan"]["terms"]
    assert lu["hits"][0]["work"] == "lu-legilux:rgd-2020-05-28-a457"


def test_two_years_joined_by_and_are_two_times_not_a_range() -> None:
    # the lead's guard after the blind check: « en 2016 et 2018 » names two times (a comparison); only a
    # word that opens a range makes "et" / "and" one, and the second year otherwise stays a word
    assert time_years(["loi", "en", "2016", "et", "2018"]) == {2}
    assert time_years(["act", "in", "2016", "and", "2018"]) == {2}
    assert time_years(["loi", "entre", "2016", "et", "2018"]) == {1, 2, 3, 4}
    assert time_years(["act", "between", "2016", "and", "2018"]) == {1, 2, 3, 4}
    assert time_years(["loi", "de", "2012", "a", "2014"]) == {1, 2, 3, 4}


def test_a_month_and_year_after_an_act_form_date_the_act() -> None:
    # "loi de juillet 2006" names the act by its date; "version de juin 2015" asks for a time
    assert time_years(["loi", "de", "juillet", "2006", "sur", "le", "travail"]) == set()
    assert time_years(["reglement", "grand", "ducal", "de", "mars", "2021", "armes"]) == set()
    assert time_years(["gesetz", "vom", "mai", "2021"]) == set()
    assert time_years(["code", "du", "travail", "version", "de", "juin", "2015"]) >= {4, 5, 6}
    assert time_years(["code", "du", "travail", "en", "juin", "2015"]) >= {4, 5}
