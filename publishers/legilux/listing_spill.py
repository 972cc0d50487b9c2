"""The Legilux enumeration's per-version state held on disk while it is listed (issue #13, ADR 0129).

The Legilux enumeration reads the whole consolidation catalogue, then every manifestation, then each
work's discovery metadata, before it builds the first version (the versions are listed sorted by work
slug, date and URI; the works' metadata is asked for in work-URI order). Held in memory, the catalogue's
rows, the states made from them, the manifestation index and the metadata grow with the corpus; here
they are rows of one private temporary SQLite database (:class:`corpus_tree.import_spill.Spill`: its file
unlinked as it is opened, nothing outlives the enumeration or a killed process; a 512 KiB page cache),
written as the pages are read, so that the enumeration holds a few bytes a row and a state:

- :class:`CatalogueSpill`: the catalogue's rows, a page at a time. The rows of one consolidation
  (``?c``; the query orders by it first) are grouped as they come and made into its state
  (:func:`publishers.legilux.records.consolidation`) as soon as the next consolidation starts; the state
  is written keyed by (work slug, ``valid_from``, URI), so the states are read back in the order
  :func:`~publishers.legilux.records.consolidations` sorts them, a work's states together. Every row is
  also appended, as read, to an unnamed file (:meth:`CatalogueSpill.rows`: the paging's duplicate check
  confirms a repeated hash against them). The errors are the whole catalogue's: a row without ``?c``
  anywhere first, else the bad consolidation with the smallest URI, raised by :meth:`CatalogueSpill.end`
  once the paging has proved itself. A consolidation whose rows come apart in the answer (an answer not
  ordered as asked; seen by an 8-byte digest per state) is not refused: the states are then made again
  from the rows file as the whole catalogue made them (every state the same as before).
- :class:`FileIndex`: the manifestation rows keyed by (consolidation, the expression's last segment),
  each key's files in the order read (rows of one key apart in the answer are joined, as before); the
  first row without a binding the index needs is reported once the paging has proved itself.
- :class:`WorkTable`: each work's slug (read back in work-URI order, for the metadata's batches, and in
  slug order, for the slugs' uniqueness) and its raw metadata entries.

Keys are UTF-8 bytes (``surrogatepass``) with each part's NUL bytes escaped and the parts joined by
two NULs, so that SQLite's ``memcmp`` order of the keys is Python's ``sorted`` order of the tuples.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import io
import itertools
import marshal
import os
import tempfile
from array import array
from collections.abc import Iterable, Iterator
from typing import IO, Any, Protocol

from corpus_tree.import_spill import Spill, keyed_rows, spill_full
from legal.errors import PublisherError
from publishers.http import Row
from publishers.legilux import records
from publishers.legilux.records import Consolidation, Expression
from publishers.legilux.vocab import last_segment

#: the spill's SQLite page cache, KiB (ADR 0119: SQLite's 2 MiB default left the heap fragmented)
CACHE_KIB = 512
#: what a full temporary directory names
WHAT = "the Legilux enumeration's temporary spill"


def key_of(*parts: str) -> bytes:
    """An order-preserving key of ``parts``: two keys compare as bytes as the tuples compare as strings."""
    return b"\0\0".join(p.encode("utf-8", "surrogatepass").replace(b"\0", b"\0\1") for p in parts)


def _part(key: bytes, at: int) -> str:
    return key.split(b"\0\0")[at].replace(b"\0\1", b"\0").decode("utf-8", "surrogatepass")


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")


def _ordinal(d: _dt.date | None) -> int | None:
    return None if d is None else d.toordinal()


def _date(n: int | None) -> _dt.date | None:
    return None if n is None else _dt.date.fromordinal(n)


def dump_state(c: Consolidation) -> bytes:
    """A state as the bytes :func:`load_state` makes it again from (plain values, dates as ordinals)."""
    return marshal.dumps((c.uri, c.work, c.slug, c.valid_from.toordinal(), _ordinal(c.valid_to), c.document_type,
                          c.in_force_status, _ordinal(c.publication_date),
                          [(e.uri, e.language, e.source_uri, e.title, e.title_short) for e in c.expressions]))


def load_state(data: bytes) -> Consolidation:
    uri, work, slug, valid_from, valid_to, doc_type, status, published, expressions = marshal.loads(data)
    return Consolidation(uri=uri, work=work, slug=slug, valid_from=_dt.date.fromordinal(valid_from),
                         valid_to=_date(valid_to), document_type=doc_type, in_force_status=status,
                         publication_date=_date(published), expressions=[Expression(*e) for e in expressions])


def _state_key(c: Consolidation) -> bytes:
    return key_of(c.slug, c.valid_from.isoformat(), c.uri)


def spill_error(exc: BaseException) -> BaseException:
    """The typed ``disk_full`` for a full temporary directory (SQLite's or the rows file's), else ``exc``."""
    typed = spill_full(exc, WHAT)
    return typed if typed is not None else exc


class PageSpill(Protocol):
    """What a paged answer is written to as its pages are read (:class:`CatalogueSpill`,
    :class:`FileIndex`)."""

    def add_page(self, page: list[Row]) -> None: ...

    def rows(self) -> Iterator[Row]: ...

    def end(self) -> None: ...

    def close(self) -> None: ...


class _Table:
    """One ``key BLOB PRIMARY KEY → value BLOB`` table of ``spill``, read back in key order."""

    def __init__(self, spill: Spill) -> None:
        self._db = spill.db
        self._name = spill.table()
        self._db.execute(f"CREATE TABLE {self._name} (k BLOB PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID")

    def put(self, key: bytes, value: bytes) -> None:
        self._db.execute(f"INSERT OR REPLACE INTO {self._name} (k, v) VALUES (?, ?)", (key, value))

    def add(self, key: bytes, value: bytes) -> bool:
        """Insert ``key`` unless it is held; whether it was new."""
        return bool(self._db.execute(f"INSERT OR IGNORE INTO {self._name} (k, v) VALUES (?, ?)",
                                     (key, value)).rowcount)

    def get(self, key: bytes) -> bytes | None:
        row = self._db.execute(f"SELECT v FROM {self._name} WHERE k = ?", (key,)).fetchone()
        return None if row is None else bytes(row[0])

    def listed(self, key: bytes) -> list[Any]:
        """The list held under ``key`` (:mod:`marshal`), or an empty one."""
        held = self.get(key)
        out: list[Any] = marshal.loads(held) if held is not None else []
        return out

    def extend(self, key: bytes, values: list[Any]) -> None:
        """The list held under ``key`` with ``values`` appended."""
        self.put(key, marshal.dumps(self.listed(key) + values))

    def clear(self) -> None:
        self._db.execute(f"DELETE FROM {self._name}")

    def items(self) -> Iterator[tuple[bytes, bytes]]:
        """Every row in key order, a page at a time (:func:`corpus_tree.import_spill.keyed_rows`)."""
        for k, v in keyed_rows(self._db, self._name):
            yield bytes(k), bytes(v)


class WorkTable:
    """Each work of the catalogue: its slug, and its raw discovery-metadata entries once asked for."""

    def __init__(self, spill: Spill) -> None:
        self._by_uri = _Table(spill)  # work URI -> slug
        self._by_slug = _Table(spill)  # (slug, work URI) -> b""
        self._metadata = _Table(spill)  # work URI -> marshal of its entries (a list of dicts)

    def add(self, work: str, slug: str) -> None:
        if self._by_uri.add(key_of(work), slug.encode("utf-8", "surrogatepass")):
            self._by_slug.add(key_of(slug, work), b"")

    def clear(self) -> None:
        self._by_uri.clear()
        self._by_slug.clear()

    def uris(self) -> Iterator[str]:
        """The works' URIs, sorted."""
        for key, _ in self._by_uri.items():
            yield _part(key, 0)

    def by_slug(self) -> Iterator[tuple[str, str]]:
        """``(slug, work URI)`` of every work, sorted by slug then URI."""
        for key, _ in self._by_slug.items():
            yield _part(key, 0), _part(key, 1)

    def extend_metadata(self, work: str, entries: list[dict[str, str]]) -> None:
        self._metadata.extend(key_of(work), entries)

    def metadata(self, work: str) -> list[dict[str, str]]:
        return self._metadata.listed(key_of(work))


class _PositionalReader(io.RawIOBase):
    """The first ``end`` bytes of the file ``fd``, read with ``pread`` (its shared offset left alone)."""

    def __init__(self, fd: int, end: int) -> None:
        self._fd, self._at, self._end = fd, 0, end

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = os.pread(self._fd, min(len(buffer), self._end - self._at), self._at)
        buffer[:len(data)] = data
        self._at += len(data)
        return len(data)


class RowsFile:
    """The rows of a paged answer, each appended as read to an unnamed file (:mod:`marshal`), read back in
    that order by :meth:`rows` (the paging's duplicate check confirms a repeated hash against them)."""

    def __init__(self) -> None:
        self._file: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 (closed by close())

    def append(self, row: Row) -> None:
        marshal.dump(row, self._file)

    def rows(self) -> Iterator[Row]:
        """Every row appended so far, in order (read at its own offsets: the file is still written)."""
        self._file.flush()
        reader = io.BufferedReader(_PositionalReader(self._file.fileno(), self._file.tell()))
        while True:
            try:
                row: Row = marshal.load(reader)
            except EOFError:
                return
            yield row

    def close(self) -> None:
        self._file.close()


class CatalogueSpill:
    """The catalogue's states made as its pages are read (see the module docstring)."""

    def __init__(self, spill: Spill, works: WorkTable) -> None:
        self._states = _Table(spill)
        self._works = works
        self._rows = RowsFile()
        self._digests = array("Q")  # one per group of rows made into a state
        self._uri: str | None = None  # the consolidation whose rows are being read
        self._group: list[Row] = []
        self._without_c = False
        self._first: tuple[str, BaseException] | None = None  # the bad consolidation with the smallest URI

    def add_page(self, page: list[Row]) -> None:
        """Take one page's rows (in the order read); the page is emptied."""
        append = self._rows.append
        for row in page:
            append(row)
            uri = row.get("c")
            if uri is None:
                self._without_c = True
                continue
            if uri != self._uri:
                self._close_group()
                self._uri = uri
            self._group.append(row)
        page.clear()

    def rows(self) -> Iterator[Row]:
        """Every row taken so far, in the order read."""
        return self._rows.rows()

    def _close_group(self) -> None:
        uri, group = self._uri, self._group
        if uri is None:
            return
        self._uri, self._group = None, []
        self._digests.append(_digest(uri))
        try:
            state = records.consolidation(uri, group)
        except Exception as exc:  # the whole catalogue's first error is the smallest bad URI's
            if self._first is None or uri < self._first[0]:
                self._first = (uri, exc)
            return
        self._keep(state)

    def _keep(self, state: Consolidation) -> None:
        self._states.put(_state_key(state), dump_state(state))
        self._works.add(state.work, state.slug)

    def end(self) -> None:
        """Once the paging has proved itself: the last group made, and the catalogue's first error raised."""
        self._close_group()
        ordered = sorted(self._digests)
        apart = any(a == b for a, b in itertools.pairwise(ordered))
        del ordered
        self._digests = array("Q")
        if apart:  # a consolidation's rows apart in the answer: made again as the whole catalogue made them
            self._states.clear()
            self._works.clear()
            self._first = None
            for state in records.consolidations(self.rows()):
                self._keep(state)
            return
        if self._without_c:
            raise records.bad_data("catalogue row without ?c", "catalogue")
        if self._first is not None:
            raise self._first[1]

    def states(self) -> Iterator[Consolidation]:
        """Every state, sorted by (work slug, ``valid_from``, URI)."""
        for _, data in self._states.items():
            yield load_state(data)

    def close(self) -> None:
        self._group = []
        self._rows.close()


class FileIndex:
    """The manifestation index: (consolidation, expression's last segment) → its ``(format, file)``
    pairs in the order read."""

    def __init__(self, spill: Spill) -> None:
        self._files = _Table(spill)
        self._rows = RowsFile()
        self._key: bytes | None = None
        self._listed: list[tuple[str, str]] = []
        self._bad: PublisherError | None = None

    def add_page(self, page: list[Row]) -> None:
        """Index one page's rows (in the order read); the page is emptied. The first bad row is kept
        for :meth:`end` and nothing after it is indexed (the whole index stopped there)."""
        for row in page:
            self._rows.append(row)
            if self._bad is not None:
                continue
            try:
                key = key_of(row["c"], last_segment(row["expr"]))
                entry = (row["fmt"], row["file"])
            except KeyError as exc:
                self._bad = records.bad_data(f"manifestation row without ?{exc.args[0]}", "Legilux manifestations")
                continue
            if key != self._key:
                self._flush()
                self._key = key
            self._listed.append(entry)
        page.clear()

    def _flush(self) -> None:
        key, listed = self._key, self._listed
        if key is None:
            return
        self._key, self._listed = None, []
        self._files.extend(key, listed)

    def rows(self) -> Iterator[Row]:
        """Every row taken so far, in the order read."""
        return self._rows.rows()

    def end(self) -> None:
        """Once the paging has proved itself: the last key written and the rows file closed, or the first
        bad row's error raised."""
        self._rows.close()
        if self._bad is not None:
            raise self._bad
        self._flush()

    def close(self) -> None:
        self._rows.close()

    def get(self, consolidation: str, segment: str) -> list[tuple[str, str]]:
        return [(fmt, file) for fmt, file in self._files.listed(key_of(consolidation, segment))]


def grouped_by_slug(states: Iterable[Consolidation]) -> Iterator[list[Consolidation]]:
    """Consecutive states of one work slug, together (the states sorted by slug)."""
    for _, group in itertools.groupby(states, key=lambda c: c.slug):
        yield list(group)


def open_spill() -> Spill:
    """The enumeration's private temporary database (a full temporary directory: ``disk_full``)."""
    try:
        return Spill(cache_kib=CACHE_KIB)
    except Exception as exc:
        raise spill_error(exc) from exc

