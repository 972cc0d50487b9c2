"""Issue #15, forty-sixth session (concept46): an act term the question says only in part.

A plain-word question often says some words of an act's term and not the others (« chômage partiel » for
« indemnité de chômage partiel », "who pays when a wolf kills sheep" for "compensation for wolf damage"): the terms
said whole (:meth:`serve.core.actterms.TermIndex.covered`) miss the act. :func:`serve.core.actterms.partly_covered`
counts such words at :data:`serve.core.actterms.PARTIAL_SHARE` of their weight when the question says at least
:data:`serve.core.actterms.PARTIAL_LEAST` of the term's words. The search's step is tested on the real fixture
corpora built again with a small act-terms directory made by the test (never the packaged data).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from serve.core import LegalCore, actterms
from tests.index.pipeline import FixtureBuild
from tests.serve_core.term_matches import mounted_with_terms

LU = "lu-legilux"
#: The Luxembourg consumer code, given for the test the English term "customer personal information" only.
CONSUMER = "lu-legilux:loi-2011-04-08-n2"
TERMS = [{"work": CONSUMER, "fr": ["zorblax widget"], "en": ["customer personal information"]}]


def _index() -> actterms.TermIndex[int]:
    return actterms.term_index([
        (1, "indemnité de chômage partiel", "fr"), (1, "chômage", "fr"),
        (2, "chômage", "fr"), (2, "indemnité de chômage", "fr"),
        (3, "salaire social minimum", "fr"), (4, "congé parental", "fr"), (5, "permis de conduire", "fr"),
        (6, "compensation for wolf damage", "en"),
    ])


def test_a_term_said_in_part_counts_its_words_at_a_share_of_their_weight() -> None:
    terms = _index()
    words = actterms.question_words("chômage partiel")
    whole = terms.covered(words)
    assert [m.work for m in whole] == [1, 2] and whole[0].coverage == whole[1].coverage  # « chômage » alone
    found = {m.work: m for m in actterms.partly_covered(terms, words)}
    # act 1: « partiel » is two of the three words of « indemnité de chômage partiel »: counted at the share
    weight = {w: terms.weight(actterms.word_forms(w)) for w in words}
    assert found[1].coverage == pytest.approx((weight["chomage"] + actterms.PARTIAL_SHARE * weight["partiel"])
                                              / sum(weight.values()))
    assert found[1].words == ("chomage", "partiel")
    assert found[1].terms == whole[0].terms  # an act said whole keeps its whole terms
    # act 2 says half of « indemnité de chômage », but nothing its whole terms do not cover: unchanged
    assert found[2] == whole[1]
    assert [m.work for m in actterms.partly_covered(terms, words)] == [1, 2]


def test_an_act_only_partly_said_is_matched_by_its_partly_said_terms() -> None:
    terms = _index()
    words = actterms.question_words("compensation when a wolf kills sheep")
    assert terms.covered(words) == []
    found = actterms.partly_covered(terms, words)
    assert [m.work for m in found] == [6]
    assert found[0].terms == ("compens damag wolf",) and found[0].words == ("compensation", "wolf")
    assert [m.work for m in actterms.ranked(found, words)] == [6]
    # one word of the three ("wolf"): not said, even in part
    assert actterms.partly_covered(terms, actterms.question_words("who pays when a wolf kills sheep")) == []


def test_too_little_of_a_term_or_a_one_word_term_is_not_said_in_part() -> None:
    terms = _index()
    # one word of three (« salaire »): below PARTIAL_LEAST
    assert actterms.partly_covered(terms, ["salaire", "retard"]) == []
    # the share at 0 is the whole terms' answer
    words = ["indemnite", "chomage"]
    assert actterms.partly_covered(terms, words, share=0.0) == terms.covered(words)
    assert actterms.partly_covered(terms, []) == []


def test_one_rare_word_said_whole_ranks_an_act() -> None:
    terms = actterms.term_index([(6, "compensation for wolf damage", "en"), (6, "wolf", "en"), (7, "sheep farming", "en"),
                                 *((10 + i, f"damage claim {i}", "en") for i in range(actterms.RARE_WORKS + 1))])
    # "wolf": a one-word term said whole, held by one act's terms: ranked though it is the one word covered
    words = actterms.question_words("who pays when a wolf kills sheep")
    found = actterms.partly_covered(terms, words)
    rare = actterms.rare_word(terms, words)
    assert [m.work for m in found] == [6, 7]
    assert found[0].words == ("wolf",) and found[0].coverage >= actterms.MIN_COVERAGE
    assert actterms.ranked(found, words) == []
    assert [m.work for m in actterms.ranked(found, words, rare)] == [6]
    # "sheep" is said only in part (one of the two words of "sheep farming"): not a rare word said whole
    assert found[1].words == ("sheep",) and not rare(found[1])
    # "damage": held by more than RARE_WORKS acts' terms — and said in part only — never ranks an act alone
    words = actterms.question_words("damage done by storms")
    assert actterms.matches(terms, words) == []
    # a question of one content word is a keyword question, whatever its rarity
    assert actterms.matches(terms, ["wolf"]) == []


def test_a_common_word_said_whole_does_not_rank_an_act_alone() -> None:
    terms = actterms.term_index([(i, "permis", "fr") for i in range(actterms.RARE_WORKS + 1)]
                                + [(100, "permis de chasse", "fr")])
    words = actterms.question_words("permis pour les bateaux")
    rare = actterms.rare_word(terms, words)
    found = actterms.partly_covered(terms, words)
    assert found and not any(rare(m) for m in found)


def test_only_a_firm_match_may_fill_a_section_the_keywords_left_empty() -> None:
    terms = _index()
    words = actterms.question_words("indemnité de chômage partiel")
    whole = actterms.partly_covered(terms, words)[0]
    assert whole.work == 1 and actterms.firm(whole, words)  # a term said whole, three words covered
    # « chômage » said whole by a term of act 1, « partiel » in part: firm (a term said whole, two words covered)
    words = actterms.question_words("chômage partiel en hiver")
    part = next(m for m in actterms.partly_covered(terms, words) if m.work == 1)
    assert part.words == ("chomage", "partiel") and actterms.firm(part, words)
    # no term of act 1 said whole: not firm, however many words it covers in part
    words = actterms.question_words("indemnité partielle en hiver")
    part = next(m for m in actterms.partly_covered(terms, words) if m.work == 1)
    assert part.words == ("indemnite", "partielle") and not actterms.firm(part, words)
    words = actterms.question_words("compensation when a wolf kills sheep")
    assert not any(actterms.firm(m, words) for m in actterms.partly_covered(terms, words))


@pytest.fixture(scope="module")
def terms_core(fixture_indexes: FixtureBuild, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LegalCore]:
    with mounted_with_terms(fixture_indexes, tmp_path_factory, TERMS, "concept46") as core:
        yield core


def _works(answer: dict[str, Any], publisher: str) -> list[str]:
    section = next(s for s in answer["publishers"] if s["publisher"] == publisher)
    return [h["work"] for h in section.get("hits") or []]


def _answers(core: LegalCore, query: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The answer to ``query`` with terms said in part, then with the whole terms only (the share at 0)."""
    with_part = core.call("search", {"query": query})
    share = actterms.PARTIAL_SHARE
    actterms.PARTIAL_SHARE = 0.0
    try:
        whole = core.call("search", {"query": query})
    finally:
        actterms.PARTIAL_SHARE = share
    return with_part, whole


def test_a_question_saying_two_of_a_terms_three_words_reaches_the_act(terms_core: LegalCore) -> None:
    answer, whole = _answers(terms_core, "customer information")
    assert CONSUMER not in _works(whole, LU)
    assert CONSUMER in _works(answer, LU)
    hit = next(h for s in answer["publishers"] if s["publisher"] == LU for h in s["hits"] if h["work"] == CONSUMER)
    assert hit["match_reasons"] == ["act_term"]
    assert hit["matched_act_terms"] == ["customer personal information"]


def test_a_question_saying_one_of_a_terms_three_words_is_left_to_the_keywords(terms_core: LegalCore) -> None:
    answer, whole = _answers(terms_core, "customer complaints")
    assert answer["publishers"] == whole["publishers"]


def test_a_question_no_keyword_answers_stays_empty_though_it_says_half_a_term(terms_core: LegalCore) -> None:
    answer = terms_core.call("search", {"query": "zorblax gadget"})
    assert not any(s.get("hits") for s in answer["publishers"])
    assert answer["merged"] == []
