"""The framing of the build-state files kept beside an index (``.<publisher>.windows.z``, ``.terms.z``,
``.pairs.z``): zlib (level 1) of an 8-byte length, a compact JSON head naming the file's schema and the
SHA-256 of the index file it describes, then a binary body. Never in the index nor in a release; a file
that is missing, damaged, of another schema or of another index file is not read (:func:`unframe`)."""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

_LENGTH = struct.Struct("<Q")


def frame(head: Mapping[str, Any], body: bytes = b"") -> bytes:
    """The file's bytes: ``head`` (with ``schema`` and ``index_sha256``) as compact JSON, then ``body``."""
    raw = json.dumps(head, separators=(",", ":"), ensure_ascii=False).encode()
    return zlib.compress(_LENGTH.pack(len(raw)) + raw + body, 1)


def unframe(path: Path, schema: str, index_sha256: str) -> tuple[dict[str, Any], bytes, int] | None:
    """The head, the inflated bytes and the offset of the body in them, when ``path`` holds a file of
    ``schema`` describing the index file of SHA-256 ``index_sha256``; else None."""
    try:
        data = zlib.decompress(path.read_bytes())
        (length,) = _LENGTH.unpack_from(data, 0)
        head = json.loads(data[_LENGTH.size:_LENGTH.size + length])
    except (OSError, ValueError, struct.error, zlib.error):
        return None
    if not isinstance(head, dict) or head.get("schema") != schema or head.get("index_sha256") != index_sha256:
        return None
    return head, data, _LENGTH.size + length


def write(path: Path, body: bytes | None) -> None:
    """Write ``body`` (a :func:`frame`) at ``path`` through a file renamed into place; None removes it."""
    if body is None:
        path.unlink(missing_ok=True)
        return
    tmp = path.with_name(path.name + ".building")
    tmp.write_bytes(body)
    tmp.replace(path)
