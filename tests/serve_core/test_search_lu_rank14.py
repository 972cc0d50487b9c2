"""Issue #15, fourteenth pass (lurank14): the word naming Luxembourg in a question asked of Legilux
("Luxembourg law on …", "Luxemburger …gesetz", "… au Luxembourg") says which country's law is
meant, not a word the act's text must hold. Pure tests on the plan's terms; end to end on the real
fixture corpus (``LEX_FIXTURES``)."""

from __future__ import annotations

from typing import Any

import pytest

from derive.index import relax
from serve.core import LegalCore, ranking
from serve.core.ops import search as search_op

LU, EU = "lu-legilux", "eu-eurlex"


def _content(term: str) -> bool:
    return not relax.relaxable(term)


def _sections(core: LegalCore, query: str) -> dict[str, dict[str, Any]]:
    answer = core.call("search", {"query": query, "limit": 10})
    return {s["publisher"]: dict(s) for s in answer["publishers"]}


@pytest.mark.parametrize(("terms", "synonyms", "translated", "kept"), [
    # English: the country's name goes, the subject stays
    (["luxembourg", "law", "euthanasia"], {}, True, ["law", "euthanasia"]),
    # German: a word the lexicon renders by the country's name only goes too
    (["luxemburger", "staatsangehorigkeit", "gesetz"], {"luxemburger": ["luxembourg"]}, True,
     ["staatsangehorigkeit", "gesetz"]),
    # French, enough words left: "… à l'école au Luxembourg"
    (["partir", "quel", "age", "enfant", "peut", "aller", "ecole", "luxembourg"], {}, False,
     ["partir", "quel", "age", "enfant", "peut", "aller", "ecole"]),
    # French, few words left: the any-word relaxation needs the third word, kept
    (["euthanasie", "legale", "luxembourg"], {}, False, ["euthanasie", "legale", "luxembourg"]),
    # the French adjective is an act's subject ("sur la nationalité luxembourgeoise")
    (["nationalite", "luxembourgeoise", "acquisition", "naturalisation"], {}, False,
     ["nationalite", "luxembourgeoise", "acquisition", "naturalisation"]),
    # … but after a word for the law itself it names the country ("droit luxembourgeois")
    (["collectes", "domicile", "droit", "luxembourgeois"], {}, False, ["collectes", "domicile", "droit"]),
    # the country's name alone is the question
    (["luxembourg"], {}, True, ["luxembourg"]),
])
def test_the_country_word_is_not_a_word_a_legilux_act_must_hold(
        terms: list[str], synonyms: dict[str, list[str]], translated: bool, kept: list[str]) -> None:
    assert ranking.without_own_country(terms, synonyms, translated, _content) == kept


def test_a_word_the_lexicon_renders_by_more_than_the_country_is_kept() -> None:
    # a mined rendering "luxembourg" beside another French word: the word means more than the country
    assert ranking.own_country_terms(["banque", "zentral"], {"zentral": ["luxembourg", "centrale"]}) == set()


def test_the_country_word_inside_a_name_is_kept() -> None:
    tokens = ["statistiques", "de", "paiement", "banque", "centrale", "du", "luxembourg"]
    assert ranking.country_in_names(tokens) == {"luxembourg"}
    terms = ["statistiques", "paiement", "banque", "centrale", "luxembourg"]
    assert ranking.without_own_country(terms, {}, False, _content, ranking.country_in_names(tokens)) == terms
    assert ranking.country_in_names(["cannabis", "chez", "soi", "au", "luxembourg"]) == frozenset()


@pytest.mark.parametrize(("query", "work"), [
    ("Luxembourg law on public transport", "lu-legilux:loi-2021-02-05-a106"),
    ("Luxembourg law on mutual societies", "lu-legilux:loi-2019-08-01-a530"),
])
def test_an_english_question_naming_luxembourg_is_searched_on_legilux_without_the_country_word(
        fixture_core: LegalCore, query: str, work: str) -> None:
    sections = _sections(fixture_core, query)
    lu = sections[LU]
    assert "luxembourg" not in lu["query_plan"]["terms"]
    assert lu["hits"] and lu["hits"][0]["work"] == work
    # EUR-Lex keeps every word of the question
    assert "luxembourg" in sections[EU]["query_plan"]["terms"]


def test_a_name_holding_the_country_word_keeps_it_on_legilux(fixture_core: LegalCore) -> None:
    lu = _sections(fixture_core, "statistiques de paiement Banque centrale du Luxembourg")[LU]
    assert "luxembourg" in lu["query_plan"]["terms"]
    assert lu["hits"][0]["work"] == "lu-legilux:rbcl-2021-07-12-a524"


# -- a règlement asked by its whole subject comes before the law it executes -----------------------

@pytest.mark.parametrize(("parent", "child", "precision", "first"), [
    # "régime des employés communaux": the RGD "concernant le régime des employés communaux" holds every
    # word and its subject nothing else; the 1985 law "fixant le statut général des fonctionnaires
    # communaux" one word of three
    (1 / 3, 1.0, 1.0, False),
    # "plan d'aménagement général de la commune": the RGD's subject is "le contenu du plan …": the law first
    (0.5, 1.0, 0.8, True),
    # the question is the law's subject as much as the règlement's: the law comes first
    (1.0, 1.0, 1.0, True),
    # the règlement's names hold only part of the question: the law comes first when titled enough
    (0.5, 0.75, 1.0, True),
    # a parent titled by too little of the question never moves
    (0.0, 0.5, 1.0, False),
])
def test_a_parent_comes_first_unless_the_question_is_its_regulations_whole_subject(
        parent: float, child: float, precision: float, first: bool) -> None:
    assert search_op.parent_titled_enough({1: parent, 2: child}, 1, 2, lambda: {2: precision}) is first


# -- D2: the title lanes share one per-work loop (search.title_rows), with the same answers -------

def _old_title_lane(conn: Any, groups: list[list[str]], filters: Any, limit: int) -> list[Any]:
    """``title_lane`` as it was before the shared loop (fourteenth session), for comparison."""
    match = search_op.fts_query(groups)
    if match is None:
        return []
    rows = conn.execute("SELECT rowid FROM work_fts WHERE work_fts MATCH ? ORDER BY bm25(work_fts, 0, 8, 10, 0, 0) "
                        "LIMIT ?", (f"{{titles short_titles}} : ({match})", limit)).fetchall()
    hits = []
    for (rowid,) in rows:
        if filters.works and rowid not in filters.works:
            continue
        if filters.allowed is not None and rowid not in filters.allowed:
            continue
        if filters.language and not search_op._titled_in(conn, rowid, groups, filters.language):
            continue
        hit = search_op._work_row(conn, rowid, filters, ["title_words"])
        if hit is not None:
            hits.append(hit)
    return hits


def _old_loop(conn: Any, candidates: list[int], groups: list[list[str]], filters: Any, keep: Any,
              limit: int | None) -> list[Any]:
    """The per-work loop ``untexted_title_rows`` (``limit``) and ``untexted_subject_rows`` (none) had."""
    hits = []
    for work in candidates:
        if not keep(work):
            continue
        if filters.language and not search_op._titled_in(conn, work, groups, filters.language):
            continue
        hit = search_op._work_row(conn, work, filters, ["title_words"])
        if hit is not None:
            hits.append(hit)
        if limit is not None and len(hits) >= limit:
            break
    return hits


def _rows(hits: list[Any]) -> list[tuple[Any, ...]]:
    return [(h.row["work_rowid"], h.row.get("version_key"), tuple(h.reasons)) for h in hits]


@pytest.mark.parametrize("query", ["salaire social minimum", "code du travail", "transports publics",
                                   "organisation judiciaire", "congé culturel", "constitution"])
def test_the_title_lanes_answer_as_their_own_loops_did(fixture_core: LegalCore, query: str) -> None:
    for publisher in (LU, EU):
        index = fixture_core.indexes[publisher]
        groups = [[t] for t in query.split() if t not in ("du",)]
        with index.session(60.0) as conn:
            every = [int(r[0]) for r in conn.execute("SELECT work_rowid FROM works")]
            profiles = ranking.profiles(conn, index)
            for filters in (search_op.Filters(), search_op.Filters(language="fr"), search_op.Filters(language="en"),
                            search_op.Filters(as_of="2015-06-01"), search_op.Filters(works=tuple(every[:5])),
                            search_op.Filters(allowed=frozenset(every[::2]))):
                for limit in (1, 3, 10):
                    assert _rows(search_op.title_lane(conn, groups, filters, limit)) == \
                        _rows(_old_title_lane(conn, groups, filters, limit))
                    allowed = [w for w in every if (filters.allowed is None or w in filters.allowed)
                               and (not filters.works or w in filters.works)]
                    coverage = search_op.works_title_coverage(conn, allowed, groups, index)
                    covered = {w for w in allowed if coverage.get(w, 0.0) > 0.5}
                    assert _rows(search_op.title_rows(conn, (w for w in allowed if w in covered),
                                                      groups, filters, limit)) == \
                        _rows(_old_loop(conn, allowed, groups, filters, covered.__contains__, limit))
                precision = search_op.works_subject_precision(conn, every, groups, index)
                coverage = search_op.works_title_coverage(conn, every, groups, index)
                exact = {w for w in every
                         if search_op.exact_subject(profiles.get(w), coverage.get(w, 0.0), precision.get(w, 0.0))}
                assert _rows(search_op.title_rows(conn, (w for w in allowed if w in exact), groups, filters)) == \
                    _rows(_old_loop(conn, allowed, groups, filters, exact.__contains__, None))
            # the three lanes end to end, untexted ones included
            assert search_op.untexted_title_rows(conn, groups, search_op.Filters(), 10, index) is not None
            assert search_op.untexted_subject_rows(conn, groups, search_op.Filters(), profiles, index) is not None
