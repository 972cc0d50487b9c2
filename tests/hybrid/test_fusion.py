"""Reciprocal rank fusion on hand-computed examples, and the fusion of shaped hits."""

from __future__ import annotations

import pytest

from hybrid.fusion import RRF_K, rrf
from hybrid.sections import anchored, fuse_shaped


def test_rrf_scores_by_hand() -> None:
    fused = rrf([["a", "b", "c"], ["c", "a", "d"]])
    scores = {f.key: f.score for f in fused}
    assert scores["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert scores["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert scores["b"] == pytest.approx(1 / 62)
    assert scores["d"] == pytest.approx(1 / 63)
    assert [f.key for f in fused] == ["a", "c", "b", "d"]
    assert fused[0].ranks == (1, 2) and fused[3].ranks == (None, 3)


def test_rrf_k_changes_the_order() -> None:
    # with k = 0 a single first place (1/1) beats two second places (1/2 + 1/2 = 1) only by the tie-break
    lanes = [["x", "y"], ["z", "y"]]
    assert [f.key for f in rrf(lanes, k=0)] == ["x", "y", "z"]
    assert [f.key for f in rrf(lanes, k=RRF_K)] == ["y", "x", "z"]


def test_rrf_ties_break_by_the_first_lane_then_best_rank_then_appearance() -> None:
    assert [f.key for f in rrf([["a", "b"], ["b", "a"]])] == ["a", "b"]
    assert [f.key for f in rrf([[], ["q", "p"]])] == ["q", "p"]
    assert [f.key for f in rrf([["a"], ["b"]])] == ["a", "b"]


def test_rrf_weights_and_duplicates() -> None:
    fused = rrf([["a", "a", "b"], ["b"]], weights=[1.0, 0.5])
    scores = {f.key: f.score for f in fused}
    assert scores["a"] == pytest.approx(1 / 61)  # a repeated key counts at its first rank only
    assert scores["b"] == pytest.approx(1 / 62 + 0.5 / 61)
    with pytest.raises(ValueError):
        rrf([["a"]], weights=[1.0, 1.0])


def _hit(work: str, anchor: str | None, *reasons: str) -> dict[str, object]:
    return {"work": work, "anchor": anchor, "match_reasons": list(reasons), "rank": 0}


def test_fuse_shaped_hits() -> None:
    keyword = [_hit("eu:a", "art_1", "keyword"), _hit("eu:b", "art_2", "keyword")]
    semantic = [_hit("eu:c", "art_9", "semantic"), _hit("eu:b", "art_2", "semantic")]
    fused = fuse_shaped(keyword, semantic, works=[], limit=10)
    assert [(h["work"], h["anchor"]) for h in fused] == [("eu:b", "art_2"), ("eu:a", "art_1"), ("eu:c", "art_9")]
    assert fused[0]["match_reasons"] == ["keyword", "semantic"]
    assert [h["rank"] for h in fused] == [1, 2, 3]
    assert fuse_shaped(keyword, semantic, works=[], limit=2)[-1]["anchor"] == "art_1"


def test_work_lane_boosts_present_works_and_inserts_nothing() -> None:
    keyword = [_hit("eu:a", "art_1", "keyword"), _hit("eu:b", "art_2", "keyword")]
    fused = fuse_shaped(keyword, [], works=["eu:zzz", "eu:b"], limit=10)
    assert [h["work"] for h in fused] == ["eu:b", "eu:a"]  # 1/62 + 0.65/62 > 1/61
    assert fused[0]["match_reasons"] == ["keyword", "semantic_work"]
    assert all(h["work"] != "eu:zzz" for h in fused)


class _Plan:
    def __init__(self, terms: list[str], anchor: str | None = None, article_key: str | None = None) -> None:
        self.terms, self.anchor, self.article_key = terms, anchor, article_key


def test_keyword_anchoring() -> None:
    provision = [_hit("eu:a", "art_1", "keyword")]
    work_row = [_hit("eu:a", None, "exact_title")]
    assert not anchored(_Plan(["data"]), provision)  # type: ignore[arg-type]
    assert anchored(_Plan(["data"]), [])  # type: ignore[arg-type]  # no lexical evidence: keyword answer stands
    assert anchored(_Plan(["data"]), work_row)  # type: ignore[arg-type]
    assert anchored(_Plan([]), provision)  # type: ignore[arg-type]  # identifier / named work only
    assert anchored(_Plan(["data"], article_key="6"), provision)  # type: ignore[arg-type]
    assert anchored(_Plan(["data"], anchor="art_6"), provision)  # type: ignore[arg-type]
