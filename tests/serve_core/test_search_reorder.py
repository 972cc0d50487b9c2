"""Issue #15, rank43 (ADR 0135): the learnt reordering of a plain-word question's first works.

It only reorders: the works of a reordered section are the hand-set section's first ``depth`` works
in another order, a work keeps its own provisions, an exact citation stays first, a question the
corpus cannot answer stays empty, the sections keep their order, and with the setting off the answer
is the hand-set one. On the real fixture corpus (``LEX_FIXTURES``) with deliberately strong weights
(the reverse of the hand-set order), and pure checks of the weights file beside.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from serve.core import LegalCore, reorder

#: this file's rules without the act terms' fusion after them (ADR 0141): with the reviewed terms in the
#: fixture index it adds or moves works in the answers these tests pin
pytestmark = pytest.mark.usefixtures("without_act_terms")


PLAIN = "durée du travail"
CITED = "règlement (UE) 2016/679"
#: Every place reversed: the strongest reordering a weights file can ask (the last work first).
REVERSE = reorder.Weights(20, {publisher: tuple(1.0 if name == "log_rank" else 0.0 for name in reorder.FEATURES)
                                for publisher in ("eu-eurlex", "lu-legilux")})
PLACED = reorder.FEATURES.index("placed_up")


def _reversed(candidates: list[dict[str, Any]], depth: int) -> list[str]:
    """The works REVERSE orders: the first ``depth`` reversed, a work a placement rule put where it is
    (``placed_up``) kept in its place."""
    head = candidates[:depth]
    free = iter(reversed([c["work"] for c in head if not c["vector"][PLACED]]))
    return [c["work"] if c["vector"][PLACED] else next(free) for c in head] + [c["work"] for c in candidates[depth:]]


@pytest.fixture()
def reversing(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(reorder, "REORDER", True)
    monkeypatch.setattr(reorder, "default_weights", lambda: REVERSE)
    yield


def _search(core: LegalCore, query: str, **more: Any) -> dict[str, Any]:
    return dict(core.call("search", {"query": query, "fuzzy": "off", **more}))


def _captured(core: LegalCore, query: str) -> list[dict[str, Any]]:
    captured: list[dict[str, Any]] = []
    token = reorder.CAPTURE.set(captured)
    try:
        _search(core, query)
    finally:
        reorder.CAPTURE.reset(token)
    return captured


def _works(section: dict[str, Any]) -> list[str]:
    return [h["work"] for h in section.get("hits") or []]


def test_off_the_answer_is_the_hand_set_one_and_capturing_changes_nothing(fixture_core: LegalCore,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reorder, "REORDER", False)
    plain = _search(fixture_core, PLAIN)
    captured = _captured(fixture_core, PLAIN)
    assert _search(fixture_core, PLAIN) == plain
    # the capture saw the hand-set sections: their hits begin its candidates
    sections = captured[-1]["sections"]
    assert [s["publisher"] for s in sections] == [s["publisher"] for s in plain["publishers"]]
    for section, answered in zip(sections, plain["publishers"], strict=True):
        assert [h["work"] for h in section["hits"]] == _works(answered)
        if section["candidates"]:
            assert [c["work"] for c in section["candidates"][:len(section["hits"])]] == _works(answered)
            assert all(len(c["vector"]) == len(reorder.FEATURES) for c in section["candidates"])


def test_on_a_section_is_its_first_works_reordered_never_another_work(fixture_core: LegalCore,
                                                                      reversing: None) -> None:
    reorder.REORDER = False
    captured = _captured(fixture_core, PLAIN)[-1]["sections"]
    base = _search(fixture_core, PLAIN)
    reorder.REORDER = True
    moved = _search(fixture_core, PLAIN)
    assert [s["publisher"] for s in moved["publishers"]] == [s["publisher"] for s in base["publishers"]]
    changed = 0
    for section, before, seen in zip(moved["publishers"], base["publishers"], captured, strict=True):
        candidates = seen["candidates"] or []
        if not candidates:
            assert _works(section) == _works(before)
            continue
        expected = _reversed(candidates, REVERSE.depth)
        assert _works(section) == expected[:len(_works(before))]
        assert len(_works(section)) == len(_works(before))
        assert [h["rank"] for h in section["hits"]] == list(range(1, len(section["hits"]) + 1))
        changed += _works(section) != _works(before)
        # a work's own provisions are the hand-set ones, in their order
        nested = {h["work"]: [p["provision_id"] for p in h.get("provisions") or []] for h in before["hits"]}
        for hit in section["hits"]:
            if hit["work"] in nested:
                assert [p["provision_id"] for p in hit.get("provisions") or []] == nested[hit["work"]]
    assert changed  # the weights did move this question's works
    assert [h["work"] for h in moved["merged"]][:1] == _works(moved["publishers"][0])[:1]


def test_off_no_section_is_reordered(fixture_core: LegalCore, reversing: None) -> None:
    reorder.REORDER = False
    off = _search(fixture_core, PLAIN)
    reorder.REORDER = True
    assert _search(fixture_core, PLAIN) != off  # the same weights, on, move this question's works
    reorder.REORDER = False
    assert _search(fixture_core, PLAIN) == off


def test_on_an_exact_citation_stays_first_and_a_no_hit_answer_stays_empty(fixture_core: LegalCore,
                                                                         reversing: None) -> None:
    cited = _search(fixture_core, CITED)
    assert cited["merged"][0]["work"] == "eu-eurlex:32016r0679"
    reorder.REORDER = False
    assert _search(fixture_core, CITED) == cited
    reorder.REORDER = True
    for query in ("loi sur la pêche à la baleine en Antarctique", "zzqx wvyt"):
        empty_on = _search(fixture_core, query)
        reorder.REORDER = False
        empty_off = _search(fixture_core, query)
        reorder.REORDER = True
        assert [_works(s) for s in empty_on["publishers"]] == [_works(s) for s in empty_off["publishers"]]


def test_the_shipped_weights_parse() -> None:
    weights = reorder.default_weights()
    assert 2 <= weights.depth <= 100
    assert set(weights.by_publisher) == {"eu-eurlex", "lu-legilux"}
    assert all(len(w) == len(reorder.FEATURES) for w in weights.by_publisher.values())


def test_a_bad_weights_file_is_refused_naming_what_is_wrong() -> None:
    good = {"version": 1, "depth": 20, "weights": {"eu-eurlex": {"inv_rank": 1.5, "coverage": -0.5}}}
    parsed = reorder.parse_weights(good)
    assert parsed.by_publisher["eu-eurlex"][reorder.FEATURES.index("inv_rank")] == 1.5 and parsed.depth == 20
    assert sum(1 for w in parsed.by_publisher["eu-eurlex"] if w) == 2 and "lu-legilux" not in parsed.by_publisher
    for bad, says in (([], "JSON object"), ({**good, "version": 2}, "version"), ({**good, "depth": 1}, "depth"),
                      ({**good, "depth": True}, "depth"), ({**good, "weights": {}}, "weights"),
                      ({**good, "weights": {"eu-eurlex": {}}}, "weights of eu-eurlex"),
                      ({**good, "weights": {"eu-eurlex": {"rank": 1.0}}}, "unknown features of eu-eurlex: rank"),
                      ({**good, "weights": {"eu-eurlex": {"coverage": "1"}}}, "coverage"),
                      ({**good, "weights": {"eu-eurlex": {"coverage": float("nan")}}}, "coverage")):
        with pytest.raises(reorder.WeightsError, match=says):
            reorder.parse_weights(bad)
    with pytest.raises(reorder.WeightsError, match="JSON"):
        reorder.load_weights("{not json")
    assert reorder.load_weights(json.dumps(good)) == parsed


def test_reordered_is_a_permutation_of_the_first_works_ties_in_given_order() -> None:
    weights = reorder.Weights(3, {"eu-eurlex": tuple(1.0 if name == "coverage" else 0.0 for name in reorder.FEATURES)})
    vectors = [[0.0] * len(reorder.FEATURES) for _ in range(3)]
    vectors[2][reorder.FEATURES.index("coverage")] = 1.0
    items = ["a", "b", "c", "d", "e"]
    assert reorder.reordered(items, vectors, weights, "eu-eurlex") == ["c", "a", "b", "d", "e"]
    assert reorder.reordered(items, vectors, weights, "lu-legilux") == items  # a publisher not weighed
    assert reorder.reordered(items, vectors[:1], weights, "eu-eurlex") == items  # one vector: nothing to reorder
    assert sorted(reorder.reordered(items, vectors, REVERSE, "eu-eurlex")) == items
    # a work a placement rule put in its place keeps it; the others are reordered around it
    vectors[0][PLACED] = 1.0
    assert reorder.reordered(items, vectors, weights, "eu-eurlex") == ["a", "c", "b", "d", "e"]
