"""What an import keeps per work, version and body is held on disk (ADR 0093): no work record,
version summary or body source of the import is alive in memory when it commits (but the last
one made); the manifest
folded into the spill is ``build_manifest``'s, byte for byte; a file staged from a stream is
staged only if it differs from the tree's."""

from __future__ import annotations

import gc
import io
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from corpus_tree import CorpusTree, txn
from corpus_tree.import_spill import (
    SQLITE_FULL,
    Spill,
    SpilledList,
    SpilledManifest,
    SpilledMap,
    SpilledNames,
    spill_full,
    summaries,
)
from corpus_tree.importer import import_published
from corpus_tree.manifest import build_manifest
from corpus_tree.records import VersionSummary, WorkRecord, render
from corpus_tree.tree import MANIFEST
from corpus_tree.verify import verify_tree
from legal.errors import CorpusError

from .conftest import SMALL_EU, SMALL_LU, copy_source, snapshot


def _alive(kind: type, before: frozenset[int] = frozenset()) -> int:
    """The objects of `kind` alive now that were not alive in `before` (ids): what earlier tests of the
    same process still hold (a session fixture's summaries) is not this import's."""
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is kind and id(o) not in before)


def _is_work_path(o: object) -> bool:
    return isinstance(o, Path) and (o.parent.name == "works" or o.name == "versions")


def _work_paths_alive(before: frozenset[int] = frozenset()) -> int:
    """The paths alive, and not in `before`, that name a source work directory or its versions directory."""
    gc.collect()
    return sum(1 for o in gc.get_objects() if _is_work_path(o) and id(o) not in before)


def _alive_now() -> list[object]:
    """The objects the counts above look for, alive now (held by the caller, so no id is reused)."""
    gc.collect()
    kinds = (VersionSummary, WorkRecord, txn.BlobSource)
    return [o for o in gc.get_objects() if type(o) in kinds or _is_work_path(o)]


def test_nothing_per_work_version_or_body_is_held_in_memory_at_the_commit(
        lu_fixture: Path, eu_fixture: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both fixture corpora into one tree, then EUR-Lex again over it (the tree's records summarised):
    at each commit at most the last VersionSummary, WorkRecord or BlobSource made is alive (main
    held one per version, per work and per body to stage until the commit: hundreds here), and at most
    the last work's directory paths (the listing of the work directories and the plan held a path per
    work until the commit before ADR 0106)."""
    seen: list[tuple[int, int, int, int]] = []
    real = txn.Stage.commit
    held_before = _alive_now()
    before = frozenset(map(id, held_before))

    def spy(self: txn.Stage, **kw: Any) -> txn.CommitReport:
        seen.append((_alive(VersionSummary, before), _alive(WorkRecord, before), _alive(txn.BlobSource, before),
                     _work_paths_alive(before)))
        return real(self, **kw)

    monkeypatch.setattr(txn.Stage, "commit", spy)
    tree = tmp_path / "tree"
    reports = [import_published(src, tree, durable=False) for src in (lu_fixture, eu_fixture)]
    assert all(r.records_written > 50 and r.bodies_added > 50 for r in reports)
    again = import_published(copy_source(eu_fixture, tmp_path / "eu", SMALL_EU), tree, durable=False)
    assert again.records_unchanged > 3 and not again.manifest_changed
    assert len(seen) == 3 and all(n <= 2 for counts in seen for n in counts), seen  # the last one read, at most
    assert verify_tree(tree).ok


def test_the_spilled_manifest_is_build_manifests_bytes(lu_fixture: Path, eu_fixture: Path, tmp_path: Path) -> None:
    tree_root = tmp_path / "tree"
    for src in (copy_source(lu_fixture, tmp_path / "lu", SMALL_LU), copy_source(eu_fixture, tmp_path / "eu", SMALL_EU)):
        import_published(src, tree_root, durable=False)
    tree = CorpusTree.open(tree_root)
    works, versions = list(tree.works()), list(tree.version_summaries())
    cases = [(works, versions), (works[:1], versions), (works, versions[:2]), ([], []), (works, [])]
    for some_works, some_versions in cases:
        with Spill() as spill:
            fold = SpilledManifest(spill)
            for w in some_works:
                fold.add_work(w)
            for v in some_versions:
                fold.add_version(v)
            out = io.BytesIO()
            fold.write(out)
        assert out.getvalue() == render(build_manifest(some_works, some_versions))
    assert (tree_root / MANIFEST).read_bytes() == render(build_manifest(works, versions))


def test_spilled_maps_and_lists_keep_their_values_in_key_and_append_order(tmp_path: Path) -> None:
    with Spill() as spill:
        m: SpilledMap[Any] = SpilledMap(spill)
        keys = [f"k{i:04d}" for i in range(1200)][::-1]
        for k in keys:
            m[k] = {"k": k, "n": [1, None, True]}
        m["k0001"] = "replaced"
        del m["k0002"]
        assert len(m) == 1199 and "k0002" not in m and m.get("k0002") is None and m["k0001"] == "replaced"
        seen = []
        for k, _v in m.items():  # written to while iterated: keyset paging
            m[k] = 0
            seen.append(k)
        assert seen == sorted(set(keys) - {"k0002"}) and list(m) == seen and set(m.values()) == {0}
        with pytest.raises(KeyError):
            m["nope"]
        s = summaries(spill)
        tree_summary = VersionSummary  # the type round-trips through the spill
        assert s.get("x") is None and tree_summary is VersionSummary
        items: SpilledList[tuple[str, int]] = SpilledList(spill)
        for i in range(1100):
            items.append((f"p{i}", i))
        assert [v for _p, v in items] == list(range(1100)) and len(items) == 1100


def test_spilled_names_iterate_in_sorteds_order_and_keep_their_marks() -> None:
    """The names come back in ``sorted``'s order (code points), surrogate escapes of names that are
    not UTF-8 and characters past the BMP included, a page at a time, marked while iterated."""
    names = [f"w{i:04d}" for i in range(1100)] + ["é", "z", "Z", "a-b", "a", "\udcff", "\udc80x", "\U0001f600",
                                                    "\uffff", "\ue000", "ab\udce9", os.fsdecode(b"\xc3\xa9\xff")]
    with Spill() as spill:
        listing = SpilledNames(spill)
        for name in reversed(names):
            listing.add(name)
        listing.add("a")  # a name already held
        assert len(listing) == len(names)
        seen = []
        for i, (name, mark) in enumerate(listing):
            assert mark is None
            listing.mark(name, i % 3)
            seen.append(name)
        assert seen == sorted(names)
        assert list(listing) == [(name, i % 3) for i, name in enumerate(sorted(names))]
        with pytest.raises(KeyError):
            listing.mark("not-listed", 1)


def test_a_file_staged_from_a_stream_is_staged_only_if_it_differs(tmp_path: Path) -> None:
    root = tmp_path / "t"
    root.mkdir()
    (root / "same.json").write_bytes(b"x" * 3_000_000)
    from corpus_tree.evidence import EvidenceStore

    before = snapshot(root)
    with txn.staged(root, EvidenceStore(tmp_path / "ev")) as stage:
        assert stage.put_file("same.json", io.BytesIO(b"x" * 3_000_000)) is False
        assert not (root / txn.STAGING).exists()  # nothing staged: no staging directory
        assert stage.put_file("new.json", io.BytesIO(b"y" * 2_500_000)) is True
        assert stage.put_file("same.json", io.BytesIO(b"x" * 2_999_999 + b"z")) is True
        assert stage.put_file("same.json", io.BytesIO(b"x" * 3_000_000)) is False  # the earlier staging dropped
        assert sorted(stage.files) == ["new.json"]
    assert snapshot(root) == before


def test_a_spill_out_of_room_is_disk_full_and_leaves_the_tree_as_it_was(
        lu_fixture: Path, eu_fixture: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full temporary directory reaches the import as SQLite's ``SQLITE_FULL``; here the spill's
    database is capped at a few pages, which raises the same code. The import names it ``disk_full``
    (not SQLite's bare OperationalError) and the tree it was importing into is byte-identical."""
    tree = tmp_path / "tree"
    import_published(copy_source(lu_fixture, tmp_path / "lu", SMALL_LU), tree, durable=False)
    before = snapshot(tree)
    real_init = Spill.__init__

    def capped(self: Spill) -> None:
        real_init(self)
        self.db.execute("PRAGMA max_page_count = 8")

    monkeypatch.setattr(Spill, "__init__", capped)
    with pytest.raises(CorpusError) as err:
        import_published(eu_fixture, tree, durable=False)
    assert err.value.code == "disk_full" and "spill" in str(err.value)
    assert snapshot(tree) == before


def test_spill_full_names_only_a_full_database() -> None:
    full = sqlite3.OperationalError("database or disk is full")
    full.sqlite_errorcode = SQLITE_FULL  # type: ignore[attr-defined]
    other = sqlite3.OperationalError("no such table: t1")
    other.sqlite_errorcode = 1  # type: ignore[attr-defined]
    named = spill_full(full)
    assert named is not None and named.code == "disk_full"
    assert spill_full(other) is None and spill_full(OSError("x")) is None


def test_a_fold_without_keys_absorbs_other_folds_and_renders_manifest_of_them(lu_fixture: Path, eu_fixture: Path,
                                                                           tmp_path: Path) -> None:
    """An apply's fold (``unique=False``, ADR 0121): a spilled fold that absorbs an in-memory
    ``ManifestFold`` and a spilled one of another database renders ``render(manifest_of(...))`` of them
    all, byte for byte — a row met twice kept twice, as ``ManifestFold`` keeps it — and ``parts`` gives
    that fold back to ``manifest_of``."""
    from corpus_tree.manifest import ManifestFold, manifest_of

    tree_root = tmp_path / "tree"
    for src in (copy_source(lu_fixture, tmp_path / "lu", SMALL_LU), copy_source(eu_fixture, tmp_path / "eu", SMALL_EU)):
        import_published(src, tree_root, durable=False)
    tree = CorpusTree.open(tree_root)
    works, versions = list(tree.works()), list(tree.iter_versions(verify=False))
    assert len({v.publisher for v in versions}) == 2
    for twice in (False, True):
        memory, other, mine = ManifestFold(), ManifestFold(), ManifestFold()
        with Spill() as a, Spill() as b:
            spilled_other, fold = SpilledManifest(b, unique=False), SpilledManifest(a, unique=False)
            for i, v in enumerate(versions + versions[:2] if twice else versions):
                if i % 3 == 0:
                    memory.add_version(v)  # absorbed as it is
                elif i % 3 == 1:
                    other.add_version(v)
                    spilled_other.add_version(v)  # the same rows, in another database
                else:
                    mine.add_version(v)
                    fold.add_version(v)
            for w in works:
                mine.add_work(w)
                fold.add_work(w)
            fold.absorb(memory)
            fold.absorb(spilled_other)
            out = io.BytesIO()
            fold.write(out)
            expected = render(manifest_of(memory, other, mine))
            assert out.getvalue() == expected
            assert render(manifest_of(fold)) == expected
        if not twice:
            assert expected == render(build_manifest(works, versions)) == (tree_root / MANIFEST).read_bytes()
