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


def _work_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The work directories whose ``meta.json`` the importer reads from now on."""
    import corpus_tree.importer as importer

    reads: list[str] = []
    real = importer._read_work

    def counting(source: Any, wdir: Path) -> str:
        reads.append(wdir.name)
        return real(source, wdir)

    monkeypatch.setattr(importer, "_read_work", counting)
    return reads


def test_an_unchanged_works_record_is_replayed_not_read(mini_source: Callable[..., Path], tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """(Fails while every work's ``meta.json`` is read again.)"""
    src = mini_source(OTHER, GDPR)
    memo = SourceMemo()
    import_published(src, tmp_path / "tree", durable=False, memo=memo)
    assert memo.works[GDPR]["work"]["slug"] == GDPR
    before = snapshot(tmp_path / "tree")
    reads = _work_reads(monkeypatch)
    again = import_published(src, tmp_path / "tree", durable=False, memo=memo)
    assert reads == [] and again.works_written == 0
    assert snapshot(tmp_path / "tree") == before


def test_a_changed_work_record_is_read_and_written(mini_source: Callable[..., Path], tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A rewritten ``meta.json`` of the same size (other bytes, a later time) is read again; the
    memo's record is not taken for it. (What the fingerprint trusts, as for version records: that
    nothing rewrites a file keeping its size and putting its time back.)"""
    import json

    src = mini_source(OTHER, GDPR)
    memo = SourceMemo()
    import_published(src, tmp_path / "tree", durable=False, memo=memo)
    meta = src / "works" / GDPR / "meta.json"
    st = meta.stat()
    record = json.loads(meta.read_bytes())
    title = str(record["title"])
    record["title"] = title[:-1] + ("X" if title[-1] != "X" else "Y")  # same size, other bytes
    data = json.dumps(record, ensure_ascii=False, indent=2).encode("utf-8") + b"\n"
    meta.unlink()
    meta.write_bytes(data)
    os.utime(meta, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    reads = _work_reads(monkeypatch)
    again = import_published(src, tmp_path / "tree", durable=False, memo=memo)
    assert reads == [GDPR] and again.works_written == 1
    tree_record = json.loads((tmp_path / "tree" / "works" / GDPR / "meta.json").read_bytes())
    assert tree_record["title"] == record["title"] == memo.works[GDPR]["work"]["title"]


def test_a_touched_work_record_is_read_again(mini_source: Callable[..., Path], tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    src = mini_source(OTHER, GDPR)
    memo = SourceMemo()
    import_published(src, tmp_path / "tree", durable=False, memo=memo)
    meta = src / "works" / OTHER / "meta.json"
    st = meta.stat()
    os.utime(meta, ns=(st.st_atime_ns, st.st_mtime_ns + 1))  # the same bytes, touched
    reads = _work_reads(monkeypatch)
    again = import_published(src, tmp_path / "tree", durable=False, memo=memo)
    assert reads == [OTHER] and again.works_written == 0 and again.works_not_reread == 1


def test_a_memo_record_the_tree_does_not_hold_is_read_again(mini_source: Callable[..., Path], tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A work record kept by the memo but not the tree's (the tree changed since, or the memo is
    stale) is not trusted: the work's ``meta.json`` is read and the tree keeps the source's record.
    (Fails if the memo's record were taken as it is: the stale title would be written.)"""
    src = mini_source(OTHER, GDPR)
    memo = SourceMemo()
    import_published(src, tmp_path / "tree", durable=False, memo=memo)
    before = snapshot(tmp_path / "tree")
    memo.works[GDPR]["work"] = {**memo.works[GDPR]["work"], "title": "stale"}
    reads = _work_reads(monkeypatch)
    again = import_published(src, tmp_path / "tree", durable=False, memo=memo)
    assert reads == [GDPR] and again.works_written == 0
    assert snapshot(tmp_path / "tree") == before
    assert memo.works[GDPR]["work"]["title"] != "stale"


def test_a_memo_without_work_records_reads_them_once(mini_source: Callable[..., Path], tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A memo written before work records were kept: each work record is read, then kept."""
    src = mini_source(OTHER, GDPR)
    memo = SourceMemo()
    import_published(src, tmp_path / "tree", durable=False, memo=memo)
    for entry in memo.works.values():
        del entry["work"]
    reads = _work_reads(monkeypatch)
    again = import_published(src, tmp_path / "tree", durable=False, memo=memo)
    assert sorted(reads) == sorted([OTHER, GDPR]) and again.works_not_reread == 2
    assert all("work" in entry for entry in memo.works.values())
    reads.clear()
    import_published(src, tmp_path / "tree", durable=False, memo=memo)
    assert reads == []
