"""Size bounds and safe parsing: every body is untrusted input.

A body over a bound, a zip that expands too far, malformed XML or an unknown document
namespace raises :class:`legal.errors.DerivationError` whose ``subject`` is the evidence
SHA-256, so a run can report the exact bytes it refused and carry on with the next version.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from dataclasses import dataclass

from lxml import etree

from legal.canonical import sha256_hex
from legal.errors import DerivationError

# Version of the safe parsing (parser options, zip guards; the bounds themselves are keyed by value).
# It is part of every derive cache key: a change here that changes what any body parses to must bump it.
PARSING_VERSION = 1

MiB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds applied before and while parsing (defaults follow the acquisition caps)."""

    max_body_bytes: int = 64 * MiB
    max_zip_bytes: int = 32 * MiB
    max_member_bytes: int = 64 * MiB
    max_expanded_bytes: int = 128 * MiB
    max_members: int = 4096
    max_ratio: int = 200  # expanded / compressed, per member (zip bombs)


DEFAULT_LIMITS = Limits()


def check_size(data: bytes, evidence_sha256: str, limits: Limits = DEFAULT_LIMITS) -> None:
    if len(data) > limits.max_body_bytes:
        raise DerivationError(
            f"body of {len(data)} bytes exceeds the bound of {limits.max_body_bytes} bytes",
            code="body_too_large", subject=evidence_sha256,
        )


def body_sha256(data: bytes, known: str | None = None) -> str:
    """The SHA-256 (hex) of a body: ``known`` when the caller has just computed or checked it (the
    dispatcher passes the evidence store's checked hash on), else computed."""
    return known if known is not None else sha256_hex(data)


def _parser() -> etree.XMLParser:
    # No DTD loading, no network, no entity expansion, no huge-tree mode; keep PIs (Formex
    # amendment provenance) and comments out of the way.
    return etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
        remove_comments=True, remove_pis=False, collect_ids=False, dtd_validation=False,
    )


def parse_xml(data: bytes, evidence_sha256: str, limits: Limits = DEFAULT_LIMITS) -> etree._Element:
    """Parse untrusted XML strictly; refuse entity declarations outright."""
    check_size(data, evidence_sha256, limits)
    head = data[:65536]
    if b"<!ENTITY" in head:
        raise DerivationError("XML declares entities (refused: expansion attacks)",
                              code="xml_entities_refused", subject=evidence_sha256)
    try:
        root = etree.fromstring(data, parser=_parser())
    except etree.XMLSyntaxError as exc:
        raise DerivationError(f"malformed XML: {exc}", code="malformed_xml", subject=evidence_sha256) from None
    if root is None:
        raise DerivationError("empty XML document", code="malformed_xml", subject=evidence_sha256)
    return root


_NAMES_KEPT = 4096  # distinct tags remembered (a document's vocabulary is a few dozen)
_LOCALS: dict[object, str] = {}
_NAMESPACES: dict[object, str] = {}


#: The local name of a tag :func:`local` has seen, else ``None``: a tree walker's fast path
#: (``known_local(tag) or local(tag)``: a dict lookup, no Python call, per element once its tag is known).
known_local = _LOCALS.get


def local(tag: object) -> str:
    """Local name of an element tag (``""`` for comments and processing instructions)."""
    name = _LOCALS.get(tag)
    if name is None:
        name = tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""
        if len(_LOCALS) < _NAMES_KEPT:
            _LOCALS[tag] = name
    return name


#: The namespace of a tag :func:`namespace` has seen, else ``None`` (as :data:`known_local`).
known_namespace = _NAMESPACES.get


def namespace(tag: object) -> str:
    name = _NAMESPACES.get(tag)
    if name is None:
        name = (tag[1:].split("}", 1)[0] if tag.startswith("{") else "") if isinstance(tag, str) else ""
        if len(_NAMESPACES) < _NAMES_KEPT:
            _NAMESPACES[tag] = name
    return name


def read_zip(data: bytes, evidence_sha256: str, limits: Limits = DEFAULT_LIMITS) -> dict[str, bytes]:
    """Members of a zip, flattened to file names, with bomb and traversal guards.

    Sizes are enforced on the bytes actually inflated (headers are not trusted).
    """
    if len(data) > limits.max_zip_bytes:
        raise DerivationError(f"zip of {len(data)} bytes exceeds {limits.max_zip_bytes}",
                              code="zip_too_large", subject=evidence_sha256)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise DerivationError(f"unreadable zip: {exc}", code="bad_zip", subject=evidence_sha256) from None
    if len(infos) > limits.max_members:
        raise DerivationError(f"zip has {len(infos)} members", code="zip_too_many_members", subject=evidence_sha256)
    members: dict[str, bytes] = {}
    expanded = 0
    for info in infos:
        if info.is_dir():
            continue
        name = info.filename.replace("\\", "/").rsplit("/", 1)[-1]
        if not name or name in (".", "..") or name in members:
            raise DerivationError(f"unsafe or duplicate member name {info.filename!r}",
                                  code="zip_bad_member_name", subject=evidence_sha256)
        body = _inflate(archive, info, limits, limits.max_expanded_bytes - expanded, evidence_sha256)
        expanded += len(body)
        members[name] = body
    return members


def _inflate(archive: zipfile.ZipFile, info: zipfile.ZipInfo, limits: Limits, budget: int,
             evidence_sha256: str) -> bytes:
    cap = min(limits.max_member_bytes, budget, max(info.compress_size, 1) * limits.max_ratio)
    chunks = []
    total = 0
    try:
        with archive.open(info) as stream:
            while True:
                chunk = stream.read(65536)
                if not chunk:
                    break
                total += len(chunk)
                if total > cap:
                    raise DerivationError(
                        f"zip member {info.filename!r} inflates beyond {cap} bytes (zip bomb guard)",
                        code="zip_bomb", subject=evidence_sha256,
                    )
                chunks.append(chunk)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, zlib.error) as exc:
        raise DerivationError(f"corrupt zip member {info.filename!r}: {exc}", code="bad_zip",
                              subject=evidence_sha256) from None
    return b"".join(chunks)
