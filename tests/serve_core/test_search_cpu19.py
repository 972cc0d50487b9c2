"""Issue #14, nineteenth session: the warm search's CPU, the same answers — the title index ranked
for untexted principal acts only when one of them can be kept, a work row's version read as its
shown columns, versions and Snowball forms read once per index, the lexicon's longest phrase read
once. On the real fixture indexes (``LEX_FIXTURES``); the old paths are the reference."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from derive.index import analysis, xlang
from serve.core import LegalCore, ranking
from serve.core.ops import search
from serve.core.store import versions_of
from tests.index.pipeline import FixtureBuild
from tests.serve_core.test_search_newest import _connect

LU, EU = "lu-legilux", "eu-eurlex"
QUERIES = ("salaire social minimum", "code du travail", "transports publics", "organisation judiciaire",
           "congé culturel", "constitution", "impôt sur le revenu", "titrisation", "applicable", "article")


def test_names_holding_all_is_every_group_held_by_one_work() -> None:
    by_word = {"loi": frozenset({1, 2, 3}), "travail": frozenset({2, 3}), "code": frozenset({3, 4}),
               "salaire": frozenset({5}), "minimum": frozenset({5, 2})}
    assert search.names_holding_all(by_word, [["loi"], ["travail"]]) == {2, 3}
    assert search.names_holding_all(by_word, [["code", "salaire"], ["travail", "minimum"]]) == {3, 5}
    assert search.names_holding_all(by_word, [["salaire minimum"]]) == {5}  # a phrase: every word in one work
    assert search.names_holding_all(by_word, [["loi"], ["absent"]]) == frozenset()
    assert search.names_holding_all(by_word, [["loi"], []]) == frozenset()
    assert search.names_holding_all(by_word, []) == frozenset()


@pytest.mark.parametrize("query", QUERIES)
def test_untexted_subject_rows_answer_as_when_always_ranked(fixture_core: LegalCore, query: str,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    for publisher in (LU, EU):
        index = fixture_core.indexes[publisher]
        groups = [[t] for t in query.split() if t not in ("du", "sur", "le")]
        with index.session(60.0) as conn:
            profiles = ranking.profiles(conn, index)
            every = [int(r[0]) for r in conn.execute("SELECT work_rowid FROM works")]
            for filters in (search.Filters(), search.Filters(language="fr"), search.Filters(as_of="2015-06-01"),
                            search.Filters(allowed=frozenset(every[::2]))):
                got = search.untexted_subject_rows(conn, groups, filters, profiles, index)
                kept = set(search.untexted_subjects(conn, search.untexted_word_works(conn, profiles, index),
                                                    groups, profiles, index))
                assert {h.row["work_rowid"] for h in got} <= kept
                with monkeypatch.context() as m:  # the title index ranked whatever the works' names hold
                    m.setattr(search, "untexted_subjects", lambda *_: [0])
                    ranked = search.untexted_subject_rows(conn, groups, filters, profiles, index)
                assert [(h.row, h.reasons) for h in got] == [(h.row, h.reasons) for h in ranked]


def _old_work_row(conn: sqlite3.Connection, rowid: int, as_of: str | None, kind: str | None) -> dict[str, Any] | None:
    eligible = [v for v in versions_of(conn, rowid) if not v.withdrawn and (as_of is None or v.covers(as_of))
                and (kind is None or v.document_type == kind)]
    if not eligible:
        return None
    v = eligible[-1]
    return {"work_rowid": rowid, "lex_id": v.lex_id, "version_key": v.version_key, "valid_from": v.valid_from,
            "valid_to": v.valid_to, "end_exclusive": v.end_exclusive, "document_type": v.document_type,
            "anchor": None, "language": None}


@pytest.mark.parametrize("name", ["eu-eurlex.sqlite", "lu-legilux.sqlite"])
def test_a_work_rows_version_is_the_last_eligible_of_its_versions(fixture_indexes: FixtureBuild, name: str) -> None:
    conn = _connect(fixture_indexes, name)
    works = [int(r[0]) for r in conn.execute("SELECT work_rowid FROM works ORDER BY work_rowid")]
    kinds = [None, *sorted({str(r[0]) for r in conn.execute("SELECT DISTINCT document_type FROM versions "
                                                            "WHERE document_type IS NOT NULL")})[:3]]
    for as_of in (None, "1999-01-01", "2015-06-01", "2024-12-31"):
        for kind in kinds:
            for work in works:
                got = search.newest_work_row(conn, work, as_of, kind)
                assert got == _old_work_row(conn, work, as_of, kind)
                assert got is None or list(got) == list(_old_work_row(conn, work, as_of, kind) or {})


@pytest.mark.parametrize("remembered", [3, 40, search.VERSIONS_REMEMBERED])
def test_version_columns_are_the_tables_once_remembered(fixture_indexes: FixtureBuild, remembered: int,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "VERSIONS_REMEMBERED", remembered)
    conn = _connect(fixture_indexes, "eu-eurlex.sqlite")
    table = {int(r[0]): tuple(r[1:]) for r in conn.execute(
        "SELECT version_rowid, lex_id, version_key, valid_from, valid_to, end_exclusive, document_type FROM versions")}
    ids = sorted(table)
    for start in range(0, len(ids), 7):
        asked = [*ids[start:start + 9], -5]  # and one that is no version
        got = search._version_columns(conn, asked)
        assert {v: got[v] for v in asked if v in got} == {v: table[v] for v in asked if v in table}
        assert -5 not in got


def test_held_forms_are_word_forms_remembered(fixture_core: LegalCore) -> None:
    index = fixture_core.indexes[LU]
    with index.session(60.0) as conn:
        for word in ("salaire", "salaires", "travail", "directive", "zzzz", "loi"):
            for language in (None, "fr", "en"):
                first = search.held_forms(conn, word, language, index)
                assert first == analysis.word_forms(conn, word, language)
                first.append("changed")  # a caller's list, not the remembered forms
                assert search.held_forms(conn, word, language, index) == analysis.word_forms(conn, word, language)


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_lexicons_longest_phrase_is_read_once(language: str) -> None:
    lex = xlang.lexicon(language)
    assert lex.longest == max((len(p) for p in lex.phrases), default=0)
