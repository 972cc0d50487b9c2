"""The record-hash recipe of the published ``lex-corpus`` trees (provenance verification only).

Records imported from published corpus trees carry a ``record_sha256`` computed by the
reference implementation over its own serialisation (not RFC 8785): member order as in the
file, two-space indentation, ``": "`` separators, CRLF newlines, no trailing newline, and the
default .NET ``JavaScriptEncoder`` escaping (every character outside U+0020..U+007E as
``\\uXXXX`` with upper-case hex, plus ``" & ' + < > ` `` escaped the same way). We use this
recipe only to *verify* imported records before anything is written; our own records are
hashed over canonical JSON (:mod:`legal.canonical`). The imported hash is kept as provenance.

Two writers produce the same text. The fast one (:func:`_fast_bytes`) takes values made only of
``dict``, ``list``, ``str``, ``bool``, ``int`` and ``None`` (exact types, checked by
:func:`_plain`: what a parsed record holds) and lets ``orjson`` (a C encoder) write them
indented (same layout, member order kept, empty containers as ``{}``/``[]``), then turns its
escaping into the reference's on the bytes: non-ASCII characters become ``\\u`` escapes through
the ``backslashreplace`` codec, every escape token is rewritten to the reference's form by one
table lookup (``\\"`` as ``\\u0022``, hex upper-cased, ``\\xHH`` widened, astral characters as
surrogate pairs), ``& ' + < > ` `` and DEL are replaced, and newlines become CRLF: about a
quarter of the CPU of the general writer on a full corpus. The general writer (:func:`_write`,
the original pure-Python recipe) takes everything else: a float (refused), an integer outside
64 bits, a lone surrogate (``orjson`` refuses both), other ``Mapping``/``Sequence`` types, and
the whole job where ``orjson`` is not installed. ``tests/legal/test_dotnet_json.py`` checks the
two against a character-by-character reference on random values.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from legal.canonical import orjson_module
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


def _general_bytes(value: Any) -> bytes:
    """The general writer's bytes of ``value`` (any value; raises for what the recipe refuses)."""
    out: list[str] = []
    _write(value, 0, out)
    return "".join(out).encode("utf-8")


#: the exact types the fast writer takes (``orjson`` writes each as the reference does)
_SCALAR_KINDS = frozenset((str, bool, int, type(None)))
_KNOWN_KINDS = _SCALAR_KINDS | {dict, list}
_only_scalars = _SCALAR_KINDS.issuperset
_only_known = _KNOWN_KINDS.issuperset


def _plain(value: Any) -> bool:
    """True when ``value`` is a ``dict`` holding only ``dict``, ``list``, ``str``, ``bool``, ``int``
    and ``None`` (exact types, at any depth): values :func:`_fast_bytes` may take."""
    if type(value) is not dict:
        return False
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        children = item.values() if type(item) is dict else item
        if _only_scalars(map(type, children)):
            continue
        if not _only_known(map(type, children)):
            return False
        stack += [child for child in children if type(child) is dict or type(child) is list]
    return True


#: the character each JSON escape stands for, after its backslash (``u``/``x``/``U``: hex digits)
_UNESCAPED = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _token_char(token: bytes) -> str:
    """The character an escape token stands for: a JSON escape as ``orjson`` writes it or a
    ``backslashreplace`` escape (``\\xhh``, ``\\uhhhh``, ``\\Uhhhhhhhh``)."""
    body = token[1:].decode("ascii")
    if body[0] in "xuU":
        return chr(int(body[1:], 16))
    return _UNESCAPED[body]


class _TokenTable(dict[bytes, bytes]):
    """The reference's escape of the character of each escape token, computed the first time
    the token is met (and kept for characters below U+3000: the table stays small)."""

    def __missing__(self, token: bytes) -> bytes:
        char = _token_char(token)
        fixed = _escape_char(char).encode("ascii")
        if ord(char) < 0x3000:
            self[token] = fixed
        return fixed


_fix_token = _TokenTable().__getitem__
#: every escape token of the fast writer's ASCII text, left to right (a backslash always opens one)
_TOKENS = re.compile(rb"(\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8}|[^xuU]))")
#: the characters the reference escapes that neither ``orjson`` nor ``backslashreplace`` does
_ASCII_ESCAPES = tuple((bytes([code]), _escape_char(chr(code)).encode("ascii")) for code in b"&'+<>`\x7f")


def _fast_bytes(value: Any, dumps: Any, option: int) -> bytes:
    """The reference's bytes of a :func:`_plain` value from ``orjson``'s indented output
    (``TypeError`` for what ``orjson`` refuses: a lone surrogate, an integer beyond 64 bits)."""
    data: bytes = dumps(value, option=option)
    if not data.isascii():
        data = data.decode("utf-8").encode("ascii", "backslashreplace")
    if b"\\" in data:
        parts = _TOKENS.split(data)
        parts[1::2] = map(_fix_token, parts[1::2])
        data = b"".join(parts)
    for char, escaped in _ASCII_ESCAPES:
        if char in data:
            data = data.replace(char, escaped)
    return data.replace(b"\n", b"\r\n")


def _orjson() -> tuple[Any, int] | None:
    """``orjson.dumps`` and its indented option, where installed."""
    module = orjson_module()
    if module is None:  # pragma: no cover - orjson is a dependency; the general writer is the fallback
        return None
    return module.dumps, int(module.OPT_INDENT_2)


_ORJSON = _orjson()


def dotnet_serialize(record: Mapping[str, Any]) -> bytes:
    """Serialise ``record`` (member order preserved) the way the reference hashes it."""
    if _ORJSON is not None and _plain(record):
        try:
            return _fast_bytes(record, *_ORJSON)
        except TypeError:  # a lone surrogate or an integer beyond 64 bits: the general writer
            pass
    return _general_bytes(record)


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
