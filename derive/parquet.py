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
on the rows alone (not on processes, shards or Arrow chunking) and memory holds one row group.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from legal.errors import DerivationError
from legal.heap import release_free_heap

# Version of the Parquet files' format written here (types, derived columns, row groups, metadata,
# the states table). It is part of derive.cache.derivation_digest(): a change here that changes any
# Parquet byte must bump it. (It is not in the per-work cache key: the cache holds rows, not Parquet.)
DATASET_FORMAT_VERSION = 3
DATASET_CONTRACT = f"lex-dataset/{DATASET_FORMAT_VERSION}"

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
                 *, rows: int = ROW_GROUP_ROWS, size: int = ROW_GROUP_BYTES) -> None:
        self.source = source
        self.schema = schema.with_metadata(dict(metadata))
        self.limit_rows = rows
        self.limit_bytes = size
        self.loose: list[pa.Table] = []  # tables added since the last compaction (their buffers as given)
        self.loose_bytes = 0
        self.group: pa.Schema | None = None  # the schema of the row group's tables
        #: the row group's rows so far, per column: a :class:`StringColumn`, or compacted pieces
        self.columns: list[StringColumn | list[pa.Array]] = []
        self.holds: list[Any] = []
        self.rows = 0
        self.bytes = 0
        self.writer = pq.ParquetWriter(path, self.schema, compression="zstd", use_dictionary=True,
                                       write_statistics=True, store_schema=True)

    def add(self, table: pa.Table, size: int, hold: Any = None) -> None:
        """Add one work's rows; ``size`` is their JSONL size in bytes."""
        if hold is not None:
            self.holds.append(hold)
        if table.num_rows:
            if self.group is None:
                self.group = table.schema
            elif not table.schema.equals(self.group):
                raise pa.ArrowInvalid(f"a row group's tables must share one schema:\n{table.schema}\nvs\n{self.group}")
            self.loose.append(table)
            self.loose_bytes += size
            self.rows += table.num_rows
            self.bytes += size
        if self.rows >= self.limit_rows or self.bytes >= self.limit_bytes:
            self.flush()
            release_unused()  # what writing the group freed, before the next one is gathered
        elif self.loose_bytes >= COMPACT_BYTES:
            self._compact()

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

    def flush(self) -> None:
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
            group = to_parquet(table, self.schema)
            del table
            self.writer.write_table(group, row_group_size=group.num_rows)
        self.group = None
        self.rows = self.bytes = 0

    def close(self) -> None:
        self.flush()
        self.writer.close()

    def abort(self) -> None:
        for hold in self.holds:
            hold.close()
        self.holds = []
        self.loose = []
        self.columns = []


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
