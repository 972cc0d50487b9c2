"""Issue #15, en27: the order of a fan-out answer's sections for English and German questions whose
Legilux act was answered second (docs/search.md "A question naming Luxembourg; a translated section
whose first work all but quotes the question"; ADR 0065).

Two rules of :func:`serve.core.ops.search.order_sections` and its caller: a question naming
Luxembourg outside a name (:func:`asks_of_country`) is answered by the Legilux section first, as a
question asking for Luxembourg's law is; a section searched through the cross-language lexicon whose
first work fits the question :data:`ROUTING_MARGIN` more than every other section's first work
(:func:`titled_by_margin`) is not put after them for having been translated. Pure tests on sections
shaped as the full-corpus cases measured (docs/retrieval-benchmark.md §8.31, en27), and the call's
wiring end to end on the real fixture corpus (``LEX_FIXTURES``)."""

from __future__ import annotations

from typing import Any

import pytest

from derive.index.text import normalize
from serve.core import LegalCore
from serve.core.ops import search

LU, EU = "lu-legilux", "eu-eurlex"


def _section(publisher: str, fit: float | None, reasons: list[str], *, translated: bool = False,
             cover: float | None = 0.0, hits: int = 2) -> dict[str, Any]:
    plan: dict[str, Any] = {"translations": {"terms": {}}} if translated else {}
    return {"publisher": publisher, "outcome": "succeeded", "title_coverage": cover, "top_title_match": fit,
            "query_plan": plan,
            "hits": [{"work": f"{publisher}:w{i}", "anchor": "art_1", "match_reasons": list(reasons), "score": 0.5}
                     for i in range(hits)]}


def _order(sections: list[dict[str, Any]], **kwargs: bool) -> list[str]:
    return [s["publisher"] for s in search.order_sections(sections, **kwargs)]


# -- a question naming Luxembourg ----------------------------------------------------------------


@pytest.mark.parametrize("query", [
    "organisation of the courts and justices of the peace in Luxembourg",  # concept8 bilingual-1822
    "Luxembourg state guarantee scheme for the economy during the Covid-19 pandemic",  # lu10 bilingual-022
    "volunteer service for young people who want to help abroad or in Luxembourg",  # concept9 2210
    "Freiwilligendienst für Jugendliche in Luxemburg",
    "enforcement in Luxembourg of fines imposed in another EU member state",
])
def test_a_question_naming_luxembourg_asks_of_the_country(query: str) -> None:
    assert search.asks_of_country(normalize(query).split())


@pytest.mark.parametrize("query", [
    "rental lease security deposit",  # bilingual-402: names no country
    "statut de la Banque centrale du Luxembourg",  # the country inside a name
    "Constitution du Grand-Duché de Luxembourg",
    "maternity leave",
])
def test_a_question_not_naming_luxembourg_outside_a_name_does_not(query: str) -> None:
    assert not search.asks_of_country(normalize(query).split())


def test_a_question_naming_luxembourg_is_answered_by_legilux_first() -> None:
    # concept8 bilingual-1822: the EU treaties hold "courts" and "justices" in the question's words
    # (first work's title fits 0.0); the Legilux section, searched in translation, first the loi du
    # 7 mars 1980 sur l'organisation judiciaire (0.4, within the margin)
    eu = _section(EU, 0.0, ["keyword"], cover=0.2)
    lu = _section(LU, 0.4, ["keyword", "translated"], translated=True, cover=0.6667)
    assert _order([eu, lu]) == [EU, LU]  # the translated section after the one in the question's words
    assert _order([eu, lu], own_law=True) == [LU, EU]
    # the act form asked still wins: a question asking for a directive is answered by EUR-Lex first
    assert _order([eu, lu], eu_form=True, own_law=True) == [EU, LU]
    # a Legilux section without hits stays last
    empty = _section(LU, None, [], translated=True, hits=0)
    assert _order([eu, empty], own_law=True) == [EU, LU]


def test_the_search_orders_a_question_naming_luxembourg_as_one_asking_for_its_law(
        fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    real = search.order_sections

    def spy(sections: Any, eu_form: bool = False, own_law: bool = False) -> Any:
        seen.append(own_law)
        return real(sections, eu_form=eu_form, own_law=own_law)

    monkeypatch.setattr(search, "order_sections", spy)
    answer = fixture_core.call("search", {"query": "processing of personal data by employers in Luxembourg",
                                          "limit": 10})
    assert seen == [True]
    # only EUR-Lex holds the words (the GDPR first): the rule moves no section without hits before it
    assert answer["publishers"][0]["publisher"] == EU and answer["merged"][0]["work"] == "eu-eurlex:32016r0679"
    seen.clear()
    fixture_core.call("search", {"query": "processing of personal data by employers", "limit": 10})
    assert seen == [False]


# -- a translated section whose first work all but quotes the question ----------------------------


def test_a_translated_section_whose_first_work_fits_by_the_margin_is_not_put_after() -> None:
    # the EU section holds the English words in passing (first work fits 0.0); the Legilux section,
    # searched in translation, is led by a law whose title fits the question 0.5455
    eu = _section(EU, 0.0, ["keyword"])
    lu = _section(LU, 0.5455, ["keyword", "translated"], translated=True)
    assert search.titled_by_margin(lu, [eu, lu])
    assert _order([eu, lu]) == [LU, EU]


@pytest.mark.parametrize(("eu_fit", "lu_fit"), [
    (0.0, 0.4),  # bilingual-1822 without its country word: within the margin
    (0.3333, 0.5333),  # holdout conceptual-005 "minimum effective tax rate for multinational groups"
    (0.2, 0.6667),  # concept6 conceptual-1418: 0.4667, just short of the margin
    (0.1818, 0.4285),  # concept8 conceptual-1804 "special right of the maker of a database …"
])
def test_within_the_margin_the_section_in_the_question_words_stays_first(eu_fit: float, lu_fit: float) -> None:
    eu = _section(EU, eu_fit, ["keyword"])
    lu = _section(LU, lu_fit, ["keyword", "translated"], translated=True)
    assert not search.titled_by_margin(lu, [eu, lu])
    assert _order([eu, lu]) == [EU, LU]


def test_titled_by_margin_needs_another_section_with_hits_and_a_fit() -> None:
    lu = _section(LU, 0.9, ["keyword", "translated"], translated=True)
    assert not search.titled_by_margin(lu, [lu])
    assert not search.titled_by_margin(lu, [lu, _section(EU, None, [], hits=0)])
    assert not search.titled_by_margin(_section(LU, None, ["keyword"]), [_section(EU, 0.0, ["keyword"])])
    # exactly the margin is enough (a difference of ROUTING_MARGIN)
    assert search.titled_by_margin(_section(LU, search.ROUTING_MARGIN, ["keyword"]), [_section(EU, 0.0, ["keyword"])])
