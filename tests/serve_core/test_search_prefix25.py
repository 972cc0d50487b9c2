"""Issue #15, ``limit`` cuts the answer and never reorders it: the first ``k`` hits of a search of
``limit`` ``n`` are the search of ``limit`` ``k`` (each publisher section and ``merged``). A search
is ranked at fixed depths (:data:`serve.core.ops.search.SEARCH_DEPTHS`: 10, 20, 50), stitched and cut
(ADR 0055). On the real fixture corpus (``LEX_FIXTURES``) and on hand-made sections."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from serve.core import LegalCore
from serve.core.ops.search import SEARCH_DEPTHS, deepened, depths, stitched
from serve.core.registry import OPERATIONS

JUDGMENTS = Path(__file__).resolve().parents[2] / "evals" / "retrieval_judgments.json"
GRAINS: tuple[dict[str, Any], ...] = ({}, {"result_grain": "provisions"})


def _keys(answer: dict[str, Any]) -> tuple[list[list[tuple[Any, ...]]], list[tuple[Any, ...]]]:
    """Per section, then merged: each hit's work and provision, in order."""
    sections = [[(h["work"], h.get("provision_id")) for h in s.get("hits") or []]
                for s in answer.get("publishers", [answer])]
    merged = [(h["publisher"], h["work"], h.get("provision_id")) for h in answer.get("merged") or []]
    return sections, merged


def _prefix(core: LegalCore, args: dict[str, Any], k: int, n: int = SEARCH_DEPTHS[-1]) -> tuple[Any, Any]:
    """The answer of ``limit`` ``k`` and the first ``k`` of the answer of ``limit`` ``n``."""
    small = _keys(core.call("search", {**args, "limit": k}))
    sections, merged = _keys(core.call("search", {**args, "limit": n}))
    return small, ([s[:k] for s in sections], merged[:k])


@pytest.mark.parametrize(("args", "k"), [
    # before the fix: limit 10 let 32012E/TXT's provisions into the EUR-Lex section that limit 50 ranks lower
    ({"query": "Treaty on the Functioning of the European Union"}, 10),
    # provisions grain: the candidate budget (limit × 6) changed which provisions led
    ({"query": "entraide judiciaire en matière pénale", "result_grain": "provisions"}, 10),
    ({"query": "entraide judiciaire en matière pénale"}, 3),
    ({"query": "Merger Regulation compared with Regulation No 17 amendments"}, 1),
], ids=["tfeu-works-10", "entraide-provisions-10", "entraide-works-3", "merger-works-1"])
def test_a_smaller_limit_is_the_first_hits_of_a_larger_one(fixture_core: LegalCore, args: dict[str, Any],
                                                            k: int) -> None:
    small, cut = _prefix(fixture_core, args, k)
    assert small == cut
    assert any(small[0]), "the case must answer hits"


def test_every_fixture_question_is_cut_not_reordered(fixture_core: LegalCore) -> None:
    questions = [c["query"] for c in json.loads(JUDGMENTS.read_text(encoding="utf-8"))["cases"]]
    differing = []
    for question in questions:
        for grain in GRAINS:
            sections, merged = _keys(fixture_core.call("search", {"query": question, **grain, "limit": SEARCH_DEPTHS[-1]}))
            for k in (1, 5, 10, 15, 20, 30):
                small = _keys(fixture_core.call("search", {"query": question, **grain, "limit": k}))
                if small != ([s[:k] for s in sections], merged[:k]):
                    differing.append((question, grain, k))
    assert len(questions) > 100
    assert differing == []


def test_row_set_counts_the_hits_returned(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": "protection des consommateurs", "limit": 2})
    sections = [s for s in answer["publishers"] if s.get("hits")]
    assert sections
    for section in sections:
        assert len(section["hits"]) <= 2
        assert section["row_set"]["returned"] == len(section["hits"])
        assert section["row_set"]["limit"] == 2
    assert [h["rank"] for h in answer["merged"]] == list(range(1, len(answer["merged"]) + 1))
    assert len(answer["merged"]) <= 2


def test_the_depths_end_at_the_largest_limit_search_accepts() -> None:
    (limit,) = [p for p in OPERATIONS["search"].params if p.name == "limit"]
    assert limit.maximum == SEARCH_DEPTHS[-1]
    assert [depths(n) for n in (1, 10, 11, 20, 21, 50)] == [[10], [10], [10, 20], [10, 20], [10, 20, 50], [10, 20, 50]]


def _section(*works: str, grain: str = "works", cap: int | None = None) -> dict[str, Any]:
    return {"publisher": "p", "result_grain": grain, "row_set": {"per_work_limit": cap},
            "hits": [{"rank": i, "work": w, "provision_id": f"{w}#{i}", "score": 1.0} for i, w in enumerate(works, 1)]}


def test_a_full_section_is_extended_by_the_deeper_hits_it_does_not_hold() -> None:
    section = _section("a", "b")
    deepened(section, _section("b", "c", "a", "d"), 2)
    assert [(h["rank"], h["work"]) for h in section["hits"]] == [(1, "a"), (2, "b"), (3, "c"), (4, "d")]


def test_a_section_holding_fewer_hits_than_its_depth_is_whole() -> None:
    section = _section("a")
    deepened(section, _section("a", "b", "c"), 2)
    assert [h["work"] for h in section["hits"]] == ["a"]


def test_provisions_keep_the_per_work_limit_across_depths() -> None:
    section = _section("a", "a", grain="provisions", cap=2)
    deeper = _section("b", "a", "a", "c", grain="provisions", cap=2)
    deepened(section, deeper, 2)
    assert [h["work"] for h in section["hits"]] == ["a", "a", "b", "c"]


def test_stitched_cuts_to_limit_and_merges_again() -> None:
    first = "abcdefghij"  # a full first depth (10)
    head = {"publishers": [_section(*first)], "merged": []}
    deep = {"publishers": [_section("k", *first, "l", "m")], "merged": []}
    answer = stitched([head, deep], 12)
    (section,) = answer["publishers"]
    assert "".join(h["work"] for h in section["hits"]) == first + "kl"
    assert section["row_set"] == {"per_work_limit": None, "returned": 12, "limit": 12, "truncated": True}
    assert [h["rank"] for h in answer["merged"]] == list(range(1, 13))
    assert "".join(h["work"] for h in answer["merged"]) == first + "kl"
