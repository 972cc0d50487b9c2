"""The record-hash recipe of the published ``lex-corpus`` trees (provenance verification only).

Records imported from published corpus trees carry a ``record_sha256`` computed by the
reference implementation over its own serialisation (not RFC 8785): member order as in the
file, two-space indentation, ``": "`` separators, CRLF newlines, no trailing newline, and the
default .NET ``JavaScriptEncoder`` escaping (every character outside U+0020..U+007E as
``\\uXXXX`` with upper-case hex, plus ``" & ' + < > ` `` escaped the same way). We use this
recipe only to *verify* imported records before anything is written; our own records are
hashed over canonical JSON (:mod:`legal.canonical`). The imported hash is kept as provenance.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from legal.errors import CanonicalError

_SHORT = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_HTML_SENSITIVE = frozenset("\"&'+<>`")
_NEWLINE = "\r\n"


def _escape_char(ch: str) -> str:
    """The reference's escape of one character (itself when it needs none)."""
    code = ord(ch)
    short = _SHORT.get(ch)
    if short is not None:
        return short
    if ch in _HTML_SENSITIVE or code < 0x20 or code > 0x7E:
        if code > 0xFFFF:
            code -= 0x10000
            return f"\\u{0xD800 + (code >> 10):04X}\\u{0xDC00 + (code & 0x3FF):04X}"
        return f"\\u{code:04X}"
    return ch


class _EscapeTable(dict[int, str]):
    """``str.translate`` table of :func:`_escape_char`: filled for ASCII, each other code point
    computed the first time it is met (and kept, below U+3000: the table stays small)."""

    def __missing__(self, code: int) -> str:
        escaped = _escape_char(chr(code))
        if code < 0x3000:
            self[code] = escaped
        return escaped


_TABLE = _EscapeTable({code: _escape_char(chr(code)) for code in range(0x80)})
#: a string without any of these is written as it is
_NEEDS_ESCAPE = re.compile("[^\x20-\x7e]|[\\\\\"&'+<>`]")
_needs_escape = _NEEDS_ESCAPE.search


def _escape(text: str) -> str:
    """``text`` as the reference writes a string: :func:`_escape_char` of every character, by
    ``str.translate`` (C) instead of a loop, and not even that for a string needing no escape."""
    if _needs_escape(text) is None:
        return '"' + text + '"'
    return '"' + text.translate(_TABLE) + '"'


def _write(value: Any, depth: int, out: list[str]) -> None:
    """Append the reference's text of ``value``: a plain ``str``, ``dict`` or ``list`` here (what a
    parsed record holds), anything else in :func:`_write_any`; the same text either way."""
    kind = type(value)
    if kind is str:
        out.append(_escape(value))
    elif kind is dict and value:
        pad = _NEWLINE + "  " * (depth + 1)
        sep = "{"
        for key, item in value.items():
            if type(item) is str:  # most members: no call of _write
                out.append(sep + pad + _escape(key) + ": " + _escape(item))
            else:
                out.append(sep + pad + _escape(key) + ": ")
                _write(item, depth + 1, out)
            sep = ","
        out.append(_NEWLINE + "  " * depth + "}")
    elif kind is list and value:
        pad = _NEWLINE + "  " * (depth + 1)
        sep = "["
        for item in value:
            out.append(sep + pad)
            _write(item, depth + 1, out)
            sep = ","
        out.append(_NEWLINE + "  " * depth + "]")
    else:
        _write_any(value, depth, out)


def _write_any(value: Any, depth: int, out: list[str]) -> None:
    pad = "  " * (depth + 1)
    end = "  " * depth
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, str):
        out.append(_escape(value))
    elif isinstance(value, Mapping):
        if not value:
            out.append("{}")
            return
        out.append("{")
        for i, (key, item) in enumerate(value.items()):
            out.append(("," if i else "") + _NEWLINE + pad + _escape(key) + ": ")
            _write(item, depth + 1, out)
        out.append(_NEWLINE + end + "}")
    elif isinstance(value, Sequence):
        if not value:
            out.append("[]")
            return
        out.append("[")
        for i, item in enumerate(value):
            out.append(("," if i else "") + _NEWLINE + pad)
            _write(item, depth + 1, out)
        out.append(_NEWLINE + end + "]")
    else:
        raise CanonicalError(f"{type(value).__name__} is not supported by the corpus recipe", code="not_json")


def dotnet_serialize(record: Mapping[str, Any]) -> bytes:
    """Serialise ``record`` (member order preserved) the way the reference hashes it."""
    out: list[str] = []
    _write(record, 0, out)
    return "".join(out).encode("utf-8")


def published_record_sha256(record: Mapping[str, Any]) -> str:
    """The published ``record_sha256`` recipe: hash of the record without that member."""
    body = {k: v for k, v in record.items() if k != "record_sha256"}
    return hashlib.sha256(dotnet_serialize(body)).hexdigest()


def parse_ordered(raw: bytes) -> dict[str, Any]:
    """Parse JSON bytes keeping member order (dicts preserve insertion order)."""
    value = json.loads(raw.decode("utf-8"))
    if not isinstance(value, dict):
        raise CanonicalError("a record must be a JSON object", code="not_an_object")
    return value
