"""Importing the real published corpora (lex-corpus/3 Legilux, lex-corpus/4 EUR-Lex)."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from corpus_tree import CorpusTree
from corpus_tree.importer import ImportReport, import_published, recover_legilux_identifier
from corpus_tree.verify import verify_tree
from legal.dotnet_json import published_record_sha256
from legal.errors import CorpusError, IdentityError, IntegrityError, LexError
from legal.ids import VersionKey

from .conftest import snapshot

CODE_DU_TRAVAIL = "loi-2006-07-31-n2"
GDPR = "32016r0679"


def test_import_legilux_and_eurlex_verifies_every_record(imported: tuple[Path, ImportReport, ImportReport]) -> None:
    root, lu, eu = imported
    assert (lu.schema, lu.records_verified, lu.errors, lu.works) == ("lex-corpus/3", 298, 0, 68)
    assert (eu.schema, eu.records_verified, eu.errors, eu.works) == ("lex-corpus/4", 62, 0, 29)
    assert lu.records_written == 298 and eu.records_written == 62
    report = verify_tree(root)
    assert report.problems == []
    assert (report.works, report.versions) == (97, 360)
    manifest = CorpusTree.open(root).manifest()
    assert manifest["counts"]["versions"] == 360
    assert manifest["publishers"]["lu-legilux"]["valid_to_conventions"] == ["exclusive"]
    assert manifest["publishers"]["eu-eurlex"]["valid_to_conventions"] == ["inclusive"]


def test_every_record_keeps_its_published_hash_and_events(imported_tree: Path, lu_fixture: Path,
                                                          eu_fixture: Path) -> None:
    tree = CorpusTree.open(imported_tree)
    originals = {}
    for fixture in (lu_fixture, eu_fixture):
        for path in fixture.glob("works/*/versions/*/meta.json"):
            record = json.loads(path.read_bytes())
            originals[record["lex_id"]] = record
    seen = 0
    for version in tree.iter_versions():
        assert version.provenance is not None
        original = originals[version.provenance["lex_id"]]
        assert version.provenance["record_sha256"] == original["record_sha256"] == published_record_sha256(original)
        assert [e.to_dict() for e in version.events] == original["events"]
        assert version.hash_ok()
        seen += 1
    assert seen == 360


def test_code_du_travail_keeps_its_five_same_day_groups_as_distinct_keys(imported_tree: Path) -> None:
    tree = CorpusTree.open(imported_tree)
    versions = tree.versions(CODE_DU_TRAVAIL)
    assert len(versions) == 61
    by_date: dict[str, list[str]] = {}
    for v in versions:
        by_date.setdefault(v.valid_from, []).append(v.publisher_version_identifier)
    same_day = {d: sorted(ids) for d, ids in by_date.items() if len(ids) > 1}
    assert sorted(same_day) == ["2025-04-01", "2025-06-28", "2026-03-10", "2026-07-01", "2026-07-26"]
    for day, ids in same_day.items():
        compact = day.replace("-", "")
        assert ids == [
            f"http://data.legilux.public.lu/eli/etat/leg/code/travail/{compact}",
            f"http://data.legilux.public.lu/eli/etat/leg/loi/2006/07/31/n2/consolide/{compact}",
        ]
    keys = {str(v.version_key) for v in versions}
    assert len(keys) == 61
    for v in versions:
        assert str(v.version_key) == str(VersionKey.create(v.valid_from_date, v.publisher_version_identifier))
    legacy = {v.provenance["lex_id"].rsplit(":", 1)[1] for v in versions if v.provenance}
    assert "2025-04-01--02" in legacy and "2026-07-26--02" in legacy


def test_positional_twin_is_the_withdrawn_consolide_record(imported_tree: Path) -> None:
    tree = CorpusTree.open(imported_tree)
    twins = [v for v in tree.versions(CODE_DU_TRAVAIL) if v.provenance and v.provenance["lex_id"].endswith("--02")]
    assert len(twins) == 5
    assert all("/consolide/" in v.publisher_version_identifier for v in twins)
    assert any(v.is_withdrawn for v in twins)


def test_gdpr_keys_equal_the_published_ones(imported_tree: Path, eu_fixture: Path) -> None:
    published = sorted(p.name for p in (eu_fixture / "works" / GDPR / "versions").iterdir())
    tree = CorpusTree.open(imported_tree)
    ours = [v for v in tree.versions(GDPR)]
    assert [str(v.version_key) for v in ours] == published
    assert [v.lex_id for v in ours] == [v.provenance["lex_id"] for v in ours if v.provenance]
    assert ours[1].version_key.pvid_sha256.startswith("af3e8edc")


def test_all_eurlex_lex_ids_are_kept(imported_tree: Path) -> None:
    tree = CorpusTree.open(imported_tree)
    for v in tree.iter_versions():
        if v.publisher.value == "eu-eurlex":
            assert v.provenance is not None and v.lex_id == v.provenance["lex_id"]


def test_absent_bodies_are_held_elsewhere_exactly_as_omitted_observations_lists(
        imported_tree: Path, fixtures_dir: Path) -> None:
    omitted: set[tuple[str, str, str]] = set()
    with open(fixtures_dir / "OMITTED_OBSERVATIONS.tsv", newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            omitted.add((row["repo"], row["path"], row["sha256"]))
    held: set[tuple[str, str, str]] = set()
    tree = CorpusTree.open(imported_tree)
    for v in tree.iter_versions():
        assert v.provenance is not None
        repo = "lex-corpus-lu-legilux" if v.publisher.value == "lu-legilux" else "lex-corpus-eu-eurlex"
        key = v.provenance["lex_id"].rsplit(":", 1)[1]
        for _, obs in v.observations():
            if obs.held_elsewhere:
                held.add((repo, f"works/{v.slug}/versions/{key}/{obs.file}", obs.sha256))
            else:
                assert tree.evidence.has(obs.sha256)
    assert held == omitted
    assert len(held) == 2501


def test_bodies_are_stored_verbatim_and_shared(imported_tree: Path, lu_fixture: Path) -> None:
    tree = CorpusTree.open(imported_tree)
    memorial = "eli-etat-leg-memorial-1969-a34-fr-pdf.pdf"
    hashes = set()
    for slug in ("agd-1963-04-22-n1", "agd-1965-06-25-n1", "agd-1967-11-15-n1", "loi-1969-07-11-n1"):
        for v in tree.versions(slug):
            for _, obs in v.observations():
                if obs.file.endswith(memorial):
                    hashes.add(obs.sha256)
    assert len(hashes) == 1
    sha = hashes.pop()
    source = next(lu_fixture.glob(f"works/agd-1965-06-25-n1/versions/*/fr.pdf-memorial/{memorial}"))
    assert tree.evidence.read(sha) == source.read_bytes()


def test_crlf_bodies_are_not_normalised(imported_tree: Path, lu_fixture: Path) -> None:
    tree = CorpusTree.open(imported_tree)
    checked = 0
    for path in lu_fixture.glob("works/rgd-2020-06-20-a537/versions/*/fr.xml"):
        data = path.read_bytes()
        if b"\r\n" in data:
            import hashlib

            assert tree.evidence.read(hashlib.sha256(data).hexdigest()) == data
            checked += 1
    assert checked > 0


def test_reimport_is_a_no_op(full_tree_copy: Path, lu_fixture: Path, eu_fixture: Path) -> None:
    before = snapshot(full_tree_copy)
    manifest = (full_tree_copy / "manifest.json").read_bytes()
    for fixture in (lu_fixture, eu_fixture):
        report = import_published(fixture, full_tree_copy, durable=False)
        assert report.records_written == 0 and report.works_written == 0 and report.bodies_added == 0
        assert report.records_unchanged == report.records_verified
        assert not report.manifest_changed
    assert (full_tree_copy / "manifest.json").read_bytes() == manifest
    assert snapshot(full_tree_copy) == before


def test_recover_legilux_identifier_strips_language_and_rewrites_host() -> None:
    record = {"expressions": [
        {"language": "fr", "source_uri": "https://legilux.public.lu/eli/etat/leg/code/travail/20250401/fr"}]}
    assert recover_legilux_identifier(record, "x") == "http://data.legilux.public.lu/eli/etat/leg/code/travail/20250401"
    no_lang = {"expressions": [{"language": "fr", "source_uri":
               "https://legilux.public.lu/eli/etat/leg/loi/2006/07/31/n2/consolide/20250401"}]}
    assert recover_legilux_identifier(no_lang, "x").endswith("/loi/2006/07/31/n2/consolide/20250401")


def test_unrecoverable_legilux_identity_is_a_typed_error() -> None:
    with pytest.raises(IdentityError) as err:
        recover_legilux_identifier({"expressions": []}, "works/x/versions/2020-01-01/meta.json")
    assert err.value.code == "unrecoverable_version_identifier"
    conflicting = {"expressions": [
        {"language": "fr", "source_uri": "https://legilux.public.lu/eli/etat/leg/code/a/20200101/fr"},
        {"language": "de", "source_uri": "https://legilux.public.lu/eli/etat/leg/code/b/20200101/de"}]}
    with pytest.raises(IdentityError):
        recover_legilux_identifier(conflicting, "x")


# -- bad input: a typed error naming the path, and nothing written ----------------------------------


def _expect_refused(src: Path, target: Path, error: type[LexError], code: str, names: str,
                    rehash: bool = False) -> None:
    existed = target.exists()
    before = snapshot(target) if existed else None
    with pytest.raises(error) as err:
        import_published(src, target, durable=False, rehash=rehash)
    assert err.value.code == code, err.value
    assert err.value.subject is not None and names in err.value.subject, err.value.subject
    if existed:
        assert snapshot(target) == before
    else:
        assert not target.exists()


def _first_record(src: Path, slug: str) -> Path:
    return sorted((src / "works" / slug / "versions").glob("*/meta.json"))[0]


def test_malformed_json_is_refused(mini_source: Callable[..., Path], tree_copy: Path) -> None:
    src = mini_source(GDPR)
    record = _first_record(src, GDPR)
    record.write_bytes(record.read_bytes()[:-20])
    _expect_refused(src, tree_copy, CorpusError, "malformed_json", str(record))


def test_unknown_schema_is_refused(mini_source: Callable[..., Path], tmp_path: Path) -> None:
    src = mini_source(GDPR)
    manifest = json.loads((src / "manifest.json").read_bytes())
    manifest["schema"] = "lex-corpus/9"
    (src / "manifest.json").write_text(json.dumps(manifest))
    _expect_refused(src, tmp_path / "new-tree", CorpusError, "unknown_schema", "manifest.json")


def test_slug_with_dot_dot_is_refused(mini_source: Callable[..., Path], tree_copy: Path) -> None:
    src = mini_source(GDPR)
    (src / "works" / GDPR).rename(src / "works" / "..32016r0679")
    _expect_refused(src, tree_copy, CorpusError, "invalid_slug", "..32016r0679")


def test_slug_field_escaping_the_tree_is_refused(mini_source: Callable[..., Path], tree_copy: Path) -> None:
    src = mini_source(GDPR)
    work = src / "works" / GDPR / "meta.json"
    data = json.loads(work.read_bytes())
    data["slug"] = "../../etc"
    work.write_text(json.dumps(data))
    _expect_refused(src, tree_copy, CorpusError, "identity_mismatch", str(work))


def test_invalid_slug_directory_is_refused(mini_source: Callable[..., Path], tmp_path: Path) -> None:
    src = mini_source(GDPR)
    (src / "works" / GDPR).rename(src / "works" / "Bad Slug")
    _expect_refused(src, tmp_path / "new-tree", CorpusError, "invalid_slug", "Bad Slug")


def test_non_utf8_record_is_refused(mini_source: Callable[..., Path], tree_copy: Path) -> None:
    src = mini_source(GDPR)
    record = _first_record(src, GDPR)
    data = record.read_bytes()
    record.write_bytes(data.replace(b'"publisher": "eu-eurlex"', b'"publisher": "eu-eurlex\xff"', 1))
    _expect_refused(src, tree_copy, CorpusError, "not_utf8", str(record))


def test_record_whose_hash_does_not_verify_is_refused(mini_source: Callable[..., Path], tree_copy: Path) -> None:
    src = mini_source(GDPR)
    record = _first_record(src, GDPR)
    record.write_bytes(record.read_bytes().replace(b'"in_force_status": "1"', b'"in_force_status": "0"', 1))
    _expect_refused(src, tree_copy, IntegrityError, "record_hash_mismatch", str(record))


def test_body_whose_hash_does_not_match_is_refused(mini_source: Callable[..., Path], tmp_path: Path) -> None:
    src = mini_source(GDPR)
    body = sorted((src / "works" / GDPR / "versions").glob("*/en.xml"))[0]
    data = bytearray(body.read_bytes())
    data[len(data) // 2] ^= 0x01
    body.write_bytes(bytes(data))
    _expect_refused(src, tmp_path / "new-tree", IntegrityError, "body_hash_mismatch", str(body))


def test_body_mismatch_leaves_an_existing_tree_byte_identical(mini_source: Callable[..., Path],
                                                              tree_copy: Path) -> None:
    src = mini_source("32013d1359", GDPR)
    body = sorted((src / "works" / GDPR / "versions").glob("*/fr.xml"))[0]
    body.write_bytes(body.read_bytes() + b" ")
    # the tree holds these bytes already: only a re-hashing import reads the source body again
    _expect_refused(src, tree_copy, IntegrityError, "body_hash_mismatch", str(body), rehash=True)


def test_symlinked_body_is_refused(mini_source: Callable[..., Path], tree_copy: Path) -> None:
    src = mini_source(GDPR)
    body = sorted((src / "works" / GDPR / "versions").glob("*/en.xml"))[0]
    target = body.with_name("real.xml")
    body.rename(target)
    body.symlink_to(target)
    _expect_refused(src, tree_copy, CorpusError, "symlink", str(body))


def test_lex_id_not_matching_its_directory_is_refused(mini_source: Callable[..., Path], tree_copy: Path) -> None:
    src = mini_source(GDPR)
    vdirs = sorted((src / "works" / GDPR / "versions").iterdir())
    renamed = vdirs[0].with_name("2016-04-27--" + "0" * 64)
    vdirs[0].rename(renamed)
    _expect_refused(src, tree_copy, IntegrityError, "identity_mismatch", str(renamed))


def test_duplicate_identifier_in_a_legilux_work_is_refused(mini_source: Callable[..., Path], lu_fixture: Path,
                                                           tmp_path: Path) -> None:
    src = mini_source(CODE_DU_TRAVAIL, fixture=lu_fixture)
    versions = src / "works" / CODE_DU_TRAVAIL / "versions"
    twin = versions / "2025-04-01--03"
    twin.mkdir()
    record = json.loads((versions / "2025-04-01" / "meta.json").read_bytes())
    record["lex_id"] = f"lu-legilux:{CODE_DU_TRAVAIL}:2025-04-01--03"
    record["record_sha256"] = published_record_sha256(record)
    from legal.dotnet_json import dotnet_serialize

    body = {k: v for k, v in record.items()}
    (twin / "meta.json").write_bytes(dotnet_serialize(body).replace(b"\r\n", b"\n") + b"\n")
    _expect_refused(src, tmp_path / "new-tree", IntegrityError, "duplicate_version_identifier", "2025-04-01")


def test_unrecoverable_identity_in_a_source_is_refused(mini_source: Callable[..., Path], lu_fixture: Path,
                                                       tmp_path: Path) -> None:
    from legal.dotnet_json import dotnet_serialize

    slug = "agc-2024-09-04-b3521"
    src = mini_source(slug, fixture=lu_fixture)
    path = _first_record(src, slug)
    record = json.loads(path.read_bytes())
    for expr in record["expressions"]:
        expr["source_uri"] = "https://example.org/not-legilux"
        expr["text"]["url"] = "https://example.org/not-legilux"
    record["record_sha256"] = published_record_sha256(record)
    path.write_bytes(dotnet_serialize(record) + b"\n")
    _expect_refused(src, tmp_path / "new-tree", IdentityError, "unrecoverable_version_identifier", str(path))


def test_nothing_is_created_when_the_first_import_fails(mini_source: Callable[..., Path], tmp_path: Path) -> None:
    src = mini_source(GDPR)
    record = _first_record(src, GDPR)
    record.write_bytes(re.sub(rb'"record_sha256": "[0-9a-f]{64}"', b'"record_sha256": "' + b"0" * 64 + b'"',
                              record.read_bytes()))
    target = tmp_path / "empty-dir"
    target.mkdir()
    with pytest.raises(IntegrityError):
        import_published(src, target, durable=False)
    assert target.is_dir() and list(target.iterdir()) == []


def test_import_failing_at_any_rename_leaves_the_tree_byte_identical(
        tree_copy: Path, mini_source: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import os
    import shutil

    src = mini_source("32013r1336", "32019r0401", "32024l1405")
    pristine = tmp_path / "pristine"
    shutil.copytree(tree_copy, pristine)
    before = snapshot(tree_copy)
    real = os.replace
    calls = {"n": 0, "fail_at": 0}

    def flaky(a: object, b: object) -> None:
        calls["n"] += 1
        if calls["n"] == calls["fail_at"]:
            raise OSError(28, "No space left on device")
        real(a, b)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "replace", flaky)
    import_published(src, tree_copy)  # dry run: count the renames of a successful import
    total = calls["n"]
    assert total > 10
    for nth in sorted({1, 2, total // 3, total // 2, total - 1, total}):
        target = tmp_path / f"t{nth}"
        shutil.copytree(pristine, target)
        calls.update(n=0, fail_at=nth)
        with pytest.raises(CorpusError) as info:  # ENOSPC at an edge is the typed disk_full
            import_published(src, target)
        assert info.value.code == "disk_full"
        assert snapshot(target) == before, f"failure at os.replace #{nth} of {total}"
    monkeypatch.undo()
    assert verify_tree(pristine).ok
