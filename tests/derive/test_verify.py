"""``lex derive verify``: re-derive and byte-compare; determinism of every output file."""

from __future__ import annotations

import shutil

from derive.dataset import build_dataset
from derive.verify import compare_dirs, verify_dataset


def test_rebuild_is_byte_identical_and_verifies(tmp_path, lu_tree, lu_dataset):
    out, _ = lu_dataset
    again = tmp_path / "again"
    build_dataset(lu_tree, again)
    report = compare_dirs(out, again)
    assert report.ok and report.compared >= 5


def test_verify_detects_a_tampered_row(tmp_path, eu_tree, eu_dataset):
    out, _ = eu_dataset
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    assert verify_dataset(copy, eu_tree).ok
    data = (copy / "provisions.jsonl").read_bytes().replace(b"Lawfulness of processing", b"Lawfulness of procesing", 1)
    (copy / "provisions.jsonl").write_bytes(data)
    (copy / "stray.txt").write_bytes(b"x")
    (copy / "gaps.jsonl").unlink()
    report = verify_dataset(copy, eu_tree)
    assert report.mismatched == ["provisions.jsonl"]
    assert report.missing == ["gaps.jsonl"] and report.extra == ["stray.txt"]
    assert not report.ok and "mismatched=1" in report.line()
