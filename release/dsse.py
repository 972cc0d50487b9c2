"""DSSE envelopes (Dead Simple Signing Envelope, v1).

The signature covers ``PAE(payloadType, payload)`` exactly as the DSSE spec defines it::

    PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body

where ``LEN`` is the ASCII decimal byte length (of the UTF-8 encoding, for the type). The
envelope is ``{payloadType, payload: base64(body), signatures: [{keyid, sig: base64}]}`` and
is stored as canonical JSON. Key ids in an envelope are only hints: a signature counts only
if a pinned trust root with that id verifies it.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from legal.canonical import canonical_bytes
from release.codes import Reason, refuse
from release.keys import Signer, TrustStore

INTOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json"
MAX_ENVELOPE_BYTES = 128 << 20


def pae(payload_type: str, payload: bytes) -> bytes:
    """The DSSE v1 Pre-Authentication Encoding of ``(payload_type, payload)``."""
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %b %d %b" % (len(kind), kind, len(payload), payload)


@dataclass(frozen=True)
class Signature:
    keyid: str
    sig: bytes


@dataclass(frozen=True)
class Envelope:
    """A parsed DSSE envelope (payload and signatures as raw bytes)."""

    payload_type: str
    payload: bytes
    signatures: tuple[Signature, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "payloadType": self.payload_type,
            "payload": _b64(self.payload),
            "signatures": [{"keyid": s.keyid, "sig": _b64(s.sig)} for s in self.signatures],
        }

    def to_bytes(self) -> bytes:
        """The envelope as canonical JSON bytes (what we write to disk)."""
        return canonical_bytes(self.to_json())


def sign(payload: bytes, payload_type: str, signers: Sequence[Signer]) -> Envelope:
    """Sign ``payload`` with every signer (at least one)."""
    if not signers:
        refuse(Reason.UNSIGNED, "at least one signer is required")
    message = pae(payload_type, payload)
    return Envelope(payload_type, payload, tuple(Signature(s.key_id, s.sign(message)) for s in signers))


def verify(envelope: Envelope, trust: TrustStore) -> tuple[str, ...]:
    """The key ids whose signatures verify; refuse unless at least one trusted signature exists
    and every signature made under a trusted key id verifies."""
    message = pae(envelope.payload_type, envelope.payload)
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
    return Envelope(payload_type, body, tuple(_signature(item) for item in signatures))


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


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: str, reason: Reason, what: str) -> bytes:
    """Decode standard or URL-safe base64, padded or not (as DSSE readers must accept)."""
    cleaned = text.strip().replace("-", "+").replace("_", "/")
    cleaned += "=" * (-len(cleaned) % 4)
    try:
        return base64.b64decode(cleaned, validate=True)
    except (binascii.Error, ValueError):
        refuse(reason, f"{what} is not valid base64")
