"""The content digest of an index (format 7): per-work digests of the content tables, combined.

Every content table of :data:`derive.index.schema.DIGEST_ORDER` is rendered as before: one line per
row ordered by the table's key, each row being the RFC 8785 canonical JSON array of its column
values (columns in DDL order) followed by ``\\n``. What changed in format 7 is how the lines are
grouped, so that an incremental build digests only the works it rebuilt:

- **a work's digest** (:func:`work_digests`): every table but ``texts`` and ``gaps`` is keyed by
  a work (:data:`WORK_KEYS`: ``work_rowid``, or a version, expression or state row id, which lies
  in its work's :data:`derive.index.rows.WORK_SPAN`). For each such table, in digest order, the
  SHA-256 of that work's lines; the work's digest is the SHA-256 of the lines ``<table> <hex>\\n``
  (the hash of no bytes for a table where the work has no row). The build keeps it in
  ``work_digests`` (outside the content digest, like ``work_inputs``);
- **the content digest** (:func:`combine`): SHA-256 of ``lex-index-content/7\\n``, then ``#works\\n``
  and one line ``<work_rowid> <work digest>\\n`` per work in row id order, then ``#texts\\n`` and one
  line per text, ``[text_sha256, words, length]`` (its key, word count and UTF-8 length: the text
  itself is tied to its key by the SHA-256 every check recomputes, so it is not inflated nor
  re-compressed here), then ``#gaps\\n`` and the ``gaps`` lines.

A cold build digests every work from the file (:func:`content_digest`); an incremental build
digests from the file the works it deleted and wrote again, and takes the others' digests from the
``work_digests`` rows of the previous file it copied, whose rows it kept untouched
(:func:`sealed_digest`). ``lex index verify`` recomputes every work's digest from the file and
compares them with ``work_digests`` and the combined value with the stamp
(``docs/adr/0018-per-work-content-digest.md``).

The ``stamp`` table, the FTS5 tables, ``vocabulary``, ``term_stems`` and the serving tables are not
part of the digest (they are functions of ``lexical_states``, ``texts`` and ``works``, checked by
rebuilding in tests).

Rows are rendered a batch at a time (:func:`lines_bytes`). A batch whose values are all exact
``str``, ``None`` or ``int`` within the IEEE-754 safe range is written by a C encoder, one call per
row (``orjson`` with its newline option where installed, else the C ``json`` encoder; both give the
same bytes for such values, :mod:`legal.canonical`): for such values that is RFC 8785 — the same escapes (``\\"`` ``\\\\`` ``\\b \\f \\n
\\r \\t``, other controls as lowercase ``\\u00xx``), everything else literal UTF-8, integers as
digits — unless a string holds a lone surrogate, which ``orjson`` or the UTF-8 encoding of the batch refuses. Any
other batch (a blob, a float, a ``bool``, an unsafe integer, a lone surrogate) goes row by row
through :func:`row_bytes`, the project's one canonical encoder, which renders or refuses it. The two
paths give the same bytes (``tests/index/test_digest.py``, a property test against
:func:`row_bytes`), so the digest's value does not depend on the path a batch took.

Builder and verifier call the same functions over the SQLite file, so "the digest in the stamp
equals the digest of the contents" is a check anyone can repeat.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from itertools import chain, islice

from derive.index.rows import WORK_SPAN
from derive.index.schema import DIGEST_ORDER
from legal.canonical import canonical_bytes, orjson_module
from legal.errors import IndexError_

#: Rows rendered per call of :func:`lines_bytes`.
BATCH_ROWS = 4096
#: First line of the combined digest's input (its definition's version).
HEADER = b"lex-index-content/7\n"
#: Tables digested as a whole, not per work.
GLOBAL_TABLES: tuple[str, ...] = ("texts", "gaps")
#: Per work-keyed content table: the column naming its work, and whether that column is a row id
#: scoped by :data:`derive.index.rows.WORK_SPAN` (``work_rowid * WORK_SPAN + n``) or ``work_rowid`` itself.
WORK_KEYS: dict[str, tuple[str, bool]] = {
    "works": ("work_rowid", False),
    "work_names": ("work_rowid", False),
    "work_metadata": ("work_rowid", False),
    "versions": ("version_rowid", True),
    "expressions": ("expression_rowid", True),
    "lexical_states": ("state_rowid", True),
    "provisions": ("expression_rowid", True),
    "citations": ("expression_rowid", True),
    "provision_states": ("work_rowid", False),
    "anchor_events": ("work_rowid", False),
    "events": ("version_rowid", True),
    "observations": ("expression_rowid", True),
}
#: The work-keyed tables in digest order, each with its ORDER BY.
WORK_TABLES: tuple[tuple[str, str], ...] = tuple((t, o) for t, o in DIGEST_ORDER if t not in GLOBAL_TABLES)
_EMPTY = hashlib.sha256(b"").hexdigest()

_SAFE_INT = 2**53 - 1
_ORJSON = orjson_module()
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
            if _ORJSON is not None:
                dumps, newline = _ORJSON.dumps, _ORJSON.OPT_APPEND_NEWLINE
                return b"".join([dumps(row, option=newline) for row in rows])
            return "".join([_ENCODE(row) + "\n" for row in rows]).encode("utf-8")
        except (UnicodeEncodeError, TypeError):  # a lone surrogate: row_bytes refuses it by name
            pass
    return b"".join([row_bytes(row) + b"\n" for row in rows])


def _batches(rows: Iterable[Sequence[object]], size: int) -> Iterator[list[Sequence[object]]]:
    it = iter(rows)
    while batch := list(islice(it, size)):
        yield batch


def _work_of(table: str) -> tuple[str, int]:
    """The key column of a work-keyed table and the divisor that turns its value into a work row id."""
    column, scoped = WORK_KEYS[table]
    return column, WORK_SPAN if scoped else 1


def _table_digests(conn: sqlite3.Connection, table: str, order: str) -> dict[int, str]:
    """``work_rowid → SHA-256 of its lines`` of one work-keyed table, in one ordered scan."""
    column, span = _work_of(table)
    cursor = conn.execute(f"SELECT * FROM {table} ORDER BY {order}")
    at = [d[0] for d in cursor.description].index(column)
    out: dict[int, str] = {}
    current: int | None = None
    h = hashlib.sha256()
    for batch in _batches(cursor, BATCH_ROWS):
        keys = [int(row[at]) // span for row in batch]  # type: ignore[call-overload]
        first = 0
        while first < len(batch):
            work = keys[first]
            last = first + 1
            while last < len(batch) and keys[last] == work:
                last += 1
            if work != current:
                if current is not None:
                    out[current] = h.hexdigest()
                if work in out:
                    raise IndexError_(f"{table} rows of one work are not contiguous in key order",
                                      code="bad_digest_order", subject=str(work))
                current, h = work, hashlib.sha256()
            h.update(lines_bytes(batch[first:last]))
            first = last
    if current is not None:
        out[current] = h.hexdigest()
    return out


def _one_work(conn: sqlite3.Connection, table: str, order: str, work_rowid: int) -> str:
    column, span = _work_of(table)
    lo, hi = work_rowid * span, (work_rowid + 1) * span - 1
    h = hashlib.sha256()
    rows = conn.execute(f"SELECT * FROM {table} WHERE {column} BETWEEN ? AND ? ORDER BY {order}", (lo, hi))
    for batch in _batches(rows, BATCH_ROWS):
        h.update(lines_bytes(batch))
    return h.hexdigest()


def _fold(tables: Mapping[str, str]) -> str:
    """A work's digest from its per-table digests (:data:`WORK_TABLES` order, the empty hash for a
    table where it has no row)."""
    return hashlib.sha256("".join(f"{t} {tables.get(t, _EMPTY)}\n" for t, _ in WORK_TABLES).encode()).hexdigest()


def work_digests(conn: sqlite3.Connection, works: Collection[int] | None = None) -> dict[int, str]:
    """``work_rowid → digest`` of every work with a row in a work-keyed table (``works`` None: one
    ordered scan per table), or of the given ``works`` only (one range read per table and work)."""
    per: dict[int, dict[str, str]] = {}
    if works is None:
        for table, order in WORK_TABLES:
            for work, value in _table_digests(conn, table, order).items():
                per.setdefault(work, {})[table] = value
    else:
        for work in sorted(set(works)):
            per[work] = {table: _one_work(conn, table, order, work) for table, order in WORK_TABLES}
    return {work: _fold(tables) for work, tables in sorted(per.items())}


def _text_rows(conn: sqlite3.Connection) -> Iterator[tuple[object, ...]]:
    for sha, words, length in conn.execute("SELECT text_sha256, words, length FROM texts ORDER BY text_sha256"):
        yield bytes(sha).hex(), words, length


def combine(conn: sqlite3.Connection, works: Mapping[int, str]) -> str:
    """The content digest from every work's digest and the file's ``texts`` and ``gaps`` rows."""
    h = hashlib.sha256(HEADER)
    h.update(b"#works\n")
    h.update("".join(f"{w} {d}\n" for w, d in sorted(works.items())).encode())
    h.update(b"#texts\n")
    for batch in _batches(_text_rows(conn), BATCH_ROWS):
        h.update(lines_bytes(batch))
    h.update(b"#gaps\n")
    order = dict(DIGEST_ORDER)["gaps"]
    for batch in _batches(conn.execute(f"SELECT * FROM gaps ORDER BY {order}"), BATCH_ROWS):
        h.update(lines_bytes(batch))
    return h.hexdigest()


def content_digest(conn: sqlite3.Connection) -> str:
    """The content digest of an index, every work digested from the file."""
    return combine(conn, work_digests(conn))


def stored_work_digests(conn: sqlite3.Connection) -> dict[int, str]:
    """The ``work_digests`` rows of an index."""
    return {int(w): str(d) for w, d in conn.execute("SELECT work_rowid, sha256 FROM work_digests")}


def sealed_digest(conn: sqlite3.Connection, changed: Collection[int] | None = None) -> str:
    """Write ``work_digests`` and return the content digest: every work digested from the file
    (``changed`` None, a cold build), or only the ``changed`` works, the others' digests being the
    rows already in ``work_digests`` (an incremental build, whose other works' rows are untouched); when
    some work of ``works`` has no such row, every work is digested from the file."""
    held = {int(w) for (w,) in conn.execute("SELECT work_rowid FROM works")}
    if changed is not None and not held.issubset(stored_work_digests(conn)):
        changed = None  # a previous file without a digest of every work: digest them all
    if changed is None:
        conn.execute("DELETE FROM work_digests")
        fresh = work_digests(conn)
    else:
        fresh = work_digests(conn, changed)
    conn.executemany("INSERT OR REPLACE INTO work_digests(work_rowid, sha256) VALUES (?, ?)", sorted(fresh.items()))
    return combine(conn, stored_work_digests(conn))
