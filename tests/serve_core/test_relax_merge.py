"""Pure parts of the search fallbacks: light stems, relaxation steps, normalised scores, merging."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from derive.index import relax
from serve.core import merge


@pytest.mark.parametrize(("word", "stem"), [
    ("entree", "entre"),            # entrée ~ entrer, entrées
    ("interdiction", "interdi"),    # ~ interdites, interdit
    ("interdites", "interd"),
    ("ressortissants", "ressortissant"),
    ("protection", "prote"),
    ("regulations", "regul"),
    ("paiement", None),             # no ending leaves five letters
    ("bord", None),                 # too short
    ("versus", None),               # a relaxable word is never stemmed
    ("1336", None),
])
def test_light_stem(word: str, stem: str | None) -> None:
    assert relax.light_stem(word) == stem


def test_stems_only_for_french_and_english() -> None:
    assert relax.stems(["interdiction"], None) == {"interdiction": "interdi"}
    assert relax.stems(["interdiction"], "fr") == {"interdiction": "interdi"}
    assert relax.stems(["interdiction"], "de") == {}
    assert relax.stems(["protection des"], "en") == {}  # a quoted phrase is never stemmed


def test_variants_are_inflections_not_the_prefix_family() -> None:
    held = [("entre", 900), ("entrer", 12), ("entrees", 3), ("entreprise", 400), ("entrepot", 2), ("entree", 5)]
    # bounded by length, not by meaning: "entrepot" (+3 letters) still passes, "entreprise" does not
    assert relax.variants("entree", "entre", held) == ["entrer", "entrees", "entrepot"]
    assert relax.variants("mutuelles", "mutuell", [("mutuelle", 4), ("mutuellement", 30)]) == ["mutuelle"]
    assert relax.variants("interdiction", "interdi", [("interdites", 2), ("interdit", 9), ("interdictions", 1)]) == \
        ["interdictions", "interdites", "interdit"]
    found = {"entree": ["entrer", "entrees"]}
    assert relax.expansion_labels(found) == ["entree -> entrer", "entree -> entrees"]
    assert relax.with_variants([["entree"], ["territoire"]], ["entree", "territoire"], found) == \
        [["entree", "entrer", "entrees"], ["territoire"]]


def test_relaxation_steps_drop_stop_words_frame_words_and_years_then_need_a_majority() -> None:
    terms = ["package", "travel", "termination", "2015", "versus", "2029", "l"]
    steps = list(relax.relaxations(terms, [[t] for t in terms]))
    assert [(s.reason, s.any_of, s.min_terms) for s in steps] == [("stop_words_dropped", False, 3),
                                                                  ("any_term", True, 2)]
    assert steps[0].dropped == ("2015", "versus", "2029", "l")
    assert steps[0].match_reason == "relaxed" and steps[1].match_reason == "any_term"
    report = steps[1].report([[t] for t in terms])
    assert report["from"] == "package AND travel AND termination AND 2015 AND versus AND 2029 AND l"
    assert report["to"] == "package OR travel OR termination"
    assert report == {**report, "reason": "any_term", "min_terms": 2}


def test_two_words_are_never_or_ed_and_only_stop_words_are_never_relaxed() -> None:
    assert list(relax.relaxations(["own", "funds"], [["own"], ["funds"]])) == []
    assert list(relax.relaxations(["the", "versus"], [["the"], ["versus"]])) == []
    assert [relax.quorum(n) for n in (2, 3, 4, 5, 6)] == [2, 2, 3, 3, 4]


def _section(publisher: str, *hits: tuple[list[str], float | None]) -> dict[str, Any]:
    return {"publisher": publisher, "hits": [{"rank": i, "match_reasons": reasons, "bm25": bm25, "anchor": f"a{i}"}
                                             for i, (reasons, bm25) in enumerate(hits, 1)]}


def test_scores_weigh_the_lane_and_normalise_bm25_over_every_section() -> None:
    eu = _section("eu-eurlex", (["work_metadata"], None))
    lu = _section("lu-legilux", (["keyword"], -40.0), (["keyword"], -20.0), (["any_term"], -5.0))
    merge.score_hits([eu, lu])
    assert [h["score"] for h in lu["hits"]] == [0.8, 0.4, 0.4]
    assert eu["hits"][0]["score"] == 0.2
    merged = merge.merged([eu, lu], 10)
    assert [(m["publisher"], m["publisher_rank"]) for m in merged] == [
        ("lu-legilux", 1), ("lu-legilux", 2), ("lu-legilux", 3), ("eu-eurlex", 1)]  # not round-robin
    assert [m["rank"] for m in merged] == [1, 2, 3, 4]


def test_merge_never_reorders_a_section_and_breaks_ties_by_publisher_order() -> None:
    a = {"publisher": "a", "hits": [{"rank": 1, "score": 0.3}, {"rank": 2, "score": 0.9}]}
    b = {"publisher": "b", "hits": [{"rank": 1, "score": 0.3}]}
    merged = merge.merged([a, b], 10)
    assert [(m["publisher"], m["publisher_rank"]) for m in merged] == [("a", 1), ("a", 2), ("b", 1)]
    assert merge.merged([a, b], 1) == [{**a["hits"][0], "rank": 1, "publisher": "a", "publisher_rank": 1}]


@given(st.lists(st.lists(st.floats(min_value=0.0001, max_value=1.0), max_size=6), max_size=4),
       st.integers(min_value=1, max_value=30))
def test_merged_keeps_every_section_order(scores: list[list[float]], limit: int) -> None:
    sections = [{"publisher": f"p{i}", "hits": [{"rank": r, "score": s} for r, s in enumerate(ss, 1)]}
                for i, ss in enumerate(scores)]
    merged = merge.merged(sections, limit)
    assert len(merged) == min(limit, sum(len(s) for s in scores))
    for publisher in {m["publisher"] for m in merged}:
        ranks = [m["publisher_rank"] for m in merged if m["publisher"] == publisher]
        assert ranks == list(range(1, len(ranks) + 1))


def test_cap_per_work() -> None:
    items = ["a1", "a2", "b1", "a3", "a4", "b2"]
    assert merge.cap_per_work(items, lambda s: s[0], 2) == ["a1", "a2", "b1", "b2"]
    assert merge.cap_per_work(items, lambda s: s[0], None) == items
