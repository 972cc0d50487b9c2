"""Issue #15, twenty-eighth session (everylu28): a citizen's everyday question on a Legilux act, answered by
the act whose names hold three or more of its subject words.

A citizen asks in more words than the act's title holds, and in other ones ("comment devenir sapeur-pompier de
métier : conditions d'embauche et formation" — the Règlement grand-ducal fixant les conditions de recrutement,
de formation et de nomination aux emplois des pompiers professionnels holds three of the six): no provision
holds them all, the any-word relaxation finds provisions off the subject or none. At the relaxed stage, a
Legilux section holding no provision with every word answers, beside its weaker hits, with the acts whose
names hold at least :data:`serve.core.ranking.TITLED_SHARE_MIN` distinct subject words and whose title subject
the question says for a third (:func:`serve.core.ranking.titled_by_share`,
:func:`serve.core.ops.search.share_titled_rows`), after any hit on an act titled by
:data:`serve.core.ranking.TITLED_SHARE_BESIDE` of them (:func:`serve.core.ranking.after_titled`; ADR 0073).

On the real fixture corpus (``LEX_FIXTURES``), with pure checks beside.
"""

from __future__ import annotations

from typing import Any

import pytest

from serve.core import LegalCore, ranking
from serve.core.ops import search
from serve.core.ranking import after_titled, titled_by_share

LU = "lu-legilux"
BOVINES = "lu-legilux:rgd-2018-05-30-a455"  # RGD du 30 mai 2018 établissant un système d'identification et d'enregistrement des bovins
VETERINARY = "lu-legilux:loi-2022-09-08-a502"  # Loi du 8 septembre 2022 portant création de l'Administration … vétérinaire …
#: three of the question's subject words (identifier, enregistrer, système) are in the règlement's title; no
#: provision holds all of them with "bovins", "national" and "faire"
EVERYDAY = "comment faire identifier et enregistrer mes bovins auprès du système national"


def _section(answer: dict[str, Any], publisher: str) -> dict[str, Any]:
    return next(s for s in answer["publishers"] if s["publisher"] == publisher)


def _works(answer: dict[str, Any]) -> list[str]:
    return [h["work"] for h in _section(answer, LU)["hits"]]


def test_acts_titled_by_three_subject_words_most_words_first() -> None:
    held = {1: 3, 2: 4, 3: 2, 4: 3, 5: 3}
    precision = {1: 0.5, 2: 0.34, 3: 1.0, 4: 0.8, 5: 0.2}
    # 3 holds two words only; 5 is titled by much else (a fifth of its subject asked); 2 holds the most words
    assert titled_by_share(held, precision, [1, 2, 3, 4, 5]) == [2, 4, 1]
    assert titled_by_share(held, {**precision, 1: 0.8}, [4, 1, 2]) == [2, 4, 1]  # a tie keeps the title order
    assert titled_by_share({w: 3 for w in range(10)}, {w: 1.0 for w in range(10)}, list(range(10))) \
        == list(range(ranking.TITLED_SHARE_LIMIT))
    assert titled_by_share({}, {}, [1, 2]) == []


def test_a_third_of_the_subject_counts_though_rounded() -> None:
    # works_subject_precision rounds to four places: 3 of 9 words is 0.3333
    assert titled_by_share({7: 3}, {7: round(3 / 9, 4)}, [7]) == [7]
    assert titled_by_share({7: 3}, {7: round(2 / 7, 4)}, [7]) == []


def test_an_everyday_question_finds_the_act_its_names_say(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": EVERYDAY})
    works = _works(answer)
    assert works[0] == BOVINES
    assert VETERINARY in works  # the relaxation's hit stays beside it
    assert answer["merged"][0]["work"] == BOVINES


def test_without_the_rule_the_relaxation_alone_answers(fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "LEGILUX_TITLED_SHARE", False)
    answer = fixture_core.call("search", {"query": EVERYDAY + " "})  # another question: no answer cache
    assert _works(answer) == [VETERINARY]


def test_names_alone_come_after_an_act_whose_provisions_answer_and_names_hold_two_words() -> None:
    # 5 and 6 found by their names alone; 2 is titled by two subject words, 1 and 3 by one
    assert after_titled([5, 1, 2, 6, 3], frozenset({5, 6}), {1: 1, 2: 2, 3: 1, 5: 3, 6: 3}) == [1, 2, 5, 6, 3]
    assert after_titled([5, 1, 3], frozenset({5}), {1: 1, 3: 0, 5: 4}) == [5, 1, 3]  # none titled so: unchanged
    assert after_titled([1, 5], frozenset({5}), {1: 2, 5: 3}) == [1, 5]


def test_a_section_holding_an_act_titled_by_two_subject_words_keeps_it_first(fixture_core: LegalCore) -> None:
    # the relaxation finds the Administration vétérinaire's law, titled by "administration" and "vétérinaire":
    # the règlement on bovines, found by its names alone, comes after it
    answer = fixture_core.call("search", {"query": "comment faire identifier et enregistrer mes bovins auprès du système national de l'administration vétérinaire"})
    assert _works(answer) == [VETERINARY, BOVINES]


def test_provisions_holding_every_word_keep_the_section_as_it_is(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": "comment faire enregistrer mes bovins"})
    section = _section(answer, LU)
    assert {h["work"] for h in section["hits"]} == {BOVINES}
    assert all("title_words" not in (h.get("match_reasons") or []) for h in section["hits"])
