"""Issue #15, forty-ninth session (sib49): the one act of a family the question means (ADR 0162).

:mod:`serve.core.siblings` compares the answer's first work with its siblings (works whose names share most of their
subject words) on the question's words that tell them apart only; :func:`serve.core.ops.search.sibling_step` puts the
sibling first whose own matter the question names. The decisions are tested on small word sets; the step's reading of
the act terms and its reordering on the real fixture corpus (``LEX_FIXTURES``).
"""

from __future__ import annotations

from typing import Any

import pytest

from serve.core import LegalCore, actterms, siblings
from serve.core.envelope import CallContext
from serve.core.ops import search

TICK = "tick size regime for shares depositary receipts and exchange traded funds trading venue"
PRE = "pre-trade transparency requirements for shares on a trading venue"


def _subject(title: str) -> frozenset[str]:
    return siblings.subject_words(title.split())


def test_a_titles_frame_says_no_subject() -> None:
    words = _subject("version consolidee applicable au 1er janvier 2020 reglement grand-ducal du 24 mars 1989 "
                     "concernant les sports nautiques sur la moselle")
    assert {"sports", "nautiques", "moselle"} <= words
    assert not words & {"version", "consolidee", "applicable", "janvier", "mars", "concernant", "1989"}


def test_siblings_share_most_of_the_shorter_names_subject() -> None:
    assert siblings.siblings(_subject(TICK), _subject(PRE))  # shares, trading, venue: 3 of the shorter's 6
    assert not siblings.siblings(_subject(TICK), _subject("protection of personal data"))
    assert not siblings.siblings(frozenset({"trading"}), frozenset({"trading", "venue"}))  # one word only


def _held() -> dict[str, frozenset[str]]:
    return {"first": siblings.vocabulary(_subject(PRE), ()), "tick": siblings.vocabulary(_subject(TICK), ("tick",)),
            "other": siblings.vocabulary(_subject("position limits commodity derivatives trading venue"), ())}


def test_the_words_every_sibling_holds_tell_nothing() -> None:
    held = _held()
    words = actterms.question_words("minimum tick size for trading shares on a trading venue")
    apart = siblings.distinctive(words, held)
    assert "trading" not in apart and "venue" not in apart
    assert apart["tick"] == ["tick"] and set(apart["shares"]) == {"first", "tick"}


def test_the_sibling_whose_own_matter_the_question_names_comes_first() -> None:
    held = _held()
    family = ["first", "tick", "other"]
    words = actterms.question_words("minimum tick size regime for trading shares and exchange traded funds")
    assert siblings.sibling_first(words, family, held, lambda w: 1.0) == "tick"
    # the first work's own matter: it stays
    words = actterms.question_words("pre-trade transparency requirements for trading venues")
    assert siblings.sibling_first(words, family, held, lambda w: 1.0) is None


def test_no_sibling_first_on_a_tie_a_small_lead_or_a_short_question() -> None:
    held = {"first": frozenset({"tick", "alpha"}), "a": frozenset({"tick", "size", "regim"}),
            "b": frozenset({"tick", "size", "regim"})}
    words = ["tick", "size", "regime"]
    assert siblings.sibling_first(words, ["first", "a", "b"], held, lambda w: 1.0) is None  # a and b tie
    assert siblings.sibling_first(words, ["first", "a"], held, lambda w: 1.0) == "a"
    assert siblings.sibling_first(words, ["first", "a"], held, lambda w: 1.0, margin=0.9) is None
    assert siblings.sibling_first(words[:2], ["first", "a"], held, lambda w: 1.0) is None
    assert siblings.sibling_first(words, ["first"], held, lambda w: 1.0) is None


def test_the_act_terms_forms_of_the_question_a_work_holds(fixture_core: LegalCore) -> None:
    index = fixture_core.indexes["eu-eurlex"]
    rowid = index.catalogue.rowid_of["32015r0233"]
    with index.session(10.0) as conn:
        terms = actterms.terms_of(conn, index)
    held = siblings.term_forms(terms, ["narrow", "unheardofword"], [rowid])[rowid]
    assert held & actterms.word_forms("narrow") and not held & actterms.word_forms("unheardofword")


def test_only_the_subject_words_beginning_like_the_question_are_stemmed() -> None:
    begins = siblings.prefixes(["auctioning"])
    held = siblings.vocabulary(["auctioning", "greenhouse", "allowances"], (), begins)
    assert held & actterms.word_forms("auctioning") and not held & actterms.word_forms("greenhouse")
    assert siblings.vocabulary(["greenhouse"], ()) & actterms.word_forms("greenhouse")


def _first_works(answer: dict[str, Any]) -> list[str]:
    return [str(h["work"]) for h in answer["merged"]]


def test_the_step_moves_the_chosen_sibling_first_and_keeps_the_places_scores(
        fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    query = "own funds requirements for credit institutions and investment firms"
    monkeypatch.setattr(search, "SIBLINGS", False)
    before = fixture_core.call("search", {"query": query})
    works = _first_works(before)
    assert len(works) >= 2
    monkeypatch.setattr(search, "SIBLINGS", True)
    monkeypatch.setattr(siblings, "siblings", lambda a, b: True)
    monkeypatch.setattr(siblings, "sibling_first", lambda words, family, held, weight, **_: family[1])
    after = fixture_core.call("search", {"query": query})
    section = before["merged"][0]["publisher"]
    same = [w for w in works if w.startswith(section + ":")]
    if len(same) < 2:
        pytest.skip("the fixture answer has one work of its first publisher")
    assert _first_works(after)[0] == same[1]
    assert [h["score"] for h in after["merged"]][:1] == [h["score"] for h in before["merged"]][:1]


def test_the_works_filter_leaves_the_answer(fixture_core: LegalCore) -> None:
    ctx = CallContext("search", fixture_core.indexes, {}, 10.0)
    assert not search.sibling_step(ctx, [{"publisher": "eu-eurlex", "hits": [{"work": "a"}, {"work": "b"}]}],
                                   {"works": ["a"], "query": "x y z w"})


def test_the_years_a_question_names_as_an_acts() -> None:
    assert search.named_years("Liste der zuständigen Gerichte Verordnung (EG) Nr. 44/2001 Änderung 2002") == {
        "2001", "2002"}
    assert search.named_years("Mehrwertsteuer Fernverkäufe von Waren Richtlinie 2019") == {"2019"}
    # a point in time, not an act's year: after a word of time, or a date the parser reads
    assert not search.named_years("non-delta risk of options RTS as of 2015")
    assert not search.named_years("intégration des activités aériennes en 2010")
    assert not search.named_years("réception des véhicules routiers version applicable au 1er janvier 2015")
    assert not search.named_years("plain words only")


def test_the_first_sibling_holding_the_year_comes_first() -> None:
    names = {"first": frozenset({"2017", "tick"}), "a": frozenset({"2019", "tick"}), "b": frozenset({"2019"})}
    assert siblings.year_first({"2019"}, ["first", "a", "b"], names) == "a"
    assert siblings.year_first({"2017"}, ["first", "a", "b"], names) is None  # the first holds it
    assert siblings.year_first({"2020"}, ["first", "a", "b"], names) is None
    assert siblings.year_first(set(), ["first", "a"], names) is None


def test_a_year_decides_in_a_question_too_short_for_the_words(fixture_core: LegalCore,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    query = "credit institutions 2013"
    assert len(actterms.question_words(query)) < siblings.MIN_WORDS and search.named_years(query) == {"2013"}
    monkeypatch.setattr(search, "SIBLINGS", False)
    works = _first_works(fixture_core.call("search", {"query": query}))
    monkeypatch.setattr(search, "SIBLINGS", True)
    monkeypatch.setattr(siblings, "siblings", lambda a, b: True)
    monkeypatch.setattr(siblings, "year_first", lambda years, family, names: family[1])
    section = works[0].split(":")[0] if works else ""
    same = [w for w in works if w.startswith(section + ":")]
    if len(same) < 2:
        pytest.skip("the fixture answer has one work of its first publisher")
    assert _first_works(fixture_core.call("search", {"query": query}))[0] == same[1]
