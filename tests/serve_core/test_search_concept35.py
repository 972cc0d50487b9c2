"""Issue #15, concept35: plain-word questions (a third sample), written before any search.

The pass's negation rule was taken out by the lead (it cost a blind case); what stays:

- an English adverb in ``-ily`` is searched with its adjective in ``-y`` ("voluntarily" → "voluntary"):
  Snowball stems them apart, so no form of one was the other.

On the real fixture corpus (``LEX_FIXTURES``) where an index is read.
"""

from __future__ import annotations

from typing import Any

from derive.index import relax
from serve.core import LegalCore

LU = "lu-legilux"
EU = "eu-eurlex"


def _section(core: LegalCore, query: str, publisher: str) -> dict[str, Any]:
    answer = core.call("search", {"query": query})
    return dict(next(s for s in answer["publishers"] if s["publisher"] == publisher))


def test_an_adverb_in_ily_names_its_adjective() -> None:
    assert relax.adverb_adjective("temporarily") == "temporary"
    assert relax.adverb_adjective("voluntarily") == "voluntary"
    assert relax.adverb_adjective("necessarily") == "necessary"
    # too short to be such an adverb, or not one
    assert relax.adverb_adjective("family") is None
    assert relax.adverb_adjective("daily") is None
    assert relax.adverb_adjective("temporary") is None


def test_a_question_saying_voluntarily_finds_the_article_saying_voluntary(fixture_core: LegalCore) -> None:
    # the fixture GDPR's art. 42: "The certification shall be voluntary"; no provision holds
    # "voluntarily", which before this rule only a fuzzy match reached
    section = _section(fixture_core, "is certification voluntarily", EU)
    assert "voluntarily -> voluntary" in section["query_expansions"]
    first = section["hits"][0]
    assert (first["work"], first["anchor"]) == (f"{EU}:32016r0679", "art_42")
    assert "keyword" in first["match_reasons"]
