"""A step decided from its stage state (``pipelines.currency.stage_current``) before any process or
run is started: current exactly when the step itself would find nothing to do, and not current
once any of its inputs or outputs changed."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import dagster as dg

from legal.ids import Publisher
from pipelines.assets import corpus_tree
from pipelines.currency import stage_current
from pipelines.settings import SHARDS, LexSettings
from tests.pipelines.conftest import Baseline, copy_workdir, settings

LU, EU = Publisher.LEGILUX, Publisher.EURLEX


def test_the_derived_stages_of_an_unchanged_build_are_current_until_an_output_changes(
        tmp_path: Path, baseline: Baseline) -> None:
    lex = settings(copy_workdir(baseline.workdir, tmp_path / "work"))  # a copy: every file re-hashed once
    for publisher in (LU, EU):
        assert stage_current(lex, "provisions", publisher)
        assert stage_current(lex, "search_index", publisher)
        assert not stage_current(lex, "corpus_tree", publisher)  # an ingest: only the step can tell
    assert not stage_current(lex, "artifact_set", LU)
    # a byte more in Legilux's dataset: its dataset and index are stale, EUR-Lex's are not
    with (lex.derived(LU.value) / "provisions.jsonl").open("ab") as handle:
        handle.write(b"\n")
    assert not stage_current(lex, "provisions", LU)
    assert not stage_current(lex, "search_index", LU)
    assert stage_current(lex, "provisions", EU) and stage_current(lex, "search_index", EU)
    # a shard's file changed: that publisher's dataset step has work to do
    shard = lex.shard(EU.value, SHARDS - 1, SHARDS) / "errors.jsonl"
    shard.write_bytes(shard.read_bytes() + b"\n")
    assert not stage_current(lex, "provisions", EU)
    assert stage_current(lex, "search_index", EU)
    # the index file gone: not current
    (lex.indexes() / f"{EU.value}.sqlite").unlink()
    assert not stage_current(lex, "search_index", EU)


def test_a_published_tree_is_current_only_while_its_source_files_are_those_imported(
        tmp_path: Path, fixtures_dir: Path) -> None:
    source = tmp_path / "published"
    shutil.copytree(fixtures_dir / "lex-corpus-lu-legilux", source / "lex-corpus-lu-legilux")
    lex = LexSettings(workdir=str(tmp_path / "work"), source="published", fixtures_dir=str(source),
                      built_at="2026-01-01")

    def step() -> dict[str, object]:
        result = dg.materialize([corpus_tree], partition_key=LU.value, resources={"lex": lex})
        assert result.success
        [event] = result.get_asset_materialization_events()
        return {k: v.value for k, v in event.step_materialization_data.materialization.metadata.items()}

    assert not stage_current(lex, "corpus_tree", LU)  # never imported
    first = step()
    assert first["skipped"] == ""
    assert stage_current(lex, "corpus_tree", LU)
    again = step()  # what the step finds when the check says current: nothing to do
    assert again["skipped"] and again["new_bodies"] == 0 and again["records_digest"] == first["records_digest"]
    # one source file touched: the import must look again
    record = next((source / "lex-corpus-lu-legilux" / "works").glob("*/versions/*/meta.json"))
    stat = record.stat()
    os.utime(record, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert not stage_current(lex, "corpus_tree", LU)
    assert step()["skipped"] == ""
    assert stage_current(lex, "corpus_tree", LU)



def test_the_source_fingerprint_is_every_files_path_size_and_time(tmp_path: Path, lu_fixture: Path) -> None:
    """``sources.source_fingerprint`` (walked with strings, not a Path per file) is the digest of
    each file's relative POSIX path, size and modification time in walk order, as written out here."""
    import hashlib

    from pipelines.sources import source_fingerprint

    src = lu_fixture

    def spelled_out(top: Path) -> str:
        h = hashlib.sha256()
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames.sort()
            for name in sorted(filenames):
                path = Path(dirpath) / name
                st = path.lstat()
                h.update(f"{path.relative_to(top).as_posix()}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
        return h.hexdigest()

    assert source_fingerprint(src) == spelled_out(src)
    copy = tmp_path / "copy"
    shutil.copytree(src, copy)
    before = source_fingerprint(copy)
    assert before == spelled_out(copy)
    some = next(p for p in sorted(copy.rglob("*")) if p.is_file() and p.parent != copy)
    os.utime(some, ns=(some.stat().st_atime_ns, some.stat().st_mtime_ns + 1))  # touched: changed
    assert source_fingerprint(copy) != before
    assert source_fingerprint(copy) == spelled_out(copy)
    # what os.walk lists but does not walk (a link to a directory), a link to a file, a dangling
    # link, an empty directory, names whose order differs from their paths' (``a-b`` < ``a/``)
    works = next(p for p in sorted(copy.rglob("works")) if p.is_dir())
    first = sorted(works.iterdir())[0]
    (works / "zz-linked-work").symlink_to(first, target_is_directory=True)
    (first / "linked.json").symlink_to(first / "meta.json")
    (first / "dangling").symlink_to(first / "absent")
    (copy / "empty").mkdir()
    (copy / "a").mkdir()
    (copy / "a" / "x").write_text("x")
    (copy / "a-b").write_text("ab")
    (copy / "a.b").mkdir()
    (copy / "a.b" / "y").write_text("y")
    assert source_fingerprint(copy) == spelled_out(copy)
