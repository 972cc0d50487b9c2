"""The answerable-or-negative tests of :mod:`hybrid.answerable` (issue #15, docs/hybrid.md §10.3), on named sections."""

from __future__ import annotations

from hybrid.answerable import agreement, evidence_share, known_share, margin, rarest_known

#: Provisions holding each word in the Legilux index (counted there for "loi sur la protection des elfes
#: de maison", a negative case: "elfe" occurs once).
ELVES = {"loi": 37065, "protection": 5848, "elfes": 1, "maison": 994}


def _count(group: list[str] | tuple[str, ...]) -> int:
    return ELVES.get(group[0], 0)


def test_the_rarest_word_of_a_negative_question_is_barely_known() -> None:
    groups = [["loi"], ["protection", "proteger"], ["elfes", "elfe"], ["maison", "maisons"]]
    assert rarest_known(groups, _count) == 1
    assert known_share(groups, _count) == 1.0  # every word occurs somewhere: known_share cannot tell
    assert known_share([["loi"], ["licorne"]], _count) == 0.5
    assert rarest_known([], _count) == 0 and known_share([], _count) == 0.0


def test_margin_agreement_and_evidence_share() -> None:
    assert margin([0.9, 0.85, 0.8]) == 0.9 - 0.8 and margin([0.9]) == 0.0
    assert agreement(["a", "b"], ["c", "a", "d"]) == 1.0  # the first of one is among the other's first three
    assert agreement(["a", "b"], ["c", "d", "e", "a"]) == 0.0
    assert agreement([], ["a"]) == 0.0
    evidence = {"w1": {"held_groups": 1, "groups": 4}, "w2": {"held_groups": 3, "groups": 4}}
    assert evidence_share(evidence) == 0.75 and evidence_share({}) == 0.0
