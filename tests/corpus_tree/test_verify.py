"""Integrity verification: a clean tree passes; any tampering fails and names the file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.corpus import group
from corpus_tree import CorpusTree
from corpus_tree.evidence import blob_relpath
from corpus_tree.verify import verify_tree

GDPR = "32016r0679"


def _paths(tree: Path) -> set[str]:
    return {p.path for p in verify_tree(tree).problems}


def _flip(path: Path, offset: int | None = None) -> None:
    os.chmod(path, 0o644)
    data = bytearray(path.read_bytes())
    i = len(data) // 2 if offset is None else offset
    data[i] ^= 0x01
    path.write_bytes(bytes(data))
    os.chmod(path, 0o444)  # a tamperer who restores the mode: only the hash can tell


def _gdpr_record(tree: Path, index: int = 1) -> Path:
    return sorted((tree / "works" / GDPR / "versions").glob("*/meta.json"))[index]


def test_imported_fixture_tree_verifies_clean(imported_tree: Path) -> None:
    report = verify_tree(imported_tree)
    assert report.ok, report.problems
    assert report.versions == 360 and report.works == 97
    assert report.bodies_checked == 240 and report.held_elsewhere == 2501


def test_small_tree_verifies_clean(small_tree: Path) -> None:
    assert verify_tree(small_tree).ok


def test_flipped_byte_in_a_body_names_the_blob_and_its_record(tree_copy: Path) -> None:
    tree = CorpusTree.open(tree_copy)
    record = tree.versions(GDPR)[1]
    sha = record.expressions[0].observations[0].sha256
    _flip(tree.evidence.path_of(sha))
    problems = verify_tree(tree_copy).problems
    assert [p.code for p in problems] == ["body_hash_mismatch"]
    assert problems[0].path == f"evidence/{blob_relpath(sha)}"
    assert record.path is not None and record.path in problems[0].message


def test_flipped_byte_in_a_record_names_the_record(tree_copy: Path) -> None:
    record = _gdpr_record(tree_copy)
    _flip(record, record.read_bytes().index(b"consolidated") + 2)
    rel = record.relative_to(tree_copy).as_posix()
    problems = verify_tree(tree_copy).problems
    assert rel in {p.path for p in problems}
    assert {p.code for p in problems if p.path == rel} >= {"record_hash_mismatch"}


def test_flipped_byte_anywhere_in_a_record_is_caught(tree_copy: Path) -> None:
    record = _gdpr_record(tree_copy, 0)
    rel = record.relative_to(tree_copy).as_posix()
    original = record.read_bytes()
    for offset in (0, 1, 7, len(original) // 3, len(original) - 2, len(original) - 1):
        _flip(record, offset)
        assert rel in _paths(tree_copy), offset
        record.write_bytes(original)
    assert verify_tree(tree_copy).ok


def test_reformatted_record_with_same_content_is_caught(tree_copy: Path) -> None:
    record = _gdpr_record(tree_copy)
    record.write_bytes(json.dumps(json.loads(record.read_bytes())).encode())
    problems = verify_tree(tree_copy).problems
    assert [(p.path, p.code) for p in problems] == [
        (record.relative_to(tree_copy).as_posix(), "non_canonical_rendering")]


def test_deleted_record_names_the_file(tree_copy: Path) -> None:
    record = _gdpr_record(tree_copy)
    record.unlink()
    paths = _paths(tree_copy)
    assert record.relative_to(tree_copy).as_posix() in paths


def test_deleted_version_directory_names_the_work(tree_copy: Path) -> None:
    record = _gdpr_record(tree_copy)
    for p in record.parent.iterdir():
        p.unlink()
    record.parent.rmdir()
    problems = verify_tree(tree_copy).problems
    assert f"works/{GDPR}/versions" in {p.path for p in problems}
    assert any("manifest lists 2 version records, tree has 1" in p.message for p in problems)


def test_renamed_version_directory_names_the_directory(tree_copy: Path) -> None:
    vdir = _gdpr_record(tree_copy).parent
    renamed = vdir.with_name(vdir.name[:12] + "0" * 64)
    vdir.rename(renamed)
    problems = verify_tree(tree_copy).problems
    rel = renamed.relative_to(tree_copy).as_posix()
    assert (rel, "identity_mismatch") in {(p.path, p.code) for p in problems}


def test_legacy_positional_directory_name_is_caught(tree_copy: Path) -> None:
    vdir = _gdpr_record(tree_copy).parent
    renamed = vdir.with_name("2016-05-04--02")
    vdir.rename(renamed)
    codes = {p.code for p in verify_tree(tree_copy).problems if p.path == renamed.relative_to(tree_copy).as_posix()}
    assert {"invalid_version_key", "identity_mismatch"} <= codes


def test_deleted_body_names_the_record(tree_copy: Path) -> None:
    tree = CorpusTree.open(tree_copy)
    record = tree.versions(GDPR)[0]
    path = tree.evidence.path_of(record.expressions[0].observations[0].sha256)
    path.unlink()
    problems = verify_tree(tree_copy).problems
    assert ("works/" + GDPR, "missing_body") in {(p.path.rsplit("/versions", 1)[0], p.code) for p in problems}
    assert record.path in {p.path for p in problems}


def test_symlink_in_the_tree_is_caught(tree_copy: Path) -> None:
    link = tree_copy / "works" / GDPR / "versions" / "link"
    link.symlink_to("/")
    problems = verify_tree(tree_copy).problems
    assert (f"works/{GDPR}/versions/link", "symlink") in {(p.path, p.code) for p in problems}


def test_every_problem_is_reported_at_once(tree_copy: Path) -> None:
    tree = CorpusTree.open(tree_copy)
    first, second = tree.versions(GDPR)
    _flip(tree.evidence.path_of(first.expressions[0].observations[0].sha256))
    _flip(_gdpr_record(tree_copy, 1), _gdpr_record(tree_copy, 1).read_bytes().index(b"consolidated") + 2)
    (tree_copy / "works" / "32022r0827" / "meta.json").unlink()
    paths = _paths(tree_copy)
    assert f"evidence/{blob_relpath(first.expressions[0].observations[0].sha256)}" in paths
    assert second.path in paths
    assert "works/32022r0827/meta.json" in paths


def test_cli_verify_exits_0_on_a_clean_tree(imported_tree: Path) -> None:
    result = CliRunner().invoke(group, ["verify", str(imported_tree), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("OK")


def test_cli_verify_exits_1_and_lists_every_problem(tree_copy: Path) -> None:
    record = _gdpr_record(tree_copy)
    record.unlink()
    result = CliRunner().invoke(group, ["verify", str(tree_copy), "--no-progress"])
    assert result.exit_code == 1
    assert record.relative_to(tree_copy).as_posix() in result.output
    assert "FAILED" in result.output


def test_cli_verify_json(tree_copy: Path) -> None:
    _gdpr_record(tree_copy).unlink()
    result = CliRunner().invoke(group, ["verify", str(tree_copy), "--json"])
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert report["ok"] is False and report["problems"]


def test_known_records_are_parsed_not_rehashed_and_a_changed_one_is_verified_in_full(tree_copy: Path) -> None:
    """The pipeline's pass after a change: record files whose stat is the one a sound pass read are
    not re-rendered or re-hashed and their bodies are checked for size only; a record written since
    (its stat differs) is verified in full, and a body gone is still missing."""
    first = verify_tree(tree_copy)
    assert first.ok and first.records_known == 0
    assert len(first.record_stats) == first.works + first.versions + 1  # and the manifest
    again = verify_tree(tree_copy, known=first.record_stats)
    assert again.ok and again.records_known == len(first.record_stats)
    assert again.bodies_checked == 0 and again.bytes_hashed == 0  # every body referenced by known records
    assert "records_known" not in again.to_dict() and "record_stats" not in again.to_dict()
    tree = CorpusTree.open(tree_copy)
    other = tree.versions(GDPR)[0]
    record = _gdpr_record(tree_copy)
    _flip(record, record.read_bytes().index(b"consolidated") + 2)
    problems = verify_tree(tree_copy, known=first.record_stats).problems
    assert {p.path for p in problems} == {record.relative_to(tree_copy).as_posix()}
    tree.evidence.path_of(other.expressions[0].observations[0].sha256).unlink()
    codes = {p.code for p in verify_tree(tree_copy, known=first.record_stats).problems}
    assert "missing_body" in codes


def test_known_records_parsed_by_this_process_are_not_parsed_again(tree_copy: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The pipeline's pass right after an import: a known record file the import parsed in its
    present state (``parsed``, from the tree's caching block) is taken as parsed; a record
    rewritten since, or one never parsed, is read; the report is the one a full parse gives."""
    import corpus_tree.verify as verify_module

    first = verify_tree(tree_copy)
    tree = CorpusTree.open(tree_copy)
    with tree.caching():
        versions = list(tree.iter_versions(verify=False))
        parsed = tree.parsed_records()
    assert len(parsed) == len(versions) == first.versions
    calls: list[str] = []
    real = verify_module.VersionRecord.from_dict

    def counting(value: object, path: str | None = None) -> object:
        calls.append(str(path))
        return real(value, path)  # type: ignore[arg-type]

    monkeypatch.setattr(verify_module.VersionRecord, "from_dict", staticmethod(counting))
    plain = verify_tree(tree_copy, known=first.record_stats)
    assert len(calls) == first.versions
    calls.clear()
    shared = verify_tree(tree_copy, known=first.record_stats, parsed=parsed)
    assert calls == [] and shared.to_dict() == plain.to_dict() and shared.record_stats == plain.record_stats
    assert shared.records_known == plain.records_known
    # a record rewritten after it was parsed: its state differs, it is read and verified in full
    record = _gdpr_record(tree_copy)
    _flip(record, record.read_bytes().index(b"consolidated") + 2)
    problems = verify_tree(tree_copy, known=first.record_stats, parsed=parsed).problems
    assert {p.path for p in problems} == {record.relative_to(tree_copy).as_posix()}
    assert calls == [record.relative_to(tree_copy).as_posix()]


def test_rel_is_relative_to_as_posix(tmp_path: Path) -> None:
    """The checker names a path by its string under the root's: what ``relative_to`` gave."""
    from corpus_tree.verify import _Checker

    for root in (tmp_path / "tree", Path("tree"), Path("/"), Path(".")):
        checker = _Checker(root, root / "evidence", None)
        for path in (root, root / "manifest.json", root / "works" / "a" / "versions" / "k" / "meta.json",
                     root.parent / "elsewhere" / "x", Path("/other/tree/x"), tmp_path / "treeish" / "x"):
            try:
                expected = path.relative_to(root).as_posix()
            except ValueError:
                expected = str(path)
            assert checker.rel(path) == expected, (root, path)


def test_bodies_the_import_installed_are_size_checked_not_hashed_again(tmp_path: Path, lu_fixture: Path) -> None:
    """The pipeline's pass after an import: a body the import installed was hashed as its bytes were
    written (``ImportReport.bodies_staged``, not in the report's dict), so ``fresh`` checks its
    presence and size only; the same tree without ``fresh`` (``lex corpus verify``) hashes it."""
    from corpus_tree.importer import import_published

    from .conftest import SMALL_LU, copy_source

    root = tmp_path / "tree"
    report = import_published(copy_source(lu_fixture, tmp_path / "lu", SMALL_LU), root, durable=False)
    tree = CorpusTree.open(root)
    held = sorted({o.sha256 for v in tree.iter_versions() for e in v.expressions for o in e.observations
                   if not o.held_elsewhere})
    assert report.bodies_staged == held and report.bodies_added == len(held) > 0
    assert "bodies_staged" not in report.to_dict()
    full = verify_tree(root)
    assert full.ok and full.bodies_checked == len(held) and full.bytes_hashed > 0
    fresh = verify_tree(root, fresh=report.bodies_staged)
    assert fresh.ok and fresh.bodies_checked == 0 and fresh.bytes_hashed == 0
    assert fresh.versions == full.versions and fresh.record_stats == full.record_stats
    _flip(tree.evidence.path_of(held[0]))  # the same size: only a hash can tell
    assert verify_tree(root, fresh=report.bodies_staged).ok
    assert [p.code for p in verify_tree(root).problems] == ["body_hash_mismatch"]
    path = tree.evidence.path_of(held[1])
    os.chmod(path, 0o644)
    path.write_bytes(path.read_bytes() + b"x")
    assert "body_size_mismatch" in {p.code for p in verify_tree(root, fresh=report.bodies_staged).problems}
    path.unlink()
    assert "missing_body" in {p.code for p in verify_tree(root, fresh=report.bodies_staged).problems}
    again = import_published(copy_source(lu_fixture, tmp_path / "lu2", SMALL_LU), root, durable=False)
    assert again.bodies_staged == [held[1]]  # only the body the store lost is installed again
