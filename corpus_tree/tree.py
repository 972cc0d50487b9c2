"""The corpus tree ``lex-tree/1``: a dated work/version tree over a content-addressed store.

::

    <tree>/
      manifest.json                                  counts, date ranges, digests (lex-tree/1)
      evidence/sha256/<aa>/<bb>/<sha256>             verbatim publisher bytes (the evidence store)
      works/<slug>/meta.json                         work record
      works/<slug>/versions/<version_key>/meta.json  version record (hashed)
      .lock                                          advisory write lock (empty)

:class:`CorpusTree` is the read side plus the paths the writer and importer need; writes
go through :mod:`corpus_tree.txn` (staged, journaled, all or nothing). Opening a tree
recovers an interrupted commit first (see :func:`corpus_tree.txn.recover`).

The evidence store defaults to ``<tree>/evidence``; pass ``evidence_dir`` or set
``LEX_EVIDENCE_DIR`` to use a shared filesystem path instead.

Inside ``with tree.caching():`` (an ingest run: plan, then write) each version record file is
parsed, and its hash checked, at most once per file state: a record is re-read whenever its
inode, size, modification or change time differ from when it was read (every write replaces
the file, so a new inode). Outside such a block nothing is cached. The scans of an ingest of one
publisher (:meth:`CorpusTree.publisher_summaries`) keep only a slim summary per file state of that
publisher's records, not the parsed record, and fold every other publisher's record into the
manifest's rows (:class:`corpus_tree.manifest.ManifestFold`, kept with a digest of those files'
states, ADR 0048): a run holds the summaries of its publisher's versions, a manifest row per other
version, and the full records of the versions it revises only (:meth:`CorpusTree.read_version`).
The summaries are not held in memory at all: the block writes each, with its file state, lex id and
publisher, to a private temporary SQLite database keyed by its path (:class:`_SummaryStore`; its file
unlinked as it is opened, dropped with the block), and :meth:`CorpusTree.publisher_summaries` returns a
:class:`SpilledSummaries` mapping, a table of that database by lex id, that makes each summary again
when it is read; the lex ids an enumeration lists among them are a byte per version
(:class:`ListedLexIds`) (issue #13, ADR 0083, 0133). Its statements are few per version (ADR 0137):
rows are written a batch at a time, a second scan that finds every file in the state the first saw
returns the first's summaries, and reads by lex id in the order of the places (the plan's and the
writer's, the listing being in the tree's order) are answered from rows read ahead.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import marshal
import os
import shutil
import sqlite3
import struct
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from corpus_tree import txn
from corpus_tree.evidence import ENV_EVIDENCE_DIR, EvidenceStore, enospc_as_disk_full
from corpus_tree.import_spill import Spill, SpilledManifest, spill_full
from corpus_tree.manifest import ManifestFold, empty_manifest
from corpus_tree.records import (
    RECORD_FILE,
    SCHEMA,
    Shared,
    VersionRecord,
    VersionSummary,
    WorkRecord,
    load_version,
    load_work,
    parse_record_bytes,
    render,
    require_hash,
    summary_of,
)
from legal.errors import CorpusError, IdentityError, IntegrityError
from legal.ids import Publisher, VersionId, VersionKey, WorkSlug
from legal.outcomes import ValidToConvention

MANIFEST = "manifest.json"
WORKS = "works"
VERSIONS = "versions"
EVIDENCE = "evidence"
#: a file state ``(st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns)`` as the summary cache keeps it
_STATE = struct.Struct("<QQQqq")
_LENGTH = struct.Struct("<I")


#: the page cache of the caching block's database of summaries, KiB (a row written per version, read
#: back by its path or lex id: the pages are the operating system's to cache, not the process's)
SUMMARY_CACHE_KIB = 512


def _summary_bytes(s: VersionSummary) -> bytes:
    """``s`` but its lex id (kept beside it), as the caching block's database holds it."""
    return marshal.dumps((s.publisher.value, s.publisher_version_identifier, s.valid_from,
                          s.valid_to_convention.value, s.is_withdrawn, s.packed, s.record_sha256, s.path))


def _summary_from(lex_id: str, data: bytes) -> VersionSummary:
    """The summary :func:`_summary_bytes` wrote, with ``lex_id`` as its lex id (a new value)."""
    publisher, pvid, valid_from, convention, withdrawn, packed, sha, path = marshal.loads(data)
    return VersionSummary(lex_id, Publisher(publisher), pvid, valid_from, ValidToConvention(convention),
                          withdrawn, packed, sha, path)


def _spill_error(exc: sqlite3.Error) -> Exception:
    """A full temporary directory under the summaries' database as the typed ``disk_full``, else ``exc``."""
    full = spill_full(exc, "the tree's temporary database of version summaries")
    return exc if full is None else full


def _walk_digest(files: Iterator[tuple[str, str]]) -> bytes:
    """A digest of each version file's tree-relative path and packed state (:data:`_STATE`), in the walk's
    order (``files``: ``(path, rel)``; a file gone since it was listed is left out), so that two scans
    of one caching block that see the same digest saw the same files in the same states."""
    walk = hashlib.blake2b(digest_size=32)
    for path, rel in files:
        try:
            st = os.stat(path)
        except FileNotFoundError:
            continue
        state = _STATE.pack(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        walk.update(b"%d:%s%s" % (len(rel), rel.encode(), state))
    return walk.digest()


class _SummaryStore:
    """The summaries a :meth:`CorpusTree.caching` block made, in one private temporary SQLite database
    (its file unlinked as it is opened, dropped with the block; a full temporary directory is the typed
    ``disk_full``), so that the block holds nothing per version (issue #13, ADR 0133; before it, a
    dict entry per file and an offset in a spill file, ADR 0083):

    - table ``summary``: per record path (tree-relative) its packed file state, lex id, publisher,
      the summary (:func:`_summary_bytes`) and the count of summaries made when it was made (which
      tells a test whether a file was summarised again);
    - a table per :meth:`view` (:class:`SpilledSummaries`): a publisher's summaries by lex id, in the
      order they were added."""

    __slots__ = ("_made", "_pending", "_spill")

    #: rows written at a time (one ``executemany``): a row is kept in memory until its batch is written
    BATCH = 256

    def __init__(self) -> None:
        self._spill = Spill(SUMMARY_CACHE_KIB)
        self._made = 0
        self._pending: list[tuple[str, bytes, str, str, bytes, int]] = []
        self._spill.db.execute("CREATE TABLE summary (rel TEXT PRIMARY KEY, state BLOB NOT NULL, lex_id TEXT NOT NULL,"
                               " publisher TEXT NOT NULL, data BLOB NOT NULL, made INTEGER NOT NULL) WITHOUT ROWID")

    def cached(self, rel: str, state: bytes) -> VersionSummary | None:
        """The summary kept for ``rel`` if it was made of the file state ``state``, else ``None``."""
        self.flush()
        row = self._spill.db.execute("SELECT lex_id, data FROM summary WHERE rel = ? AND state = ?",
                                     (rel, state)).fetchone()
        return None if row is None else _summary_from(row[0], row[1])

    def empty(self) -> bool:
        """Whether no summary was kept yet (a scan that starts so finds none of its files here)."""
        return self._made == 0

    def put(self, rel: str, state: bytes, summary: VersionSummary) -> bytes:
        """Keep ``summary``, made of the file ``rel`` in the state ``state`` (replacing what ``rel`` had);
        returns its bytes (:func:`_summary_bytes`)."""
        self._made += 1
        data = _summary_bytes(summary)
        self._pending.append((rel, state, summary.lex_id, summary.publisher.value, data, self._made))
        if len(self._pending) >= self.BATCH:
            self.flush()
        return data

    def flush(self) -> None:
        """Write the rows :meth:`put` keeps for its batch (every read of the table writes them first)."""
        if not self._pending:
            return
        rows, self._pending = self._pending, []
        try:
            self._spill.db.executemany("INSERT OR REPLACE INTO summary VALUES (?, ?, ?, ?, ?, ?)", rows)
        except sqlite3.Error as exc:
            raise _spill_error(exc) from exc

    def rows(self) -> dict[str, tuple[bytes, str, Publisher, int]]:
        """``{record path: (packed file state, lex id, publisher, count when made)}`` (tests)."""
        self.flush()
        return {rel: (state, lex_id, Publisher(publisher), made) for rel, state, lex_id, publisher, made in
                self._spill.db.execute("SELECT rel, state, lex_id, publisher, made FROM summary")}

    def view(self) -> SpilledSummaries:
        """A new, empty :class:`SpilledSummaries` (a table of this database)."""
        return SpilledSummaries(self._spill.db, self._spill.table(), self.flush)

    def close(self) -> None:
        self._spill.close()


class SpilledSummaries(Mapping[str, VersionSummary]):
    """A publisher's summaries by lex id, as :meth:`CorpusTree.publisher_summaries` returns them inside
    :meth:`CorpusTree.caching`: a table of the block's database of summaries (:class:`_SummaryStore`),
    nothing per version in memory (ADR 0133). Iterated in the order the lex ids were first added (a lex id
    added again keeps its place and takes the later summary, as a ``dict``); each summary read is made
    again (read once per use)."""

    __slots__ = ("_ahead", "_db", "_last", "_len", "_name", "_next", "_pending", "_stored")

    #: rows read at a time when iterating, and written at a time (one ``executemany``) when added
    BATCH = 256

    def __init__(self, db: sqlite3.Connection, name: str, stored: Callable[[], None] = lambda: None) -> None:
        self._db, self._name = db, name
        self._stored = stored  # writes what the block's table of summaries keeps for its batch
        self._len: int | None = 0  # None: not counted since the last add
        # the lex id last read and its place: a withdrawal mark that follows a read asks nothing again
        self._last: tuple[str, int] | None = None
        self._pending: list[tuple[str, bytes]] = []  # added, not written yet (written before any read)
        # read in order of place (a listing in the tree's order): the rows after the last one read, by lex
        # id, read at once (at most BATCH), and the place that continues the sequence
        self._ahead: dict[str, tuple[int, bytes]] = {}
        self._next = 0
        db.execute(f"CREATE TABLE {name} (pos INTEGER PRIMARY KEY, lex_id TEXT NOT NULL UNIQUE, data BLOB NOT NULL)")

    def add(self, summary: VersionSummary, data: bytes | None = None) -> None:
        """Add ``summary`` under its lex id (``data``: its bytes, if the caller made them already); written
        with the next :attr:`BATCH` (or before the next read), in the order added."""
        self._pending.append((summary.lex_id, _summary_bytes(summary) if data is None else data))
        self._len = self._last = None
        self._ahead = {}
        if len(self._pending) >= self.BATCH:
            self._flush()

    def _flush(self) -> None:
        """Write the summaries :meth:`add` keeps for its batch."""
        if not self._pending:
            return
        rows, self._pending = self._pending, []
        try:
            self._db.executemany(f"INSERT INTO {self._name} (lex_id, data) VALUES (?, ?)"
                                 " ON CONFLICT (lex_id) DO UPDATE SET data = excluded.data", rows)
        except sqlite3.Error as exc:
            raise _spill_error(exc) from exc

    def add_cached(self, rel: str, state: bytes, publisher: Publisher) -> bool:
        """Add the summary the block keeps for ``rel`` if it is ``publisher``'s and was made of the file
        state ``state``; whether it was."""
        self._flush()
        self._stored()
        return self._added(f"INSERT INTO {self._name} (lex_id, data) SELECT lex_id, data FROM summary"
                           " WHERE rel = ? AND state = ? AND publisher = ?"
                           " ON CONFLICT (lex_id) DO UPDATE SET data = excluded.data",
                           (rel, state, publisher.value))

    def _added(self, sql: str, args: tuple[Any, ...]) -> bool:
        try:
            added = self._db.execute(sql, args).rowcount > 0
        except sqlite3.Error as exc:
            raise _spill_error(exc) from exc
        if added:
            self._len = self._last = None
            self._ahead = {}
        return added

    def position(self, lex_id: str) -> int | None:
        """The place of ``lex_id`` (1 for the first added), or ``None`` if it is not here."""
        last = self._last
        if last is not None and last[0] == lex_id:
            return last[1]
        self._flush()
        row = self._db.execute(f"SELECT pos FROM {self._name} WHERE lex_id = ?", (lex_id,)).fetchone()
        return None if row is None else int(row[0])

    def __getitem__(self, lex_id: str) -> VersionSummary:
        """The summary of ``lex_id``. Reads that follow the places in order (the plan's and the writer's,
        the listing being in the tree's order) are answered from the rows read ahead, :attr:`BATCH` at a
        time, not by a statement each; any other read asks the database for its row."""
        hit = self._ahead.get(lex_id)
        if hit is None:
            self._flush()
            row = self._db.execute(f"SELECT pos, data FROM {self._name} WHERE lex_id = ?", (lex_id,)).fetchone()
            if row is None:
                raise KeyError(lex_id)
            hit = (int(row[0]), row[1])
            if hit[0] == self._next:  # the place after the last read: read the next ones at once
                self._ahead = {key: (pos, data) for pos, key, data in self._db.execute(
                    f"SELECT pos, lex_id, data FROM {self._name} WHERE pos > ? ORDER BY pos LIMIT ?",
                    (hit[0], self.BATCH))}
            elif len(self._ahead) >= 2 * self.BATCH:  # reads out of order: what is kept stays bounded
                self._ahead = {}
            self._ahead[lex_id] = hit  # read again next (a get, then the same lex id's mark): no statement
        pos, data = hit
        self._next = pos + 1
        self._last = (lex_id, pos)
        return _summary_from(lex_id, data)

    def get(self, lex_id: str, default: Any = None) -> Any:
        try:
            return self[lex_id]
        except KeyError:
            return default

    def __contains__(self, lex_id: object) -> bool:
        return isinstance(lex_id, str) and self.position(lex_id) is not None

    def __len__(self) -> int:
        if self._len is None:
            self._flush()
            self._len = int(self._db.execute(f"SELECT count(*) FROM {self._name}").fetchone()[0])
        return self._len

    def _rows(self) -> Iterator[tuple[str, bytes]]:
        """``(lex id, summary bytes)`` in order, :attr:`BATCH` rows at a time (no statement left open
        between them, so that the caller may use the database meanwhile)."""
        self._flush()
        last = 0
        while True:
            rows = self._db.execute(f"SELECT pos, lex_id, data FROM {self._name} WHERE pos > ? ORDER BY pos LIMIT ?",
                                    (last, self.BATCH)).fetchall()
            if not rows:
                return
            last = rows[-1][0]
            for pos, lex_id, data in rows:
                self._last = (lex_id, pos)
                yield lex_id, data
            del rows

    def __iter__(self) -> Iterator[str]:
        for lex_id, _ in self._rows():
            yield lex_id

    def items(self) -> Any:
        for lex_id, data in self._rows():
            yield lex_id, _summary_from(lex_id, data)

    def values(self) -> Any:
        for lex_id, data in self._rows():
            yield _summary_from(lex_id, data)

    def marks(self) -> ListedLexIds:
        """An empty set of this mapping's lex ids (a byte per version: :class:`ListedLexIds`)."""
        return ListedLexIds(self)


class ListedLexIds:
    """A set of lex ids of one :class:`SpilledSummaries` (those an enumeration lists, for the
    withdrawals), held as a byte per version at the lex id's place, not as the strings (ADR 0133)."""

    __slots__ = ("_marks", "_summaries")

    def __init__(self, summaries: SpilledSummaries) -> None:
        self._summaries, self._marks = summaries, bytearray(len(summaries) + 1)

    def add(self, lex_id: str) -> None:
        """Mark ``lex_id``, which must be one of the mapping's (``KeyError`` otherwise)."""
        pos = self._summaries.position(lex_id)
        if pos is None:
            raise KeyError(lex_id)
        self._marks[pos] = 1

    def __contains__(self, lex_id: object) -> bool:
        pos = self._summaries.position(lex_id) if isinstance(lex_id, str) else None
        return pos is not None and self._marks[pos] == 1

    def __len__(self) -> int:
        return self._marks.count(1)


def listed_lex_ids(summaries: Mapping[str, VersionSummary]) -> ListedLexIds | set[str]:
    """An empty set for lex ids of ``summaries``: a :class:`ListedLexIds` for a :class:`SpilledSummaries`
    (a byte per version), else a ``set``."""
    return summaries.marks() if isinstance(summaries, SpilledSummaries) else set()


def work_relpath(slug: str) -> str:
    return f"{WORKS}/{WorkSlug(slug).value}/{RECORD_FILE}"


def version_relpath(slug: str, key: VersionKey | str) -> str:
    return f"{WORKS}/{WorkSlug(slug).value}/{VERSIONS}/{key}/{RECORD_FILE}"


def resolve_evidence_dir(root: Path, evidence_dir: str | os.PathLike[str] | None) -> Path:
    if evidence_dir is not None:
        return Path(evidence_dir)
    env = os.environ.get(ENV_EVIDENCE_DIR)
    return Path(env) if env else root / EVIDENCE


class CorpusTree:
    """A ``lex-tree/1`` corpus tree on disk. Use :meth:`open` or :meth:`create`."""

    def __init__(self, root: Path, evidence: EvidenceStore) -> None:
        self.root = root
        self.evidence = evidence
        # relative path -> (file state, record, hash checked); only inside ``caching()``
        self._records: dict[str, tuple[tuple[int, ...], VersionRecord, bool]] | None = None
        # per relative path its file state (packed by _STATE), lex id, publisher and summary, on disk
        # (ADR 0133); only inside ``caching()``
        self._summaries: _SummaryStore | None = None
        self._share: Shared | None = None
        # publisher -> (digest of the other versions' paths and file states, their manifest fold);
        # only inside ``caching()``
        self._others: dict[Publisher, tuple[bytes, ManifestFold | SpilledManifest]] | None = None
        # publisher -> (digest of every version's path and file state, the summaries the scan that made
        # it returned); only inside ``caching()`` (ADR 0137)
        self._scans: dict[Publisher, tuple[bytes, SpilledSummaries]] | None = None
        # the folds' rows, on disk (made at the first fold; only inside ``caching()``, ADR 0121)
        self._folds: Spill | None = None

    def __repr__(self) -> str:
        return f"CorpusTree({str(self.root)!r})"

    # -- opening -----------------------------------------------------------------------------

    @classmethod
    def create(cls, path: str | os.PathLike[str], *, evidence_dir: str | os.PathLike[str] | None = None,
               exist_ok: bool = False) -> CorpusTree:
        """Create an empty tree at ``path`` (an empty or missing directory).

        The tree is built in a private sibling directory and renamed into place in one step, so
        a reader never sees a half-made tree and, of several processes creating the same tree at
        once, exactly one wins; the others get ``tree_created_concurrently`` (or, with
        ``exist_ok``, open the winner's tree). Running out of space is ``disk_full``.
        """
        root = Path(path)
        if (root / MANIFEST).exists():
            if exist_ok:
                return cls.open(root, evidence_dir=evidence_dir)
            raise CorpusError("a corpus tree already exists here", code="tree_exists", subject=str(root))
        if root.exists() and any(root.iterdir()):
            if (root / MANIFEST).exists():  # made by a concurrent creator since the first look
                if exist_ok:
                    return cls.open(root, evidence_dir=evidence_dir)
                raise CorpusError("another process created a corpus tree here at the same time",
                                  code="tree_created_concurrently", subject=str(root))
            raise CorpusError("refusing to create a tree in a non-empty directory", code="not_empty",
                              subject=str(root))
        with enospc_as_disk_full(str(root)):
            root.parent.mkdir(parents=True, exist_ok=True)
            building = root.parent / f".{root.name}.creating-{uuid.uuid4().hex}"
            try:
                building.mkdir()
                (building / WORKS).mkdir()
                (building / txn.LOCK).touch()
                (building / MANIFEST).write_bytes(render(empty_manifest()))
                try:
                    os.rename(building, root)  # replaces a missing or empty directory, atomically
                except OSError as exc:
                    if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST, errno.EISDIR, errno.ENOTDIR):
                        raise
                    if exist_ok and (root / MANIFEST).exists():
                        return cls.open(root, evidence_dir=evidence_dir)
                    code = "tree_created_concurrently" if (root / MANIFEST).exists() else "not_empty"
                    raise CorpusError("another process created a corpus tree here at the same time"
                                      if code == "tree_created_concurrently" else
                                      "refusing to create a tree in a non-empty directory", code=code,
                                      subject=str(root)) from None
            finally:
                shutil.rmtree(building, ignore_errors=True)
            evidence = EvidenceStore(resolve_evidence_dir(root, evidence_dir))
            evidence.ensure()
        return cls(root, evidence)

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, evidence_dir: str | os.PathLike[str] | None = None,
             recover: bool = True) -> CorpusTree:
        """Open an existing tree, first finishing or undoing an interrupted commit."""
        root = Path(path)
        if not (root / MANIFEST).is_file():
            raise CorpusError("not a corpus tree (no manifest.json)", code="not_a_tree", subject=str(root))
        evidence = EvidenceStore(resolve_evidence_dir(root, evidence_dir))
        if recover:
            txn.recover(root, evidence)
        tree = cls(root, evidence)
        schema = tree.manifest().get("schema")
        if schema != SCHEMA:
            raise CorpusError(f"tree schema {schema!r} is not {SCHEMA!r}", code="unknown_schema",
                              subject=str(root / MANIFEST))
        return tree

    @classmethod
    def open_or_create(cls, path: str | os.PathLike[str], *,
                       evidence_dir: str | os.PathLike[str] | None = None) -> CorpusTree:
        root = Path(path)
        if (root / MANIFEST).exists():
            return cls.open(root, evidence_dir=evidence_dir)
        return cls.create(root, evidence_dir=evidence_dir, exist_ok=True)

    def lock(self) -> AbstractContextManager[None]:
        """Exclusive write lock (held by the writer and the importer)."""
        return txn.tree_lock(self.root)

    @contextlib.contextmanager
    def caching(self) -> Iterator[CorpusTree]:
        """Within the block, parse each version record file (and check its hash) at most once
        per file state (inode, size, mtime, ctime); nested blocks share the outer cache."""
        if self._records is not None:
            yield self
            return
        self._records, self._share, self._others, self._scans = {}, Shared(), {}, {}
        try:
            self._summaries = _SummaryStore()
        except sqlite3.Error as exc:
            raise _spill_error(exc) from exc
        try:
            yield self
        finally:
            self._summaries.close()
            if self._folds is not None:
                self._folds.close()
            self._records = self._summaries = self._share = self._others = self._scans = self._folds = None

    def parsed_records(self) -> dict[str, tuple[tuple[int, ...], VersionRecord, bool]]:
        """What the active :meth:`caching` block parsed: ``{record path: (file state, record,
        hash checked)}`` (a copy; empty outside a block)."""
        return dict(self._records or {})

    # -- paths -------------------------------------------------------------------------------

    def path(self, rel: str) -> Path:
        return self.root / rel

    def work_dir(self, slug: str) -> Path:
        return self.root / WORKS / WorkSlug(slug).value

    def version_dir(self, slug: str, key: VersionKey | str) -> Path:
        return self.work_dir(slug) / VERSIONS / str(key)

    # -- reading -----------------------------------------------------------------------------

    def manifest(self) -> dict[str, Any]:
        path = self.root / MANIFEST
        return parse_record_bytes(path.read_bytes(), str(path))

    def slugs(self) -> list[str]:
        """Work directory names, sorted (not validated; see :func:`corpus_tree.verify.verify_tree`)."""
        return _subdirectories(os.path.join(self.root, WORKS))

    def has_work(self, slug: str) -> bool:
        return (self.work_dir(slug) / RECORD_FILE).is_file()

    def work(self, slug: str) -> WorkRecord:
        path = self.work_dir(slug) / RECORD_FILE
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise CorpusError("unknown work", code="unknown_work", subject=slug) from None
        return load_work(data, self._rel(path))

    def works(self) -> Iterator[WorkRecord]:
        """Every work record, in slug order."""
        for slug in self.slugs():
            path = os.path.join(self.work_dir(slug), RECORD_FILE)  # work_dir validates the slug
            if os.path.isfile(path):
                with open(path, "rb") as f:
                    data = f.read()
                yield load_work(data, f"{WORKS}/{slug}/{RECORD_FILE}")

    def version_keys(self, slug: str) -> list[str]:
        return _subdirectories(os.path.join(self.work_dir(slug), VERSIONS))

    def versions(self, slug: str, *, verify: bool = True) -> list[VersionRecord]:
        """Every version record of a work, in key order (date, then identifier hash).

        With ``verify`` (the default) each record's ``record_sha256`` is recomputed and a
        mismatch raises :class:`legal.errors.IntegrityError`.
        """
        base = os.path.join(self.work_dir(slug), VERSIONS)  # work_dir validates the slug
        out = []
        for key in _subdirectories(base):
            path = os.path.join(base, key, RECORD_FILE)
            if os.path.isfile(path):
                out.append(self._load_version(path, f"{WORKS}/{slug}/{VERSIONS}/{key}/{RECORD_FILE}", verify))
        return out

    def iter_versions(self, *, verify: bool = True) -> Iterator[VersionRecord]:
        """Every version record of the tree (work slug order, then key order)."""
        for slug in self.slugs():
            yield from self.versions(slug, verify=verify)

    def summary(self, record: VersionRecord) -> VersionSummary:
        """The :class:`VersionSummary` of ``record`` (inside :meth:`caching`, made of the values
        its other summaries share: :class:`corpus_tree.records.Shared`)."""
        return summary_of(record, self._share)

    def version_summaries(self) -> Iterator[VersionSummary]:
        """The :class:`VersionSummary` of every version record of the tree, in
        :meth:`iter_versions` order (each file parsed and shape-checked as ``iter_versions(verify=False)``
        does; hashes are not checked). Inside :meth:`caching` only the summary is kept (per file
        state), not the parsed record: a record parsed there already is summarised, not re-read."""
        for path, rel in self._version_files():
            yield self._summary(path, rel)

    def publisher_summaries(self, publisher: Publisher,
                            ) -> tuple[Mapping[str, VersionSummary], ManifestFold | SpilledManifest]:
        """The :class:`VersionSummary` of each version record of ``publisher`` (its record's
        ``publisher`` member), by lex id in :meth:`iter_versions` order, and the
        :class:`corpus_tree.manifest.ManifestFold` of every other version record: what an ingest of
        ``publisher`` reads of the tree. The other publishers' versions are folded as they are read,
        not kept (ADR 0048). Each file is parsed and shape-checked as :meth:`version_summaries` does.

        Inside :meth:`caching` the summaries are kept per file state, and so is the fold, with a
        digest of the paths and file states of the versions folded into it: a second call stats the
        files, and parses them again only if that digest differs (a file of another publisher
        changed, or one of ``publisher``'s is no longer the file its summary was made of). There the
        fold's rows are not held either: they are rows of the block's own private temporary database
        (a :class:`corpus_tree.import_spill.SpilledManifest`, ADR 0121; one full is ``disk_full``), and
        neither are the summaries: a call returns a :class:`SpilledSummaries`, a table of the
        block's database of summaries (ADR 0133) — the one an earlier call returned if every version
        file is in the state that call saw (the same files in the same states, so the same summaries:
        ADR 0137), else a new one. A record of another publisher under a lex id of ``publisher`` is ``identity_mismatch``."""
        others, summaries, scans = self._others, self._summaries, self._scans
        if others is not None and summaries is not None and scans is not None and publisher in others:
            if publisher in scans:
                walked, seen = scans[publisher]
                if _walk_digest(self._version_files()) == walked:  # no file moved since: the same summaries
                    return seen, others[publisher][1]
            view = summaries.view()
            states = hashlib.blake2b(digest_size=32)
            for path, rel in self._version_files():
                try:
                    st = os.stat(path)
                except FileNotFoundError:
                    continue
                packed = _STATE.pack(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
                if not view.add_cached(rel, packed, publisher):
                    states.update(b"%d:%s%s" % (len(rel), rel.encode(), packed))
            digest, folded = others[publisher]
            if states.digest() == digest:
                return view, folded
        own: dict[str, VersionSummary] = {}
        kept = None if summaries is None else summaries.view()
        fold: ManifestFold | SpilledManifest = ManifestFold()
        if others is not None:
            if self._folds is None:
                self._folds = Spill(FOLD_CACHE_KIB)
            fold = SpilledManifest(self._folds, unique=False)
        states = hashlib.blake2b(digest_size=32)
        walk = hashlib.blake2b(digest_size=32)  # every version file's path and state, as _walk_digest
        prefix = f"{publisher.value}:"
        first = summaries is not None and summaries.empty()  # the block's first scan: no file of it is kept yet
        for path, rel in self._version_files():
            summary, state, record, data = self._summary_or_record(path, rel, publisher, first)
            if state is not None:
                walk.update(b"%d:%s%s" % (len(rel), rel.encode(), state))
            if summary is not None and summary.publisher is publisher:
                if kept is not None:
                    kept.add(summary, data)  # in the block's database, not in memory
                else:
                    own[summary.lex_id] = summary
                continue
            other = summary if summary is not None else record
            assert other is not None
            if other.lex_id.startswith(prefix):
                raise IntegrityError(f"a record of {other.publisher.value} under a lex id of {publisher.value}",
                                     code="identity_mismatch", subject=rel)
            _add_version(fold, other)
            states.update(b"%d:%s%s" % (len(rel), rel.encode(), state or b""))
        if others is not None:
            others[publisher] = (states.digest(), fold)
        if kept is not None:
            if scans is not None:
                scans[publisher] = (walk.digest(), kept)
            return kept, fold
        return own, fold

    def _version_files(self) -> Iterator[tuple[str, str]]:
        """``(path, tree-relative path)`` of every version record file, in :meth:`iter_versions` order."""
        for slug in self.slugs():
            base = os.path.join(self.work_dir(slug), VERSIONS)  # work_dir validates the slug
            for key in _subdirectories(base):
                path = os.path.join(base, key, RECORD_FILE)
                if os.path.isfile(path):
                    yield path, f"{WORKS}/{slug}/{VERSIONS}/{key}/{RECORD_FILE}"

    def _summary_or_record(self, path: str, rel: str, publisher: Publisher | None = None, new: bool = False,
                           ) -> tuple[VersionSummary | None, bytes | None, VersionRecord | None, bytes | None]:
        """The summary of the record at ``path`` (kept while caching, per file state) if it is
        ``publisher``'s (any publisher's when ``None``) or already kept, else its parsed record (not
        kept); with the packed file state while caching. Inside :meth:`caching` a record parsed
        there already is summarised, not re-read."""
        summaries, records = self._summaries, self._records
        with open(path, "rb") as f:
            if summaries is None or records is None:
                record = load_version(f.read(), rel)
                if publisher is not None and record.publisher is not publisher:
                    return None, None, record, None
                return summary_of(record), None, None, None
            st = os.fstat(f.fileno())
            state = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
            packed = _STATE.pack(*state)
            hit = None if new else summaries.cached(rel, packed)
            if hit is not None:
                return hit, packed, None, None
            held = records.get(rel)
            record = held[1] if held is not None and held[0] == state else load_version(f.read(), rel)
        if publisher is not None and record.publisher is not publisher:
            return None, packed, record, None
        summary = summary_of(record)  # written to the block's database: no value to share with the others
        return summary, packed, None, summaries.put(rel, packed, summary)

    def read_version(self, rel: str) -> VersionRecord:
        """The version record at ``rel`` (a tree-relative path, as :attr:`VersionSummary.path`),
        parsed afresh and not kept by :meth:`caching`; its hash is not checked (see :meth:`checked`)."""
        with open(os.path.join(self.root, rel), "rb") as f:
            return load_version(f.read(), rel)

    def _summary(self, path: str, rel: str) -> VersionSummary:
        summary = self._summary_or_record(path, rel)[0]
        assert summary is not None  # any publisher's record is summarised
        return summary

    def version(self, lex_id: str | VersionId, *, verify: bool = True) -> VersionRecord:
        """The version record of a version lex id (``publisher:slug:key``)."""
        try:
            vid = lex_id if isinstance(lex_id, VersionId) else VersionId.parse(lex_id)
        except IdentityError as exc:
            raise CorpusError(exc.message, code=exc.code, subject=str(lex_id)) from None
        path = self.version_dir(vid.work.slug.value, vid.key) / RECORD_FILE
        if not path.is_file():
            raise CorpusError("unknown version", code="unknown_version", subject=str(vid))
        record = self._load_version(str(path), self._rel(path), verify)
        if record.lex_id != str(vid):
            raise CorpusError("record lex_id does not match its path", code="identity_mismatch",
                              subject=record.path)
        return record

    def _load_version(self, path: str, rel: str, verify: bool) -> VersionRecord:
        cache = self._records
        with open(path, "rb") as f:
            if cache is None:
                record = load_version(f.read(), rel)
                return require_hash(record) if verify else record
            st = os.fstat(f.fileno())
            state = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
            hit = cache.get(rel)
            if hit is not None and hit[0] == state:
                record, checked = hit[1], hit[2]
            else:
                record, checked = load_version(f.read(), rel), False
        if verify and not checked:
            require_hash(record)
            checked = True
        cache[rel] = (state, record, checked)
        return record

    def checked(self, record: VersionRecord) -> VersionRecord:
        """``record`` after checking its ``record_sha256`` (once per file state while caching)."""
        cache = self._records
        hit = None if cache is None or record.path is None else cache.get(record.path)
        if cache is None or hit is None or hit[1] is not record:
            return require_hash(record)
        if not hit[2]:
            require_hash(record)
            cache[str(record.path)] = (hit[0], record, True)
        return record

    def _rel(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)


#: the page cache of the caching block's database of folds, KiB (written a row at a time, read once in order)
FOLD_CACHE_KIB = 512


def _add_version(fold: ManifestFold | SpilledManifest, v: VersionRecord | VersionSummary) -> None:
    """``fold.add_version(v)``; a spilled fold that runs out of room is the typed ``disk_full``."""
    try:
        fold.add_version(v)
    except sqlite3.Error as exc:
        full = spill_full(exc, "the tree's temporary database of manifest rows")
        if full is None:
            raise
        raise full from exc


def _subdirectories(path: str) -> list[str]:
    """Names of the real (not symbolically linked) directories in ``path``, sorted; none if
    ``path`` is not a directory."""
    try:
        with os.scandir(path) as entries:
            return sorted(e.name for e in entries if e.is_dir(follow_symlinks=False))
    except (FileNotFoundError, NotADirectoryError):
        return []
