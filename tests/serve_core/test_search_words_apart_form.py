"""Issue #15, neg35: the ``words_apart`` rule (a question whose two rarest subject words no provision holds
near each other and whose hits are on works no name of which holds a query word) was never weighed when a
section's ``title_coverage`` was above 0 — and an act form the question names its act by (« loi
luxembourgeoise sur la gestation pour autrui ») is in every law's title, so the law's article holding
« gestation » and « autrui » pages apart stayed the answer. A section's title coverage now keeps the
question only when a name of a work it answers holds a *subject* word
(:func:`serve.core.ops.search.hits_titled`). On the real fixture corpus (``LEX_FIXTURES``): the
Constitution's one long German article holds "Stellungnahme" and "Rechtsnormen" far apart.
"""

from __future__ import annotations

from serve.core import LegalCore
from serve.core.ops.search import hits_titled, words_apart
from serve.core.searchplan import Plan
from tests.serve_core.words_apart import CONSTITUTION, LU, WORDS
from tests.serve_core.words_apart import context as _ctx
from tests.serve_core.words_apart import plans as _plans


def _sections(coverage: float) -> list[dict[str, object]]:
    # the section as a question naming its act by its form leaves it: the form word in the hit's title
    return [{"publisher": LU, "hits": [{"work": CONSTITUTION, "anchor": "art_1"}], "title_coverage": coverage}]


def test_a_name_holding_no_subject_word_titles_no_hit(fixture_core: LegalCore) -> None:
    ctx = _ctx(fixture_core)
    assert not hits_titled(ctx, ctx.ordered(), _sections(0.5), WORDS)
    assert hits_titled(ctx, ctx.ordered(), _sections(0.5), ["constitution"])


def test_words_apart_is_weighed_though_a_form_word_is_in_the_hits_title(fixture_core: LegalCore) -> None:
    ctx, plans = _ctx(fixture_core), _plans(fixture_core)
    assert words_apart(ctx, ctx.ordered(), plans, _sections(1 / 3))
    assert all(p.name_not_held == {"reason": "words_apart", "words": WORDS} for p in plans.values())


def test_a_hit_titled_by_a_subject_word_keeps_the_question(fixture_core: LegalCore) -> None:
    ctx = _ctx(fixture_core)
    plans = {key: Plan(terms=[*WORDS, "constitution"], article_key=None, anchor=None, mentions=[], constraints=[],
                       explicit_works=False) for key in fixture_core.indexes}
    assert not words_apart(ctx, ctx.ordered(), plans, _sections(1 / 3))
    assert all(p.name_not_held is None for p in plans.values())
