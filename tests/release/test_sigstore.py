"""sigstore support: what is testable offline (identity, policy, bundle parsing, trusted roots).

Keyless signing needs an OIDC identity, Fulcio and Rekor; those tests are marked ``online``
and run only with ``LEX_ONLINE=1`` (in CI with ``id-token: write``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from sigstore.oidc import IdentityError

from legal.errors import ReleaseError
from release.sigstore_support import (
    identity_policy,
    identity_token,
    load_bundle,
    offline_verifier,
    sign_payload,
    verify_sigstore_set,
)
from release.statement import SIGSTORE_BUNDLE_NAME

from .conftest import SignFn, online

GITHUB_ISSUER = "https://token.actions.githubusercontent.com"
IDENTITY = "https://github.com/example/lex-evidence/.github/workflows/release.yml@refs/heads/main"


def code_of(call: object, *args: object, **kwargs: object) -> str:
    with pytest.raises(ReleaseError) as caught:
        call(*args, **kwargs)  # type: ignore[operator]
    return caught.value.code


# -- identity ------------------------------------------------------------------------------


def test_no_ambient_identity_is_a_typed_error() -> None:
    assert code_of(identity_token, {}, lambda: None) == "no_oidc_identity"


def test_failed_ambient_detection_is_a_typed_error() -> None:
    def broken() -> str | None:
        raise IdentityError("GitHub: missing permissions")

    assert code_of(identity_token, {}, broken) == "no_oidc_identity"


def test_the_real_detector_finds_nothing_here(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SIGSTORE_ID_TOKEN", "GITHUB_ACTIONS", "ACTIONS_ID_TOKEN_REQUEST_URL",
                 "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "GOOGLE_SERVICE_ACCOUNT_NAME", "BUILDKITE",
                 "GITLAB_CI", "CIRCLECI"):
        monkeypatch.delenv(name, raising=False)
    assert code_of(identity_token) == "no_oidc_identity"


def test_an_explicit_token_wins() -> None:
    assert identity_token({"SIGSTORE_ID_TOKEN": "abc"}, lambda: None) == "abc"


def test_a_malformed_token_is_refused_before_any_network() -> None:
    payload = b'{"_type":"https://in-toto.io/Statement/v1","predicate":{},"predicateType":"x",' \
              b'"subject":[{"digest":{"sha256":"' + b"a" * 64 + b'"},"name":"f"}]}'
    assert code_of(sign_payload, payload, "not-a-jwt") == "no_oidc_identity"


def test_a_non_statement_payload_is_refused() -> None:
    assert code_of(sign_payload, b'{"hello":1}', "not-a-jwt") == "malformed_statement"


# -- policy --------------------------------------------------------------------------------


def test_identity_policy_is_pinned() -> None:
    policy = identity_policy(IDENTITY, GITHUB_ISSUER)
    assert policy._identity == IDENTITY
    assert policy._issuer is not None


@pytest.mark.parametrize(("identity", "issuer"), [("", GITHUB_ISSUER), ("  ", GITHUB_ISSUER),
                                                  (IDENTITY, "http://insecure.example"), (IDENTITY, "")])
def test_incomplete_policies_are_refused(identity: str, issuer: str) -> None:
    assert code_of(identity_policy, identity, issuer) == "sigstore_policy_invalid"


def test_the_embedded_trusted_root_loads_offline() -> None:
    assert offline_verifier() is not None


def test_an_unusable_trusted_root_is_typed(tmp_path: Path) -> None:
    (tmp_path / "trusted_root.json").write_text("{}")
    assert code_of(offline_verifier, tmp_path / "trusted_root.json") == "sigstore_unavailable"


# -- bundles -------------------------------------------------------------------------------


CORRUPTIONS = {
    "empty": b"",
    "not-json": b"\x00\x01 not json",
    "json-array": b"[]",
    "wrong-media-type": json.dumps({"mediaType": "application/x-nope", "verificationMaterial": {},
                                    "dsseEnvelope": {}}).encode(),
    "missing-material": json.dumps({"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json"}).encode(),
    "truncated": json.dumps({"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json",
                             "verificationMaterial": {"certificate": {"rawBytes": "AAAA"}}})[:-9].encode(),
    "bad-certificate": json.dumps({
        "mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json",
        "verificationMaterial": {"certificate": {"rawBytes": "AAAA"}, "tlogEntries": []},
        "dsseEnvelope": {"payload": "e30=", "payloadType": "application/vnd.in-toto+json",
                         "signatures": [{"sig": "AAAA"}]},
    }).encode(),
}


@pytest.mark.parametrize("name", sorted(CORRUPTIONS))
def test_corrupted_bundles_are_typed(tmp_path: Path, name: str) -> None:
    path = tmp_path / "bundle.json"
    path.write_bytes(CORRUPTIONS[name])
    assert code_of(load_bundle, path) == "sigstore_bundle_invalid"


def test_a_missing_bundle_is_typed(tmp_path: Path) -> None:
    assert code_of(load_bundle, tmp_path / "absent.json") == "sigstore_bundle_invalid"


def test_verifying_a_set_with_a_corrupted_bundle_is_typed(build: Path, sign: SignFn) -> None:
    sign(build)
    (build / SIGSTORE_BUNDLE_NAME).write_text('{"mediaType": "nope"}')
    assert code_of(verify_sigstore_set, build, build / SIGSTORE_BUNDLE_NAME,
                   identity=IDENTITY, issuer=GITHUB_ISSUER) == "sigstore_bundle_invalid"


def test_a_trusted_root_inside_the_set_is_refused(build: Path, sign: SignFn) -> None:
    sign(build)
    (build / "trusted_root.json").write_text("{}")
    assert code_of(verify_sigstore_set, build, build / SIGSTORE_BUNDLE_NAME, identity=IDENTITY,
                   issuer=GITHUB_ISSUER, trusted_root=build / "trusted_root.json") == "trust_root_in_artifact_dir"


# -- online ----------------------------------------------------------------------------------


@pytest.mark.online
@online
def test_keyless_sign_then_offline_verify(build: Path, sign: SignFn) -> None:  # pragma: no cover - online only
    from release.sigstore_support import sign_directory

    sign(build)
    bundle = sign_directory(build, identity_token(), staging=os.environ.get("LEX_SIGSTORE_STAGING") == "1")
    identity = os.environ["LEX_SIGSTORE_IDENTITY"]
    issuer = os.environ.get("LEX_SIGSTORE_ISSUER", GITHUB_ISSUER)
    verified = verify_sigstore_set(build, bundle, identity=identity, issuer=issuer,
                                   staging=os.environ.get("LEX_SIGSTORE_STAGING") == "1")
    assert verified.key_ids == (f"sigstore:{identity}",)
    (build / "extra.bin").write_bytes(b"x")
    assert code_of(verify_sigstore_set, build, bundle, identity=identity, issuer=issuer) == "extra_file"


def test_sigstore_accepts_our_statement_bytes_unchanged(build: Path, sign: SignFn) -> None:
    from sigstore.dsse import Statement

    signed = sign(build)
    statement = Statement(signed.payload)
    assert statement._contents == signed.payload  # the keyless signature covers the same bytes
    assert len(statement._inner.subjects) == len(signed.statement["subject"])
