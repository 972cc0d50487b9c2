"""Issue #15, thirty-seventh session (en37): English questions on both publishers, a second sample, on the
real fixture corpus (``LEX_FIXTURES``) where an index is read.

- An act cited by its English form and date (« law of 27 January 1972 », « grand-ducal regulation of
  10 March 2014 », « law of July 31, 2006 ») is a dated reference, as « loi du 27 janvier 1972 » and
  « Gesetz vom 27. Januar 1972 » are; before, the English citation named no act and the date's words
  were dropped, so the act was searched by its other words only.
- The English lexicon reaches the French words of the next band of Legilux title words (ranks 900–1,500)
  and of the Legilux heading words (``scripts/select_de_title_words.py --language en --lu-from 900
  --lu-top 1500 --headings 800``): "incapacitated" « incapables », "vineyards" « vignoble »,
  "garnishment" « saisie »; a word the selection did not choose has no entry, nor do the words of en36's
  unmerged fit entries ("unemployed", "screening", "bathing").
"""

from __future__ import annotations

from typing import Any

import pytest

from derive.index import xlang
from serve.core import LegalCore
from serve.core.ops.search import dated_prefixes
from tests.index.pipeline import FixtureBuild

LU = "lu-legilux"


def _sections(core: LegalCore, query: str) -> dict[str, dict[str, Any]]:
    answer = core.call("search", {"query": query, "limit": 10, "fuzzy": "off"})
    return {str(s["publisher"]): dict(s) for s in answer["publishers"]}


# --- an act cited by its English form and date


@pytest.mark.parametrize(("query", "expected"), [
    ("law of 27 January 1972 laying down the rules for State employees", ("law of 27 january 1972", "loi-1972-01-27-")),
    ("Grand-Ducal Regulation of 16 March 2020 on coins", ("grand ducal regulation of 16 march 2020", "rgd-2020-03-16-")),
    ("grand ducal decree of 8th March 1961", ("grand ducal decree of 8th march 1961", "agd-1961-03-08-")),
    ("the amended law of July 31, 2006", ("law of july 31 2006", "loi-2006-07-31-")),
    ("ministerial regulation dated 10 November 2020", ("ministerial regulation dated 10 november 2020",
                                                       "rmin-2020-11-10-")),
    ("Act of 5 May 2006 on asylum", ("act of 5 may 2006", "loi-2006-05-05-")),
])
def test_the_english_citation_by_form_and_date_reads_the_act(query: str, expected: tuple[str, str]) -> None:
    assert dated_prefixes(query) == [expected]


@pytest.mark.parametrize("query", [
    "law of 2006 on asylum",  # a year only: no day
    "regulation of 16 March 2020",  # a « regulation » may be the EU's: no Luxembourg form named
    "law of Smith 12 2006",  # a month-first date needs an English month name
    "law of 30 February 2016 on parental leave",  # no calendar day: the impossible-citation guard answers it
])
def test_an_english_form_without_a_full_date_or_a_luxembourg_form_is_no_citation(query: str) -> None:
    assert dated_prefixes(query) == []


@pytest.mark.parametrize(("query", "first"), [("law of 31 July 2006 dismissal", "loi-2006-07-31-n2"),
                                              ("grand-ducal regulation of 10 March 2014", "rgd-2014-03-10-n1"),
                                              ("law of July 31, 2006 on dismissal", "loi-2006-07-31-n2")])
def test_an_english_citation_of_a_held_act_names_it_first(fixture_core: LegalCore, query: str, first: str) -> None:
    section = _sections(fixture_core, query)[LU]
    mention = next(m for m in section["query_plan"]["work_mentions"] if m["reason"] == "dated_reference")
    assert mention["works"] == [f"{LU}:{first}"]
    assert section["hits"][0]["work"] == f"{LU}:{first}"


def test_an_english_citation_no_index_holds_answers_no_hits(fixture_core: LegalCore) -> None:
    # as « loi du 8 janvier 2013 sur le surendettement » does (``dated_reference_not_held``)
    for section in _sections(fixture_core, "law of 8 January 2013 on over-indebtedness").values():
        assert section["hits"] == []
        assert section["relaxation_withheld"]["reason"] == "dated_reference_not_held"


# --- the next band of title and heading words


def test_the_next_band_of_title_and_heading_words_reach_the_english_lexicon() -> None:
    english = xlang.lexicon("en")
    assert english.lookup("incapacitated", "en") == ("incapables",)
    assert english.lookup("vineyards", "en") == ("vignoble",)  # the plural reads its singular's entry
    assert english.lookup("garnishment", "en") == ("saisie",)
    assert english.phrases[("repealing", "provisions")] == ("dispositions abrogatoires",)
    # not chosen by the selection (a sense no title holds: « pièces » there are a file's documents)
    assert english.lookup("coin", "en") is None
    # en36's fit entries, not merged (one of them cost a blind case), are not written again from the list
    assert english.lookup("unemployed", "en") is None
    assert english.lookup("screening", "en") is None
    # withdrawn after scoring: a readable case fell with each ("war damage to houses": "houses" became required)
    assert english.lookup("war", "en") is None
    assert ("stock", "exchange") not in english.phrases


def test_a_plain_word_english_question_on_a_title_word_is_translated(fixture_indexes: FixtureBuild) -> None:
    held = fixture_indexes.vocabulary(LU).__contains__
    found = xlang.translate(["garnishment", "of", "wages"], "en", held=held)
    assert found.alternatives.get("garnishment") == ["saisie"]
