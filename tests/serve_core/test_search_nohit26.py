"""Issue #15, nohit26: a statute asked by its subject that the corpus does not hold.

« loi » / "(the) law" + a link word + a subject ("loi sur les piscines", "law on hunting") asks for one
act of any form: a statute, a code holding the statute's rules, or an EU act a user calls a law. When no
act's name holds a subject word (an English word also through its French terms), no act's texts are
about it (:func:`serve.core.ops.search.act_about`) and, for a word no index holds, it is no typo, the
question answers no hits with the typed reason ``form_subject_not_held``
(:func:`serve.core.ops.search.missing_law_words`, ADR 0060). Any doubt keeps the answer: a specific
word some name holds, a subject a code is about (« divorce », the procedure code), a typo, an
abbreviation, an English word the lexicon does not translate.
"""

from __future__ import annotations

from typing import Any

import pytest

from serve.core import LegalCore
from serve.core.envelope import CallContext
from serve.core.formnames import FormSubject, form_subject
from serve.core.ops.search import missing_law_words

EU, LU = "eu-eurlex", "lu-legilux"


def _sections(core: LegalCore, query: str) -> dict[str, dict[str, Any]]:
    answer = core.call("search", {"query": query})
    return {s["publisher"]: s for s in answer["publishers"]}


def _law(words: tuple[str, ...], terms: tuple[tuple[str, ...], ...], language: str) -> FormSubject:
    return FormSubject("law", words, terms=terms, language=language)


@pytest.mark.parametrize(("query", "words"), [
    # « piscines » is in one provision of the Code de la consommation and in no name: before, that code
    # answered the question as the law on swimming pools
    ("loi sur les piscines", ["piscines"]),
    # a word no index holds that is no typo of a held word: before, the unknown word answered nothing
    # untyped; now the statute is said to be absent
    ("loi sur le séparatisme", ["separatisme"]),
    ("loi relative à la bioéthique", ["bioethique"]),
    # an English word read through its French term (« chasse », in two provisions, no name)
    ("the law on hunting", ["hunting"]),
])
def test_a_statute_asked_by_a_subject_no_name_holds_answers_nothing(fixture_core: LegalCore, query: str,
                                                                     words: list[str]) -> None:
    sections = _sections(fixture_core, query)
    for publisher in (EU, LU):
        assert [h["work"] for h in sections[publisher].get("hits") or []] == []
        assert sections[publisher]["relaxation_withheld"] == {"reason": "form_subject_not_held", "form": "law",
                                                               "words": words}


@pytest.mark.parametrize(("query", "first"), [
    # no name holds « divorce », but the procedure code's texts are about it (33 provisions): the code
    # is the law asked for by other words
    ("loi sur le divorce", "lu-legilux:rgd-1998-08-03-n4"),
    ("loi sur le divorse", "lu-legilux:rgd-1998-08-03-n4"),  # a typo of a held word: the fuzzy lane's
    ("loi sur les transports publics", "lu-legilux:loi-2021-02-05-a106"),  # a name holds the words
    ("law on public transport", "lu-legilux:loi-2021-02-05-a106"),  # through « transports »
    ("loi sur la protection des données", "eu-eurlex:32016r0679"),  # an EU regulation asked as « loi »
])
def test_a_statute_asked_by_a_held_subject_keeps_its_answer(fixture_core: LegalCore, query: str, first: str) -> None:
    answer = fixture_core.call("search", {"query": query})
    assert [h["work"] for h in answer["merged"]][:1] == [first]
    for section in answer["publishers"]:
        assert (section.get("relaxation_withheld") or {}).get("reason") != "form_subject_not_held"


def test_any_doubt_keeps_the_question(fixture_core: LegalCore) -> None:
    ctx = CallContext(operation="search", indexes=fixture_core.indexes, artifact={}, deadline_seconds=5.0)
    indexes = list(fixture_core.indexes.values())
    assert missing_law_words(ctx, indexes, _law(("piscines",), (("piscines",),), "fr")) == ["piscines"]
    # a specific word a name holds (« transports »: the public transport law) may name the act asked for
    assert missing_law_words(ctx, indexes, _law(("transports", "piscines"), (("transports",), ("piscines",)),
                                                "fr")) is None
    # an English word the lexicon does not translate cannot be looked for in the French names, even when
    # the English texts hold it in passing and no name does (« commingling »: two provisions of one act)
    assert missing_law_words(ctx, indexes, _law(("commingling",), ((),), "en")) is None
    assert missing_law_words(ctx, indexes, _law(("abortion",), ((),), "en")) is None
    # an abbreviation: too short to tell from a typo
    assert missing_law_words(ctx, indexes, _law(("ivg",), (("ivg",),), "fr")) is None
    # an English word no index holds is not judged a French typo: the question stays the lanes'
    assert missing_law_words(ctx, indexes, _law(("secularism",), (("secularism", "laicite"),), "en")) is None


def test_the_shapes() -> None:
    assert form_subject("loi sur les piscines") == _law(("piscines",), (("piscines",),), "fr")
    hunting = form_subject("the law on hunting")
    assert hunting is not None and hunting.language == "en" and hunting.words == ("hunting",)
    assert "chasse" in hunting.terms[0]  # the cross-language lexicon's French term
    assert form_subject("loi Sapin II lutte contre la corruption") == FormSubject("law", ("sapin", "ii"), popular=True)
    for query in ("loi du 5 février 2021 sur les transports publics",  # a dated act is named otherwise
                  "loi sur la directive relative aux emballages",  # a second form: two acts
                  "loi sur le Grand-Duché",  # naming Luxembourg
                  "law firm regulation",  # no link word after "law"
                  "Gesetz über die Jagd"):  # German: out of scope (ADR 0052)
        assert form_subject(query) is None, query
