"""Issue #15, forty-eighth session (eu48b): the EUR-Lex technical act a question means.

Two rules of the act-term step (:func:`serve.core.ops.search.act_term_step`):

- :func:`serve.core.ops.search.act_term_over_first`: in a EUR-Lex section, the act the terms rank best goes before the
  section's first work when the question has at least five content words, the terms say the act firmly, its coverage
  is :data:`~serve.core.ops.search.OVER_FIRST_MARGIN` above the first work's own terms', and the first work names no
  act nor is titled by most of the question;
- :func:`serve.core.ops.search.named_own_act`: a question naming an act (and nothing else the step leaves alone)
  whose other words the terms of one of that act's own subordinate acts say firmly is answered by that act first.

The decisions are tested on built sections and small term indexes; the named act's own act on the real fixture
corpus (``LEX_FIXTURES``): Regulation (EU) No 575/2013 (the CRR, named by its alias) and its Implementing Regulation
(EU) 2015/233 on the currencies with an extremely narrow definition of central bank eligibility, whose title cites
it and whose packaged act terms say "narrow central bank eligibility".
"""

from __future__ import annotations

import sqlite3
from types import SimpleNamespace
from typing import Any

import pytest

from serve.core import LegalCore, actterms
from serve.core.envelope import CallContext
from serve.core.ops import search
from serve.core.searchplan import Mention, Plan
from tests.serve_core.term_matches import section as _section
from tests.serve_core.term_matches import works as _works

EU, LU = "eu-eurlex", "lu-legilux"
BASIC = "eu-eurlex:32014l0065"
TICK = "eu-eurlex:32017r0588"
SIBLING = "eu-eurlex:32017r0587"
CRR = "eu-eurlex:32013r0575"
CURRENCIES = "eu-eurlex:32015r0233"
QUERY = "minimum price increment for trading shares and ETFs on a trading venue"


def _terms() -> actterms.TermIndex:
    return actterms.term_index([(1, "minimum price increment", "en"), (1, "shares and ETFs", "en"),
                                (2, "trading venue", "en"), (3, "trading venue", "en"), (3, "share trading", "en"),
                                (4, "trading venue", "en"), (5, "trading venue", "en"), (6, "trading venue", "en")])


def _matched(query: str) -> tuple[list[tuple[str, int, actterms.Match[int]]], list[str]]:
    words = actterms.question_words(query)
    index = _terms()
    ranked = actterms.matches(index, words)
    lex = {1: TICK, 2: BASIC, 3: SIBLING}
    return [(lex.get(m.work, f"{EU}:x{m.work}"), 0, m) for m in ranked], words


@pytest.fixture
def evidence(monkeypatch: pytest.MonkeyPatch) -> dict[str, tuple[float, float]]:
    """The first works' own evidence (terms' coverage, names' share), set by each test."""
    known: dict[str, tuple[float, float]] = {}
    monkeypatch.setattr(search, "first_evidence", lambda ctx, publisher, work, words: known.get(work, (0.0, 0.0)))
    return known


# -- the act the terms rank best before a first work whose terms say less --------------------------------------------


def test_over_first_needs_a_long_question_firm_evidence_and_the_margin() -> None:
    matched, words = _matched(QUERY)
    best = matched[0][2]
    assert matched[0][0] == TICK and actterms.firm(best, words) and len(words) >= search.OVER_FIRST_WORDS
    assert search.over_first(best, 0.0, words)
    assert search.over_first(best, best.coverage - search.OVER_FIRST_MARGIN, words)
    assert not search.over_first(best, best.coverage - search.OVER_FIRST_MARGIN + 0.01, words)
    assert not search.over_first(best, 0.0, words[:search.OVER_FIRST_WORDS - 1])
    part = actterms.Match(1, 0.9, ("minimum", "price"), ("minimum price tick",))  # a term said in part: not firm
    assert not search.over_first(part, 0.0, words)


def test_the_basic_act_found_by_the_keywords_gives_way_to_the_technical_act(evidence: dict[str, Any]) -> None:
    matched, words = _matched(QUERY)
    evidence[SIBLING] = (0.2, 0.3)
    sections = [_section(EU, (SIBLING, ["partial_terms"]), (BASIC, ["keyword"]), (TICK, ["act_term"])),
                _section(LU, ("lu-legilux:loi-2018-05-30-a446", ["act_term"]))]
    assert search.act_term_over_first(None, sections, matched, words)  # type: ignore[arg-type]
    assert _works(sections[0]) == [TICK, SIBLING, BASIC]
    assert [h["rank"] for h in sections[0]["hits"]] == [1, 2, 3]
    assert _works(sections[1]) == ["lu-legilux:loi-2018-05-30-a446"]


def test_a_first_work_whose_terms_say_as_much_or_whose_names_hold_the_question_stays(evidence: dict[str, Any]) -> None:
    matched, words = _matched(QUERY)
    best = matched[0][2]
    for own in ((best.coverage - 0.1, 0.0), (0.0, search.OVER_FIRST_TITLED)):
        evidence[BASIC] = own
        sections = [_section(EU, (BASIC, ["keyword"]), (TICK, ["act_term"]))]
        assert not search.act_term_over_first(None, sections, matched, words)  # type: ignore[arg-type]
        assert _works(sections[0]) == [BASIC, TICK]


def test_a_named_first_work_another_publisher_or_a_short_question_stays(evidence: dict[str, Any]) -> None:
    matched, words = _matched(QUERY)
    sections = [_section(EU, (BASIC, ["contained_alias", "keyword"]), (TICK, ["act_term"]))]
    assert not search.act_term_over_first(None, sections, matched, words)  # type: ignore[arg-type]
    lu = [(w.replace(EU, LU), p, m) for w, p, m in matched]
    sections = [_section(LU, ("lu-legilux:x2", ["keyword"]), ("lu-legilux:32017r0588", ["act_term"]))]
    assert not search.act_term_over_first(None, sections, lu, words)  # type: ignore[arg-type]
    short, short_words = _matched("minimum price increment ETFs")
    sections = [_section(EU, (BASIC, ["keyword"]), (TICK, ["act_term"]))]
    assert short and not search.act_term_over_first(None, sections, short, short_words)  # type: ignore[arg-type]
    assert _works(sections[0]) == [BASIC, TICK]


def test_first_evidence_reads_the_terms_and_the_names(fixture_core: LegalCore) -> None:
    ctx = CallContext("search", fixture_core.indexes, {}, 10.0)
    words = actterms.question_words("currencies narrow central bank eligibility liquidity")
    covered, titled = search.first_evidence(ctx, EU, CURRENCIES, words)
    assert covered > 0.5  # "narrow central bank eligibility" is one of its packaged terms
    assert titled >= 0.6  # its title: "… currencies in which there is an extremely narrow definition of central bank eligibility …"
    assert search.first_evidence(ctx, EU, "eu-eurlex:31900r9999", words) == (0.0, 0.0)


# -- a named act's own subordinate act ---------------------------------------------------------------------------------


def _plan(**kw: Any) -> Plan:
    fields: dict[str, Any] = {"terms": ["x"], "article_key": None, "anchor": None, "mentions": [], "constraints": [],
                              "explicit_works": False}
    return Plan(**{**fields, **kw})


def test_names_only_named_works_and_subject_words() -> None:
    alias = Mention("crr", "resolved", "contained_alias", [7], soft=True)
    assert search.names_only(_plan(mentions=[alias], boost=[7]))
    assert search.names_only(_plan(constraints=[3]))
    assert not search.names_only(_plan())
    assert not search.names_only(_plan(constraints=[3], article_key="5"))
    assert not search.names_only(_plan(constraints=[3], intent="delegated"))
    assert not search.names_only(_plan(mentions=[Mention("crr", "ambiguous", "contained_alias", [7, 8])]))
    assert search.named_works(_plan(mentions=[alias], constraints=[3], boost=[9])) == {3, 7, 9}
    assert search.subject_words("liquidity under the CRR: narrow central bank eligibility",
                                [_plan(mentions=[alias])]) == ["liquidity", "under", "narrow", "central", "bank", "eligibility"]


def test_own_act_is_a_ranked_act_whose_title_cites_the_named_act() -> None:
    conn = sqlite3.connect(":memory:")
    conn.executescript(
        "CREATE TABLE works(work_rowid INTEGER PRIMARY KEY, title TEXT);"
        "CREATE TABLE work_names(work_rowid INTEGER, kind TEXT, normalized TEXT);"
        "INSERT INTO works VALUES (1, 'Regulation (EU) No 575/2013'), (2, 'Implementing Regulation 2015/233'),"
        " (3, 'Directive 2013/36/EU');"
        "INSERT INTO work_names VALUES (2, 'official_title', 'commission implementing regulation eu 2015 233 laying down"
        " implementing technical standards pursuant to regulation eu no 575 2013'),"
        " (3, 'official_title', 'directive 2013 36 eu on access to the activity of credit institutions');")
    index: Any = SimpleNamespace(catalogue=SimpleNamespace(slug_of={1: "32013r0575", 2: "32015r0233", 3: "32013l0036"}))
    matches = [actterms.Match(3, 0.9, ("a", "b"), ("a b",)), actterms.Match(2, 0.6, ("a", "b"), ("a b",)),
               actterms.Match(1, 0.5, ("a", "b"), ("a b",))]
    own = search.own_act(conn, index, matches, {1})
    assert own is not None and own.work == 2
    assert search.own_act(conn, index, matches, {3}) is None  # no ranked act's title cites the directive
    assert search.own_act(conn, index, matches[2:], {1}) is None  # the named act itself is not its own act


def _eu_works(answer: dict[str, Any]) -> list[str]:
    return [h["work"] for s in answer["publishers"] if s["publisher"] == EU for h in s.get("hits") or []]


def test_a_question_naming_the_basic_act_and_its_technical_subject_finds_the_technical_act(
        fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": "liquidity under the CRR: currencies with narrow central bank "
                                                   "eligibility"})
    assert _eu_works(answer)[:2] == [CURRENCIES, CRR]
    assert answer["merged"][0]["work"] == CURRENCIES


def test_a_question_naming_the_basic_act_by_its_own_subject_keeps_it_first(fixture_core: LegalCore) -> None:
    assert _eu_works(fixture_core.call("search", {"query": "CRR own funds requirements"}))[:1] == [CRR]


def test_without_the_act_terms_the_named_act_keeps_its_answer(fixture_core: LegalCore,
                                                               without_act_terms: None) -> None:
    answer = fixture_core.call("search", {"query": "liquidity under the CRR: currencies with narrow central bank "
                                                   "eligibility"})
    assert _eu_works(answer)[:1] == [CRR]
