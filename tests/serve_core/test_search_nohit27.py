"""Issue #15, nohit27: two more shapes of a statute the corpus does not hold (ADR 0066).

- A popular name written as a sigle (« loi PACTE … »): a word of at least three letters all in capitals
  is a sigle, held only by a name writing the same letters in capitals as a word of its own (« loi
  SICAR », « CRR »); a name holding the common noun it spells (« Pacte logement ») is not it
  (:func:`serve.core.formnames.is_acronym`, :func:`serve.core.ops.search.acronym_in_names`).
- A statute asked by a subject of ordinary title words, each held by many names (« loi relative à la
  sécurité globale »): when no two successive words stand together in any name, nor in the texts of an
  act about them (:func:`serve.core.ops.search.words_together`), no act is named by the subject.
- A popular name's word is held by a name as itself or its inflections, not as the prefix of a longer
  word: "Ship Recycling Regulation" is not the "shipping" regulations (:func:`popular_name_held`'s
  rarest word), « loi Veil » is not « veille » (:func:`serve.core.ops.search.name_holds_inflection`).
"""

from __future__ import annotations

import pytest

from serve.core import LegalCore
from serve.core.envelope import CallContext
from serve.core.formnames import FormSubject, form_subject, is_acronym
from serve.core.ops import search
from serve.core.ops.search import (
    acronym_in_names,
    missing_law_words,
    name_holds_inflection,
    name_word_holders,
    popular_name_held,
    words_together,
)
from serve.core.searchplan import ActName, act_name

EU, LU = "eu-eurlex", "lu-legilux"


def _ctx(core: LegalCore) -> CallContext:
    return CallContext(operation="search", indexes=core.indexes, artifact={}, deadline_seconds=5.0)


@pytest.mark.parametrize(("word", "sigle"), [
    ("PACTE", True), ("SICAR", True), ("ALUR", True), ("Hadopi", False), ("Pacte", False),
    ("II", False),  # a roman numeral (« loi Sapin II »), too short to be read as a sigle
    ("Sapin", False),
])
def test_a_sigle_is_a_word_of_three_letters_or_more_all_in_capitals(word: str, sigle: bool) -> None:
    assert is_acronym(word) is sigle


def test_the_shapes_of_a_sigle() -> None:
    assert form_subject("loi PACTE sur la croissance des entreprises") == FormSubject(
        "law", ("pacte",), popular=True, acronym=True)
    assert form_subject("loi Pacte sur la croissance") == FormSubject("law", ("pacte",), popular=True)
    assert form_subject("loi Sapin II lutte contre la corruption") == FormSubject("law", ("sapin", "ii"), popular=True)


def test_a_sigle_is_held_by_a_name_writing_it_in_capitals(fixture_core: LegalCore) -> None:
    # the fixture names hold « CRR » (the Capital Requirements Regulation's short title) in capitals and
    # « travail » (the Code du travail) only in lower case
    held = {}
    for word in ("crr", "travail"):
        found = False
        for index in fixture_core.indexes.values():
            with index.session(5.0) as conn:
                holders = name_word_holders(conn, word)
                found = found or acronym_in_names(conn, word, holders)
                assert holders or index.publisher.value != (EU if word == "crr" else LU)
        held[word] = found
    assert held == {"crr": True, "travail": False}


def test_a_sigle_no_name_writes_in_capitals_answers_nothing(fixture_core: LegalCore) -> None:
    # France's 2016 « loi Travail » written as a sigle: before, the Code du travail's name (« travail »,
    # the common noun) held it and the code answered
    answer = fixture_core.call("search", {"query": "loi TRAVAIL sur le dialogue social"})
    for section in answer["publishers"]:
        assert section.get("hits") in (None, [])
        assert section["relaxation_withheld"] == {"reason": "form_subject_not_held", "form": "law",
                                                  "words": ["travail"]}


def test_a_sigle_a_name_writes_in_capitals_keeps_its_answer(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": "loi CRR exigences de fonds propres"})
    assert "eu-eurlex:32013r0575" in [h["work"] for h in answer["merged"]][:3]
    for section in answer["publishers"]:
        assert (section.get("relaxation_withheld") or {}).get("reason") != "form_subject_not_held"


def test_successive_subject_words_together_in_a_name_or_an_acts_texts(fixture_core: LegalCore) -> None:
    ctx, indexes = _ctx(fixture_core), list(fixture_core.indexes.values())
    assert words_together(ctx, indexes, ("securite",), ("sociale",))  # the Code de la sécurité sociale's name
    assert words_together(ctx, indexes, ("protection",), ("donnees",))  # the GDPR
    assert not words_together(ctx, indexes, ("securite",), ("globale",))
    assert words_together(ctx, indexes, ("data",), ("donnees personnelles",))  # a term of several words: no pair


def test_ordinary_words_held_apart_name_no_act(fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    # on the small fixture corpus few words are in many names: every held word is made an ordinary one
    monkeypatch.setattr(search, "SPECIFIC_NAME_WORKS", 0)
    ctx, indexes = _ctx(fixture_core), list(fixture_core.indexes.values())

    def law(*words: str) -> FormSubject:
        return FormSubject("law", words, terms=tuple((w,) for w in words), language="fr")

    assert missing_law_words(ctx, indexes, law("code", "travail")) is None  # the Code du travail's name
    assert missing_law_words(ctx, indexes, law("protection", "donnees")) is None  # the GDPR's texts
    assert missing_law_words(ctx, indexes, law("travail", "donnees")) == ["travail", "donnees"]


def test_a_popular_names_rarest_word_is_itself_or_its_inflections_not_a_prefix(fixture_core: LegalCore) -> None:
    # the GDPR's names hold "processing": a "Processing Regulation" may be it; "process" is another
    # word, which a prefix ("process*") matched (the "Ship Recycling Regulation" was held by "shipping")
    index = fixture_core.indexes[EU]
    with index.session(5.0) as conn:
        assert popular_name_held(conn, _popular("Processing Regulation"))
        assert not popular_name_held(conn, _popular("Process Regulation"))


def _popular(query: str) -> ActName:
    shape = act_name(query)
    assert shape is not None and shape.kind == "popular"
    return shape


def test_a_proper_name_is_held_as_itself_or_its_inflections_not_a_prefix(fixture_core: LegalCore) -> None:
    # the EU names hold « marché » / "march": a prefix ("marc*") matched them; no name holds « Marc »
    with fixture_core.indexes[EU].session(5.0) as conn:
        assert name_word_holders(conn, "marc")
        assert not name_holds_inflection(conn, "marc")
    with fixture_core.indexes[LU].session(5.0) as conn:
        assert name_holds_inflection(conn, "travail")  # the Code du travail


def test_a_popular_name_no_name_holds_but_as_a_prefix_answers_nothing(fixture_core: LegalCore) -> None:
    # before, « marché » in the EU names held the popular name « Marc » and the lanes answered
    answer = fixture_core.call("search", {"query": "loi Marc sur les loyers"})
    for section in answer["publishers"]:
        assert section.get("hits") in (None, [])
        assert section["relaxation_withheld"] == {"reason": "form_subject_not_held", "form": "law", "words": ["marc"]}
