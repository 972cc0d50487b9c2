"""Issue #15, conceptlu34: a section answered only by EuroVoc-label hits on acts the question does not
title does not keep another section from its last stage.

"droit d'accise sur l'essence et le gazole vendus à la pompe au Luxembourg" (conceptlu34 ``conceptual-3720``):
the Legilux section found nothing in its text stages, and the EUR-Lex section answered with acts found only by
their EuroVoc labels (``work_metadata``: "droit d'accise", acts amending the VAT directive) whose titles the
question says none of. :func:`serve.core.ops.empty_titled.answers_nothing` took that section for an answer, so
the last stage (the acts whose names hold several of the question's words, ADR 0078) never ran for Legilux,
whose règlement grand-ducal on the excise duties on energy products its names hold. Such a section now
answers nothing (:func:`serve.core.ops.empty_titled.answered`); a metadata section whose first act's title the
question says in part (``top_title_match`` above 0: concept13 ``conceptual-2717``, the implementing act
approving decanoic acid) still answers.

On the real fixture corpus (``LEX_FIXTURES``), with pure checks beside.
"""

from __future__ import annotations

from typing import Any

import pytest

from serve.core import LegalCore
from serve.core.ops import empty_titled, search
from serve.core.ops.empty_titled import answered, answers_nothing

#: this file's rules without the act terms' fusion after them (ADR 0141): with the reviewed terms in the
#: fixture index it adds or moves works in the answers these tests pin
pytestmark = pytest.mark.usefixtures("without_act_terms")


LU, EU = "lu-legilux", "eu-eurlex"
CULTURAL_LEAVE = "lu-legilux:loi-2023-01-06-a16"  # Loi du 6 janvier 2023 portant institution d'un congé culturel
MONDORF = "lu-legilux:loi-2018-07-13-a652"  # Loi du 13 juillet 2018 portant création d'un lycée à Mondorf-les-Bains
UNITARY_PATENT = "eu-eurlex:32011d0167"  # Council Decision 2011/167/EU, enhanced cooperation (unitary patent)
#: no provision of either index holds the words together; EUR-Lex finds the patent decision by its EuroVoc
#: labels only (« brevet européen »), a title the French question says none of (top_title_match 0.0)
LEAVE_AND_PATENT = "congé culturel des artistes et brevet européen"
SCHOOL_AND_PATENT = "lycée à Mondorf et brevet unitaire"


def _section(answer: dict[str, Any], publisher: str) -> dict[str, Any]:
    return next(s for s in answer["publishers"] if s["publisher"] == publisher)


@pytest.mark.parametrize(("query", "act"), [(LEAVE_AND_PATENT, CULTURAL_LEAVE), (SCHOOL_AND_PATENT, MONDORF)])
def test_a_section_answered_by_labels_of_untitled_acts_leaves_the_other_its_titled_acts(
        fixture_core: LegalCore, query: str, act: str) -> None:
    answer = fixture_core.call("search", {"query": query})
    eu = _section(answer, EU)
    assert [h["work"] for h in eu["hits"]] == [UNITARY_PATENT]
    assert eu["hits"][0]["match_reasons"] == ["work_metadata"] and eu["top_title_match"] == 0.0
    lu = _section(answer, LU)
    assert [h["work"] for h in lu["hits"]] == [act]
    # the last stage's work row (ADR 0078); « congé culturel des artistes » is now found before it by the any-word
    # relaxation, « artistes » an everyday word excused beside « culturel » … (ADR 0128, on the fixture corpus)
    assert lu["hits"][0]["match_reasons"] in (["title_words"], ["any_term"])


def test_without_the_rule_the_labels_alone_answer(fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(empty_titled, "answered", lambda section: bool(section.get("hits")))
    monkeypatch.setattr(search, "EXCUSE_EVERYDAY", False)  # ADR 0128 answers the Legilux section before the labels
    answer = fixture_core.call("search", {"query": LEAVE_AND_PATENT + " "})  # another question: no answer cache
    assert [h["work"] for h in answer["merged"]] == [UNITARY_PATENT]
    assert _section(answer, LU)["hits"] == []


def test_labels_answer_when_the_question_says_part_of_the_first_acts_title() -> None:
    metadata = {"match_reasons": ["work_metadata"]}
    assert not answered({"hits": [metadata, metadata], "top_title_match": 0.0})
    assert not answered({"hits": [metadata], "top_title_match": None})
    assert answered({"hits": [metadata], "top_title_match": 0.1587})  # "acide décanoïque" … decanoic acid
    assert answered({"hits": [metadata, {"match_reasons": ["any_term"]}], "top_title_match": 0.0})
    assert answered({"hits": [{"work": "x"}]})  # a hit of the question's words, whatever its reasons
    assert not answered({"hits": []})


class _Plan:
    name_not_held = None
    act_reference_only = False


def test_only_untitled_label_hits_leave_the_answer_empty_for_the_last_stage() -> None:
    words = {"terms": ["droit", "accise", "essence", "gazole", "pompe"]}
    labels = {"hits": [{"match_reasons": ["work_metadata"]}], "top_title_match": 0.0, "query_plan": words,
              "relaxation_withheld": {"reason": "off_subject"}}
    empty = {"hits": [], "query_plan": words, "relaxation_withheld": None}
    assert answers_nothing([empty, labels], {"lu": _Plan(), "eu": _Plan()})
    assert not answers_nothing([empty, {**labels, "top_title_match": 0.25}], {"lu": _Plan(), "eu": _Plan()})
