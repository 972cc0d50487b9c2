"""The writer's no-change fast path: nothing written, the merge's own decision, reads once."""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import hashlib
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus_tree import (
    CorpusTree,
    Enumeration,
    ExpressionInput,
    ObservationInput,
    VersionInput,
    WorkInput,
    records,
)
from corpus_tree import tree as tree_module
from corpus_tree.evidence import STREAM_CHUNK
from corpus_tree.records import parse_record_bytes, render, seal
from corpus_tree.verify import verify_tree
from corpus_tree.writer import (
    ApplyReport,
    _canonical_key,
    apply_enumeration,
    is_unchanged,
    merge_record,
    new_record,
)
from legal.canonical import canonical_text, hash_file
from legal.errors import IntegrityError, LexError
from legal.ids import Publisher, VersionKey

T0 = dt.datetime(2026, 8, 1, 2, 0, tzinfo=dt.UTC)
T1 = dt.datetime(2026, 8, 2, 2, 0, tzinfo=dt.UTC)
WORK = "http://publications.europa.eu/resource/celex/32016R0679"
SLUG = "32016r0679"
BODY = b"<html><body><p>Article 1</p></body></html>"
FR_BODY = b"<html><body><p>Article premier</p></body></html>"
URL = "https://eur-lex.europa.eu/legal-content/EN/TXT/?uri=CELEX:32016R0679"
METADATA = ({"kind": "eurovoc", "identifier": "http://eurovoc.europa.eu/1", "label": "données", "language": "fr",
             "source_uri": WORK},
            {"kind": "directory", "identifier": "http://publications.europa.eu/resource/authority/dir/1",
             "label": "Data", "language": "en", "source_uri": WORK})


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _obs(data: bytes, file: str = "en.html") -> ObservationInput:
    return ObservationInput(file, _sha(data), URL, T0)


def _version(**kw: Any) -> VersionInput:
    values: dict[str, Any] = {
        "slug": SLUG, "publisher_version_identifier": WORK, "work_identifier": WORK,
        "valid_from": dt.date(2016, 4, 27), "document_type": "REG", "in_force_status": "1",
        "expressions": (ExpressionInput("en", URL, title="GDPR", observations=(_obs(BODY),)),),
        "raw": {"celex": "32016R0679"}, "publisher_metadata": METADATA, "document_roles": ("base",),
    }
    values.update(kw)
    return VersionInput(**values)


def _enum(*versions: VersionInput) -> Enumeration:
    return Enumeration(Publisher.EURLEX, True, (WorkInput(SLUG, WORK, document_type="REG"),), versions)


def _states(root: Path) -> dict[str, tuple[int, int, int, str]]:
    """Every entry under ``root``: inode, modification time, size and content hash — equal
    states mean nothing was written, not even the same bytes again."""
    out = {}
    for path in sorted(root.rglob("*")):
        st_ = path.lstat()
        digest = "" if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest()
        out[path.relative_to(root).as_posix()] = (st_.st_ino, st_.st_mtime_ns, st_.st_size, digest)
    return out


@pytest.fixture
def tree(tmp_path: Path) -> CorpusTree:
    t = CorpusTree.create(tmp_path / "tree")
    apply_enumeration(t, _enum(_version()), {_sha(BODY): BODY}, T0, durable=False)
    return t


def test_a_no_change_apply_writes_no_byte_and_hashes_nothing(tree: CorpusTree) -> None:
    before = _states(tree.root)
    report = apply_enumeration(tree, _enum(_version()), {_sha(BODY): BODY}, T1, durable=False)
    assert not report.wrote_anything and report.events == {} and report.bytes_hashed == 0
    assert _states(tree.root) == before  # manifest and records untouched (same inode and mtime)


def test_a_no_change_apply_does_not_rewrite_a_manifest_verify_reports(tree: CorpusTree) -> None:
    """The manifest is a function of the records: when none changes, it is left as found (an
    apply never papers over a manifest that no longer matches untouched records)."""
    manifest = tree.root / "manifest.json"
    stale = manifest.read_bytes().replace(b'"works": 1', b'"works": 2', 1)
    manifest.write_bytes(stale)
    assert not verify_tree(tree.root).ok
    report = apply_enumeration(tree, _enum(_version()), {}, T1, durable=False)
    assert not report.wrote_anything and manifest.read_bytes() == stale
    revised = apply_enumeration(tree, _enum(_version(in_force_status="0")), {}, T1, durable=False)
    assert revised.manifest_changed and verify_tree(tree.root).ok  # rebuilt with the next change


def test_a_body_already_stored_is_not_hashed_again(tree: CorpusTree) -> None:
    later = _version(expressions=(ExpressionInput("en", URL, title="GDPR", observations=(_obs(BODY),)),
                                  ExpressionInput("fr", URL, observations=(_obs(BODY, "fr.html"),))))
    report = apply_enumeration(tree, _enum(later), {_sha(BODY): BODY}, T1, durable=False)
    assert report.events == {"expression_added": 1} and report.bytes_hashed == 0 and report.bodies_added == 0


def _stored(tree: CorpusTree) -> tuple[Path, dict[str, Any]]:
    key = VersionKey.create(dt.date(2016, 4, 27), WORK)
    path = tree.version_dir(SLUG, key) / "meta.json"
    return path, parse_record_bytes(path.read_bytes(), str(path))


def test_an_unchanged_record_is_not_re_verified_but_a_revised_one_is(tree: CorpusTree) -> None:
    path, record = _stored(tree)
    record["raw"]["note"] = "edited by hand"  # the stored hash no longer matches the content
    path.write_bytes(render(record))
    before = _states(tree.root)
    quiet = apply_enumeration(tree, _enum(_version()), {}, T1, durable=False)
    assert not quiet.wrote_anything and _states(tree.root) == before  # left alone (verify reports it)
    with pytest.raises(LexError) as err:
        apply_enumeration(tree, _enum(_version(in_force_status="0")), {}, T1, durable=False)
    assert err.value.code == "record_hash_mismatch"  # never revised on top of a bad record
    assert _states(tree.root) == before


def _variants() -> list[tuple[str, VersionInput]]:
    base = _version()
    en = base.expressions[0]
    return [
        ("same", base),
        ("same, metadata reordered and repeated", _version(publisher_metadata=(METADATA[1], METADATA[0], METADATA[1]))),
        ("same, roles repeated", _version(document_roles=("base", "base"))),
        ("same, an observation seen again later",
         _version(expressions=(dataclasses.replace(en, observations=(dataclasses.replace(_obs(BODY), retrieved_at=T1),)),))),
        ("same, no observation this time", _version(expressions=(dataclasses.replace(en, observations=()),))),
        ("valid_to closed", _version(valid_to=dt.date(2018, 5, 24))),
        ("document_type", _version(document_type="DIR")),
        ("in_force_status", _version(in_force_status=None)),
        ("raw value", _version(raw={"celex": "32016R0679", "legal_form": "REG"})),
        ("raw key absent is kept", _version(raw={})),
        ("metadata", _version(publisher_metadata=METADATA[:1])),
        ("roles", _version(document_roles=("base", "amending"))),
        ("title", _version(expressions=(dataclasses.replace(en, title="Regulation"),))),
        ("title_short", _version(expressions=(dataclasses.replace(en, title_short="GDPR"),))),
        ("source_uri", _version(expressions=(dataclasses.replace(en, source_uri=URL + "&x"),))),
        ("text_url", _version(expressions=(dataclasses.replace(en, text_url=URL + "#text"),))),
        ("new language", _version(expressions=(en, ExpressionInput("fr", URL)))),
        ("new observation", _version(expressions=(dataclasses.replace(en, observations=(_obs(BODY), _obs(FR_BODY, "en.pdf"))),))),
        ("same file, new bytes", _version(expressions=(dataclasses.replace(en, observations=(_obs(FR_BODY),)),))),
        ("expression valid_to only", _version(expressions=(dataclasses.replace(en, valid_to=dt.date(2020, 1, 1)),))),
    ]


@pytest.mark.parametrize(("label", "variant"), _variants(), ids=[label for label, _ in _variants()])
def test_is_unchanged_is_exactly_the_merge_changing_nothing(label: str, variant: VersionInput) -> None:
    lex_id = f"eu-eurlex:{SLUG}:{VersionKey.create(dt.date(2016, 4, 27), WORK)}"
    stored = seal(new_record(Publisher.EURLEX, _version(), lex_id, "2026-08-01T02:00:00Z"))
    states = [stored]
    withdrawn = copy.deepcopy(stored)
    withdrawn["events"].append({"event": "withdrawn_from_source", "observed_from": "2026-08-02T02:00:00Z",
                                "scope": "version", "detail": "gone"})
    states.append(seal(withdrawn))
    unavailable = copy.deepcopy(stored)
    unavailable["expressions"][0]["text"] = {"available": False, "reason": "body_not_found", "url": URL}
    states.append(seal(unavailable))
    for old in states:
        merged = seal(merge_record(copy.deepcopy(old), variant, "2026-09-01T00:00:00Z", ApplyReport("eu-eurlex")))
        assert is_unchanged(old, variant) == (merged == old), label


def test_caching_reads_each_record_once_per_file_state(tree: CorpusTree) -> None:
    with tree.caching():
        first = tree.versions(SLUG, verify=False)
        assert tree.versions(SLUG, verify=True)[0] is first[0]  # parsed once, hash checked once
        apply_enumeration(tree, _enum(_version(in_force_status="0")), {}, T1, durable=False)
        after = tree.versions(SLUG, verify=True)
        assert after[0] is not first[0] and after[0].in_force_status == "0"  # the file was replaced
    assert tree.versions(SLUG)[0] is not after[0]  # nothing cached outside the block


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=6), st.text(max_size=12), max_size=5))
def test_the_fast_canonical_key_is_rfc_8785(item: dict[str, str]) -> None:
    try:
        expected: str | None = canonical_text(item)
    except LexError:
        expected = None
    try:
        got: str | None = _canonical_key(item)
    except LexError:
        got = None
    assert got == expected


@pytest.mark.parametrize("size", [0, 1, 4095, STREAM_CHUNK - 1, STREAM_CHUNK, STREAM_CHUNK + 1, 3 * STREAM_CHUNK + 7])
def test_hash_file_streams_any_size(tmp_path: Path, size: int) -> None:
    data = os.urandom(size)
    path = tmp_path / "blob"
    path.write_bytes(data)
    assert hash_file(path) == (hashlib.sha256(data).hexdigest(), size)


def test_the_whole_tree_scan_keeps_summaries_not_records(tree: CorpusTree) -> None:
    """``version_summaries`` holds what planning and the manifest read — nothing of ``raw`` —
    and, inside ``caching``, keeps no parsed record; the manifest built from the summaries is
    the one built from the records, and the writer still checks the hash of a record it revises."""
    from corpus_tree.manifest import build_manifest
    from corpus_tree.records import VersionSummary, summary_of

    records = list(tree.iter_versions())
    with tree.caching():
        summaries = list(tree.version_summaries())
        assert tree.parsed_records() == {}  # only summaries are kept
        store = tree._summaries
        assert store is not None
        where = {rel: kept[3] for rel, kept in store.rows().items()}
        assert next(iter(tree.version_summaries())) == summaries[0]  # once per file state: read from
        assert {rel: kept[3] for rel, kept in store.rows().items()} == where  # the block's database, not summarised again
    assert summaries == [summary_of(r) for r in records]
    assert all(type(s) is VersionSummary and not hasattr(s, "raw") for s in summaries)
    works = list(tree.works())
    assert build_manifest(works, summaries) == build_manifest(works, records) == tree.manifest()
    path = tree.root / str(records[0].path)
    path.write_bytes(path.read_bytes().replace(b'"32016R0679"', b'"32016R0680"', 1))  # hash now stale
    with pytest.raises(LexError) as failed:
        apply_enumeration(tree, _enum(_version(in_force_status="0")), {}, T1, durable=False)
    assert failed.value.code == "record_hash_mismatch"


def test_the_summary_cache_keeps_a_packed_file_state_and_rereads_a_changed_file(tree: CorpusTree) -> None:
    """Issue #13: a summary's file state (device, inode, size, mtime, ctime) is held as 40 packed
    bytes, not a tuple of five ints; any of its parts changing still means the file is read again."""
    with tree.caching():
        first = next(iter(tree.version_summaries()))
        store = tree._summaries
        assert store is not None
        assert all(type(kept[0]) is bytes and len(kept[0]) == 40 for kept in store.rows().values())
        rel = str(first.path)
        where = store.rows()[rel][3]  # when the summary was made (the block's database, ADR 0133)
        assert next(iter(tree.version_summaries())) == first and store.rows()[rel][3] == where  # not read again
        path = tree.root / rel
        st = path.stat()
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1))  # same bytes, a new mtime (and ctime)
        again = next(iter(tree.version_summaries()))
        assert store.rows()[rel][3] != where and again == first  # read again
        where = store.rows()[rel][3]
        copy_ = path.with_name("copy")
        copy_.write_bytes(path.read_bytes())
        os.utime(copy_, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
        os.replace(copy_, path)  # a new inode, same bytes
        third = next(iter(tree.version_summaries()))
        assert store.rows()[rel][3] != where and third == first


def test_a_listed_works_record_is_parsed_once_and_compared_as_it_is_read(tree: CorpusTree,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue #13, ADR 0137: the writer parses each work record of the tree once (its scan) and keeps of a
    listed one only the comparison's verdict; a changed work is still rewritten, an unchanged one still
    left as it is, another work under the slug still ``identity_mismatch`` with nothing written."""
    parsed: list[str] = []
    real = records.load_work

    def counted(data: bytes, path: str) -> Any:
        parsed.append(path)
        return real(data, path)

    monkeypatch.setattr(tree_module, "load_work", counted)
    before = _states(tree.root)
    report = apply_enumeration(tree, _enum(_version()), {_sha(BODY): BODY}, T1, durable=False)
    assert parsed == [f"works/{SLUG}/meta.json"] and report.works_written == 0 and _states(tree.root) == before
    renamed = dataclasses.replace(_enum(_version()), works=(WorkInput(SLUG, WORK, document_type="DIR"),))
    report = apply_enumeration(tree, renamed, {_sha(BODY): BODY}, T1, durable=False)
    assert report.works_written == 1 and tree.work(SLUG).data["document_type"] == "DIR"
    assert verify_tree(tree.root).ok
    before = _states(tree.root)
    other = dataclasses.replace(_enum(dataclasses.replace(_version(), work_identifier="another work")),
                                works=(WorkInput(SLUG, "another work", document_type="DIR"),))
    with pytest.raises(IntegrityError) as raised:
        apply_enumeration(tree, other, {_sha(BODY): BODY}, T1, durable=False)
    assert raised.value.code == "identity_mismatch" and raised.value.subject == f"works/{SLUG}/meta.json"
    assert _states(tree.root) == before
