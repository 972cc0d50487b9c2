"""The evidence store: content addressing, write-once, verified reads."""

from __future__ import annotations

import hashlib
import io
import os
from pathlib import Path

import pytest

from corpus_tree import CorpusTree, EvidenceStore
from corpus_tree.evidence import ENV_EVIDENCE_DIR, blob_relpath
from legal.errors import CorpusError, IntegrityError
from legal.fs import is_inside

DATA = b"<?xml version=\"1.0\"?>\r\n<akomaNtoso/>\r\n"
SHA = hashlib.sha256(DATA).hexdigest()


@pytest.fixture
def store(tmp_path: Path) -> EvidenceStore:
    return EvidenceStore(tmp_path / "evidence")


def test_blob_path_is_sharded_by_hash(store: EvidenceStore) -> None:
    assert store.put_bytes(DATA) == SHA
    assert store.path_of(SHA) == store.root / "sha256" / SHA[:2] / SHA[2:4] / SHA
    assert blob_relpath(SHA) == f"sha256/{SHA[:2]}/{SHA[2:4]}/{SHA}"
    assert store.has(SHA) and store.size(SHA) == len(DATA)
    assert list(store.iter_hashes()) == [SHA]


def test_bytes_are_stored_verbatim(store: EvidenceStore) -> None:
    store.put_bytes(DATA, SHA)
    assert store.read(SHA) == DATA
    with store.open(SHA) as f:
        assert f.read() == DATA


def test_identical_content_is_a_no_op(store: EvidenceStore) -> None:
    store.put_bytes(DATA)
    mtime = store.path_of(SHA).stat().st_mtime_ns
    store.put_stream(io.BytesIO(DATA), SHA)
    assert store.path_of(SHA).stat().st_mtime_ns == mtime
    assert sorted(p.name for p in (store.root / "sha256").iterdir()) == [SHA[:2]]


def test_claimed_hash_mismatch_is_refused_and_nothing_stored(store: EvidenceStore) -> None:
    with pytest.raises(IntegrityError) as err:
        store.put_bytes(DATA, "0" * 64)
    assert err.value.code == "body_hash_mismatch"
    assert not store.has("0" * 64) and list(store.iter_hashes()) == []
    assert not store.root.exists() or [p.name for p in (store.root / "sha256").iterdir()] == []
    with pytest.raises(IntegrityError):
        store.put_stream(io.BytesIO(DATA), "0" * 64)
    assert [p.name for p in (store.root / "sha256").iterdir()] == []


def test_existing_different_content_is_never_overwritten(store: EvidenceStore) -> None:
    store.put_bytes(DATA)
    path = store.path_of(SHA)
    os.chmod(path, 0o644)
    path.write_bytes(b"corrupted")
    with pytest.raises(IntegrityError) as err:
        store.put_bytes(DATA)
    assert err.value.code == "evidence_hash_mismatch"
    assert path.read_bytes() == b"corrupted"


def test_read_reverifies(store: EvidenceStore) -> None:
    store.put_bytes(DATA)
    path = store.path_of(SHA)
    os.chmod(path, 0o644)
    path.write_bytes(DATA.replace(b"akoma", b"AKOMA"))
    with pytest.raises(IntegrityError):
        store.read(SHA)


def test_open_raises_at_end_of_stream_on_mismatch(store: EvidenceStore) -> None:
    store.put_bytes(DATA)
    path = store.path_of(SHA)
    os.chmod(path, 0o644)
    path.write_bytes(DATA[:-1] + b"!")
    with store.open(SHA) as f, pytest.raises(IntegrityError) as err:
        while f.read(7):
            pass
    assert err.value.subject == str(path)


def test_large_stream_is_hashed_in_chunks(store: EvidenceStore) -> None:
    data = os.urandom(3 * (1 << 20) + 17)
    sha = store.put_stream(io.BytesIO(data))
    assert sha == hashlib.sha256(data).hexdigest()
    with store.open(sha) as f:
        assert hashlib.sha256(f.read()).hexdigest() == sha


def test_missing_blob_is_a_typed_error(store: EvidenceStore) -> None:
    with pytest.raises(CorpusError) as err:
        store.read("ab" * 32)
    assert err.value.code == "evidence_missing"


def test_invalid_hash_is_refused(store: EvidenceStore) -> None:
    with pytest.raises(IntegrityError):
        store.path_of("../../etc/passwd")


def test_shared_store_location_from_parameter_and_environment(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    shared = tmp_path / "shared-evidence"
    tree = CorpusTree.create(tmp_path / "a", evidence_dir=shared)
    assert tree.evidence.root == shared and not (tree.root / "evidence").exists()
    monkeypatch.setenv(ENV_EVIDENCE_DIR, str(shared))
    assert CorpusTree.open(tmp_path / "a").evidence.root == shared
    monkeypatch.delenv(ENV_EVIDENCE_DIR)
    assert CorpusTree.open(tmp_path / "a", evidence_dir=shared).evidence.root == shared


def test_import_and_verify_with_a_shared_store_outside_the_tree(tmp_path: Path, eu_fixture: Path) -> None:
    from corpus_tree.importer import import_published
    from corpus_tree.verify import verify_tree

    from .conftest import copy_source

    shared = tmp_path / "shared"
    src = copy_source(eu_fixture, tmp_path / "src", ("32016r0679",))
    report = import_published(src, tmp_path / "tree", evidence_dir=shared, durable=False)
    assert report.bodies_added == 8 and not (tmp_path / "tree" / "evidence").exists()
    assert len(list(EvidenceStore(shared).iter_hashes())) == 8
    assert verify_tree(tmp_path / "tree", evidence_dir=shared).ok
    missing = verify_tree(tmp_path / "tree", evidence_dir=tmp_path / "elsewhere")
    assert {p.code for p in missing.problems} == {"missing_body"}


def test_is_inside_compares_resolved_paths(tmp_path: Path) -> None:
    (tmp_path / "tree" / "evidence").mkdir(parents=True)
    (tmp_path / "shared").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "tree")
    assert is_inside(tmp_path / "tree" / "evidence", tmp_path / "tree")
    assert is_inside(tmp_path / "tree", tmp_path / "tree")
    assert is_inside(tmp_path / "link" / "evidence", tmp_path / "tree")
    assert not is_inside(tmp_path / "shared", tmp_path / "tree")
    assert not is_inside(tmp_path / "tree" / ".." / "shared", tmp_path / "tree")
