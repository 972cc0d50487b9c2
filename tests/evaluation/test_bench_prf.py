"""Issue #15, thirtieth session (prf30): the pseudo-relevance feedback measurement (``bench/bench_prf.py``).

Feedback was measured, not adopted (docs/retrieval-benchmark.md §8.48, ADR 0081); what these tests hold is
that the measurement measures what it says: the feedback terms are the Bo1 words the first works' names share
(never a question word, a word of one work only or a word most names hold), a re-ranking moves only the
candidates it is given, and the first round the grid is compared with is the benchmark's own score. Real
fixture corpus (``LEX_FIXTURES``) and pure checks.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bench import bench_prf

ROOT = Path(__file__).resolve().parents[2]


def _names(words: dict[str, set[str]], publisher: str = "lu-legilux") -> bench_prf.Names:
    names = bench_prf.Names.__new__(bench_prf.Names)
    names.stop = frozenset()
    names.words = {w: frozenset(s) for w, s in words.items()}
    names.df = {publisher: Counter(t for s in words.values() for t in s)}
    names.n = {publisher: len(words)}
    return names


def _hits(*works: str) -> list[dict[str, Any]]:
    return [{"work": w} for w in works]


def test_a_feedback_term_is_shared_by_two_first_works_and_is_not_the_questions_word() -> None:
    words = {"a": {"chasse", "permis", "gibier"}, "b": {"chasse", "gibier", "armes"}, "c": {"armes", "gibier"}}
    words.update({f"x{i}": {"autre"} for i in range(100)})
    terms = bench_prf.feedback_terms(_names(words), "lu-legilux", _hits("a", "b", "c"), {"chasser"}, 3, 5)
    # « chasse » shares the question's stem (chass), « permis » is one work's word only
    assert set(terms) == {"gibier", "armes"}
    assert terms["gibier"] > terms["armes"]  # held by three of the first works, not two


def test_a_word_most_names_hold_is_never_a_feedback_term() -> None:
    words = {f"w{i}": {"consolidee", "version"} for i in range(20)}
    words["w0"] |= {"gibier"}
    words["w1"] |= {"gibier"}
    words.update({f"x{i}": {"autre"} for i in range(60)})
    terms = bench_prf.feedback_terms(_names(words), "lu-legilux", _hits("w0", "w1"), set(), 2, 5)
    assert set(terms) == {"gibier"}


def test_the_rerank_moves_only_the_given_candidates_and_none_without_weight() -> None:
    names = _names({"a": {"armes"}, "b": set(), "c": {"gibier", "armes"}})
    hits = _hits("a", "b", "c")
    assert bench_prf.reranked(names, hits, {"gibier": 2.0, "armes": 1.0}, 0.0) == hits
    assert bench_prf.reranked(names, hits, {}, 0.5) == hits
    moved = bench_prf.reranked(names, hits, {"gibier": 2.0, "armes": 1.0}, 0.6)
    assert [h["work"] for h in moved] == ["c", "a", "b"]


def test_headings_add_their_words_only_when_asked() -> None:
    names = _names({"a": {"armes"}})
    row = {"work": "a", "heading": "Permis de chasse"}
    assert "chasse" not in bench_prf.held_words(names, row, False)
    assert {"permis", "chasse", "armes"} <= bench_prf.held_words(names, row, True)


def test_names_are_read_from_the_index_without_stop_words_or_numbers(fixture_indexes: Any) -> None:
    names = bench_prf.Names(fixture_indexes.index_dir)
    assert names.n["lu-legilux"] > 0 and names.n["eu-eurlex"] > 0
    held = set().union(*names.words.values())
    assert "infection" in held
    assert not {"2021", "pour", "les"} & held


@pytest.fixture(scope="module")
def measured(fixture_indexes: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    judgments = ROOT / "evals" / "retrieval_judgments.json"
    collected = bench_prf.collect(fixture_indexes.index_dir, [judgments])
    path = tmp_path_factory.mktemp("prf") / "collected.json"
    path.write_text(json.dumps(collected), encoding="utf-8")
    return {"collected": collected, "analysed": bench_prf.analyse(collected, fixture_indexes.index_dir)}


def test_the_first_round_is_the_benchmarks_own_score(fixture_indexes: Any, measured: dict[str, Any]) -> None:
    # the grid compares every configuration with the ``limit`` 10 answer the retrieval benchmark scores:
    # a section's first ten hits of the ``limit`` 50 answer are those (ops.search.stitched)
    from release.benchmark import load_judgments
    from release.benchmark.runner import run_case
    from release.benchmark.scoring import score_case
    from serve.core import LegalCore

    judged = {c.id: c for c in load_judgments(ROOT / "evals" / "retrieval_judgments.json").cases}
    cases = measured["collected"]["files"]["retrieval_judgments.json"]["cases"]
    assert cases and all(not judged[c["id"]].expect_no_hits for c in cases)
    with LegalCore.mount(fixture_indexes.index_dir, {}) as core:
        for item in cases[:40]:
            case = judged[item["id"]]
            first = score_case(case, bench_prf._interleave([s["hits"] for s in item["sections"]])).ndcg_at_10
            assert first == score_case(case, run_case(core, case).hits).ndcg_at_10, case.id


def test_the_grid_counts_every_configuration(measured: dict[str, Any]) -> None:
    grid = measured["analysed"]["grid"]
    assert len(grid) == 2 * len(bench_prf.GRID_GATE) * len(bench_prf.GRID_K) * len(bench_prf.GRID_TERMS) \
        * len(bench_prf.GRID_LAM)
    for row in grid:
        assert row["up"] == len(row["cases_up"]) and row["down"] == len(row["cases_down"])
