"""Issue #15, thirtieth session (cover30): a work's body coverage of the question, off by default.

A conceptual question's words are often spread over several articles of the act that answers it.
:mod:`serve.core.coverage` reads, for the first candidate works of a section's ranking, which of the
question's term groups each holds in any provision, and weighs the work's ranking prior by the share
of the groups' IDF mass it holds. Measured on the full corpora it did not pay (docs/retrieval-benchmark.md
§8.49): :data:`serve.core.coverage.COVERAGE` is off. Real fixture corpus (``LEX_FIXTURES``) and pure checks.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from derive.index.text import fts_query
from serve.core import LegalCore, coverage
from serve.core.ops import search

EU = "eu-eurlex"
#: TFEU (2016 consolidation), art. 115: the Council's directives for the approximation of laws
#: affecting the internal market.
ART_115 = "eu-eurlex:12016e115"
#: TFEU, art. 113: the harmonisation of turnover taxes (for the internal market).
ART_113 = "eu-eurlex:12016e113"
QUERY = "rapprochement des dispositions législatives marché intérieur"


@pytest.fixture
def coverage_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(coverage, "COVERAGE", True)


def _order(core: LegalCore, query: str) -> list[str]:
    answer = core.call("search", {"query": query})
    return [h["work"] for h in next(s for s in answer["publishers"] if s["publisher"] == EU)["hits"]]


def _conn(fixture_indexes: Any, name: str) -> sqlite3.Connection:
    return sqlite3.connect(fixture_indexes.index_dir / f"{name}.sqlite")


def _rowid(conn: sqlite3.Connection, work: str) -> int:
    return int(conn.execute("SELECT work_rowid FROM works WHERE slug = ?", (work.split(":", 1)[1],)).fetchone()[0])


def test_the_article_holding_every_word_over_its_provisions_comes_first_with_coverage_on(
        fixture_core: LegalCore, coverage_on: None) -> None:
    order = _order(fixture_core, QUERY)
    assert order.index(ART_115) < order.index(ART_113)


def test_off_by_default_the_ranking_is_mains(fixture_core: LegalCore) -> None:
    # the mutation check of the test above: without the coverage factor, article 113 comes first
    assert coverage.COVERAGE is False
    order = _order(fixture_core, QUERY)
    assert order.index(ART_113) < order.index(ART_115)


def test_off_by_default_no_coverage_statement_runs(fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: Any) -> dict[int, float | None]:
        raise AssertionError("body coverage read with the switch off")

    monkeypatch.setattr(coverage, "body_coverage", refuse)
    fixture_core.call("search", {"query": QUERY + " coverage off"})


def test_a_question_naming_a_work_is_not_weighed(fixture_core: LegalCore, coverage_on: None,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    real = coverage.body_coverage

    def spy(*args: Any) -> dict[int, float | None]:
        seen.append(1)
        return real(*args)

    monkeypatch.setattr(coverage, "body_coverage", spy)
    fixture_core.call("search", {"query": QUERY, "works": [ART_113]})
    assert not seen
    fixture_core.call("search", {"query": QUERY + " marchés"})
    assert seen  # the spy is reached when the question names no work


def test_the_holders_agree_with_a_recount_over_each_works_states(fixture_indexes: Any) -> None:
    conn = _conn(fixture_indexes, "eu-eurlex")
    works = [_rowid(conn, ART_115), _rowid(conn, ART_113),
             *[int(r[0]) for r in conn.execute("SELECT DISTINCT work_rowid FROM lexical_states LIMIT 12")]]
    bounds = coverage.state_bounds(conn, works)
    for group in (["rapprochement"], ["marche", "marches"], ["interieur"], ["legislatives", "legislative"]):
        match = "{heading text} : (" + str(fts_query([group])) + ")"
        recount = {int(r[0]) for r in conn.execute(
            "SELECT DISTINCT s.work_rowid FROM lexical_states s WHERE s.state_rowid IN "
            "(SELECT rowid FROM provision_fts WHERE provision_fts MATCH ?)", (match,))} & set(bounds)
        assert coverage.holders(conn, bounds, group) == recount


def test_the_share_is_the_held_groups_idf_mass(fixture_indexes: Any) -> None:
    conn = _conn(fixture_indexes, "eu-eurlex")
    works = [_rowid(conn, ART_115), _rowid(conn, ART_113)]
    groups = [["rapprochement"], ["dispositions"], ["legislatives"], ["marche"], ["interieur"]]
    weights = search.idf_weights(conn, groups)
    shares = coverage.body_coverage(conn, works, groups, weights)
    bounds = coverage.state_bounds(conn, works)
    for work in works:
        held = sum(w for g, w in zip(groups, weights, strict=True) if work in coverage.holders(conn, bounds, g))
        assert shares[work] == pytest.approx(held / sum(weights), abs=1e-6)
    assert shares[works[0]] > shares[works[1]]  # article 115 holds « rapprochement », 113 does not


def test_one_group_or_none_is_not_weighed(fixture_indexes: Any) -> None:
    conn = _conn(fixture_indexes, "eu-eurlex")
    works = [_rowid(conn, ART_115)]
    assert coverage.body_coverage(conn, works, [["rapprochement"]], [3.0]) == {}
    assert coverage.body_coverage(conn, [], [["rapprochement"], ["marche"]], [3.0, 2.0]) == {}


def test_a_work_not_read_gets_the_lowest_factor_and_one_without_text_the_highest() -> None:
    shares: dict[int, float | None] = {1: 0.25, 2: 1.0, 3: None}
    w = coverage.COVERAGE_WEIGHT
    assert coverage.factor(shares, 1) == pytest.approx(1 + w * 0.25)
    assert coverage.factor(shares, 9) == pytest.approx(1 + w * 0.25)  # not read: cannot rise
    assert coverage.factor(shares, 3) == pytest.approx(1 + w * 1.0)  # text not held: says nothing
    assert coverage.factor({}, 1) == 1.0
    assert coverage.moves_order(shares) and not coverage.moves_order({1: 0.5, 2: 0.5, 3: None})


def test_chance_grows_with_the_works_provisions_and_the_words_frequency() -> None:
    assert coverage.chance(5.0, 0) == 0.0
    assert coverage.chance(5.0, 10) < coverage.chance(5.0, 1000) < 1.0
    assert coverage.chance(1.0, 10) > coverage.chance(5.0, 10)
