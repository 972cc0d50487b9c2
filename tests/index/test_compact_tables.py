"""Format 3 stores shared values once; readers still see the format-2 columns, exactly (format 4: packed windows;
format 9: a provision's type, number and heading stored only where they are not its lexical state's).

On the real fixture indexes: the view-backed tables (``provisions``, ``citations``,
``provision_states``, ``work_metadata``) give the values the builder inserted, repeated values
are stored once, a provision whose hash is not its lexical state's is refused, and every stored
word diff rebuilds :func:`derive.index.worddiff.word_changes` of its two texts.
"""

from __future__ import annotations

import shutil
import sqlite3
import zlib
from itertools import pairwise
from pathlib import Path

import pytest

from derive.index.schema import count_sql
from derive.index.serving import stored_word_changes
from derive.index.textstore import read_texts
from derive.index.worddiff import word_changes
from tests.index.pipeline import FixtureBuild

PUBLISHERS = ("eu-eurlex", "lu-legilux")


def _open(fixture_indexes: FixtureBuild, publisher: str) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{fixture_indexes.index_dir / f'{publisher}.sqlite'}?mode=ro", uri=True)


def _one(conn: sqlite3.Connection, sql: str) -> int:
    return int(conn.execute(sql).fetchone()[0])


def _scratch(fixture_indexes: FixtureBuild, tmp_path: Path, publisher: str) -> sqlite3.Connection:
    """A writable copy of a fixture index (the build's own file is shared by the module's tests)."""
    path = tmp_path / "copy.sqlite"
    shutil.copyfile(fixture_indexes.index_dir / f"{publisher}.sqlite", path)
    return sqlite3.connect(path)


@pytest.mark.parametrize("publisher", PUBLISHERS)
def test_shared_values_are_stored_once(fixture_indexes: FixtureBuild, publisher: str) -> None:
    conn = _open(fixture_indexes, publisher)
    assert _one(conn, "SELECT COUNT(*) FROM provisions") == _one(conn, "SELECT COUNT(*) FROM provision_rows") > 0
    assert _one(conn, "SELECT COUNT(*) FROM paths") == _one(conn, "SELECT COUNT(DISTINCT path) FROM provisions")
    assert _one(conn, "SELECT COUNT(*) FROM paths") < _one(conn, "SELECT COUNT(*) FROM provision_rows")
    assert _one(conn, "SELECT COUNT(*) FROM citations") == _one(conn, "SELECT COUNT(*) FROM citation_rows")
    assert _one(conn, "SELECT COUNT(*) FROM cites") == _one(conn, (
        "SELECT COUNT(*) FROM (SELECT DISTINCT anchor, href, label, target_work_id, target_held, resolution "
        "FROM citations)"))
    assert _one(conn, "SELECT COUNT(*) FROM provision_states") == _one(conn, "SELECT COUNT(*) FROM provision_state_rows")
    assert _one(conn, "SELECT COUNT(*) FROM work_metadata") == _one(conn, "SELECT COUNT(*) FROM work_metadata_rows")
    assert _one(conn, "SELECT COUNT(*) FROM anchor_events") == _one(conn, "SELECT COUNT(*) FROM anchor_event_rows")
    # every hash a view hands out is a stored text's, and a provision's is its lexical state's
    assert _one(conn, "SELECT COUNT(*) FROM provisions p JOIN lexical_states s USING (state_rowid) "
                      "WHERE p.text_sha256 IS NOT s.text_sha256 OR p.anchor <> s.anchor") == 0
    assert _one(conn, "SELECT COUNT(*) FROM provision_states WHERE text_sha256 IS NULL OR text_sha256 NOT IN "
                      "(SELECT lower(hex(text_sha256)) FROM texts)") == 0


@pytest.mark.parametrize("publisher", PUBLISHERS)
def test_the_provisions_are_counted_as_their_rows(fixture_indexes: FixtureBuild, publisher: str) -> None:
    """The stamp's ``count.provisions`` (what a mount checks) is the view's row count, counted on the table whose
    rows the view is (:data:`derive.index.schema.COUNTED_ROWS`)."""
    conn = _open(fixture_indexes, publisher)
    stamp = dict(conn.execute("SELECT k, v FROM stamp"))
    assert count_sql("provisions") == "SELECT COUNT(*) FROM provision_rows"
    assert stamp["count.provisions"] == str(_one(conn, count_sql("provisions"))) == \
        str(_one(conn, "SELECT COUNT(*) FROM provisions"))
    assert count_sql("citations") == "SELECT COUNT(*) FROM citations"


def test_a_provision_whose_hash_is_not_its_states_is_refused(fixture_indexes: FixtureBuild, tmp_path: Path) -> None:
    conn = _scratch(fixture_indexes, tmp_path, "eu-eurlex")
    row = list(conn.execute("SELECT * FROM provisions ORDER BY expression_rowid, seq LIMIT 1").fetchone())
    row[1] = 999_999  # another seq
    with pytest.raises(sqlite3.IntegrityError, match="lexical state"):
        conn.execute("INSERT INTO provisions VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", [*row[:8], "0" * 64, *row[9:]])
    conn.execute("INSERT INTO provisions VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", row)  # its own hash: accepted
    assert conn.execute("SELECT * FROM provisions WHERE expression_rowid = ? AND seq = ?",
                        (row[0], row[1])).fetchone() == tuple(row)
    conn.close()


@pytest.mark.parametrize("publisher", PUBLISHERS)
def test_a_provision_stores_only_the_type_num_and_heading_its_state_lacks(fixture_indexes: FixtureBuild,
                                                                         publisher: str) -> None:
    """Format 9: ``provision_rows`` holds ``type``, ``num`` and ``heading`` only where ``own`` marks them as
    not the lexical state's; where stored, they differ from the state's (else they would not be)."""
    conn = _open(fixture_indexes, publisher)
    rows = conn.execute("SELECT r.own, r.type, r.num, r.heading, s.type, s.num, s.heading FROM provision_rows r "
                        "JOIN lexical_states s USING (state_rowid)").fetchall()
    assert rows
    for own, type_, num, heading, *state in rows:
        assert 0 <= own <= 7
        for bit, value, state_value in zip((1, 2, 4), (type_, num, heading), state, strict=True):
            if own & bit:
                assert value != state_value
            else:
                assert value is None
    # most provisions repeat their state's values (a state is its wording in every version that keeps it)
    assert sum(own == 0 for own, *_ in rows) > 0.9 * len(rows)


@pytest.mark.parametrize(("column", "value"), [("type", "annex"), ("num", "7 bis"), ("num", None),
                                               ("heading", "Another heading"), ("heading", None)])
def test_a_provision_keeps_its_own_type_num_and_heading(fixture_indexes: FixtureBuild, tmp_path: Path,
                                                        column: str, value: str | None) -> None:
    """A provision inserted with a value other than its state's (a NULL included) reads back as inserted;
    one with its state's values stores none of them."""
    conn = _scratch(fixture_indexes, tmp_path, "lu-legilux")
    names = ["expression_rowid", "seq", "anchor", "type", "num", "heading", "path", "article_valid_from",
             "text_sha256", "state_rowid", "span_start", "span_end"]
    first = conn.execute("SELECT * FROM provisions p WHERE num IS NOT NULL AND heading IS NOT NULL "
                         "ORDER BY expression_rowid, seq LIMIT 1").fetchone()
    assert first is not None
    same = [*first[:1], 999_998, *first[2:]]
    conn.execute("INSERT INTO provisions VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", same)
    assert conn.execute("SELECT own, type, num, heading FROM provision_rows WHERE expression_rowid = ? AND seq = ?",
                        (first[0], 999_998)).fetchone() == (0, None, None, None)
    other = list(same)
    other[1] = 999_999
    other[names.index(column)] = value
    conn.execute("INSERT INTO provisions VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", other)
    assert conn.execute("SELECT * FROM provisions WHERE expression_rowid = ? AND seq = ?",
                        (first[0], 999_999)).fetchone() == tuple(other)
    bit = {"type": 1, "num": 2, "heading": 4}[column]
    assert conn.execute("SELECT own FROM provision_rows WHERE expression_rowid = ? AND seq = ?",
                        (first[0], 999_999)).fetchone() == (bit,)
    conn.close()


@pytest.mark.parametrize("publisher", PUBLISHERS)
def test_an_anchor_events_wording_is_its_anchors_state(fixture_indexes: FixtureBuild, publisher: str) -> None:
    """Format 9: an anchor event names its wording by the lexical state of its anchor with that text."""
    conn = _open(fixture_indexes, publisher)
    rows = conn.execute("SELECT r.work_rowid, r.language, r.anchor, r.state_rowid, s.work_rowid, s.language, s.anchor, "
                        "e.text_sha256, s.text_sha256 FROM anchor_event_rows r JOIN anchor_events e "
                        "USING (work_rowid, language, seq) LEFT JOIN lexical_states s ON s.state_rowid = r.state_rowid"
                        ).fetchall()
    assert rows
    for work, language, anchor, state, s_work, s_language, s_anchor, sha, s_sha in rows:
        assert state is not None and (work, language, anchor) == (s_work, s_language, s_anchor)
        assert sha == s_sha and len(sha) == 64


def test_an_anchor_event_without_its_state_is_refused(fixture_indexes: FixtureBuild, tmp_path: Path) -> None:
    conn = _scratch(fixture_indexes, tmp_path, "lu-legilux")
    row = list(conn.execute("SELECT * FROM anchor_events ORDER BY work_rowid, language, seq LIMIT 1").fetchone())
    row[2] = 999_999  # another seq
    with pytest.raises(sqlite3.IntegrityError, match="lexical state"):
        conn.execute("INSERT INTO anchor_events VALUES (?,?,?,?,?,?,?,?)", [*row[:7], "0" * 64])
    conn.execute("INSERT INTO anchor_events VALUES (?,?,?,?,?,?,?,?)", [*row[:7], None])  # no wording: no state
    conn.execute("INSERT INTO anchor_events VALUES (?,?,?,?,?,?,?,?)", [row[0], row[1], 1_000_000, *row[3:]])
    assert conn.execute("SELECT * FROM anchor_events WHERE work_rowid = ? AND language = ? AND seq IN (?, ?) "
                        "ORDER BY seq", (row[0], row[1], 999_999, 1_000_000)).fetchall() == \
        [(*row[:7], None), (row[0], row[1], 1_000_000, *row[3:])]
    conn.close()


@pytest.mark.parametrize("publisher", PUBLISHERS)
def test_stored_word_diffs_rebuild_word_changes(fixture_indexes: FixtureBuild, publisher: str) -> None:
    conn = _open(fixture_indexes, publisher)
    pairs = conn.execute("SELECT hex(from_sha256), hex(to_sha256) FROM word_diffs").fetchall()
    assert pairs
    for before_hex, after_hex in pairs:
        before_sha, after_sha = before_hex.lower(), after_hex.lower()
        texts = read_texts(conn, [before_sha, after_sha])
        assert stored_word_changes(conn, before_sha, after_sha) == word_changes(texts[before_sha], texts[after_sha])
    assert stored_word_changes(conn, "0" * 64, "1" * 64) is None
    assert stored_word_changes(conn, "not hex", "1" * 64) is None


@pytest.mark.parametrize("publisher", PUBLISHERS)
def test_frequent_windows_are_packed_one_row_per_match(fixture_indexes: FixtureBuild, publisher: str,
                                                       tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Format 4: one ``frequent_matches`` row per match; its window unpacks to the ranked rows bm25
    gives at query time, row ids and scores exactly, best first (thresholds lowered: the fixtures
    hold no word in 3,000 states)."""
    from derive.index import serving

    path = tmp_path / f"{publisher}.sqlite"
    shutil.copy(fixture_indexes.index_dir / f"{publisher}.sqlite", path)
    monkeypatch.setattr(serving, "FREQUENT_DOCS", 300)
    monkeypatch.setattr(serving, "FORMS_MIN_DOCS", 30)
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM frequent_matches")
    conn.executemany("INSERT INTO frequent_matches VALUES (?,?)", list(serving._frequent_rows(conn)))
    matches = [str(r[0]) for r in conn.execute("SELECT match FROM frequent_matches ORDER BY match")]
    assert matches
    bm25 = "bm25(provision_fts, " + ", ".join(str(w) for w in serving_weights()) + ")"
    for match in matches[:20]:
        expected = [(int(r), float(s)) for r, s in conn.execute(
            f"SELECT rowid, {bm25} AS score FROM provision_fts WHERE provision_fts MATCH ? "
            f"ORDER BY score, rowid LIMIT {serving.FREQUENT_WINDOW}", (match,))]
        assert serving.frequent_window(conn, match, serving.FREQUENT_WINDOW) == expected
        assert serving.frequent_window(conn, match, 10) == expected[:10]
    assert serving.frequent_window(conn, "not a stored match", 10) is None
    assert serving.frequent_window(conn, matches[0], serving.FREQUENT_WINDOW + 1) is None


def serving_weights() -> tuple[float, ...]:
    from derive.index.schema import PROVISION_FTS_WEIGHTS
    return PROVISION_FTS_WEIGHTS


def test_a_packed_window_of_the_wrong_size_is_refused() -> None:
    from derive.index.serving import pack_window, unpack_window
    from legal.errors import IndexError_

    rows = [(2**40 + 7, -12.345678901234567), (3, 0.0), (2**62, -1e-300)]
    assert unpack_window(pack_window(rows), 10) == rows
    assert unpack_window(pack_window(rows), 2) == rows[:2]
    with pytest.raises(IndexError_):
        unpack_window(pack_window(rows)[:-1], 10)
    with pytest.raises(IndexError_):
        unpack_window(zlib.compress(b"0" * 17), 10)


@pytest.mark.parametrize("publisher", PUBLISHERS)
def test_matches_summed_from_their_terms_equal_fts5_ranking_each_match(fixture_indexes: FixtureBuild, publisher: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A build ranks each term once and sums a several-term match's scores from its terms' (what
    ``ORDER BY bm25, rowid LIMIT KEEP`` of the whole match gives, row ids and doubles exactly, ties
    included), and hands out each term's one-phrase bm25 of the windows' rows, as FTS5 gives them."""
    import json

    from derive.index import serving, windows
    from derive.index.text import fts_string

    monkeypatch.setattr(serving, "FREQUENT_DOCS", 300)
    monkeypatch.setattr(serving, "FORMS_MIN_DOCS", 30)
    conn = _open(fixture_indexes, publisher)
    groups, docs, _ = serving._frequent_groups(conn)
    assert any(len(ts) > 1 for _, ts in groups) and any(len(ts) == 1 for _, ts in groups)
    bm25 = "bm25(provision_fts, " + ", ".join(str(w) for w in serving_weights()) + ")"

    def hits(term: str) -> int:
        if term not in docs:
            found = conn.execute("SELECT doc FROM provision_vocab WHERE term = ?", (term,)).fetchone()
            docs[term] = int(found[0]) if found else 0
        return docs[term]

    ranked, phrase_scores = serving._rank_groups(conn, groups, bm25, hits)
    ties = 0
    for match, ts in groups:
        expected = [(int(r), float(s)) for r, s in conn.execute(
            f"SELECT rowid, {bm25} AS score FROM provision_fts WHERE provision_fts MATCH ? "
            f"ORDER BY score, rowid LIMIT {windows.KEEP}", (match,))]
        assert ranked[match] == expected, match
        ties += sum(1 for a, b in pairwise(expected) if a[1] == b[1])
        if len(ts) > 1:
            rest = windows.residual_term([hits(t) for t in ts])
            for i, t in enumerate(ts):
                if i == rest:
                    continue
                own = dict(conn.execute(
                    f"SELECT rowid, {bm25} FROM provision_fts WHERE provision_fts MATCH ? "
                    "AND +rowid IN (SELECT value FROM json_each(?))", (fts_string(t), json.dumps([r for r, _ in expected]))))
                assert {r: phrase_scores[t][r] for r, _ in expected if r in phrase_scores[t]} == own
    assert ties  # the row-id order of equal scores is exercised
