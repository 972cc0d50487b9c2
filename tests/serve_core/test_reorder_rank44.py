"""Issue #15, rank44 (ADR 0139): the learnt reordering's word features and the learnt order of sections.

Pure checks of :func:`serve.core.reorder.vectors` on hand-made candidates (each rank44 feature, and
those weighed against the section's first works), of the order model (:func:`serve.core.reorder.swap_sections`)
and of the weights file's ``order`` field; then, on the real fixture corpus (``LEX_FIXTURES``), that a
harvest works out where the first works hold the question's words and that an order model swaps the
two answering sections and nothing else.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from serve.core import LegalCore, reorder

F = reorder.FEATURES


def _candidate(**given: Any) -> reorder.Candidate:
    base: dict[str, Any] = dict(
        rank=1, score=1.0, top_score=1.0, weak=False, bm25=1.0, reasons=frozenset({"keyword"}), strict=True,
        coverage=0.0, named_by=0.0, precision=0.0, exact_subject=False, own_subject=0.0, breadth=1, provisions=1,
        placed_up=False, after_placed=False, dominant=False, status="in_force", role="principal", hierarchy=None,
        code=False, year=2020)
    return reorder.Candidate(**{**base, **given})


#: Three content words: the last the rarest (IDF 3 of 6 in all).
QUESTION = reorder.Question((1.0, 2.0, 3.0))


def _values(vectors: list[tuple[float, ...]], name: str) -> list[float]:
    return [v[F.index(name)] for v in vectors]


def test_the_question_weighs_its_words_by_idf() -> None:
    assert QUESTION.rarest == 2
    assert QUESTION.share(frozenset({2})) == pytest.approx(0.5)
    assert QUESTION.share(frozenset({0, 1, 2})) == pytest.approx(1.0)
    assert reorder.NO_QUESTION.rarest is None and reorder.NO_QUESTION.share(frozenset({0})) == 0.0
    assert reorder.Question((1.0, 1.0)).rarest == 0  # equals: the first


def test_heading_body_and_title_shares_and_the_section_best() -> None:
    a = _candidate(rank=1, title_words=frozenset({0}), best_heading_words=frozenset({1}),
                   heading_words=frozenset({1, 2}), best_body_words=frozenset({0, 1}), body_words=frozenset({0, 1}))
    b = _candidate(rank=2, year=2024, code=True, title_words=frozenset({0, 2}), body_words=frozenset({0, 1, 2}),
                   best_body_words=frozenset({2}))
    vectors = reorder.vectors([a, b], QUESTION)
    assert _values(vectors, "head_best") == pytest.approx([2 / 6, 0.0])
    assert _values(vectors, "head_share") == pytest.approx([5 / 6, 0.0])
    assert _values(vectors, "head_top") == [1.0, 0.0]
    assert _values(vectors, "body_best") == pytest.approx([3 / 6, 3 / 6])
    assert _values(vectors, "body_share") == pytest.approx([3 / 6, 1.0])
    assert _values(vectors, "body_top") == [0.0, 1.0]
    assert _values(vectors, "body_best_top") == [1.0, 1.0]  # equal best: both are the section's best
    assert _values(vectors, "title_idf") == pytest.approx([1 / 6, 4 / 6])
    assert _values(vectors, "title_top") == [0.0, 1.0]
    assert _values(vectors, "rare_title") == [0.0, 1.0]
    assert _values(vectors, "rare_heading") == [1.0, 0.0]
    assert _values(vectors, "rare_body") == [0.0, 1.0]
    assert _values(vectors, "title_count") == [0.5, 1.0]
    assert _values(vectors, "body_count") == pytest.approx([2 / 3, 1.0])
    assert _values(vectors, "newest") == [0.0, 1.0]  # 2024 over 2020, both titled by a word
    assert _values(vectors, "code_untitled") == [0.0, 0.0]  # a code whose names hold the rarest word


def test_the_untitled_code_and_subordinate_act_and_the_interactions() -> None:
    code = _candidate(code=True, title_words=frozenset({0}), coverage=0.5, precision=0.5, bm25=0.4, year=1976)
    sub = _candidate(rank=2, role="implementing", body_words=frozenset({0, 1}))
    short, = reorder.vectors([code], QUESTION)
    assert short[F.index("code_untitled")] == 1.0
    assert reorder.vectors([code, sub], QUESTION)[1][F.index("sub_untitled")] == 1.0
    assert short[F.index("long_title")] == 0.0 and short[F.index("foreign_title")] == 0.0
    assert short[F.index("age_title")] == pytest.approx((reorder.AGE_YEAR - 1976) / 50 * 0.5)
    long_foreign = reorder.Question((1.0,) * reorder.LONG_QUESTION, foreign=True)
    v, = reorder.vectors([dataclasses.replace(code, body_words=frozenset({0}))], long_foreign)
    assert v[F.index("long_title")] == pytest.approx(0.5) and v[F.index("foreign_title")] == pytest.approx(0.5)
    assert v[F.index("long_bm25")] == pytest.approx(0.4) and v[F.index("foreign_bm25")] == pytest.approx(0.4)
    assert v[F.index("long_body")] == pytest.approx(0.2) and v[F.index("foreign_body")] == pytest.approx(0.2)


def test_without_words_every_word_feature_is_zero_and_the_others_unchanged() -> None:
    # as the search builds a candidate when no weight falls on a word feature (no word_places)
    c = _candidate(code=True, role="implementing")
    bare, = reorder.vectors([c])
    assert all(bare[F.index(name)] == 0.0 for name in reorder.WORD_FEATURES if name != "age_title")
    worded = dataclasses.replace(c, title_words=frozenset({0}), body_words=frozenset({0}))
    assert bare[:F.index("age") + 1] == reorder.vector(worded, QUESTION)[:F.index("age") + 1]


def _order(**weights: float) -> reorder.Weights:
    return reorder.parse_weights({"version": 1, "depth": 10, "weights": {"eu-eurlex": {"bm25": 1.0}},
                                  "order": weights})


def test_the_order_model_swaps_by_the_first_works_differences() -> None:
    high = [0.0] * len(F)
    high[F.index("coverage")] = 1.0
    low = [0.0] * len(F)
    eu, lu = reorder.Head(low, 10, "eu-eurlex"), reorder.Head(high, 4, "lu-legilux")
    weights = _order(**{"d:coverage": -2.0, "bias": 0.5})
    assert reorder.order_vector(eu, lu)[reorder.ORDER_FEATURES.index("d:coverage")] == -1.0
    assert reorder.order_vector(eu, lu)[reorder.ORDER_FEATURES.index("d:hits")] == pytest.approx(0.6)
    assert reorder.order_vector(eu, lu)[reorder.ORDER_FEATURES.index("eu_first")] == 1.0
    assert reorder.swap_sections(weights, eu, lu)  # the second's first work better titled: swapped
    assert not reorder.swap_sections(weights, lu, eu)
    assert not reorder.swap_sections(reorder.Weights(10, {}), eu, lu)  # no order model: never


def test_a_bad_order_field_is_refused_naming_what_is_wrong() -> None:
    assert _order(bias=1.0).order == tuple(1.0 if n == "bias" else 0.0 for n in reorder.ORDER_FEATURES)
    assert reorder.parse_weights({"version": 1, "depth": 10, "weights": {"eu-eurlex": {"bm25": 1.0}}}).order is None
    good = {"version": 1, "depth": 10, "weights": {"eu-eurlex": {"bm25": 1.0}}}
    for bad, says in ((1.0, "order must be"), ({}, "order must be"), ({"d:rank": 1.0}, "unknown order features: d:rank"),
                      ({"bias": "1"}, "order weight of bias"), ({"bias": float("inf")}, "order weight of bias")):
        with pytest.raises(reorder.WeightsError, match=says):
            reorder.parse_weights({**good, "order": bad})


def test_the_word_features_are_worked_out_only_when_weighed() -> None:
    assert not reorder.parse_weights({"version": 1, "depth": 10, "weights": {"eu-eurlex": {"bm25": 1.0}}}).words
    assert reorder.parse_weights({"version": 1, "depth": 10, "weights": {"eu-eurlex": {"rare_title": 1.0}}}).words
    assert _order(**{"d:title_idf": 1.0}).words and not _order(**{"d:coverage": 1.0}).words
    assert not reorder.default_weights().words  # the shipped model weighs none (ADR 0139)


def _search(core: LegalCore, query: str) -> dict[str, Any]:
    return dict(core.call("search", {"query": query, "fuzzy": "off"}))


def test_a_harvest_sees_where_the_first_works_hold_the_words(fixture_core: LegalCore,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reorder, "REORDER", False)
    captured: list[dict[str, Any]] = []
    token = reorder.CAPTURE.set(captured)
    try:
        _search(fixture_core, "durée du travail")
    finally:
        reorder.CAPTURE.reset(token)
    vectors = [c["vector"] for s in captured[-1]["sections"] for c in s["candidates"] or []]
    assert vectors
    assert any(v[F.index("body_share")] > 0 for v in vectors)
    assert all(0.0 <= v[F.index(name)] <= 1.0 for v in vectors for name in ("head_share", "body_share", "title_idf"))


def test_an_order_model_swaps_the_two_answering_sections_and_nothing_else(fixture_core: LegalCore,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reorder, "REORDER", True)
    plain = reorder.Weights(10, {}, order=None)  # no publisher reordered: the hand-set sections
    always = reorder.Weights(10, {}, order=tuple(1.0 if n == "bias" else 0.0 for n in reorder.ORDER_FEATURES))
    swapped = 0
    for query in ("protection des données", "durée du travail", "data protection", "personal data",
                  "travail de nuit", "congé parental", "working time"):
        monkeypatch.setattr(reorder, "default_weights", lambda: plain)
        base = _search(fixture_core, query)
        monkeypatch.setattr(reorder, "default_weights", lambda: always)
        moved = _search(fixture_core, query)
        answering = [s["publisher"] for s in base["publishers"] if s.get("hits")]
        if [s["publisher"] for s in moved["publishers"] if s.get("hits")] == answering:
            # one section answers, or one names an act softly (no candidates: the model is not asked)
            assert moved == base
            continue
        swapped += 1
        assert len(answering) == 2
        assert [s["publisher"] for s in moved["publishers"] if s.get("hits")] == answering[::-1]
        by = {s["publisher"]: [h["work"] for h in s["hits"]] for s in base["publishers"] if s.get("hits")}
        assert {s["publisher"]: [h["work"] for h in s["hits"]] for s in moved["publishers"] if s.get("hits")} == by
        assert moved["merged"][0]["publisher"] == answering[1]
    assert swapped  # a question both publishers answer was swapped
    # a cited act is never moved: the order model is not asked
    monkeypatch.setattr(reorder, "default_weights", lambda: plain)
    cited = _search(fixture_core, "règlement (UE) 2016/679")
    monkeypatch.setattr(reorder, "default_weights", lambda: always)
    assert _search(fixture_core, "règlement (UE) 2016/679") == cited
