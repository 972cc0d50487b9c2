"""Issue #15, seventh pass: the principal act first on Legilux. A law or code before the
regulations executing it and the other texts (collective agreements, assemblies' rules:
:data:`serve.core.ranking.HIERARCHY_PRIOR`), a *texte coordonné* ranked as the compilation it is, and
a work whose many provisions hold the question weighed up (:func:`serve.core.ops.search.breadth_factor`).
On the real fixture corpus (``LEX_FIXTURES``) where it covers the rule.
"""

from __future__ import annotations

import math

import pytest

from serve.core import LegalCore, ranking, titleidf
from serve.core.ops import search

LU = "lu-legilux"


def test_the_hierarchy_weighs_a_law_before_a_regulation_and_other_texts() -> None:
    law = ranking.WorkProfile("in_force", "principal", "law", "Loi du …")
    regulation = ranking.WorkProfile("in_force", "principal", "regulation", "Règlement grand-ducal du …")
    other = ranking.WorkProfile("in_force", "principal", "other", "Convention collective …")
    eu = ranking.WorkProfile("in_force", "principal", "secondary", "Regulation (EU) …")
    assert law.prior() == eu.prior() == 1.0
    assert law.prior() > regulation.prior() == ranking.HIERARCHY_PRIOR["regulation"] > other.prior()


def test_a_coordinated_text_is_a_compilation() -> None:
    assert ranking.role_of("tc-2014-01-29-n2", "TC", ["Texte coordonné de la loi du 12 septembre 2003"]) \
        == "compilation"
    assert ranking.role_of("loi-2003-09-12-n1", "LOI", ["Loi du 12 septembre 2003 relative …"]) == "principal"


def test_breadth_grows_with_the_rows_and_stops_at_its_full_count() -> None:
    assert search.breadth_factor(0) == search.breadth_factor(1) == 1.0
    values = [search.breadth_factor(n) for n in (2, 4, 8, 16, 32, search.BREADTH_FULL)]
    assert values == sorted(values) and len(set(values)) == len(values)
    assert search.breadth_factor(search.BREADTH_FULL) == search.breadth_factor(10 * search.BREADTH_FULL) \
        == 1.0 + search.BREADTH_BOOST
    assert math.isclose(search.breadth_factor(8), 1.0 + search.BREADTH_BOOST * 0.5)


def _order(core: LegalCore, query: str) -> list[str]:
    answer = core.call("search", {"query": query, "limit": 10, "publisher": LU})
    return [h["work"].split(":")[1] for s in answer["publishers"] for h in s.get("hits") or []]


def test_a_law_comes_before_a_regulation_that_matches_about_as_well(fixture_core: LegalCore,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # "durée de travail": the law of 6 January 2023 and a grand-ducal regulation of 2020 hold the
    # words about as well; the regulation led before the hierarchy prior and the breadth weight
    law, regulation = "loi-2023-01-06-a16", "rgd-2020-06-20-a537"
    # with the plain title share: each title holds one of the two words (the law's names "travail", the
    # regulation's "durée"); weighed by rarity (serve.core.titleidf, rank29) the regulation's rarer word
    # decides the near-tie this test isolates the hierarchy prior and the breadth weight on
    monkeypatch.setattr(titleidf, "TITLE_IDF", False)
    now = _order(fixture_core, "durée de travail")
    assert now.index(law) < now.index(regulation)
    monkeypatch.setattr(ranking, "HIERARCHY_PRIOR", {})
    monkeypatch.setattr(search, "BREADTH_BOOST", 0.0)
    before = _order(fixture_core, "durée de travail")
    assert before.index(regulation) < before.index(law)
