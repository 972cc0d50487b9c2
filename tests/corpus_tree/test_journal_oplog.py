"""The commit's journal with its operations in an oplog (issue #13, ADR 0100).

The journal (``lex-tree-journal/2``) lists the new blobs and counts the operations; the operations
(a line each: a directory the run creates, a file it renames) are written to the run's oplog as they
are planned and read back to apply, roll back and recover. A journal of the first format (operations
inline) left by an older run is still recovered; an oplog that is not the one its journal counts is
refused before anything is undone.
"""

from __future__ import annotations

import io
import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

from corpus_tree import CorpusTree, txn
from corpus_tree.evidence import EvidenceStore
from corpus_tree.import_spill import SpilledMap
from corpus_tree.importer import import_published
from legal.errors import CorpusError
from tests.corpus_tree.conftest import snapshot

#: new files: one replacing a file of the tree (found at run time), two in new nested directories
NEW = {"works/zz-new/versions/a/record.json": b"{}\n", "works/zz-new/versions/b/record.json": b"[]\n",
       "works/zz-new/work.json": b"{\"w\": 1}\n"}


def _existing(tree: Path) -> str:
    return sorted(p.relative_to(tree).as_posix() for p in (tree / "works").rglob("*.json"))[0]


def _stage(tree: Path, stage: txn.Stage) -> None:
    stage.put(_existing(tree), b"{\"replaced\": true}\n")
    for rel, data in NEW.items():
        stage.put(rel, data)


def _v1_journal(tree: Path, evidence: EvidenceStore, stage: txn.Stage) -> dict[str, Any]:
    """The journal a run before ADR 0100 wrote (``lex-tree-journal/1``: ``ops`` and ``new_dirs`` inline)."""
    new_dirs: list[str] = []
    ancestors = txn._Ancestors(tree)
    ops = []
    for rel in sorted(stage.files):
        new_dirs.extend(ancestors.missing(rel.rpartition("/")[0]))
        ops.append({"path": rel, "staged": stage.files[rel], "backup": (tree / rel).exists()})
    return {"schema": "lex-tree-journal/1", "run_id": stage.run_id, "state": "prepared",
            "evidence_root": str(evidence.root), "evidence_in_tree": True, "ops": ops,
            "new_dirs": new_dirs, "blobs": [], "blob_dirs": []}


def _apply_v1(tree: Path, journal: dict[str, Any], renames: int) -> None:
    """What a run before ADR 0100 did before it was killed: directories, backups, ``renames`` renames."""
    staging = tree / txn.STAGING / journal["run_id"]
    for d in journal["new_dirs"]:
        (tree / d).mkdir(exist_ok=True)
    (staging / "backup").mkdir()
    for op in journal["ops"]:
        if op["backup"]:
            txn._backup_op(tree, staging, op)
    for op in journal["ops"][:renames]:
        txn._apply_op(tree, staging, op)


@pytest.mark.parametrize("renames", [0, 1, 2, 4])
def test_a_prepared_journal_of_the_first_format_is_rolled_back(tree_copy: Path, renames: int) -> None:
    before = snapshot(tree_copy)
    evidence = EvidenceStore(tree_copy / "evidence")
    with txn.tree_lock(tree_copy), txn.staged(tree_copy, evidence) as stage:
        _stage(tree_copy, stage)
        stage._files_dir()
        journal = _v1_journal(tree_copy, evidence, stage)
        assert len(journal["ops"]) == 4 and journal["new_dirs"]
        txn._write_json_atomic(tree_copy / txn.JOURNAL, tree_copy / "j.tmp", journal, False)
        _apply_v1(tree_copy, journal, renames)  # then "killed": the journal keeps the staging
    assert (tree_copy / txn.JOURNAL).exists() and snapshot(tree_copy) != before
    CorpusTree.open(tree_copy)  # recovery
    assert snapshot(tree_copy) == before


def test_a_committed_journal_of_the_first_format_is_rolled_forward(tree_copy: Path) -> None:
    evidence = EvidenceStore(tree_copy / "evidence")
    with txn.tree_lock(tree_copy), txn.staged(tree_copy, evidence) as stage:
        _stage(tree_copy, stage)
        stage._files_dir()
        journal = _v1_journal(tree_copy, evidence, stage)
        _apply_v1(tree_copy, journal, len(journal["ops"]))
        txn._write_json_atomic(tree_copy / txn.JOURNAL, tree_copy / "j.tmp", {**journal, "state": "committed"},
                               False)
    assert txn.recover(tree_copy, evidence) == "rolled_forward"
    assert not (tree_copy / txn.JOURNAL).exists() and not (tree_copy / txn.STAGING).exists()
    for rel, data in NEW.items():
        assert (tree_copy / rel).read_bytes() == data


def _prepared(tree: Path) -> tuple[dict[str, Any], txn.Stage]:
    """A run of the current format killed after its journal was written (nothing applied)."""
    evidence = EvidenceStore(tree / "evidence")
    with txn.tree_lock(tree), txn.staged(tree, evidence) as stage:
        _stage(tree, stage)
        stage._files_dir()
        journal = txn._plan(tree, evidence, stage.run_id, stage.files, [])
        txn._write_json_atomic(tree / txn.JOURNAL, tree / "j.tmp", journal, False)
    return journal, stage


def test_the_oplog_lists_what_the_first_format_listed(tree_copy: Path) -> None:
    """Same renames in the same order, same new directories in the same order, each directory
    before anything under it; the journal itself holds no per-file list."""
    evidence = EvidenceStore(tree_copy / "evidence")
    with txn.tree_lock(tree_copy), txn.staged(tree_copy, evidence) as stage:
        _stage(tree_copy, stage)
        stage._files_dir()
        old = _v1_journal(tree_copy, evidence, stage)
        journal = txn._plan(tree_copy, evidence, stage.run_id, stage.files, [])
        lines = (tree_copy / txn.STAGING / stage.run_id / txn.OPLOG).read_text(encoding="utf-8").splitlines()
    assert journal["schema"] == "lex-tree-journal/2" and "ops" not in journal and "new_dirs" not in journal
    entries = [json.loads(line) for line in lines]
    assert [e for e in entries if "dir" not in e] == old["ops"]
    assert [e["dir"] for e in entries if "dir" in e] == old["new_dirs"]
    assert (journal["files"], journal["dirs"]) == (len(old["ops"]), len(old["new_dirs"]))
    made: set[str] = set()
    for e in entries:
        if "dir" in e:
            made.add(e["dir"])
        parent = (e.get("dir") or e["path"]).rpartition("/")[0]
        assert parent in made or (tree_copy / parent).is_dir()


def test_a_prepared_journal_is_rolled_back_and_a_finished_rollback_is_finished(tree_copy: Path) -> None:
    before = snapshot(tree_copy)
    journal, stage = _prepared(tree_copy)
    staging = tree_copy / txn.STAGING / stage.run_id
    txn._apply(tree_copy, EvidenceStore(tree_copy / "evidence"), journal, False, None)  # all renamed, not committed
    assert snapshot(tree_copy) != before
    CorpusTree.open(tree_copy)
    assert snapshot(tree_copy) == before
    # killed after a rollback's clean-up removed the staging (oplog included), before the journal went
    journal, stage = _prepared(tree_copy)
    txn._cleanup(tree_copy, EvidenceStore(tree_copy / "evidence"), stage.run_id)
    assert (tree_copy / txn.JOURNAL).exists() and not staging.exists()
    assert txn.recover(tree_copy, EvidenceStore(tree_copy / "evidence")) == "rolled_back"
    assert snapshot(tree_copy) == before


@pytest.mark.parametrize("damage", ["truncated", "torn", "extra"])
def test_an_oplog_that_is_not_the_one_its_journal_counts_is_refused(tree_copy: Path, damage: str) -> None:
    journal, stage = _prepared(tree_copy)
    evidence = EvidenceStore(tree_copy / "evidence")
    txn._apply(tree_copy, evidence, journal, False, None)
    oplog = tree_copy / txn.STAGING / stage.run_id / txn.OPLOG
    text = oplog.read_bytes()
    oplog.write_bytes({"truncated": text[:text.rindex(b"\n", 0, -1) + 1], "torn": text[:-1],
                       "extra": text + text.splitlines(keepends=True)[-1]}[damage])
    applied = snapshot(tree_copy)
    with pytest.raises(CorpusError) as raised:
        txn.recover(tree_copy, evidence)
    assert raised.value.code == "journal_torn"
    assert snapshot(tree_copy) == applied  # nothing undone


def test_the_imports_commit_holds_no_list_of_its_files(tmp_path: Path, lu_fixture: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The import hands the commit its spilled file map (taken in path order as it iterates) and the
    planned journal holds counts, not operations."""
    seen: dict[str, Any] = {}
    plan, commit = txn._plan, txn._commit

    def spy_commit(root: Path, evidence: EvidenceStore, files: Any, *args: Any) -> Any:
        seen["files"] = type(files)
        return commit(root, evidence, files, *args)

    def spy_plan(*args: Any) -> dict[str, Any]:
        journal = plan(*args)
        seen["journal"] = journal
        seen["lines"] = sum(1 for _ in (args[0] / txn.STAGING / args[2] / txn.OPLOG).open("rb"))
        return journal

    monkeypatch.setattr(txn, "_commit", spy_commit)
    monkeypatch.setattr(txn, "_plan", spy_plan)
    import_published(lu_fixture, tmp_path / "tree", durable=False)
    assert seen["files"] is SpilledMap
    journal = seen["journal"]
    assert journal["files"] > 100 and seen["lines"] == journal["files"] + journal["dirs"]
    assert not any(isinstance(v, list) for k, v in journal.items() if k not in ("blobs", "blob_dirs"))


def test_lines_read_last_first_are_the_lines() -> None:
    rng = random.Random(13)
    for _ in range(2000):
        data = b"".join(bytes(rng.choice(b"ab\n") for _ in range(rng.randint(0, 5))) for _ in range(rng.randint(0, 8)))
        for block in (1, 2, 3, 7, 1 << 16):
            assert list(txn._lines_reversed(io.BytesIO(data), block)) == data.splitlines(keepends=True)[::-1]


def test_rollback_reads_the_oplog_last_first(tree_copy: Path) -> None:
    """Every file under a new directory is undone before the directory is removed."""
    journal, _ = _prepared(tree_copy)
    txn._apply(tree_copy, EvidenceStore(tree_copy / "evidence"), journal, False, None)
    order: list[str] = []
    undo, rmdir = txn._undo_op, txn._rmdir_if_empty

    def spy_undo(root: Path, staging: Path, op: Any) -> None:
        order.append(op["path"])
        undo(root, staging, op)

    def spy_rmdir(path: Path) -> None:
        order.append(os.fspath(path))
        rmdir(path)

    txn._undo_op, txn._rmdir_if_empty = spy_undo, spy_rmdir  # type: ignore[assignment]
    try:
        txn.rollback(tree_copy, EvidenceStore(tree_copy / "evidence"), journal)
    finally:
        txn._undo_op, txn._rmdir_if_empty = undo, rmdir  # type: ignore[assignment]
    assert not (tree_copy / "works" / "zz-new").exists()
    assert order[0] == "works/zz-new/work.json"
