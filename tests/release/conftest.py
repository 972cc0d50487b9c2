"""Fixtures for the release tests: keys (Ed25519 and P-256), trust stores, build directories.

Trust-root PEM files live in their own temporary directory, never inside a build directory,
exactly as configuration would place them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from release.keys import KeySigner, TrustStore, generate_private_key, load_trust_roots, public_pem
from release.signing import SignedSet, sign_artifact_set

FIXED_TIME = "2026-01-02T03:04:05Z"

online = pytest.mark.skipif(os.environ.get("LEX_ONLINE") != "1", reason="online test: set LEX_ONLINE=1")


@pytest.fixture(scope="session")
def ed_signer() -> KeySigner:
    return KeySigner.of(generate_private_key("ed25519"))


@pytest.fixture(scope="session")
def p256_signer() -> KeySigner:
    return KeySigner.of(generate_private_key("p256"))


@pytest.fixture(scope="session")
def stranger() -> KeySigner:
    """A valid key that no trust store pins."""
    return KeySigner.of(generate_private_key("ed25519"))


@pytest.fixture(scope="session")
def trust_dir(tmp_path_factory: pytest.TempPathFactory, ed_signer: KeySigner, p256_signer: KeySigner) -> Path:
    directory = tmp_path_factory.mktemp("trust")
    for name, signer in (("ed.pub.pem", ed_signer), ("p256.pub.pem", p256_signer)):
        (directory / name).write_bytes(public_pem(signer.private_key.public_key()))
    return directory


@pytest.fixture(scope="session")
def trust(trust_dir: Path) -> TrustStore:
    return load_trust_roots([trust_dir / "ed.pub.pem", trust_dir / "p256.pub.pem"])


@pytest.fixture(scope="session")
def ed_trust(trust_dir: Path) -> TrustStore:
    return load_trust_roots([trust_dir / "ed.pub.pem"])


def write_build(directory: Path, files: dict[str, bytes] | None = None) -> Path:
    """A small build directory: indexes, dataset, manifests, scope file, stamp."""
    contents = files if files is not None else {
        "indexes/eu-eurlex.sqlite": b"SQLite format 3\x00" + bytes(range(256)) * 40,
        "indexes/eu-eurlex.stamp.json": b'{"collection":"eu-eurlex"}\n',
        "dataset/provisions.jsonl": b'{"provision_id":"eu-eurlex:32016r0679#art_6"}\n',
        "corpus/manifest.json": b'{"schema":"lex-tree/1"}\n',
        "eu-scope.json": b'{"scope":[]}\n',
    }
    for name, data in contents.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return directory


@pytest.fixture()
def build(tmp_path: Path) -> Path:
    return write_build(tmp_path / "build")


SignFn = Callable[..., SignedSet]


@pytest.fixture()
def sign(ed_signer: KeySigner) -> SignFn:
    def _sign(directory: Path, *signers: KeySigner, **kwargs: object) -> SignedSet:
        return sign_artifact_set(directory, list(signers) or [ed_signer], created_by="tests",
                                 created_at=FIXED_TIME, **kwargs)  # type: ignore[arg-type]

    return _sign
