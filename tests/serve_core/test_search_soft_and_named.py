"""Issue #15, eighth pass: a comparison of two named acts where one name is *soft* (an ordinary
phrase of the corpus text, :mod:`serve.core.searchplan`: boosted, not a constraint) keeps both
acts. The boosted act's row used to be added before the named act's, and a named act's row is
added only when nothing else was found: "EMIR vs MiFIR" answered MiFIR alone. On the real fixture
corpus (``LEX_FIXTURES``); the name is made soft by the corpus-frequency test, monkeypatched.
"""

from __future__ import annotations

import pytest

from serve.core import LegalCore
from serve.core.ops import search

EU = "eu-eurlex"
GDPR, CRR = "32016r0679", "32013r0575"


def _works(core: LegalCore, query: str) -> tuple[list[str], dict[str, object]]:
    answer = core.call("search", {"query": query, "limit": 10, "publisher": EU, "fuzzy": "off"})
    section = answer["publishers"][0]
    return [h["work"].split(":")[1] for h in section.get("hits") or []], section["query_plan"]


def test_a_softly_named_act_does_not_stand_in_for_the_named_one(fixture_core: LegalCore,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    real = search.phrase_is_frequent
    monkeypatch.setattr(search, "phrase_is_frequent",
                        lambda conn, index, phrase: phrase == "gdpr" or real(conn, index, phrase))
    works, plan = _works(fixture_core, "CRR vs GDPR")
    assert plan["work_constraints"] == [f"{EU}:{CRR}"]  # GDPR is soft: boosted, not a constraint
    assert works[:2] == [CRR, GDPR] or works[:2] == [GDPR, CRR]
