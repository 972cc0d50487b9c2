"""Pick the profile for one body by sniffing its bytes, never by file name (model §6.3).

- ``%PDF`` → ``pdf-lu/2``; a Mémorial gazette issue (format ``pdf-memorial``) →
  ``pdf-memorial-lu/3`` when the caller says which act it stands for (``act``), else a typed gap;
- a zip (``PK``) → ``fmx4-eu/1`` over its main member, with bomb guards;
- ``<akomaNtoso`` / ``:akomaNtoso`` in the first 16 KiB → ``akn-lu/1``, and
  ``akn-lu-document/1`` when that finds no article or annex;
- a Formex root (``CONS.ACT``/``ACT``) → ``fmx4-eu/1``;
- (X)HTML → strict ``xhtml-eu/1``; on an XML error or zero provisions → ``html-eu-tolerant/1``;
- any other XML root → :class:`DerivationError` ``unknown_namespace``; anything else
  ``unknown_format``. Errors always name the evidence SHA-256.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from derive.limits import (
    DEFAULT_LIMITS,
    Limits,
    body_sha256,
    check_size,
    local,
    namespace,
    parse_xml,
)
from derive.model import ExtractionResult
from derive.profiles import akn_lu, fmx4_eu, html_eu, pdf_lu, pdf_memorial_lu, xhtml_eu
from legal.errors import DerivationError

SNIFF = 16384
_FORMEX_ROOT = re.compile(rb"<(CONS\.ACT|ACT)[\s>/]")
_TOLERATED = frozenset({"malformed_xml", "xml_entities_refused"})


def sniff(data: bytes) -> str:
    """``pdf`` | ``zip`` | ``akn`` | ``formex`` | ``html`` | ``xml`` | ``unknown``."""
    head = data[:SNIFF].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"%PDF"):
        return "pdf"
    if head.startswith(b"PK\x03\x04"):
        return "zip"
    lowered = head.lower()
    if b"<akomantoso" in lowered or b":akomantoso" in lowered:
        return "akn"
    if _FORMEX_ROOT.search(head) and b"<html" not in lowered:
        return "formex"
    if b"<html" in lowered or b"<!doctype html" in lowered:
        return "html"
    if head.startswith(b"<"):
        return "xml"
    return "unknown"


def derive_body(data: bytes, *, language: str, fmt: str | None = None, limits: Limits = DEFAULT_LIMITS,
                act: pdf_memorial_lu.Act | None = None,
                attachments: Mapping[str, fmx4_eu.Attachment] | None = None,
                sha256: str | None = None) -> ExtractionResult:
    """Run the profile this body calls for; pure and deterministic.

    ``act`` (from the version record) names the act a Mémorial issue is asked for;
    ``attachments`` (file name → SHA-256, size, from the version record) the other files of a
    Formex expression, which describe the images the act references. ``sha256``: the SHA-256 of
    ``data`` when the caller has just checked it (the evidence store's ``read`` does), so the
    body is not hashed again; else it is computed.
    """
    sha = body_sha256(data, sha256)
    check_size(data, sha, limits)
    kind = sniff(data)
    if kind == "pdf":
        if fmt == "pdf-memorial":
            if act is None:
                return pdf_lu.memorial_gap(data, language=language, sha256=sha)
            return pdf_memorial_lu.extract(data, language=language, act=act, limits=limits, sha256=sha)
        return pdf_lu.extract(data, language=language, limits=limits, sha256=sha)
    if kind == "zip":
        return fmx4_eu.extract_zip(data, language=language, limits=limits, sha256=sha)
    if kind == "akn":
        result = akn_lu.extract(data, language=language, limits=limits, sha256=sha)
        return result if result.provisions else akn_lu.extract_document(data, language=language, limits=limits, sha256=sha)
    if kind == "formex":
        return fmx4_eu.extract(data, language=language, limits=limits, attachments=attachments, sha256=sha)
    if kind == "html":
        return _html(data, sha, language, limits)
    if kind == "xml":
        root = parse_xml(data, sha, limits)
        raise DerivationError(f"no profile for XML root {local(root.tag)!r} in namespace {namespace(root.tag)!r}",
                              code="unknown_namespace", subject=sha)
    raise DerivationError("body is neither XML, HTML, PDF nor a zip", code="unknown_format", subject=sha)


def _html(data: bytes, sha: str, language: str, limits: Limits) -> ExtractionResult:
    try:
        result = xhtml_eu.extract(data, language=language, limits=limits, sha256=sha)
    except DerivationError as exc:
        if exc.code not in _TOLERATED:
            raise
    else:
        if result.provisions:
            return result
    return html_eu.extract(data, language=language, limits=limits, sha256=sha)
