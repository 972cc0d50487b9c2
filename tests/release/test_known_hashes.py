"""A producer that just copied files into a set may sign it with the hashes it holds for their
sources (``known``) instead of reading the copies; the release root still reads the copy it takes
in, so a set signed with hashes that are not its bytes is refused there."""

from __future__ import annotations

import hashlib
import itertools
from pathlib import Path

import pytest

import release.files as files_module
from legal.errors import ReleaseError
from release.files import hash_files, list_files
from release.keys import KeySigner, TrustStore
from release.promotion import ReleaseRoot
from release.signing import sign_artifact_set

from .conftest import FIXED_TIME, write_build

FILES = {"indexes/eu-eurlex.sqlite": b"index bytes", "eu-scope.json": b"{}"}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_known_hashes_are_taken_for_files_of_their_size_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    directory = write_build(tmp_path / "set", FILES)
    names = list_files(directory)
    read: list[str] = []
    real = files_module.hash_file

    def counting(path: Path) -> tuple[int, str]:
        read.append(path.relative_to(directory).as_posix())
        return real(path)

    monkeypatch.setattr(files_module, "hash_file", counting)
    index = "indexes/eu-eurlex.sqlite"
    facts = hash_files(directory, names, known={index: (len(FILES[index]), "0" * 64)})
    assert facts[index].sha256 == "0" * 64 and index not in read
    assert sorted(facts) == sorted(names) and all(n in read for n in names if n != index)
    read.clear()
    facts = hash_files(directory, names, known={index: (len(FILES[index]) + 1, "0" * 64)})  # another size: read
    assert facts[index].sha256 == _sha(FILES[index]) and index in read


def test_a_set_signed_with_hashes_not_its_bytes_is_refused_by_the_root(
        tmp_path: Path, ed_signer: KeySigner, trust: TrustStore) -> None:
    ticks = itertools.count()
    root = ReleaseRoot(tmp_path / "releases", trust, actor="tests",
                       clock=lambda: f"2026-01-02T03:04:{next(ticks) % 60:02d}Z")
    good = write_build(tmp_path / "good", FILES)
    index = "indexes/eu-eurlex.sqlite"
    signed = sign_artifact_set(good, [ed_signer], created_by="tests", created_at=FIXED_TIME,
                               known={index: (len(FILES[index]), _sha(FILES[index]))})
    assert root.candidate(good).set_id == signed.set_id
    bad = write_build(tmp_path / "bad", FILES)
    sign_artifact_set(bad, [ed_signer], created_by="tests", created_at=FIXED_TIME,
                      known={index: (len(FILES[index]), _sha(b"other bytes"))})
    with pytest.raises(ReleaseError):
        root.candidate(bad)
