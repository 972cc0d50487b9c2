"""Issue #15, forty-fifth session (terms45): questions asked in words the acts do not use, ranked by the act terms.

Reviewed act terms (``derive/index/act_terms/*.jsonl``, :mod:`derive.index.actterms`) are stored in the index as
``work_metadata`` rows of kind ``act_term``; the search fuses the keyword ranking with the ranking of the acts whose
terms cover the question (:func:`serve.core.ops.search.act_term_step`, :mod:`serve.core.actterms`). The real fixture
corpora (``LEX_FIXTURES``) are built here again with a small act-terms directory made by the test (never the packaged
data), and once without any, which must answer exactly as the search without the step.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from serve.core import LegalCore, actterms
from serve.core.ops import search
from tests.index.pipeline import FixtureBuild
from tests.serve_core.term_matches import build_with_terms, write_terms

EU, LU = "eu-eurlex", "lu-legilux"
#: The Luxembourg consumer code (loi du 8 avril 2011): given, for the test, the English term "customer personal
#: information" (and a German one) — no text of it says the question below in English.
CONSUMER = "lu-legilux:loi-2011-04-08-n2"
GDPR = "eu-eurlex:32016r0679"
TERMS = [
    {"work": CONSUMER, "fr": ["zorblax widget"], "en": ["customer personal information"], "de": ["Kundendaten"]},
    {"work": "lu-legilux:loi-1800-01-01-n1", "en": ["an act not held"]},
    {"work": GDPR, "skip": "test: no terms"},
]


@pytest.fixture(scope="module")
def terms_dirs(fixture_indexes: FixtureBuild, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    terms = write_terms(tmp_path_factory.mktemp("act-terms"), TERMS)
    yield {"terms": build_with_terms(fixture_indexes, terms, tmp_path_factory.mktemp("index-terms")),
           "none": build_with_terms(fixture_indexes, terms / "absent", tmp_path_factory.mktemp("index-none"))}


@pytest.fixture(scope="module")
def terms_core(terms_dirs: dict[str, Path]) -> Iterator[LegalCore]:
    with LegalCore.mount(terms_dirs["terms"], {"set_id": "terms45"}) as core:
        yield core


def _works(answer: dict[str, Any], publisher: str) -> list[str]:
    section = next(s for s in answer["publishers"] if s["publisher"] == publisher)
    return [h["work"] for h in section.get("hits") or []]


def _with_and_without(core: LegalCore, query: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The answer to ``query`` with the act terms' fusion, then without it (``search.ACT_TERMS`` off)."""
    with_step = core.call("search", {"query": query})
    search.ACT_TERMS = False
    try:
        without = core.call("search", {"query": query})
    finally:
        search.ACT_TERMS = True
    return with_step, without


def test_the_index_holds_the_terms_of_held_works_only(terms_dirs: dict[str, Path]) -> None:
    conn = sqlite3.connect(terms_dirs["terms"] / f"{LU}.sqlite")
    try:
        rows = conn.execute("SELECT w.work_id, m.label, m.language FROM work_metadata m JOIN works w USING (work_rowid) "
                            "WHERE m.kind = 'act_term' ORDER BY m.language, m.label").fetchall()
        fts = conn.execute("SELECT count(*) FROM work_fts WHERE work_fts MATCH 'metadata : zorblax'").fetchone()[0]
    finally:
        conn.close()
    assert rows == [(CONSUMER, "kundendaten", "de"), (CONSUMER, "customer personal information", "en"),
                    (CONSUMER, "zorblax widget", "fr")]
    assert fts == 0  # not in work_fts: the metadata lane reads the publisher's labels only
    conn = sqlite3.connect(terms_dirs["none"] / f"{LU}.sqlite")
    try:
        assert conn.execute("SELECT count(*) FROM work_metadata WHERE kind = 'act_term'").fetchone()[0] == 0
    finally:
        conn.close()


def test_an_english_question_reaches_a_french_only_act_through_its_terms(terms_core: LegalCore) -> None:
    answer, before = _with_and_without(terms_core, "personal information of customers")
    assert _works(answer, EU) == _works(before, EU)  # the keyword answer's EU section is kept
    assert CONSUMER not in _works(before, LU)
    lu = next(s for s in answer["publishers"] if s["publisher"] == LU)
    # the terms rank it first, the keywords not at all, and the Legilux section was searched through the
    # cross-language lexicon (CROSS_WEIGHT): it comes second of the answer, so first of the Legilux section
    assert lu["query_plan"]["translations"] is not None
    assert _works(answer, LU) == [CONSUMER, *_works(before, LU)]
    assert lu["hits"][0]["match_reasons"] == ["act_term"]
    assert lu["hits"][0]["matched_act_terms"] == ["customer personal information"]
    # the terms' first act, said whole, is Legilux's first work and EUR-Lex's first work is no term-matched act:
    # the Legilux section comes first (search.act_term_lead; tests/serve_core/test_search_xsec46.py)
    assert [s["publisher"] for s in before["publishers"]] == [EU, LU]
    assert [s["publisher"] for s in answer["publishers"]] == [LU, EU]
    assert answer["merged"][0]["work"] == CONSUMER


def test_the_sections_keep_their_order_when_the_terms_evidence_is_not_ahead_by_the_margin(
        terms_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "LEAD_MARGIN", 1.01)  # no coverage is that far ahead
    answer, before = _with_and_without(terms_core, "personal information of customers")
    assert _works(answer, LU)[0] == CONSUMER
    assert [s["publisher"] for s in answer["publishers"]] == [s["publisher"] for s in before["publishers"]] == [EU, LU]


def test_a_question_saying_part_of_a_term_is_not_ranked_by_it(terms_core: LegalCore) -> None:
    # "information" alone of "customer personal information": the term is not said, not even in part (two of its
    # three words would be: actterms.partly_covered, tests/serve_core/test_search_concept46.py); the keyword answer
    with_terms, without = _with_and_without(terms_core, "information of employees")
    assert with_terms["publishers"] == without["publishers"]


def test_a_question_no_keyword_answers_takes_the_act_whose_term_it_says_whole(terms_core: LegalCore) -> None:
    # no index holds "zorblax", so no section answers; the question is the consumer code's term, said whole and
    # covering all of it (forty-seventh session, search.act_term_answer): the act is the answer, as a work row
    answer = terms_core.call("search", {"query": "zorblax widget"})
    assert _works(answer, LU) == [CONSUMER]
    hit = next(s for s in answer["publishers"] if s["publisher"] == LU)["hits"][0]
    assert "act_term" in hit["match_reasons"] and hit["matched_act_terms"] == ["zorblax widget"]
    assert [m["work"] for m in answer["merged"]] == [CONSUMER]
    assert not _works(answer, EU)


def test_a_question_no_keyword_answers_stays_empty_when_the_terms_cover_too_little(
        terms_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    # the same term said beside words no term holds covers less than search.EMPTY_COVERAGE of the question: a
    # question on a subject no act is about says some act's terms in part, and stays empty
    answer = terms_core.call("search", {"query": "zorblax widget for unicorn racing trainers"})
    assert not any(s.get("hits") for s in answer["publishers"]) and answer["merged"] == []
    monkeypatch.setattr(search, "EMPTY_COVERAGE", 1.01)
    monkeypatch.setattr(search, "PAIR_LEAD", False)  # the two-word lead (zh51) would take the act on its own
    answer = terms_core.call("search", {"query": "zorblax widget"})
    assert not any(s.get("hits") for s in answer["publishers"]) and answer["merged"] == []


def test_an_index_without_terms_answers_as_the_search_without_the_step(terms_dirs: dict[str, Path]) -> None:
    with LegalCore.mount(terms_dirs["none"], {"set_id": "none"}) as core:
        with_step, without = _with_and_without(core, "personal information of customers")
    assert with_step["publishers"] == without["publishers"]
    assert CONSUMER not in _works(with_step, LU)


def test_a_question_naming_an_act_is_left_to_the_keywords(terms_core: LegalCore) -> None:
    # "personal data" is a short title of the GDPR (a soft mention): the question names an act
    with_terms, without = _with_and_without(terms_core, "personal data of customers information")
    assert with_terms["publishers"] == without["publishers"]


def test_coverage_weighs_words_by_their_rarity_among_the_terms() -> None:
    terms = actterms.term_index([
        (1, "beneficial owner register", "en"), (1, "registre des beneficiaires effectifs", "fr"),
        (2, "company register", "en"), (3, "trade register", "en"), (4, "register", "en"),
        (5, "Spielzeugsicherheit", "de"), (5, "spielzeug", "de"),
    ])
    found = terms.covered(["register", "beneficial", "owners"])
    assert [m.work for m in found][:1] == [1] and found[0].coverage == pytest.approx(1.0)
    assert found[0].terms == ("benefici owner regist",)  # the key said (stems)
    assert found[0].words == ("register", "beneficial", "owners")
    rest = {m.work: m.coverage for m in found[1:]}
    # "register" alone (the other terms need "company", "trade"): a word most acts' terms hold weighs little
    assert set(rest) == {4} and rest[4] < 0.1
    # French question words say the French term in any inflection
    assert terms.covered(actterms.question_words("registre des bénéficiaires effectifs"))[0].work == 1
    # a German compound's head says a term
    assert [m.work for m in terms.covered(["kinderspielzeug", "sicherheit"])] == [5]


def test_the_ranked_matches_need_two_covered_words_and_a_share() -> None:
    match = actterms.Match
    words = ["a", "b", "c"]
    kept = actterms.ranked([match(1, 0.9, ("a", "b"), ()), match(2, 0.95, ("a",), ()), match(3, 0.1, ("a", "b"), ())],
                           words)
    assert [m.work for m in kept] == [1]
    assert actterms.ranked([match(1, 1.0, ("a",), ())], ["a"]) == []  # a question of one word


def test_fusion_and_interleaving() -> None:
    assert actterms.interleaved([["e1", "e2", "e3"], ["l1"]]) == ["e1", "l1", "e2", "e3"]
    # an act the terms rank first and the keywords do not list comes after the keywords' third (0.5 / 2 = 1 / 4)
    assert actterms.fused(["a", "b", "c", "d"], ["x"]) == ["a", "b", "c", "x", "d"]
    # listed third, it comes second (ties the first, after it); listed fifth, second too
    assert actterms.fused(["a", "b", "x", "d"], ["x", "y"]) == ["a", "x", "b", "d", "y"]
    assert actterms.fused(["a", "b", "c", "d", "x"], ["x"]) == ["a", "x", "b", "c", "d"]
    assert actterms.fused(["a", "b", "x"], ["x"], weight=0.8) == ["x", "a", "b"]
    assert actterms.fused(["a", "b"], []) == ["a", "b"]
    # one weight per matched act: a cross-language section's act (CROSS_WEIGHT) comes second, not after the third
    assert actterms.fused(["a", "b", "c", "d"], ["x", "y"], weight=[actterms.CROSS_WEIGHT, actterms.WEIGHT]) == [
        "a", "x", "b", "c", "d", "y"]


def test_question_words_leave_out_frame_form_and_country_words() -> None:
    assert actterms.question_words("Sicherheitsanforderungen für Kinderspielzeug in Luxemburg") == [
        "sicherheitsanforderungen", "kinderspielzeug"]
    assert actterms.question_words("loi sur l'œuvre orpheline au Luxembourg 2015") == ["oeuvre", "orpheline"]


_WORD = st.text(alphabet="abcdez", min_size=1, max_size=4)


@given(st.lists(st.lists(_WORD, min_size=1, max_size=3).map(" ".join), max_size=30), _WORD)
def test_sorted_strings_find_as_a_list_would(items: list[str], word: str) -> None:
    held = actterms.SortedStrings(items)
    values = sorted(items)
    assert [held[i] for i in range(len(held))] == values
    assert held.find(word) == (values.index(word) if word in values else -1)


def test_a_match_covers_the_words_no_index_holds_only_when_its_words_say_them() -> None:
    # an empty answer takes an act only when the words no index holds are among the words its terms cover
    # (search.act_term_answer): "tip" beside the package-travel terms is what the question is about
    match = actterms.Match(7, 0.8, ("organiser", "package", "travel"), ("organis", "packag travel"))
    assert actterms.covers_words(match, [])
    assert actterms.covers_words(match, ["travel", "Package"])
    assert actterms.covers_words(match, ["travelling"])  # one of its forms (the English stem) is covered
    assert not actterms.covers_words(match, ["tip"])
    assert not actterms.covers_words(match, ["travel", "tip"])
