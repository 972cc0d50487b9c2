"""Bounded-memory build state: dataset rows and table rows spilled to a scratch SQLite file.

The builder walks the corpus one work at a time (``derive/index/rows.py``). What it would
otherwise hold for the whole corpus lives in a scratch database attached to the index
connection as ``scratch``:

- :class:`SpilledRows` — the dataset's provision rows, loaded once (validated as they are
  read) and handed out per expression through an index on ``(lex_id, language, ord)`` (an
  incremental build's changed works, and a dataset that is not one canonical ``provisions.jsonl``:
  a full build reads such a file by its runs of lines instead, :mod:`derive.index.ranges`);
- :class:`SpillSink` — every table's rows in insertion order (``s_<table>``) and the distinct
  texts in the order first met (``s_texts``), copied into the index tables at the end in the
  order the in-memory builder inserts them (texts packed into blocks by
  :mod:`derive.index.textstore`), so the index file is byte-identical.

Only a bounded batch of rows is ever held in Python.
"""

from __future__ import annotations

import marshal
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from derive.index.inputs import CitationRow, ProvisionRow, provision_row
from derive.index.rows import Row, RowSink
from derive.index.textstore import (
    BLOCK_BYTES,
    SAMPLE_BELOW,
    is_stored,
    next_block,
    train,
    write_texts,
)

BATCH = 2000
SCHEMA = "scratch"


class _SpillTable:
    """One table's rows, appended in order and flushed to ``scratch.s_<table>`` in batches."""

    def __init__(self, conn: sqlite3.Connection, table: str) -> None:
        self._conn = conn
        self.name = f"{SCHEMA}.s_{table}"
        self._buffer: list[Row] = []
        self._count = 0
        self.width: int | None = None

    def append(self, row: Row, /) -> None:
        self._buffer.append(row)
        self._count += 1
        if len(self._buffer) >= BATCH:
            self.flush()

    def extend(self, rows: Iterable[Row], /) -> None:
        for row in rows:
            self.append(row)

    def __len__(self) -> int:
        return self._count

    def flush(self) -> None:
        if not self._buffer:
            return
        if self.width is None:
            self.width = len(self._buffer[0])
            columns = ",".join(f"c{i}" for i in range(self.width))
            self._conn.execute(f"CREATE TABLE {self.name}({columns})")
        marks = ",".join("?" * self.width)
        self._conn.executemany(f"INSERT INTO {self.name} VALUES ({marks})", self._buffer)
        self._buffer.clear()

    def copy_into(self, target: str) -> None:
        """``INSERT INTO <target> SELECT … ORDER BY rowid`` (insertion order); nothing when empty."""
        self.flush()
        if self.width is None:
            return
        columns = ",".join(f"c{i}" for i in range(self.width))
        self._conn.execute(f"INSERT INTO {target} SELECT {columns} FROM {self.name} ORDER BY rowid")


class _DirectTable(_SpillTable):
    """Rows appended straight into an index table (incremental build), in batches.

    A full batch flushes every table of the sink, in the order the tables were first written
    (``lexical_states`` before the ``provisions`` that refer to them)."""

    def __init__(self, conn: sqlite3.Connection, target: str, flush_all: Callable[[], None]) -> None:
        super().__init__(conn, "direct")
        self.name = target
        self._flush_all = flush_all

    def append(self, row: Row, /) -> None:
        self._buffer.append(row)
        self._count += 1
        if len(self._buffer) >= BATCH:
            self._flush_all()

    def flush(self) -> None:
        if not self._buffer:
            return
        marks = ",".join("?" * len(self._buffer[0]))
        self._conn.executemany(f"INSERT INTO {self.name} VALUES ({marks})", self._buffer)
        self._buffer.clear()


#: Column lists of the FTS tables as the builder inserts them.
FTS_TARGETS = {"provision_fts": "provision_fts(rowid, title, number, heading, text)",
               "work_fts": "work_fts(rowid, identifiers, titles, short_titles, aliases, metadata)"}


class DirectSink:
    """A :class:`derive.index.rows.Sink` writing into the index tables of ``conn`` (incremental build)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._tables: dict[str, _DirectTable] = {}
        self._texts: dict[str, str] = {}
        self._text_size = 0
        self.excluded_empty_provisions = 0
        self.text_bytes = 0

    def sink(self, table: str) -> RowSink:
        if table not in self._tables:
            self._tables[table] = _DirectTable(self._conn, FTS_TARGETS.get(table, table), self.flush)
        return self._tables[table]

    def add_text(self, sha256: str, text: str) -> None:
        """A text not stored yet waits for a block of its own kind (new texts packed in new blocks)."""
        self.text_bytes += len(text)
        if sha256 in self._texts or is_stored(self._conn, sha256):
            return
        self._texts[sha256] = text
        self._text_size += len(text)
        if self._text_size >= BLOCK_BYTES:
            self._flush_texts()

    def _flush_texts(self) -> None:
        write_texts(self._conn, self._texts.items(), next_block(self._conn))
        self._texts.clear()
        self._text_size = 0

    def flush(self) -> None:
        for table in self._tables.values():
            table.flush()
        if self._texts:
            self._flush_texts()


class SpillSink:
    """A :class:`derive.index.rows.Sink` that keeps table rows and texts on disk."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._tables: dict[str, _SpillTable] = {}
        self._texts: dict[str, str] = {}
        self.excluded_empty_provisions = 0
        self.text_bytes = 0
        conn.execute(f"CREATE TABLE {SCHEMA}.s_texts(sha TEXT NOT NULL UNIQUE, body TEXT NOT NULL)")

    def sink(self, table: str) -> RowSink:
        return self.table(table)

    def table(self, table: str) -> _SpillTable:
        if table not in self._tables:
            self._tables[table] = _SpillTable(self._conn, table)
        return self._tables[table]

    def add_text(self, sha256: str, text: str) -> None:
        self.text_bytes += len(text)
        self._texts.setdefault(sha256, text)
        if len(self._texts) >= BATCH:
            self._flush_texts()

    def _flush_texts(self) -> None:
        self._conn.executemany(f"INSERT OR IGNORE INTO {SCHEMA}.s_texts VALUES (?, ?)", self._texts.items())
        self._texts.clear()

    def text_dictionary(self) -> bytes:
        """The blocks' preset dictionary, trained on the sample of the distinct texts."""
        self._flush_texts()
        return train(str(body) for (body,) in self._conn.execute(
            f"SELECT body FROM {SCHEMA}.s_texts WHERE sha < ? ORDER BY sha", (SAMPLE_BELOW,)))

    def texts(self) -> Iterator[tuple[str, str]]:
        """``(sha256, text)`` of every distinct text, in the order first met."""
        self._flush_texts()
        for sha, body in self._conn.execute(f"SELECT sha, body FROM {SCHEMA}.s_texts ORDER BY rowid"):
            yield str(sha), str(body)


# The fields of a :class:`ProvisionRow` as a row is kept in ``scratch.rows`` (``order`` is its own
# column): already validated, so handing it out again is a read, not a second validation.
PACKED_FIELDS = ("provision_id", "lex_id", "work_id", "publisher", "version_key", "language", "anchor", "type", "num",
                 "heading", "path", "article_valid_from", "text_md", "text_sha256", "citations", "profile",
                 "evidence_sha256", "evidence_file", "record_sha256", "span_start", "span_end")


def pack_row(row: ProvisionRow) -> bytes:
    """A validated row as the :mod:`marshal` bytes of the tuple of its :data:`PACKED_FIELDS` (citations as
    ``(href, text, target)``). Scratch only, read back by the same interpreter: marshal keeps every
    str (lone surrogates included), int and None exactly, and is several times cheaper than JSON."""
    return marshal.dumps((row.provision_id, row.lex_id, row.work_id, row.publisher, row.version_key, row.language,
                          row.anchor, row.type, row.num, row.heading, row.path, row.article_valid_from, row.text_md,
                          row.text_sha256, tuple((c.href, c.text, c.target_work) for c in row.citations),
                          row.profile, row.evidence_sha256, row.evidence_file, row.record_sha256, row.span_start,
                          row.span_end))


def unpack_row(body: bytes, order: int) -> ProvisionRow:
    """:func:`pack_row` read back: the same :class:`ProvisionRow`, with ``order``."""
    (provision_id, lex_id, work_id, publisher, version_key, language, anchor, type_, num, heading, path,
     article_valid_from, text_md, text_sha256, citations, profile, evidence_sha256, evidence_file, record_sha256,
     span_start, span_end) = marshal.loads(body)
    return ProvisionRow(provision_id, lex_id, work_id, publisher, version_key, language, anchor, type_, num, heading,
                        tuple(path), article_valid_from, text_md, text_sha256,
                        tuple(CitationRow(h, t, w) for h, t, w in citations), profile, evidence_sha256,
                        evidence_file, record_sha256, span_start, span_end, order)


class SpilledRows:
    """A :class:`derive.index.rows.ExpressionRows` over dataset rows loaded into the scratch database
    (each validated once, as it is loaded, and kept as :func:`pack_row`)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._count = 0
        conn.execute(f"CREATE TABLE {SCHEMA}.rows(lex_id TEXT NOT NULL, language TEXT NOT NULL, ord INTEGER NOT NULL,"
                     " src TEXT NOT NULL, body BLOB NOT NULL)")

    def load(self, values: Iterable[tuple[str, dict[str, Any]]], publisher: str,
             loaded: Callable[[int], None] | None = None, position: int | None = None) -> None:
        """Validate every row (as :func:`derive.index.inputs.read_dataset` does); keep the publisher's.

        ``loaded`` is told the size of each batch of rows read (characters, for progress).
        ``position``: the first row's position among the dataset's rows when ``values`` is a
        part of them (an incremental build reads only the changed works' rows)."""
        if position is not None:
            self._count = position
        batch: list[tuple[str, str, int, str, bytes]] = []
        size = 0
        for where, value in values:
            row = provision_row(value, self._count, where)
            self._count += 1
            body = pack_row(row)
            size += len(body) + 1
            if row.publisher == publisher:
                batch.append((row.lex_id, row.language, row.order, where, body))
            if len(batch) >= BATCH or size >= 1 << 22:
                self._insert(batch)
                if loaded is not None:
                    loaded(size)
                size = 0
        self._insert(batch)
        if loaded is not None:
            loaded(size)

    def _insert(self, batch: list[tuple[str, str, int, str, bytes]]) -> None:
        self._conn.executemany(f"INSERT INTO {SCHEMA}.rows VALUES (?,?,?,?,?)", batch)
        batch.clear()

    def index(self) -> None:
        self._conn.execute(f"CREATE INDEX {SCHEMA}.ix_rows ON rows(lex_id, language, ord)")

    def peek(self, lex_id: str, language: str) -> list[ProvisionRow]:
        found = self._conn.execute(f"SELECT ord, body FROM {SCHEMA}.rows WHERE lex_id = ? AND language = ?"
                                   " ORDER BY ord", (lex_id, language)).fetchall()
        return [unpack_row(body, order) for order, body in found]

    def take(self, lex_id: str, language: str) -> list[ProvisionRow]:
        """The rows of one expression, once (deleted from the scratch file: their pages are reused by the
        table rows spilled after them, which keeps the scratch file about the dataset's size)."""
        found = self._conn.execute(f"SELECT ord, body FROM {SCHEMA}.rows WHERE lex_id = ? AND language = ?"
                                   " ORDER BY ord", (lex_id, language)).fetchall()
        if not found:
            return []
        self._conn.execute(f"DELETE FROM {SCHEMA}.rows WHERE lex_id = ? AND language = ?", (lex_id, language))
        return [unpack_row(body, order) for order, body in found]

    def first_left(self) -> tuple[str, str] | None:
        row = self._conn.execute(f"SELECT lex_id, language FROM {SCHEMA}.rows ORDER BY lex_id, language LIMIT 1"
                                 ).fetchone()
        return (str(row[0]), str(row[1])) if row else None
