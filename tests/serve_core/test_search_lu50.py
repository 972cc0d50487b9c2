"""An English or German question with no Luxembourg marker: the section answered in the question's own words comes
before a section searched through translations when the act terms say its act at least as firmly (ADR 0169,
search.untranslated_lead)."""

from __future__ import annotations

from typing import Any

from serve.core import actterms
from serve.core.ops import search

LU, EU = "lu-legilux", "eu-eurlex"
WORDS = ["closed", "period", "annual", "results"]


def _section(publisher: str, *works: str) -> dict[str, Any]:
    return {"publisher": publisher, "hits": [{"work": f"{publisher}:{w}"} for w in works]}


def _match(work: int, coverage: float, words: tuple[str, ...], term: str) -> actterms.Match[int]:
    return actterms.Match(work, coverage, words, (term,))


def _sections() -> list[dict[str, Any]]:
    return [_section(LU, "loi-a", "loi-b"), _section(EU, "32014r0596", "32003l0006")]


def test_the_section_in_the_questions_words_leads_a_translated_one_the_terms_say_less_firmly() -> None:
    sections = _sections()
    matched = [(f"{EU}:32014r0596", 1, _match(1, 0.8, ("closed", "period"), "close period")),
               (f"{LU}:loi-b", 0, _match(2, 0.5, ("annual", "results"), "annual result"))]
    assert search.untranslated_lead(sections, matched, WORDS, "closed period before annual results", {LU})
    assert [s["publisher"] for s in sections] == [EU, LU]


def test_a_luxembourg_marker_keeps_the_translated_section_first() -> None:
    sections = _sections()
    matched = [(f"{EU}:32014r0596", 1, _match(1, 0.8, ("closed", "period"), "close period"))]
    assert not search.untranslated_lead(sections, matched, WORDS, "closed period before annual results in Luxembourg",
                                        {LU})
    assert [s["publisher"] for s in sections] == [LU, EU]


def test_a_translated_section_whose_act_the_terms_say_more_firmly_stays_first() -> None:
    sections = _sections()
    matched = [(f"{LU}:loi-a", 0, _match(2, 0.9, ("closed", "period", "annual"), "close period annual")),
               (f"{EU}:32014r0596", 1, _match(1, 0.8, ("closed", "period"), "close period"))]
    assert not search.untranslated_lead(sections, matched, WORDS, "closed period before annual results", {LU})


def test_a_term_said_only_in_part_is_no_lead_nor_a_first_section_in_the_questions_words() -> None:
    partly = [(f"{EU}:32014r0596", 1, _match(1, 0.8, ("closed",), "close period"))]  # one word: not firm
    sections = _sections()
    assert not search.untranslated_lead(sections, partly, WORDS, "closed period before annual results", {LU})
    firm = [(f"{EU}:32014r0596", 1, _match(1, 0.8, ("closed", "period"), "close period"))]
    assert not search.untranslated_lead(sections, firm, WORDS, "closed period before annual results", set())
    assert [s["publisher"] for s in sections] == [LU, EU]


def test_both_sections_translated_the_firmer_terms_lead() -> None:
    # a German question: EUR-Lex holds English and French texts, so both sections are searched through translations
    sections = _sections()
    matched = [(f"{EU}:32014r0596", 1, _match(1, 0.6, ("geschlossene", "zeitraum"), "geschlossen zeitraum"))]
    words = ["geschlossene", "zeitraum", "jahresergebnisse"]
    assert search.untranslated_lead(sections, matched, words, "geschlossene Zeitraum vor Jahresergebnisse", {LU, EU})
    assert [s["publisher"] for s in sections] == [EU, LU]


def test_an_act_of_the_translated_section_said_in_part_but_covering_more_keeps_it_first() -> None:
    sections = _sections()
    matched = [(f"{LU}:loi-b", 0, _match(2, 0.9, ("closed", "period", "annual"), "close period annual report")),
               (f"{EU}:32014r0596", 1, _match(1, 0.8, ("closed", "period"), "close period"))]
    assert not actterms.firm(matched[0][2], WORDS)  # "report" unsaid: a term said in part
    assert not search.untranslated_lead(sections, matched, WORDS, "closed period before annual results", {LU})
    assert [s["publisher"] for s in sections] == [LU, EU]


def test_the_own_countrys_section_is_not_put_first_by_the_rule() -> None:
    sections = list(reversed(_sections()))  # EUR-Lex first, translated too (a German question)
    matched = [(f"{LU}:loi-a", 1, _match(2, 0.9, ("closed", "period"), "close period"))]
    assert not search.untranslated_lead(sections, matched, WORDS, "closed period before annual results", {LU, EU})
    assert [s["publisher"] for s in sections] == [EU, LU]
