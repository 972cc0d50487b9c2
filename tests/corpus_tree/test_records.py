"""Record hashing and rendering: read → re-write never changes a record's hash."""

from __future__ import annotations

import datetime as dt
import json
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from corpus_tree import CorpusTree, Enumeration, ExpressionInput, VersionInput, WorkInput
from corpus_tree.records import (
    VersionRecord,
    is_withdrawn,
    load_version,
    parse_canonical_record,
    parse_record_bytes,
    record_sha256,
    render,
    render_unchecked,
    seal,
)
from corpus_tree.writer import apply_enumeration, new_record
from legal.canonical import digest
from legal.ids import Publisher, VersionKey

text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
NOW = dt.datetime(2026, 8, 1, tzinfo=dt.UTC)


@st.composite
def versions(draw: st.DrawFn) -> VersionInput:
    day = draw(st.dates(dt.date(1800, 1, 1), dt.date(2100, 1, 1)))
    langs = draw(st.lists(st.sampled_from(["fr", "de", "en", "lb"]), unique=True, max_size=3))
    return VersionInput(
        slug="loi-2006-07-31-n2",
        publisher_version_identifier=draw(text.filter(lambda s: bool(s.strip()))),
        work_identifier="http://data.legilux.public.lu/eli/etat/leg/loi/2006/07/31/n2",
        valid_from=day, valid_to=draw(st.none() | st.dates()),
        document_type=draw(st.none() | text), in_force_status=draw(st.none() | text),
        expressions=tuple(ExpressionInput(language=lang, title=draw(st.none() | text),
                                          source_uri=draw(st.none() | text)) for lang in langs),
        raw=draw(st.dictionaries(text, text, max_size=3)),
        publisher_metadata=tuple(draw(st.lists(st.dictionaries(st.sampled_from(["kind", "label"]), text),
                                               max_size=3))),
    )


@settings(max_examples=60, deadline=None)
@given(versions())
def test_record_written_read_and_rewritten_keeps_its_hash(v: VersionInput) -> None:
    key = VersionKey.create(v.valid_from, v.publisher_version_identifier)
    record = seal(new_record(Publisher.LEGILUX, v, f"lu-legilux:{v.slug}:{key}", "2026-08-01T00:00:00Z"))
    data = render(record)
    parsed = load_version(data, "meta.json")
    assert parsed.hash_ok()
    rewritten = render(parsed.to_dict())
    assert rewritten == data
    assert record_sha256(load_version(rewritten, "meta.json").data) == record["record_sha256"]
    assert render_unchecked(record) == data


@settings(max_examples=15, deadline=None)
@given(versions())
def test_record_written_by_the_tree_is_read_back_with_the_same_hash(v: VersionInput) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tree = CorpusTree.create(Path(tmp) / "tree")
        work = WorkInput(slug=v.slug, work_identifier=v.work_identifier)
        apply_enumeration(tree, Enumeration(Publisher.LEGILUX, True, (work,), (v,)), {}, NOW, durable=False)
        (record,) = tree.versions(v.slug)
        path = tree.root / (record.path or "")
        first = path.read_bytes()
        path.write_bytes(render(parse_record_bytes(first, "x")))
        assert path.read_bytes() == first
        assert tree.versions(v.slug)[0].record_sha256 == record.record_sha256


def test_hash_is_canonical_json_without_record_sha256(imported_tree: Path) -> None:
    tree = CorpusTree.open(imported_tree)
    v = next(tree.iter_versions())
    body = v.to_dict()
    del body["record_sha256"]
    assert digest(body) == v.record_sha256


def test_render_unchecked_equals_render_on_every_fixture_record(imported_tree: Path) -> None:
    for path in sorted(imported_tree.glob("works/*/versions/*/meta.json")):
        value = json.loads(path.read_bytes())
        assert render_unchecked(value) == render(value) == path.read_bytes()


def test_render_unchecked_equals_json_on_every_character_and_refused_values() -> None:
    for code in [*range(0x800), 0x2028, 0x2029, 0xFEFF, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF]:
        ch = chr(code)
        value = {"b": [ch, "x" + ch + "y", {}, [], 1, -(2**63), True, None], "a": {"z": {}, ch: [2**70]}}
        want = (json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode("utf-8")
        assert render_unchecked(value) == want
    try:
        render_unchecked({"a": "\ud800"})
    except UnicodeEncodeError:
        pass
    else:  # pragma: no cover - the assertion
        raise AssertionError("a lone surrogate must raise UnicodeEncodeError")


def test_parse_canonical_record_is_parse_record_bytes_on_canonical_bytes_only(imported_tree: Path) -> None:
    for path in sorted(imported_tree.glob("works/*/**/meta.json")):
        data = path.read_bytes()
        assert parse_canonical_record(data) == parse_record_bytes(data, str(path))
    canonical = render_unchecked({"a": 1, "b": ["x"]})
    assert parse_canonical_record(canonical) == {"a": 1, "b": ["x"]}
    for bad in (canonical.replace(b'"a": 1', b'"a": 1,\n  "a": 1'),  # a duplicate member
                render_unchecked({"a": 1.5}),  # a float
                render_unchecked({"a": 2**70}).replace(b"1180591620717411303424", b"1" * 30),  # beyond 64 bits
                canonical.rstrip(b"\n"), b'{"a":1}', b"[]", b"\xff", b'{"a": NaN}'):
        assert parse_canonical_record(bad) is None, bad


def test_is_withdrawn_is_the_last_lifecycle_event() -> None:
    def ev(name: str) -> dict[str, str]:
        return {"event": name, "observed_from": "2026-08-01T00:00:00Z"}

    assert not is_withdrawn([ev("first_sighting")])
    assert is_withdrawn([ev("first_sighting"), ev("withdrawn_from_source"), ev("metadata_revised")])
    assert not is_withdrawn([ev("withdrawn_from_source"), ev("resighted")])
    assert is_withdrawn([ev("withdrawn_from_source"), ev("resighted"), ev("withdrawn_from_source")])


def test_typed_reader_exposes_the_contract_fields(imported_tree: Path) -> None:
    tree = CorpusTree.open(imported_tree)
    (gdpr_original, gdpr) = tree.versions("32016r0679")
    assert isinstance(gdpr, VersionRecord)
    assert gdpr.publisher is Publisher.EURLEX and gdpr["valid_from"] == gdpr.valid_from == "2016-05-04"
    assert gdpr.valid_to is None and gdpr_original.valid_to == "2016-05-03"
    assert gdpr_original.interval().end == dt.date(2016, 5, 4)
    assert gdpr.languages == ("en", "fr")
    assert [o.file for o in gdpr.expressions[0].observations] == [
        "en.html", "en.fmx4/CL2016R0679EN0000020.0001.doc.xml", "en.fmx4/CL2016R0679EN0000020.0001.xml"]
    assert gdpr.expressions[0].primary() is not None and gdpr.expressions[0].primary().file == "en.html"  # type: ignore[union-attr]
    assert gdpr.document_roles == ("consolidated",)
    assert tree.version(gdpr.lex_id).record_sha256 == gdpr.record_sha256
    work = tree.work("32016r0679")
    assert work.title == "Regulation (EU) 2016/679" and work.title_language == "en"
