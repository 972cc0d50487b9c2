"""Issues #14/#15, fifth pass: a cold search's CPU, the same answers — a ranked window joined over
the states that can answer only (no filter on states), its rows built from plain tuples, and a
stored text's snippet cut from the smallest head that decides it. On the real fixture indexes
(``LEX_FIXTURES``); the old paths are the reference."""

from __future__ import annotations

import sqlite3

import pytest

from derive.index.text import normalize
from derive.index.textstore import read_texts, stored_texts
from serve.core import snippet as snippets
from serve.core.ops import search
from serve.core.ops.search import (
    FIRST_HEAD_BYTES,
    VALUES_STEP,
    Filters,
    at_most,
    occurrences,
    text_snippets,
    window_occurrences,
)
from serve.core.topk import NewestVersions, values_source
from tests.index.pipeline import FixtureBuild
from tests.serve_core.test_search_newest import (  # the same fixture connection and FTS window
    _connect,
    _window,
)

WORDS = ("article", "loi", "directive", "member", "commission", "taxe", "conseil", "règlement", "état")
QUESTIONS = ("liste des intéressés", "dispositions applicables", "protection données", "marchés publics",
             "article", "directive", "annexe", "tableau", "zzzz", "the", "")


def _reference(conn: sqlite3.Connection, window: list[tuple[int, float]], f: Filters, limit: int) -> list[dict[str, object]]:
    """The correlated subquery's rows, built from ``sqlite3.Row`` as before."""
    state_where, state_params = f.state_sql()
    version_where, version_params = f.version_sql()
    source, params = values_source(window)
    query = (
        "WITH m AS MATERIALIZED (SELECT s.state_rowid, s.work_rowid, s.language, s.anchor, s.text_sha256, s.num, s.heading, s.type, "
        "mm.score AS score, (SELECT e.version_rowid FROM provisions p "
        "JOIN expressions e ON e.expression_rowid = p.expression_rowid "
        "JOIN versions v ON v.version_rowid = e.version_rowid "
        f"WHERE p.state_rowid = s.state_rowid AND {version_where} "
        "ORDER BY v.valid_from DESC, v.version_key DESC LIMIT 1) AS version_rowid "
        f"FROM {source} mm JOIN lexical_states s ON s.state_rowid = mm.state_rowid WHERE {state_where}) "
        "SELECT m.*, v.lex_id, v.version_key, v.valid_from, v.valid_to, v.end_exclusive, v.document_type "
        "FROM m JOIN versions v ON v.version_rowid = m.version_rowid "
        "ORDER BY m.score, v.valid_from DESC, m.state_rowid LIMIT ?")
    return [dict(r) for r in conn.execute(query, [*version_params, *params, *state_params, limit])]


@pytest.mark.parametrize("name", ["eu-eurlex.sqlite", "lu-legilux.sqlite"])
def test_the_trimmed_window_gives_the_rows_of_the_whole_one(fixture_indexes: FixtureBuild, name: str) -> None:
    conn = _connect(fixture_indexes, name)
    works = [int(r[0]) for r in conn.execute("SELECT work_rowid FROM works ORDER BY work_rowid LIMIT 3")]
    filters = [Filters(), Filters(language="fr"), Filters(works=tuple(works[:1])), Filters(as_of="2015-06-01")]
    compared = trimmed = 0
    for word in WORDS:
        for n in (3, 31, 33, 128, 240):
            window = _window(conn, word, n)
            if not window:
                continue
            for f in filters:
                for limit in (1, 2, 10, 32, 120, 300):
                    got = window_occurrences(conn, window, f, limit)
                    assert got == _reference(conn, window, f, limit), (word, n, f, limit)
                    assert got == occurrences(conn, *values_source(window), f, limit)
                    compared += 1
                    trimmed += f == Filters() and len(window) > limit
    assert compared > 300 and trimmed > 50


def test_ties_at_the_edge_are_kept() -> None:
    rows = [(1, -3.0, 10), (2, -2.0, 10), (3, -2.0, 11), (4, -1.0, 12), (5, -2.0, 13)]
    assert at_most(rows, 2) == [(1, -3.0, 10), (2, -2.0, 10), (3, -2.0, 11), (5, -2.0, 13)]
    assert at_most(rows, 1) == [(1, -3.0, 10)]
    assert at_most(rows, 5) == rows and at_most(rows, 9) == rows
    assert at_most([(7, -1.0, 1), (8, -1.0, 2)], 1) == [(7, -1.0, 1), (8, -1.0, 2)]
    assert at_most(rows, 0) == rows and at_most(rows, -1) == rows  # SQLite's LIMIT -1: no limit


def test_no_limit_and_a_zero_limit_are_those_of_the_whole_window(fixture_indexes: FixtureBuild) -> None:
    conn = _connect(fixture_indexes, "eu-eurlex.sqlite")
    window = _window(conn, "article", 240)
    for limit in (0, -1):
        assert window_occurrences(conn, window, Filters(), limit) == _reference(conn, window, Filters(), limit)
    assert len(window_occurrences(conn, window, Filters(), -1)) > 100


def test_a_state_without_a_lexical_row_falls_back_to_the_whole_window(
        fixture_indexes: FixtureBuild, monkeypatch: pytest.MonkeyPatch) -> None:
    conn = _connect(fixture_indexes, "lu-legilux.sqlite")
    window = _window(conn, "loi", 240)
    assert len(window) > 20
    expected = occurrences(conn, *values_source(window), Filters(), 10)
    missing = conn.execute("SELECT MAX(state_rowid) FROM lexical_states").fetchone()[0] + 1
    version = conn.execute("SELECT MIN(version_rowid) FROM versions").fetchone()[0]
    joined = NewestVersions.joined

    def with_a_stray_state(self: NewestVersions, rows: list[tuple[int, float]]) -> list[tuple[int, float, int]]:
        # a newest version for a state no lexical row holds, scoring best: the trimmed join loses it
        return [(missing, -1e9, version), *joined(self, rows)]

    monkeypatch.setattr(NewestVersions, "joined", with_a_stray_state)
    assert window_occurrences(conn, window, Filters(), 10) == expected


def test_the_id_lists_are_padded_to_few_statement_texts(fixture_indexes: FixtureBuild) -> None:
    conn = _connect(fixture_indexes, "eu-eurlex.sqlite")
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    for n in range(1, 70):
        window = _window(conn, "article", n)
        assert window_occurrences(conn, window, Filters(language="fr"), 200) == _reference(
            conn, window, Filters(language="fr"), 200)
    conn.set_trace_callback(None)
    for table in ("FROM lexical_states s WHERE s.state_rowid IN (", "FROM versions WHERE version_rowid IN ("):
        # the trace shows the bound values: the list's length is the statement's number of parameters
        texts = {s.split(table, 1)[1].split(")", 1)[0].count(",") + 1 for s in seen if table in s}
        assert texts and all(k % VALUES_STEP == 0 for k in texts) and len(texts) <= 3, (table, texts)


def test_rows_as_dicts_are_those_of_sqlite_rows(fixture_indexes: FixtureBuild) -> None:
    conn = _connect(fixture_indexes, "lu-legilux.sqlite")
    query = "SELECT state_rowid, work_rowid, anchor, num, heading, text_sha256 FROM lexical_states ORDER BY state_rowid LIMIT ?"
    got = search._dicts(conn, query, [500])
    assert got == [dict(r) for r in conn.execute(query, [500])] and len(got) == 500
    assert conn.row_factory is sqlite3.Row  # the connection's own factory is left alone


def _long_texts(conn: sqlite3.Connection, limit: int) -> list[tuple[str, str]]:
    shas = [sha for sha, _, _ in sorted(stored_texts(conn), key=lambda t: (-t[1], t[0]))[:limit]]
    found = read_texts(conn, shas)
    return [(sha, found[sha]) for sha in shas]


@pytest.mark.parametrize("name", ["eu-eurlex.sqlite", "lu-legilux.sqlite"])
@pytest.mark.parametrize(("first", "head"), [(FIRST_HEAD_BYTES, snippets.HEAD), (2_000, snippets.HEAD),
                                             (2_000, snippets.SCAN + 60)])
def test_snippets_from_the_smallest_deciding_head_are_those_of_the_whole_text(
        fixture_indexes: FixtureBuild, monkeypatch: pytest.MonkeyPatch, name: str, first: int, head: int) -> None:
    # smaller heads than the search's send more texts to the second and third reads
    monkeypatch.setattr(search, "FIRST_HEAD_BYTES", first)
    monkeypatch.setattr(search, "HEAD", head)
    conn = _connect(fixture_indexes, name)
    longest = _long_texts(conn, 150)
    assert sum(len(t.encode()) > first for _, t in longest) >= (first < FIRST_HEAD_BYTES)
    questions = [[w for w in normalize(q).split()] for q in QUESTIONS]
    # words found only past the first head (the window closes beyond it): the second or third read
    late = sorted({w for _, t in longest[:20] for w in normalize(t[snippets.SCAN - 300:snippets.SCAN]).split()
                   if len(w) > 5})[:5]
    for words in [*questions, *([w] for w in late)]:
        got = text_snippets(conn, [sha for sha, _ in longest], words)
        assert got == {sha: snippets.snippet(text, words) for sha, text in longest}, words
    assert text_snippets(conn, ["0" * 64], ["loi"]) == {}


def test_a_blank_text_is_still_blank() -> None:
    for blank in ("", " ", "\n\t  \u00a0", " " * 30_000):
        assert snippets.snippet(blank, ["loi"]) == ""
        assert snippets.head_snippet(blank, ["loi"]) is None
    assert snippets.snippet(" loi ", ["loi"]) == "loi"


def test_each_term_searched_alone_finds_the_first_word_start_of_any(fixture_indexes: FixtureBuild) -> None:
    """:func:`serve.core.snippet._earliest` (each term's pattern, its word-start check after its first
    letter) against the one alternation of :func:`serve.core.snippet._lower_terms`."""
    conn = _connect(fixture_indexes, "lu-legilux.sqlite")
    bodies = [t for _, t in _long_texts(conn, 60)]
    edges = ["loi", "_loi", "2loi", "\nloi", "a loi", "éloi", "loi\n", "l'loi", "", " " * 5 + "loi", "loiloi loi"]
    words = sorted({w for t in bodies[:10] for w in normalize(t[:3_000]).split() if len(w) >= 3})
    sets = [("loi",), ("loi", "xyz"), ("zzz",), *((w,) for w in words[:40]),
            *(tuple(words[i:i + 3]) for i in range(0, min(len(words), 90), 3))]
    compared = 0
    for text in [*bodies, *edges]:
        lowered = text[:snippets.SCAN].lower()
        for terms in sets:
            kept = snippets._shortest(terms)
            expected = snippets._lower_terms(kept).search(lowered)
            assert snippets._earliest(lowered, kept) == (expected.start() if expected else None), (terms, text[:40])
            compared += 1
    assert compared > 2_000
