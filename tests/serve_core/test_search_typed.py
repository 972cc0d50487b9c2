"""Issue #15, fourth pass: a typed reference — an act form and a year next to the act's subject,
``la loi de 1968 sur la nationalité`` — ranks the one act of that form and year whose title holds
the query's words first, without restricting the answer. On the real fixture corpus (``LEX_FIXTURES``)."""

from __future__ import annotations

from typing import Any

from serve.core import LegalCore

LU = "lu-legilux"
JUDICIAL, MUTUAL_AID = "lu-legilux:loi-1980-03-07-n1", "lu-legilux:loi-2000-08-08-n4"


def _lu(core: LegalCore, query: str) -> dict[str, Any]:
    answer = core.call("search", {"query": query, "fuzzy": "off"})
    return next(s for s in answer["publishers"] if s["publisher"] == LU)


def _typed(section: dict[str, Any]) -> list[tuple[str, list[str]]]:
    return [(m["text"], m["works"]) for m in section["query_plan"]["work_mentions"] if m["reason"] == "typed_reference"]


def test_a_law_named_by_its_year_and_subject_is_found_first(fixture_core: LegalCore) -> None:
    section = _lu(fixture_core, "la loi de 1980 sur l'organisation judiciaire")
    assert _typed(section) == [("loi 1980", [JUDICIAL])]
    assert section["hits"][0]["work"] == JUDICIAL
    # it restricts nothing (a soft mention). The 2000 law on mutual legal aid that followed it held
    # three of the words but not "1980"; since "loi" weighs its real document count in the
    # majority's IDF share (sixth #15 pass), a provision without the rare year no longer qualifies.
    assert section["query_plan"]["work_constraints"] == []


def test_two_years_name_two_laws_for_a_comparison(fixture_core: LegalCore) -> None:
    section = _lu(fixture_core, "comparer la loi de 1980 sur l'organisation judiciaire et celle de 2000 "
                                "sur l'entraide judiciaire")
    assert _typed(section) == [("loi 1980", [JUDICIAL]), ("loi 2000", [MUTUAL_AID])]
    assert [h["work"] for h in section["hits"][:2]] == [JUDICIAL, MUTUAL_AID]


def test_no_law_of_that_year_on_that_subject_names_nothing(fixture_core: LegalCore) -> None:
    # the transplantation law is of 1982: the year the user gave names no act, so none is guessed
    section = _lu(fixture_core, "loi de 1980 transplantation")
    assert _typed(section) == []
    # a year without an act form is only a search word
    assert _typed(_lu(fixture_core, "organisation judiciaire 1980")) == []
