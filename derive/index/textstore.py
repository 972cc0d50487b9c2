"""How provision texts are stored: once per ``text_sha256``, zlib-compressed when that pays.

A text is stored as its UTF-8 bytes (``encoding = 'utf8'``) or, when zlib level 6 saves at
least 8 %, compressed (``encoding = 'zlib'``). Readers decode and may re-check the SHA-256
(``lex index verify`` does, for every text). Compression output depends on the zlib version,
which the stamp records next to the SQLite version.
"""

from __future__ import annotations

import hashlib
import zlib

from legal.errors import IndexError_

LEVEL = 6
MIN_SAVING = 0.08
ZLIB_VERSION = zlib.ZLIB_RUNTIME_VERSION


def encode(text: str) -> tuple[str, int, bytes]:
    """``(encoding, characters, body)`` of a text."""
    raw = text.encode("utf-8")
    packed = zlib.compress(raw, LEVEL)
    if len(packed) <= len(raw) * (1 - MIN_SAVING):
        return "zlib", len(text), packed
    return "utf8", len(text), raw


def decode(encoding: str, body: bytes) -> str:
    if encoding == "zlib":
        return zlib.decompress(body).decode("utf-8")
    if encoding == "utf8":
        return bytes(body).decode("utf-8")
    raise IndexError_(f"unknown text encoding {encoding!r}", code="unknown_text_encoding")


def check(sha256: str, encoding: str, body: bytes) -> str:
    """The decoded text, refusing one that does not hash to its key."""
    text = decode(encoding, body)
    if hashlib.sha256(text.encode("utf-8")).hexdigest() != sha256:
        raise IndexError_("stored text does not hash to its key", code="text_hash_mismatch", subject=sha256)
    return text
