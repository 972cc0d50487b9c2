"""Issue #15, twenty-third session (search23): two query-path rules for plain-word questions.

- A section whose few provisions holding every word are on works named by none of the question's
  subject words holds them by chance (:func:`chance_hits`): it keeps no other section from being
  relaxed on its own (class "empty").
- An untitled act the any-word relaxation finds stays on subject when the headings of its hit
  provisions together hold two of the question's subject words (:func:`with_headings`; class
  "off-subject"); one word is not enough.

On the real fixture corpus (``LEX_FIXTURES``), with pure checks of each predicate beside.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from serve.core import LegalCore
from serve.core.ops import search
from serve.core.ops.search import (
    Hit,
    _relax_beside_untitled,
    chance_hits,
    heading_groups,
    with_headings,
)

EU, LU = "eu-eurlex", "lu-legilux"
CRR = "eu-eurlex:32013r0575"


def _section(answer: dict[str, Any], publisher: str) -> dict[str, Any]:
    return next(s for s in answer["publishers"] if s["publisher"] == publisher)


def test_a_section_beside_provisions_holding_every_word_by_chance_is_relaxed_on_its_own(
        fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    # one Legilux provision (an arrêté of 1909, named by none of the words) holds "loi", "sociétés"
    # and "commerciales": it no longer keeps the EU section from being relaxed on its own; relaxed,
    # the EU section's any-word hits are on acts named by none of the words and are left out, and the
    # section says so (before: an empty section with no reason). The fixture sample holds no law on
    # commercial companies, so the question names none there, and one article of the fixture's Consumer Code
    # holds the words too: the code rule (ADR 0188) would put the code first; off here
    monkeypatch.setattr(search, "CODE_BODY", False)
    answer = fixture_core.call("search", {"query": "loi sur les sociétés commerciales", "fuzzy": "off"})
    lu, eu = _section(answer, LU), _section(answer, EU)
    assert lu["hits"][0]["match_reasons"] == ["keyword"]
    assert eu["hits"] == [] and eu["relaxation_withheld"]["reason"] == "off_subject"


def _answered(reasons: list[str], works: int = 1) -> dict[str, Any]:
    return {"publisher": EU, "outcome": "succeeded", "title_coverage": 0.2,
            "hits": [{"work": f"{EU}:w{k}", "anchor": "art_1", "match_reasons": reasons} for k in range(works)]}


def test_chance_hits_are_few_all_words_hits_on_works_named_by_none_of_the_words() -> None:
    assert chance_hits(_answered(["keyword"]), 0.0)
    assert not chance_hits(_answered(["keyword"]), 0.25)  # a work named by a subject word
    assert not chance_hits(_answered(["keyword"]), None)  # no direct hit
    assert not chance_hits(_answered(["keyword"], works=5), 0.0)  # five provisions: not by chance
    assert not chance_hits(_answered(["partial_terms"]), 0.0)  # no provision holds every word
    empty = {"publisher": LU, "outcome": "empty", "hits": [], "title_coverage": None}
    relaxed = {**_answered(["any_term"]), "publisher": LU}
    indexes = [SimpleNamespace(publisher=SimpleNamespace(value=p)) for p in (EU, LU)]
    plans = {p: SimpleNamespace(terms=["vendeur", "reparer", "remplacer", "produit"]) for p in (EU, LU)}
    sections = [_answered(["keyword"]), empty]
    assert _relax_beside_untitled(sections, indexes, plans, lambda i: relaxed) == sections  # type: ignore[arg-type]
    assert _relax_beside_untitled(sections, indexes, plans, lambda i: relaxed,  # type: ignore[arg-type]
                                  lambda s: s is sections[0]) == [sections[0], relaxed]


def test_an_untitled_act_whose_hit_headings_hold_two_subject_words_stays_on_subject(fixture_core: LegalCore) -> None:
    # the CRR's title names none of the words; its article 49 is headed "Requirement for deduction
    # where consolidation, supplementary supervision or institutional protection schemes are applied"
    answer = fixture_core.call("search", {"query": "supplementary supervision of groups combining banks and "
                                                   "insurance companies", "fuzzy": "off"})
    eu = _section(answer, EU)
    assert [h["work"] for h in eu["hits"]] == [CRR] and eu["hits"][0]["match_reasons"] == ["any_term"]
    assert eu["relaxation_withheld"] is None and eu["query_relaxed"]["reason"] == "any_term"
    # one heading word is not enough: "Feasibility report on the integrated reporting system" holds
    # "report" only, and the CRR stays off subject for a question on reporting a cyber incident
    answer = fixture_core.call("search", {"query": "how fast must a cybersecurity incident be reported to the "
                                                   "authority", "fuzzy": "off"})
    eu = _section(answer, EU)
    assert eu["hits"] == [] and eu["relaxation_withheld"]["reason"] == "off_subject"


def test_headings_count_distinct_subject_words_over_a_works_hits() -> None:
    groups = [["bourse", "bourses"], ["pret", "prets"], ["universite"]]
    assert heading_groups("Prêts", groups) == {1}
    assert heading_groups(None, groups) == set()

    def hit(work: int, heading: str) -> Hit:
        return Hit({"work_rowid": work, "heading": heading}, ["any_term"])

    two = with_headings([hit(7, "Bourses"), hit(7, "Prêts"), hit(8, "Prêts")], groups, {})
    assert two == {7: 0.01}
    titled = {8: 0.5}
    assert with_headings([hit(8, "Bourses et prêts")], groups, titled) is titled  # already titled
    assert with_headings([hit(9, "Règles et prêts")], [["regles"], *groups], {}) == {}  # a frame word does not count
