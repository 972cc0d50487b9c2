"""Incremental derivation (issue #7): a change in one work re-derives that work only, and the
assembled dataset is byte-identical to a from-scratch build; runs replace the output atomically;
shards merge to the bytes of an unsharded build."""

from __future__ import annotations

import contextlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

import derive.dataset as D
from corpus_tree.records import render, seal
from derive import text
from derive.citations import AliasTable
from derive.dataset import build_dataset, default_cache_dir, merge_shards, shard_of
from derive.staging import locked
from derive.verify import compare_dirs
from legal.errors import ConfigError, DerivationError
from tests.derive.conftest import read_jsonl
from tests.fixture_builds import copy_tree


def _same(a: Path, b: Path) -> None:
    report = compare_dirs(a, b)
    assert report.ok, (report.mismatched, report.missing, report.extra)
    assert report.compared >= 6


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def lu_copy(tmp_path_factory, lu_tree):
    """A private copy of the Legilux tree (tests below change it: each restores what it changes)."""
    return copy_tree(lu_tree, tmp_path_factory.mktemp("incremental") / "tree")


@pytest.fixture(scope="module")
def warm(tmp_path_factory, lu_copy, lu_dataset):
    """A cold cached build of the copy; its cache is then warm."""
    base = tmp_path_factory.mktemp("warm")
    report = build_dataset(lu_copy, base / "ds", cache=base / "cache")
    return base, report


def test_cold_build_derives_every_work_and_equals_a_scratch_build(warm, lu_dataset):
    base, report = warm
    assert report.works_derived == report.works == 68 and report.works_reused == 0
    _same(lu_dataset[0], base / "ds")
    assert not (base / "ds" / ".cache").exists()  # the cache lives outside the dataset


def test_unchanged_tree_rederives_nothing(warm, lu_copy, lu_dataset, tmp_path):
    base, _ = warm
    derived = []
    report = build_dataset(lu_copy, tmp_path / "ds", cache=base / "cache", progress=derived.append)
    assert report.works_derived == 0 and report.works_reused == 68
    assert len(derived) == report.versions  # progress still ticks once per version
    _same(lu_dataset[0], tmp_path / "ds")
    assert report.to_dict() == json.loads((lu_dataset[0] / "summary.json").read_bytes())


def _version_meta(tree, slug: str) -> Path:
    return sorted((tree.root / "works" / slug / "versions").glob("*/meta.json"))[-1]


@contextlib.contextmanager
def _one_change(tree, slug: str) -> Iterator[None]:
    """One work's latest version record re-sealed with other content and the tree's manifest rewritten
    as a writer would; both restored afterwards."""
    from corpus_tree.manifest import build_manifest

    meta = _version_meta(tree, slug)
    original = meta.read_bytes()
    manifest = tree.root / "manifest.json"
    saved_manifest = manifest.read_bytes()
    meta.write_bytes(render(seal({**json.loads(original), "raw": {"test": "one change"}})))
    try:
        manifest.write_bytes(render(build_manifest(tree.works(), tree.iter_versions(verify=False))))
        yield
    finally:
        meta.write_bytes(original)
        manifest.write_bytes(saved_manifest)


@pytest.fixture
def cache(warm, tmp_path):
    """A private copy of the warm cache (runs prune superseded entries)."""
    shutil.copytree(warm[0] / "cache", tmp_path / "cache")
    return tmp_path / "cache"


@pytest.fixture
def changed(lu_copy, tmp_path):
    """Four changes to four works of the copy, undone afterwards:

    - a re-sealed version record (``rgd-2001-10-18-n3``): its rows' ``record_sha256`` change;
    - a version record edited without re-sealing (``loi-2000-08-08-n4``): a hash mismatch;
    - an evidence blob leaving the store (the body of ``a-1938-01-14-n1``): now "held elsewhere";
    - a work removed from the tree (``agd-1965-06-25-n1``).
    """
    saved = tmp_path / "saved"
    saved.mkdir()
    resealed, tampered = _version_meta(lu_copy, "rgd-2001-10-18-n3"), _version_meta(lu_copy, "loi-2000-08-08-n4")
    originals = {resealed: resealed.read_bytes(), tampered: tampered.read_bytes()}
    record = json.loads(originals[resealed])
    resealed.write_bytes(render(seal({**record, "raw": {"test": "changed"}})))
    tampered.write_bytes(originals[tampered].replace(b'"raw": {}', b'"raw": {"x": "y"}'))
    assert tampered.read_bytes() != originals[tampered]
    body = json.loads(_version_meta(lu_copy, "a-1938-01-14-n1").read_bytes())
    blob = lu_copy.evidence.path_of(body["expressions"][0]["observations"][0]["sha256"])
    shutil.copyfile(blob, saved / "blob")
    blob.unlink()
    work = lu_copy.root / "works" / "agd-1965-06-25-n1"
    shutil.move(work, saved / "work")
    try:
        yield {"resealed": seal({**record, "raw": {"test": "changed"}})["record_sha256"],
               "held_elsewhere": body["lex_id"]}
    finally:
        for path, data in originals.items():
            path.write_bytes(data)
        shutil.copyfile(saved / "blob", blob)
        shutil.move(saved / "work", work)


def test_a_change_in_a_work_rederives_that_work_only(cache, lu_copy, changed, tmp_path):
    report = build_dataset(lu_copy, tmp_path / "inc", cache=cache)
    assert sorted(report.derived) == ["lu-legilux:a-1938-01-14-n1", "lu-legilux:loi-2000-08-08-n4",
                                      "lu-legilux:rgd-2001-10-18-n3"]
    assert (report.works, report.works_derived, report.works_reused) == (67, 3, 64)
    # the assembled dataset is byte-identical to a from-scratch build of the changed tree
    build_dataset(lu_copy, tmp_path / "scratch", use_cache=False)
    _same(tmp_path / "scratch", tmp_path / "inc")
    rows = read_jsonl(tmp_path / "inc" / "provisions.jsonl")
    assert changed["resealed"] in {r["record_sha256"] for r in rows}
    assert not any(r["work_id"] == "lu-legilux:agd-1965-06-25-n1" for r in rows)
    gaps = read_jsonl(tmp_path / "inc" / "gaps.jsonl")
    assert any(g["lex_id"] == changed["held_elsewhere"] and "held elsewhere" in g["reason"] for g in gaps)
    # a record that fails its hash is an error, never a cache hit
    (error,) = report.errors
    assert error["code"] == "record_hash_mismatch" and error["work_id"] == "lu-legilux:loi-2000-08-08-n4"


def test_alias_changes_re_resolve_citations_without_rederiving(cache, lu_copy, lu_dataset, tmp_path, monkeypatch):
    real = D.alias_table
    moved = ("lu-legilux:conv-1993-12-13-n7", "lu-legilux:constitution-1868-10-17-n1")

    def aliased(tree):
        return AliasTable.build([("conv-1993-12-13-n7", moved[1])], real(tree).held)

    monkeypatch.setattr(D, "alias_table", aliased)
    report = build_dataset(lu_copy, tmp_path / "inc", cache=cache)
    assert report.works_derived == 0
    # only the rows change, and in them only the targets of the aliased links
    differs = compare_dirs(lu_dataset[0], tmp_path / "inc")
    assert differs.mismatched == ["provisions.jsonl", "provisions.parquet"] and not differs.missing + differs.extra
    retargeted = 0
    for old, new in zip(read_jsonl(lu_dataset[0] / "provisions.jsonl"), read_jsonl(tmp_path / "inc" / "provisions.jsonl"),
                        strict=True):
        for a, b in zip(old.pop("citations"), new.pop("citations"), strict=True):
            assert (a["href"], a["text"]) == (b["href"], b["text"])
            if a["target_work"] != b["target_work"]:
                assert (a["target_work"], b["target_work"]) == moved
                retargeted += 1
        assert old == new
    assert retargeted > 0


def test_a_shared_version_bump_rederives_everything_and_a_bad_entry_is_a_miss(cache, lu_copy, tmp_path, monkeypatch):
    shard = (shard_of("rgd-2001-10-18-n3", 4), 4)  # a quarter of the works is enough here
    report = build_dataset(lu_copy, tmp_path / "ds", cache=cache, shard=shard)
    assert report.works_derived == 0 and report.works_reused == report.works > 1
    entry = next(iter(sorted((cache / "works" / "lu-legilux" / "rgd-2001-10-18-n3").glob("*.json"))))
    entry.write_bytes(b'{"truncated')
    report = build_dataset(lu_copy, tmp_path / "ds", cache=cache, shard=shard)
    assert report.derived == ["lu-legilux:rgd-2001-10-18-n3"]
    monkeypatch.setattr(text, "NORMALISATION_VERSION", text.NORMALISATION_VERSION + 1)  # shared code bumped
    report = build_dataset(lu_copy, tmp_path / "ds", cache=cache, shard=shard)
    assert report.works_derived == report.works and report.works_reused == 0
    # superseded entries are pruned: one entry per work
    assert all(len(list(d.glob("*.json"))) == 1 for d in (cache / "works" / "lu-legilux").iterdir())


def test_default_cache_sits_beside_the_dataset(tmp_path, eu_tree):
    out = tmp_path / "ds"
    build_dataset(eu_tree, out, shard=(0, 4))
    assert default_cache_dir(out) == tmp_path / ".ds.cache" and (tmp_path / ".ds.cache" / "works").is_dir()
    assert not any(p.name.startswith(".") for p in out.rglob("*"))  # nothing of the cache in the dataset
    assert build_dataset(eu_tree, out, shard=(0, 4)).works_derived == 0


# -- atomic replacement ------------------------------------------------------------------------------


def _previous(out: Path) -> dict[str, bytes]:
    (out / "history").mkdir(parents=True)
    (out / "provisions.jsonl").write_bytes(b'{"previous":"dataset"}\n')
    (out / "history" / "w.json").write_bytes(b"{}\n")
    return _snapshot(out)


def _fail_after(monkeypatch, n: int) -> None:
    real, calls = D.derive_work, []

    def failing(*args, **kwargs):
        calls.append(1)
        if len(calls) > n:
            raise RuntimeError("killed midway")
        return real(*args, **kwargs)

    monkeypatch.setattr(D, "derive_work", failing)


def test_a_run_that_fails_midway_leaves_the_previous_dataset(tmp_path, eu_tree, monkeypatch):
    out = tmp_path / "ds"
    before = _previous(out)
    _fail_after(monkeypatch, 4)
    with pytest.raises(RuntimeError, match="killed midway"):
        build_dataset(eu_tree, out, use_cache=False)
    assert _snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [".ds.lock", "ds"]  # no staging left behind


def test_a_kill_between_the_renames_is_recovered(tmp_path, eu_tree, monkeypatch):
    out = tmp_path / "ds"
    before = _previous(out)
    out.rename(tmp_path / ".ds.previous")  # what a kill after the first rename of a swap leaves
    (tmp_path / ".ds.staging-killed").mkdir()  # and a kill while staging
    _fail_after(monkeypatch, 0)
    with pytest.raises(RuntimeError, match="killed midway"):
        build_dataset(eu_tree, out, use_cache=False)
    assert _snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [".ds.lock", "ds"]


def test_a_concurrent_run_is_refused(tmp_path, eu_tree):
    out = tmp_path / "ds"
    with locked(out), pytest.raises(DerivationError) as info:
        build_dataset(eu_tree, out, use_cache=False)
    assert info.value.code == "dataset_locked" and not out.exists()


# -- shards ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name,shards", [("eu", 3), ("lu", 2)])
def test_shards_merge_to_the_bytes_of_an_unsharded_build(tmp_path, imported_trees, fixture_dataset, name, shards):
    tree = imported_trees[name]
    outs = [tmp_path / f"shard-{i}" for i in range(shards)]
    seen: list[str] = []
    for i, out in enumerate(outs):
        report = build_dataset(tree, out, shard=(i, shards), cache=tmp_path / "cache")
        meta = json.loads((out / "shard.json").read_bytes())
        assert (meta["shard"], meta["shards"]) == (i, shards) and report.shard == (i, shards)
        assert all(shard_of(w.split(":", 1)[1], shards) == i for w in meta["works"])
        seen += meta["works"]
    assert len(seen) == len(set(seen)) == fixture_dataset[name][1].works
    merged = merge_shards(list(reversed(outs)), tmp_path / "merged")
    _same(fixture_dataset.paths[name], tmp_path / "merged")
    assert merged.to_dict() == fixture_dataset[name][1].to_dict()
    assert not (tmp_path / "merged" / "shard.json").exists()


def test_merge_refuses_incomplete_or_foreign_shards(tmp_path, lu_body):
    from tests.derive.test_build_errors import small_tree

    tree = small_tree(tmp_path, {"2026-02-24": lu_body("rgd-2001-10-18-n3/2026-02-24/fr.xml")})
    for i in range(2):
        build_dataset(tree, tmp_path / f"a{i}", shard=(i, 2), use_cache=False)
    build_dataset(tree, tmp_path / "b0", shard=(0, 3), use_cache=False)
    cases = {
        "shards_incomplete": [tmp_path / "a0"],
        "shard_mismatch": [tmp_path / "a0", tmp_path / "b0"],
        "not_a_shard": [tmp_path / "a0", tmp_path],
    }
    for code, shards in cases.items():
        with pytest.raises(DerivationError) as info:
            merge_shards(shards, tmp_path / "merged")
        assert info.value.code == code
    assert not (tmp_path / "merged").exists()
    merge_shards([tmp_path / "a1", tmp_path / "a0"], tmp_path / "merged")
    build_dataset(tree, tmp_path / "whole", use_cache=False)
    _same(tmp_path / "whole", tmp_path / "merged")


@pytest.mark.parametrize("shard", [(2, 2), (-1, 2), (0, 0)])
def test_bad_shard_is_a_config_error(tmp_path, eu_tree, shard):
    with pytest.raises(ConfigError):
        build_dataset(eu_tree, tmp_path / "ds", shard=shard)


def test_one_changed_work_rebuilds_its_shard_only_and_merges_to_a_cold_build(lu_copy, cache, tmp_path, monkeypatch):
    """Shards of a tree, then one work's record changes: the other shard's own inputs are unchanged,
    so only its ``shard.json`` (the whole-tree facts) is rewritten, its other files kept byte for byte;
    the changed work's shard is rebuilt, its other works' states, version_events and
    version_visibility rows copied from its previous output (not built again from their cache
    entries); the merge equals an unsharded build of the changed tree."""
    slug, shards = "rgd-2001-10-18-n3", 2
    mine = shard_of(slug, shards)
    outs = [tmp_path / f"shard-{i}" for i in range(shards)]
    for i, out in enumerate(outs):
        build_dataset(lu_copy, out, shard=(i, shards), cache=cache)
    before = {i: _snapshot(out) for i, out in enumerate(outs)}
    meta = _version_meta(lu_copy, slug)
    original = meta.read_bytes()
    meta.write_bytes(render(seal({**json.loads(original), "raw": {"test": "one change"}})))
    try:
        # the manifest is what the shard inputs read: refresh it as a writer would
        from corpus_tree.manifest import build_manifest

        manifest = lu_copy.root / "manifest.json"
        saved_manifest = manifest.read_bytes()
        manifest.write_bytes(render(build_manifest(lu_copy.works(), lu_copy.iter_versions(verify=False))))
        other = 1 - mine
        assert D.refresh_shard(lu_copy, outs[other], (other, shards))
        after = _snapshot(outs[other])
        assert {k: v for k, v in after.items() if k != "shard.json"} == \
            {k: v for k, v in before[other].items() if k != "shard.json"}
        assert after["shard.json"] != before[other]["shard.json"]  # the whole tree's facts moved on
        assert not D.refresh_shard(lu_copy, outs[mine], (mine, shards))
        assert _snapshot(outs[mine]) == before[mine]  # a refused refresh writes nothing
        built: list[str] = []  # what was built: states rows of a work, events rows

        def states(data: bytes) -> tuple[object, int]:
            table, size = states_table(data)
            if table.num_rows:  # a history without states is built as it was (its size counts)
                built.append("states")
            return table, size

        states_table, events_table = D.states_table, D.events_table
        monkeypatch.setattr(D, "states_table", states)
        monkeypatch.setattr(D, "events_table", lambda rows: built.append("events") or events_table(rows))
        report = build_dataset(lu_copy, outs[mine], shard=(mine, shards), cache=cache)
        monkeypatch.undo()
        assert report.derived == [f"lu-legilux:{slug}"]
        # only the derived work's states and events were built: the copied works' were copied
        assert built.count("states") <= 1 and built.count("events") <= 1
        # the shard's other works' rows were copied from its previous output, not encoded again
        assert report.works_copied == report.works - 1 > 0
        build_dataset(lu_copy, tmp_path / "cold-shard", shard=(mine, shards), use_cache=False)
        cold, rebuilt = _snapshot(tmp_path / "cold-shard"), _snapshot(outs[mine])
        assert {k: v for k, v in cold.items() if k != "shard.json"} == \
            {k: v for k, v in rebuilt.items() if k != "shard.json"}, "the rebuilt shard differs from a cold one"
        assert json.loads(cold["shard.json"])["keys"] == {}  # no cache: no keys, nothing to copy next time
        assert len(json.loads(rebuilt["shard.json"])["keys"]) == report.works
        merge_shards(outs, tmp_path / "merged")
        build_dataset(lu_copy, tmp_path / "scratch", use_cache=False)
        _same(tmp_path / "scratch", tmp_path / "merged")
        # a shard left behind (not rebuilt after the change) is refused by the merge
        shutil.rmtree(outs[mine])
        for name, data in before[mine].items():
            (outs[mine] / name).parent.mkdir(parents=True, exist_ok=True)
            (outs[mine] / name).write_bytes(data)
        with pytest.raises(DerivationError) as info:
            merge_shards(outs, tmp_path / "merged2")
        assert info.value.code == "shard_mismatch" and not (tmp_path / "merged2").exists()
    finally:
        meta.write_bytes(original)
        manifest.write_bytes(saved_manifest)


def test_a_one_change_merge_copies_the_unchanged_row_groups_and_equals_a_cold_build(lu_copy, cache, tmp_path,
                                                                                     monkeypatch):
    """With small row groups, a merge after one work changed copies every ``provisions.parquet`` row
    group of unchanged works byte for byte from the previous merged file (and the rebuilt shard
    from its previous output); the merged files are the bytes of a cold unsharded build."""
    from derive import parquet as P

    monkeypatch.setattr(P, "ROW_GROUP_ROWS", 300)
    slug, shards = "rgd-2001-10-18-n3", 2
    mine = shard_of(slug, shards)
    outs = [tmp_path / f"shard-{i}" for i in range(shards)]
    for i, out in enumerate(outs):
        build_dataset(lu_copy, out, shard=(i, shards), cache=cache)
    first = merge_shards(outs, tmp_path / "merged")
    assert first.row_groups > 3 and first.row_groups_copied == 0  # nothing to copy from
    again = merge_shards(outs, tmp_path / "merged")
    assert again.row_groups_copied == again.row_groups  # the same works: every group copied
    with _one_change(lu_copy, slug):
        assert D.refresh_shard(lu_copy, outs[1 - mine], (1 - mine, shards))
        rebuilt = build_dataset(lu_copy, outs[mine], shard=(mine, shards), cache=cache)
        assert rebuilt.derived == [f"lu-legilux:{slug}"] and 0 < rebuilt.row_groups_copied < rebuilt.row_groups
        merged = merge_shards(outs, tmp_path / "merged")
        assert 0 < merged.row_groups_copied < merged.row_groups
        build_dataset(lu_copy, tmp_path / "scratch", use_cache=False)
        _same(tmp_path / "scratch", tmp_path / "merged")
        build_dataset(lu_copy, tmp_path / "cold-shard", shard=(mine, shards), use_cache=False)
        assert (tmp_path / "cold-shard" / "provisions.parquet").read_bytes() == \
            (outs[mine] / "provisions.parquet").read_bytes()


@pytest.mark.parametrize("chunk", [64, 3000])
def test_a_merge_reading_the_shards_lines_in_small_chunks_writes_the_same_bytes(lu_copy, cache, tmp_path,
                                                                                monkeypatch, chunk):
    """The merge reads each shard's JSONL a chunk at a time into one buffer it keeps
    (:class:`derive.dataset._Lines`): lines that straddle two chunks, and lines longer than a
    chunk (the buffer grows), give the bytes, digest and spans of a merge whose chunk holds every
    shard whole; a shard whose JSONL ends a line early is refused at the end of its file."""
    shards = 2
    outs = [tmp_path / f"shard-{i}" for i in range(shards)]
    for i, out in enumerate(outs):
        build_dataset(lu_copy, out, shard=(i, shards), cache=cache)
    whole = merge_shards(outs, tmp_path / "whole")
    monkeypatch.setattr(D._Lines, "CHUNK", chunk)
    small = merge_shards(outs, tmp_path / "small")
    assert _snapshot(tmp_path / "small") == _snapshot(tmp_path / "whole")
    assert small.sha256 == whole.sha256 and small.spans == whole.spans
    jsonl = outs[0] / "provisions.jsonl"
    jsonl.write_bytes(jsonl.read_bytes()[:-1].rsplit(b"\n", 1)[0] + b"\n")  # the last line gone
    with pytest.raises(DerivationError) as info:
        merge_shards(outs, tmp_path / "short")
    assert info.value.code == "shard_mismatch" and not (tmp_path / "short").exists()


def test_merge_refuses_a_shard_whose_lines_and_table_disagree(tmp_path, eu_tree):
    """The merge copies a work's JSONL lines as bytes, as many as its Parquet rows: a line of
    another work there is a shard that does not hold together."""
    outs = [tmp_path / f"s{i}" for i in range(2)]
    for i, out in enumerate(outs):
        build_dataset(eu_tree, out, shard=(i, 2), use_cache=False)
    lines = (outs[0] / "provisions.jsonl").read_bytes().splitlines(keepends=True)
    other = next(i for i, line in enumerate(lines) if json.loads(line)["work_id"] != json.loads(lines[0])["work_id"])
    (outs[0] / "provisions.jsonl").write_bytes(b"".join([lines[other], *lines[:other], *lines[other + 1:]]))
    with pytest.raises(DerivationError) as info:
        merge_shards(outs, tmp_path / "merged")
    assert info.value.code == "shard_mismatch" and not (tmp_path / "merged").exists()


def test_a_shard_rebuilt_with_workers_copies_rows_only_when_encoded_alike(lu_copy, cache, tmp_path):
    """A shard rebuilt over its previous output copies the rows of its works whose cache key is the
    one that output recorded (``shard.json`` ``keys``), with a worker pool too; with another alias
    table (citations resolve otherwise) nothing is copied. Either way the files are a cold build's."""
    shard = (shard_of("rgd-2001-10-18-n3", 2), 2)
    out = tmp_path / "shard"
    build_dataset(lu_copy, out, shard=shard, cache=cache)
    report = build_dataset(lu_copy, out, shard=shard, cache=cache, workers=2)
    assert report.works_copied == report.works_reused == report.works > 1
    build_dataset(lu_copy, tmp_path / "cold", shard=shard, use_cache=False)

    def files(root: Path) -> dict[str, bytes]:
        return {k: v for k, v in _snapshot(root).items() if k != "shard.json"}

    assert files(out) == files(tmp_path / "cold")
    real = D.alias_table(lu_copy)
    moved = AliasTable.build([("conv-1993-12-13-n7", "lu-legilux:constitution-1868-10-17-n1")], real.held)
    report = build_dataset(lu_copy, out, shard=shard, cache=cache, aliases=moved)
    assert report.works_copied == 0 and report.works_reused == report.works
    build_dataset(lu_copy, tmp_path / "cold-moved", shard=shard, use_cache=False, aliases=moved)
    assert files(out) == files(tmp_path / "cold-moved")
    # back to the real table: the previous output was encoded with the other one, so nothing is copied
    report = build_dataset(lu_copy, out, shard=shard, cache=cache, aliases=real)
    assert report.works_copied == 0
    assert files(out) == files(tmp_path / "cold")


@pytest.mark.parametrize("way", ["kernel", "no-kernel-copy", "long-first-line"])
def test_a_merge_copying_lines_by_the_kernel_writes_the_same_bytes(lu_copy, cache, tmp_path, monkeypatch, way):
    """The lines of works whose row group is copied are copied file to file by the kernel
    (``os.copy_file_range``), checked and hashed as they are read: the merged files and the
    digest the report gives are those of a merge that writes every byte itself — also when the
    kernel cannot copy, or when a first line is longer than the buffer (both copied the old way)."""
    import hashlib

    from derive import parquet as P

    monkeypatch.setattr(P, "ROW_GROUP_ROWS", 300)
    shards = 2
    outs = [tmp_path / f"shard-{i}" for i in range(shards)]
    for i, out in enumerate(outs):
        build_dataset(lu_copy, out, shard=(i, shards), cache=cache)
    first = merge_shards(outs, tmp_path / "merged")  # nothing to copy from: every line written here
    expected = _snapshot(tmp_path / "merged")
    calls: list[int] = []
    real = D.os.copy_file_range

    def counting(*args: int) -> int:
        calls.append(args[2])
        if way == "no-kernel-copy":
            raise OSError(18, "cross-device")
        return real(*args)

    monkeypatch.setattr(D.os, "copy_file_range", counting)
    monkeypatch.setattr(D._Lines, "KERNEL_COPY", 1)
    if way == "long-first-line":
        monkeypatch.setattr(D._Lines, "CHUNK", 64)
    again = merge_shards(outs, tmp_path / "merged")
    assert again.row_groups_copied == again.row_groups > 3
    assert _snapshot(tmp_path / "merged") == expected
    data = (tmp_path / "merged" / "provisions.jsonl").read_bytes()
    assert again.sha256["provisions.jsonl"] == first.sha256["provisions.jsonl"] == hashlib.sha256(data).hexdigest()
    if way == "long-first-line":
        assert not calls  # no first line fits 64 bytes: checked and written the buffered way
    else:
        assert calls


def test_the_merge_writes_each_works_span_and_an_index_build_takes_them_unread(lu_copy, cache, tmp_path,
                                                                               monkeypatch):
    """The merge's work-spans sidecar (:mod:`derive.work_spans`) places every work's lines as a pass
    over the file finds them, bound to the file's SHA-256. An index build given that digest takes
    the spans instead of reading the file (a full build still reads it for its runs); the index
    is the bytes of a build that read the file, and after one changed work the incremental build
    reads only that work's rows, with a full build's stamp. A sidecar of another file is not used."""
    import hashlib

    import derive.index.build as B
    from derive import work_spans
    from derive.index.ranges import jsonl_ranges
    from legal.ids import Publisher

    slug, shards = "rgd-2001-10-18-n3", 2
    outs = [tmp_path / f"shard-{i}" for i in range(shards)]
    for i, out in enumerate(outs):
        build_dataset(lu_copy, out, shard=(i, shards), cache=cache)
    merged = tmp_path / "merged"
    report = merge_shards(outs, merged)
    jsonl = merged / "provisions.jsonl"
    sha = hashlib.sha256(jsonl.read_bytes()).hexdigest()
    assert report.sha256["provisions.jsonl"] == sha
    spans = work_spans.read(merged, sha, jsonl.stat().st_size)
    assert spans is not None and all(s.ident for s in spans)
    found = jsonl_ranges(jsonl, with_runs=False)
    assert found is not None
    assert {s.work_id: (s.position, s.start, s.end) for s in spans} == \
        {w: (r.position, r.start, r.end) for w, r in found.works.items()}
    assert work_spans.read(merged, "0" * 64, jsonl.stat().st_size) is None  # another file's digest

    def known(path: Path) -> str:
        return hashlib.sha256(path.read_bytes()).hexdigest()

    def build(out: str, previous: Path | None = None, held: bool = True) -> B.BuildResult:
        return B.build_from_paths(Publisher.LEGILUX, lu_copy, merged, tmp_path / out, built_at="2026-01-01T00:00:00Z",
                                  previous=previous, known_sha256=known if held else None)

    passes: list[Path] = []
    hashing: list[bool] = []
    original = B.jsonl_ranges

    def counted(path: Path, *, with_runs: bool = True, hashed: bool = True) -> object:
        passes.append(path)
        hashing.append(hashed)
        return original(path, with_runs=with_runs, hashed=hashed)

    monkeypatch.setattr(B, "jsonl_ranges", counted)
    read = build("read", held=False)
    taken = build("taken")
    assert taken.index_sha256 == read.index_sha256 and taken.stamp == read.stamp
    # the full build given the sidecar makes its pass (for the runs) without hashing the lines
    assert hashing == [True, False]
    passes.clear()
    again = build("again", previous=tmp_path / "taken")
    assert again.metrics["mode"] == "incremental" and again.metrics["works_changed"] == 0
    works = again.metrics["works_unread"]  # every work (some have no lines)
    assert works >= len(spans) and passes == []  # the file was not read
    with _one_change(lu_copy, slug):
        mine = shard_of(slug, shards)
        assert D.refresh_shard(lu_copy, outs[1 - mine], (1 - mine, shards))
        build_dataset(lu_copy, outs[mine], shard=(mine, shards), cache=cache)
        merge_shards(outs, merged)
        changed = build("changed", previous=tmp_path / "taken")
        assert passes == []
        assert changed.metrics["mode"] == "incremental" and changed.metrics["changed"] == [slug]
        assert changed.metrics["works_unread"] == works - 1
        full = build("full", held=False)  # (it reads the file: no digest held)
        assert changed.stamp == full.stamp
        passes.clear()
        # a stale sidecar (the previous file's digest) is not used: the file is read
        (merged.parent / f".{merged.name}.work-spans.json").write_bytes(work_spans.document(sha, spans))
        stale = build("stale", previous=tmp_path / "changed")
        assert passes == [merged / "provisions.jsonl"] and stale.stamp == full.stamp


def test_an_alias_table_from_a_memo_reads_only_the_works_whose_records_changed(lu_copy, monkeypatch):
    """``alias_table(tree, known, found)``: a work whose manifest records digest is the one the memo
    recorded is not read (its recorded slugs are taken); any other work is read. The table from a
    memo of the same tree is the table from the records."""
    from corpus_tree.tree import CorpusTree

    found: dict[str, list[object]] = {}
    table = D.alias_table(lu_copy, {}, found)
    assert table == D.alias_table(lu_copy)
    assert found and all(isinstance(d, str) for d, _ in found.values())
    read: list[str] = []
    versions = CorpusTree.versions

    def counted(self: CorpusTree, slug: str, **kwargs: object) -> object:
        read.append(slug)
        return versions(self, slug, **kwargs)

    monkeypatch.setattr(CorpusTree, "versions", counted)
    assert D.alias_table(lu_copy, found) == table and read == []
    slug = sorted(found)[0]
    work_id = f"lu-legilux:{slug}"
    stale = {**found, slug: ["0" * 64, ["not-an-alias"]]}
    assert D.alias_table(lu_copy, stale) == table and read == [slug]
    # what the memo records is taken as the work's when its digest is the manifest's
    vouched = {**found, slug: [found[slug][0], ["another-alias"]]}
    assert D.alias_table(lu_copy, vouched).aliases.get("another-alias") == work_id


def _history_files(out: Path) -> dict[str, Path]:
    return {p.relative_to(out).as_posix(): p for p in sorted((out / "history").rglob("*.json"))}


def test_unchanged_history_files_are_linked_and_an_altered_previous_one_is_written_again(lu_copy, cache, tmp_path):
    """The merge gives each work's history file a second name (the shard's file: no byte copied),
    and a shard rebuilt for one changed work links its unchanged works' files from its previous
    output when they hold the cache entry's bytes; a previous file whose bytes were altered is not
    reused (the entry's bytes are written to a new file), and the merged dataset is still a cold
    build's bytes."""

    slug, shards = "rgd-2001-10-18-n3", 2
    mine = shard_of(slug, shards)
    outs = [tmp_path / f"shard-{i}" for i in range(shards)]
    for i, out in enumerate(outs):
        build_dataset(lu_copy, out, shard=(i, shards), cache=cache)
    merge_shards(outs, tmp_path / "merged")
    merged = _history_files(tmp_path / "merged")
    held = {name: path for out in outs for name, path in _history_files(out).items()}
    assert merged and merged.keys() == held.keys()
    assert all(path.stat().st_ino == held[name].stat().st_ino for name, path in merged.items())
    previous = _history_files(outs[mine])
    changed_name = f"history/lu-legilux/{slug}.json"
    others = sorted(name for name in previous if name != changed_name)
    assert changed_name in previous and len(others) >= 2
    altered = others[0]
    inodes = {name: path.stat().st_ino for name, path in previous.items()}
    with _one_change(lu_copy, slug):
        assert D.refresh_shard(lu_copy, outs[1 - mine], (1 - mine, shards))
        # the previous output's file of an unchanged work altered in place, its size kept
        data = bytearray(previous[altered].read_bytes())
        data[-2:-1] = b" " if data[-2:-1] != b" " else b"\t"
        with previous[altered].open("r+b") as handle:
            handle.write(bytes(data))
        report = build_dataset(lu_copy, outs[mine], shard=(mine, shards), cache=cache)
        assert report.derived == [f"lu-legilux:{slug}"] and report.works_copied == report.works - 1
        rebuilt = _history_files(outs[mine])
        assert rebuilt.keys() == previous.keys()
        linked = {name for name, path in rebuilt.items() if path.stat().st_ino == inodes[name]}
        assert linked == set(others) - {altered}  # the changed work's file and the altered one are new
        assert rebuilt[altered].read_bytes() != bytes(data)
        merge_shards(outs, tmp_path / "merged")
        build_dataset(lu_copy, tmp_path / "scratch", use_cache=False)
        _same(tmp_path / "scratch", tmp_path / "merged")


def test_a_one_change_run_inside_a_held_tree_writes_the_bytes_of_one_without_it(lu_copy, cache, tmp_path, monkeypatch):
    """The derive stage holds the tree's facts for its shards (``tree_held``, issue #13, oc44): the
    one-changed-work run made inside the block — the other shard refreshed, the changed work's shard
    rebuilt, the shards merged — writes the same bytes as the same run without it (shard outputs and
    merged dataset), which is an unsharded cold build of the changed tree; a merge that fails inside
    the block leaves the previous dataset byte-identical and nothing held."""
    slug, shards = "rgd-2001-10-18-n3", 2
    mine, other = shard_of(slug, shards), 1 - shard_of(slug, shards)
    sides = {}
    for side in ("plain", "held"):
        outs = [tmp_path / side / f"shard-{i}" for i in range(shards)]
        side_cache = tmp_path / side / "cache"
        shutil.copytree(cache, side_cache)
        for i, out in enumerate(outs):
            build_dataset(lu_copy, out, shard=(i, shards), cache=side_cache)
        merge_shards(outs, tmp_path / side / "merged")
        sides[side] = (outs, side_cache)
    with _one_change(lu_copy, slug):
        for side, (outs, side_cache) in sides.items():
            block = D.tree_held(lu_copy) if side == "held" else contextlib.nullcontext()
            with block:
                tree = lu_copy
                assert D.refresh_shard(tree, outs[other], (other, shards))
                assert not D.refresh_shard(tree, outs[mine], (mine, shards))
                build_dataset(tree, outs[mine], shard=(mine, shards), cache=side_cache)
                if side == "held":
                    previous = _snapshot(tmp_path / side / "merged")
                    real = D._Assembler.history_link
                    monkeypatch.setattr(D._Assembler, "history_link",
                                        lambda *a: (_ for _ in ()).throw(RuntimeError("killed midway")))
                    with pytest.raises(RuntimeError, match="killed midway"):
                        merge_shards(outs, tmp_path / side / "merged")
                    assert _snapshot(tmp_path / side / "merged") == previous
                    monkeypatch.setattr(D._Assembler, "history_link", real)
                merge_shards(outs, tmp_path / side / "merged")
            assert D._HELD == {}
        build_dataset(lu_copy, tmp_path / "scratch", use_cache=False)
    plain, held = sides["plain"][0], sides["held"][0]
    for i in range(shards):
        assert _snapshot(plain[i]) == _snapshot(held[i])
    assert _snapshot(tmp_path / "plain" / "merged") == _snapshot(tmp_path / "held" / "merged")
    _same(tmp_path / "scratch", tmp_path / "held" / "merged")
