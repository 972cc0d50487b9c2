"""Issue #15, twenty-eighth session (empty29): a question no stage answered is answered by the acts whose
names hold several of its held words, unless its unheld words are its subject.

A citizen's question holds words around its subject that no act holds ("mon *papy* veut jeter …"): every
stage withholds its results (``unknown_terms``) and the answer was empty although an act is titled by the
question's other words. When every section of the answer is still empty for no decided reason
(:func:`serve.core.ops.empty_titled.answers_nothing`), a last stage answers, in a section whose unheld words
are fewer than a quarter of the question's content words (:func:`serve.core.ops.empty_titled.few_unheld`),
with the acts whose names hold at least two of the question's held subject words and whose title subject
it says for a fifth (:func:`serve.core.ops.empty_titled.choose`; ADR 0078). A question whose unheld word
is one of three ("… de licornes") or four stays empty: that word is its subject.

On the real fixture corpus (``LEX_FIXTURES``), with pure checks beside.
"""

from __future__ import annotations

from typing import Any

import pytest

from serve.core import LegalCore
from serve.core.ops import empty_titled
from serve.core.ops.empty_titled import answers_nothing, choose, few_unheld, subject_groups

LU = "lu-legilux"
OILS = "lu-legilux:amin-1999-06-30-n1"  # Arrêté ministériel du 30 juin 1999 concernant l'élimination des huiles et des graisses végétales et animales
#: "papy" is held by no index, nor "veut", "jeter" by EUR-Lex; the Legilux arrêté's title holds
#: "huiles", "graisses" and "animales"
AROUND = "mon papy veut jeter ses huiles et graisses animales"
#: "licornes", held by no index, is one of the three content words: the subject no act covers
SUBJECT_UNHELD = "huiles et graisses de licornes"


def _works(answer: dict[str, Any]) -> list[str]:
    return [h["work"] for s in answer["publishers"] for h in s["hits"]]


def test_a_question_with_a_word_around_its_subject_is_answered_by_the_act_titled_by_the_others(
        fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": AROUND})
    assert _works(answer) == [OILS]
    section = next(s for s in answer["publishers"] if s["publisher"] == LU)
    assert section["relaxation_withheld"] is None
    assert section["hits"][0]["match_reasons"] == ["title_words"]  # a work row found by its names


def test_without_the_stage_the_same_question_is_empty(fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(empty_titled, "EMPTY_TITLED", False)
    answer = fixture_core.call("search", {"query": AROUND + " "})  # another question: no answer cache
    assert _works(answer) == []
    section = next(s for s in answer["publishers"] if s["publisher"] == LU)
    assert section["relaxation_withheld"]["reason"] == "unknown_terms"


def test_a_question_whose_unheld_word_is_its_subject_stays_empty(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": SUBJECT_UNHELD})
    assert _works(answer) == []


def test_a_word_unheld_among_five_is_around_the_question_one_among_four_is_its_subject() -> None:
    withheld = {"reason": "unknown_terms", "terms": ["papy"]}
    assert few_unheld(["papy", "jeter", "huiles", "graisses", "animales"], withheld)
    assert not few_unheld(["papy", "huiles", "graisses", "animales"], withheld)
    assert not few_unheld(["huiles", "graisses", "licornes"], {"reason": "unknown_terms", "terms": ["licornes"]})
    assert not few_unheld(["papy", "veut", "jeter", "huiles", "graisses", "animales", "cuisine", "friteuse"],
                          {"reason": "unknown_terms", "terms": ["papy", "veut"]})
    assert few_unheld(["huiles", "graisses"], None)  # nothing withheld for unheld words
    assert few_unheld(["huiles", "graisses"], {"reason": "off_subject"})


def test_acts_titled_by_two_words_and_a_fifth_of_their_subject_most_words_first() -> None:
    held = {1: 2, 2: 3, 3: 1, 4: 2, 5: 4}
    precision = {1: 0.5, 2: 0.2, 3: 1.0, 4: 0.8, 5: 0.1}
    # 3 holds one word only; 5 is titled by much else (a tenth of its subject asked)
    assert choose(held, precision, [1, 2, 3, 4, 5]) == [2, 4, 1]
    assert choose({w: 2 for w in range(9)}, {w: 1.0 for w in range(9)}, list(range(9))) \
        == list(range(empty_titled.LIMIT))
    assert choose({}, {}, [1]) == []


def test_frame_words_and_act_forms_say_no_subject() -> None:
    assert subject_groups([["regles"], ["loi"], ["trottinettes"], ["electriques", "electrique"]]) \
        == [["trottinettes"], ["electriques", "electrique"]]


class _Plan:
    def __init__(self, name_not_held: dict[str, Any] | None = None, act_reference_only: bool = False) -> None:
        self.name_not_held = name_not_held
        self.act_reference_only = act_reference_only


def test_only_an_answer_empty_for_no_decided_reason_reaches_the_stage() -> None:
    empty = [{"hits": [], "relaxation_withheld": {"reason": "unknown_terms", "terms": ["papy"]}},
             {"hits": [], "relaxation_withheld": {"reason": "off_subject"}}]
    assert answers_nothing(empty, {"lu": _Plan(), "eu": _Plan()})
    assert not answers_nothing([{"hits": [{"work": "x"}]}, empty[1]], {"lu": _Plan()})
    # a name, a dated reference or words never near each other: answered with none on purpose
    assert not answers_nothing(empty, {"lu": _Plan({"reason": "name_not_held"}), "eu": _Plan()})
    assert not answers_nothing(empty, {"lu": _Plan(act_reference_only=True)})
    # the filters (as_of, language, type) emptied the answer, not the words
    assert not answers_nothing([{"hits": [], "relaxation_withheld": {"reason": "filters"}}], {"lu": _Plan()})
