"""Hybrid test fixtures: the hand-made indexes with vectors from a fake encoder, keys, reports."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from derive.vectors.build import build_vectors
from release.keys import KeySigner, TrustStore, generate_private_key, load_trust_roots, public_pem
from tests.hybrid.fakes import FakeEncoder
from tests.index.handmade import build_handmade


@pytest.fixture(scope="session")
def handmade_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hybrid-handmade")
    for path in build_handmade(out).values():
        build_vectors(path, FakeEncoder())
    return out


@pytest.fixture
def index_dir(handmade_template: Path, tmp_path: Path) -> Path:
    """A private copy (tests tamper with it) of the hand-made indexes with their vectors."""
    target = tmp_path / "index"
    shutil.copytree(handmade_template, target)
    return target


@pytest.fixture(scope="session")
def signer() -> KeySigner:
    return KeySigner.of(generate_private_key("ed25519"))


@pytest.fixture(scope="session")
def trust(tmp_path_factory: pytest.TempPathFactory, signer: KeySigner) -> TrustStore:
    directory = tmp_path_factory.mktemp("hybrid-trust")
    (directory / "hybrid.pub.pem").write_bytes(public_pem(signer.private_key.public_key()))
    return load_trust_roots([directory / "hybrid.pub.pem"])


@pytest.fixture
def fake_encoder() -> Callable[[], FakeEncoder]:
    encoder = FakeEncoder()
    return lambda: encoder
