"""Issue #15, twenty-eighth session (empty29): a question no stage answered is answered by the acts whose
names hold several of its held words, unless its unheld words are its subject.

A citizen's question holds words around its subject that no act holds ("the organiser *told* me …"): every
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

EU = "eu-eurlex"
PACKAGE_TRAVEL = "eu-eurlex:32015l2302"  # Directive (EU) 2015/2302 on package travel and linked travel arrangements
#: "told" is held by no index: one unheld word of seven (EUR-Lex) and six (Legilux); the Directive's names hold
#: "package" and "travel"
AROUND = "the organiser told me the price of my package travel will increase"
#: "licornes", held by no index, is one of the three content words: the subject no act covers
SUBJECT_UNHELD = "huiles et graisses de licornes"


def _works(answer: dict[str, Any]) -> list[str]:
    return [h["work"] for s in answer["publishers"] for h in s["hits"]]


def test_a_question_with_a_word_around_its_subject_is_answered_by_the_act_titled_by_the_others(
        fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": AROUND, "fuzzy": "off"})
    assert _works(answer) == [PACKAGE_TRAVEL]
    section = next(s for s in answer["publishers"] if s["publisher"] == EU)
    assert section["relaxation_withheld"] is None
    assert section["hits"][0]["match_reasons"] == ["title_words"]  # a work row found by its names


def test_without_the_stage_the_same_question_is_empty(fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(empty_titled, "EMPTY_TITLED", False)
    answer = fixture_core.call("search", {"query": AROUND + " ", "fuzzy": "off"})  # another question: no answer cache
    assert _works(answer) == []
    section = next(s for s in answer["publishers"] if s["publisher"] == EU)
    assert section["relaxation_withheld"] == {"reason": "unknown_terms", "terms": ["told"]}


def test_a_question_whose_unheld_word_is_its_subject_stays_empty(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": SUBJECT_UNHELD})
    assert _works(answer) == []


def test_words_one_index_does_not_hold_keep_every_section_empty(fixture_core: LegalCore) -> None:
    # a fixture negative (evals/retrieval_judgments.json): the fixture EUR-Lex text holds neither "digital"
    # nor "very" (two of eight words); the Legilux section, which searched the translations, would have
    # answered with a law whose title holds « services »
    answer = fixture_core.call("search", {"query": "Digital Services Act obligations of very large online platforms",
                                          "fuzzy": "off"})
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
    words = {"terms": ["papy", "jeter", "huiles", "graisses", "animales"]}
    empty = [{"hits": [], "relaxation_withheld": {"reason": "unknown_terms", "terms": ["papy"]}, "query_plan": words},
             {"hits": [], "relaxation_withheld": {"reason": "off_subject"}, "query_plan": words}]
    assert answers_nothing(empty, {"lu": _Plan(), "eu": _Plan()})
    # one section's unheld words are a quarter of the question's: its subject, for every section …
    subject = {"hits": [], "relaxation_withheld": {"reason": "unknown_terms", "terms": ["papy", "jeter"]},
               "query_plan": words}
    translated = {"hits": [], "relaxation_withheld": {"reason": "off_subject"},
                  "query_plan": {**words, "translations": {"language": "en", "used": []}}}
    assert not answers_nothing([subject, translated], {"lu": _Plan(), "eu": _Plan()})
    # … unless another section searched those words as written and holds them (neg33: own_words)
    assert answers_nothing([subject, empty[1]], {"lu": _Plan(), "eu": _Plan()})
    assert not answers_nothing([{"hits": [{"work": "x"}]}, empty[1]], {"lu": _Plan()})
    # a name, a dated reference or words never near each other: answered with none on purpose
    assert not answers_nothing(empty, {"lu": _Plan({"reason": "name_not_held"}), "eu": _Plan()})
    assert not answers_nothing(empty, {"lu": _Plan(act_reference_only=True)})
    # the filters (as_of, language, type) emptied the answer, not the words
    assert not answers_nothing([{"hits": [], "relaxation_withheld": {"reason": "filters"}}], {"lu": _Plan()})
