"""The one seam for signatures: DSSE envelopes, their encoding, PAE, signing and verification.

Every signed file of a release (``statement.dsse.json``, ``reports/*.dsse.json``) is made
and checked here; no other module builds an envelope, computes a PAE or calls a key's
``verify`` on envelope bytes.

The envelope format and the Pre-Authentication Encoding are securesystemslib's DSSE
implementation (:class:`securesystemslib.dsse.Envelope`)::

    PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body
    {"payloadType": type, "payload": base64(body), "signatures": [{"keyid": id, "sig": base64}]}

stored as canonical JSON. The *policy* is ours and stricter than that library's
``Envelope.verify`` (see ``docs/adr/0008-one-signature-seam.md``):

- parsing is strict (size limit, no duplicate JSON members, one signature per key id, base64
  checked, standard or URL-safe, padded or not, as DSSE readers must accept), with typed
  refusals ``unsigned`` / ``malformed_envelope`` / ``malformed_signature``;
- key ids in an envelope are only hints: a signature counts only if a pinned trust root
  with that id verifies it; none at all is ``unknown_key``;
- *every* signature made under a pinned key id must verify (``bad_signature``), not just a
  threshold of them, and signature shape is checked first (strict DER for P-256);
- the payload type is checked after the signature (``wrong_payload_type``).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from securesystemslib.dsse import Envelope as DsseEnvelope

# the package re-exports Signature without naming it in __all__
from securesystemslib.signer import Signature as DsseSignature  # type: ignore[attr-defined]

from legal.canonical import canonical_bytes
from release.codes import Reason, refuse
from release.files import atomic_write
from release.keys import Signer, TrustStore

INTOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json"
MAX_ENVELOPE_BYTES = 128 << 20


def pae(payload_type: str, payload: bytes) -> bytes:
    """The DSSE v1 Pre-Authentication Encoding of ``(payload_type, payload)``."""
    return DsseEnvelope(payload, payload_type, {}).pae()


@dataclass(frozen=True)
class Signature:
    keyid: str
    sig: bytes


@dataclass(frozen=True)
class Envelope:
    """A parsed DSSE envelope (payload and signatures as raw bytes), immutable."""

    payload_type: str
    payload: bytes
    signatures: tuple[Signature, ...]

    def dsse(self) -> DsseEnvelope:
        """The securesystemslib envelope (encoding and PAE)."""
        return DsseEnvelope(self.payload, self.payload_type,
                            {s.keyid: DsseSignature(s.keyid, s.sig.hex()) for s in self.signatures})

    def pae(self) -> bytes:
        return self.dsse().pae()

    def to_json(self) -> dict[str, Any]:
        if len({s.keyid for s in self.signatures}) != len(self.signatures):
            refuse(Reason.MALFORMED_ENVELOPE, "one signature per key id")
        return self.dsse().to_dict()

    def to_bytes(self) -> bytes:
        """The envelope as canonical JSON bytes (what we write to disk)."""
        return canonical_bytes(self.to_json())


@dataclass(frozen=True)
class Opened:
    """A verified envelope: its payload and the pinned key ids whose signatures verified."""

    envelope: Envelope
    key_ids: tuple[str, ...]

    @property
    def payload(self) -> bytes:
        return self.envelope.payload


# -- signing -------------------------------------------------------------------------------


def sign(payload: bytes, payload_type: str, signers: Sequence[Signer]) -> Envelope:
    """Sign ``payload`` with every signer (at least one, one per key id)."""
    if not signers:
        refuse(Reason.UNSIGNED, "at least one signer is required")
    message = pae(payload_type, payload)
    envelope = Envelope(payload_type, payload, tuple(Signature(s.key_id, s.sign(message)) for s in signers))
    envelope.to_json()  # refuses a repeated key id
    return envelope


def sign_statement(statement: Mapping[str, Any], signers: Sequence[Signer]) -> Envelope:
    """Sign an in-toto statement: its canonical JSON, payload type ``application/vnd.in-toto+json``."""
    return sign(canonical_bytes(statement), INTOTO_PAYLOAD_TYPE, signers)


def write_envelope(path: Path, envelope: Envelope) -> Path:
    """Write ``envelope`` (canonical JSON) to ``path`` atomically."""
    atomic_write(Path(path), envelope.to_bytes())
    return Path(path)


# -- verification --------------------------------------------------------------------------


def verify(envelope: Envelope, trust: TrustStore) -> tuple[str, ...]:
    """The key ids whose signatures verify; refuse unless at least one trusted signature exists
    and every signature made under a trusted key id verifies."""
    message = envelope.pae()
    trusted = [(s, root) for s in envelope.signatures if (root := trust.get(s.keyid)) is not None]
    if not trusted:
        keyids = ",".join(s.keyid[:16] for s in envelope.signatures)
        refuse(Reason.UNKNOWN_KEY, "no signature is made by a pinned trust root", keyids)
    for signature, root in trusted:
        root.verify(signature.sig, message)
    return tuple(root.key_id for _, root in trusted)


def verify_typed(envelope: Envelope, trust: TrustStore, payload_type: str) -> tuple[str, ...]:
    """:func:`verify`, then require the expected ``payloadType``."""
    key_ids = verify(envelope, trust)
    if envelope.payload_type != payload_type:
        refuse(Reason.WRONG_PAYLOAD_TYPE, f"expected payloadType {payload_type}", envelope.payload_type[:100])
    return key_ids


def open_statement(source: Envelope | bytes | Path, trust: TrustStore) -> Opened:
    """Read (a path), parse (bytes) and verify an in-toto envelope against pinned ``trust``."""
    if isinstance(source, Path):
        source = read(source)
    elif isinstance(source, bytes):
        source = parse(source)
    return Opened(source, verify_typed(source, trust, INTOTO_PAYLOAD_TYPE))


def check_payload_type(payload_type: str) -> None:
    """Refuse a payload type other than in-toto's (for envelopes verified elsewhere: sigstore)."""
    if payload_type != INTOTO_PAYLOAD_TYPE:
        refuse(Reason.WRONG_PAYLOAD_TYPE, f"expected payloadType {INTOTO_PAYLOAD_TYPE}", payload_type[:100])


def unverified_payload(path: Path) -> bytes:
    """The payload of the envelope at ``path``, parsed but *not* verified (to counter-sign it)."""
    return read(path).payload


# -- parsing -------------------------------------------------------------------------------


def read(path: Path) -> Envelope:
    """Read and parse an envelope file; a missing file is ``unsigned``."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_ENVELOPE_BYTES + 1)
    except FileNotFoundError:
        refuse(Reason.UNSIGNED, "no signature envelope", path.name)
    except OSError as exc:
        refuse(Reason.MALFORMED_ENVELOPE, f"cannot read envelope: {exc.strerror}", path.name)
    if len(data) > MAX_ENVELOPE_BYTES:
        refuse(Reason.MALFORMED_ENVELOPE, "envelope is too large", path.name)
    return parse(data)


def parse(data: bytes) -> Envelope:
    """Parse envelope JSON; refuse with ``malformed_envelope`` / ``malformed_signature``."""
    document = _json_object(data)
    payload_type = document.get("payloadType")
    payload = document.get("payload")
    signatures = document.get("signatures")
    if not isinstance(payload_type, str) or not isinstance(payload, str) or not isinstance(signatures, list):
        refuse(Reason.MALFORMED_ENVELOPE, "envelope needs payloadType, payload and signatures")
    if not signatures:
        refuse(Reason.UNSIGNED, "envelope carries no signature")
    body = _unb64(payload, Reason.MALFORMED_ENVELOPE, "payload")
    parsed = tuple(_signature(item) for item in signatures)
    if len({s.keyid for s in parsed}) != len(parsed):
        refuse(Reason.MALFORMED_ENVELOPE, "one signature per key id", parsed[0].keyid[:16])
    return Envelope(payload_type, body, parsed)


def _signature(item: object) -> Signature:
    if not isinstance(item, dict) or not isinstance(item.get("sig"), str) or not isinstance(item.get("keyid"), str):
        refuse(Reason.MALFORMED_ENVELOPE, "each signature needs a keyid and a sig")
    sig = _unb64(item["sig"], Reason.MALFORMED_SIGNATURE, "sig")
    if not sig:
        refuse(Reason.MALFORMED_SIGNATURE, "empty signature")
    return Signature(item["keyid"], sig)


def _json_object(data: bytes) -> dict[str, Any]:
    try:
        value = json.loads(data.decode("utf-8"), object_pairs_hook=_no_duplicates)
    except (UnicodeDecodeError, ValueError):
        refuse(Reason.MALFORMED_ENVELOPE, "envelope is not valid JSON")
    if not isinstance(value, dict):
        refuse(Reason.MALFORMED_ENVELOPE, "envelope must be a JSON object")
    return value


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r}")
        out[key] = value
    return out


def _unb64(text: str, reason: Reason, what: str) -> bytes:
    """Decode standard or URL-safe base64, padded or not (as DSSE readers must accept)."""
    cleaned = text.strip().replace("-", "+").replace("_", "/")
    cleaned += "=" * (-len(cleaned) % 4)
    try:
        return base64.b64decode(cleaned, validate=True)
    except (binascii.Error, ValueError):
        refuse(reason, f"{what} is not valid base64")
