"""Canonical JSON (RFC 8785, JSON Canonicalization Scheme) and SHA-256 digests.

Everything the project hashes or signs goes through :func:`canonical_bytes`. Our records
hold only strings, booleans, null, integers, lists and objects; floats are refused with a
typed error rather than risk a second number formatting (RFC 8785 §3.2.2.3 would need
ECMAScript number serialisation, which no record of ours needs).

Rules implemented (RFC 8785 §3.2):
- object members sorted by the UTF-16 code units of their names;
- no insignificant whitespace;
- strings: only ``"`` ``\\`` and control characters escaped (``\\b \\f \\n \\r \\t`` short
  forms, other controls as lowercase ``\\u00xx``); everything else literal UTF-8;
- lone surrogates are refused (they cannot be UTF-8 encoded).

Fast path. For values whose object keys all sort the same by code point as by UTF-16 code
units (keys of BMP characters below the surrogate range: every key the project writes is
ASCII), RFC 8785 is exactly what the C ``json`` encoder writes with sorted keys, no
whitespace and literal UTF-8: the same short escapes, other controls as lowercase ``\\u00xx``,
nothing else escaped, integers as digits. Such values (checked by :func:`_plain`) are encoded
by the C encoder; anything else (a float, an unsafe integer, a lone surrogate, a key outside
that range, a non-JSON type) takes the character-by-character encoder below, which encodes it
or raises its typed :class:`legal.errors.CanonicalError`. ``tests/legal/test_canonical.py``
checks both paths byte for byte against the ``rfc8785`` reference library and each other.

The C encoder is ``orjson`` (sorted keys, compact, UTF-8 written directly: about a third of the
CPU of ``json``'s on a dataset row), whose output on such values is the same bytes as ``json``'s:
the same escapes (lowercase ``\\u00xx``), nothing else escaped, keys sorted by code point; it
refuses a lone surrogate (``TypeError``), which then takes the full encoder as ``json``'s
``UnicodeEncodeError`` did. ``json`` is the fallback where ``orjson`` is not installed.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import io
import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from legal.errors import CanonicalError

_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}

# Characters that need escaping (or refusing); strings without any take the fast path.
_NEEDS_WORK = re.compile('[\x00-\x1f"\\\\\ud800-\udfff]')

Json = Any  # JSON values: None | bool | int | str | list[Json] | dict[str, Json]

_SAFE_INT = 2**53 - 1
_FAST = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False,
                         check_circular=False)


@functools.cache
def orjson_module() -> Any:
    """The ``orjson`` module (a C JSON codec, a dependency) where it is installed, else None: the
    one place that looks for it; every caller keeps :mod:`json` as its fallback."""
    try:
        return importlib.import_module("orjson")
    except ImportError:  # pragma: no cover - orjson is a dependency; json is the fallback
        return None


def json_loads() -> Callable[[str | bytes], Any]:
    """``orjson.loads`` where installed (json's values on JSON whose integers fit 64 bits, at a
    third of its CPU), else :func:`json.loads`."""
    module = orjson_module()
    return json.loads if module is None else cast(Callable[[str | bytes], Any], module.loads)


def _orjson() -> tuple[Any, int, int] | None:
    """``orjson.dumps`` and its options for sorted compact and sorted indented output, where installed."""
    module = orjson_module()
    if module is None:  # pragma: no cover - orjson is a dependency; json is the fallback
        return None
    return module.dumps, int(module.OPT_SORT_KEYS), int(module.OPT_SORT_KEYS | module.OPT_INDENT_2)


_ORJSON = _orjson()


def _fast_bytes(value: Json) -> bytes:
    """The C encoders' compact sorted UTF-8 bytes of a :func:`_plain` value (``UnicodeEncodeError``
    or ``TypeError`` for a lone surrogate)."""
    if _ORJSON is not None:
        return bytes(_ORJSON[0](value, option=_ORJSON[1]))
    return _FAST.encode(value).encode("utf-8")


def _utf16_key(name: str) -> bytes:
    return name.encode("utf-16-be", "surrogatepass")


def _string(value: str, out: list[str]) -> None:
    if _NEEDS_WORK.search(value) is None:
        out.append('"' + value + '"')
        return
    out.append('"')
    for ch in value:
        short = _SHORT.get(ch)
        if short is not None:
            out.append(short)
        elif ch < " ":
            out.append(f"\\u{ord(ch):04x}")
        elif "\ud800" <= ch <= "\udfff":
            raise CanonicalError("lone surrogate in string", code="lone_surrogate", subject=repr(value[:40]))
        else:
            out.append(ch)
    out.append('"')


def _encode(value: Json, out: list[str], path: str) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        if abs(value) > 2**53 - 1:
            raise CanonicalError("integer outside the IEEE-754 safe range", code="unsafe_integer", subject=path)
        out.append(str(value))
    elif isinstance(value, float):
        raise CanonicalError("floats are not allowed in canonical records", code="float_not_allowed", subject=path)
    elif isinstance(value, str):
        _string(value, out)
    elif isinstance(value, Mapping):
        out.append("{")
        items = []
        for key in value:
            if not isinstance(key, str):
                raise CanonicalError("object keys must be strings", code="non_string_key", subject=path)
            items.append(key)
        items.sort(key=_utf16_key)
        for i, key in enumerate(items):
            if i:
                out.append(",")
            _string(key, out)
            out.append(":")
            _encode(value[key], out, f"{path}.{key}")
        out.append("}")
    elif isinstance(value, Sequence) and not isinstance(value, (bytes, bytearray)):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _encode(item, out, f"{path}[{i}]")
        out.append("]")
    else:
        raise CanonicalError(f"{type(value).__name__} is not a JSON value", code="not_json", subject=path)


def _utf16_apart(key: str) -> bool:
    """True when ``key`` holds a surrogate or a character past the BMP: the only keys whose UTF-16
    order (RFC 8785's) can differ from their code point order (the C encoders'), or that are no
    UTF-8 (a lone surrogate). A key whose highest characters are U+E000–U+FFFF (a BOM, a private-use
    bullet) sorts the same both ways."""
    return any("\ud800" <= ch <= "\udfff" or ch > "\uffff" for ch in key)


def _plain(value: Json) -> bool:
    """True when the C encoder's output is the RFC 8785 text of ``value`` (lone surrogates
    aside: they surface as ``UnicodeEncodeError`` when the text is encoded to UTF-8)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if item is None or item is True or item is False or type(item) is str:
            continue
        if type(item) is int:
            if -_SAFE_INT <= item <= _SAFE_INT:
                continue
            return False
        if type(item) is dict:
            for key, sub in item.items():
                if type(key) is not str or (not key.isascii() and max(key) >= "\ud800" and _utf16_apart(key)):
                    return False
                stack.append(sub)
            continue
        if type(item) is list or type(item) is tuple:
            stack.extend(item)
            continue
        return False
    return True


def _slow_text(value: Json) -> str:
    out: list[str] = []
    _encode(value, out, "$")
    return "".join(out)


def canonical_text(value: Json) -> str:
    """The RFC 8785 serialisation of ``value`` as text."""
    return canonical_bytes(value).decode("utf-8")


def canonical_bytes(value: Json) -> bytes:
    """The RFC 8785 serialisation of ``value`` as UTF-8 bytes (what we hash and sign)."""
    if _plain(value):
        try:
            return _fast_bytes(value)
        except (UnicodeEncodeError, TypeError):  # a lone surrogate: the full encoder names it
            pass
    return _slow_text(value).encode("utf-8")


def sha256_hex(data: bytes) -> str:
    """Lower-case hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def digest(value: Json) -> str:
    """Lower-case hex SHA-256 of the canonical bytes of ``value``."""
    return sha256_hex(canonical_bytes(value))


#: The largest read buffer of :func:`hash_file`: 1 MiB.
FILE_CHUNK = 1 << 20


def _file_digest(f: io.FileIO, bufsize: int) -> Any:
    """``hashlib.file_digest`` of ``f`` with a read buffer of ``bufsize`` bytes (where this
    Python lets the buffer be sized; its default, 256 KiB, elsewhere)."""
    try:
        return hashlib.file_digest(f, "sha256", _bufsize=bufsize)  # type: ignore[call-arg]
    except TypeError:
        return hashlib.file_digest(f, "sha256")


def hash_file(path: str | os.PathLike[str]) -> tuple[str, int]:
    """Lower-case hex SHA-256 and size (bytes read to end of file) of the file at ``path``.

    Streamed by :func:`hashlib.file_digest` (no Python-level loop over chunks) with a buffer
    of the file's size up to :data:`FILE_CHUNK`: a small file takes one read into a buffer of
    its own size, a large one 1 MiB reads, never the whole file in memory.
    """
    with open(path, "rb", buffering=0) as f:
        return hash_open_file(f)


def hash_open_file(f: io.FileIO) -> tuple[str, int]:
    """:func:`hash_file` of a file the caller opened (unbuffered, at its start) — for callers
    that open it their own way, e.g. refusing symbolic links."""
    size = os.fstat(f.fileno()).st_size
    found = _file_digest(f, max(1, min(FILE_CHUNK, size + 1)))
    return found.hexdigest(), f.tell()


def file_sha256(path: str | os.PathLike[str]) -> str:
    """Lower-case hex SHA-256 of the bytes of the file at ``path`` (streamed: :func:`hash_file`)."""
    return hash_file(path)[0]


def pretty_bytes(value: Json) -> bytes:
    """A stable human-readable rendering (sorted keys, 2-space indent, LF, final newline).

    Used for files people read (records on disk). It is *not* what we hash: hashes are always
    taken over :func:`canonical_bytes` of the parsed value, so reading then re-writing a record
    never changes its hash.
    """
    if _plain(value):
        try:
            if _ORJSON is not None:  # the same bytes as json's (sorted keys, 2-space indent, ": ")
                return bytes(_ORJSON[0](value, option=_ORJSON[2])) + b"\n"
            return (json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode("utf-8")
        except (UnicodeEncodeError, TypeError):  # a lone surrogate: the full encoder names it below
            pass
    # Validate canonicalisability first so that both renderings refuse the same values.
    _slow_text(value)
    return (json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode("utf-8")


def pretty_bytes_unchecked(value: Json) -> bytes:
    """:func:`pretty_bytes` of a value known to be float-free canonical JSON (a record just parsed
    by a reader that refuses floats, or just hashed): the same bytes, without the walk that
    :func:`pretty_bytes` takes first. ``orjson`` where installed (json's bytes: sorted keys,
    2-space indent, ``": "``, nothing but ``json``'s escapes), else ``json``; a value ``orjson``
    refuses (a lone surrogate, an integer beyond 64 bits, a type it does not know) takes ``json``,
    which raises ``UnicodeEncodeError`` on a lone surrogate as before."""
    if _ORJSON is not None:
        try:
            return bytes(_ORJSON[0](value, option=_ORJSON[2])) + b"\n"
        except TypeError:
            pass
    return (json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode("utf-8")


def is_sha256_hex(text: str) -> bool:
    return len(text) == 64 and all(c in "0123456789abcdef" for c in text)
