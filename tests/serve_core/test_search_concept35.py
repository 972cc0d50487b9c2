"""Issue #15, concept35: plain-word questions (a third sample), written before any search.

- the negation of an English or German question ("not", "cannot", "never", "nicht", "kein …") is a
  question-frame word (:data:`derive.index.relax.QUESTION_WORDS`), as the French « ne », « pas »
  are stop words already: no provision is about "not", and as an untranslated word of a translated
  question it withheld the relaxation of the Legilux section.
- an English adverb in ``-ily`` is searched with its adjective in ``-y`` ("voluntarily" → "voluntary"):
  Snowball stems them apart, so no form of one was the other.

On the real fixture corpus (``LEX_FIXTURES``) where an index is read.
"""

from __future__ import annotations

from typing import Any

from derive.index import relax
from serve.core import LegalCore
from serve.core.searchplan import without_question_frame

LU = "lu-legilux"
EU = "eu-eurlex"


def _section(core: LegalCore, query: str, publisher: str) -> dict[str, Any]:
    answer = core.call("search", {"query": query})
    return dict(next(s for s in answer["publishers"] if s["publisher"] == publisher))


def test_english_and_german_negations_are_question_frame_words() -> None:
    for word in ("not", "cannot", "never", "doesn", "isn", "nicht", "kein", "keine", "nie", "niemals", "jamais"):
        assert word in relax.QUESTION_WORDS, word
    assert without_question_frame(["tenant", "cannot", "pay", "rent"]) == ["tenant", "pay", "rent"]
    assert without_question_frame(["miete", "nicht", "zahlen"]) == ["miete", "zahlen"]
    # words that can name a subject stay search words: "no" (a number sign), "don" (« don de sang »),
    # "own" ("own funds")
    for word in ("no", "don", "won", "own"):
        assert word not in relax.QUESTION_WORDS, word


def test_an_english_question_saying_cannot_reaches_the_rent_subsidy_law(fixture_core: LegalCore) -> None:
    # "cannot" was an untranslated word of the translated Legilux question: with "own" and the other
    # untranslated words it outnumbered the translated ones and withheld the relaxation (nothing answered)
    section = _section(fixture_core, "rent subsidy for a tenant who cannot pay his own rent", LU)
    assert "cannot" not in section["query_plan"]["terms"]
    assert section["hits"] and section["hits"][0]["work"] == f"{LU}:loi-2022-07-22-a396"


def test_a_german_negation_is_not_searched(fixture_core: LegalCore) -> None:
    section = _section(fixture_core, "Mietzuschuss für Mieter, die ihre Miete nicht zahlen können", LU)
    assert "nicht" not in section["query_plan"]["terms"]
    assert section["hits"] and section["hits"][0]["work"] == f"{LU}:loi-2022-07-22-a396"


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
