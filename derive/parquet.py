"""The Parquet form of the dataset (docs/derive.md §6.5): typed, dictionary-encoded, large row
groups, described by its own key-value metadata.

The JSONL rows (:mod:`derive.rows`) are the canonical form; the Parquet file carries the same
columns, typed for readers, plus two derived validity columns:

- the row schema's date columns (:data:`DATE_COLUMNS`) become ``date32`` and its instants
  (:data:`TIMESTAMP_COLUMNS`, transaction time) ``timestamp[ms, UTC]``; any other column of the
  row schema flows through with its own type, so a new row field is a new Parquet column;
- low-cardinality strings (:data:`CATEGORICAL`) become ``dictionary<int32, string>`` (pandas reads
  them as categoricals);
- ``valid_to_exclusive`` / ``valid_to_inclusive`` (``date32``) state the version's end in both
  conventions whatever the publisher's: one half-open test ``valid_from <= d AND (valid_to_exclusive
  IS NULL OR d < valid_to_exclusive)`` serves every publisher; ``valid_to`` stays verbatim.

:class:`ParquetSink` buffers whole works into row groups of at least :data:`ROW_GROUP_ROWS` rows
or :data:`ROW_GROUP_BYTES` bytes of JSONL (whichever comes first), so row-group boundaries depend
on the rows alone (not on processes, shards or Arrow chunking) and memory holds one row group; the
provisions sink also cuts a group *before* a work that would take it past that bound (ADR 0101), so
a group passes it only when one work does.
"""

from __future__ import annotations

import json
import os
import struct
import zlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from derive import footer as F
from legal.canonical import canonical_bytes, digest
from legal.errors import DerivationError
from legal.heap import release_free_heap

# Version of the Parquet files' format written here (types, derived columns, row groups, metadata,
# the states table). It is part of derive.cache.derivation_digest(): a change here that changes any
# Parquet byte must bump it. (It is not in the per-work cache key: the cache holds rows, not Parquet.)
DATASET_FORMAT_VERSION = 3
DATASET_CONTRACT = f"lex-dataset/{DATASET_FORMAT_VERSION}"
# Version of where the provisions file's row groups are cut (ADR 0101: 2, a group is cut before a
# work that would take it past the bound; 1, only after the work that reached it). It moves row-group
# boundaries, so Parquet bytes, but not the tables a reader gets: not the contract's version; it is
# in derive.cache.derivation_digest() and in a row group's name (:func:`group_identity`).
ROW_GROUPS_VERSION = 2

DATE_COLUMNS = frozenset({"valid_from", "valid_to", "article_valid_from"})
TIMESTAMP_COLUMNS = frozenset({"first_observed"})
CATEGORICAL = frozenset({"publisher", "language", "valid_to_convention", "type", "profile"})
VALIDITY_AFTER = "valid_to_convention"  # the derived validity columns follow this column
VALIDITY_COLUMNS = ("valid_to_exclusive", "valid_to_inclusive")
CONVENTIONS = ("exclusive", "inclusive")

ROW_GROUP_ROWS = 131_072
ROW_GROUP_BYTES = 128 << 20
#: rows added to a :class:`ParquetSink` are copied into arrays of their own every this many bytes
#: (of JSONL): memory then holds them once, without the buffers they came in
COMPACT_BYTES = 8 << 20

#: a :class:`StringColumn` grows its buffers by 1/GROWTH of their size (at least): ``resize`` fills
#: what it adds, so every byte of slack is resident; a large buffer is remapped, not copied
GROWTH = 4

DICT = pa.dictionary(pa.int32(), pa.string())
TIMESTAMP = pa.timestamp("ms", tz="UTC")  # transaction time; Parquet stores instants to the millisecond
INSTANT_FORMAT = "%Y-%m-%dT%H:%M:%SZ"

# The publishers' terms (model §7.4). Both publish under CC BY 4.0: Legilux by its dct:license,
# EUR-Lex by Commission Decision 2011/833/EU as implemented by C(2019) 1655.
LICENCES: dict[str, dict[str, str]] = {
    "lu-legilux": {
        "licence": "CC-BY-4.0",
        "licence_url": "https://creativecommons.org/licenses/by/4.0/",
        "attribution": "Legilux — Ministère d'État, Service central de législation, Grand-Duché de Luxembourg "
                       "(CC-BY-4.0); derived by lex-evidence, not an official publication",
    },
    "eu-eurlex": {
        "licence": "CC-BY-4.0",
        "licence_url": "https://creativecommons.org/licenses/by/4.0/",
        "attribution": "© European Union, https://eur-lex.europa.eu (reuse under Commission Decision 2011/833/EU, "
                       "CC-BY-4.0); only the Official Journal is authentic; derived by lex-evidence",
    },
}


def parquet_schema(rows: pa.Schema) -> pa.Schema:
    """The Parquet schema of a row schema: dates typed, categoricals dictionary-encoded, the two
    derived validity columns after ``valid_to_convention``; every other field unchanged."""
    fields: list[pa.Field] = []
    for f in rows:
        if f.name in DATE_COLUMNS:
            fields.append(pa.field(f.name, pa.date32(), f.nullable))
        elif f.name in TIMESTAMP_COLUMNS:
            fields.append(pa.field(f.name, TIMESTAMP, f.nullable))
        elif f.name in CATEGORICAL:
            fields.append(pa.field(f.name, DICT, f.nullable))
        else:
            fields.append(f)
        if f.name == VALIDITY_AFTER:
            fields.extend(pa.field(name, pa.date32()) for name in VALIDITY_COLUMNS)
    return pa.schema(fields)


def _dates(column: pa.ChunkedArray, name: str) -> pa.ChunkedArray:
    try:
        return column.cast(pa.date32())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise DerivationError(f"column {name!r} holds a value that is not an ISO date ({exc})",
                                 code="bad_date", subject=name) from None


def _instants(column: pa.ChunkedArray, name: str) -> pa.ChunkedArray:
    try:
        return pc.strptime(column, format=INSTANT_FORMAT, unit="ms").cast(TIMESTAMP)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise DerivationError(f"column {name!r} holds a value that is not an instant YYYY-MM-DDTHH:MM:SSZ ({exc})",
                              code="bad_timestamp", subject=name) from None


def _validity(table: pa.Table) -> dict[str, pa.ChunkedArray]:
    convention = table.column("valid_to_convention")
    unknown = pc.invert(pc.is_in(convention, pa.array(CONVENTIONS)))
    if pc.any(unknown).as_py():
        raise DerivationError("valid_to_convention must be 'exclusive' or 'inclusive'",
                                 code="bad_convention", subject="valid_to_convention")
    days = _dates(table.column("valid_to"), "valid_to").cast(pa.int32())
    inclusive = pc.equal(convention, "inclusive")
    one = pa.scalar(1, pa.int32())
    return {
        "valid_to_exclusive": pc.if_else(inclusive, pc.add(days, one), days).cast(pa.date32()),
        "valid_to_inclusive": pc.if_else(inclusive, days, pc.subtract(days, one)).cast(pa.date32()),
    }


def to_parquet(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """``table`` (of the row schema) in the Parquet ``schema`` of :func:`parquet_schema`."""
    wanted = VALIDITY_COLUMNS[0] in schema.names and VALIDITY_COLUMNS[0] not in table.schema.names
    derived = _validity(table) if wanted else {}
    columns: list[pa.ChunkedArray] = []
    for f in schema:
        if f.name in derived:
            columns.append(derived[f.name])
        elif f.type == pa.date32() and table.schema.field(f.name).type != pa.date32():
            columns.append(_dates(table.column(f.name), f.name))
        elif f.type == TIMESTAMP and table.schema.field(f.name).type != TIMESTAMP:
            columns.append(_instants(table.column(f.name), f.name))
        elif f.type == DICT and table.schema.field(f.name).type != DICT:
            columns.append(pc.dictionary_encode(table.column(f.name).cast(pa.string())))
        else:
            columns.append(table.column(f.name).cast(f.type))
    return pa.Table.from_arrays(columns, schema=schema)


def release_unused() -> None:
    """Give back what the process holds free: the C heap's free pages
    (:func:`legal.heap.release_free_heap`) and the pages Arrow's allocator keeps for reuse
    (``MemoryPool.release_unused``: mimalloc, the wheels' default, otherwise keeps the pages of the
    row group just written, and of the batches read, resident under the next one)."""
    release_free_heap()
    pa.default_memory_pool().release_unused()


def key_value_metadata(table: str, values: Mapping[str, str]) -> dict[bytes, bytes]:
    """The file's key-value metadata: ``lex:contract``, ``lex:table`` and ``values`` (``lex:`` keys)."""
    meta = {"lex:contract": DATASET_CONTRACT, "lex:table": table, **values}
    return {k.encode("utf-8"): v.encode("utf-8") for k, v in sorted(meta.items())}


class StringColumn:
    """A ``string`` column of a row group built as its pieces come: their values copied into one
    buffer (and offsets into another) that grow in place (``realloc``: a large buffer is remapped,
    not copied), so the group's strings are held once and :meth:`finish` hands them over without
    a copy — the same values and nulls as ``pa.concat_arrays`` of the pieces."""

    def __init__(self) -> None:
        self.data = np.empty(1 << 16, dtype=np.uint8)
        self.offsets = np.empty(1 << 10, dtype=np.int32)
        self.offsets[0] = 0
        self.rows = 0
        self.size = 0
        self.nulls: list[tuple[int, pa.Array]] = []  # (first row, validity of the piece) of pieces with nulls
        self.null_count = 0

    @staticmethod
    def _grow(buffer: np.ndarray[Any, Any], needed: int) -> None:
        if needed > len(buffer):
            buffer.resize(max(needed, len(buffer) + len(buffer) // GROWTH), refcheck=False)

    def append(self, piece: pa.Array) -> None:
        n = len(piece)
        if not n:
            return
        bounds = np.frombuffer(piece.buffers()[1], dtype=np.int32, count=n + 1, offset=piece.offset * 4)
        lo, hi = int(bounds[0]), int(bounds[-1])
        if self.size + hi - lo >= 1 << 31:
            raise pa.ArrowInvalid("offset overflow while concatenating arrays")  # what concat_arrays says
        self._grow(self.data, self.size + hi - lo)
        self._grow(self.offsets, self.rows + n + 1)
        self.offsets[self.rows + 1:self.rows + n + 1] = bounds[1:] - lo + self.size
        if hi > lo:
            self.data[self.size:self.size + hi - lo] = np.frombuffer(piece.buffers()[2], dtype=np.uint8,
                                                                     count=hi - lo, offset=lo)
        if piece.null_count:
            self.nulls.append((self.rows, piece.is_valid()))
            self.null_count += piece.null_count
        self.rows += n
        self.size += hi - lo

    def finish(self) -> pa.Array:
        """The column (the builder is spent: its buffers now belong to the array)."""
        validity = None
        if self.nulls:
            valid = np.ones(self.rows, dtype=np.bool_)
            for start, mask in self.nulls:
                valid[start:start + len(mask)] = mask.to_numpy(zero_copy_only=False)
            validity = pa.py_buffer(np.packbits(valid, bitorder="little"))
        return pa.Array.from_buffers(pa.string(), self.rows, [
            validity, pa.py_buffer(self.offsets[:self.rows + 1]), pa.py_buffer(self.data[:self.size])],
            null_count=self.null_count)


#: how every Parquet file of the dataset is encoded (a row group's bytes are a function of its rows,
#: the Parquet schema, these and the Arrow version)
WRITER_OPTIONS: dict[str, Any] = {"compression": "zstd", "use_dictionary": True, "write_statistics": True,
                                  "store_schema": True}
GROUPS_SCHEMA = "lex-row-groups/2"  # 2: each group's works (ident, rows, JSONL bytes)


class GroupWriter:
    """A Parquet file written a row group at a time, each group either encoded on its own (Arrow's
    writer, a one-group file in memory: :meth:`write_table`) or copied byte for byte from another
    file (:meth:`copy_group`), then placed after the previous one; the footer moves the groups'
    positions (:mod:`derive.footer`). The bytes are those of Arrow's writer writing the same
    groups into one file (tested), so copying a group changes nothing in the file."""

    def __init__(self, path: Path, schema: pa.Schema) -> None:
        self.path = path
        self.schema = schema
        self.template = F.decode(F.footer_bytes(memoryview(self._encode(None))))
        self.handle = path.open("wb")
        self.handle.write(F.MAGIC)
        self.offset = len(F.MAGIC)
        self.groups: list[F.Struct] = []
        #: ``(first byte, length, CRC-32)`` of each group written
        self.spans: list[tuple[int, int, int]] = []
        self.copied = 0  # groups copied from another file

    def _encode(self, table: pa.Table | None) -> pa.Buffer:
        sink = pa.BufferOutputStream()
        writer = pq.ParquetWriter(sink, self.schema, **WRITER_OPTIONS)
        if table is not None:
            writer.write_table(table, row_group_size=max(1, table.num_rows))
        writer.close()
        return sink.getvalue()

    def write_table(self, table: pa.Table) -> None:
        """Encode ``table`` (of the file's schema) as one row group and append it."""
        data = self._encode(table)
        view = memoryview(data)
        group = F.row_groups(F.decode(F.footer_bytes(view)))[0]
        start, size = F.group_span(group)
        self._place(group, view[start:start + size], start)

    def copy_group(self, group: F.Struct, data: bytes, start: int) -> None:
        """Append a row group taken from another file of the same schema: its footer entry and its
        bytes (which began at ``start`` there)."""
        self._place(group, data, start)
        self.copied += 1

    def _place(self, group: F.Struct, data: bytes | memoryview, start: int) -> None:
        self.handle.write(data)
        self.groups.append(F.moved_group(group, self.offset - start, len(self.groups)))
        self.spans.append((self.offset, len(data), zlib.crc32(data)))
        self.offset += len(data)

    def close(self) -> None:
        footer = F.encode(F.with_groups(self.template, self.groups))
        self.handle.write(footer + struct.pack("<I", len(footer)) + F.MAGIC)
        self.handle.close()

    def abort(self) -> None:
        self.handle.close()


def group_identity(schema: pa.Schema, idents: Sequence[str], bound: tuple[int, int]) -> str:
    """The name of a row group of ``schema`` holding the rows named by ``idents`` (in order), cut by
    ``bound`` (rows, JSONL bytes): the same name, the same bytes."""
    return digest({"schema": GROUPS_SCHEMA, "parquet": schema.remove_metadata().to_string(),
                   "options": WRITER_OPTIONS, "arrow": pa.__version__, "format": DATASET_FORMAT_VERSION,
                   "row_groups": ROW_GROUPS_VERSION, "bound": list(bound), "rows": list(idents)})


#: one work of a row group: (what its rows are a function of, its rows, their JSONL bytes)
Member = tuple[str, int, int]


def groups_document(identities: Sequence[str | None], spans: Sequence[tuple[int, int, int]],
                    members: Sequence[Sequence[Member]] | None = None) -> bytes:
    """The sidecar: per row group, its identity, span, CRC-32 and works (``members``)."""
    found = members if members is not None else [[] for _ in identities]
    return canonical_bytes({"schema": GROUPS_SCHEMA, "groups": [
        [i, s, n, c, [list(m) for m in w]] for i, (s, n, c), w in zip(identities, spans, found, strict=True)]})


def groups_path(target: Path) -> Path:
    """The sidecar of a dataset directory's ``provisions.parquet`` row groups: beside the directory
    (``.<name>.groups.json``; the dataset stays pure), written after it is in place."""
    return target.parent / f".{target.name}.groups.json"


def write_groups(target: Path, document: bytes) -> None:
    path = groups_path(target)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(document)
    os.replace(tmp, path)


class PreviousGroups:
    """The row groups of a previous file that a new one may copy, by identity: those its sidecar
    (:func:`groups_document`) names whose span is the one its footer gives and whose bytes still
    have the recorded CRC-32 (any doubt: the group is encoded again)."""

    def __init__(self, path: Path, sidecar: Path) -> None:
        self.path = path
        self.handle: Any = None
        self.found: dict[str, tuple[F.Struct, int, int, int, int]] = {}
        #: per group of the previous file: its identity and works (:data:`Member`), in file order
        self.groups: list[tuple[str, list[Member]]] = []
        #: the identity of a work's rows → the group they begin (when they begin one)
        self.starts: dict[str, int] = {}
        try:
            document = json.loads(sidecar.read_bytes())
            footer, _at = F.read_footer(path)
        except (OSError, ValueError, DerivationError):
            return
        if not isinstance(document, dict) or document.get("schema") != GROUPS_SCHEMA:
            return
        entries, groups = document.get("groups"), F.row_groups(footer)
        if not isinstance(entries, list) or len(entries) != len(groups):
            return
        for entry, group in zip(entries, groups, strict=True):
            if not (isinstance(entry, list) and len(entry) == 5 and isinstance(entry[0], str)):
                continue
            identity, start, size, crc, works = entry
            if F.group_span(group) == (start, size) and isinstance(works, list):
                members = [(str(m[0]), int(m[1]), int(m[2])) for m in works]
                if sum(m[1] for m in members) == int(F.field(group, 3)) and members:
                    self.found[identity] = (group, start, size, crc, int(F.field(group, 3)))
                    self.starts[members[0][0]] = len(self.groups)
                    self.groups.append((identity, members))

    def find(self, identity: str, rows: int) -> tuple[F.Struct, bytes, int] | None:
        """``(footer entry, bytes, first byte)`` of the previous group ``identity`` of ``rows`` rows."""
        hit = self.found.get(identity)
        if hit is None or hit[4] != rows:
            return None
        group, start, size, crc, _rows = hit
        try:
            if self.handle is None:
                self.handle = self.path.open("rb")
            self.handle.seek(start)
            data = self.handle.read(size)
        except OSError:
            return None
        if len(data) != size or zlib.crc32(data) != crc:
            return None
        return group, data, start

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()
            self.handle = None


class ParquetSink:
    """A Parquet file written whole works at a time, in row groups of at least
    :data:`ROW_GROUP_ROWS` rows or :data:`ROW_GROUP_BYTES` bytes (measured on the rows' JSONL,
    so the same rows cut the same groups however they were produced).

    :meth:`add` takes a table of ``source`` (the row schema) and, optionally, something to close
    once its rows are copied (a memory map). The file exists from construction (an empty dataset
    is a valid file with the schema and metadata).

    Memory holds one row group, once: every :data:`COMPACT_BYTES` of rows added, their values are
    copied out of the buffers they came in (an IPC stream with its slack, a memory map: let go
    then) — a ``string`` column's into one growing buffer (:class:`StringColumn`: the largest
    columns, the text above all, are never copied again), any other column's into an array of
    its own, made contiguous at the flush. The group written is the same contiguous table as a
    concatenation of the rows added gives, so the file's bytes are too.
    """

    def __init__(self, path: Path, source: pa.Schema, schema: pa.Schema, metadata: Mapping[bytes, bytes],
                 *, rows: int | None = None, size: int | None = None,
                 reuse: PreviousGroups | None = None, cut_before: bool = False) -> None:
        self.source = source
        self.schema = schema.with_metadata(dict(metadata))
        self.limit_rows = ROW_GROUP_ROWS if rows is None else rows
        self.limit_bytes = ROW_GROUP_BYTES if size is None else size
        #: cut the group *before* a work whose rows would take it past the bound (ADR 0101), not
        #: only after the work that reaches it: a group then passes the bound only when one work does
        self.cut_before = cut_before
        self.loose: list[pa.Table] = []  # tables added since the last compaction (their buffers as given)
        self.loose_bytes = 0
        self.group: pa.Schema | None = None  # the schema of the row group's tables
        #: the row group's rows so far, per column: a :class:`StringColumn`, or compacted pieces
        self.columns: list[StringColumn | list[pa.Array]] = []
        self.holds: list[Any] = []
        self.rows = 0
        self.bytes = 0
        self.writer = GroupWriter(path, self.schema)
        #: the row groups of the previous file that may be copied instead of encoded again
        self.reuse = reuse
        #: per row group written, its identity (:meth:`add`'s ``ident``\ s) or None
        self.identities: list[str | None] = []
        self.idents: list[str] | None = []  # the current group's works' identities (None: one unknown)
        self.current: list[Member] = []  # the current group's works
        self.members: list[list[Member]] = []  # per group written, its works
        #: rows added by :meth:`add_deferred` and not read yet: how to read them, their JSONL size
        #: (after every row of :attr:`loose` and :attr:`columns`, in order)
        self.deferred: list[tuple[Callable[[], pa.Table], int]] = []

    @property
    def empty(self) -> bool:
        """No row waits for the next row group."""
        return self.rows == 0 and not self.loose and not self.columns and not self.deferred

    def copy_previous(self, index: int) -> bool:
        """Append the previous file's group ``index`` (of :attr:`reuse`) as this file's next group,
        in place of adding its works' rows (which the caller then passes over); False (nothing
        written) when its bytes no longer hold what the sidecar recorded."""
        assert self.reuse is not None and self.empty
        identity, members = self.reuse.groups[index]
        found = self.reuse.find(identity, sum(m[1] for m in members))
        if found is None:
            return False
        self.writer.copy_group(*found)
        self.identities.append(identity)
        self.members.append(list(members))
        self.idents, self.current = [], []
        return True

    def cuts_after(self, members: Sequence[Member], following: tuple[int, int] | None = None) -> bool:
        """Whether a group of exactly ``members`` ends by this sink's bound (not at the file's end):
        reached by them, or, cutting before (:attr:`cut_before`), passed by the work that follows
        (``following``: its rows and JSONL bytes)."""
        rows, size = sum(m[1] for m in members), sum(m[2] for m in members)
        if rows >= self.limit_rows or size >= self.limit_bytes:
            return True
        return self.cut_before and following is not None and self._passes(rows, size, *following)

    def holds_whole(self, members: Sequence[Member]) -> bool:
        """Whether this sink, from empty, takes ``members`` into one group with no cut between them
        (cutting before, a group of several works stays within the bound: ADR 0101)."""
        if not self.cut_before or len(members) < 2:
            return True
        return sum(m[1] for m in members) <= self.limit_rows and sum(m[2] for m in members) <= self.limit_bytes

    def _passes(self, rows: int, size: int, more_rows: int, more_size: int) -> bool:
        """Whether a work of ``more_rows`` rows (``more_size`` bytes of JSONL) takes a group of
        ``rows`` rows (``size`` bytes) past the bound, the group holding some rows."""
        return rows > 0 and more_rows > 0 and (rows + more_rows > self.limit_rows or size + more_size > self.limit_bytes)

    def _cut_before(self, rows: int, size: int) -> None:
        """:attr:`cut_before`: write the group before a work of ``rows`` rows (``size`` bytes) that
        would take it past the bound — the group's rows alone, while the caller still holds the
        work's (ADR 0101)."""
        if self.cut_before and self._passes(self.rows, self.bytes, rows, size):
            self.flush()
            release_unused()

    def add(self, table: pa.Table, size: int, hold: Any = None, ident: str | None = None) -> None:
        """Add one work's rows; ``size`` is their JSONL size in bytes. ``ident``: what the rows are a
        function of (the work and its derive cache key, under one rows encoding), or None: a row
        group of works that all have one is named by them (:meth:`group_identity`) and copied from
        the previous file's group of that name (``reuse``) instead of being encoded again."""
        self._cut_before(table.num_rows, size)
        if table.num_rows:
            self._read_deferred()  # their rows come before these
        if self.idents is not None:
            if ident is None:
                self.idents = None
            elif table.num_rows:
                self.idents.append(ident)
        if table.num_rows:
            self.current.append((ident or "", table.num_rows, size))
        if hold is not None:
            self.holds.append(hold)
        self._gather(table, size)
        if self.rows >= self.limit_rows or self.bytes >= self.limit_bytes:
            self.flush()
            release_unused()  # what writing the group freed, before the next one is gathered
        elif self.loose_bytes >= COMPACT_BYTES:
            self._compact()

    def add_deferred(self, rows: int, size: int, load: Callable[[], pa.Table], ident: str | None = None) -> None:
        """Add one work's ``rows`` rows (``size`` bytes of JSONL) without reading them: ``load()``
        gives them (the table :meth:`add` would take) when the row group they fall in is encoded.
        A group named by its works (their ``ident``) that the previous file holds is copied without
        reading any of them; otherwise they are read, in order, as the group is gathered. The file
        is the same bytes as with :meth:`add`."""
        if not rows:
            return
        self._cut_before(rows, size)
        if self.idents is not None:
            if ident is None:
                self.idents = None
            else:
                self.idents.append(ident)
        self.current.append((ident or "", rows, size))
        self.deferred.append((load, size))
        self.rows += rows
        self.bytes += size
        if self.rows >= self.limit_rows or self.bytes >= self.limit_bytes:
            self.flush()
            release_unused()

    def _read_deferred(self) -> None:
        """Read the deferred rows into the group (compacted as :meth:`add` compacts), in order."""
        pending, self.deferred = self.deferred, []
        for load, size in pending:
            table = load()
            self._gather(table, size, counted=True)
            if self.loose_bytes >= COMPACT_BYTES:
                self._compact()

    def _gather(self, table: pa.Table, size: int, counted: bool = False) -> None:
        """Take ``table``'s rows (``size`` bytes of JSONL) into the group; ``counted``: already in
        :attr:`rows` and :attr:`bytes` (deferred rows)."""
        if table.num_rows:
            if self.group is None:
                self.group = table.schema
            elif not table.schema.equals(self.group):
                raise pa.ArrowInvalid(f"a row group's tables must share one schema:\n{table.schema}\nvs\n{self.group}")
            self.loose.append(table)
            self.loose_bytes += size
            if not counted:
                self.rows += table.num_rows
                self.bytes += size

    def _compact(self) -> None:
        """Copy the loose tables into one array per column (appended to :attr:`columns`) and let
        their buffers (and holds) go."""
        if self.loose:
            if not self.columns:
                self.columns = [StringColumn() if pa.types.is_string(f.type) else [] for f in self.loose[0].schema]
            for i, column in enumerate(self.columns):
                chunks = [c for t in self.loose for c in t.column(i).chunks]
                if isinstance(column, StringColumn):
                    for chunk in chunks:
                        column.append(chunk)
                else:
                    column.append(pa.concat_arrays(chunks))
                del chunks
            self.loose = []
        self.loose_bytes = 0
        for hold in self.holds:
            hold.close()
        self.holds = []

    def _copied(self) -> bool:
        """With deferred rows pending: when the previous file holds the group they complete (named
        by its works), copy it and let every row of the group go unread; False otherwise."""
        identity = (group_identity(self.schema, self.idents, (self.limit_rows, self.limit_bytes))
                    if self.idents else None)
        found = self.reuse.find(identity, self.rows) if self.reuse is not None and identity else None
        if found is None:
            return False
        self.deferred, self.loose, self.columns, self.loose_bytes = [], [], [], 0
        for hold in self.holds:
            hold.close()
        self.holds = []
        self.writer.copy_group(*found)
        self.identities.append(identity)
        self.members.append(self.current)
        return True

    def flush(self) -> None:
        if self.deferred:
            if self._copied():
                self.group = None
                self.idents = []
                self.current = []
                self.rows = self.bytes = 0
                return
            self._read_deferred()
        self._compact()
        if self.columns:
            assert self.group is not None
            release_unused()  # the group is built and written on top of what the process holds
            arrays: list[pa.Array] = []
            for i, column in enumerate(self.columns):
                self.columns[i] = []
                # one contiguous chunk per column: pages do not depend on how the rows were chunked
                arrays.append(column.finish() if isinstance(column, StringColumn) else pa.concat_arrays(column))
                del column
            self.columns = []
            table = pa.Table.from_arrays(arrays, schema=self.group)
            del arrays
            identity = (group_identity(self.schema, self.idents, (self.limit_rows, self.limit_bytes))
                        if self.idents else None)
            found = self.reuse.find(identity, table.num_rows) if self.reuse is not None and identity else None
            if found is not None:
                del table
                self.writer.copy_group(*found)
            else:
                group = to_parquet(table, self.schema)
                del table
                self.writer.write_table(group)
            self.identities.append(identity)
            self.members.append(self.current if identity is not None else [])
        self.group = None
        self.idents = []
        self.current = []
        self.rows = self.bytes = 0

    def close(self) -> None:
        self.flush()
        self.writer.close()
        if self.reuse is not None:
            self.reuse.close()

    def abort(self) -> None:
        for hold in self.holds:
            hold.close()
        self.holds = []
        self.loose = []
        self.columns = []
        self.deferred = []
        self.writer.abort()
        if self.reuse is not None:
            self.reuse.close()

    def groups_document(self) -> bytes:
        """The row groups' sidecar (:data:`GROUPS_SCHEMA`): per group written, its identity, span
        and CRC-32 — what the next build's :class:`PreviousGroups` copies from."""
        return groups_document(self.identities, self.writer.spans, self.members)


def plain_batch(batch: pa.RecordBatch | pa.Table) -> list[dict[str, Any]]:
    """Rows of a Parquet batch in their JSONL form: derived validity columns dropped, dates as ISO
    strings, instants as ``YYYY-MM-DDTHH:MM:SSZ``, categoricals as strings (what :mod:`derive.rows`
    wrote; for readers of either file)."""
    return plain_rows(batch, drop=VALIDITY_COLUMNS)


def plain_rows(batch: pa.RecordBatch | pa.Table, drop: frozenset[str] | tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """Rows of a Parquet batch with dates and instants as the strings they were built from."""
    names = [n for n in batch.schema.names if n not in drop]
    rows: list[dict[str, Any]] = batch.select(names).to_pylist()
    dates = [f.name for f in batch.schema if f.name in names and f.type == pa.date32()]
    instants = [f.name for f in batch.schema if f.name in names and pa.types.is_timestamp(f.type)]
    for row in rows:
        for name in dates:
            value = row[name]
            if value is not None:
                row[name] = value.isoformat()
        for name in instants:
            value = row[name]
            if value is not None:
                row[name] = value.strftime(INSTANT_FORMAT)
    return rows
