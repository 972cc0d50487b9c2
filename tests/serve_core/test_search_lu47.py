"""Issue #15, forty-seventh session (lu47): an act the terms firmly say goes before a section's weaker first work.

The act-term step (:func:`serve.core.ops.search.act_term_step`) fuses the keyword order with the terms' order; a
keyword first work keeps first place whatever stage found it. :func:`serve.core.ops.search.act_term_first` then puts
the act the terms rank best of a section first when the fusion put it second, its evidence is firm (a term said whole,
two words covered: :func:`serve.core.actterms.firm`) and the section's first work is no term-ranked act and rests on
weaker evidence (:func:`serve.core.ops.search.weaker_first`): found through the cross-language lexicon, or by a stage
holding only some of the question's words. Sections and matches are built from fixture works and a small term index.
"""

from __future__ import annotations

from serve.core import actterms
from serve.core.ops import search
from tests.serve_core.term_matches import CONSUMER, DATA_LAW, EU, GDPR, LU
from tests.serve_core.term_matches import matched as _matched
from tests.serve_core.term_matches import section as _section
from tests.serve_core.term_matches import works as _works

QUERY = "who must protect customer personal information in shops"


def test_a_translated_keyword_first_gives_way_to_the_act_the_terms_firmly_say() -> None:
    matched, words = _matched(QUERY, {1: (CONSUMER, 0)})
    assert matched and actterms.firm(matched[0][2], words)
    sections = [_section(LU, (DATA_LAW, ["keyword", "translated"]), (CONSUMER, ["act_term"]))]
    assert search.act_term_first(sections, matched, words, {LU})
    assert _works(sections[0]) == [CONSUMER, DATA_LAW]
    assert [h["rank"] for h in sections[0]["hits"]] == [1, 2]


def test_a_hit_of_some_words_gives_way_in_a_section_searched_in_the_questions_words() -> None:
    matched, words = _matched(QUERY, {1: (CONSUMER, 1)})
    for reason in sorted(search.SOME_WORDS):
        sections = [_section(EU, (GDPR, ["keyword"])), _section(LU, (DATA_LAW, [reason]), (CONSUMER, ["act_term"]))]
        assert search.act_term_first(sections, matched, words, set())
        assert _works(sections[1]) == [CONSUMER, DATA_LAW]
        assert _works(sections[0]) == [GDPR]


def test_an_all_words_keyword_first_in_the_questions_own_language_stays() -> None:
    matched, words = _matched(QUERY, {1: (CONSUMER, 0)})
    for reasons in (["keyword"], ["relaxed"], ["stem"]):
        sections = [_section(LU, (DATA_LAW, reasons), (CONSUMER, ["act_term"]))]
        assert not search.act_term_first(sections, matched, words, set())
        assert _works(sections[0]) == [DATA_LAW, CONSUMER]


def test_a_named_act_or_a_parent_before_its_subordinate_stays_first() -> None:
    matched, words = _matched(QUERY, {1: (CONSUMER, 0)})
    for reasons in (["exact_alias"], ["contained_title", "translated"], ["article_intent"], ["parent_act"]):
        sections = [_section(LU, (DATA_LAW, reasons), (CONSUMER, ["act_term"]))]
        assert not search.act_term_first(sections, matched, words, {LU})
        assert _works(sections[0]) == [DATA_LAW, CONSUMER]


def test_without_firm_evidence_or_second_place_nothing_moves() -> None:
    # said only in part (no term said whole): not firm
    query = "customer information kept by shops"
    part, part_words = _matched(query, {1: (CONSUMER, 0)})
    assert part and not actterms.firm(part[0][2], part_words)
    sections = [_section(LU, (DATA_LAW, ["any_term", "translated"]), (CONSUMER, ["act_term"]))]
    assert not search.act_term_first(sections, part, part_words, {LU})
    # the act is third, not second
    matched, words = _matched(QUERY, {1: (CONSUMER, 0)})
    sections = [_section(LU, (DATA_LAW, ["any_term"]), (GDPR, ["any_term"]), (CONSUMER, ["act_term"]))]
    assert not search.act_term_first(sections, matched, words, {LU})
    assert _works(sections[0]) == [DATA_LAW, GDPR, CONSUMER]
    # the act the terms rank best is another publisher's
    other, _ = _matched(QUERY, {1: (GDPR, 1)})
    sections = [_section(LU, (DATA_LAW, ["any_term"]), (CONSUMER, ["act_term"]))]
    assert not search.act_term_first(sections, other, words, {LU})


def test_a_first_work_the_terms_rank_too_stays_first() -> None:
    query = "customer personal information and data protection"
    matched, words = _matched(query, {1: (CONSUMER, 0), 3: (DATA_LAW, 0)})
    assert {w for w, _, _ in matched} == {CONSUMER, DATA_LAW}
    first, second = (DATA_LAW, CONSUMER) if matched[0][0] == CONSUMER else (CONSUMER, DATA_LAW)
    sections = [_section(LU, (first, ["any_term", "translated"]), (second, ["act_term"]))]
    assert not search.act_term_first(sections, matched, words, {LU})
    assert _works(sections[0]) == [first, second]


def test_weaker_first_reads_the_reasons() -> None:
    assert search.weaker_first({"match_reasons": ["keyword", "translated"]}, True)
    assert not search.weaker_first({"match_reasons": ["keyword"]}, False)
    assert search.weaker_first({"match_reasons": ["partial_terms"]}, False)
    assert not search.weaker_first({"match_reasons": ["exact_identifier", "any_term"]}, False)
    assert not search.weaker_first({}, False)


def test_a_section_first_found_by_some_words_weighs_the_terms_as_a_translated_one() -> None:
    assert search.some_words_first({"hits": [{"match_reasons": ["any_term"]}, {"match_reasons": ["keyword"]}]})
    assert not search.some_words_first({"hits": [{"match_reasons": ["keyword"]}, {"match_reasons": ["any_term"]}]})
    assert not search.some_words_first({"hits": [{"match_reasons": ["contained_alias", "partial_terms"]}]})
    assert not search.some_words_first({"hits": []})
    matched, _ = _matched(QUERY, {1: (CONSUMER, 1)})
    assert search.fusion_weights(matched, {1}) == [actterms.CROSS_WEIGHT]
    assert search.fusion_weights(matched, {0}) == [actterms.WEIGHT]
    # with the cross-language weight an act the keywords did not list is dealt second, where act_term_first may
    # put it first; with the plain weight it comes after the keywords' third
    listed = [DATA_LAW, "lu-legilux:a", "lu-legilux:b", "lu-legilux:c"]
    assert actterms.fused(listed, [CONSUMER], weight=search.fusion_weights(matched, {1}))[1] == CONSUMER
    assert actterms.fused(listed, [CONSUMER], weight=search.fusion_weights(matched, set())).index(CONSUMER) > 2
