"""Formex 4 archives from Cellar: safe unpacking and the identity guard (reference D48).

The zip container is not evidence (it embeds fetch-time timestamps); each member is. Members
are flattened to their file names (no directories, no traversal), sorted, and bounded (member
and expanded-size caps). The main member — the first ``.xml`` that is not a ``.doc.xml`` —
must declare ``INFO.CONSLEG … START.DATE="<yyyymmdd of the state>"`` in its first 4,096
bytes, otherwise the archive is discarded as non-evidence (``CONSLEG.DATE`` is a production
date and is ignored).

A member is read in chunks of :data:`CHUNK` bytes into one buffer sized once by the member's
declared size (:class:`publishers.http.client.BodyBuffer`, whose value is handed over without a
copy), not by ``ZipFile.read``: that decompresses a member whole and joins its output, ≈ 3.6× the
member at once (8 MB for the largest fixture's 2.2 MB main member, the fresh ingest's peak; issue
#13, ADR 0063). The bytes, their CRC check and the caps are the same.
"""

from __future__ import annotations

import datetime as _dt
import io
import zipfile
from dataclasses import dataclass

from legal.errors import PublisherError
from publishers.http.client import MIB, BodyBuffer

#: bytes decompressed at a time from a member (:func:`unpack`)
CHUNK = 64 * 1024


@dataclass(frozen=True, slots=True)
class FormexLimits:
    archive: int = 32 * MIB
    member: int = 64 * MIB
    expanded: int = 128 * MIB


def unpack(data: bytes, *, subject: str, limits: FormexLimits | None = None) -> list[tuple[str, bytes]]:
    """``(name, bytes)`` of every member, sorted by name; a bad archive is a typed error."""
    caps = limits or FormexLimits()
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise PublisherError(f"Formex archive is not a readable zip: {exc}", code="body_parser_failure",
                             subject=subject) from None
    members: dict[str, bytes] = {}
    total = 0
    with archive:
        for info in archive.infolist():
            if info.is_dir():
                continue
            name = info.filename.replace("\\", "/").rsplit("/", 1)[-1]
            if not name or name in (".", "..") or name in members:
                raise PublisherError(f"Formex member name {info.filename!r} is unusable or repeated",
                                     code="body_parser_failure", subject=subject)
            if info.file_size > caps.member or total + info.file_size > caps.expanded:
                raise PublisherError("Formex archive exceeds the member or expanded-size cap",
                                     code="body_oversized", subject=subject)
            try:
                content = _read_member(archive, info)
            except (zipfile.BadZipFile, OSError, ValueError) as exc:
                raise PublisherError(f"Formex member {name!r} cannot be read: {exc}", code="body_parser_failure",
                                     subject=subject) from None
            total += len(content)
            members[name] = content
    return sorted(members.items())


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """The member's bytes, decompressed :data:`CHUNK` at a time into one buffer (CRC checked at
    its end by ``zipfile``, as ``ZipFile.read`` does)."""
    out = BodyBuffer(info.file_size)  # declared size, within the member cap (checked before)
    with archive.open(info) as member:
        while chunk := member.read(CHUNK):
            out.write(chunk)
    return out.value()


def main_member(members: list[tuple[str, bytes]]) -> tuple[str, bytes] | None:
    for name, content in members:
        if name.lower().endswith(".xml") and not name.lower().endswith(".doc.xml"):
            return name, content
    return None


def identity_ok(members: list[tuple[str, bytes]], valid_from: _dt.date) -> bool:
    """True if the main member declares the state's date as ``INFO.CONSLEG`` ``START.DATE``."""
    main = main_member(members)
    if main is None:
        return False
    head = main[1][:4096]
    start = head.find(b"<INFO.CONSLEG")
    if start < 0:
        return False
    end = head.find(b">", start)
    element = head[start:end if end >= 0 else len(head)]
    return f'START.DATE="{valid_from:%Y%m%d}"'.encode() in element
