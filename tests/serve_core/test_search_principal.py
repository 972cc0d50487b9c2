"""Issue #15, third pass: the act a lawyer means when the query names its subject — the principal
act a subordinate hit executes comes before it; an act named alone is followed by the other acts of
its name or title. On the real fixture corpus (``LEX_FIXTURES``).

The fixture corpus is a subset: none of its regulations cites a held law twice, and no two held
works share a title subject or a preferred name. The tests therefore read every fact from the
real fixture index (titles, profiles, citations, hits) and stand in only for the one missing
relation, said so where it is done."""

from __future__ import annotations

import sqlite3
import weakref
from typing import Any

import pytest

from serve.core import LegalCore, ranking
from serve.core.ops import search as search_op

LU = "lu-legilux"


def _section(answer: dict[str, Any]) -> dict[str, Any]:
    return next(s for s in answer["publishers"] if s["publisher"] == LU)


def _index(core: LegalCore) -> Any:
    return core._indexes[LU]


def _rowid(core: LegalCore, slug: str) -> int:
    return int(_index(core).catalogue.rowid_of[slug])


def _connect(core: LegalCore) -> sqlite3.Connection:
    return sqlite3.connect(_index(core).path)


# -- the parent of a subordinate act ---------------------------------------------------------------

def test_cited_works_counts_a_works_citations_of_held_works(fixture_core: LegalCore) -> None:
    conn = _connect(fixture_core)
    cited = ranking.cited_works(conn, _rowid(fixture_core, "conv-2020-11-25-a1029"), _index(fixture_core).catalogue.rowid_of, LU)
    assert (_rowid(fixture_core, "conv-1993-12-13-n7"), 3) in cited
    # citations of works the index does not hold are not counted
    assert all(work in _index(fixture_core).catalogue.slug_of for work, _ in cited)


def test_only_a_subordinate_act_has_a_parent_and_only_a_principal_law_is_one(fixture_core: LegalCore) -> None:
    conn = _connect(fixture_core)
    profiles = ranking.load_profiles(conn)
    rowid_of = _index(fixture_core).catalogue.rowid_of
    judicial, mutual_aid = _rowid(fixture_core, "loi-1980-03-07-n1"), _rowid(fixture_core, "loi-2000-08-08-n4")
    # a principal law citing another law twice (real citations) is no subordinate act
    assert (mutual_aid, 2) in ranking.cited_works(conn, judicial, rowid_of, LU)
    assert ranking.parent_act(ranking.cited_works(conn, judicial, rowid_of, LU), profiles, judicial) is None
    # a règlement grand-ducal citing another règlement (real citations): a regulation is never a parent
    tests_2021 = _rowid(fixture_core, "rgd-2021-05-14-a370")
    assert ranking.subordinate(profiles[tests_2021])
    assert ranking.parent_act(ranking.cited_works(conn, tests_2021, rowid_of, LU), profiles, tests_2021) is None
    # the same règlement, were it to cite a principal law: once is not enough, twice is
    assert ranking.parent_act([(judicial, 1)], profiles, tests_2021) is None
    assert ranking.parent_act([(judicial, 2), (mutual_aid, 1)], profiles, tests_2021) == judicial


def _stand_in_citations(monkeypatch: pytest.MonkeyPatch, child: int, parent: int) -> None:
    """The one relation the fixtures lack: ``child`` cites ``parent`` twice."""
    real = ranking.cited_works

    def cited(conn: sqlite3.Connection, work: int, rowid_of: Any, publisher: str) -> list[tuple[int, int]]:
        return [(parent, 2)] if work == child else real(conn, work, rowid_of, publisher)

    monkeypatch.setattr(ranking, "cited_works", cited)
    monkeypatch.setattr(search_op, "_PARENTS", weakref.WeakKeyDictionary())


@pytest.mark.usefixtures("without_act_terms")  # « tests de dépistage » half says a sibling covid-test act's terms
def test_the_law_a_regulation_executes_comes_before_it_when_it_holds_the_querys_subject(
        fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    query = {"query": "tests de dépistage organisation", "publisher": LU}
    before = [h["work"] for h in _section(fixture_core.call("search", query))["hits"]]
    regulation = before.index(f"{LU}:rgd-2021-05-14-a370")
    _stand_in_citations(monkeypatch, _rowid(fixture_core, "rgd-2021-05-14-a370"), _rowid(fixture_core, "loi-1980-03-07-n1"))
    hits = _section(fixture_core.call("search", query))["hits"]
    works = [h["work"] for h in hits]
    law = works.index(f"{LU}:loi-1980-03-07-n1")
    assert law == regulation and works[law + 1] == f"{LU}:rgd-2021-05-14-a370"
    if f"{LU}:loi-1980-03-07-n1" not in before:  # not matched by the text: its work row, saying why
        assert hits[law]["match_reasons"] == ["parent_act"]
        assert hits[law]["parent_of"] == f"{LU}:rgd-2021-05-14-a370"


def test_a_parent_whose_names_miss_the_querys_subject_is_not_brought_in(
        fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    query = {"query": "tests de dépistage", "publisher": LU}
    before = [h["work"] for h in _section(fixture_core.call("search", query))["hits"]]
    _stand_in_citations(monkeypatch, _rowid(fixture_core, "rgd-2021-05-14-a370"), _rowid(fixture_core, "loi-1980-03-07-n1"))
    assert [h["work"] for h in _section(fixture_core.call("search", query))["hits"]] == before


# -- acts of the same name or title ----------------------------------------------------------------

def test_title_subject_is_the_title_after_the_acts_date(fixture_core: LegalCore) -> None:
    conn = _connect(fixture_core)
    title = conn.execute("SELECT value FROM work_names WHERE work_rowid = ? AND kind = 'official_title'",
                         (_rowid(fixture_core, "loi-1980-03-07-n1"),)).fetchone()[0]
    assert ranking.title_subject(title) == "sur l organisation judiciaire"
    assert ranking.title_subject("Code du travail") is None  # no dated header
    # the fixture's held works all have titles of their own subject
    assert ranking.works_by_subject(conn) == {}


@pytest.mark.parametrize("publisher", [LU, "eu-eurlex"])
def test_the_titles_folded_once_give_the_tables_folded_apiece(fixture_core: LegalCore, publisher: str) -> None:
    """The profiles and the works by title subject built together, each title folded and cut once
    (``heads``), are the tables built apart; so is each title's role and subject; and the mounted
    index's subjects come with its profiles."""
    index = fixture_core._indexes[publisher]
    conn = sqlite3.connect(index.path)
    titles = [str(r[0]) for r in conn.execute("SELECT value FROM work_names WHERE kind = 'official_title'")]
    assert titles
    heads: dict[str, ranking.TitleHead] = {}
    assert ranking.load_profiles(conn, index.built_date, heads) == ranking.load_profiles(conn, index.built_date)
    assert heads and ranking.works_by_subject(conn, heads) == ranking.works_by_subject(conn)
    for title in titles:
        assert ranking.title_role(title, heads) == ranking.title_role(title)
        assert ranking.title_subject(title, heads) == ranking.title_subject(title)
    with index.session(10.0) as pooled:
        assert ranking.profiles(pooled, index) == ranking.load_profiles(conn, index.built_date)
        assert ranking.subjects(pooled, index) == ranking.works_by_subject(conn)


def test_a_title_head_is_where_the_acts_date_ends() -> None:
    text, end = ranking.title_head("Loi du 22 février 1968 sur la nationalité luxembourgeoise")
    assert text == "loi du 22 fevrier 1968 sur la nationalite luxembourgeoise"
    assert end is not None and text[end:] == "sur la nationalite luxembourgeoise"
    assert ranking.title_head("Code du travail") == ("code du travail", None)


def test_an_act_named_alone_is_followed_by_the_acts_of_its_title(fixture_core: LegalCore,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    code, other = _rowid(fixture_core, "loi-2006-07-31-n2"), _rowid(fixture_core, "loi-2020-07-24-a639")
    before = [h["work"] for h in _section(fixture_core.call("search", {"query": "Code du travail"}))["hits"]]
    assert before[0] == f"{LU}:loi-2006-07-31-n2" and f"{LU}:loi-2020-07-24-a639" not in before
    # the relation the fixtures lack: both works hold one title subject
    subjects = weakref.WeakKeyDictionary({_index(fixture_core): {"du travail": frozenset({code, other})}})
    monkeypatch.setattr(ranking, "_SUBJECTS", subjects)
    hits = _section(fixture_core.call("search", {"query": "Code du travail"}))["hits"]
    assert [h["work"] for h in hits[:2]] == [f"{LU}:loi-2006-07-31-n2", f"{LU}:loi-2020-07-24-a639"]
    assert hits[1]["match_reasons"] == ["same_name"] and hits[1]["same_name_as"] == f"{LU}:loi-2006-07-31-n2"
    # a name with other words lists no acts around it
    more = _section(fixture_core.call("search", {"query": "Code du travail licenciement"}))["hits"]
    assert all("same_name" not in h["match_reasons"] for h in more)


# -- a work whose title is about the query's words -------------------------------------------------

def test_a_title_subject_is_its_content_words(fixture_core: LegalCore) -> None:
    def titles(publisher: str, slug: str) -> list[str]:
        db = sqlite3.connect(fixture_core._indexes[publisher].path)
        return [str(r[0]) for r in db.execute(
            "SELECT value FROM work_names n JOIN works w USING (work_rowid) WHERE w.slug = ? AND kind = 'official_title'",
            (slug,))]

    assert ranking.subject_words(titles(LU, "loi-1980-03-07-n1")) == {"organisation", "judiciaire"}
    # (the whole title's subject: the one cut short by the metadata, "…concentrations be…", is none)
    assert ranking.subject_words(titles("eu-eurlex", "32004r0139")) == {"control", "concentrations", "undertakings",
                                                                        "merger"}
    # act forms, institutions and "(Text with EEA relevance)" say nothing of the subject
    assert not {"regulation", "council", "text", "eea", "relevance"} & ranking.subject_words(
        titles("eu-eurlex", "32016r0679"))
    # a code's title without a dated header is its subject; its act form is not
    assert ranking.subject_words(titles(LU, "loi-2011-04-08-n2")) == {"consommation"}
    subject = frozenset({"organisation", "judiciaire"})
    assert ranking.title_precision(subject, frozenset({"organisation", "judiciaire"})) == 1.0
    assert ranking.title_precision(subject, frozenset({"judiciaire", "judiciaires"})) == 0.5
    assert ranking.title_precision(frozenset(), frozenset({"judiciaire"})) == 0.0


def test_the_work_whose_title_is_about_the_query_weighs_more(fixture_core: LegalCore) -> None:
    conn = _connect(fixture_core)
    index = _index(fixture_core)
    judicial, consumer = _rowid(fixture_core, "loi-1980-03-07-n1"), _rowid(fixture_core, "loi-2011-04-08-n2")
    precision = search_op.works_subject_precision(conn, [judicial, consumer], [["organisation"], ["judiciaire"]], index)
    assert precision == {judicial: 1.0, consumer: 0.0}
    hits = _section(fixture_core.call("search", {"query": "organisation judiciaire", "publisher": LU}))["hits"]
    assert hits[0]["work"] == f"{LU}:loi-1980-03-07-n1"
