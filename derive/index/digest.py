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

Rows are rendered a batch at a time (:func:`lines_bytes`). A batch whose values are all exact
``str``, ``None`` or ``int`` within the IEEE-754 safe range is written by the C ``json`` encoder, one
call per row: for such values that is RFC 8785 — the same escapes (``\\"`` ``\\\\`` ``\\b \\f \\n
\\r \\t``, other controls as lowercase ``\\u00xx``), everything else literal UTF-8, integers as
digits — unless a string holds a lone surrogate, which the UTF-8 encoding of the batch catches. Any
other batch (a blob, a float, a ``bool``, an unsafe integer, a lone surrogate) goes row by row
through :func:`row_bytes`, the project's one canonical encoder, which renders or refuses it. The two
paths give the same bytes (``tests/index/test_digest.py``, a property test against
:func:`row_bytes`), so the digest's value does not depend on the path a batch took.

Builder and verifier call the same function over the SQLite file, so "the digest in the
stamp equals the digest of the contents" is a check anyone can repeat.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, islice

from derive.index.schema import DIGEST_ORDER
from derive.index.textstore import digest_rows
from legal.canonical import canonical_bytes
from legal.errors import IndexError_

#: Rows rendered per call of :func:`lines_bytes` by :func:`content_digest`.
BATCH_ROWS = 4096

_SAFE_INT = 2**53 - 1
_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False, check_circular=False).encode


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


def _exact(rows: Sequence[Sequence[object]]) -> bool:
    """True when every value is an exact ``str``, ``None`` or ``int`` within the safe range."""
    return not [v for v in chain.from_iterable(rows)
                if not (type(v) is str or v is None or (type(v) is int and -_SAFE_INT <= v <= _SAFE_INT))]  # type: ignore[operator]


def lines_bytes(rows: Sequence[Sequence[object]]) -> bytes:
    """``row_bytes(row) + b"\\n"`` for each of ``rows``, concatenated: by the C encoder for a batch
    it renders exactly (see the module docstring), else row by row."""
    if _exact(rows):
        try:
            return "".join([_ENCODE(row) + "\n" for row in rows]).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: row_bytes refuses it by name
            pass
    return b"".join([row_bytes(row) + b"\n" for row in rows])


def _batches(rows: Iterable[Sequence[object]], size: int) -> Iterator[list[Sequence[object]]]:
    it = iter(rows)
    while batch := list(islice(it, size)):
        yield batch


def _text_rows(conn: sqlite3.Connection) -> Iterator[tuple[object, ...]]:
    for sha, encoding, characters, body in digest_rows(conn):
        yield sha, encoding, characters, body.hex() if isinstance(body, bytes) else body


def content_digest(conn: sqlite3.Connection) -> str:
    h = hashlib.sha256()
    for table, order in DIGEST_ORDER:
        h.update(f"#{table}\n".encode())
        rows: Iterable[Sequence[object]] = (_text_rows(conn) if table == "texts"
                                            else conn.execute(f"SELECT * FROM {table} ORDER BY {order}"))
        for batch in _batches(rows, BATCH_ROWS):
            h.update(lines_bytes(batch))
    return h.hexdigest()
