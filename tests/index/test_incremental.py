"""Incremental builds: one changed work is deleted and re-inserted; the result has the content of a full build."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from corpus_tree import CorpusTree
from derive.index import serving, succession, terms, windows
from derive.index.build import (
    WORK_KEYS_SCHEMA,
    BuildResult,
    build_from_paths,
    windows_path,
    work_keys_path,
)
from derive.index.serving import unpack_window
from derive.index.verify import verify_index
from derive.index.windows import load as load_windows
from legal.ids import Publisher
from tests.index.pipeline import BUILT_AT, FixtureBuild


def _drop_one_version(source: Path, target: Path) -> str:
    """A copy of a dataset without the provision rows of one version (the first lex id, in file order,
    of a work that has more than one version with rows)."""
    shutil.copytree(source, target)
    rows = (source / "provisions.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    by_work: dict[str, list[str]] = {}
    for line in rows:
        value = json.loads(line)
        by_work.setdefault(value["work_id"], [])
        if value["lex_id"] not in by_work[value["work_id"]]:
            by_work[value["work_id"]].append(value["lex_id"])
    dropped = next(ids[0] for _, ids in sorted(by_work.items()) if len(ids) > 1)
    kept = [line for line in rows if json.loads(line)["lex_id"] != dropped]
    (target / "provisions.jsonl").write_text("".join(kept), encoding="utf-8")
    (target / "provisions.parquet").unlink(missing_ok=True)
    return dropped


def _slug(fixture: FixtureBuild, lex_id: str) -> str:
    conn = sqlite3.connect(fixture.index_dir / "lu-legilux.sqlite")
    try:
        return str(conn.execute("SELECT w.slug FROM versions v JOIN works w USING (work_rowid) WHERE v.lex_id = ?",
                                (lex_id,)).fetchone()[0])
    finally:
        conn.close()


def _build(fixture: FixtureBuild, dataset: Path, out: Path, previous: Path | None = None) -> BuildResult:
    return build_from_paths(Publisher.LEGILUX, CorpusTree.open(fixture.trees["lu"]), dataset, out,
                            built_at=BUILT_AT, previous=previous)


def _fts_content(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every FTS entry (term, rowid, column, offset) and the fuzzy vocabulary: equal means equal search answers."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.pi USING fts5vocab(main, provision_fts, 'instance')")
        conn.execute("CREATE VIRTUAL TABLE temp.wi USING fts5vocab(main, work_fts, 'instance')")
        return {"provision_fts": conn.execute("SELECT * FROM temp.pi ORDER BY 1, 2, 3, 4").fetchall(),
                "work_fts": conn.execute("SELECT * FROM temp.wi ORDER BY 1, 2, 3, 4").fetchall(),
                "vocabulary": conn.execute("SELECT * FROM vocabulary ORDER BY term").fetchall(),
                "term_stems": conn.execute("SELECT * FROM term_stems ORDER BY 1, 2, 3").fetchall(),
                "docsize": conn.execute("SELECT * FROM provision_fts_docsize ORDER BY id").fetchall()}
    finally:
        conn.close()


def _serving_content(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """The serving tables' rows (``word_diffs`` kept and topped up by an incremental build, the others refilled)."""
    conn = sqlite3.connect(path)
    try:
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall()
                for t in ("serving_states", "serving_coverage", "word_diffs", "frequent_matches")}
    finally:
        conn.close()


def _work_digests(path: Path) -> list[tuple[object, ...]]:
    """The per-work digests (format 7): an incremental build recomputes only the changed works' rows."""
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT * FROM work_digests ORDER BY 1").fetchall()
    finally:
        conn.close()


def test_one_changed_work_gives_the_full_build_content(fixture_indexes: FixtureBuild, tmp_path: Path) -> None:
    changed = tmp_path / "dataset-lu"
    dropped = _drop_one_version(fixture_indexes.datasets["lu"], changed)
    full = _build(fixture_indexes, changed, tmp_path / "full")
    incremental = _build(fixture_indexes, changed, tmp_path / "incremental", previous=fixture_indexes.index_dir)

    assert incremental.metrics["mode"] == "incremental"
    assert incremental.metrics["works_changed"] == 1
    assert incremental.metrics["changed"] == [_slug(fixture_indexes, dropped)]
    # Not byte-identical: FTS5's structure record counts the segment writes (the delete and insert
    # passes), so the FTS shadow pages differ; every content row, every FTS entry and the stamp are equal.
    assert incremental.stamp == full.stamp  # content digest, counters, inputs
    assert _fts_content(incremental.index_path) == _fts_content(full.index_path)
    assert _serving_content(incremental.index_path) == _serving_content(full.index_path)
    assert _work_digests(incremental.index_path) == _work_digests(full.index_path) != []
    assert verify_index(incremental.index_path).ok
    # The previous index is left as it was.
    assert verify_index(fixture_indexes.index_dir / "lu-legilux.sqlite").ok


def test_unchanged_inputs_change_no_work(fixture_indexes: FixtureBuild, tmp_path: Path) -> None:
    again = _build(fixture_indexes, fixture_indexes.datasets["lu"], tmp_path, previous=fixture_indexes.index_dir)
    assert again.metrics["mode"] == "incremental"
    assert again.metrics["works_changed"] == 0
    before = json.loads((fixture_indexes.index_dir / "lu-legilux.stamp.json").read_text(encoding="utf-8"))
    assert again.stamp == before["stamp"]


def test_an_index_of_another_publisher_is_not_updated(fixture_indexes: FixtureBuild, tmp_path: Path) -> None:
    eu = tmp_path / "prev" / "lu-legilux.sqlite"
    eu.parent.mkdir()
    shutil.copyfile(fixture_indexes.index_dir / "eu-eurlex.sqlite", eu)
    result = _build(fixture_indexes, fixture_indexes.datasets["lu"], tmp_path / "out", previous=eu.parent)
    assert result.metrics["mode"] == "full"
    assert "incremental_refused" in result.metrics


def test_one_changed_work_reads_only_its_rows(fixture_indexes: FixtureBuild, tmp_path: Path) -> None:
    """With the sidecar of the previous index (work keys read from the dataset's bytes), every
    unchanged work is kept without reading its rows; the content is still a full build's."""
    first = _build(fixture_indexes, fixture_indexes.datasets["lu"], tmp_path / "first")
    sidecar = work_keys_path(tmp_path / "first", "lu-legilux")
    recorded = json.loads(sidecar.read_bytes())
    assert recorded["schema"] == WORK_KEYS_SCHEMA and recorded["index_sha256"] == first.index_sha256
    works = len(recorded["works"])
    changed = tmp_path / "dataset-lu"
    dropped = _drop_one_version(fixture_indexes.datasets["lu"], changed)
    full = _build(fixture_indexes, changed, tmp_path / "full")
    incremental = _build(fixture_indexes, changed, tmp_path / "incremental", previous=tmp_path / "first")
    assert incremental.metrics["mode"] == "incremental"
    assert incremental.metrics["changed"] == [_slug(fixture_indexes, dropped)]
    assert incremental.metrics["works_unread"] == works - 1
    assert incremental.stamp == full.stamp
    assert _fts_content(incremental.index_path) == _fts_content(full.index_path)
    assert _serving_content(incremental.index_path) == _serving_content(full.index_path)
    assert _work_digests(incremental.index_path) == _work_digests(full.index_path) != []
    assert verify_index(incremental.index_path).ok
    # its own sidecar names the new file, for the next run
    assert json.loads(work_keys_path(tmp_path / "incremental", "lu-legilux").read_bytes())["index_sha256"] == \
        incremental.index_sha256


def test_a_sidecar_of_another_file_is_ignored(fixture_indexes: FixtureBuild, tmp_path: Path) -> None:
    first = _build(fixture_indexes, fixture_indexes.datasets["lu"], tmp_path / "first")
    sidecar = work_keys_path(tmp_path / "first", "lu-legilux")
    recorded = json.loads(sidecar.read_bytes())
    sidecar.write_text(json.dumps({**recorded, "index_sha256": "0" * 64}), encoding="utf-8")
    changed = tmp_path / "dataset-lu"
    _drop_one_version(fixture_indexes.datasets["lu"], changed)
    again = _build(fixture_indexes, changed, tmp_path / "again", previous=tmp_path / "first")
    assert again.metrics["mode"] == "incremental" and again.metrics["works_unread"] == 0
    assert again.metrics["works_changed"] == 1
    assert again.stamp == _build(fixture_indexes, changed, tmp_path / "full").stamp
    assert first.index_sha256 != again.index_sha256


def _frequent(path: Path) -> dict[str, list[tuple[int, float]]]:
    conn = sqlite3.connect(path)
    try:
        return {str(m): unpack_window(bytes(b), 10**6) for m, b in conn.execute("SELECT match, body FROM frequent_matches")}
    finally:
        conn.close()


@pytest.fixture
def small_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Thresholds the fixtures reach: many frequent matches (word forms among them), short windows
    and a short kept list, so that windows change members when one version goes or comes back."""
    monkeypatch.setattr(serving, "FREQUENT_DOCS", 40)
    monkeypatch.setattr(serving, "FORMS_MIN_DOCS", 5)
    monkeypatch.setattr(serving, "FREQUENT_WINDOW", 8)
    monkeypatch.setattr(windows, "KEEP", 20)


@pytest.mark.usefixtures("small_windows")
def test_frequent_windows_brought_up_to_date_equal_a_full_build(fixture_indexes: FixtureBuild, tmp_path: Path) -> None:
    """An incremental build brings most windows up to date from the kept bm25 inputs (not ranked by
    FTS5 again); every ``frequent_matches`` row equals a full build's, byte for byte, both when one
    version's states leave the windows and when they come back into them."""
    full_before = _build(fixture_indexes, fixture_indexes.datasets["lu"], tmp_path / "before")
    changed = tmp_path / "dataset-lu"
    _drop_one_version(fixture_indexes.datasets["lu"], changed)
    full_after = _build(fixture_indexes, changed, tmp_path / "after")
    before, after = _frequent(full_before.index_path), _frequent(full_after.index_path)
    assert len(before) > 20
    assert any(len(v) == 8 for v in before.values())
    assert any(len(ts) > 1 for ts in (m.split(" OR ") for m in before))  # word-form matches
    # the change moves windows' members, not only their scores
    assert any([r for r, _ in before[m]] != [r for r, _ in after.get(m, [])] for m in before)
    for previous, dataset, full in ((tmp_path / "before", changed, full_after),
                                    (tmp_path / "after", fixture_indexes.datasets["lu"], full_before)):
        out = tmp_path / f"inc-{previous.name}"
        incremental = _build(fixture_indexes, dataset, out, previous=previous)
        assert incremental.metrics["mode"] == "incremental"
        facts = incremental.metrics["frequent_windows"]
        assert isinstance(facts, dict) and facts["updated"] > facts.get("fallback_bound", 0)
        assert _serving_content(incremental.index_path) == _serving_content(full.index_path)
        assert incremental.stamp == full.stamp
        # the kept inputs are those a full build keeps for the windows it ranked alike
        kept = load_windows(windows_path(out, "lu-legilux"), incremental.index_sha256)
        assert kept is not None and kept.totals == load_windows(
            windows_path(full.index_path.parent, "lu-legilux"), full.index_sha256).totals  # type: ignore[union-attr]


@pytest.mark.usefixtures("small_windows")
def test_kept_inputs_give_back_every_fts5_score(fixture_indexes: FixtureBuild, tmp_path: Path) -> None:
    """Every kept row's bm25, recomputed in Python from its weighted hits and size, is the double
    FTS5's bm25 gives it, and the kept rows are FTS5's best rows in its order."""
    full = _build(fixture_indexes, fixture_indexes.datasets["lu"], tmp_path / "full")
    kept = load_windows(windows_path(tmp_path / "full", "lu-legilux"), full.index_sha256)
    assert kept is not None and kept.matches
    conn = sqlite3.connect(full.index_path)
    try:
        bm25 = "bm25(provision_fts, 10.0, 4.0, 6.0, 1.0)"
        avgdl = kept.totals[1] / kept.totals[0]
        for match, inputs in kept.matches.items():
            fts = conn.execute(f"SELECT rowid, {bm25} AS s FROM provision_fts WHERE provision_fts MATCH ? "
                               "ORDER BY s, rowid LIMIT ?", (match, len(inputs.ids))).fetchall()
            idfs = [windows.idf(kept.totals[0], h) for h in inputs.hits]
            rows = zip(inputs.ids.tolist(), inputs.sizes.tolist(), inputs.freqs.tolist(), strict=True)
            mine = [(r, windows.score(fs, d, idfs, avgdl)) for r, d, fs in rows]
            assert mine == [(int(r), float(s)) for r, s in fts], match
            # the vectorised scores are the scalar ones
            assert windows.scores(inputs.freqs, inputs.sizes, idfs, avgdl).tolist() == [s for _, s in mine]
    finally:
        conn.close()


@pytest.mark.usefixtures("small_windows")
def test_a_windows_sidecar_of_another_file_or_damaged_ranks_every_match(fixture_indexes: FixtureBuild,
                                                                         tmp_path: Path) -> None:
    first = _build(fixture_indexes, fixture_indexes.datasets["lu"], tmp_path / "first")
    sidecar = windows_path(tmp_path / "first", "lu-legilux")
    kept = load_windows(sidecar, first.index_sha256)
    assert kept is not None and load_windows(sidecar, "0" * 64) is None
    changed = tmp_path / "dataset-lu"
    _drop_one_version(fixture_indexes.datasets["lu"], changed)
    full = _build(fixture_indexes, changed, tmp_path / "full")
    for n, body in enumerate((windows.dump(kept, "0" * 64), sidecar.read_bytes()[:-9])):
        sidecar.write_bytes(body)
        assert load_windows(sidecar, first.index_sha256) is None
        again = _build(fixture_indexes, changed, tmp_path / f"again{n}", previous=tmp_path / "first")
        facts = again.metrics["frequent_windows"]
        assert facts == full.metrics["frequent_windows"]  # {"ranked": every match}, as a full build
        assert _serving_content(again.index_path) == _serving_content(full.index_path)


def _kept_terms(out: Path, result: BuildResult) -> terms.Terms | None:
    return terms.load(terms.path_of(out, "lu-legilux"), result.index_sha256, serving.groups_recipe())


@pytest.mark.usefixtures("small_windows")
def test_an_incremental_build_reading_only_the_changed_rows_terms_equals_a_full_build(
        fixture_indexes: FixtureBuild, tmp_path: Path) -> None:
    """With the previous build's frequent terms and groups beside its index, an incremental build
    reads the row counts of the rewritten rows' terms only (not every term) and computes the groups
    of the affected terms only; ``vocabulary``, ``term_stems``, every FTS entry, every serving row,
    the stamp and the kept terms and groups are a full build's, both when one version's rows go and
    when they come back."""
    full_before = _build(fixture_indexes, fixture_indexes.datasets["lu"], tmp_path / "before")
    changed = tmp_path / "dataset-lu"
    _drop_one_version(fixture_indexes.datasets["lu"], changed)
    full_after = _build(fixture_indexes, changed, tmp_path / "after")
    kept_before, kept_after = _kept_terms(tmp_path / "before", full_before), _kept_terms(tmp_path / "after", full_after)
    assert kept_before is not None and kept_after is not None
    # the change moves counts of kept terms, and groups with word forms
    assert any(kept_after.docs.get(t) != d for t, d in kept_before.docs.items())
    assert kept_before.groups != kept_after.groups
    assert any(len(ts) > 1 for gs in kept_before.groups.values() for _, ts in gs)
    for previous, dataset, full, kept in ((tmp_path / "before", changed, full_after, kept_after),
                                          (tmp_path / "after", fixture_indexes.datasets["lu"], full_before, kept_before)):
        out = tmp_path / f"inc-{previous.name}"
        incremental = _build(fixture_indexes, dataset, out, previous=previous)
        assert incremental.metrics["mode"] == "incremental" and incremental.metrics["works_changed"] == 1
        read = incremental.metrics["terms_read"]
        assert isinstance(read, int) and 0 < read < len(_fts_terms(full.index_path))
        assert incremental.stamp == full.stamp
        assert _fts_content(incremental.index_path) == _fts_content(full.index_path)
        assert _serving_content(incremental.index_path) == _serving_content(full.index_path)
        mine = _kept_terms(out, incremental)
        assert mine is not None and (mine.docs, mine.groups) == (kept.docs, kept.groups)
        assert verify_index(incremental.index_path).ok


@pytest.mark.usefixtures("small_windows")
def test_an_incremental_build_with_its_sidecars_is_the_one_without_them_byte_for_byte(
        fixture_indexes: FixtureBuild, tmp_path: Path) -> None:
    """The kept terms and groups (:mod:`derive.index.terms`) and the kept successive pairs
    (:mod:`derive.index.succession`) change what an incremental build reads, never what it writes:
    from the same previous index, with and without them, the index files are equal byte for byte
    (``word_diffs`` rows deleted and appended in the same order), and so are the kept counts."""
    full = _build(fixture_indexes, fixture_indexes.datasets["lu"], tmp_path / "before")
    bare = tmp_path / "bare"
    bare.mkdir()
    shutil.copyfile(full.index_path, bare / full.index_path.name)
    shutil.copyfile(work_keys_path(tmp_path / "before", "lu-legilux"), work_keys_path(bare, "lu-legilux"))
    shutil.copyfile(windows_path(tmp_path / "before", "lu-legilux"), windows_path(bare, "lu-legilux"))
    changed = tmp_path / "dataset-lu"
    _drop_one_version(fixture_indexes.datasets["lu"], changed)
    kept = _build(fixture_indexes, changed, tmp_path / "kept", previous=tmp_path / "before")
    walked = _build(fixture_indexes, changed, tmp_path / "walked", previous=bare)
    assert (kept.metrics["pairs_walked"], walked.metrics["pairs_walked"]) == (1, "all")
    assert isinstance(kept.metrics["terms_read"], int) and walked.metrics["terms_read"] == "all"
    assert kept.index_path.read_bytes() == walked.index_path.read_bytes()
    assert succession.load(succession.path_of(tmp_path / "kept", "lu-legilux"), kept.index_sha256) == \
        succession.load(succession.path_of(tmp_path / "walked", "lu-legilux"), walked.index_sha256) != {}
    # the pairs the change removes and adds: some stored pair goes, and the version's pairs come back
    before, after = _serving_content(full.index_path)["word_diffs"], _serving_content(kept.index_path)["word_diffs"]
    assert set(before) - set(after)
    back = _build(fixture_indexes, fixture_indexes.datasets["lu"], tmp_path / "back", previous=tmp_path / "kept")
    assert back.metrics["pairs_walked"] == 1
    assert _serving_content(back.index_path) == _serving_content(full.index_path)


def test_kept_pair_counts_follow_the_works_holding_each_pair(tmp_path: Path) -> None:
    """A pair is gone only when no work holds it any more; a sidecar of another file or damaged is not read."""
    a, b, c = ("a" * 64, "b" * 64), ("b" * 64, "c" * 64), ("c" * 64, "d" * 64)
    counts = succession.count([[a, b, a], [a], [c]])
    assert counts == {a: 2, b: 1, c: 1}
    assert succession.recount(counts, [[a, b]], [[b]]) == ({a: 1, b: 1, c: 1}, set())
    assert succession.recount(counts, [[a, b], [c]], [[b, b]]) == ({a: 1, b: 1}, {c})
    path = tmp_path / ".lu-legilux.pairs.z"
    succession.write(path, counts, "1" * 64)
    assert succession.load(path, "1" * 64) == counts
    assert succession.load(path, "0" * 64) is None
    path.write_bytes(path.read_bytes()[:-3])
    assert succession.load(path, "1" * 64) is None
    succession.write(path, {}, "1" * 64)
    assert not path.exists()


def _fts_terms(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return [str(t) for (t,) in conn.execute("SELECT term FROM provision_vocab")]
    finally:
        conn.close()


@pytest.mark.usefixtures("small_windows")
def test_a_terms_sidecar_missing_stale_damaged_or_of_another_recipe_reads_every_term(
        fixture_indexes: FixtureBuild, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The kept terms are trusted only for the index file they name and the recipe they were made by:
    otherwise the incremental build reads every term, as before, and the index is the full build's."""
    first = _build(fixture_indexes, fixture_indexes.datasets["lu"], tmp_path / "first")
    sidecar = terms.path_of(tmp_path / "first", "lu-legilux")
    kept = _kept_terms(tmp_path / "first", first)
    assert kept is not None
    good = sidecar.read_bytes()
    changed = tmp_path / "dataset-lu"
    _drop_one_version(fixture_indexes.datasets["lu"], changed)
    full = _build(fixture_indexes, changed, tmp_path / "full")
    other_recipe = terms.Terms(terms.recipe("another"), kept.docs, kept.groups)
    cases = {"missing": None, "another file": terms.dump(kept, "0" * 64), "damaged": good[:-9],
             "another recipe": terms.dump(other_recipe, first.index_sha256)}
    for n, (name, body) in enumerate(cases.items()):
        if body is None:
            sidecar.unlink()
        else:
            sidecar.write_bytes(body)
        again = _build(fixture_indexes, changed, tmp_path / f"again{n}", previous=tmp_path / "first")
        assert again.metrics["terms_read"] == "all", name
        assert again.stamp == full.stamp, name
        assert _fts_content(again.index_path) == _fts_content(full.index_path), name
        assert _serving_content(again.index_path) == _serving_content(full.index_path), name
        # the build it wrote keeps its own terms again
        assert _kept_terms(tmp_path / f"again{n}", again) is not None, name
    # a threshold changed since the sidecar was written: another recipe
    sidecar.write_bytes(good)
    assert _kept_terms(tmp_path / "first", first) is not None
    monkeypatch.setattr(serving, "FORMS_MIN_DOCS", 6)
    assert _kept_terms(tmp_path / "first", first) is None


def test_the_terms_of_changed_rows_are_those_fts5_indexes() -> None:
    """:func:`derive.index.terms.changed_terms` tokenizes like the index (folded, diacritics
    removed, every column), and :func:`derive.index.terms.term_docs` counts rows, 0 when none."""
    from derive.index.schema import FTS_TOKENIZER

    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute(f"CREATE VIRTUAL TABLE f USING fts5(a, b, content='', tokenize='{FTS_TOKENIZER}')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(f, 'row')")
    rows = [(7, "Règlement grand-ducal", "Art. 2"), (7, "", "Données")]  # one rowid twice: both counted
    conn.executemany("INSERT INTO f(rowid, a, b) VALUES (?, ?, ?)", [(1, "Règlement", "x"), (2, "règlement", "")])
    assert terms.changed_terms(conn, rows, ("a", "b"), FTS_TOKENIZER) == {
        "reglement", "grand", "ducal", "art", "2", "donnees"}
    assert terms.term_docs(conn, "v", ["reglement", "x", "absent"]) == {"absent": 0, "reglement": 2, "x": 1}
    assert terms.updated_docs({"a": 9, "b": 5}, {"a": 4, "b": 6, "c": 5}, 5) == {"b": 6, "c": 5}


def test_a_window_the_bound_does_not_prove_is_ranked_again() -> None:
    """``update`` gives a window only when its last row scores strictly beyond what any row left out
    can reach under the new totals; a row of a changed work is scored from its fresh hits."""
    np = pytest.importorskip("numpy")
    ids = np.array([10, 11, 12, 13], dtype=np.int64)
    sizes = np.array([5, 8, 40, 90], dtype=np.int64)
    freqs = np.array([[20], [12], [3], [1]], dtype=np.int64)
    totals = (1000, 50_000)
    idfs = [windows.idf(1000, 100)]
    values = windows.scores(freqs, sizes, idfs, 50.0)
    order = np.lexsort((ids, values))
    assert order.tolist() == [0, 1, 2, 3]
    none = windows.Changes((), ())
    for limit, exact in ((-float(values[3]) * 0.5, True), (-float(values[1]) * 1.5, False)):
        kept = windows.Kept(("loi",), (100,), limit, ids, sizes, freqs)
        got = windows.update(kept, totals, (1001, 50_040), [100], none, {}, {}, 2)
        assert (got is not None) is exact
        if got is not None:
            window, after = got
            new_idfs = [windows.idf(1001, 100)]
            assert window == [(10, windows.score([20], 5, new_idfs, 50_040 / 1001)),
                              (11, windows.score([12], 8, new_idfs, 50_040 / 1001))]
            assert after.ids.tolist() == [10, 11, 12, 13] and after.limit > limit
    # a changed work's row (ids 12 and 13 in its span) leaves with its old hits and comes back with new ones
    kept = windows.Kept(("loi",), (100,), 0.0, ids, sizes, freqs)
    changes = windows.Changes(((12, 13),), ())
    got = windows.update(kept, totals, totals, [100], changes, {"loi": {13: 50}}, {13: 6}, 2)
    assert got is not None and [r for r, _ in got[0]] == [13, 10]
    assert got[1].ids.tolist() == [13, 10, 11]


def test_dataset_hashes_the_caller_holds_are_taken_not_read(fixture_indexes: FixtureBuild, tmp_path: Path) -> None:
    """``known_sha256`` (the pipeline's stage state, which the derive stage filled as it wrote the
    dataset) gives the stamp's dataset hashes: the same stamp as hashing the files."""
    import hashlib

    dataset = fixture_indexes.datasets["lu"]
    asked: list[str] = []

    def known(path: Path) -> str:
        asked.append(path.name)
        return hashlib.sha256(path.read_bytes()).hexdigest()

    read = _build(fixture_indexes, dataset, tmp_path / "read")
    taken = build_from_paths(Publisher.LEGILUX, CorpusTree.open(fixture_indexes.trees["lu"]), dataset,
                             tmp_path / "taken", built_at=BUILT_AT, known_sha256=known)
    assert asked == ["provisions.jsonl"]
    assert taken.stamp == read.stamp and taken.index_sha256 == read.index_sha256


def test_an_incremental_build_reads_only_the_version_records_the_manifest_says_changed(
        fixture_indexes: FixtureBuild, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sidecar records each work's records digest (the tree manifest's ``works_index`` digest of
    the records the build read) and alias slugs: the next incremental build takes them for every work
    whose manifest digest is still the recorded one, reading no version record of it; a work whose
    digest differs is read (and verified) again. The content is a full build's either way."""
    first = _build(fixture_indexes, fixture_indexes.datasets["lu"], tmp_path / "first")
    sidecar = work_keys_path(tmp_path / "first", "lu-legilux")
    recorded = json.loads(sidecar.read_bytes())
    manifest = json.loads((fixture_indexes.trees["lu"] / "manifest.json").read_bytes())
    assert recorded["index_sha256"] == first.index_sha256
    assert {slug: value[2] for slug, value in recorded["works"].items()} == \
        {wid.split(":", 1)[1]: entry["digest"] for wid, entry in manifest["works_index"].items()}
    assert all(isinstance(value[3], list) for value in recorded["works"].values())  # its alias slugs
    changed = tmp_path / "dataset-lu"
    slug = _slug(fixture_indexes, _drop_one_version(fixture_indexes.datasets["lu"], changed))
    full = _build(fixture_indexes, changed, tmp_path / "full")
    other = next(s for s in sorted(recorded["works"]) if s != slug)

    read: list[str] = []
    versions = CorpusTree.versions

    def counting(self: CorpusTree, work: str, *, verify: bool = True) -> list[object]:
        read.append(work)
        return versions(self, work, verify=verify)  # type: ignore[return-value]

    monkeypatch.setattr(CorpusTree, "versions", counting)
    incremental = _build(fixture_indexes, changed, tmp_path / "incremental", previous=tmp_path / "first")
    assert incremental.metrics["mode"] == "incremental" and incremental.metrics["changed"] == [slug]
    assert read == [slug]  # the changed work's rows are rebuilt from its (verified) records; no other read
    assert incremental.stamp == full.stamp
    assert _fts_content(incremental.index_path) == _fts_content(full.index_path)

    # a recorded records digest that is not the manifest's: that work's records are read again
    recorded["works"][other][2] = "0" * 64
    sidecar.write_text(json.dumps(recorded), encoding="utf-8")
    read.clear()
    again = _build(fixture_indexes, changed, tmp_path / "again", previous=tmp_path / "first")
    assert again.metrics["mode"] == "incremental" and again.metrics["changed"] == [slug]
    assert sorted(set(read)) == sorted({slug, other})
    assert again.stamp == full.stamp
    # the sidecar the build wrote holds the records digest read, not the one it was given
    assert json.loads(work_keys_path(tmp_path / "again", "lu-legilux").read_bytes())["works"][other][2] == \
        manifest["works_index"][f"lu-legilux:{other}"]["digest"]

    # a sidecar of the previous schema (keys and inputs digests only): rows still not read, records read
    sidecar.write_text(json.dumps({**recorded, "schema": "lex-index-work-keys/1",
                                   "works": {s: v[:2] for s, v in recorded["works"].items()}}), encoding="utf-8")
    read.clear()
    old = _build(fixture_indexes, changed, tmp_path / "old", previous=tmp_path / "first")
    assert old.metrics["changed"] == [slug] and old.metrics["works_unread"] == len(recorded["works"]) - 1
    assert set(read) == set(recorded["works"])
    assert old.stamp == full.stamp


def test_a_context_from_recorded_alias_slugs_is_the_context_from_the_records() -> None:
    """:func:`build_context` over each work's :func:`work_aliases` (what the sidecar records) is the
    context read from the version records, alias collisions refused alike."""
    from derive.index.rows import build_context, work_aliases
    from legal.errors import IndexError_

    def same_as(code: str) -> dict[str, object]:
        uri = f"http://data.legilux.public.lu/eli/etat/leg/code/{code}"
        return {"kind": "legilux_same_as", "identifier": uri, "label": code, "source_uri": uri}

    works = [{"slug": "a"}, {"slug": "b"}]
    records: dict[str, list[dict[str, Any]]] = {
        "a": [{"publisher_metadata": [same_as("penal")]}, {"publisher_metadata": [same_as("civil")]}],
               "b": [{"publisher_metadata": [{"kind": "publisher_short_title", "label": "x"}]}]}
    recorded = {slug: work_aliases(found) for slug, found in records.items()}
    assert recorded["a"] and recorded["b"] == []
    read = build_context(Publisher.LEGILUX, works, lambda slug: records[slug])
    assert build_context(Publisher.LEGILUX, works, lambda slug: [], aliases_of=lambda slug: recorded[slug]) == read
    assert set(read.aliases.values()) == {"a"}
    with pytest.raises(IndexError_):
        build_context(Publisher.LEGILUX, works, lambda slug: [], aliases_of=lambda slug: recorded["a"])


def _vocabulary_db(words: list[tuple[str, int]]) -> sqlite3.Connection:
    from derive.index.analysis import term_stem_rows
    from derive.index.schema import TERM_STEMS_DDL

    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute("CREATE TABLE vocabulary(term TEXT PRIMARY KEY, docs INTEGER NOT NULL) WITHOUT ROWID")
    conn.execute(TERM_STEMS_DDL)
    conn.executemany("INSERT INTO vocabulary VALUES (?, ?)", words)
    conn.executemany("INSERT INTO term_stems VALUES (?, ?, ?, ?)", sorted(term_stem_rows(words)))
    return conn


def test_an_incremental_vocabulary_rewrites_only_the_words_whose_rows_changed() -> None:
    """``vocabulary`` and ``term_stems`` brought up to date equal those written whole, and only the
    rows of gone, new and re-counted words are deleted and written (the others are not touched)."""
    from derive.index.build import _update_vocabulary, vocabulary_changes

    before = [("directive", 40), ("directives", 12), ("données", 7), ("travail", 90), ("zzzz", 1)]
    after = [("directive", 41), ("directives", 12), ("donnee", 2), ("travail", 90), ("travailleurs", 5)]
    touched = vocabulary_changes(dict(before), after)
    assert touched == ["directive", "donnee", "données", "travailleurs", "zzzz"]
    updated, whole = _vocabulary_db(before), _vocabulary_db(after)

    def rows_of(conn: sqlite3.Connection) -> int:
        return sum(conn.execute(f"SELECT COUNT(*) FROM {table} WHERE term IN ({','.join('?' * len(touched))})",
                                touched).fetchone()[0] for table in ("vocabulary", "term_stems"))

    writes = rows_of(updated) + rows_of(whole)  # each touched row deleted, each new one inserted
    start = updated.total_changes
    _update_vocabulary(updated, after)
    assert updated.total_changes - start == writes
    for table in ("vocabulary", "term_stems"):
        assert sorted(updated.execute(f"SELECT * FROM {table}")) == sorted(whole.execute(f"SELECT * FROM {table}"))
    start = updated.total_changes
    _update_vocabulary(updated, after)
    assert updated.total_changes == start  # nothing changed: nothing written


def _set_words(path: Path, below: bool, from_block: int) -> None:
    """Give one stored text of a block numbered below ``from_block`` (else from it on) a wrong word count."""
    conn = sqlite3.connect(path)
    try:
        op = "<" if below else ">="
        key = conn.execute(f"SELECT text_sha256 FROM texts WHERE block_rowid {op} ? LIMIT 1", (from_block,)).fetchone()[0]
        conn.execute("UPDATE texts SET words = words + 1 WHERE text_sha256 = ?", (key,))
        conn.commit()
    finally:
        conn.close()


def _text_problems(report_problems: list[str]) -> list[str]:
    return [p for p in report_problems if p.startswith("text ") or p.endswith("texts lie in no stored block")]


def test_the_stage_check_of_an_incremental_build_verifies_the_texts_it_wrote(fixture_indexes: FixtureBuild,
                                                                             tmp_path: Path) -> None:
    """docs/adr/0026: an incremental build numbers every block it writes from ``texts_from_block`` on;
    the stage's check (``sealed_digest`` + ``texts_from_block``) inflates and hashes those texts only,
    the previous file's blocks having been checked when it was built; ``lex index verify`` checks all."""
    smaller = tmp_path / "dataset-lu"
    _drop_one_version(fixture_indexes.datasets["lu"], smaller)
    previous = _build(fixture_indexes, smaller, tmp_path / "prev")
    assert previous.metrics["mode"] == "full" and previous.texts_from_block == 1
    # the version dropped comes back: its texts not held by the previous file are written as new blocks
    added = _build(fixture_indexes, fixture_indexes.datasets["lu"], tmp_path / "inc", previous=tmp_path / "prev")
    assert added.metrics["mode"] == "incremental" and added.metrics["works_changed"] == 1
    start = added.texts_from_block
    conn = sqlite3.connect(added.index_path)
    try:
        new, old = (conn.execute(f"SELECT COUNT(*) FROM texts WHERE block_rowid {op} ?", (start,)).fetchone()[0]
                    for op in (">=", "<"))
        assert start == conn.execute("SELECT MAX(block_rowid) FROM text_blocks WHERE block_rowid < ?",
                                     (start,)).fetchone()[0] + 1
    finally:
        conn.close()
    assert new > 0 and old > 0
    sealed = added.stamp["content_digest"]
    assert verify_index(added.index_path, sealed_digest=sealed, texts_from_block=start).ok
    for below in (True, False):
        damaged = tmp_path / f"damaged-{below}" / "lu-legilux.sqlite"
        damaged.parent.mkdir()
        shutil.copyfile(added.index_path, damaged)
        _set_words(damaged, below, start)
        scoped = _text_problems(verify_index(damaged, sealed_digest=sealed, texts_from_block=start).problems)
        whole = _text_problems(verify_index(damaged).problems)
        assert len(whole) == 1  # the full verification finds either
        assert scoped == ([] if below else whole)  # the stage's check finds a text it wrote
    # a carried text whose block is gone is found without inflating any block
    orphaned = tmp_path / "orphaned" / "lu-legilux.sqlite"
    orphaned.parent.mkdir()
    shutil.copyfile(added.index_path, orphaned)
    conn = sqlite3.connect(orphaned)
    try:
        conn.execute("DELETE FROM text_blocks WHERE block_rowid = (SELECT MIN(block_rowid) FROM text_blocks)")
        conn.commit()
    finally:
        conn.close()
    lost = _text_problems(verify_index(orphaned, sealed_digest=sealed, texts_from_block=start).problems)
    assert len(lost) == 1 and lost[0].endswith("texts lie in no stored block"), lost


def test_only_the_stage_check_may_scope_the_texts(fixture_indexes: FixtureBuild) -> None:
    from legal.errors import IndexError_

    with pytest.raises(IndexError_) as raised:
        verify_index(fixture_indexes.index_dir / "lu-legilux.sqlite", texts_from_block=2)
    assert raised.value.code == "verify_scope"
