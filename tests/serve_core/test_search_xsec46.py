"""Issue #15, forty-sixth session (xsec46): firm act-term evidence decides which section comes first.

The act-term step (:func:`serve.core.ops.search.act_term_step`) deals the fused order back into the sections;
:func:`serve.core.ops.search.act_term_lead` then puts the second section first when the act the terms rank first
is its first work, a term of it said whole (:func:`serve.core.actterms.firm`), at least
:data:`serve.core.ops.search.LEAD_MARGIN` of coverage ahead of the first section's best term-matched act, and the
first section's first work is no term-matched act. What :func:`serve.core.ops.search.order_sections` decides for
reasons the terms cannot judge stays: a directive asked, Luxembourg's own law asked, a first section whose works
every word of the question names. Sections and matches are built from fixture works and a small term index.
"""

from __future__ import annotations

from typing import Any

from serve.core import actterms
from serve.core.ops import search
from tests.serve_core.term_matches import CONSUMER, DATA_LAW, EU, GDPR, LU
from tests.serve_core.term_matches import matched as _matched


def _sections(eu: list[str], lu: list[str], **first: Any) -> list[dict[str, Any]]:
    return [{"publisher": EU, "hits": [{"work": w} for w in eu], "title_coverage": 0.4, **first},
            {"publisher": LU, "hits": [{"work": w} for w in lu], "title_coverage": 0.2}]


def _publishers(sections: list[dict[str, Any]]) -> list[str]:
    return [s["publisher"] for s in sections]


def test_the_section_holding_the_firmly_matched_act_comes_first() -> None:
    query = "who must protect customer personal information in shops"
    matched, words = _matched(query, {1: (CONSUMER, 1)})
    assert matched and actterms.firm(matched[0][2], words)
    sections = _sections([GDPR], [CONSUMER, DATA_LAW])
    assert search.act_term_lead(sections, matched, words, query)
    assert _publishers(sections) == [LU, EU]


def test_the_order_stays_when_the_first_sections_act_is_matched_too_or_not_far_behind() -> None:
    query = "customer personal information and personal data"
    matched, words = _matched(query, {1: (CONSUMER, 1), 2: (GDPR, 0)})
    assert matched[0][0] == CONSUMER
    # the first section's first work is a term-matched act
    sections = _sections([GDPR], [CONSUMER])
    assert not search.act_term_lead(sections, matched, words, query)
    assert _publishers(sections) == [EU, LU]
    # another of the first section's acts is matched within LEAD_MARGIN of the second section's
    close = [(w, p, m) for w, p, m in matched if p == 1] + [
        ("eu-eurlex:32000l0031", 0, actterms.Match(2, matched[0][2].coverage - search.LEAD_MARGIN / 2, ("personal",),
                                                  ("data person",)))]
    sections = _sections([GDPR], [CONSUMER])
    assert not search.act_term_lead(sections, close, words, query)
    assert _publishers(sections) == [EU, LU]


def test_the_order_stays_without_firm_evidence_in_the_second_sections_first_work() -> None:
    query = "who must protect customer personal information in shops"
    matched, words = _matched(query, {1: (CONSUMER, 1)})
    # the act is not the second section's first work
    sections = _sections([GDPR], [DATA_LAW, CONSUMER])
    assert not search.act_term_lead(sections, matched, words, query)
    # the act the terms rank first is in the first section already
    matched0, _ = _matched(query, {1: (GDPR, 0)})
    assert not search.act_term_lead(_sections([GDPR], [CONSUMER]), matched0, words, query)
    # said only in part (no term said whole): not firm
    query = "customer information kept by shops"
    part, part_words = _matched(query, {1: (CONSUMER, 1)})
    assert part and not actterms.firm(part[0][2], part_words)
    sections = _sections([GDPR], [CONSUMER])
    assert not search.act_term_lead(sections, part, part_words, query)
    assert _publishers(sections) == [EU, LU]


def test_what_order_sections_decides_for_other_reasons_stays() -> None:
    # a question asking for a directive keeps EUR-Lex first
    query = "directive on customer personal information"
    matched, words = _matched(query, {1: (CONSUMER, 1)})
    sections = _sections([GDPR], [CONSUMER])
    assert not search.act_term_lead(sections, matched, words, query)
    assert _publishers(sections) == [EU, LU]
    # a first section whose best works every word of the question names
    query = "who must protect customer personal information in shops"
    matched, words = _matched(query, {1: (CONSUMER, 1)})
    sections = _sections([GDPR], [CONSUMER], title_coverage=1.0)
    assert not search.act_term_lead(sections, matched, words, query)
    assert _publishers(sections) == [EU, LU]
    # a question asking for Luxembourg's own law may put Legilux first, never EUR-Lex
    query = "Luxembourg law on customer personal information"
    matched, words = _matched(query, {1: (GDPR, 1)})
    sections = [_sections([CONSUMER], [])[1] | {"hits": [{"work": DATA_LAW}]}, _sections([GDPR], [])[0]]
    assert not search.act_term_lead(sections, matched, words, query)


def test_an_answer_with_one_section_or_an_empty_section_keeps_its_order() -> None:
    query = "who must protect customer personal information in shops"
    matched, words = _matched(query, {1: (CONSUMER, 1)})
    assert not search.act_term_lead(_sections([], [CONSUMER]), matched, words, query)
    assert not search.act_term_lead(_sections([GDPR], [CONSUMER])[:1], matched, words, query)
    assert not search.act_term_lead(_sections([GDPR], [CONSUMER]), [], words, query)
