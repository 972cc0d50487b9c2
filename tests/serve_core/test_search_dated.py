"""Luxembourg cites its acts by form and date ("loi modifiée du 31 juillet 2006", "règlement grand-ducal du
1er août 2019"): such a citation names the publisher's acts of that form and day, which rank first without
restricting the answer (:func:`serve.core.ops.search.dated_references`). On the real fixture corpus
(``LEX_FIXTURES``)."""

from __future__ import annotations

from typing import Any

from serve.core import LegalCore

LU = "lu-legilux"


def _section(core: LegalCore, query: str) -> dict[str, Any]:
    answer = core.call("search", {"query": query})
    return dict(next(s for s in answer["publishers"] if s["publisher"] == LU))


def test_a_law_cited_by_its_date_comes_first(fixture_core: LegalCore) -> None:
    # the Code du travail is the law of 31 July 2006; its title says only "Code du travail", so before,
    # the words "loi", "31", "juillet", "2006" found other acts citing it first
    for query in ("loi modifiée du 31 juillet 2006", "la loi du 31 juillet 2006 licenciement"):
        section = _section(fixture_core, query)
        assert section["hits"][0]["work"] == "lu-legilux:loi-2006-07-31-n2", query
        mention = next(m for m in section["query_plan"]["work_mentions"] if m["reason"] == "dated_reference")
        assert mention["works"] == ["lu-legilux:loi-2006-07-31-n2"] and mention["soft"]
    assert section["query_plan"]["work_constraints"] == []  # nothing is restricted


def test_the_first_of_the_month_and_other_forms(fixture_core: LegalCore) -> None:
    assert _section(fixture_core, "loi du 1er août 2019")["hits"][0]["work"] == "lu-legilux:loi-2019-08-01-a530"
    section = _section(fixture_core, "règlement grand-ducal du 10 mars 2014")
    assert section["hits"][0]["work"] == "lu-legilux:rgd-2014-03-10-n1"


def test_a_date_no_act_of_that_form_has_names_nothing(fixture_core: LegalCore) -> None:
    # no law of 10 March 2014 (only a règlement grand-ducal): the form is the user's, never swapped
    section = _section(fixture_core, "loi du 10 mars 2014")
    mentions = section["query_plan"].get("work_mentions") or []
    assert not any(m["reason"] == "dated_reference" for m in mentions)


def test_abbreviated_plural_and_figure_dates_cite_the_same_acts(fixture_core: LegalCore) -> None:
    # issue #15: practitioners write "RGD" (dotted or not), the plural names the acts of that day, and
    # a date may be in figures ("12/11/2004", "12.11.2004"); each cites the act as the words would
    for query, work in (("RGD du 10 mars 2014", "lu-legilux:rgd-2014-03-10-n1"),
                        ("R.G.D. du 10 mars 2014", "lu-legilux:rgd-2014-03-10-n1"),
                        ("règlement grand-ducal du 10/03/2014", "lu-legilux:rgd-2014-03-10-n1"),
                        ("loi du 01.08.2019", "lu-legilux:loi-2019-08-01-a530"),
                        ("lois du 1er août 2019", "lu-legilux:loi-2019-08-01-a530"),
                        ("loi modifiée du 31.07.2006", "lu-legilux:loi-2006-07-31-n2")):
        section = _section(fixture_core, query)
        mention = next(m for m in section["query_plan"]["work_mentions"] if m["reason"] == "dated_reference")
        assert mention["works"] == [work] and section["hits"][0]["work"] == work, query
    # a month in figures is a month: "13" is none, so nothing is cited
    mentions = _section(fixture_core, "loi du 01 13 2019")["query_plan"].get("work_mentions") or []
    assert not any(m["reason"] == "dated_reference" for m in mentions)
