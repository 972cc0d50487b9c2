"""Issue #15, neg33: a word one index does not hold but another searched as written and holds (« Mondorf »,
a Luxembourg town EUR-Lex never names) says nothing of the question's subject, only of that index's
vocabulary: it no longer keeps the last stage (:mod:`serve.core.ops.empty_titled`, ADR 0078) from answering
a question every section left empty. Before, « loi créant un lycée à Mondorf » answered nothing: the EUR-Lex
section withheld « creant », « lycee », « mondorf » as unknown (three of four words), so no section answered,
although Legilux holds every word and titles the law creating the Mondorf-les-Bains lycée.

On the real fixture corpus (``LEX_FIXTURES``), with pure checks beside.
"""

from __future__ import annotations

from typing import Any

import pytest

from serve.core import LegalCore
from serve.core.ops import empty_titled, search
from serve.core.ops.empty_titled import few_unheld, own_words

MONDORF_LYCEE = "lu-legilux:loi-2018-07-13-a652"  # « Loi du 13 juillet 2018 portant création d'un lycée à Mondorf-les-Bains »
QUESTION = "loi créant un lycée à Mondorf"


def _works(answer: dict[str, Any]) -> list[str]:
    return [h["work"] for h in answer["merged"]]


def test_a_word_another_index_holds_as_written_lets_the_last_stage_answer(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": QUESTION})
    assert _works(answer) == [MONDORF_LYCEE]
    eu = next(s for s in answer["publishers"] if s["publisher"] == "eu-eurlex")
    assert eu["relaxation_withheld"] == {"reason": "unknown_terms", "terms": ["creant", "lycee", "mondorf"]}


def test_without_the_last_stage_the_question_is_empty(fixture_core: LegalCore,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(empty_titled, "EMPTY_TITLED", False)
    # the words EUR-Lex lists as unknown are held by Legilux: without the last stage the act terms take the act
    # (search.held_nowhere, zh51); the counterfactual asks for neither
    monkeypatch.setattr(search, "HELD_NOWHERE", False)
    assert _works(fixture_core.call("search", {"query": QUESTION + " "})) == []  # another question: no cache


def test_without_the_last_stage_the_act_terms_take_the_act(fixture_core: LegalCore,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(empty_titled, "EMPTY_TITLED", False)
    assert _works(fixture_core.call("search", {"query": QUESTION + "  "})) == [MONDORF_LYCEE]


def test_own_words_are_a_section_s_untranslated_terms_it_did_not_withhold() -> None:
    plan = {"terms": ["loi", "creant", "lycee", "mondorf"]}
    assert own_words({"query_plan": plan, "relaxation_withheld": None}) == {"loi", "creant", "lycee", "mondorf"}
    assert own_words({"query_plan": plan, "relaxation_withheld": {"reason": "unknown_terms", "terms": ["mondorf"]}}) \
        == {"loi", "creant", "lycee"}
    # a translated section searched other words: it says nothing of the question's own
    assert own_words({"query_plan": {**plan, "translations": {"language": "en", "used": []}}}) == set()
    withheld = {"reason": "unknown_terms", "terms": ["creant", "lycee", "mondorf"]}
    assert not few_unheld(plan["terms"], withheld)
    assert few_unheld(plan["terms"], withheld, {"loi", "creant", "lycee", "mondorf"})
