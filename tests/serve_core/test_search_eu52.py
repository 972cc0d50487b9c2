"""Issue #15, fifty-second session (eu52): acts the terms cannot tell apart (ADR 0179).

The act-term step (:func:`serve.core.ops.search.act_term_step`) ranks the acts whose reviewed terms cover the most of
a question. Two acts often cover exactly as much (a family's technical acts whose terms say the same words, an act and
its recast); the terms' order between them is their tie-break (more terms said, then the row id), not a reading of
the question. So:

- in the fusion, EUR-Lex acts covering as much as the act the terms rank first share its rank
  (:func:`serve.core.actterms.shared_ranks`, :func:`serve.core.ops.search.fusion_ranks`): the keyword order decides
  between them (not for a question naming an act's form, which the form step reads);
- (written, off: :data:`~serve.core.ops.search.TIED_NO_LEAD`) an act the terms rank no better than another act of its
  publisher takes no first place of its own
  (:func:`serve.core.ops.search.lone_best`; :func:`~serve.core.ops.search.act_term_first`,
  :func:`~serve.core.ops.search.act_term_over_first`, :func:`~serve.core.ops.search.act_term_clear_first`);
- the clear lead of the terms (:func:`~serve.core.ops.search.act_term_clear_first`) weighs each work listed before the
  act by its own terms' coverage (:func:`serve.core.ops.search.own_coverages`), not by none when the terms do not rank
  it among their first five.

The decisions are tested on built sections and small term indexes; the own coverages on the real fixture corpus
(``LEX_FIXTURES``): Regulation (EU) No 575/2013 (the CRR) and its Implementing Regulation (EU) 2015/233, whose packaged
act terms say "narrow central bank eligibility".
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from serve.core import LegalCore, actterms
from serve.core.envelope import CallContext
from serve.core.ops import search
from tests.serve_core.term_matches import section as _section
from tests.serve_core.term_matches import works as _works

EU, LU = "eu-eurlex", "lu-legilux"
OLD = "eu-eurlex:32017r0591"
NEW = "eu-eurlex:32022r1302"
BASIC = "eu-eurlex:32014l0065"
CRR = "eu-eurlex:32013r0575"
CURRENCIES = "eu-eurlex:32015r0233"


def _match(work: int, coverage: float, *words: str) -> actterms.Match[int]:
    return actterms.Match(work, coverage, tuple(words), (" ".join(words),))


@pytest.fixture
def switches() -> Iterator[None]:
    """The ADR 0179 switches on (the tie rules share the first rank only), restored after each test."""
    saved = (search.TIED_FUSION, search.TIED_NO_LEAD, search.CLEAR_OWN_COVERAGE, search.TIED_FIRST_ONLY,
             search.TIED_FORM_KEEPS)
    search.TIED_FUSION = search.TIED_NO_LEAD = search.CLEAR_OWN_COVERAGE = search.TIED_FIRST_ONLY = True
    search.TIED_FORM_KEEPS = True
    yield
    (search.TIED_FUSION, search.TIED_NO_LEAD, search.CLEAR_OWN_COVERAGE, search.TIED_FIRST_ONLY,
     search.TIED_FORM_KEEPS) = saved


# -- shared ranks in the fusion ----------------------------------------------------------------------------------------


def test_equal_coverages_share_the_best_rank() -> None:
    assert actterms.shared_ranks([0.7, 0.7, 0.5, 0.5, 0.2]) == [1, 1, 3, 3, 5]
    assert actterms.shared_ranks([0.9, 0.8]) == [1, 2]
    assert actterms.shared_ranks([]) == []


def test_a_tie_is_another_match_covering_as_much() -> None:
    best, same, less = _match(1, 0.6, "position", "limits"), _match(2, 0.6, "position", "limits"), _match(3, 0.4, "x")
    assert actterms.tied(best, [best, same]) and actterms.tied(best, [same, less])
    assert not actterms.tied(best, [best, less]) and not actterms.tied(best, [])


def test_the_keyword_order_decides_between_acts_the_terms_rank_alike() -> None:
    # the terms list OLD before NEW by their tie-break; the keywords list NEW fourth and OLD fifth
    listed = [BASIC, "a", "b", NEW, OLD]
    plain = actterms.fused(listed, [OLD, NEW])
    assert plain.index(OLD) < plain.index(NEW)  # the terms' rank 1 against rank 2 puts OLD ahead
    shared = actterms.fused(listed, [OLD, NEW], ranks=actterms.shared_ranks([0.7, 0.7]))
    assert shared.index(NEW) < shared.index(OLD) and shared[0] == BASIC


def test_fusion_ranks_follow_the_switch(switches: None) -> None:
    matched = [(OLD, 0, _match(1, 0.7, "a", "b")), (NEW, 0, _match(2, 0.7, "a", "b")), (BASIC, 0, _match(3, 0.3, "a")),
               ("eu-eurlex:x4", 0, _match(4, 0.3, "a")), (f"{LU}:loi-x", 1, _match(5, 0.3, "a"))]
    assert search.fusion_ranks(matched) == [1, 1, 3, 4, 5]  # a tie below the first keeps the terms' order
    search.TIED_FIRST_ONLY = False
    assert search.fusion_ranks(matched) == [1, 1, 3, 3, 5]  # a Legilux act shares no EUR-Lex act's rank
    # a question naming an act's form keeps the terms' order (the form step reads the form)
    assert search.fusion_ranks(matched, "anti-money laundering directive") is None
    assert search.fusion_ranks(matched, "anti-money laundering rules") == [1, 1, 3, 3, 5]
    search.TIED_FUSION = False
    assert search.fusion_ranks(matched) is None


# -- no first place for a tied act -------------------------------------------------------------------------------------


def test_lone_best_is_the_publishers_best_act_unless_another_of_it_covers_as_much(switches: None) -> None:
    tied = [(OLD, 0, _match(1, 0.7, "a", "b")), (NEW, 0, _match(2, 0.7, "a", "b"))]
    assert search.lone_best(tied, EU) is None
    # an act of the other publisher covering as much does not tie an EU act
    alone = [(OLD, 0, _match(1, 0.7, "a", "b")), (f"{LU}:loi-x", 1, _match(2, 0.7, "a", "b"))]
    assert search.lone_best(alone, EU) == (OLD, alone[0][2])
    assert search.lone_best(alone, "none") is None
    search.TIED_NO_LEAD = False
    assert search.lone_best(tied, EU) == (OLD, tied[0][2])


def test_a_tied_act_does_not_displace_a_first_work_found_by_some_words(switches: None) -> None:
    words = ["position", "limits", "commodity", "derivatives", "calculation"]
    firm = actterms.Match(1, 0.7, ("position", "limits", "commodity"), ("limit posit",))
    other = actterms.Match(2, 0.7, ("position", "limits", "commodity"), ("limit posit",))
    assert actterms.firm(firm, words)
    matched = [(OLD, 0, firm), (NEW, 0, other)]
    sections = [_section(EU, (BASIC, ["partial_terms"]), (OLD, ["act_term"]), (NEW, ["act_term"]))]
    assert not search.act_term_first(sections, matched, words, ())
    assert _works(sections[0]) == [BASIC, OLD, NEW]
    assert not search.act_term_clear_first(sections, matched, words)
    search.TIED_NO_LEAD = False
    assert search.act_term_first(sections, matched, words, ())
    assert _works(sections[0]) == [OLD, BASIC, NEW]


# -- the clear lead against the first work's own coverage ----------------------------------------------------------------


def test_the_clear_lead_weighs_a_listed_work_by_its_own_coverage(switches: None) -> None:
    best = actterms.Match(1, 0.7, ("a", "b", "c"), ("a b",))
    matched = [(OLD, 0, best), (NEW, 0, actterms.Match(2, 0.3, ("a",), ("a",)))]
    sections = [_section(EU, (BASIC, ["keyword"]), (OLD, ["act_term"]))]
    # the basic act's own terms cover 0.6 of the question: the lead of 0.1 is no clear lead
    assert not search.clear_lead(sections, matched, lambda: {BASIC: 0.6})
    assert _works(sections[0]) == [BASIC, OLD]
    # unranked and with no own coverage given, it covers none
    assert search.clear_lead(sections, matched, lambda: {})
    assert _works(sections[0]) == [OLD, BASIC]


def test_own_coverages_read_every_act_of_the_publisher(fixture_core: LegalCore, switches: None) -> None:
    ctx = CallContext("search", fixture_core.indexes, {}, 10.0)
    words = actterms.question_words("currencies narrow central bank eligibility liquidity")
    own = search.own_coverages(ctx, CURRENCIES, words)
    assert own is not None and own[CURRENCIES] > 0.5  # "narrow central bank eligibility" is one of its terms
    assert all(work.startswith(f"{EU}:") for work in own)
    search.CLEAR_OWN_COVERAGE = False
    assert search.own_coverages(ctx, CURRENCIES, words) is None
