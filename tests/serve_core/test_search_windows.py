"""Search speed without a different answer: the build's ranked windows of frequent words with their
Snowball forms, and the ``as_of`` state a search answers from.

The fixture corpora hold no word in 3,000 states (the full corpora's threshold), so the windows are
rewritten over a copy of the real Legilux fixture index with lower thresholds; every answer taken
from a window is compared with the full ranking of the same match.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from derive.index import serving
from derive.index.text import fts_query
from serve.core.ops import search
from serve.core.ops.search import (
    _FTS_SOURCE,
    Filters,
    occurrences,
    ranked_occurrences,
    snowball_variants,
)
from tests.index.pipeline import FixtureBuild


@pytest.fixture()
def windowed(fixture_indexes: FixtureBuild, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> sqlite3.Connection:
    path = tmp_path / "lu-legilux.sqlite"
    shutil.copy(fixture_indexes.index_dir / "lu-legilux.sqlite", path)
    monkeypatch.setattr(serving, "FREQUENT_DOCS", 300)
    monkeypatch.setattr(serving, "FORMS_MIN_DOCS", 30)
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM frequent_matches")
    conn.executemany("INSERT INTO frequent_matches VALUES (?,?)", list(serving._frequent_rows(conn)))
    conn.commit()
    conn.row_factory = sqlite3.Row
    return conn


def _matches(conn: sqlite3.Connection) -> list[str]:
    return [str(r[0]) for r in conn.execute("SELECT DISTINCT match FROM frequent_matches ORDER BY match")]


def test_a_word_with_its_forms_has_the_window_of_the_match_the_search_builds(windowed: sqlite3.Connection) -> None:
    grouped = [m for m in _matches(windowed) if m.startswith("(")]
    assert grouped, "no frequent word with Snowball forms in the fixture index"
    for match in grouped:
        word = match[2:].split('"', 1)[0]
        forms = snowball_variants(windowed, [word], None)
        assert fts_query([[word, *forms.get(word, [])]]) == match


def _up_to_edge_ties(rows: list[dict[str, object]]) -> tuple[list[object], list[dict[str, object]]]:
    """The scores of ``rows`` in order, and the rows scoring strictly better than the last one:
    among states tied at a window's edge score, the window's are taken (``_window_enough``)."""
    scores = [r["score"] for r in rows]
    return scores, [r for r in rows if rows and r["score"] != scores[-1]]


def test_answers_from_a_precomputed_window_equal_the_full_ranking(windowed: sqlite3.Connection,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    bm25_windows: list[str] = []
    real = search.ranked_rows

    def counted(conn: sqlite3.Connection, match: str, bm25: str, window: int) -> list[tuple[int, float]]:
        bm25_windows.append(match)
        return real(conn, match, bm25, window)

    monkeypatch.setattr(search, "ranked_rows", counted)
    matches = _matches(windowed)
    for match in matches:
        for filters in (Filters(), Filters(language="fr"), Filters(as_of="2016-01-01")):
            for limit in (10, 60, 120):
                found = ranked_occurrences(windowed, match, filters, limit)
                full = occurrences(windowed, _FTS_SOURCE, [match], filters, limit)
                assert _up_to_edge_ties(found) == _up_to_edge_ties(full), (match, filters, limit)
    # without filters, a word the build ranked needs no bm25 window at query time (unless the
    # filters leave too few of its states)
    bm25_windows.clear()
    for match in matches:
        ranked_occurrences(windowed, match, Filters(), 120)
    assert len(bm25_windows) <= len(matches) // 10


def test_as_of_search_answers_from_the_state_as_of_answers_with() -> None:
    """Overlapping publisher states (a Legilux consolidation of 2023-01-01 valid to 2023-09-16 and
    one of 2023-07-01 to the same day, as for the loi du 21 juin 1999 in the full corpus): on a
    day both cover, ``as_of`` answers with the later one (``serve.core.resolve.resolve_on``), so
    a search on that day must not return the text of the earlier one. No fixture work has such an
    overlap with text in the earlier state, hence these rows."""
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE versions(version_rowid INTEGER PRIMARY KEY, work_rowid INT, version_key TEXT, "
                 "valid_from TEXT, end_exclusive TEXT, withdrawn INT, document_type TEXT)")
    conn.executemany("INSERT INTO versions VALUES (?,?,?,?,?,?,?)", [
        (1, 1, "2023-01-01--a", "2023-01-01", "2023-09-16", 0, "LOI"),
        (2, 1, "2023-07-01--b", "2023-07-01", "2023-09-16", 0, None),
        (3, 1, "2023-09-16--c", "2023-09-16", None, 0, "LOI"),
        (4, 1, "2023-08-01--d", "2023-08-01", None, 1, "LOI"),  # withdrawn: never governs
        (5, 2, "2020-01-01--e", "2020-01-01", None, 0, "LOI"),  # another work
    ])

    def answering(day: str, document_type: str | None = None) -> list[int]:
        where, params = Filters(as_of=day, document_type=document_type).version_sql()
        return [int(r[0]) for r in conn.execute(f"SELECT v.version_rowid FROM versions v WHERE {where} "
                                                "ORDER BY v.version_rowid", params)]

    assert answering("2023-03-01") == [1, 5]
    assert answering("2023-08-01") == [2, 5]
    assert answering("2023-08-01", "LOI") == [5]  # the governing state is not of that type
    assert answering("2023-10-01") == [3, 5]


def test_pivot_restricts_only_the_groups_that_cannot_make_the_quorum_alone() -> None:
    parts = ['"union"', '"whistleblowers"', '"report"', '"law"']
    weights = [1.4, 9.7, 1.9, 11.1]
    threshold = 0.65 * sum(weights)  # 15.665: union + report + whistleblowers (13.0) never reach it
    assert search.pivot_parts(parts, weights, threshold) == [
        '("union") AND ("law")', '("whistleblowers") AND ("law")', '("report") AND ("law")', '"law"']
    assert search.pivot_parts(parts, weights, 6.0) == [  # union + report (3.3) never reach 6
        '("union") AND ("whistleblowers" OR "law")', '"whistleblowers"',
        '("report") AND ("whistleblowers" OR "law")', '"law"']
    assert search.pivot_parts(parts, weights, 0.0) == parts  # the article lane: no IDF share asked


@pytest.mark.parametrize("words", [
    "loi relative au secteur financier agrément", "protection des données à caractère personnel traitement",
    "établissements de crédit surveillance prudentielle exigences", "marchés publics procédure recours délai",
])
def test_a_pivoted_quorum_counts_the_same_rows(fixture_indexes: FixtureBuild, monkeypatch: pytest.MonkeyPatch,
                                               words: str) -> None:
    from derive.index.text import normalize

    for name in ("eu-eurlex", "lu-legilux"):
        conn = sqlite3.connect(f"file:{fixture_indexes.index_dir / (name + '.sqlite')}?mode=ro", uri=True)
        conn.row_factory = sqlite3.Row
        terms = [t for t in normalize(words).split() if len(t) > 3]
        groups = [[t, *snowball_variants(conn, [t], None).get(t, [])] for t in terms]
        for filters in (Filters(), Filters(as_of="2019-01-01")):
            pivoted = search.quorum_occurrences(conn, groups, len(groups) // 2 + 1, filters, 60)
            with monkeypatch.context() as m:
                m.setattr(search, "pivot_parts", lambda parts, weights, threshold: list(parts))
                plain = search.quorum_occurrences(conn, groups, len(groups) // 2 + 1, filters, 60)
            assert pivoted == plain, (name, words, filters)


def test_snippets_cut_from_the_head_of_a_long_text_equal_the_whole_texts(fixture_indexes: FixtureBuild,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A search decodes only the head of a stored text for its snippet; with the scan shortened to
    500 characters (so that the fixture's texts are long in comparison), every snippet the head
    decides equals the whole text's, and the head declines when it cannot decide."""
    import re

    from derive.index.textstore import read_heads, read_texts
    from serve.core import snippet as snippets

    monkeypatch.setattr(snippets, "SCAN", 500)
    decided = declined = 0
    for name in ("eu-eurlex", "lu-legilux"):
        conn = sqlite3.connect(f"file:{fixture_indexes.index_dir / (name + '.sqlite')}?mode=ro", uri=True)
        shas = [sha for (sha,) in conn.execute("SELECT lower(hex(text_sha256)) FROM texts WHERE length > 5000 "
                                               "ORDER BY text_sha256 LIMIT 150")]
        bodies = read_texts(conn, shas)
        heads = read_heads(conn, shas, 500 + 2 * snippets.WINDOW + 40)
        for sha in shas:
            text = bodies[sha]
            words = re.findall(r"\w{5,}", text)
            probes = [[words[i]] for i in (0, len(words) // 8, len(words) // 3) if words] + [["zzzqqq"]]
            head, complete = heads[sha]
            assert not complete and text.startswith(head)
            late = [[m.group()] for m in re.finditer(r"\w{5,}", text[400:500])]
            for cut, terms in [(head, t) for t in probes] + [(text[:600], t) for t in late[-1:]]:
                got = snippets.head_snippet(cut, terms)
                if got is None:
                    declined += 1
                else:
                    decided += 1
                    assert got == snippets.snippet(text, terms), (terms, name)
    assert decided > 100 and declined > 0


def _bounded_cases(conn: sqlite3.Connection) -> list[list[list[str]]]:
    """Term groups as the search builds them: a frequent word OR-ed with rarer words (its forms,
    translations), and such a group AND-ed with a rare word."""
    windowed = [m[1:-1] for m in _matches(conn) if not m.startswith("(")]
    rare = [str(t) for (t,) in conn.execute(
        "SELECT term FROM provision_vocab WHERE doc BETWEEN 2 AND 30 AND length(term) > 4 ORDER BY term")]
    mid = [str(t) for (t,) in conn.execute(
        "SELECT term FROM provision_vocab WHERE doc BETWEEN 31 AND 200 AND length(term) > 4 ORDER BY term")]
    cases: list[list[list[str]]] = []
    for i, word in enumerate(windowed[:40]):
        cases.append([[word, rare[i % len(rare)], rare[(7 * i + 3) % len(rare)]]])
        cases.append([[word, windowed[(i + 1) % len(windowed)]]])
        cases.append([[word, mid[i % len(mid)]]])
        cases.append([[word, rare[(3 * i) % len(rare)]], [rare[(5 * i + 1) % len(rare)], mid[(2 * i) % len(mid)]]])
        cases.append([[word, word, rare[(11 * i) % len(rare)]]])  # a phrase twice: its term twice
    # a word with the forms the build ranked together, then a translation the plan added
    for i, forms in enumerate([re.findall(r'"([^"]+)"', m) for m in _matches(conn) if m.startswith("(")][:40]):
        cases.append([[*forms, rare[(13 * i + 5) % len(rare)]]])
        cases.append([[*forms, mid[(3 * i + 2) % len(mid)], rare[i % len(rare)]]])
        cases.append([[*forms, rare[(7 * i) % len(rare)]], [rare[(17 * i + 9) % len(rare)]]])
    return cases


def test_a_match_ranked_from_its_phrases_windows_is_the_head_of_its_full_ranking(
        windowed: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch) -> None:
    """``bounded_window``: the states it gives are exactly the best of the whole match, with bm25's
    own scores, and every other state scores strictly worse than its last."""
    from serve.core import topk

    monkeypatch.setattr(topk, "BOUNDED_ALL", 40)
    answered = blocks = 0
    windowed_matches = set(_matches(windowed))
    for groups in _bounded_cases(windowed):
        match = fts_query(groups)
        assert match is not None
        got = topk.bounded_window(windowed, groups, match, search._BM25, 240)
        if got is None:
            continue
        answered += 1
        blocks += any(len(g) > 2 and fts_query([g[:2]]) in windowed_matches for g in groups)
        full = sorted(((int(r), float(s)) for r, s in windowed.execute(
            f"SELECT rowid, {search._BM25} FROM provision_fts WHERE provision_fts MATCH ?", (match,))),
            key=lambda rs: (rs[1], rs[0]))
        assert got == full[:len(got)], groups
        assert len(got) == 240 or len(full) == len(got) or full[len(got)][1] > got[-1][1], groups
    assert answered >= 20 and blocks >= 5


def test_answers_ranked_from_phrases_windows_equal_the_full_ranking(windowed: sqlite3.Connection,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from serve.core import topk

    monkeypatch.setattr(topk, "BOUNDED_ALL", 40)
    bounded: list[str] = []
    real = topk.bounded_window

    def counted(*args: object) -> object:
        found = real(*args)  # type: ignore[arg-type]
        if found is not None:
            bounded.append(str(args[2]))
        return found

    monkeypatch.setattr(search, "bounded_window", counted)
    for groups in _bounded_cases(windowed):
        match = fts_query(groups)
        assert match is not None
        for filters in (Filters(), Filters(language="fr"), Filters(as_of="2016-01-01")):
            for limit in (10, 60):
                found = ranked_occurrences(windowed, match, filters, limit, groups)
                full = occurrences(windowed, _FTS_SOURCE, [match], filters, limit)
                assert _up_to_edge_ties(found) == _up_to_edge_ties(full), (match, filters, limit)
    assert bounded


def test_a_match_ranked_from_its_windows_states_and_shared_states_is_the_head_of_its_full_ranking(
        windowed: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch) -> None:
    """``bounded_window``'s second try (``_bounded_shared``: the bound under the windows' own
    states' scores, the states holding a phrase without a window or several windowed parts scored
    too): what it gives is exactly the best of the whole match, every other state strictly worse."""
    from serve.core import topk

    monkeypatch.setattr(topk, "BOUNDED_ALL", 40)
    monkeypatch.setattr(topk, "BOUNDED_MIN_STATES", 0)  # the fixture's matches are small
    monkeypatch.setattr(topk, "BOUNDED_SPARE", 0)
    second: list[int] = []
    real = topk._bounded_shared

    def counted(*args: object, **kwargs: object) -> list[tuple[int, float]]:
        found = real(*args, **kwargs)  # type: ignore[arg-type]
        second.append(len(found))
        return found

    monkeypatch.setattr(topk, "_bounded_shared", counted)
    single = [m[1:-1] for m in _matches(windowed) if not m.startswith("(")]
    # several windowed words in one group (the forms and translations of one word), so states hold
    # several windowed parts
    cases = [*_bounded_cases(windowed), *([[single[i], single[(i + k) % len(single)], single[(i + 2 * k) % len(single)]]]
                                          for i in range(0, len(single), 3) for k in (1, 5))]
    for groups in cases:
        match = fts_query(groups)
        assert match is not None
        full = sorted(((int(r), float(s)) for r, s in windowed.execute(
            f"SELECT rowid, {search._BM25} FROM provision_fts WHERE provision_fts MATCH ?", (match,))),
            key=lambda rs: (rs[1], rs[0]))
        for need in (1, 30):
            got = topk._bounded(windowed, groups, match, search._BM25, 240, need)
            if not got:
                continue
            assert got == full[:len(got)], groups
            assert len(got) == 240 or len(full) == len(got) or full[len(got)][1] > got[-1][1], groups
    assert sum(1 for n in second if n) >= 10 and any(n == 0 for n in second)


def test_the_second_try_in_one_statement_gives_what_its_two_statements_give(
        windowed: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch) -> None:
    """``_shared_in_one_pass`` (a match of one group: the bound guessed under the windows' own terms,
    every state scored in one statement) gives exactly the states and doubles the two statements of
    ``_bounded_shared`` give, or leaves them to it; and it answers some of them itself."""
    from serve.core import topk

    monkeypatch.setattr(topk, "BOUNDED_ALL", 40)
    monkeypatch.setattr(topk, "BOUNDED_MIN_STATES", 0)
    monkeypatch.setattr(topk, "BOUNDED_SPARE", 0)
    real = topk._shared_in_one_pass
    answered: list[bool] = []

    def counted(*args: object, **kwargs: object) -> list[tuple[int, float]] | None:
        found = real(*args, **kwargs)  # type: ignore[arg-type]
        answered.append(found is not None)
        return found

    single = [m[1:-1] for m in _matches(windowed) if not m.startswith("(")]
    cases = [*_bounded_cases(windowed), *([[single[i], single[(i + k) % len(single)], single[(i + 2 * k) % len(single)]]]
                                          for i in range(0, len(single), 3) for k in (1, 5))]
    compared = 0
    for groups in cases:
        match = fts_query(groups)
        assert match is not None
        for need in (1, 30):
            monkeypatch.setattr(topk, "_shared_in_one_pass", counted)
            tried = len(answered)
            got = topk._bounded(windowed, groups, match, search._BM25, 240, need)
            if len(answered) == tried or not answered[-1]:
                continue  # not tried, or left to the two statements
            monkeypatch.setattr(topk, "_shared_in_one_pass", lambda *args, **kwargs: None)
            assert got == topk._bounded(windowed, groups, match, search._BM25, 240, need), groups
            compared += 1
    assert compared >= 10


def test_the_second_try_given_up_early_gives_what_it_would_have_given(
        windowed: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch) -> None:
    """``_hopeless`` (``_bounded_shared`` given up before any bm25 when the phrases without a window
    alone leave too few states) changes no answer: with it and without it, ``_bounded`` gives the
    same states and doubles; and it gives up some tries."""
    from serve.core import topk

    monkeypatch.setattr(topk, "BOUNDED_ALL", 40)
    monkeypatch.setattr(topk, "BOUNDED_MIN_STATES", 0)
    real = topk._hopeless
    gave_up: list[bool] = []

    def counted(*args: object, **kwargs: object) -> bool:
        found = real(*args, **kwargs)  # type: ignore[arg-type]
        gave_up.append(found)
        return found

    single = [m[1:-1] for m in _matches(windowed) if not m.startswith("(")]
    cases = [*_bounded_cases(windowed), *([[single[i], single[(i + k) % len(single)], single[(i + 2 * k) % len(single)]]]
                                          for i in range(0, len(single), 3) for k in (1, 5))]
    for spare in (1, 2, 4):
        monkeypatch.setattr(topk, "BOUNDED_SPARE", spare)
        for groups in cases:
            match = fts_query(groups)
            assert match is not None
            for need in (1, 30):
                monkeypatch.setattr(topk, "_hopeless", counted)
                got = topk._bounded(windowed, groups, match, search._BM25, 240, need)
                monkeypatch.setattr(topk, "_hopeless", lambda *args, **kwargs: False)
                assert got == topk._bounded(windowed, groups, match, search._BM25, 240, need), (groups, spare)
    assert any(gave_up) and not all(gave_up)


def test_counts_of_one_call_answer_as_a_count_of_their_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """``_Counts`` answers every (match, cap) as ``_count`` would, walking a match again only beyond
    the cap an earlier walk stopped at."""
    from serve.core import topk

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE provision_fts USING fts5(body)")
    conn.executemany("INSERT INTO provision_fts(body) VALUES (?)", [("alpha beta",)] * 50 + [("alpha",)] * 30)
    real = topk._count
    walks: list[tuple[str, int]] = []

    def walked(conn: sqlite3.Connection, match: str, cap: int) -> int:
        walks.append((match, cap))
        return real(conn, match, cap)

    monkeypatch.setattr(topk, "_count", walked)
    tally = topk._Counts(conn)
    for match, cap in (('"alpha"', 10), ('"alpha"', 5), ('"alpha"', 100), ('"alpha"', 7), ('"alpha"', 1000),
                       ('"beta"', 60), ('"beta"', 49), ('"beta"', 50), ('"beta"', 3)):
        assert tally(match, cap) == real(conn, match, cap), (match, cap)
    assert walks == [('"alpha"', 10), ('"alpha"', 100), ('"beta"', 60)]
