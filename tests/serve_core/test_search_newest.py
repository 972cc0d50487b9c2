"""A ranked window's occurrences joined with the index's newest live version of each state
(:func:`serve.core.ops.search.window_occurrences`) are the rows the correlated subquery of
:func:`serve.core.ops.search.occurrences` gives, under every filter, on the real fixture indexes."""

from __future__ import annotations

import sqlite3

import pytest

from serve.core.ops.search import (
    _BM25,
    Filters,
    occurrences,
    quorum_occurrences,
    window_occurrences,
)
from serve.core.topk import (
    NEWEST_VERSIONS_SQL,
    IndexConnection,
    RankedCache,
    load_newest_versions,
    values_source,
)
from tests.index.pipeline import FixtureBuild

WORDS = ("article", "loi", "directive", "member", "commission", "taxe", "conseil", "règlement")


def _connect(fixture_indexes: FixtureBuild, name: str) -> sqlite3.Connection:
    conn = sqlite3.connect(f"file:{fixture_indexes.index_dir / name}?mode=ro", uri=True, factory=IndexConnection)
    assert isinstance(conn, IndexConnection)
    conn.ranked_cache = RankedCache()
    conn.row_factory = sqlite3.Row
    return conn


def _window(conn: sqlite3.Connection, word: str, n: int) -> list[tuple[int, float]]:
    return [(int(r[0]), float(r[1])) for r in conn.execute(
        f"SELECT rowid, {_BM25} AS score FROM provision_fts WHERE provision_fts MATCH ? ORDER BY score LIMIT {n}",
        (f'"{word}"',))]


@pytest.mark.parametrize("name", ["eu-eurlex.sqlite", "lu-legilux.sqlite"])
def test_the_same_rows_as_the_correlated_subquery(fixture_indexes: FixtureBuild, name: str) -> None:
    conn = _connect(fixture_indexes, name)
    works = [int(r[0]) for r in conn.execute("SELECT work_rowid FROM works ORDER BY work_rowid LIMIT 3")]
    languages = [str(r[0]) for r in conn.execute("SELECT DISTINCT language FROM lexical_states")]
    filters = [Filters(), Filters(works=tuple(works[:1])), Filters(allowed=frozenset(works)),
               *(Filters(language=lang) for lang in languages)]
    compared = 0
    for word in WORDS:
        for n in (5, 120, 240):
            window = _window(conn, word, n)
            if not window:
                continue
            for f in filters:
                for limit in (1, 10, 120):
                    assert window_occurrences(conn, window, f, limit) == occurrences(conn, *values_source(window), f, limit)
                    compared += 1
    assert compared > 100


@pytest.mark.parametrize("name", ["eu-eurlex.sqlite", "lu-legilux.sqlite"])
def test_the_newest_versions_are_the_sorted_queries_first_rows(fixture_indexes: FixtureBuild, name: str) -> None:
    """The loader (expressions oldest version first, a newer one overwriting) gives, for every
    state, the first row of the definition's query sorted by state, then newest version."""
    conn = _connect(fixture_indexes, name)
    expected: dict[int, int] = {}
    for state, version in conn.execute(NEWEST_VERSIONS_SQL):
        expected.setdefault(int(state), int(version))
    states, versions = load_newest_versions(conn)
    assert expected and dict(zip(states, versions, strict=True)) == expected
    assert list(states) == sorted(expected)


def test_a_state_no_live_version_holds_drops_out(fixture_indexes: FixtureBuild) -> None:
    conn = _connect(fixture_indexes, "lu-legilux.sqlite")
    states, versions = load_newest_versions(conn)
    assert list(states) == sorted(set(states)) and len(states) == len(versions)
    held = conn.execute("SELECT MAX(state_rowid) FROM lexical_states").fetchone()[0]
    window = [(held + 1, -1.0), (int(states[0]), -0.5)]  # a row id no state has, then a held state
    rows = window_occurrences(conn, window, Filters(), 10)
    assert [r["state_rowid"] for r in rows] == [states[0]]
    assert rows == occurrences(conn, *values_source(window), Filters(), 10)


def test_filters_on_versions_keep_the_subquery(fixture_indexes: FixtureBuild, monkeypatch: pytest.MonkeyPatch) -> None:
    conn = _connect(fixture_indexes, "lu-legilux.sqlite")
    window = _window(conn, "loi", 120)

    def refuse(*_: object) -> None:
        raise AssertionError("the newest versions are not for a filter on versions")

    monkeypatch.setattr(RankedCache, "newest_versions", refuse)
    for f in (Filters(as_of="2010-01-01"), Filters(document_type="loi")):
        assert window_occurrences(conn, window, f, 50) == occurrences(conn, *values_source(window), f, 50)


@pytest.mark.parametrize("name", ["eu-eurlex.sqlite", "lu-legilux.sqlite"])
def test_a_quorum_gives_the_same_rows_with_and_without_the_newest_versions(fixture_indexes: FixtureBuild,
                                                                            name: str) -> None:
    held = _connect(fixture_indexes, name)
    plain = sqlite3.connect(f"file:{fixture_indexes.index_dir / name}?mode=ro", uri=True)
    plain.row_factory = sqlite3.Row
    found = 0
    for words in (["article", "commission"], ["loi", "taxe", "conseil"], ["directive", "member", "règlement"]):
        groups = [[w] for w in words]
        for limit in (1, 10, 60):
            rows = quorum_occurrences(held, groups, 2, Filters(), limit)
            assert rows == quorum_occurrences(plain, groups, 2, Filters(), limit)
            found += len(rows)
    assert found


@pytest.mark.parametrize("name", ["eu-eurlex.sqlite", "lu-legilux.sqlite"])
def test_tied_scores_order_by_newest_version_then_state(fixture_indexes: FixtureBuild, name: str) -> None:
    """The window's rows are ordered in Python (``serve.core.ops.search._window_rows``): with every
    score tied, by ``valid_from`` descending, then state — the order SQL's ``ORDER BY`` of
    :func:`occurrences` gives; a negative limit is no limit, as SQL's ``LIMIT``."""
    conn = _connect(fixture_indexes, name)
    states = [int(r[0]) for r in conn.execute("SELECT state_rowid FROM lexical_states ORDER BY state_rowid DESC LIMIT 300")]
    for window in ([(s, -1.0) for s in states], [(s, -float(i % 3)) for i, s in enumerate(states)]):
        for limit in (-1, 0, 1, 10, 120, 400):
            rows = window_occurrences(conn, window, Filters(), limit)
            assert rows == occurrences(conn, *values_source(window), Filters(), limit)
            assert [list(r) for r in rows] == [list(r) for r in occurrences(conn, *values_source(window), Filters(), limit)]
    tied = window_occurrences(conn, [(s, -1.0) for s in states], Filters(), -1)
    assert len({r["valid_from"] for r in tied}) > 1 and len(tied) > 120
    assert tied == sorted(tied, key=lambda r: (-int(r["valid_from"].replace("-", "")), r["state_rowid"]))
