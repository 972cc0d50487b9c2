"""What an import keeps per work, per version and per body, held on disk (issue #13, ADR 0093).

:func:`corpus_tree.importer.import_published` keeps, until its one commit, something of every work
(its ``lex-tree/1`` work record, the tree's and the source's), of every version (its
:class:`~corpus_tree.records.VersionSummary`, for the comparison by claimed hash and the manifest)
and of every body (the file to stage, a further file of a listed sha256 to verify). Held in memory
those grow with the corpus; here they are rows of one SQLite database (the standard library's
``sqlite3``), a *private temporary* database (``sqlite3.connect("")``): SQLite makes its file in
the temporary directory and unlinks it as it opens it, so nothing of it outlives the connection or
a killed process, and its page cache (:data:`CACHE_KIB`) bounds what it holds in memory.

- :class:`SpilledMap`: a ``MutableMapping`` over one table (text key → value encoded by the map's
  codec: :mod:`marshal` of plain values by default), iterated in key order (the order of Python's
  ``sorted`` on ``str``: SQLite's ``BINARY`` collation compares the UTF-8 bytes, and UTF-8 byte
  order is code-point order), page by page, so that iterating holds one page of rows and another
  statement may write the table meanwhile.
- :class:`SpilledList`: an append-only sequence of plain values, iterated in the order appended.
- :class:`SpilledNames`: a directory's entry names, each with a small integer mark, iterated in the
  order of Python's ``sorted`` on the names (the import's listing of the source's work directories
  and its plan of each: ADR 0106).

The values are made again, as new objects, each time they are read.
"""

from __future__ import annotations

import hashlib
import itertools
import marshal
import sqlite3
import weakref
from collections.abc import Callable, Iterator, MutableMapping, Sequence
from typing import Any, BinaryIO, ClassVar, Generic, TypeVar, overload

from corpus_tree.manifest import ManifestFold, PublisherPart, _Tally
from corpus_tree.records import SCHEMA, VersionRecord, VersionSummary, WorkRecord, render
from legal.canonical import canonical_bytes, digest
from legal.errors import CorpusError
from legal.ids import Publisher
from legal.outcomes import ValidToConvention

#: the database's page cache, KiB (SQLite's default is 2,000)
CACHE_KIB = 2048
#: rows read per statement while iterating
PAGE = 512

_V = TypeVar("_V")


def keyed_rows(db: sqlite3.Connection, table: str, value: str = "v") -> Iterator[tuple[Any, Any]]:
    """Every ``(k, value)`` row of ``table`` in key order, :data:`PAGE` rows per statement (keyset
    paging: each statement starts after the last key read, so the table may be written meanwhile)."""
    rows = db.execute(f"SELECT k, {value} FROM {table} ORDER BY k LIMIT ?", (PAGE,)).fetchall()
    while rows:
        yield from rows
        if len(rows) < PAGE:
            return
        rows = db.execute(f"SELECT k, {value} FROM {table} WHERE k > ? ORDER BY k LIMIT ?",
                          (rows[-1][0], PAGE)).fetchall()


class Spill:
    """One private temporary SQLite database; :meth:`close` drops it (and its file)."""

    def __init__(self, cache_kib: int = CACHE_KIB) -> None:
        self.db = sqlite3.connect("", isolation_level=None, check_same_thread=False)
        self.db.execute(f"PRAGMA cache_size = -{int(cache_kib)}")
        self.db.execute("PRAGMA journal_mode = OFF")
        self.db.execute("PRAGMA synchronous = OFF")
        self.db.execute("BEGIN")  # one transaction, never committed: the database dies with the connection
        self._tables = 0

    def table(self) -> str:
        """A new table's name."""
        self._tables += 1
        return f"t{self._tables}"

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Spill:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: SQLite's result code for a database that cannot grow (its disk or its ``max_page_count`` full)
SQLITE_FULL = 13


def spill_full(exc: BaseException, what: str = "the import's temporary spill") -> CorpusError | None:
    """The typed ``disk_full`` error for a spill that ran out of room, or ``None`` for any other error.

    SQLite reports a full temporary directory as ``sqlite3.OperationalError`` ("database or disk
    is full", result code ``SQLITE_FULL``); an import (or an apply, ``what`` naming its spill) names it
    as it names any write that ran out of space (:func:`corpus_tree.evidence.disk_full`). Pure."""
    if isinstance(exc, sqlite3.Error) and getattr(exc, "sqlite_errorcode", None) == SQLITE_FULL:
        return CorpusError(f"no space left for {what} ({exc})", code="disk_full",
                           subject=f"{what} (SQLite's temporary directory)")
    return None


def _plain_dumps(value: Any) -> bytes:
    return marshal.dumps(value)


class SpilledMap(MutableMapping[str, _V], Generic[_V]):
    """``str`` → value, one table of ``spill``; values encoded by ``dumps`` and made again by
    ``loads`` (default: :mod:`marshal`, for plain values: ``str``, ``int``, ``bool``, ``None``,
    ``bytes``, and tuples, lists and dicts of them). It iterates in key order (``in_key_order``:
    :mod:`corpus_tree.txn` then takes its items as they come, ADR 0100)."""

    in_key_order: ClassVar[bool] = True

    def __init__(self, spill: Spill, dumps: Callable[[Any], bytes] = _plain_dumps,
                 loads: Callable[[bytes], Any] = marshal.loads) -> None:
        self._db = spill.db
        self._name = spill.table()
        self._dumps, self._loads = dumps, loads
        self._db.execute(f"CREATE TABLE {self._name} (k TEXT PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID")
        self._len = 0

    def __getitem__(self, key: str) -> _V:
        row = self._db.execute(f"SELECT v FROM {self._name} WHERE k = ?", (key,)).fetchone()
        if row is None:
            raise KeyError(key)
        value: _V = self._loads(row[0])
        return value

    def get(self, key: str, default: Any = None) -> Any:
        row = self._db.execute(f"SELECT v FROM {self._name} WHERE k = ?", (key,)).fetchone()
        return default if row is None else self._loads(row[0])

    def __contains__(self, key: object) -> bool:
        return self._db.execute(f"SELECT 1 FROM {self._name} WHERE k = ?", (key,)).fetchone() is not None

    def __setitem__(self, key: str, value: _V) -> None:
        data = self._dumps(value)
        if self._db.execute(f"UPDATE {self._name} SET v = ? WHERE k = ?", (data, key)).rowcount == 0:
            self._db.execute(f"INSERT INTO {self._name} (k, v) VALUES (?, ?)", (key, data))
            self._len += 1

    def __delitem__(self, key: str) -> None:
        if self._db.execute(f"DELETE FROM {self._name} WHERE k = ?", (key,)).rowcount == 0:
            raise KeyError(key)
        self._len -= 1

    def __len__(self) -> int:
        return self._len

    def _rows(self) -> Iterator[tuple[str, bytes]]:
        """Every row in key order, a page at a time (:func:`keyed_rows`: safe while the table is written)."""
        return keyed_rows(self._db, self._name)

    def __iter__(self) -> Iterator[str]:
        for key, _data in self._rows():
            yield key

    def items(self) -> Iterator[tuple[str, _V]]:  # type: ignore[override]  # in key order
        loads = self._loads
        for key, data in self._rows():
            yield key, loads(data)

    def values(self) -> Iterator[_V]:  # type: ignore[override]  # in key order
        loads = self._loads
        for _key, data in self._rows():
            yield loads(data)


class SpilledList(Generic[_V]):
    """An append-only sequence of plain values (:mod:`marshal`), iterated in the order appended."""

    def __init__(self, spill: Spill) -> None:
        self._db = spill.db
        self._name = spill.table()
        self._db.execute(f"CREATE TABLE {self._name} (i INTEGER PRIMARY KEY, v BLOB NOT NULL)")
        self._len = 0

    def append(self, value: _V) -> None:
        data = marshal.dumps(value)  # type: ignore[arg-type]  # plain values only
        self._db.execute(f"INSERT INTO {self._name} (i, v) VALUES (?, ?)", (self._len, data))
        self._len += 1

    def __len__(self) -> int:
        return self._len

    def __bool__(self) -> bool:
        return self._len > 0

    def __iter__(self) -> Iterator[_V]:
        start = 0
        while start < self._len:
            rows = self._db.execute(f"SELECT v FROM {self._name} WHERE i >= ? ORDER BY i LIMIT ?",
                                    (start, PAGE)).fetchall()
            if not rows:
                return
            for (data,) in rows:
                yield marshal.loads(data)
            start += len(rows)


class SpilledNames:
    """A set of directory entry names (``str``, as :func:`os.scandir` gives them, a name that is not
    UTF-8 with its surrogate escapes), each with an integer mark (``None`` until :meth:`mark` sets it),
    one table of ``spill``; iterated as ``(name, mark)`` in the order of Python's ``sorted`` on the
    names, a page at a time (a mark may be set meanwhile).

    A name is kept as its UTF-8 bytes with ``surrogatepass`` (lone surrogates encoded as UTF-8 encodes
    any code point): the bytes of two names compare as their code points do, so SQLite's comparison of
    the keys (``memcmp``) is ``sorted``'s order, surrogate escapes included."""

    def __init__(self, spill: Spill) -> None:
        self._db = spill.db
        self._name = spill.table()
        self._db.execute(f"CREATE TABLE {self._name} (k BLOB PRIMARY KEY, mark INTEGER) WITHOUT ROWID")
        self._len = 0

    @staticmethod
    def _key(name: str) -> bytes:
        return name.encode("utf-8", "surrogatepass")

    def add(self, name: str) -> None:
        """Add ``name`` (unmarked); a name already held is left as it is."""
        self._len += self._db.execute(f"INSERT OR IGNORE INTO {self._name} (k) VALUES (?)",
                                      (self._key(name),)).rowcount

    def mark(self, name: str, mark: int) -> None:
        if self._db.execute(f"UPDATE {self._name} SET mark = ? WHERE k = ?", (mark, self._key(name))).rowcount == 0:
            raise KeyError(name)

    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[tuple[str, int | None]]:
        for key, mark in keyed_rows(self._db, self._name, "mark"):
            yield bytes(key).decode("utf-8", "surrogatepass"), mark


def dump_summary(s: VersionSummary) -> bytes:
    """A :class:`VersionSummary` as the bytes :func:`load_summary` makes it again from."""
    return marshal.dumps((s.lex_id, s.publisher.value, s.publisher_version_identifier, s.valid_from,
                          s.valid_to_convention.value, s.is_withdrawn, s.packed, s.record_sha256, s.path))


def load_summary(data: bytes) -> VersionSummary:
    lex_id, publisher, pvid, valid_from, convention, withdrawn, packed, sha, path = marshal.loads(data)
    return VersionSummary(lex_id, Publisher.parse(publisher), pvid, valid_from, ValidToConvention(convention),
                          withdrawn, packed, sha, path)


def summaries(spill: Spill) -> SpilledMap[VersionSummary]:
    """lex id → :class:`VersionSummary`, held in ``spill``."""
    return SpilledMap(spill, dump_summary, load_summary)


class SpilledManifest:
    """:func:`corpus_tree.manifest.build_manifest` of works and versions folded one at a time, its
    rows held in ``spill``: what the manifest keeps per work and per version (the
    ``[lex_work_id, digest]`` and ``[lex_id, record_sha256]`` rows, each work's rows, the sha256 of
    each body held) are rows of three tables; per publisher only the counts, the languages, the
    conventions and the dates are in memory. :meth:`write` renders the manifest, byte for byte
    :func:`corpus_tree.records.render` of ``build_manifest``'s, to a file, a work at a time:
    ``works_index`` (the last member) is rendered one entry at a time, and ``records_digest`` is
    hashed as its canonical bytes are made, a row at a time.

    With ``unique=False`` (an apply's fold, :mod:`corpus_tree.writer`, and the tree's fold of the other
    publishers' versions, :meth:`corpus_tree.CorpusTree.publisher_summaries`; ADR 0121) a row met twice
    is kept twice, as :class:`corpus_tree.manifest.ManifestFold` keeps it: the rendering is then
    :func:`corpus_tree.manifest.manifest_of`'s of the same rows, byte for byte, whatever the tree holds.
    :meth:`absorb` adds another fold's works and versions (in memory or spilled, in any database)."""

    def __init__(self, spill: Spill, *, unique: bool = True) -> None:
        self._db = spill.db
        self._w, self._v, self._b = spill.table(), spill.table(), spill.table()
        if unique:
            self._db.execute(f"CREATE TABLE {self._w} (wid TEXT PRIMARY KEY, digest TEXT NOT NULL) WITHOUT ROWID")
            self._db.execute(f"CREATE TABLE {self._v} (wid TEXT NOT NULL, lex_id TEXT NOT NULL, sha TEXT NOT NULL, "
                             "PRIMARY KEY (wid, lex_id, sha)) WITHOUT ROWID")
        else:
            self._db.execute(f"CREATE TABLE {self._w} (wid TEXT NOT NULL, digest TEXT NOT NULL)")
            self._db.execute(f"CREATE TABLE {self._v} (wid TEXT NOT NULL, lex_id TEXT NOT NULL, sha TEXT NOT NULL)")
            self._db.execute(f"CREATE INDEX {self._v}_by_work ON {self._v} (wid, lex_id, sha)")
        self._db.execute(f"CREATE TABLE {self._b} (pub TEXT NOT NULL, sha TEXT NOT NULL, "
                         "PRIMARY KEY (pub, sha)) WITHOUT ROWID")
        self.tallies: dict[str, _Tally] = {}

    def _tally(self, publisher: str) -> _Tally:
        tally = self.tallies.get(publisher)
        if tally is None:
            tally = self.tallies[publisher] = _Tally()
        return tally

    def add_work(self, w: WorkRecord) -> None:
        self.add_work_rows(w.publisher.value, w.lex_work_id, w.digest())

    def add_work_rows(self, publisher: str, lex_work_id: str, digest: str) -> None:
        """:meth:`add_work` of a work whose rows are known: its publisher, lex work id and ``digest``."""
        self._db.execute(f"INSERT INTO {self._w} (wid, digest) VALUES (?, ?)", (lex_work_id, digest))
        self._tally(publisher).counts["works"] += 1

    def add_version(self, v: VersionRecord | VersionSummary) -> None:
        publisher = v.publisher.value
        tally = self._tally(publisher)
        tally.add_version(v)  # its bodies go to the table below, not to the tally's set
        if tally.bodies:
            self._db.executemany(f"INSERT OR IGNORE INTO {self._b} (pub, sha) VALUES (?, ?)",
                                 [(publisher, sha) for sha in tally.bodies])
            tally.bodies.clear()
        self._db.execute(f"INSERT INTO {self._v} (wid, lex_id, sha) VALUES (?, ?, ?)",
                         (str(v.work_id), v.lex_id, v.record_sha256))

    @property
    def parts(self) -> dict[str, PublisherPart]:
        """The fold as :attr:`corpus_tree.manifest.ManifestFold.parts` (made again, in memory: for
        :func:`corpus_tree.manifest.manifest_of` and tests; every row goes to the first publisher's
        part, which ``manifest_of`` does not tell apart)."""
        out: dict[str, PublisherPart] = {}
        for publisher in sorted(self.tallies):
            part = out[publisher] = PublisherPart()
            part.tally.absorb(self.tallies[publisher])
            part.tally.conventions |= self.tallies[publisher].conventions
            part.tally.bodies.update(sha for (sha,) in self._db.execute(
                f"SELECT sha FROM {self._b} WHERE pub = ?", (publisher,)))
        if out:
            first = next(iter(out.values()))
            first.work_rows.extend(self._db.execute(f"SELECT wid, digest FROM {self._w}"))
            for wid, _digest in first.work_rows:
                first.by_work.setdefault(wid, [])
            for wid, lex_id, sha in self._db.execute(f"SELECT wid, lex_id, sha FROM {self._v}"):
                row = (lex_id, sha)
                first.version_rows.append(row)
                first.by_work.setdefault(wid, []).append(row)
        return out

    def absorb(self, other: ManifestFold | SpilledManifest) -> None:
        """Add the works and versions folded into ``other`` (left as it is): its rows, a page at a time
        when it is spilled, and its tallies."""
        if isinstance(other, SpilledManifest):
            tallies = other.tallies
            for table, into, columns in ((other._w, self._w, "wid, digest"), (other._v, self._v, "wid, lex_id, sha")):
                marks = ", ".join("?" * (columns.count(",") + 1))
                rows = other._db.execute(f"SELECT {columns} FROM {table}")
                while batch := rows.fetchmany(PAGE):
                    self._db.executemany(f"INSERT INTO {into} ({columns}) VALUES ({marks})", batch)
            rows = other._db.execute(f"SELECT pub, sha FROM {other._b}")
            while batch := rows.fetchmany(PAGE):
                self._db.executemany(f"INSERT OR IGNORE INTO {self._b} (pub, sha) VALUES (?, ?)", batch)
        else:
            tallies = {}
            for publisher, part in other.parts.items():
                tallies[publisher] = part.tally
                self._db.executemany(f"INSERT INTO {self._w} (wid, digest) VALUES (?, ?)", part.work_rows)
                self._db.executemany(f"INSERT INTO {self._v} (wid, lex_id, sha) VALUES (?, ?, ?)",
                                     ((wid, lex_id, sha) for wid, rows in part.by_work.items() for lex_id, sha in rows))
                self._db.executemany(f"INSERT OR IGNORE INTO {self._b} (pub, sha) VALUES (?, ?)",
                                     ((publisher, sha) for sha in part.tally.bodies))
        for publisher, tally in tallies.items():
            mine = self._tally(publisher)
            mine.absorb(tally)
            mine.conventions |= tally.conventions

    def _distinct(self, publisher: str | None) -> int:
        if publisher is None:
            row = self._db.execute(f"SELECT count(DISTINCT sha) FROM {self._b}").fetchone()
        else:
            row = self._db.execute(f"SELECT count(*) FROM {self._b} WHERE pub = ?", (publisher,)).fetchone()
        return int(row[0])

    def _records_digest(self) -> str:
        """``digest({"works": sorted work rows, "versions": sorted version rows})``, a row at a time."""
        h = hashlib.sha256(b'{"versions":[')
        first = True
        for row in self._db.execute(f"SELECT lex_id, sha FROM {self._v} ORDER BY lex_id, sha"):
            h.update(canonical_bytes(list(row)) if first else b"," + canonical_bytes(list(row)))
            first = False
        h.update(b'],"works":[')
        first = True
        for row in self._db.execute(f"SELECT wid, digest FROM {self._w} ORDER BY wid, digest"):
            h.update(canonical_bytes(list(row)) if first else b"," + canonical_bytes(list(row)))
            first = False
        h.update(b"]}")
        return h.hexdigest()

    def _works_index(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """``works_index``'s entries in key order: every work, and every work a version names."""
        wids = self._db.execute(f"SELECT wid FROM {self._w} UNION SELECT wid FROM {self._v} ORDER BY 1")
        for (wid,) in wids:
            rows = self._db.execute(f"SELECT lex_id, sha FROM {self._v} WHERE wid = ? ORDER BY lex_id, sha",
                                    (wid,)).fetchall()
            yield wid, {"versions": len(rows), "digest": digest([list(r) for r in rows])}

    def write(self, out: BinaryIO) -> None:
        """Write the manifest's bytes to ``out``."""
        total = _Tally()
        publishers: dict[str, Any] = {}
        for pub in sorted(self.tallies):
            tally = self.tallies[pub]
            total.absorb(tally)
            entry = tally.to_dict()
            entry["counts"]["distinct_bodies_held"] = self._distinct(pub)
            if tally.conventions:
                entry["valid_to_conventions"] = sorted(tally.conventions)
            publishers[pub] = entry
        head: dict[str, Any] = {"schema": SCHEMA, "publishers": publishers}
        head.update(total.to_dict())
        head["counts"]["distinct_bodies_held"] = self._distinct(None)
        head["records_digest"] = self._records_digest()
        rendered = render(head)
        if not rendered.endswith(b"\n}\n"):
            raise AssertionError("a rendered manifest ends its object on its own line")
        out.write(rendered[:-3] + b',\n  "works_index": {')
        first = True
        for wid, entry in self._works_index():
            lines = render({wid: entry}).split(b"\n")[1:-2]  # the member's lines, without ``{`` and ``}``
            out.write((b"\n" if first else b",\n") + b"\n".join(b"  " + line for line in lines))
            first = False
        out.write(b"}\n}\n" if first else b"\n  }\n}\n")


class HeldElsewhere(Sequence[dict[str, str]]):
    """The import report's ``held_elsewhere``: ``{path, sha256}`` of every body a record names whose
    bytes the source does not hold, in the order met, held in a private temporary database of its
    own (it outlives the import with its report; dropped with the last reference to it). A sequence
    of new dicts each time it is read; equal to a list of the same dicts."""

    def __init__(self) -> None:
        self._spill = Spill()
        self._rows: SpilledList[tuple[str, str]] = SpilledList(self._spill)
        self._finalizer = weakref.finalize(self, self._spill.close)

    def append(self, entry: dict[str, str]) -> None:
        self._rows.append((entry["path"], entry["sha256"]))

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[dict[str, str]]:
        for path, sha in self._rows:
            yield {"path": path, "sha256": sha}

    @overload
    def __getitem__(self, index: int) -> dict[str, str]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, str]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, str] | list[dict[str, str]]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return list(self)[index]
            return list(itertools.islice(self, start, max(start, stop)))
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return next(itertools.islice(self, index, None))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, HeldElsewhere | list):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, as a list
