"""Issue #15, twenty-eighth session (rank29): a title's share of the question weighed by its words' rarity.

The ranking prior multiplies a text hit's relevance by ``1 + TITLE_BOOST × title share``. A title holding
only a word most titles hold ("grand", "ducal", "directive") was weighed up as much as one holding a rare
word of the question. :mod:`serve.core.titleidf` makes the prior's share half the plain share and half the
share weighed by each word's inverse document frequency over the works' names; works found by their
metadata alone (no BM25) keep the plain share. Real fixture corpus (``LEX_FIXTURES``) and pure checks.
"""

from __future__ import annotations

import math
import sqlite3
from collections import Counter
from typing import Any

import pytest

from serve.core import LegalCore, reorder, titleidf

LU = "lu-legilux"
#: Règlement grand-ducal du 10 février 2021 … tests de dépistage … de l'infection par virus SARS-CoV-2.
INFECTION = "lu-legilux:rgd-2021-02-10-a104"
#: Règlement grand-ducal du 18 octobre 2001 déterminant la liste des vaccinations recommandées.
VACCINATIONS = "lu-legilux:rgd-2001-10-18-n3"


def _section(answer: dict[str, Any], publisher: str) -> dict[str, Any]:
    return next(s for s in answer["publishers"] if s["publisher"] == publisher)


@pytest.fixture
def rule_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(titleidf, "TITLE_IDF", False)
    # the hand-set order without the rule (the learnt reordering, ADR 0135, weighs these works itself)
    monkeypatch.setattr(reorder, "REORDER", False)


def _order(core: LegalCore, query: str) -> list[str]:
    return [h["work"] for h in _section(core.call("search", {"query": query}), LU)["hits"]]


def test_a_title_holding_the_rare_word_comes_before_one_holding_the_common_words(fixture_core: LegalCore) -> None:
    # both regulations' titles say "grand-ducal" (most Legilux titles do); only one says "infection"
    order = _order(fixture_core, "infection grand ducal")
    assert order.index(INFECTION) < order.index(VACCINATIONS)


def test_without_the_rule_the_common_words_weigh_as_much(fixture_core: LegalCore, rule_off: None) -> None:
    # the mutation check of the test above: the plain share puts the vaccinations list first
    order = _order(fixture_core, "infection grand ducal")
    assert order.index(VACCINATIONS) < order.index(INFECTION)


def test_name_frequencies_are_read_from_the_index(fixture_indexes: Any) -> None:
    conn = sqlite3.connect(fixture_indexes.index_dir / "lu-legilux.sqlite")
    n, df = titleidf.name_df(conn)
    assert n > 0 and df["ducal"] > df["infection"] > 0
    rare, common = titleidf.group_weights([["infection"], ["grand"]], n, df)
    assert rare > common > 0


def test_group_weight_is_that_of_its_most_held_form_and_a_phrase_counts_by_its_rarest_word() -> None:
    df = Counter({"national": 99, "nationalite": 9, "salaire": 19, "minimum": 49})
    [loose] = titleidf.group_weights([["nationality", "national", "nationalite"]], 999, df)
    assert loose == pytest.approx(math.log(1000 / 100))
    [phrase] = titleidf.group_weights([["minimum wage", "salaire minimum"]], 999, df)
    assert phrase == pytest.approx(math.log(1000 / 20))


def test_whole_and_no_coverage_are_kept_and_a_partial_one_moves_by_rarity() -> None:
    groups = [["chasse"], ["permis"], ["loi"]]
    df = Counter({"chasse": 2, "permis": 300, "loi": 900})
    names = {1: frozenset({"chasse", "loi"}), 2: frozenset({"permis", "loi"}), 3: frozenset({"loi"}),
             4: frozenset({"chasse", "permis", "loi"}), 5: frozenset({"autre"})}
    coverage = {1: 0.6667, 2: 0.6667, 3: 0.3333, 4: 1.0, 5: 0.0}
    out = titleidf.weighted_coverage(coverage, names, groups, 1000, df)
    assert out[4] == 1.0 and out[5] == 0.0
    assert out[1] > coverage[1] > out[2]  # the rare word held weighs up, the common one down
    assert out[3] < coverage[3]
    weights = titleidf.group_weights(groups, 1000, df)
    rare = (weights[0] + weights[2]) / sum(weights)
    assert out[1] == round((1 - titleidf.IDF_SHARE) * coverage[1] + titleidf.IDF_SHARE * rare, 4)
    assert titleidf.IDF_SHARE == 0.5


def test_works_found_without_text_keep_the_plain_share(fixture_indexes: Any) -> None:
    conn = sqlite3.connect(fixture_indexes.index_dir / "lu-legilux.sqlite")
    rowid = dict(conn.execute("SELECT work_id, work_rowid FROM works WHERE work_id IN (?, ?)",
                              (INFECTION, VACCINATIONS)))
    a, b = rowid[INFECTION], rowid[VACCINATIONS]
    coverage = {a: 1.0, b: 0.6667}
    groups = [["infection"], ["grand"], ["ducal"]]

    def names_of(c: sqlite3.Connection, works: list[int], index: Any) -> dict[int, frozenset[str]]:
        from serve.core.ops.search import name_words
        return name_words(c, works, None)

    texted = titleidf.ranking_coverage(conn, None, coverage, groups, names_of, [a, b])
    assert texted[a] == 1.0 and texted[b] < 0.6667
    assert titleidf.ranking_coverage(conn, None, coverage, groups, names_of, [a]) == coverage
