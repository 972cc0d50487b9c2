"""Issue #15, neg46: the ``words_apart`` rule judges provisions (a question's two rarest subject words held
pages apart by the answer's provisions are chance), so it weighs only an answer holding a provision
(:func:`serve.core.ops.search.provision_hits`). An answer of works found by their EuroVoc labels or names
alone holds no provision to judge: it is left to the later stages, which may answer it with the act the
question is about (« qui rédige le compte rendu des réunions du comité local de prévention de la
délinquance … »: the EU labels answered, the rule emptied everything, the Legilux règlement on the
committees was never reached). On the real fixture corpus (``LEX_FIXTURES``): the Constitution's one long
German article holds "Stellungnahme" and "Rechtsnormen" far apart.
"""

from __future__ import annotations

import pytest

from serve.core import LegalCore
from serve.core.ops import search
from serve.core.ops.search import provision_hits, words_apart
from tests.serve_core.words_apart import CONSTITUTION, LU, WORDS
from tests.serve_core.words_apart import context as _ctx
from tests.serve_core.words_apart import plans as _plans


def _section(anchor: str | None, reasons: list[str]) -> dict[str, object]:
    return {"publisher": LU, "hits": [{"work": CONSTITUTION, "anchor": anchor, "match_reasons": reasons}],
            "title_coverage": 0.0}


def test_provision_hits_reads_the_anchor() -> None:
    assert provision_hits(_section("art_1", ["any_term"]))
    assert not provision_hits(_section(None, ["work_metadata"]))
    assert not provision_hits({"publisher": LU, "hits": []})


def test_an_answer_holding_a_provision_is_weighed(fixture_core: LegalCore) -> None:
    ctx, plans = _ctx(fixture_core), _plans(fixture_core)
    assert words_apart(ctx, ctx.ordered(), plans, [_section("art_1", ["any_term"])])
    assert all(p.name_not_held == {"reason": "words_apart", "words": WORDS} for p in plans.values())


def test_an_answer_of_labels_alone_is_not_weighed(fixture_core: LegalCore) -> None:
    ctx, plans = _ctx(fixture_core), _plans(fixture_core)
    assert not words_apart(ctx, ctx.ordered(), plans, [_section(None, ["work_metadata"])])
    assert all(p.name_not_held is None for p in plans.values())


def test_the_switch_off_weighs_labels_too(fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "WORDS_APART_TEXT_ONLY", False)
    ctx, plans = _ctx(fixture_core), _plans(fixture_core)
    assert words_apart(ctx, ctx.ordered(), plans, [_section(None, ["work_metadata"])])
