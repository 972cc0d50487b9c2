"""Building an index: byte-identical rebuilds, verification, stamp, refusals."""

from __future__ import annotations

import json
import shutil
import sqlite3
import zlib
from pathlib import Path

import pytest

from derive.index import succession
from derive.index.build import build_from_paths, build_in_memory, build_index
from derive.index.inputs import read_dataset, read_tree
from derive.index.read import check_mountable, open_readonly
from derive.index.schema import INDEX_FORMAT
from derive.index.verify import verify_index
from legal.errors import IndexError_
from legal.ids import Publisher
from tests.index import handmade
from tests.index.pipeline import FixtureBuild, build_indexes


def _bytes(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if not p.name.startswith(".")}


def test_handmade_rebuild_is_byte_identical(tmp_path: Path) -> None:
    handmade.build_handmade(tmp_path / "a")
    handmade.build_handmade(tmp_path / "b")
    a, b = _bytes(tmp_path / "a"), _bytes(tmp_path / "b")
    assert sorted(a) == ["eu-eurlex.sqlite", "eu-eurlex.stamp.json", "lu-legilux.sqlite", "lu-legilux.stamp.json"]
    assert a == b


def test_fixture_rebuild_is_byte_identical(fixture_indexes: FixtureBuild, tmp_path: Path) -> None:
    build_indexes(fixture_indexes.trees, fixture_indexes.datasets, tmp_path)
    assert _bytes(tmp_path) == _bytes(fixture_indexes.index_dir)


def test_streaming_build_equals_the_in_memory_reference(fixture_indexes: FixtureBuild, tmp_path: Path) -> None:
    """The streaming build (scratch file, one work at a time) writes the same bytes as
    ``assemble`` + ``write_index``, the builder that held every row in memory."""
    from corpus_tree import CorpusTree
    from tests.index.pipeline import BUILT_AT

    for name, publisher in (("eu", Publisher.EURLEX), ("lu", Publisher.LEGILUX)):
        build_in_memory(publisher, read_tree(CorpusTree.open(fixture_indexes.trees[name])),
                        read_dataset(fixture_indexes.datasets[name]), tmp_path, built_at=BUILT_AT)
    assert _bytes(tmp_path) == _bytes(fixture_indexes.index_dir)


def _write_dataset(directory: Path, rows: list[dict[str, object]], gaps: list[dict[str, object]]) -> Path:
    directory.mkdir(parents=True)
    (directory / "provisions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (directory / "gaps.jsonl").write_text("".join(json.dumps(g) + "\n" for g in gaps), encoding="utf-8")
    return directory


def test_handmade_streaming_from_paths_equals_the_in_memory_reference(tmp_path: Path) -> None:
    for publisher, (tree, rows, gaps) in ((Publisher.EURLEX, handmade.eu_corpus()),
                                          (Publisher.LEGILUX, handmade.lu_corpus())):
        data = _write_dataset(tmp_path / f"data-{publisher.value}", rows, gaps)
        build_from_paths(publisher, tree, data, tmp_path / "stream", built_at="2026-08-01T00:00:00Z")
        build_in_memory(publisher, read_tree(tree), read_dataset(data), tmp_path / "memory",
                        built_at="2026-08-01T00:00:00Z")
    assert _bytes(tmp_path / "stream") == _bytes(tmp_path / "memory")
    # nothing else is left beside the indexes but the kept successive pairs (derive/index/succession.py)
    kept = {succession.path_of(tmp_path / "stream", p.value).name for p in Publisher}
    assert sorted(p.name for p in (tmp_path / "stream").iterdir() if p.name not in kept) == \
        sorted(_bytes(tmp_path / "stream"))


def test_streaming_refusal_leaves_no_files(tmp_path: Path) -> None:
    tree, rows = _eu_inputs()
    rows[0] = {**rows[0], "text_md": "something else"}
    data = _write_dataset(tmp_path / "data", rows, [])
    with pytest.raises(IndexError_) as err:
        build_from_paths(Publisher.EURLEX, tree, data, tmp_path / "out", built_at="2026-01-01T00:00:00Z")
    assert err.value.code == "text_hash_mismatch"
    assert list((tmp_path / "out").iterdir()) == []


def test_fixture_indexes_verify(fixture_indexes: FixtureBuild) -> None:
    for name in ("eu-eurlex.sqlite", "lu-legilux.sqlite"):
        report = verify_index(fixture_indexes.index_dir / name)
        assert report.ok, report.problems
        assert int(report.stamp["count.provisions"]) > 1000


def test_built_at_is_an_input_and_changes_only_the_stamp(tmp_path: Path) -> None:
    handmade.build_handmade(tmp_path / "a", built_at="2026-08-01T00:00:00Z")
    handmade.build_handmade(tmp_path / "b", built_at="2027-01-01T00:00:00Z")
    conns = [open_readonly(tmp_path / d / "eu-eurlex.sqlite") for d in ("a", "b")]
    stamps = [check_mountable(c, "eu") for c in conns]
    assert stamps[0]["built_at"] == "2026-08-01T00:00:00Z" and stamps[1]["built_at"] == "2027-01-01T00:00:00Z"
    assert stamps[0]["content_digest"] == stamps[1]["content_digest"]


def test_stamp_file_repeats_the_stamp_and_names_the_file(handmade_dir: Path) -> None:
    doc = json.loads((handmade_dir / "eu-eurlex.stamp.json").read_text(encoding="utf-8"))
    conn = open_readonly(handmade_dir / "eu-eurlex.sqlite")
    assert doc["stamp"] == check_mountable(conn, "eu")
    assert doc["index"]["file"] == "eu-eurlex.sqlite"
    assert doc["stamp"]["schema"] == INDEX_FORMAT
    assert doc["stamp"]["timeline_semantics"] == "official_consolidation_state"
    assert not any(v.startswith("/") or str(handmade_dir) in v for v in doc["stamp"].values())


def test_editing_a_text_breaks_verification(handmade_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "eu-eurlex.sqlite"
    shutil.copy(handmade_dir / "eu-eurlex.sqlite", copy)
    conn = sqlite3.connect(copy)
    block, start, length = conn.execute("SELECT block_rowid, start, length FROM texts "
                                        "ORDER BY text_sha256 LIMIT 1").fetchone()
    raw = bytearray(zlib.decompress(conn.execute("SELECT body FROM text_blocks WHERE block_rowid = ?",
                                                 (block,)).fetchone()[0]))
    raw[start:start + length] = b"t" * length  # same length, other text: only the hash check sees it
    conn.execute("UPDATE text_blocks SET body = ? WHERE block_rowid = ?", (zlib.compress(bytes(raw)), block))
    conn.commit()
    conn.close()
    problems = verify_index(copy).problems
    # format 7: a text enters the digest by its key (ADR 0018); the check that ties it to its key sees the edit
    assert not any("content digest" in p for p in problems)
    assert any("does not hash" in p for p in problems)


def test_wrong_counter_refuses_mount(handmade_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "eu-eurlex.sqlite"
    shutil.copy(handmade_dir / "eu-eurlex.sqlite", copy)
    conn = sqlite3.connect(copy)
    conn.execute("DELETE FROM gaps")
    conn.execute("UPDATE stamp SET v = '99' WHERE k = 'count.works'")
    conn.commit()
    conn.close()
    with pytest.raises(IndexError_) as err:
        check_mountable(open_readonly(copy), copy.name)
    assert err.value.code == "index_unfit"


def test_an_index_of_format_5_is_refused_with_rebuild(handmade_dir: Path, tmp_path: Path) -> None:
    """A format-5 file (texts without their word counts) is named as an older format: rebuild."""
    copy = tmp_path / "eu-eurlex.sqlite"
    shutil.copy(handmade_dir / "eu-eurlex.sqlite", copy)
    conn = sqlite3.connect(copy)
    conn.execute("PRAGMA user_version = 5")
    conn.execute("UPDATE stamp SET v = 'lex-evidence-index/5' WHERE k = 'schema'")
    conn.commit()
    conn.close()
    with pytest.raises(IndexError_) as err:
        check_mountable(open_readonly(copy), copy.name)
    assert err.value.code == "index_unfit"
    assert "index format 5 is older than lex-evidence-index/9" in err.value.message
    assert "rebuild the index" in err.value.message


def _eu_inputs() -> tuple[handmade.MemoryTree, list[dict[str, object]]]:
    tree, rows, _ = handmade.eu_corpus()
    return tree, rows


def test_row_whose_text_does_not_hash_is_refused(tmp_path: Path) -> None:
    tree, rows = _eu_inputs()
    rows[0] = {**rows[0], "text_md": "something else"}
    with pytest.raises(IndexError_) as err:
        build_index(Publisher.EURLEX, read_tree(tree), handmade.dataset(rows, []), tmp_path, built_at="2026-01-01T00:00:00Z")
    assert err.value.code == "text_hash_mismatch"


def test_row_from_another_record_is_refused(tmp_path: Path) -> None:
    tree, rows = _eu_inputs()
    rows[0] = {**rows[0], "record_sha256": "0" * 64}
    with pytest.raises(IndexError_) as err:
        build_index(Publisher.EURLEX, read_tree(tree), handmade.dataset(rows, []), tmp_path, built_at="2026-01-01T00:00:00Z")
    assert err.value.code == "record_hash_mismatch"


def test_row_for_an_unknown_version_is_refused(tmp_path: Path) -> None:
    tree, rows = _eu_inputs()
    rows[0] = {**rows[0], "lex_id": rows[0]["lex_id"].replace("2020-01-01--", "2020-01-02--")}  # type: ignore[attr-defined]
    with pytest.raises(IndexError_) as err:
        build_index(Publisher.EURLEX, read_tree(tree), handmade.dataset(rows, []), tmp_path, built_at="2026-01-01T00:00:00Z")
    assert err.value.code in {"orphan_dataset_rows", "record_hash_mismatch"}


def test_built_at_must_be_a_utc_instant(tmp_path: Path) -> None:
    tree, rows = _eu_inputs()
    with pytest.raises(IndexError_):
        build_index(Publisher.EURLEX, read_tree(tree), handmade.dataset(rows, []), tmp_path, built_at="yesterday")


def test_whitespace_only_provisions_are_dropped_and_counted(tmp_path: Path) -> None:
    tree, rows, _ = handmade.eu_corpus()
    blank = dict(rows[0])
    blank.update(anchor="art_99", provision_id=rows[0]["provision_id"].replace("art_1", "art_99"),  # type: ignore[attr-defined]
                 text_md="   ", text_sha256=handmade.sha("   "))
    result = build_index(Publisher.EURLEX, read_tree(tree), handmade.dataset([*rows, blank], []), tmp_path,
                         built_at="2026-01-01T00:00:00Z")
    assert result.stamp["excluded_empty_provisions"] == "1"
    assert result.stamp["count.provisions"] == str(len(rows))


def test_provision_fts_pending_terms_are_flushed_in_large_segments(fixture_indexes: FixtureBuild) -> None:
    """A new index holds the ``provision_fts`` hashsize of :data:`derive.index.schema.FTS_HASHSIZE`
    (SQLite's 1 MiB default made a full build write hundreds of small segments and merge them again)."""
    from derive.index.schema import FTS_HASHSIZE

    for name in ("eu-eurlex", "lu-legilux"):
        conn = sqlite3.connect(fixture_indexes.index_dir / f"{name}.sqlite")
        try:
            config = dict(conn.execute("SELECT k, v FROM provision_fts_config").fetchall())
        finally:
            conn.close()
        assert FTS_HASHSIZE > 1024 * 1024
        assert config.get("hashsize") == FTS_HASHSIZE


@pytest.mark.parametrize("name", ["lu-legilux.sqlite", "eu-eurlex.sqlite"])
def test_vacuum_into_place_gives_the_bytes_of_vacuum(fixture_indexes: FixtureBuild, tmp_path: Path, name: str) -> None:
    """The build's ``VACUUM INTO`` a file beside the index (renamed over it, its header's change
    counter set to the one ``VACUUM`` commits) is ``VACUUM``'s file, byte for byte: here after one more
    write transaction, so that the counter is not the one the fixture file holds."""
    from derive.index.build import vacuum_into_place

    files = [tmp_path / f"vacuum-{i}.sqlite" for i in range(2)]
    for path, vacuum in zip(files, (lambda c: c.execute("VACUUM"), vacuum_into_place), strict=True):
        shutil.copyfile(fixture_indexes.index_dir / name, path)
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute("PRAGMA journal_mode=OFF")
        conn.execute("BEGIN")
        conn.execute("INSERT INTO stamp(k, v) VALUES ('test', 'one more transaction')")
        conn.execute("COMMIT")
        conn.execute("ANALYZE")
        vacuum(conn)
        conn.close()
    assert files[0].read_bytes() == files[1].read_bytes()
    assert files[0].read_bytes() != (fixture_indexes.index_dir / name).read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == [f.name for f in files]  # nothing left beside
