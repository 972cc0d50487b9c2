"""Key files: generation, encryption with a passphrase from the environment, trust roots."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization

from legal.errors import ReleaseError
from release.keys import (
    KeySigner,
    generate_private_key,
    keygen,
    load_signer,
    load_trust_root,
    passphrase_from_env,
    trust_roots_from_env,
)


@pytest.mark.parametrize("algorithm", ["ed25519", "p256"])
def test_keygen_writes_an_encrypted_key_and_its_trust_root(tmp_path: Path, algorithm: str) -> None:
    files = keygen(tmp_path / "keys", algorithm, b"correct horse")  # type: ignore[arg-type]
    assert b"ENCRYPTED PRIVATE KEY" in files.private_key.read_bytes()
    assert stat.S_IMODE(files.private_key.stat().st_mode) == 0o600
    signer = load_signer(files.private_key, b"correct horse")
    root = load_trust_root(files.public_key)
    assert signer.key_id == root.key_id == files.key_id
    assert root.algorithm == signer.algorithm == algorithm
    root.verify(signer.sign(b"data"), b"data")


def test_keygen_never_overwrites(tmp_path: Path) -> None:
    keygen(tmp_path, "ed25519", b"pw")
    with pytest.raises(ReleaseError) as caught:
        keygen(tmp_path, "ed25519", b"pw")
    assert caught.value.code == "key_exists"


def test_wrong_passphrase_is_typed(tmp_path: Path) -> None:
    files = keygen(tmp_path, "ed25519", b"pw")
    with pytest.raises(ReleaseError) as caught:
        load_signer(files.private_key, b"other")
    assert caught.value.code == "key_unreadable"


def test_unencrypted_private_keys_are_refused(tmp_path: Path) -> None:
    key = generate_private_key("ed25519")
    path = tmp_path / "plain.pem"
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    with pytest.raises(ReleaseError) as caught:
        load_signer(path, b"pw")
    assert caught.value.code == "key_unreadable"


def test_passphrase_comes_from_a_configurable_variable() -> None:
    assert passphrase_from_env("MY_PASS", {"MY_PASS": "s3cret"}) == b"s3cret"
    with pytest.raises(ReleaseError) as caught:
        passphrase_from_env("MY_PASS", {})
    assert caught.value.code == "passphrase_missing"
    with pytest.raises(ReleaseError):
        passphrase_from_env("MY_PASS", {"MY_PASS": ""})


def test_other_curves_are_refused(tmp_path: Path) -> None:
    from cryptography.hazmat.primitives.asymmetric import ec

    path = tmp_path / "p384.pub.pem"
    key = ec.generate_private_key(ec.SECP384R1()).public_key()
    path.write_bytes(key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    with pytest.raises(ReleaseError) as caught:
        load_trust_root(path)
    assert caught.value.code == "unsupported_algorithm"


def test_trust_roots_from_environment(trust_dir: Path, ed_signer: KeySigner, p256_signer: KeySigner) -> None:
    value = os.pathsep.join([str(trust_dir / "ed.pub.pem"), str(trust_dir / "p256.pub.pem")])
    store = trust_roots_from_env("ROOTS", {"ROOTS": value})
    assert set(store.roots) == {ed_signer.key_id, p256_signer.key_id}
    with pytest.raises(ReleaseError) as caught:
        trust_roots_from_env("ROOTS", {})
    assert caught.value.code == "no_trust_roots"


def test_a_non_key_trust_root_is_typed(tmp_path: Path) -> None:
    (tmp_path / "x.pem").write_text("hello")
    with pytest.raises(ReleaseError) as caught:
        load_trust_root(tmp_path / "x.pem")
    assert caught.value.code == "trust_root_unreadable"
    with pytest.raises(ReleaseError) as caught:
        load_trust_root(tmp_path / "absent.pem")
    assert caught.value.code == "trust_root_unreadable"


def test_p256_signatures_must_be_strict_der(p256_signer: KeySigner) -> None:
    from release.keys import verify_bytes

    sig = p256_signer.sign(b"m")
    public = p256_signer.private_key.public_key()
    with pytest.raises(ReleaseError) as caught:
        verify_bytes(public, sig + b"\x00", b"m")
    assert caught.value.code == "malformed_signature"
