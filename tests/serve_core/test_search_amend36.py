"""Issue #15, amend36: a subordinate EU act asked by its own subject, its parent asked by the field.

An EU delegated, implementing or amending act's official title says what the act itself lays down after
the act it acts on: "… implementing Directive 2003/6/EC … *as regards exemptions for buy-back programmes
and stabilisation of financial instruments*" (:func:`serve.core.ranking.own_subject`). A question that
singles that subject out asks for the subordinate act, which the role prior
(:data:`serve.core.ranking.ROLE_PRIOR`) otherwise weighs below its parent
(:func:`serve.core.ops.search.own_over_principal`).

On the real fixture corpus (``LEX_FIXTURES``): the titles are the fixture works' own.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from serve.core import LegalCore, ranking
from serve.core.ops import search
from serve.core.searchplan import Plan

EU = "eu-eurlex"


def _fixture_titles(slug: str) -> list[str]:
    root = Path(os.environ.get("LEX_FIXTURES", "")) / "lex-corpus-eu-eurlex" / "works" / slug
    if not (root / "meta.json").is_file():
        pytest.skip("LEX_FIXTURES not available")
    titles: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "title" and isinstance(value, str):
                    titles.append(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    for path in sorted(root.rglob("*.json")):
        walk(json.loads(path.read_text(encoding="utf-8")))
    return list(dict.fromkeys(titles))


def _section(core: LegalCore, query: str, publisher: str, **args: Any) -> dict[str, Any]:
    answer = core.call("search", {"query": query, **args})
    return dict(next(s for s in answer["publishers"] if s["publisher"] == publisher))


def test_an_implementing_acts_own_subject_is_its_title_after_the_act_it_implements() -> None:
    words = ranking.own_subject_words(_fixture_titles("32003r2273"))
    assert frozenset({"exemptions", "buy", "back", "programmes", "stabilisation", "financial",
                      "instruments"}) in words  # English: "… as regards exemptions for buy-back programmes …"
    assert any({"derogations", "programmes", "rachat", "stabilisation"} <= w for w in words)  # « en ce qui concerne »
    # the title the publisher cut at the act it implements says no own subject
    assert ranking.own_subject("Commission Regulation (EC) No 2273/2003 of 22 December 2003 implementing "
                               "Directive 2003/6/EC") is None


def test_an_amending_acts_own_subject_leaves_out_the_acts_it_amends_and_the_eea_mark() -> None:
    words = ranking.own_subject_words(_fixture_titles("32020d1071"))
    english = next(w for w in words if "switzerland" in w)
    assert english == frozenset({"exclusion", "incoming", "flights", "switzerland", "emissions", "trading",
                                 "system"})
    # a title cut at the act it amends says none
    assert ranking.own_subject("Commission Delegated Decision (EU) 2020/1071 of 18 May 2020 amending Directive "
                               "2003/87/EC") is None


def test_a_subordinate_acts_title_naming_no_act_is_its_own_subject() -> None:
    own = ranking.own_subject("Commission Implementing Regulation (EU) 2020/1294 of 15 September 2020 on the Union "
                              "renewable energy financing mechanism")
    assert own == "on the union renewable energy financing mechanism"


def test_a_subject_said_before_the_act_it_acts_on_is_the_own_subject() -> None:
    own = ranking.own_subject("Commission Implementing Regulation (EU) 2026/1778 of 16 July 2026 laying down the "
                              "implementation arrangements for the digital product passport registry set up under "
                              "Regulation (EU) 2024/1781 of the European Parliament and of the Council")
    assert own == "the implementation arrangements for the digital product passport registry set up under regulation eu"


def test_a_purpose_clause_opens_the_own_subject() -> None:
    # "to extend …" / « en vue de prolonger … »: the acts extending one facility share that subject
    assert ranking.own_subject("Council Directive 2004/15/EC of 10 February 2004 amending Directive 77/388/EEC to "
                               "extend the facility allowing Member States to apply reduced VAT rates to certain "
                               "labour-intensive services") == ("the facility allowing member states to apply reduced "
                                                                "vat rates to certain labour intensive services")


def _profile(role: str) -> ranking.WorkProfile:
    return ranking.WorkProfile("in_force", role, "secondary", "")


def test_only_a_subject_the_question_singles_out_lifts_the_role_prior() -> None:
    profiles = {1: _profile("delegated"), 2: _profile("delegated"), 3: _profile("principal")}
    # one act's own subject said clearly more than any other's, and more than the principal act's
    assert search.own_over_principal({1: 0.8, 2: 0.4}, {3: 0.5}, profiles) == {1: 0.8}
    # two acts of one subject (a list amended every year): titles cannot tell them apart
    assert search.own_over_principal({1: 0.8, 2: 0.7}, {3: 0.0}, profiles) == {}
    # an amending act repeating its parent's subject: the parent's title says it as well
    assert search.own_over_principal({1: 0.8}, {3: 0.8}, profiles) == {}
    # half of a subject is not the subject
    assert search.own_over_principal({1: 0.5}, {}, profiles) == {}
    assert search.own_over_principal({}, {}, profiles) == {}


def test_the_lifted_prior_is_a_principal_acts() -> None:
    delegated = _profile("delegated")
    assert search.own_subject_prior(delegated, 0.8) * delegated.prior() == pytest.approx(1.0)
    assert search.own_subject_prior(delegated, 0.3) == 1.0
    assert search.own_subject_prior(_profile("principal"), 1.0) == 1.0
    assert search.own_subject_prior(_profile("corrigendum"), 1.0) == 1.0


def _keyword(work: int, score: float) -> search.Hit:
    return search.Hit({"work_rowid": work, "anchor": "art_1", "score": score, "bm25": score}, ["keyword"])


def test_an_implementing_act_asked_by_its_own_subject_comes_before_its_parent(fixture_indexes: Any) -> None:
    # the CRR (575/2013) and its implementing technical standards on currencies with an extremely narrow
    # definition of central bank eligibility (2015/233), both in the fixture index; the CRR's provision
    # holds the words with a better BM25 score, as the principal act's text does
    conn = sqlite3.connect(f"file:{fixture_indexes.index_dir / 'eu-eurlex.sqlite'}?mode=ro", uri=True)
    try:
        profiles = ranking.load_profiles(conn)
        rowid = {slug: int(w) for w, slug in conn.execute("SELECT work_rowid, slug FROM works")}
        crr, its = rowid["32013r0575"], rowid["32015r0233"]
        assert profiles[crr].role == "principal" and profiles[its].role == "implementing"
        groups = [[w] for w in ("currencies", "extremely", "narrow", "definition", "central", "bank", "eligibility")]
        own = search.works_own_subject_precision(conn, [crr, its], groups, profiles)
        coverage = search.works_title_coverage(conn, [crr, its], groups)
        precision = search.works_subject_precision(conn, [crr, its], groups)
    finally:
        conn.close()
    assert crr not in own and own[its] >= ranking.OWN_SUBJECT_SAID
    lifted = search.own_over_principal(own, precision, profiles)
    assert lifted == {its: own[its]}
    plan = Plan(terms=[g[0] for g in groups], article_key=None, anchor=None, mentions=[], constraints=[],
                explicit_works=False)
    # the CRR's provision holds the words with a BM25 score that, weighed by its names (title coverage and
    # subject, measured on the fixture index), falls between the standards' with and without the role prior
    def named(work: int) -> float:
        return (1 + search.TITLE_BOOST * coverage.get(work, 0.0)) * (1 + search.SUBJECT_BOOST * precision.get(work, 0.0))

    parent_score = 16.0 * named(its) * 0.85 / named(crr)
    hits = [_keyword(crr, -parent_score), _keyword(its, -16.0)]
    options = search.LaneOptions(limit=10)
    ranked = search.rank_hits(hits, profiles, plan, options, coverage, precision, own=lifted)
    assert [h.row["work_rowid"] for h in ranked] == [its, crr]
    # without its own subject the role prior keeps the implementing act under the principal act
    ranked = search.rank_hits(hits, profiles, plan, options, coverage, precision)
    assert [h.row["work_rowid"] for h in ranked] == [crr, its]
