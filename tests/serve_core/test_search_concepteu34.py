"""Issue #15, concepteu34: EUR-Lex questions asked in plain words, written before any search.

- the verb of containing that ends a question asking what something contains ("what must a
  market making agreement *contain*", "what information must the statement *include*") is a frame
  word: it leaves the search words (:func:`derive.index.relax.frame_end_words`).

On the real fixture corpus (``LEX_FIXTURES``) where an index is read.
"""

from __future__ import annotations

from typing import Any

from derive.index import relax
from serve.core import LegalCore

EU = "eu-eurlex"


def _section(core: LegalCore, query: str, publisher: str, **args: Any) -> dict[str, Any]:
    answer = core.call("search", {"query": query, **args})
    return dict(next(s for s in answer["publishers"] if s["publisher"] == publisher))


def _words(text: str) -> list[str]:
    return text.split()


def test_the_verb_that_ends_a_what_does_it_contain_question_is_a_frame_word() -> None:
    assert relax.frame_end_words(_words("what must a market making agreement contain")) == {"contain"}
    assert relax.frame_end_words(_words("what information must the statement include")) == {"include"}
    assert relax.frame_end_words(_words("que doit contenir le plan ou que doit il comprendre")) == {
        "comprendre"}
    assert relax.frame_end_words(_words("welche angaben muss die meldung enthalten")) == {"enthalten"}
    # without the interrogative, or not at the end, the verb says what the question is about
    assert relax.frame_end_words(_words("the annex shall contain")) == set()
    assert relax.frame_end_words(_words("which rules cover bicycles")) == set()
    assert relax.frame_end_words(_words("contain")) == set()


def test_a_breach_notification_question_is_not_required_to_say_contain(fixture_core: LegalCore) -> None:
    section = _section(
        fixture_core, "what must the notification of a personal data breach to the supervisory authority contain", EU)
    assert "contain" not in section["query_plan"]["terms"]
    assert section["hits"] and section["hits"][0]["work"] == f"{EU}:32016r0679"


def test_a_possessive_or_elided_letter_is_no_search_word(fixture_core: LegalCore) -> None:
    section = _section(fixture_core, "the controller's duty to notify a personal data breach", EU)
    assert "s" not in section["query_plan"]["terms"]
    assert section["hits"] and section["hits"][0]["work"] == f"{EU}:32016r0679"
    french = _section(fixture_core, "quelles règles s'appliquent à la violation de données à caractère personnel", EU)
    assert "s" not in french["query_plan"]["terms"] and "appliquent" in french["query_plan"]["terms"]
