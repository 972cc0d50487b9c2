"""The content digest of an index: SHA-256 over every content table in a canonical order.

For each table of :data:`derive.index.schema.DIGEST_ORDER`, in that order: one line
``#<table>\\n``, then one line per row ordered by the table's key, each row being the RFC 8785
canonical JSON array of its column values (columns in DDL order) followed by ``\\n``. ``texts``
is digested as its rows were stored up to format 4 — ``(text_sha256, encoding, characters, body)``,
each text compressed alone (:func:`derive.index.textstore.digest_rows`) — so the digest covers the
texts themselves, not the blocks they are packed in (format 5), and keeps its value. Index
values are only integers, strings and nulls, so the rendering is exact. The ``stamp`` table,
the FTS5 tables and ``vocabulary`` are not part of the digest (they are functions of
``lexical_states``, ``texts`` and ``works``, checked by rebuilding in tests).

Builder and verifier call the same function over the SQLite file, so "the digest in the
stamp equals the digest of the contents" is a check anyone can repeat.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence

from derive.index.schema import DIGEST_ORDER
from derive.index.textstore import digest_rows
from legal.canonical import canonical_bytes
from legal.errors import IndexError_


def row_bytes(row: Sequence[object]) -> bytes:
    """RFC 8785 bytes of a row of integers, strings and nulls (blobs as lower-case hex strings),
    through the project's one canonical encoder; any other value is refused."""
    values: list[object] = []
    for value in row:
        if isinstance(value, bytes):
            value = value.hex()
        if isinstance(value, bool) or not (value is None or isinstance(value, (int, str))):
            raise IndexError_(f"index value of type {type(value).__name__} cannot be digested",
                              code="undigestable_value")
        values.append(value)
    return canonical_bytes(values)


def content_digest(conn: sqlite3.Connection) -> str:
    h = hashlib.sha256()
    for table, order in DIGEST_ORDER:
        h.update(f"#{table}\n".encode())
        rows = digest_rows(conn) if table == "texts" else conn.execute(f"SELECT * FROM {table} ORDER BY {order}")
        for row in rows:
            h.update(row_bytes(row))
            h.update(b"\n")
    return h.hexdigest()
