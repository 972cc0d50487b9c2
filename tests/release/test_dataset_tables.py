"""Every table of the dataset contract travels in the signed artifact set.

Over the real fixture datasets (both publishers, derived once per session): assemble → sign →
verify lists ``provisions``, ``states``, ``version_events`` and ``version_visibility`` (and the
gaps) of each publisher with the bytes ``derive`` wrote; a set with one of them missing, altered
or grown is refused with a typed error naming that file; a set signed without one (assembled by
hand, or by a release that did not carry it) is refused ``incomplete_dataset`` when it is signed
and when it is verified.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from cli.main import main
from legal.artifacts import DATASET_FILES, DATASET_TABLES
from legal.canonical import canonical_bytes
from legal.errors import ReleaseError
from release import verify_artifact_set
from release.assemble import PublisherSources, SetSources, assemble_set
from release.keys import KeySigner, TrustStore
from release.layout import missing_dataset_files
from release.signing import sign_statement
from release.statement import (
    ARTIFACT_SET_PREDICATE,
    SET_SCHEMA,
    Subject,
    build_statement,
    compute_set_id,
    intoto_statement,
    parse_statement,
    scan_subjects,
)
from tests.fixture_builds import FixtureDatasets, ImportedTrees

from .conftest import FIXED_TIME

PUBLISHERS = {"eu": "eu-eurlex", "lu": "lu-legilux"}
CASES = [(table, pub) for table in DATASET_TABLES for pub in PUBLISHERS.values()]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _sources(root: Path, datasets: FixtureDatasets, trees: ImportedTrees) -> SetSources:
    """Both publishers: the real fixture datasets and tree manifests; stand-in index files (an
    index is opaque bytes to the set)."""
    indexes = root / "indexes"
    indexes.mkdir(parents=True)
    for pub in PUBLISHERS.values():
        (indexes / f"{pub}.sqlite").write_bytes(b"SQLite format 3\x00" + pub.encode() * 64)
        (indexes / f"{pub}.stamp.json").write_bytes(json.dumps({"collection": pub}).encode())
    return SetSources(tuple(PublisherSources(pub, indexes, datasets.paths[key], trees.paths[key])
                            for key, pub in PUBLISHERS.items()))


@pytest.fixture()
def signed_set(tmp_path: Path, fixture_dataset: FixtureDatasets, imported_trees: ImportedTrees,
               ed_signer: KeySigner) -> Path:
    directory = assemble_set(tmp_path / "set", _sources(tmp_path / "work", fixture_dataset, imported_trees)).directory
    sign_artifact(directory, ed_signer)
    return directory


def sign_artifact(directory: Path, signer: KeySigner) -> str:
    from release.signing import sign_artifact_set

    return sign_artifact_set(directory, [signer], created_by="tests", created_at=FIXED_TIME).set_id


def refused(directory: Path, trust: TrustStore) -> ReleaseError:
    with pytest.raises(ReleaseError) as caught:
        verify_artifact_set(directory, trust)
    return caught.value


def test_the_set_carries_every_table_of_each_publisher_as_derived(
        signed_set: Path, ed_trust: TrustStore, fixture_dataset: FixtureDatasets) -> None:
    verified = verify_artifact_set(signed_set, ed_trust)
    for key, pub in PUBLISHERS.items():
        for name in DATASET_FILES:
            subject = verified.subjects[f"dataset/{pub}/{name}"]
            source = fixture_dataset.paths[key] / name
            assert (subject.sha256, subject.size) == (_sha(source), source.stat().st_size), name
        for name in DATASET_TABLES:  # the files in the set are the contract's tables, readable as such
            metadata = pq.read_schema(verified.path(f"dataset/{pub}/{name}")).metadata
            assert metadata[b"lex:table"] == name.removesuffix(".parquet").encode()
            assert metadata[b"lex:contract"] == b"lex-dataset/3"
    assert missing_dataset_files(verified.subjects) == []
    # the transaction tables are not empty on the fixtures (there is something to protect)
    assert pq.read_metadata(verified.path("dataset/eu-eurlex/version_events.parquet")).num_rows > 0
    assert pq.read_metadata(verified.path("dataset/lu-legilux/version_visibility.parquet")).num_rows > 0


@pytest.mark.parametrize(("table", "pub"), CASES)
def test_a_missing_table_is_refused_naming_it(signed_set: Path, ed_trust: TrustStore, table: str, pub: str) -> None:
    (signed_set / "dataset" / pub / table).unlink()
    error = refused(signed_set, ed_trust)
    assert (error.code, error.subject) == ("missing_file", f"dataset/{pub}/{table}")


@pytest.mark.parametrize(("table", "pub"), CASES)
def test_a_tampered_table_is_refused_naming_it(signed_set: Path, ed_trust: TrustStore, table: str, pub: str) -> None:
    path = signed_set / "dataset" / pub / table
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01  # one bit, same size: only the digest tells
    path.write_bytes(bytes(data))
    error = refused(signed_set, ed_trust)
    assert (error.code, error.subject) == ("digest_mismatch", f"dataset/{pub}/{table}")
    path.write_bytes(bytes(data) + b"\x00")  # and grown: the size tells first
    error = refused(signed_set, ed_trust)
    assert (error.code, error.subject) == ("size_mismatch", f"dataset/{pub}/{table}")


@pytest.mark.parametrize(("table", "pub"), CASES)
def test_a_set_without_a_table_cannot_be_signed(tmp_path: Path, fixture_dataset: FixtureDatasets,
                                                imported_trees: ImportedTrees, ed_signer: KeySigner,
                                                table: str, pub: str) -> None:
    directory = assemble_set(tmp_path / "set", _sources(tmp_path / "work", fixture_dataset, imported_trees)).directory
    (directory / "dataset" / pub / table).unlink()
    with pytest.raises(ReleaseError) as caught:
        sign_artifact(directory, ed_signer)
    assert (caught.value.code, caught.value.subject) == ("incomplete_dataset", f"dataset/{pub}/{table}")
    assert not (directory / "statement.dsse.json").exists()


@pytest.mark.parametrize(("table", "pub"), CASES)
def test_a_set_signed_without_a_table_is_refused(signed_set: Path, ed_trust: TrustStore, ed_signer: KeySigner,
                                                 table: str, pub: str) -> None:
    """A statement that lists every file present but lacks a table (what a release that did not
    carry the table signed) verifies as a signature, and is refused as a set."""
    (signed_set / "dataset" / pub / table).unlink()
    subjects = sorted(scan_subjects(signed_set), key=lambda s: s.name)
    predicate = {"schema": "lex-artifact-set/1", "set_id": compute_set_id(subjects), "created_by": "tests",
                 "created_at": FIXED_TIME, "index_format": "lex-index/1", "subject_count": len(subjects),
                 "total_bytes": sum(s.size for s in subjects), "labels": {}}
    statement = intoto_statement([s.to_json() for s in subjects], ARTIFACT_SET_PREDICATE, predicate)
    sign_statement(signed_set, statement, [ed_signer])
    error = refused(signed_set, ed_trust)
    assert (error.code, error.subject) == ("incomplete_dataset", f"dataset/{pub}/{table}")


def test_assembly_refuses_a_dataset_directory_without_a_table(tmp_path: Path, fixture_dataset: FixtureDatasets,
                                                              imported_trees: ImportedTrees) -> None:
    partial = tmp_path / "eu-dataset"
    shutil.copytree(fixture_dataset.paths["eu"], partial)
    (partial / "version_visibility.parquet").unlink()
    sources = _sources(tmp_path / "work", fixture_dataset, imported_trees)
    eu, lu = sources.publishers
    sources = SetSources((PublisherSources(eu.publisher, eu.index_dir, partial, eu.corpus_dir), lu))
    with pytest.raises(ReleaseError) as caught:
        assemble_set(tmp_path / "set", sources)
    assert caught.value.code == "assembly_input_missing"
    assert "dataset/eu-eurlex/version_visibility.parquet" in str(caught.value)
    assert not (tmp_path / "set").exists()


def test_cli_verify_names_the_tampered_table(signed_set: Path, trust_dir: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = signed_set / "dataset" / "lu-legilux" / "states.parquet"
    path.write_bytes(path.read_bytes()[:-1] + b"\x00")
    code = main(["release", "verify", str(signed_set), "--trust-root", str(trust_dir / "ed.pub.pem"), "--json"])
    _, err = capsys.readouterr()
    assert code == 2
    assert json.loads(err.strip().splitlines()[-1])["error"] == {
        "family": "release", "code": "digest_mismatch", "message": "SHA-256 differs from the listed digest",
        "subject": "dataset/lu-legilux/states.parquet"}


def test_a_statement_is_only_checked_for_the_publishers_whose_dataset_it_holds() -> None:
    """The rule constrains ``dataset/<publisher>/`` directories (all files or none), nothing else."""
    assert missing_dataset_files(["indexes/eu-eurlex.sqlite", "dataset/provisions.jsonl"]) == []
    assert missing_dataset_files([f"dataset/eu-eurlex/{n}" for n in DATASET_FILES]) == []
    assert missing_dataset_files(["dataset/lu-legilux/provisions.parquet", "dataset/lu-legilux/gaps.jsonl"]) == [
        "dataset/lu-legilux/states.parquet", "dataset/lu-legilux/version_events.parquet",
        "dataset/lu-legilux/version_visibility.parquet"]
    with pytest.raises(ReleaseError) as caught:
        build_statement(scan_subjects_of({"dataset/eu-eurlex/gaps.jsonl": b"{}\n"}), created_by="tests",
                        created_at=FIXED_TIME, index_format="lex-index/1")
    assert (caught.value.code, caught.value.subject) == ("incomplete_dataset", "dataset/eu-eurlex/provisions.parquet")


def scan_subjects_of(files: dict[str, bytes]) -> list[Subject]:
    return [Subject(name, hashlib.sha256(data).hexdigest(), len(data)) for name, data in files.items()]


def test_a_set_signed_before_the_tables_travelled_still_verifies_but_cannot_be_signed_again() -> None:
    """The lex-dataset/2 layout (provisions and gaps only) is accepted when verifying, never when signing."""
    legacy = {"dataset/lu-legilux/provisions.parquet": b"PAR1", "dataset/lu-legilux/gaps.jsonl": b"{}\n",
              "indexes/lu-legilux.sqlite": b"SQLite"}
    assert missing_dataset_files(legacy, accept_legacy=True) == []
    statement = build_statement_unchecked(scan_subjects_of(legacy))
    parsed = parse_statement(canonical_bytes(statement))
    assert sorted(parsed.subjects) == sorted(legacy)
    with pytest.raises(ReleaseError) as caught:
        build_statement(scan_subjects_of(legacy), created_by="tests", created_at=FIXED_TIME, index_format="lex-index/1")
    assert (caught.value.code, caught.value.subject) == ("incomplete_dataset", "dataset/lu-legilux/states.parquet")
    # one table of the new layout without the others is not the legacy layout: refused when verifying too
    partial = {**legacy, "dataset/lu-legilux/states.parquet": b"PAR1"}
    with pytest.raises(ReleaseError) as caught:
        parse_statement(canonical_bytes(build_statement_unchecked(scan_subjects_of(partial))))
    assert (caught.value.code, caught.value.subject) == ("incomplete_dataset",
                                                         "dataset/lu-legilux/version_events.parquet")


def build_statement_unchecked(subjects: list[Subject]) -> dict[str, object]:
    """A statement as an older release signed it (built without the completeness rule)."""
    ordered = sorted(subjects, key=lambda s: s.name)
    predicate = {"schema": SET_SCHEMA, "set_id": compute_set_id(ordered), "created_by": "tests",
                 "created_at": FIXED_TIME, "index_format": "lex-index/1", "subject_count": len(ordered),
                 "total_bytes": sum(s.size for s in ordered), "labels": {}}
    return intoto_statement([s.to_json() for s in ordered], ARTIFACT_SET_PREDICATE, predicate)
