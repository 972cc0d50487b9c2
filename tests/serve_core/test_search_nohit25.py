"""Issue #15, nohit25: a question naming an act by its form that the corpus does not hold.

"directive sur les emballages", "règlement relatif aux produits cosmétiques", "directive sur l'eau
potable" (names24) and "loi Sapin II lutte contre la corruption" (lu11) answered with acts whose texts
or other-form titles held the subject's words: a Luxembourg law on packaging for a directive on
packaging, EU acts on money laundering for a French statute. A form + subject question (directive /
règlement / regulation / Richtlinie / Verordnung, a link word, the subject) whose subject words no act
of the form is named by, while the texts know them, and no specific word of it an act of the form is
named by, now answers no hits with the typed reason ``form_subject_not_held``; so does « loi » + a
popular name no work's name holds (:func:`serve.core.ops.search.form_subject_not_held`, ADR 0052).
The same shape naming a held act keeps answering.
"""

from __future__ import annotations

from typing import Any

import pytest

from serve.core import LegalCore
from serve.core.envelope import CallContext
from serve.core.formnames import FormSubject, form_subject
from serve.core.ops.search import missing_form_words

EU, LU = "eu-eurlex", "lu-legilux"


def _sections(core: LegalCore, query: str) -> dict[str, dict[str, Any]]:
    answer = core.call("search", {"query": query})
    return {s["publisher"]: s for s in answer["publishers"]}


def _works(section: dict[str, Any]) -> list[str]:
    return [h["work"] for h in section.get("hits") or []]


@pytest.mark.parametrize(("query", "form", "words"), [
    # the Luxembourg law of 1 August 2019 « concernant les mutuelles » is no regulation: before, it came
    # first (then the GDPR, whose text speaks of mutual societies)
    ("règlement sur les mutuelles", "regulation", ["mutuelles"]),
    # the loi du 6 janvier 2023 « portant institution d'un congé culturel » is no directive: before, its hit
    ("directive sur le congé culturel", "directive", ["conge", "culturel"]),
    # a French statute's popular name no work's name holds ("sapin" only as « sapins » in texts):
    # before, Regulation No 59 answered by its text's words
    ("loi Sapin II lutte contre la corruption", "law", ["sapin"]),
])
def test_an_act_of_the_form_no_name_holds_answers_nothing(fixture_core: LegalCore, query: str, form: str,
                                                            words: list[str]) -> None:
    sections = _sections(fixture_core, query)
    for publisher in (EU, LU):
        assert _works(sections[publisher]) == []
        assert sections[publisher]["relaxation_withheld"] == {"reason": "form_subject_not_held", "form": form,
                                                               "words": words}


@pytest.mark.parametrize(("query", "first"), [
    ("règlement sur la protection des données", "eu-eurlex:32016r0679"),
    ("regulation on the control of concentrations", "eu-eurlex:32004r0139"),
    ("Richtlinie über Pauschalreisen", "eu-eurlex:32015l2302"),  # the word through its French term
    ("directive sur les voyages à forfait", "eu-eurlex:32015l2302"),
    ("loi Congé culturel", "lu-legilux:loi-2023-01-06-a16"),  # a capitalised subject a law's name holds
    ("loi sur les transports publics", "lu-legilux:loi-2021-02-05-a106"),  # « loi » + subject a name holds (nohit26)
])
def test_the_same_shape_naming_a_held_act_still_answers(fixture_core: LegalCore, query: str, first: str) -> None:
    answer = fixture_core.call("search", {"query": query})
    assert [h["work"] for h in answer["merged"]][:1] == [first]


def test_a_specific_word_an_act_of_the_form_is_named_by_keeps_the_question(fixture_core: LegalCore) -> None:
    # « voyages » is in Directive (EU) 2015/2302's name and in few others: that directive may be the act
    # asked for by other words, so « mutuelles » (no directive's name) does not say the act is absent
    ctx = CallContext(operation="search", indexes=fixture_core.indexes, artifact={}, deadline_seconds=5.0)
    indexes = list(fixture_core.indexes.values())
    assert missing_form_words(ctx, indexes, FormSubject("directive", ("voyages", "mutuelles"))) is None
    assert missing_form_words(ctx, indexes, FormSubject("directive", ("mutuelles",))) == ["mutuelles"]
    # a word the texts do not hold (a typo, an unknown word) is another rule's case
    assert missing_form_words(ctx, indexes, FormSubject("directive", ("mutuellles",))) is None


def test_the_shapes() -> None:
    assert form_subject("directive sur les emballages") == FormSubject("directive", ("emballages",))
    assert form_subject("règlement relatif aux produits cosmétiques") == \
        FormSubject("regulation", ("produits", "cosmetiques"))
    assert form_subject("regulation on novel foods") == FormSubject("regulation", ("novel", "foods"))
    assert form_subject("loi Sapin II lutte contre la corruption") == FormSubject("law", ("sapin", "ii"), popular=True)
    for query in ("directive 2006/112 sur la TVA",  # a numbered act is named otherwise
                  "directive sur la TVA et règlement sur la facturation",  # two acts
                  "règlement grand-ducal sur la chasse",  # no link word after the form
                  "Loi du 5 février 2021",  # a date, and « du » opens no popular name
                  "loi Grand-Ducale sur les armes",  # naming Luxembourg
                  "protection des données",  # no form
                  # German: the names are French and English, the lexicon gives a German word one or
                  # two of its French terms, so the names' silence proves nothing
                  "Richtlinie über Pauschalreisen", "Verordnung über Düngeprodukte"):
        assert form_subject(query) is None, query


def test_a_german_question_naming_a_held_directive_is_not_declared_absent(fixture_core: LegalCore) -> None:
    # « Gebäude » is « immeuble » in the cross-language lexicon while the directives' names say « bâtiments »,
    # and the texts of the Luxembourg constitution hold German words no name holds: read as a form +
    # subject question, the directive on the energy performance of buildings would answer nothing
    answer = fixture_core.call("search", {"query": "Richtlinie über die Gesamtenergieeffizienz von Gebäuden"})
    for section in answer["publishers"]:
        assert (section.get("relaxation_withheld") or {}).get("reason") != "form_subject_not_held"
