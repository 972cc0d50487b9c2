"""Issue #15, neg35: a question citing an act by a date no calendar holds (« loi du 32 mars 2001 »,
"Gesetz vom 29. Februar 2011") or by an act number or CELEX of a year after the indexes were built
(« Règlement (UE) 2031/999 ») cites an act that does not exist: every section answers no hits, typed
``impossible_citation``, though the texts hold its other words. A real date or a number of a past year
is searched as before. On the real fixture corpus (``LEX_FIXTURES``).

:func:`serve.core.impossible.impossible_citation` (the shape, pure) and
:func:`serve.core.ops.search.impossible_citation_not_held` (the build year of the mounted indexes).
"""

from __future__ import annotations

from typing import Any

import pytest

from serve.core import LegalCore
from serve.core.impossible import ImpossibleCitation, impossible_citation

BUILD_YEAR = 2026


def _answer(core: LegalCore, query: str) -> dict[str, Any]:
    return core.call("search", {"query": query, "limit": 10})


@pytest.mark.parametrize(("query", "found"), [
    ("loi du 32 mars 2001 sur les associations sportives", ImpossibleCitation("date", "32 mars 2001")),
    ("loi du 31 février 2010 relative au bail", ImpossibleCitation("date", "31 fevrier 2010")),
    ("Gesetz vom 29. Februar 2011 über die Mietpreisbremse", ImpossibleCitation("date", "29 februar 2011")),
    ("arrêté grand-ducal du 31 avril 1950", ImpossibleCitation("date", "31 avril 1950")),
    ("Law of February 30, 2016 on taxis", ImpossibleCitation("date", "february 30 2016")),
    ("law of 0 June 2010", ImpossibleCitation("date", "0 june 2010")),
    ("Règlement (UE) 2031/999 du Parlement européen et du Conseil", ImpossibleCitation("number", "2031/999")),
    ("Verordnung (EU) Nr. 4321/2099 über Raumfahrtabfälle", ImpossibleCitation("number", "4321/2099")),
    ("CELEX 32031R0999", ImpossibleCitation("number", "32031R0999")),
])
def test_a_citation_no_act_can_bear(query: str, found: ImpossibleCitation) -> None:
    assert impossible_citation(query, BUILD_YEAR) == found


@pytest.mark.parametrize("query", [
    "loi du 29 février 2012 sur les associations",  # 2012 is a leap year
    "loi du 31 mars 2001",
    "loi du 1er mars 2010",
    "Regulation (EC) No 2031/2001",  # number 2031 of 2001
    "Directive (EU) 2019/9999",  # a past year: the corpus cannot tell the number is too high
    "directive 95/46/EC",
    "Regulation (EU) 2026/296",  # the build year itself
    "CELEX 32025R2527",
    "31 avril",  # no year, no act word
    "délai de 32 jours en mars 2001",  # no act word
])
def test_citations_an_act_may_bear(query: str) -> None:
    assert impossible_citation(query, BUILD_YEAR) is None


@pytest.mark.parametrize(("query", "kind", "citation"), [
    # the Code du travail holds « congé parental »: the search found its provisions for the words
    ("loi du 32 mars 2001 sur le congé parental", "date", "32 mars 2001"),
    ("law of 30 February 2016 on parental leave", "date", "30 february 2016"),
    ("Règlement (UE) 2031/999 relatif au congé parental", "number", "2031/999"),
])
def test_an_impossible_citation_answers_no_hits_where_the_texts_hold_its_words(
        fixture_core: LegalCore, query: str, kind: str, citation: str) -> None:
    answer = _answer(fixture_core, query)
    assert answer["merged"] == []
    reasons = [section["relaxation_withheld"] for section in answer["publishers"]]
    assert {"reason": "impossible_citation", "kind": kind, "citation": citation} in reasons


def test_a_real_date_is_searched_as_before(fixture_core: LegalCore) -> None:
    # the same words under a calendar date: no impossible citation, the provisions on parental leave answer
    answer = _answer(fixture_core, "congé parental 31 mars 2001")
    assert all((s.get("relaxation_withheld") or {}).get("reason") != "impossible_citation"
               for s in answer["publishers"])
    assert answer["merged"]
