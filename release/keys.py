"""Signing keys and trust roots (Ed25519 or ECDSA P-256, PEM files).

- A private key lives in a PKCS#8 PEM file encrypted with a passphrase read from an
  environment variable (``LEX_SIGNING_PASSPHRASE`` unless configured otherwise); unencrypted
  private keys are refused.
- A trust root is a public key in a SubjectPublicKeyInfo PEM file whose path comes from
  configuration. Its key id is the SHA-256 hex of the DER SubjectPublicKeyInfo, so the id is
  a fingerprint: a root cannot claim someone else's id.
- Ed25519 signatures are the raw 64 bytes; ECDSA P-256 signatures are DER (as in sigstore,
  cosign and securesystemslib) and must be strict DER, so one signature has one encoding.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)

from legal.fs import is_inside
from release.codes import Reason, refuse

Algorithm = Literal["ed25519", "p256"]
ALGORITHMS: tuple[Algorithm, ...] = ("ed25519", "p256")
DEFAULT_PASSPHRASE_ENV = "LEX_SIGNING_PASSPHRASE"
DEFAULT_TRUST_ROOTS_ENV = "LEX_TRUST_ROOTS"
PRIVATE_KEY_NAME = "release-signing.key.pem"
PUBLIC_KEY_NAME = "release-signing.pub.pem"

PrivateKey = Ed25519PrivateKey | ec.EllipticCurvePrivateKey
PublicKey = Ed25519PublicKey | ec.EllipticCurvePublicKey


class Signer(Protocol):
    """Anything that can sign bytes under a key id (a local key, an HSM, a KMS)."""

    @property
    def key_id(self) -> str: ...

    def sign(self, data: bytes) -> bytes: ...


def generate_private_key(algorithm: Algorithm) -> PrivateKey:
    """A fresh private key for ``algorithm``."""
    if algorithm == "ed25519":
        return Ed25519PrivateKey.generate()
    if algorithm == "p256":
        return ec.generate_private_key(ec.SECP256R1())
    refuse(Reason.UNSUPPORTED_ALGORITHM, "algorithm must be ed25519 or p256", str(algorithm))


def spki_der(public_key: PublicKey) -> bytes:
    return public_key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def key_id(public_key: PublicKey) -> str:
    """SHA-256 hex of the DER SubjectPublicKeyInfo."""
    return hashlib.sha256(spki_der(public_key)).hexdigest()


def algorithm_of(public_key: object) -> Algorithm:
    """The algorithm name of a supported public key; anything else is refused."""
    if isinstance(public_key, Ed25519PublicKey):
        return "ed25519"
    if isinstance(public_key, ec.EllipticCurvePublicKey) and isinstance(public_key.curve, ec.SECP256R1):
        return "p256"
    refuse(Reason.UNSUPPORTED_ALGORITHM, "only Ed25519 and ECDSA P-256 keys are supported", type(public_key).__name__)


def sign_bytes(private_key: PrivateKey, data: bytes) -> bytes:
    """Sign ``data``: Ed25519 raw, or ECDSA P-256 with SHA-256 (DER)."""
    if isinstance(private_key, Ed25519PrivateKey):
        return private_key.sign(data)
    return private_key.sign(data, ec.ECDSA(hashes.SHA256()))


def verify_bytes(public_key: PublicKey, signature: bytes, data: bytes) -> None:
    """Refuse with ``malformed_signature`` (wrong shape) or ``bad_signature`` (does not verify)."""
    _check_signature_shape(public_key, signature)
    try:
        if isinstance(public_key, Ed25519PublicKey):
            public_key.verify(signature, data)
        else:
            public_key.verify(signature, data, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        refuse(Reason.BAD_SIGNATURE, "signature does not verify", key_id(public_key))


def _check_signature_shape(public_key: PublicKey, signature: bytes) -> None:
    if isinstance(public_key, Ed25519PublicKey):
        if len(signature) != 64:
            refuse(Reason.MALFORMED_SIGNATURE, f"Ed25519 signature must be 64 bytes, got {len(signature)}")
        return
    try:
        r, s = decode_dss_signature(signature)
    except ValueError:
        refuse(Reason.MALFORMED_SIGNATURE, "ECDSA signature is not valid DER")
    if encode_dss_signature(r, s) != signature:
        refuse(Reason.MALFORMED_SIGNATURE, "ECDSA signature is not strict DER")


@dataclass(frozen=True)
class KeySigner:
    """A :class:`Signer` over a private key held in memory."""

    private_key: PrivateKey
    key_id: str
    algorithm: Algorithm

    @classmethod
    def of(cls, private_key: PrivateKey) -> KeySigner:
        public = private_key.public_key()
        return cls(private_key, key_id(public), algorithm_of(public))

    def sign(self, data: bytes) -> bytes:
        return sign_bytes(self.private_key, data)


# -- key files -----------------------------------------------------------------------------


def passphrase_from_env(var: str = DEFAULT_PASSPHRASE_ENV, environ: Mapping[str, str] | None = None) -> bytes:
    """The key passphrase from environment variable ``var`` (refused if unset or empty)."""
    value = (os.environ if environ is None else environ).get(var, "")
    if not value:
        refuse(Reason.PASSPHRASE_MISSING, f"set the key passphrase in environment variable {var}", var)
    return value.encode("utf-8")


def private_pem(private_key: PrivateKey, passphrase: bytes) -> bytes:
    return private_key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(passphrase),
    )


def public_pem(public_key: PublicKey) -> bytes:
    return public_key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


@dataclass(frozen=True)
class KeyFiles:
    """Where ``keygen`` wrote a key pair, and its key id."""

    private_key: Path
    public_key: Path
    key_id: str
    algorithm: Algorithm


def keygen(out_dir: Path, algorithm: Algorithm, passphrase: bytes) -> KeyFiles:
    """Write a new encrypted private key (mode 0600) and its public key into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    private_path, public_path = out_dir / PRIVATE_KEY_NAME, out_dir / PUBLIC_KEY_NAME
    for path in (private_path, public_path):
        if path.exists():
            refuse(Reason.KEY_EXISTS, "refusing to overwrite an existing key file", path.name)
    key = generate_private_key(algorithm)
    _write_new(private_path, private_pem(key, passphrase), 0o600)
    _write_new(public_path, public_pem(key.public_key()), 0o644)
    return KeyFiles(private_path, public_path, key_id(key.public_key()), algorithm)


def _write_new(path: Path, data: bytes, mode: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def load_signer(path: Path, passphrase: bytes) -> KeySigner:
    """Load an encrypted PEM private key as a :class:`KeySigner`."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        refuse(Reason.KEY_UNREADABLE, f"cannot read private key: {exc.strerror}", path.name)
    try:
        key = serialization.load_pem_private_key(data, password=passphrase)
    except TypeError:
        refuse(Reason.KEY_UNREADABLE, "private key must be an encrypted PEM file", path.name)
    except ValueError:
        refuse(Reason.KEY_UNREADABLE, "cannot decrypt private key (wrong passphrase or not a key)", path.name)
    if not isinstance(key, (Ed25519PrivateKey, ec.EllipticCurvePrivateKey)):
        refuse(Reason.UNSUPPORTED_ALGORITHM, "only Ed25519 and ECDSA P-256 keys are supported", path.name)
    return KeySigner.of(key)


# -- trust roots ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TrustRoot:
    """One pinned public key and the file it came from."""

    key_id: str
    algorithm: Algorithm
    public_key: PublicKey
    source: Path

    def verify(self, signature: bytes, data: bytes) -> None:
        verify_bytes(self.public_key, signature, data)


@dataclass(frozen=True)
class TrustStore:
    """The pinned trust roots, by key id. Loaded once from configuration; cheap to reuse."""

    roots: Mapping[str, TrustRoot] = field(default_factory=dict)

    def get(self, key_id: str) -> TrustRoot | None:
        return self.roots.get(key_id)

    def require_outside(self, directory: Path) -> None:
        """Refuse if any root was loaded from inside ``directory`` (an artifact directory)."""
        for root in self.roots.values():
            if is_inside(root.source, directory):
                refuse(Reason.TRUST_ROOT_IN_ARTIFACT_DIR,
                       "trust roots must come from configuration, never from the artifact directory",
                       root.source.name)


def load_trust_root(path: Path) -> TrustRoot:
    """Load one PEM public key file as a trust root."""
    try:
        key = serialization.load_pem_public_key(path.read_bytes())
    except OSError as exc:
        refuse(Reason.TRUST_ROOT_UNREADABLE, f"cannot read trust root: {exc.strerror}", str(path))
    except ValueError:
        refuse(Reason.TRUST_ROOT_UNREADABLE, "trust root is not a PEM public key", str(path))
    algorithm = algorithm_of(key)
    public = key if isinstance(key, Ed25519PublicKey) else _as_ec(key)
    return TrustRoot(key_id(public), algorithm, public, path.resolve())


def _as_ec(key: object) -> ec.EllipticCurvePublicKey:
    assert isinstance(key, ec.EllipticCurvePublicKey)
    return key


def load_trust_roots(paths: Iterable[Path]) -> TrustStore:
    """Load trust roots from configured paths; at least one is required."""
    roots = {root.key_id: root for root in map(load_trust_root, paths)}
    if not roots:
        refuse(Reason.NO_TRUST_ROOTS, "no trust roots configured")
    return TrustStore(roots)


def trust_roots_from_env(var: str = DEFAULT_TRUST_ROOTS_ENV, environ: Mapping[str, str] | None = None) -> TrustStore:
    """Trust roots from ``var``: PEM paths separated by the platform path separator."""
    value = (os.environ if environ is None else environ).get(var, "")
    return load_trust_roots(Path(part) for part in value.split(os.pathsep) if part)
