"""Issue #15, fifty-first session (conlu51): French plain-word questions on Legilux acts (ADR 0175).

- :mod:`serve.core.actyears` and :func:`serve.core.ops.search.year_step`: the act of the year a plain-word question
  names goes first in its Legilux section (« régime des indemnités des employés de l'État fixé en 1974 »);
- :func:`serve.core.ops.search.titled_second` and :func:`serve.core.ops.search.titled_second_step`: a Legilux
  section's second work goes first when its title says two more of the question's words and its act terms cover more
  of it than the first work's.

The decisions are tested on small sets; the steps' reading of the titles on the fixture corpus (``LEX_FIXTURES``).
"""

from __future__ import annotations

from typing import Any

import pytest

from derive.index.text import normalize
from serve.core import LegalCore, actterms, actyears
from serve.core.envelope import CallContext
from serve.core.ops import search
from tests.serve_core.term_matches import section as _section
from tests.serve_core.term_matches import works as _works

TRANSPORT = "lu-legilux:loi-2021-02-05-a106"  # « Loi du 5 février 2021 sur les transports publics. »
RENT = "lu-legilux:loi-2022-07-22-a396"  # « Loi du 22 juillet 2022 relative à une subvention de loyer. »
LEAVE = "lu-legilux:loi-2023-01-06-a16"  # « Loi du 6 janvier 2023 portant institution d'un congé culturel. »
LABOUR_CODE = "lu-legilux:loi-2006-07-31-n2"  # « Code du travail » (document type CODE)


@pytest.mark.parametrize(("query", "year"), [
    ("régime des indemnités des employés de l'État fixé en 1974", "1974"),
    ("modification en 2024 de la nomenclature des établissements classés", "2024"),
    ("Gesetz von 1862 zur Revision der Verordnung über das Notariat", "1862"),
    ("1954 general revision of the salaries and pensions of municipal officials", "1954"),
    ("quelles règles s'appliquaient avant 1993", None),  # a point in time
    ("law on public transport as of 2015", None),
    ("loi budgétaire 2014 version applicable au 1er janvier 2018", "2014"),  # the version's day is no act's year
    ("subvention de loyer 2022 et 2023", None),  # two years: no one act
    ("subvention de loyer", None)])
def test_the_year_a_question_names_as_an_acts(query: str, year: str | None) -> None:
    assert search.question_year(query) == year


def test_a_parsed_date_is_no_acts_year() -> None:
    assert actyears.asked_year(normalize("loi sur les baux 2006"), [normalize("1er janvier 2006")]) is None


@pytest.mark.parametrize(("slug", "year"), [
    ("loi-1974-03-01-n1", "1974"), ("rgd-2024-02-08-a69", "2024"), ("rgc-1974-03-01-n1", "1974"),
    ("recueil-chambres_professionnelles", None), ("32019r0876", None)])
def test_a_legilux_slugs_year(slug: str, year: str | None) -> None:
    assert actyears.slug_year(slug) == year


def test_the_first_act_of_the_year_comes_first_when_its_title_says_as_much() -> None:
    years = {"a": "2015", "b": "2000", "c": "1974", "d": "1974"}
    assert actyears.dated_first("1974", ["a", "b", "c", "d"], years, {"a": 2, "c": 2}) == "c"
    assert actyears.dated_first("1974", ["a", "b", "c", "d"], years, {"a": 2, "c": 1, "d": 3}) is None  # another matter
    assert actyears.dated_first("2015", ["a", "c"], years, {}) is None  # the first is of the year
    assert actyears.dated_first("1990", ["a", "c"], years, {}) is None  # none is
    assert actyears.dated_first("1974", ["c"], years, {}) is None


def _ctx(core: LegalCore) -> CallContext:
    return CallContext("search", core.indexes, {}, 10.0)


def _args(query: str, **more: Any) -> dict[str, Any]:
    return {"query": query, "works": [], "result_grain": "works", "time_scope": "current", **more}


def test_the_year_step_puts_the_act_of_the_named_year_first(fixture_core: LegalCore) -> None:
    sections = [_section("lu-legilux", (TRANSPORT, ["keyword"]), (LEAVE, ["keyword"]), (RENT, ["keyword"]))]
    assert search.year_step(_ctx(fixture_core), sections, _args("montant de la subvention de loyer de 2022"))
    assert _works(sections[0]) == [RENT, TRANSPORT, LEAVE]


def test_the_year_step_leaves_an_act_of_the_year_on_another_matter(fixture_core: LegalCore) -> None:
    sections = [_section("lu-legilux", (TRANSPORT, ["keyword"]), (RENT, ["keyword"]), (LEAVE, ["keyword"]))]
    # the act of 2023 is on a cultural leave: its title says none of the question's words, the first's says two
    assert not search.year_step(_ctx(fixture_core), sections, _args("transports publics gratuits en 2023"))
    assert _works(sections[0]) == [TRANSPORT, RENT, LEAVE]


def test_the_year_step_leaves_a_point_in_time_and_an_as_of_question(fixture_core: LegalCore,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    sections = [_section("lu-legilux", (TRANSPORT, ["keyword"]), (RENT, ["keyword"]))]
    ctx = _ctx(fixture_core)
    assert not search.year_step(ctx, sections, _args("subvention de loyer depuis 2022"))
    assert not search.year_step(ctx, sections, _args("subvention de loyer 2022", time_scope="as_of"))
    monkeypatch.setattr(search, "YEAR_ACTS", False)
    assert not search.year_step(ctx, sections, _args("subvention de loyer 2022"))
    assert _works(sections[0]) == [TRANSPORT, RENT]


def test_the_words_an_acts_title_says() -> None:
    words = actterms.question_words("établissement public qui construit des logements à coût modéré")
    assert search.titled_words(("logements", "cout", "modere"), words) == 3
    assert search.titled_words(("logement", "abordable"), words) == 1  # a plural said in its singular
    assert search.titled_words((), words) == 0


@pytest.mark.parametrize(("said", "covered", "code", "second"), [
    ((1, 3), (0.45, 0.58), False, True),
    ((0, 2), (0.0, 0.1), False, True),
    ((1, 2), (0.2, 0.6), False, False),  # the title says one word more only
    ((0, 3), (0.5, 0.55), False, False),  # the terms hardly differ
    ((0, 3), (0.3, 0.2), False, False),  # the terms say the first better
    ((0, 3), (0.0, 0.5), True, False)])  # the first is a code: its title names none of its subjects
def test_a_second_work_titled_and_termed_better(said: tuple[int, int], covered: tuple[float, float], code: bool,
                                                second: bool) -> None:
    assert search.titled_second(said, covered, code) is second


def _matches(found: dict[str, float]) -> Any:
    def matches(ctx: Any, sections: Any, plans: Any, words: Any) -> list[tuple[str, int, actterms.Match[int]]]:
        return [(w, 0, actterms.Match(i, c, ("subvention", "loyer"), ("subvention loyer",)))
                for i, (w, c) in enumerate(found.items())]
    return matches


def test_the_titled_second_step_on_fixture_titles(fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = _ctx(fixture_core)
    query = "montant de la subvention de loyer pour les ménages"
    monkeypatch.setattr(search, "act_term_matches", _matches({RENT: 0.5, TRANSPORT: 0.2}))
    sections = [_section("lu-legilux", (TRANSPORT, ["keyword"]), (RENT, ["keyword"]), (LEAVE, ["keyword"]))]
    assert search.titled_second_step(ctx, sections, {}, _args(query))
    assert _works(sections[0]) == [RENT, TRANSPORT, LEAVE]
    # the terms do not say the second better: it stays
    monkeypatch.setattr(search, "act_term_matches", _matches({RENT: 0.25, TRANSPORT: 0.2}))
    sections = [_section("lu-legilux", (TRANSPORT, ["keyword"]), (RENT, ["keyword"]))]
    assert not search.titled_second_step(ctx, sections, {}, _args(query))
    # a code first keeps its place
    monkeypatch.setattr(search, "act_term_matches", _matches({RENT: 0.5}))
    sections = [_section("lu-legilux", (LABOUR_CODE, ["keyword"]), (RENT, ["keyword"]))]
    assert not search.titled_second_step(ctx, sections, {}, _args(query))
    monkeypatch.setattr(search, "TITLED_SECOND", False)
    sections = [_section("lu-legilux", (TRANSPORT, ["keyword"]), (RENT, ["keyword"]))]
    assert not search.titled_second_step(ctx, sections, {}, _args(query))


COORDINATED = "lu-legilux:tc-1986-12-18-n1"  # « Texte coordonné du 18 décembre 1986 … »: a compilation


def test_a_compilation_first_gives_way_to_the_first_act(fixture_core: LegalCore,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = _ctx(fixture_core)
    sections = [_section("lu-legilux", (COORDINATED, ["keyword"]), (RENT, ["keyword"]), (LEAVE, ["keyword"]))]
    assert search.compilation_step(ctx, sections, _args("subvention de loyer"))
    assert _works(sections[0]) == [RENT, COORDINATED, LEAVE]
    # an act first, or a compilation the question names, keeps its place
    sections = [_section("lu-legilux", (RENT, ["keyword"]), (COORDINATED, ["keyword"]))]
    assert not search.compilation_step(ctx, sections, _args("subvention de loyer"))
    sections = [_section("lu-legilux", (COORDINATED, ["exact_title"]), (RENT, ["keyword"]))]
    assert not search.compilation_step(ctx, sections, _args("texte coordonné du 18 décembre 1986"))
    monkeypatch.setattr(search, "COMPILATION_AFTER", False)
    sections = [_section("lu-legilux", (COORDINATED, ["keyword"]), (RENT, ["keyword"]))]
    assert not search.compilation_step(ctx, sections, _args("subvention de loyer"))
