"""The import memo: a source work whose files are those of the last sound import is not read again,
and a changed file is seen."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from corpus_tree.importer import ImportReport, SourceMemo, import_published, work_fingerprint
from legal.errors import IntegrityError

from .conftest import snapshot

GDPR = "32016r0679"
OTHER = "32013d1359"


def _facts(report: ImportReport) -> dict[str, Any]:
    """What an import reports, but how much of the source it read."""
    skip = {"source", "records_verified", "works_not_reread", "records_not_reread"}
    return {k: v for k, v in report.to_dict().items() if k not in skip}


def _first_record(src: Path, slug: str) -> Path:
    return sorted((src / "works" / slug / "versions").glob("*/meta.json"))[0]


def test_an_unchanged_source_is_not_read_again_and_reports_as_a_full_read(
        mini_source: Callable[..., Path], tmp_path: Path) -> None:
    src = mini_source(OTHER, GDPR)
    memo = SourceMemo()
    first = import_published(src, tmp_path / "tree", durable=False, memo=memo)
    assert first.works_not_reread == 0 and first.records_not_reread == 0
    assert sorted(memo.works) == [OTHER, GDPR] and memo.schema == "lex-corpus/4"
    assert SourceMemo.from_bytes(memo.to_bytes()) == memo
    before = snapshot(tmp_path / "tree")
    again = import_published(src, tmp_path / "tree", durable=False, memo=memo)
    plain = import_published(src, tmp_path / "tree", durable=False)
    assert again.works_not_reread == 2 and again.records_not_reread == plain.records_verified
    assert again.records_verified == 0
    assert _facts(again) == _facts(plain)
    assert again.records_unchanged == plain.records_unchanged > 0
    assert snapshot(tmp_path / "tree") == before


def test_a_changed_record_file_is_read_and_refused(mini_source: Callable[..., Path], tmp_path: Path) -> None:
    src = mini_source(OTHER, GDPR)
    memo = SourceMemo()
    import_published(src, tmp_path / "tree", durable=False, memo=memo)
    kept = memo.to_bytes()
    before = snapshot(tmp_path / "tree")
    record = _first_record(src, GDPR)
    record.write_bytes(record.read_bytes().replace(b'"in_force_status": "1"', b'"in_force_status": "0"', 1))
    with pytest.raises(IntegrityError) as refused:
        import_published(src, tmp_path / "tree", durable=False, memo=memo)
    assert refused.value.code == "record_hash_mismatch" and str(record) in str(refused.value.subject)
    assert memo.to_bytes() == kept  # a failed import leaves the memo as it was
    assert snapshot(tmp_path / "tree") == before


def test_a_touched_file_changes_the_fingerprint(mini_source: Callable[..., Path]) -> None:
    src = mini_source(GDPR)
    work = src / "works" / GDPR
    fingerprint = work_fingerprint(work)
    assert work_fingerprint(work) == fingerprint
    body = sorted((work / "versions").glob("*/en.xml"))[0]
    st = body.stat()
    os.utime(body, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    assert work_fingerprint(work) != fingerprint
    touched = work_fingerprint(work)
    body.unlink()
    assert work_fingerprint(work) != touched


def test_a_removed_body_is_seen_as_held_elsewhere(mini_source: Callable[..., Path], tmp_path: Path) -> None:
    src = mini_source(OTHER, GDPR)
    memo = SourceMemo()
    import_published(src, tmp_path / "tree", durable=False, memo=memo)
    body = sorted((src / "works" / GDPR / "versions").glob("*/en.xml"))[0]
    body.unlink()
    again = import_published(src, tmp_path / "tree", durable=False, memo=memo)
    plain = import_published(src, tmp_path / "plain", durable=False)
    assert again.works_not_reread == 1  # the other work only
    assert body.relative_to(src).as_posix() in {b["path"] for b in again.held_elsewhere}
    assert (again.held_elsewhere, again.bodies_held_elsewhere) == (plain.held_elsewhere, plain.bodies_held_elsewhere)
    assert again.records_written == 1  # the version whose body is now held elsewhere


def test_a_tree_that_changed_since_reads_the_work_again(mini_source: Callable[..., Path], tmp_path: Path) -> None:
    src = mini_source(OTHER, GDPR)
    memo = SourceMemo()
    import_published(src, tmp_path / "first", durable=False, memo=memo)
    # another tree: none of the memo's records are there, so every work is read and written
    fresh = import_published(src, tmp_path / "other", durable=False, memo=memo)
    plain = import_published(src, tmp_path / "plain", durable=False)
    assert fresh.records_written == plain.records_written > 0
    assert _facts(fresh) == _facts(plain)
    assert snapshot(tmp_path / "other") == snapshot(tmp_path / "plain")


def test_rehash_reads_every_work(mini_source: Callable[..., Path], tmp_path: Path) -> None:
    src = mini_source(OTHER, GDPR)
    memo = SourceMemo()
    import_published(src, tmp_path / "tree", durable=False, memo=memo)
    again = import_published(src, tmp_path / "tree", durable=False, memo=memo, rehash=True)
    assert again.works_not_reread == 0 and again.records_verified > 0


def test_a_copy_made_of_hard_links_is_the_same_source(mini_source: Callable[..., Path], tmp_path: Path) -> None:
    import shutil

    src = mini_source(OTHER, GDPR)
    memo = SourceMemo()
    import_published(src, tmp_path / "tree", durable=False, memo=memo)
    linked = tmp_path / "linked"
    shutil.copytree(src, linked, copy_function=os.link)
    again = import_published(linked, tmp_path / "tree", durable=False, memo=memo)
    assert again.works_not_reread == 2 and again.records_verified == 0
    record = _first_record(linked, GDPR)
    data = record.read_bytes()
    record.unlink()
    record.write_bytes(data)  # the same bytes in a new file: read again
    assert import_published(linked, tmp_path / "tree", durable=False, memo=memo).works_not_reread == 1
