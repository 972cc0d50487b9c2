"""DSSE: PAE exactly per the spec, envelopes, and signature properties (Ed25519 and P-256)."""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sigstore.dsse import _pae as sigstore_pae

from legal.errors import ReleaseError
from release import signatures
from release.keys import KeySigner, TrustStore

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


# -- PAE -----------------------------------------------------------------------------------


def test_pae_matches_the_spec_example() -> None:
    # DSSE protocol.md test vector
    assert signatures.pae("http://example.com/HelloWorld", b"hello world") == (
        b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"
    )


def test_pae_of_empty_type_and_body() -> None:
    assert signatures.pae("", b"") == b"DSSEv1 0  0 "


def test_pae_counts_bytes_not_characters() -> None:
    assert signatures.pae("é", b"\xff") == "DSSEv1 2 é 1 ".encode() + b"\xff"


@given(kind=st.text(), body=st.binary())
def test_pae_layout(kind: str, body: bytes) -> None:
    encoded = kind.encode("utf-8")
    assert signatures.pae(kind, body) == b"DSSEv1 " + str(len(encoded)).encode() + b" " + encoded + b" " + str(
        len(body)
    ).encode() + b" " + body


@given(kind=st.text(alphabet=st.characters(max_codepoint=127)), body=st.binary())
def test_pae_agrees_with_sigstore_for_ascii_types(kind: str, body: bytes) -> None:
    assert signatures.pae(kind, body) == sigstore_pae(kind, body)


@given(a=st.tuples(st.text(), st.binary()), b=st.tuples(st.text(), st.binary()))
def test_pae_is_injective(a: tuple[str, bytes], b: tuple[str, bytes]) -> None:
    if a != b:
        assert signatures.pae(*a) != signatures.pae(*b)


# -- signatures ----------------------------------------------------------------------------


@pytest.fixture(params=["ed25519", "p256"])
def signer(request: pytest.FixtureRequest, ed_signer: KeySigner, p256_signer: KeySigner) -> KeySigner:
    return ed_signer if request.param == "ed25519" else p256_signer


@FAST
@given(payload=st.binary(max_size=2048), kind=st.text(min_size=1, max_size=40))
def test_any_payload_signs_and_verifies(signer: KeySigner, trust: TrustStore, payload: bytes, kind: str) -> None:
    envelope = signatures.sign(payload, kind, [signer])
    parsed = signatures.parse(envelope.to_bytes())
    assert parsed == envelope
    assert signatures.verify(parsed, trust) == (signer.key_id,)


@FAST
@given(payload=st.binary(min_size=1, max_size=512), data=st.data())
def test_any_single_byte_change_of_payload_fails(signer: KeySigner, trust: TrustStore, payload: bytes,
                                                 data: st.DataObject) -> None:
    envelope = signatures.sign(payload, signatures.INTOTO_PAYLOAD_TYPE, [signer])
    index = data.draw(st.integers(0, len(payload) - 1))
    delta = data.draw(st.integers(1, 255))
    changed = bytearray(payload)
    changed[index] ^= delta
    tampered = signatures.Envelope(envelope.payload_type, bytes(changed), envelope.signatures)
    with pytest.raises(ReleaseError) as caught:
        signatures.verify(tampered, trust)
    assert caught.value.code == "bad_signature"


@FAST
@given(payload=st.binary(max_size=512), data=st.data())
def test_any_single_byte_change_of_signature_fails(signer: KeySigner, trust: TrustStore, payload: bytes,
                                                   data: st.DataObject) -> None:
    envelope = signatures.sign(payload, signatures.INTOTO_PAYLOAD_TYPE, [signer])
    sig = envelope.signatures[0]
    # ECDSA signatures vary in length, so draw a position independent of it.
    index = data.draw(st.integers(0, 10_000)) % len(sig.sig)
    changed = bytearray(sig.sig)
    changed[index] ^= data.draw(st.integers(1, 255))
    tampered = signatures.Envelope(envelope.payload_type, payload, (signatures.Signature(sig.keyid, bytes(changed)),))
    with pytest.raises(ReleaseError) as caught:
        signatures.verify(tampered, trust)
    assert caught.value.code in {"bad_signature", "malformed_signature"}


@FAST
@given(payload=st.binary(max_size=256), other=st.text(min_size=1, max_size=20))
def test_changing_the_payload_type_fails(signer: KeySigner, trust: TrustStore, payload: bytes, other: str) -> None:
    envelope = signatures.sign(payload, signatures.INTOTO_PAYLOAD_TYPE, [signer])
    if other == envelope.payload_type:
        return
    with pytest.raises(ReleaseError) as caught:
        signatures.verify(signatures.Envelope(other, payload, envelope.signatures), trust)
    assert caught.value.code == "bad_signature"


def test_unknown_key_id_is_refused(stranger: KeySigner, trust: TrustStore) -> None:
    envelope = signatures.sign(b"x", signatures.INTOTO_PAYLOAD_TYPE, [stranger])
    with pytest.raises(ReleaseError) as caught:
        signatures.verify(envelope, trust)
    assert caught.value.code == "unknown_key"


def test_signature_by_another_key_under_a_trusted_key_id_is_bad(ed_signer: KeySigner, stranger: KeySigner,
                                                                 trust: TrustStore) -> None:
    forged = signatures.sign(b"x", signatures.INTOTO_PAYLOAD_TYPE, [stranger])
    envelope = signatures.Envelope(forged.payload_type, forged.payload,
                             (signatures.Signature(ed_signer.key_id, forged.signatures[0].sig),))
    with pytest.raises(ReleaseError) as caught:
        signatures.verify(envelope, trust)
    assert caught.value.code == "bad_signature"


def test_extra_signature_by_an_unknown_key_is_ignored(ed_signer: KeySigner, stranger: KeySigner,
                                                      trust: TrustStore) -> None:
    envelope = signatures.sign(b"x", signatures.INTOTO_PAYLOAD_TYPE, [stranger, ed_signer])
    assert signatures.verify(envelope, trust) == (ed_signer.key_id,)


def test_both_algorithms_together(ed_signer: KeySigner, p256_signer: KeySigner, trust: TrustStore) -> None:
    envelope = signatures.sign(b"payload", signatures.INTOTO_PAYLOAD_TYPE, [ed_signer, p256_signer])
    assert set(signatures.verify(envelope, trust)) == {ed_signer.key_id, p256_signer.key_id}


def test_ed25519_signatures_are_deterministic(ed_signer: KeySigner) -> None:
    assert signatures.sign(b"a", "t", [ed_signer]) == signatures.sign(b"a", "t", [ed_signer])


def test_wrong_payload_type_is_refused_after_the_signature(ed_signer: KeySigner, trust: TrustStore) -> None:
    envelope = signatures.sign(b"{}", "application/json", [ed_signer])
    with pytest.raises(ReleaseError) as caught:
        signatures.verify_typed(envelope, trust, signatures.INTOTO_PAYLOAD_TYPE)
    assert caught.value.code == "wrong_payload_type"


# -- parsing -------------------------------------------------------------------------------


def _doc(**members: object) -> bytes:
    base: dict[str, object] = {"payloadType": "t", "payload": "eA==", "signatures": [{"keyid": "k", "sig": "AAAA"}]}
    base.update(members)
    return json.dumps({k: v for k, v in base.items() if v is not None}).encode()


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"", "malformed_envelope"),
        (b"not json", "malformed_envelope"),
        (b"[]", "malformed_envelope"),
        (b'{"payloadType":"t","payloadType":"t","payload":"","signatures":[]}', "malformed_envelope"),
        (_doc(payload=5), "malformed_envelope"),
        (_doc(signatures="x"), "malformed_envelope"),
        (_doc(signatures=[]), "unsigned"),
        (_doc(signatures=[{"sig": "AAAA"}]), "malformed_envelope"),
        (_doc(payload="!!!"), "malformed_envelope"),
        (_doc(signatures=[{"keyid": "k", "sig": "A"}]), "malformed_signature"),
        (_doc(signatures=[{"keyid": "k", "sig": ""}]), "malformed_signature"),
        (b"\xff\xfe", "malformed_envelope"),
    ],
    ids=["empty", "not-json", "array", "duplicate-key", "payload-not-string", "signatures-not-list",
         "no-signature", "no-keyid", "payload-not-base64", "sig-not-base64", "sig-empty", "not-utf8"],
)
def test_malformed_envelopes_are_typed(data: bytes, code: str) -> None:
    with pytest.raises(ReleaseError) as caught:
        signatures.parse(data)
    assert caught.value.code == code


def test_url_safe_unpadded_base64_is_accepted(ed_signer: KeySigner, trust: TrustStore) -> None:
    envelope = signatures.sign(b"\xfb\xff payload", "t", [ed_signer])
    document = envelope.to_json()
    document["payload"] = base64.urlsafe_b64encode(envelope.payload).decode().rstrip("=")
    document["signatures"][0]["sig"] = base64.urlsafe_b64encode(envelope.signatures[0].sig).decode().rstrip("=")
    assert signatures.verify(signatures.parse(json.dumps(document).encode()), trust) == (ed_signer.key_id,)


def test_truncated_signatures_are_malformed(signer: KeySigner, trust: TrustStore) -> None:
    envelope = signatures.sign(b"x", signatures.INTOTO_PAYLOAD_TYPE, [signer])
    sig = envelope.signatures[0]
    for cut in (1, 2, 7, len(sig.sig) // 2):
        short = signatures.Envelope(envelope.payload_type, envelope.payload, (signatures.Signature(sig.keyid, sig.sig[:-cut]),))
        with pytest.raises(ReleaseError) as caught:
            signatures.verify(short, trust)
        assert caught.value.code == "malformed_signature", cut


def test_missing_envelope_file_is_unsigned(tmp_path: object) -> None:
    from pathlib import Path

    with pytest.raises(ReleaseError) as caught:
        signatures.read(Path(str(tmp_path)) / "statement.dsse.json")
    assert caught.value.code == "unsigned"


def test_envelope_bytes_are_the_documented_dsse_json(ed_signer: KeySigner) -> None:
    envelope = signatures.sign(b"body", signatures.INTOTO_PAYLOAD_TYPE, [ed_signer])
    sig = base64.b64encode(envelope.signatures[0].sig).decode()
    expected = ('{"payload":"Ym9keQ==","payloadType":"application/vnd.in-toto+json",'
                f'"signatures":[{{"keyid":"{ed_signer.key_id}","sig":"{sig}"}}]}}')
    assert envelope.to_bytes() == expected.encode()


def test_two_signatures_under_one_key_id_are_malformed(ed_signer: KeySigner) -> None:
    envelope = signatures.sign(b"x", "t", [ed_signer])
    document = json.loads(envelope.to_bytes())
    document["signatures"] *= 2
    with pytest.raises(ReleaseError) as err:
        signatures.parse(json.dumps(document).encode())
    assert err.value.code == "malformed_envelope"
    with pytest.raises(ReleaseError) as err:
        signatures.sign(b"x", "t", [ed_signer, ed_signer])
    assert err.value.code == "malformed_envelope"
