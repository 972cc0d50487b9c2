"""Issue #15, neg35: a question citing an act number no held act bears beside its subject (« Directive
(EU) 2019/9999 on consumer protection ») is about that act: where no text answers it, the EuroVoc labels
holding its subject's words (the Package Travel Directive's "consumer protection") no longer answer it
either, as the relaxation does not (``unresolved_act_number``). A work the question names still answers;
a label still answers a question whose relaxation a word no provision holds withheld (a plain-word
question: "what happens if my insurance company goes bust"). On the real fixture corpus
(``LEX_FIXTURES``); the lane is :func:`serve.core.ops.search.metadata_lane`.
"""

from __future__ import annotations

from typing import Any

import pytest

from serve.core import LegalCore
from serve.core.ops import absent_subject

GDPR = "eu-eurlex:32016r0679"


def _answer(core: LegalCore, query: str) -> dict[str, Any]:
    return core.call("search", {"query": query, "limit": 10})


def test_a_label_does_not_answer_for_an_act_number_no_held_act_bears(fixture_core: LegalCore) -> None:
    answer = _answer(fixture_core, "Directive (EU) 2019/9999 on consumer protection")
    assert answer["merged"] == []
    eu = next(s for s in answer["publishers"] if s["publisher"] == "eu-eurlex")
    assert eu["relaxation_withheld"] == {"reason": "unresolved_act_number"}


def test_a_named_work_still_answers_beside_an_unresolved_act_number(fixture_core: LegalCore) -> None:
    # the GDPR named by its short title's words answers, though the act number is not held
    answer = _answer(fixture_core, "Regulation (EU) 2019/9999 on the protection of personal data")
    assert answer["merged"][0]["work"] == GDPR


def test_a_label_still_answers_where_an_unknown_word_withheld_the_relaxation(
        fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    # the GDPR's labels hold "data protection": a word no provision holds is no act asked for (this rule's
    # test, with ADR 0132's rule off)
    monkeypatch.setattr(absent_subject, "ABSENT_SUBJECT", False)
    answer = _answer(fixture_core, "data protection zorgbrix")
    assert GDPR in [hit["work"] for hit in answer["merged"]]
    # ADR 0132: a word no index holds in any form, a third of the question, answered by labels alone, is the
    # question's subject: the answer is empty and says why (neg42)
    monkeypatch.setattr(absent_subject, "ABSENT_SUBJECT", True)
    answer = _answer(fixture_core, "data protection zorgbrix")
    assert answer["merged"] == []
    assert all(s["relaxation_withheld"] == {"reason": "subject_not_held", "words": ["zorgbrix"]}
               for s in answer["publishers"])
