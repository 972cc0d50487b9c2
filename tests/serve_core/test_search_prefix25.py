"""Issue #15, ``limit`` cuts the answer and never reorders it: the first ``k`` hits of a search of
``limit`` ``n`` are the search of ``limit`` ``k`` (each publisher section and ``merged``). Every
search ranks :data:`serve.core.ops.search.SEARCH_DEPTH` hits (the largest ``limit``) and is cut
afterwards (ADR 0055). On the real fixture corpus (``LEX_FIXTURES``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from serve.core import LegalCore
from serve.core.ops import search as search_op
from serve.core.ops.search import (
    SEARCH_DEPTH,
    LaterSnippets,
    cut_sections,
    kept_snippets,
    search_depth,
)
from serve.core.registry import OPERATIONS

JUDGMENTS = Path(__file__).resolve().parents[2] / "evals" / "retrieval_judgments.json"
GRAINS: tuple[dict[str, Any], ...] = ({}, {"result_grain": "provisions"})


def _keys(answer: dict[str, Any]) -> tuple[list[list[tuple[Any, ...]]], list[tuple[Any, ...]]]:
    """Per section, then merged: each hit's work and provision, in order."""
    sections = [[(h["work"], h.get("provision_id")) for h in s.get("hits") or []]
                for s in answer.get("publishers", [answer])]
    merged = [(h["publisher"], h["work"], h.get("provision_id")) for h in answer.get("merged") or []]
    return sections, merged


def _prefix(core: LegalCore, args: dict[str, Any], k: int, n: int = SEARCH_DEPTH) -> tuple[Any, Any]:
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
            sections, merged = _keys(fixture_core.call("search", {"query": question, **grain, "limit": SEARCH_DEPTH}))
            for k in (1, 5, 10):
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


def test_only_the_kept_hits_have_their_snippets_cut(fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    cut: list[str] = []
    text_snippets = search_op.text_snippets

    def counted(conn: Any, shas: Any, words: Any) -> dict[str, str]:
        cut.extend(shas)
        return text_snippets(conn, shas, words)

    monkeypatch.setattr(search_op, "text_snippets", counted)
    for index in fixture_core._indexes.values():
        index.ranked_cache.clear()
    answer = fixture_core.call("search", {"query": "protection des consommateurs", "limit": 1,
                                          "per_work_limit": 1})
    shown = {h["text_sha256"] for s in answer["publishers"] for h in s.get("hits") or []}
    assert cut and set(cut) <= shown


def test_the_depth_is_the_largest_limit_search_accepts() -> None:
    (limit,) = [p for p in OPERATIONS["search"].params if p.name == "limit"]
    assert limit.maximum == SEARCH_DEPTH
    assert [search_depth(n) for n in (1, 10, SEARCH_DEPTH, SEARCH_DEPTH + 1)] == [SEARCH_DEPTH] * 3 + [SEARCH_DEPTH + 1]


def test_cut_sections_cuts_hits_and_the_returned_count() -> None:
    sections: list[dict[str, Any]] = [
        {"hits": [{"rank": i} for i in range(1, 6)], "row_set": {"returned": 5, "limit": 3, "truncated": True}},
        {"hits": [{"rank": 1}], "row_set": {"returned": 1, "limit": 3, "truncated": False}},
        {"outcome": "empty"},
    ]
    cut_sections(sections, 3)
    assert [[h["rank"] for h in s.get("hits", [])] for s in sections] == [[1, 2, 3], [1], []]
    assert [s.get("row_set", {}).get("returned") for s in sections] == [3, 1, None]
    assert sections[0]["row_set"]["truncated"] is True


def test_kept_snippets_keeps_the_rows_of_the_first_hits_and_their_provisions() -> None:
    nested = {"rank": None}
    first, second = {"rank": 1, "provisions": [nested]}, {"rank": 2}
    group = LaterSnippets(index=None, words=("a",), rows=[(first, "s1", ""), (nested, "s2", ""), (second, "s3", "")])  # type: ignore[arg-type]
    (kept,) = kept_snippets([group], [{"hits": [first, second]}], 1)
    assert [sha for _, sha, _ in kept.rows] == ["s1", "s2"]
