"""The title-lane policies of :mod:`hybrid.rescue` (issue #15, measured by ``bench/bench_rescue.py``).

The weak-section flags are read from real answers over the fixture corpus (``LEX_FIXTURES``); the
rescue and re-rank orders are pure, checked on named sections.
"""

from __future__ import annotations

from typing import Any

import pytest

from hybrid.rescue import (
    ANY_TERM,
    OFF_SUBJECT,
    UNTITLED,
    distinct_works,
    reranked,
    rescued,
    weak_reasons,
)
from serve.core import LegalCore
from tests.index.pipeline import FixtureBuild

EU = "eu-eurlex"


@pytest.fixture(scope="module")
def core(fixture_indexes: FixtureBuild) -> LegalCore:
    return LegalCore.mount(fixture_indexes.index_dir, {"set_id": "fixture-set"})


def _section(core: LegalCore, query: str, publisher: str = EU) -> dict[str, Any]:
    answer = core.call("search", {"query": query, "fuzzy": "off"})
    return next(s for s in answer["publishers"] if s["publisher"] == publisher)


def test_the_planners_flags_mark_a_section_weak(core: LegalCore) -> None:
    # the any-word relaxation answered (the CRR holds some of the words, its title none)
    relaxed = _section(core, "supplementary supervision of groups combining banks and insurance companies")
    assert ANY_TERM in weak_reasons(relaxed)
    # the any-word relaxation was withheld as off-subject: an empty, weak section
    withheld = _section(core, "how fast must a cybersecurity incident be reported to the authority")
    assert withheld["hits"] == [] and weak_reasons(withheld) == (OFF_SUBJECT,)


def test_a_firm_answer_is_not_weak(core: LegalCore) -> None:
    # every word in a provision of an act titled by the question's words
    firm = _section(core, "own funds requirements for credit institutions")
    assert firm["hits"] and weak_reasons(firm) == ()


def test_untitled_needs_hits_and_a_zero_title_coverage() -> None:
    hit = {"work": "w1", "anchor": "art_1"}
    assert weak_reasons({"hits": [hit], "title_coverage": 0.0}) == (UNTITLED,)
    assert weak_reasons({"hits": [hit], "title_coverage": 0.25}) == ()
    assert weak_reasons({"hits": [], "title_coverage": 0.0}) == ()
    assert weak_reasons({"hits": [hit], "title_coverage": None}) == ()


def _hits(*works: str) -> list[dict[str, Any]]:
    return [{"work": w, "anchor": "art_1"} for w in works]


def test_rescue_leaves_a_firm_section_alone() -> None:
    hits = _hits("a", "b")
    assert rescued(hits, (), ["c"], {"c": {"work": "c", "anchor": "art_2"}}) == hits


def test_rescue_puts_the_nearest_work_with_evidence_first() -> None:
    hits = _hits("a", "b")
    evidence = {"d": {"work": "d", "anchor": "art_9"}}
    # "c" is nearer by title but has no lexical evidence: never added
    out = rescued(hits, (ANY_TERM,), ["c", "d"], evidence)
    assert [h["work"] for h in out] == ["d", "a", "b"]


def test_rescue_moves_a_work_already_found_and_keeps_its_keyword_row() -> None:
    hits = _hits("a", "b")
    out = rescued(hits, (UNTITLED,), ["b"], {"b": {"work": "b", "anchor": "art_7"}})
    assert out == [hits[1], hits[0]]


def test_rescue_never_answers_an_empty_section_without_evidence() -> None:
    assert rescued([], (OFF_SUBJECT,), ["c", "d"], {}) == []
    assert rescued([], (OFF_SUBJECT,), ["c"], {"c": {"work": "c", "anchor": "art_1"}}, depth=1) == [
        {"work": "c", "anchor": "art_1"}]


def test_rescue_acts_only_on_the_reasons_asked() -> None:
    hits = _hits("a")
    evidence = {"c": {"work": "c", "anchor": "art_1"}}
    assert rescued(hits, (UNTITLED,), ["c"], evidence, act_on=(ANY_TERM,)) == hits
    assert [h["work"] for h in rescued(hits, (UNTITLED,), ["c"], evidence, act_on=(UNTITLED,))] == ["c", "a"]


def test_rescue_depth_bounds_the_works_put_first() -> None:
    evidence = {w: {"work": w, "anchor": "art_1"} for w in "cde"}
    out = rescued(_hits("a"), (ANY_TERM,), ["c", "d", "e"], evidence, depth=2)
    assert [h["work"] for h in out] == ["c", "d", "a"]
    assert rescued(_hits("a"), (ANY_TERM,), ["c"], evidence, depth=0) == _hits("a")


def test_distinct_works_keeps_each_works_first_row() -> None:
    rows = [{"work": "a", "anchor": "1"}, {"work": "b", "anchor": "1"}, {"work": "a", "anchor": "2"}]
    assert distinct_works(rows) == rows[:2]


def test_rerank_blends_keyword_rank_and_title_similarity() -> None:
    hits = _hits("a", "b", "c")
    sims = {"a": 0.80, "b": 0.81, "c": 0.95}
    assert [h["work"] for h in reranked(hits, sims, 0.0)] == ["a", "b", "c"]
    # weight 0.5: c (keyword 0, title 1) ties a (keyword 1, title 0); the keyword order breaks it
    assert [h["work"] for h in reranked(hits, sims, 0.5)] == ["a", "c", "b"]
    assert [h["work"] for h in reranked(hits, sims, 0.9)] == ["c", "b", "a"]
    # a work the lane does not know counts as the least similar
    assert [h["work"] for h in reranked(hits, {"a": 0.8, "b": 0.9}, 0.9)] == ["b", "a", "c"]


def test_rescue_at_a_position_keeps_the_keyword_head() -> None:
    evidence = {"c": {"work": "c", "anchor": "art_1"}}
    out = rescued(_hits("a", "b"), (ANY_TERM,), ["c"], evidence, at=1)
    assert [h["work"] for h in out] == ["a", "c", "b"]
    # a nearest work already in the head stays there and counts toward the depth
    assert [h["work"] for h in rescued(_hits("a", "b"), (ANY_TERM,), ["a", "c"], evidence, at=1)] == ["a", "b"]


# -- the benchmark's evidence (bench/bench_rescue.py) ---------------------------------------------

CRR = "eu-eurlex:32013r0575"


def test_evidence_words_drop_frame_words_and_take_the_reported_expansions() -> None:
    from bench.bench_rescue import section_groups

    section = {"query_plan": {"terms": ["comment", "licenciement", "salarie"]},
               "query_expansions": ["salarie -> salaries", "licenciement -> licenciements", "salarie -> salarié"]}
    assert section_groups(section) == [["licenciement", "licenciements"], ["salarie", "salaries", "salarié"]]


def test_evidence_is_a_provision_of_the_work_holding_a_question_word(fixture_indexes: FixtureBuild) -> None:
    import sqlite3
    from types import SimpleNamespace

    from bench.bench_rescue import work_evidence

    path = fixture_indexes.index_dir / "eu-eurlex.sqlite"
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        rowids = {str(w): int(r) for r, w in conn.execute("SELECT work_rowid, work_id FROM works")}
        filters = SimpleNamespace(language=None, document_type=None, as_of=None)
        # the CRR holds "supervision" (its article 49's heading); "controller" only other acts
        # hold, and the invented word none: one of the three words is the CRR's
        assert conn.execute("SELECT 1 FROM provision_fts WHERE provision_fts MATCH 'controller'").fetchone()
        section = {"query_plan": {"terms": ["supervision", "controller", "zzqxv"]}, "query_expansions": []}
        found = work_evidence(conn, section, [CRR], rowids, filters)
        assert found[CRR]["anchor"] and found[CRR]["held_groups"] == 1 and found[CRR]["groups"] == 3
        assert found[CRR]["work"] == CRR and found[CRR]["match_reasons"] == ["title_rescue"]
        # no word held: no evidence, so no rescue
        assert work_evidence(conn, {"query_plan": {"terms": ["zzqxv"]}}, [CRR], rowids, filters) == {}
        # the case's filters apply: a regulation of 2013 has no version valid in 1990
        before = SimpleNamespace(language=None, document_type=None, as_of="1990-01-01")
        assert work_evidence(conn, section, [CRR], rowids, before) == {}
