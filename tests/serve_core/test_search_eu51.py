"""Issue #15, fifty-first session (eu51): the amendment of the year a question names (ADR 0173).

A question asking for a change of an EU act ("2020 update", « Änderung 2019 », "amendment") by a year it names as an
act's, whose first work's own date does not bear that year, is answered first by the act of that year whose official
title names the first work (:func:`serve.core.ops.search.dated_amendment_step`). The decisions are tested on small
inputs; the step on the real fixture corpus (``LEX_FIXTURES``): Regulation (EU) No 575/2013 (the CRR) and Commission
Implementing Regulation (EU) 2015/233, whose title names it.
"""

from __future__ import annotations

from typing import Any

import pytest

from derive.index.text import normalize
from serve.core import LegalCore, siblings
from serve.core.envelope import CallContext
from serve.core.ops import search

CRR = "eu-eurlex:32013r0575"
CURRENCIES = "eu-eurlex:32015r0233"


def test_the_words_asking_for_a_change() -> None:
    for query in ("list of aircraft operators: 2020 update", "Liste der Währungen: Änderung 2019",
                  "Änderungsrichtlinie 1996", "mise à jour de 2017 de la liste", "2008 amendment to the directive",
                  "règlement modifiant en 2012"):
        assert siblings.asks_amendment(normalize(query).split()), query
    for query in ("list of aircraft operators 2020", "the April 2020 implementing regulation", "Richtlinie 2019"):
        assert not siblings.asks_amendment(normalize(query).split()), query


def test_a_year_inside_an_acts_number_names_that_act() -> None:
    assert siblings.numbered_years("Änderung der Delegierten Verordnung (EU) 2015/61") == {"2015"}
    assert siblings.numbered_years("amending Regulation (EU) No 575/2013 in 2019") == {"2013"}
    assert siblings.numbered_years("Änderung 2019") == frozenset()


def test_a_month_counts_right_before_a_named_year() -> None:
    words = normalize("December 2020 update of the monitoring regulation").split()
    assert siblings.named_months(words, {"2020"}) == {12}
    assert siblings.named_months(normalize("may 2020 be amended").split(), {"2021"}) == frozenset()


def test_an_acts_own_years_and_month() -> None:
    years, month = siblings.act_date("32017r0592", "commission delegated regulation eu 2017 592 of 1 december 2016 "
                                     "supplementing directive 2014 65 eu")
    assert years == {"2017", "2016"} and month == 12
    assert siblings.act_date("32019r2091", "reglement d execution ue 2019 2091 de la commission du 28 novembre 2019 "
                             "modifiant") == (frozenset({"2019"}), 11)
    assert siblings.act_date("32013r0575r(01)", "corrigendum") == (frozenset({"2013"}), None)


def test_the_dated_member_of_the_first_pool_holding_one() -> None:
    dates = {1: (frozenset({"2019"}), 11), 2: (frozenset({"2020"}), 12), 3: (frozenset({"2020"}), 4),
             4: (frozenset({"2020"}), 7)}
    assert siblings.dated_member({"2019"}, (), [[1, 2], [4]], dates, {}) == 1
    assert siblings.dated_member({"2021"}, (), [[1, 2], [4]], dates, {}) is None
    # the first work's own amendments before its fellow amendments
    assert siblings.dated_member({"2020"}, (), [[2], [4]], dates, {}) == 2
    assert siblings.dated_member({"2020"}, (), [[1], [4]], dates, {}) == 4
    # a month named before the year chooses among the year's acts; a month none bears chooses none
    assert siblings.dated_member({"2020"}, {4}, [[2, 3]], dates, {}) == 3
    assert siblings.dated_member({"2020"}, {1}, [[2, 3]], dates, {}) is None
    # several: the names holding most of the question, else the first listed of those, else none
    assert siblings.dated_member({"2020"}, (), [[2, 3]], dates, {3: 2, 2: 1}) == 3
    assert siblings.dated_member({"2020"}, (), [[2, 3]], dates, {}, [7, 3, 2]) == 3
    assert siblings.dated_member({"2020"}, (), [[2, 3]], dates, {}) is None


def test_the_acts_a_title_names_by_number() -> None:
    numbered = {"575 2013": 1, "2015 233": 2, "2014 65": 3}
    title = ("commission implementing regulation eu 2015 233 of 13 february 2015 laying down implementing technical "
             "standards pursuant to regulation eu no 575 2013 and directive 2014 65 eu")
    assert search.title_cited(title, "2015 233", numbered) == [1, 3]


def _works(answer: dict[str, Any]) -> list[str]:
    return [str(h["work"]) for h in answer["merged"]]


QUERY = "prudential requirements for credit institutions amendment 2015"


def test_the_amendment_of_the_named_year_comes_first(fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "DATED_AMENDMENTS", False)
    before = fixture_core.call("search", {"query": QUERY})
    monkeypatch.setattr(search, "DATED_AMENDMENTS", True)
    after = fixture_core.call("search", {"query": QUERY})
    if _works(before)[:1] != [CRR]:
        pytest.skip("the fixture answer does not open with the CRR")
    assert _works(after)[0] == CURRENCIES
    assert _works(after)[1] == CRR
    assert after["merged"][0]["score"] == before["merged"][0]["score"]
    # no change asked, or the year the first work's own: the answer stays
    assert _works(fixture_core.call("search", {"query": "prudential requirements for credit institutions 2015"})) \
        [:1] == [CRR]
    assert _works(fixture_core.call("search", {"query": "prudential requirements for credit institutions amendment "
                                                        "2013"}))[:1] == [CRR]


def test_the_amendment_not_listed_comes_in_as_a_work_row(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": QUERY})
    sections = [s for s in answer["publishers"] if s.get("publisher") == "eu-eurlex"]
    if not sections or str((sections[0].get("hits") or [{}])[0].get("work")) not in (CRR, CURRENCIES):
        pytest.skip("the fixture answer has no EUR-Lex section led by the CRR")
    crr = next(h for h in sections[0]["hits"] if h["work"] == CRR)
    section = {**sections[0], "hits": [{**crr, "rank": 1}]}
    ctx = CallContext("search", fixture_core.indexes, {}, 10.0)
    args = {"query": QUERY, "works": (), "known_on": None, "time_scope": "all_versions", "result_grain": "works",
            "language": None, "document_type": None, "limit": 10, "hierarchy": None, "domain": None}
    assert search.dated_amendment_step(ctx, [section], args)
    assert [h["work"] for h in section["hits"]] == [CURRENCIES, CRR]
    assert "dated_amendment" in section["hits"][0]["match_reasons"]
    # the works filter leaves the section as it was
    section = {**sections[0], "hits": [{**crr, "rank": 1}]}
    assert not search.dated_amendment_step(ctx, [section], {**args, "works": (1,)})


# -- the basic act after its technical act (title_parent_step) --------------------------------------------------------

TECHNICAL = "currencies with an extremely narrow definition of central bank eligibility"


def _eu_section(core: LegalCore, query: str) -> dict[str, Any] | None:
    answer = core.call("search", {"query": query})
    return next((s for s in answer["publishers"] if s.get("publisher") == "eu-eurlex" and s.get("hits")), None)


def _args(query: str) -> dict[str, Any]:
    return {"query": query, "works": (), "known_on": None, "time_scope": "all_versions", "result_grain": "works",
            "language": None, "document_type": None, "limit": 10, "hierarchy": None, "domain": None}


def test_the_basic_act_comes_right_after_its_technical_act(fixture_core: LegalCore) -> None:
    found = _eu_section(fixture_core, TECHNICAL)
    if found is None or not any(h["work"] == CURRENCIES for h in found["hits"]):
        pytest.skip("the fixture answer does not list Implementing Regulation (EU) 2015/233")
    own = next(h for h in found["hits"] if h["work"] == CURRENCIES)
    ctx = CallContext("search", fixture_core.indexes, {}, 10.0)
    alone = {**found, "hits": [{**own, "rank": 1}]}
    assert search.title_parent_step(ctx, [alone], _args(TECHNICAL))  # not listed: brought in as a work row
    assert [h["work"] for h in alone["hits"]] == [CURRENCIES, CRR]
    assert "parent_act" in alone["hits"][1]["match_reasons"]
    # already second: nothing moves; the basic act first: nothing moves (it is no subordinate act)
    assert not search.title_parent_step(ctx, [alone], _args(TECHNICAL))
    basic = {**found, "hits": [{**alone["hits"][1], "rank": 1}, {**own, "rank": 2}]}
    assert not search.title_parent_step(ctx, [basic], _args(TECHNICAL))
    # the works filter and an as_of date leave the section as it was
    alone = {**found, "hits": [{**own, "rank": 1}]}
    assert not search.title_parent_step(ctx, [alone], {**_args(TECHNICAL), "works": (1,)})
    assert not search.title_parent_step(ctx, [alone], {**_args(TECHNICAL), "time_scope": "as_of"})


def test_the_index_remembers_the_acts_each_title_names(fixture_core: LegalCore) -> None:
    index = fixture_core.indexes["eu-eurlex"]
    cited = search.citations(index)
    crr, currencies = (index.catalogue.rowid_of[w.split(":", 1)[1]] for w in (CRR, CURRENCIES))
    assert cited.named[currencies][0] == crr and currencies in cited.naming[crr]
    assert search.citations(index) is cited
