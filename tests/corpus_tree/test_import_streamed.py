"""What an import holds until its commit (ADR 0086). It streams each record it renders to the
transaction's staging directory (``corpus_tree.txn.Stage``): until the one all-or-nothing commit it
holds each file's staged name, not its bytes; the tree is the same bytes, and a failure after some
records are staged leaves the previous tree byte-identical. A body held elsewhere is named by one
path string, shared by the memo and the report's list."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from corpus_tree import CorpusTree, txn
from corpus_tree import importer as importer_module
from corpus_tree.importer import SourceMemo, import_published
from corpus_tree.verify import verify_tree
from legal.errors import CorpusError

from .conftest import SMALL_EU, SMALL_LU, copy_source, snapshot


def _staged_files(root: Path) -> list[Path]:
    return sorted((root / txn.STAGING).glob("*/files/*"))


def test_each_version_record_is_on_disk_before_the_next_is_rendered(
        eu_fixture: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = copy_source(eu_fixture, tmp_path / "src", SMALL_EU)
    target = tmp_path / "tree"
    staged_when_rendered: list[int] = []
    real = importer_module.render_unchecked

    def spy(record: Any) -> bytes:
        staged_when_rendered.append(len(_staged_files(target)))
        return real(record)

    committed: dict[str, Any] = {}
    real_commit = txn.Stage.commit

    def commit_spy(self: txn.Stage, **kw: Any) -> txn.CommitReport:
        committed["files"] = dict(self.files)
        committed["on_disk"] = len(_staged_files(target))
        return real_commit(self, **kw)

    monkeypatch.setattr(importer_module, "render_unchecked", spy)
    monkeypatch.setattr(txn.Stage, "commit", commit_spy)
    report = import_published(src, target, durable=False)
    versions = report.records_written
    assert versions > 3 and len(staged_when_rendered) == versions
    first = staged_when_rendered[0]
    assert first == report.works_written  # the work records were staged before the first version
    assert staged_when_rendered == list(range(first, first + versions))  # one more staged file per record
    # what the run holds until the commit is each file's staged name, never its bytes
    assert all(isinstance(name, str) for name in committed["files"].values())
    assert len(committed["files"]) == committed["on_disk"] == report.works_written + versions + 1  # + manifest
    assert not (target / txn.STAGING).exists()
    assert verify_tree(target).ok


def test_the_streamed_import_writes_the_bytes_of_the_in_memory_commit(
        lu_fixture: Path, eu_fixture: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sources = [copy_source(lu_fixture, tmp_path / "lu", SMALL_LU), copy_source(eu_fixture, tmp_path / "eu", SMALL_EU)]
    for src in sources:
        import_published(src, tmp_path / "streamed", durable=False)

    def in_memory(tree: CorpusTree, source: Any, report: Any, progress: Any, durable: bool,
                  rehash: bool = False, *rest: Any) -> None:
        """The import as it was: every rendered record held, then :func:`txn.commit`."""
        changes = txn.ChangeSet()

        class Held:
            blobs = changes.blobs

            @staticmethod
            def put(rel: str, data: bytes) -> bool:
                changes.files[rel] = data
                return True

            @staticmethod
            def put_file(rel: str, src: Any) -> bool:  # the manifest, rendered to a file (ADR 0093)
                data = src.read()
                if (tree.root / rel).read_bytes() == data:
                    return False
                changes.files[rel] = data
                return True

            @staticmethod
            def commit(**kw: Any) -> txn.CommitReport:
                changes.blobs = dict(Held.blobs)  # the import hands its own (spilled) mapping (ADR 0093)
                return txn.commit(tree.root, tree.evidence, changes, **kw)

        class HeldStage:
            def __enter__(self) -> type[Held]:
                return Held

            def __exit__(self, *exc: object) -> None:
                return None

        held_txn = SimpleNamespace(**{**vars(txn), "staged": lambda root, evidence: HeldStage()})
        with monkeypatch.context() as m:
            m.setattr(importer_module, "txn", held_txn)  # the importer's txn only: txn.commit stages as ever
            real_import_into(tree, source, report, progress, durable, rehash, *rest)

    real_import_into = importer_module._import_into
    monkeypatch.setattr(importer_module, "_import_into", in_memory)
    for src in sources:
        import_published(src, tmp_path / "held", durable=False)
    assert snapshot(tmp_path / "streamed") == snapshot(tmp_path / "held")


def test_a_failure_after_records_are_staged_leaves_the_tree_byte_identical(
        small_tree: Path, eu_fixture: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(small_tree, tree, symlinks=True)
    before = snapshot(tree)
    src = copy_source(eu_fixture, tmp_path / "src", ("32004l0048r(03)", "11997e083"))
    real_manifest = importer_module._fold_manifest

    def fail_after_staging(*args: Any) -> Any:
        assert _staged_files(tree), "records were staged before the manifest is built"
        raise CorpusError("injected failure", code="injected")

    monkeypatch.setattr(importer_module, "_fold_manifest", fail_after_staging)
    with pytest.raises(CorpusError, match="injected"):
        import_published(src, tree, durable=False)
    assert snapshot(tree) == before
    monkeypatch.setattr(importer_module, "_fold_manifest", real_manifest)
    import_published(src, tree, durable=False)
    assert verify_tree(tree).ok


def test_a_body_held_elsewhere_is_named_by_one_string_for_the_memo_and_the_report(
        lu_fixture: Path, tmp_path: Path) -> None:
    src = copy_source(lu_fixture, tmp_path / "src", ("loi-1980-03-07-n1", "rgd-2020-03-18-a165", *SMALL_LU))
    memo = SourceMemo()
    report = import_published(src, tmp_path / "tree", durable=False, memo=memo)
    kept = {rel: rel for work in memo.works.values() for version in work["versions"]
            for _sha, rel, present in version["bodies"] if not present}
    assert len(report.held_elsewhere) == len(kept) >= 25
    assert all(entry["path"] is kept[entry["path"]] for entry in report.held_elsewhere)  # the same object
