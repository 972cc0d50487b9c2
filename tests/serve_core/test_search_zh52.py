"""Issue #15, fifty-second session (zh52): an answer nothing else answered takes the act whose provisions hold several
of the question's words rare in the corpus (:mod:`serve.core.ops.rare_body`, ADR 0184), on the real fixture corpus
(``LEX_FIXTURES``)."""

from __future__ import annotations

import types
from typing import Any

import pytest

from serve.core import LegalCore
from serve.core.ops import rare_body, search

CONSTITUTION = "lu-legilux:constitution-1868-10-17-n1"
#: Three words of the German text of the Luxembourg constitution that no other fixture text holds.
RARE = ["abgeordnetenmandat", "abgeordneteneigenschaft", "abgedankt"]


def test_the_step_is_on_the_default_path() -> None:
    assert rare_body.RARE_BODY is True
    assert rare_body.MIN_WORDS == 3 and rare_body.MAX_SHARE >= 0.00044


def test_a_rare_word_is_rare_in_every_index_together() -> None:
    docs = [{"unsold": 27, "over": 5000, "footwear": 21}, {"over": 4, "unsold": 0}]
    # « over » is rare in the French texts and everywhere in the English ones: no rare word; « licornes » no index holds
    words = ["unsold", "over", "footwear", "licornes"]
    assert rare_body.rare_words(docs, words, 137_269) == ["unsold", "footwear"]  # at most 150 provisions
    assert rare_body.rare_words([{"clothing": 100}, {"clothing": 60}], ["clothing"], 137_269) == []
    # a share of the corpus: in a small one, a word of a few provisions is no rare word
    assert rare_body.rare_words(docs, words, 5_000) == []


def test_the_act_holding_the_most_rare_words_leads() -> None:
    a, b, c = ("eu-eurlex", 1), ("eu-eurlex", 2), ("lu-legilux", 3)
    held = {a: frozenset({"unsold", "clothing", "footwear", "destroy"}), b: frozenset({"destroy", "footwear"}),
            c: frozenset({"unsold"})}
    assert rare_body.leading_work(held, {}) == a
    # two words only: no act
    assert rare_body.leading_work({b: held[b]}, {}) is None
    # a tie: the act terms decide when they cover one act more, else nothing
    tied = {a: frozenset({"coffee", "cocoa", "grown"}), b: frozenset({"coffee", "cocoa", "grown"})}
    assert rare_body.leading_work(tied, {b: 0.13}) == b
    assert rare_body.leading_work(tied, {}) is None
    assert rare_body.leading_work(tied, {a: 0.2, b: 0.2}) is None
    assert rare_body.leading_work({}, {}) is None


def _ctx(core: LegalCore) -> types.SimpleNamespace:
    return types.SimpleNamespace(indexes=core.indexes, deadline_seconds=30.0)


def _empty() -> list[dict[str, Any]]:
    return [{"publisher": "eu-eurlex", "hits": [], "outcome": "empty"},
            {"publisher": "lu-legilux", "hits": [], "outcome": "empty"}]


ARGS = {"language": None, "document_type": None, "limit": 10}
PLANS: dict[str, Any] = {"eu-eurlex": None, "lu-legilux": None}  # only which publishers were searched is read


def test_the_provisions_holding_a_word(fixture_core: LegalCore) -> None:
    index = fixture_core.indexes["lu-legilux"]
    with index.session(30.0) as conn:
        found = rare_body.works_holding(conn, RARE[0])
    assert [index.catalogue.slug_of[w] for w in found] == [CONSTITUTION.split(":", 1)[1]]


def test_an_empty_answer_takes_the_act_holding_the_rare_words(fixture_core: LegalCore) -> None:
    sections = _empty()
    words = [*RARE, "licornes"]
    assert search.rare_body_answer(_ctx(fixture_core), sections, PLANS, words, dict(ARGS))  # type: ignore[arg-type]
    hits = sections[1]["hits"]
    assert [h["work"] for h in hits] == [CONSTITUTION] and sections[1]["outcome"] == "succeeded"
    assert hits[0]["match_reasons"] == ["any_term"] and hits[0]["rare_words"] == RARE
    assert sections[0]["hits"] == []


def test_two_rare_words_answer_nothing(fixture_core: LegalCore) -> None:
    sections = _empty()
    assert not search.rare_body_answer(_ctx(fixture_core), sections, PLANS, RARE[:2], dict(ARGS))  # type: ignore[arg-type]
    assert all(s["hits"] == [] for s in sections)


def test_the_step_off(fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rare_body, "RARE_BODY", False)
    sections = _empty()
    assert not search.rare_body_answer(_ctx(fixture_core), sections, PLANS, RARE, dict(ARGS))  # type: ignore[arg-type]


def _works(core: LegalCore, query: str) -> list[str]:
    found = core.call("search", {"query": query, "limit": 10})
    return [str(h["work"]) for s in found["publishers"] for h in s.get("hits") or []]


def test_a_question_of_rare_words_is_answered(fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    query = "abgeordnetenmandat abgeordneteneigenschaft abgedankt"
    assert _works(fixture_core, query) == [CONSTITUTION]
    monkeypatch.setattr(rare_body, "RARE_BODY", False)
    assert _works(fixture_core, query) == []


def test_a_word_no_index_holds_keeps_the_answer_empty(fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch
                                                      ) -> None:
    # « licornes » is what the question is about: no act's provisions answer it (HELD_ONLY) …
    monkeypatch.setattr(rare_body, "HELD_ONLY", True)
    query = "abgeordnetenmandat abgeordneteneigenschaft abgedankt licornes"
    assert _works(fixture_core, query) == []
    # … or the three rare words are taken beside it
    monkeypatch.setattr(rare_body, "HELD_ONLY", False)
    assert _works(fixture_core, query) == [CONSTITUTION]
