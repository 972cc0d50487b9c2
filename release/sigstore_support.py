"""Keyless signing of the same artifact-set statement with sigstore, and offline verification.

Signing (CI only): an ambient OIDC credential (GitHub Actions with ``id-token: write``, GitLab,
Buildkite, CircleCI, GCP) or ``SIGSTORE_ID_TOKEN`` gets a short-lived Fulcio certificate; the
statement bytes are signed as a DSSE envelope and logged in Rekor. The result is a sigstore
bundle (v0.3, ``dsseEnvelope``) written as ``statement.sigstore.json`` beside the set. The
payload is exactly the canonical statement that ``statement.dsse.json`` signs.

Verification is offline: a pinned identity policy (certificate SAN + OIDC issuer) and a
trusted root — the one embedded in sigstore-python, or a pinned ``trusted_root.json`` file
given by configuration — then the statement's subjects are checked against the directory
exactly as for a key-signed set.

This module imports sigstore; the rest of :mod:`release` does not, so the server pays for
it only when it verifies a sigstore bundle.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from sigstore.dsse import Statement
from sigstore.errors import Error as SigstoreError
from sigstore.models import Bundle, ClientTrustConfig, TrustedRoot
from sigstore.oidc import IdentityError, IdentityToken, detect_credential
from sigstore.sign import SigningContext
from sigstore.verify import Verifier
from sigstore.verify.policy import Identity

from legal.fs import is_inside
from release.codes import Reason, refuse
from release.files import atomic_write
from release.signatures import check_payload_type, unverified_payload
from release.statement import ENVELOPE_NAME, SIGSTORE_BUNDLE_NAME, parse_statement
from release.verify import VerifiedSet, check_files, verified

TOKEN_ENV = "SIGSTORE_ID_TOKEN"
MAX_BUNDLE_BYTES = 64 << 20


# -- signing -------------------------------------------------------------------------------


def identity_token(
    environ: Mapping[str, str] | None = None,
    detect: Callable[[], str | None] = detect_credential,
) -> str:
    """An OIDC token: ``SIGSTORE_ID_TOKEN`` if set, else an ambient CI credential."""
    explicit = (os.environ if environ is None else environ).get(TOKEN_ENV, "")
    if explicit:
        return explicit
    try:
        token = detect()
    except IdentityError as exc:
        refuse(Reason.NO_OIDC_IDENTITY, f"ambient OIDC credential detection failed: {exc}")
    if not token:
        refuse(Reason.NO_OIDC_IDENTITY,
               f"no OIDC identity: run in CI with an ambient credential (e.g. GitHub Actions "
               f"'permissions: id-token: write') or set {TOKEN_ENV}")
    return token


def sign_payload(payload: bytes, token: str, *, staging: bool = False) -> str:
    """Sign a canonical in-toto statement keylessly; return the sigstore bundle JSON."""
    try:
        statement = Statement(payload)
    except SigstoreError as exc:
        refuse(Reason.MALFORMED_STATEMENT, f"sigstore refused the statement: {exc}")
    try:
        identity = IdentityToken(token)
    except (IdentityError, SigstoreError) as exc:
        refuse(Reason.NO_OIDC_IDENTITY, f"OIDC token unusable: {exc}")
    try:
        config = ClientTrustConfig.staging() if staging else ClientTrustConfig.production()
        context = SigningContext.from_trust_config(config)
        with context.signer(identity, cache=False) as signer:
            return signer.sign_dsse(statement).to_json()
    except (SigstoreError, OSError) as exc:
        refuse(Reason.SIGSTORE_UNAVAILABLE, f"sigstore signing failed: {exc}")


def sign_directory(directory: Path, token: str, *, staging: bool = False) -> Path:
    """Sign the statement of an already key-signed set (``statement.dsse.json``)."""
    payload = unverified_payload(Path(directory) / ENVELOPE_NAME)
    return write_bundle(directory, sign_payload(payload, token, staging=staging))


def write_bundle(directory: Path, bundle_json: str) -> Path:
    path = Path(directory) / SIGSTORE_BUNDLE_NAME
    atomic_write(path, bundle_json.encode("utf-8"))
    return path


# -- verification --------------------------------------------------------------------------


def identity_policy(identity: str, issuer: str) -> Identity:
    """A pinned policy: the certificate must name ``identity`` and come from ``issuer``."""
    if not identity or not identity.strip():
        refuse(Reason.SIGSTORE_POLICY_INVALID, "a signer identity is required (e.g. the workflow URI)")
    if not issuer.startswith("https://"):
        refuse(Reason.SIGSTORE_POLICY_INVALID, "the OIDC issuer must be an https URL", issuer[:100])
    return Identity(identity=identity, issuer=issuer)


def load_bundle(path: Path) -> Bundle:
    """Parse a sigstore bundle; anything unreadable is ``sigstore_bundle_invalid``."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_BUNDLE_BYTES + 1)
    except OSError as exc:
        refuse(Reason.SIGSTORE_BUNDLE_INVALID, f"cannot read bundle: {exc.strerror}", str(path))
    if len(raw) > MAX_BUNDLE_BYTES:
        refuse(Reason.SIGSTORE_BUNDLE_INVALID, "bundle is too large", str(path))
    try:
        return Bundle.from_json(raw)
    except (SigstoreError, ValueError, KeyError, TypeError) as exc:
        refuse(Reason.SIGSTORE_BUNDLE_INVALID, f"not a sigstore bundle: {exc}", path.name)


def offline_verifier(trusted_root: Path | None = None, *, staging: bool = False) -> Verifier:
    """A verifier that never touches the network: a pinned trusted root file, or the one
    embedded in sigstore-python (production, or staging)."""
    try:
        if trusted_root is not None:
            return Verifier(trusted_root=TrustedRoot.from_file(str(trusted_root)))
        return Verifier.staging(offline=True) if staging else Verifier.production(offline=True)
    except (SigstoreError, OSError, ValueError) as exc:
        refuse(Reason.SIGSTORE_UNAVAILABLE, f"cannot load the sigstore trusted root: {exc}")


def verify_bundle_payload(bundle: Bundle, policy: Identity, verifier: Verifier) -> bytes:
    """The DSSE payload of ``bundle`` once certificate, log proof and signature verify."""
    try:
        payload_type, payload = verifier.verify_dsse(bundle, policy)
    except SigstoreError as exc:
        refuse(Reason.SIGSTORE_VERIFICATION_FAILED, f"sigstore verification failed: {exc}")
    check_payload_type(payload_type)
    return payload


def verify_sigstore_set(
    directory: Path,
    bundle_path: Path,
    *,
    identity: str,
    issuer: str,
    trusted_root: Path | None = None,
    staging: bool = False,
    workers: int | None = None,
) -> VerifiedSet:
    """Verify ``directory`` against a sigstore bundle under a pinned identity, offline."""
    directory = Path(directory)
    if trusted_root is not None and is_inside(trusted_root, directory):
        refuse(Reason.TRUST_ROOT_IN_ARTIFACT_DIR, "the sigstore trusted root must come from configuration",
               trusted_root.name)
    policy = identity_policy(identity, issuer)
    bundle = load_bundle(bundle_path)
    payload = verify_bundle_payload(bundle, policy, offline_verifier(trusted_root, staging=staging))
    statement = parse_statement(payload)
    check_files(directory, statement.subjects, workers=workers)
    return verified(directory, statement, (f"sigstore:{identity}",))
