"""A Parquet file's footer (``FileMetaData``, Thrift compact protocol) read and written as a plain
tree, so that a file can be assembled from row groups encoded apart or copied byte for byte from
another file (:class:`derive.parquet.GroupWriter`).

A row group's column chunks hold no position of their own (page headers carry sizes, not offsets):
only the footer names where each chunk starts. So a row group encoded on its own (a one-group file)
or taken from another file is placed anywhere by moving those positions
(:func:`moved_group`), and the assembled file is the same bytes as one written by Arrow's writer
in one go — the tests compare the two.

The tree: a struct is a list of ``(field id, type, value)`` in the order read (Arrow writes fields
by ascending id; writing the tree back gives the bytes read: :func:`encode` of :func:`decode`
is the identity on the footers Arrow writes, tested); a list is ``(element type, [values])``.
"""

from __future__ import annotations

import struct
from typing import Any

from legal.errors import DerivationError

MAGIC = b"PAR1"

# compact protocol types
_TRUE, _FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY, _LIST, _SET, _MAP, _STRUCT = range(1, 13)

Struct = list[tuple[int, int, Any]]

# FileMetaData / RowGroup / ColumnChunk / ColumnMetaData field ids (parquet.thrift)
_FILE_NUM_ROWS, _FILE_ROW_GROUPS = 3, 4
_RG_COLUMNS, _RG_NUM_ROWS, _RG_FILE_OFFSET, _RG_COMPRESSED, _RG_ORDINAL = 1, 3, 5, 6, 7
_CC_FILE_OFFSET, _CC_META, _CC_OFFSET_INDEX, _CC_COLUMN_INDEX = 2, 3, 4, 6
_CM_COMPRESSED, _CM_DATA_PAGE, _CM_INDEX_PAGE, _CM_DICT_PAGE, _CM_BLOOM = 7, 9, 10, 11, 14


def _bad(why: str) -> DerivationError:
    return DerivationError(f"unreadable Parquet footer: {why}", code="bad_parquet_footer")


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def byte(self) -> int:
        if self.pos >= len(self.data):
            raise _bad("truncated")
        b = self.data[self.pos]
        self.pos += 1
        return b

    def varint(self) -> int:
        shift = result = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return result
            shift += 7
            if shift > 70:
                raise _bad("varint too long")

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def value(self, kind: int) -> Any:
        if kind in (_TRUE, _FALSE):  # a bool element of a collection: one byte
            return self.byte() == _TRUE
        if kind == _BYTE:
            b = self.byte()
            return b - 256 if b > 127 else b
        if kind in (_I16, _I32, _I64):
            return self.zigzag()
        if kind == _DOUBLE:
            if self.pos + 8 > len(self.data):
                raise _bad("truncated")
            (v,) = struct.unpack_from("<d", self.data, self.pos)
            self.pos += 8
            return v
        if kind == _BINARY:
            n = self.varint()
            if self.pos + n > len(self.data):
                raise _bad("truncated")
            v = self.data[self.pos:self.pos + n]
            self.pos += n
            return v
        if kind in (_LIST, _SET):
            head = self.byte()
            size, element = head >> 4, head & 0x0F
            if size == 15:
                size = self.varint()
            return (element, [self.value(element) for _ in range(size)])
        if kind == _MAP:
            size = self.varint()
            types = self.byte() if size else 0
            return (types, [(self.value(types >> 4), self.value(types & 0x0F)) for _ in range(size)])
        if kind == _STRUCT:
            return self.struct()
        raise _bad(f"unknown type {kind}")

    def struct(self) -> Struct:
        fields: Struct = []
        last = 0
        while True:
            head = self.byte()
            if head == 0:
                return fields
            kind, delta = head & 0x0F, head >> 4
            fid = last + delta if delta else self.zigzag()
            value = True if kind == _TRUE else False if kind == _FALSE else self.value(kind)
            fields.append((fid, kind, value))
            last = fid


def _varint(out: bytearray, n: int) -> None:
    while True:
        if n < 0x80:
            out.append(n)
            return
        out.append((n & 0x7F) | 0x80)
        n >>= 7


def _zigzag(out: bytearray, n: int) -> None:
    _varint(out, (n << 1) ^ (n >> 63))


def _value(out: bytearray, kind: int, value: Any) -> None:
    if kind in (_TRUE, _FALSE):
        out.append(_TRUE if value else _FALSE)
    elif kind == _BYTE:
        out.append(value & 0xFF)
    elif kind in (_I16, _I32, _I64):
        _zigzag(out, value)
    elif kind == _DOUBLE:
        out += struct.pack("<d", value)
    elif kind == _BINARY:
        _varint(out, len(value))
        out += value
    elif kind in (_LIST, _SET):
        element, items = value
        if len(items) < 15:
            out.append((len(items) << 4) | element)
        else:
            out.append(0xF0 | element)
            _varint(out, len(items))
        for item in items:
            _value(out, element, item)
    elif kind == _MAP:
        types, pairs = value
        _varint(out, len(pairs))
        if pairs:
            out.append(types)
        for k, v in pairs:
            _value(out, types >> 4, k)
            _value(out, types & 0x0F, v)
    elif kind == _STRUCT:
        _struct(out, value)
    else:
        raise _bad(f"unknown type {kind}")


def _struct(out: bytearray, fields: Struct) -> None:
    last = 0
    for fid, kind, value in fields:
        wire = (_TRUE if value else _FALSE) if kind in (_TRUE, _FALSE) else kind
        if 0 < fid - last <= 15:
            out.append(((fid - last) << 4) | wire)
        else:
            out.append(wire)
            _zigzag(out, fid)
        if kind not in (_TRUE, _FALSE):
            _value(out, kind, value)
        last = fid
    out.append(0)


def decode(data: bytes) -> Struct:
    """The struct encoded in ``data`` (all of it)."""
    reader = _Reader(data)
    found = reader.struct()
    if reader.pos != len(data):
        raise _bad("bytes after the footer's struct")
    return found


def encode(fields: Struct) -> bytes:
    out = bytearray()
    _struct(out, fields)
    return bytes(out)


def footer_bytes(data: bytes | memoryview) -> bytes:
    """The encoded ``FileMetaData`` at the end of a whole Parquet file's bytes."""
    if len(data) < 12 or bytes(data[:4]) != MAGIC or bytes(data[-4:]) != MAGIC:
        raise _bad("not a Parquet file")
    (size,) = struct.unpack("<I", bytes(data[-8:-4]))
    if size > len(data) - 12:
        raise _bad("footer larger than the file")
    return bytes(data[len(data) - 8 - size:len(data) - 8])


def read_footer(path: Any) -> tuple[Struct, int]:
    """The decoded ``FileMetaData`` of the Parquet file at ``path`` and where it starts."""
    with open(path, "rb") as handle:
        handle.seek(0, 2)
        end = handle.tell()
        if end < 12:
            raise _bad("not a Parquet file")
        handle.seek(end - 8)
        tail = handle.read(8)
        (size,) = struct.unpack("<I", tail[:4])
        if tail[4:] != MAGIC or size > end - 12:
            raise _bad("not a Parquet file")
        handle.seek(end - 8 - size)
        return decode(handle.read(size)), end - 8 - size


def field(fields: Struct, fid: int) -> Any:
    for found, _kind, value in fields:
        if found == fid:
            return value
    return None


def _set(fields: Struct, fid: int, kind: int, value: Any) -> Struct:
    out = [(f, k, value if f == fid else v) for f, k, v in fields]
    if all(f != fid for f, _k, _v in fields):
        out.append((fid, kind, value))
        out.sort(key=lambda item: item[0])
    return out


def row_groups(footer: Struct) -> list[Struct]:
    found = field(footer, _FILE_ROW_GROUPS)
    return list(found[1]) if found is not None else []


def group_span(group: Struct) -> tuple[int, int]:
    """``(first byte, length)`` of a row group's column chunks in its file (contiguous: Arrow
    writes a group's chunks one after the other)."""
    columns = field(group, _RG_COLUMNS)[1]
    starts: list[int] = []
    size = 0
    for chunk in columns:
        meta = field(chunk, _CC_META)
        dictionary = field(meta, _CM_DICT_PAGE)
        data = field(meta, _CM_DATA_PAGE)
        starts.append(dictionary if dictionary is not None and dictionary > 0 else data)
        size += field(meta, _CM_COMPRESSED)
    return min(starts), size


def moved_group(group: Struct, delta: int, ordinal: int) -> Struct:
    """``group`` with every position in it moved by ``delta`` bytes and its ordinal set."""

    def move(fields: Struct, ids: tuple[int, ...]) -> Struct:
        return [(f, k, v + delta if f in ids and isinstance(v, int) and v > 0 else v) for f, k, v in fields]

    chunks = []
    for chunk in field(group, _RG_COLUMNS)[1]:
        moved = move(chunk, (_CC_FILE_OFFSET, _CC_OFFSET_INDEX, _CC_COLUMN_INDEX))
        moved = [(f, k, move(v, (_CM_DATA_PAGE, _CM_INDEX_PAGE, _CM_DICT_PAGE, _CM_BLOOM)) if f == _CC_META else v)
                 for f, k, v in moved]
        chunks.append(moved)
    element = field(group, _RG_COLUMNS)[0]
    out = [(f, k, (element, chunks) if f == _RG_COLUMNS else v) for f, k, v in move(group, (_RG_FILE_OFFSET,))]
    if field(out, _RG_ORDINAL) is not None:
        out = _set(out, _RG_ORDINAL, _I16, ordinal)
    return out


def with_groups(template: Struct, groups: list[Struct]) -> Struct:
    """The ``FileMetaData`` ``template`` (a file's footer) holding ``groups`` and their rows."""
    rows = sum(int(field(g, _RG_NUM_ROWS)) for g in groups)
    out = _set(template, _FILE_NUM_ROWS, _I64, rows)
    return _set(out, _FILE_ROW_GROUPS, _LIST, (_STRUCT, groups))
