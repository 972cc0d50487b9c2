"""Mounted indexes: read-only connections with a per-call deadline and an in-memory catalogue.

An index is mounted only after the release verification of the server shell has checked its
bytes; mounting then re-checks the format and the stamp counters
(:func:`derive.index.read.check_mountable`) and refuses anything unfit.

Reads are concurrent: each mounted index keeps a small pool of read-only connections
(``mode=ro&immutable=1``, ``PRAGMA query_only=1``), opened on demand up to ``max_connections``
and lent to one session at a time; nothing serialises two calls on one index. Each connection
carries its own deadline and a SQLite progress handler that interrupts its statement once the
deadline passes, so a call past its deadline stops working and gives its connection back.
The deadline of a session is the earlier of its own and the call's (:func:`call_deadline`, set
by ``LegalCore.call``), and CPU-bound Python loops of an operation check it with
:func:`check_deadline`.
"""

from __future__ import annotations

import contextvars
import datetime as _dt
import json
import queue
import re
import sqlite3
import sys
import threading
import time
import weakref
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, TypeVar, cast

from derive.index.identifiers import celex_numbers
from derive.index.read import check_mountable, open_readonly
from legal.errors import IndexError_, LexError
from legal.ids import Publisher
from legal.outcomes import TimelineSemantics
from serve.core.topk import IndexConnection, RankedCache

_M = TypeVar("_M")

#: Virtual-machine instructions between two deadline checks.
PROGRESS_STEPS = 2000
#: Connections per mounted index: a call waits (within its deadline) for a free one beyond that.
#: Two CPUs gain nothing from more concurrent statements, and each connection holds its own cache.
MAX_CONNECTIONS = 4
#: Page cache of each pooled connection (KiB; SQLite's default is 2,000). The files are immutable:
#: the operating system's page cache holds them once for every connection and every worker process,
#: so a miss costs a copy from it, not a disk read (256 against 1,024 KiB: the same CPU over the
#: served mix, 1.5-2 MB less per process and more with several connections per index).
CACHE_KIB = 256
#: Prepared statements each pooled connection keeps; None: Python's ``sqlite3`` default (128). A
#: served worker bounds it (``serve.app.bound_worker_caches``): many of the core's statements are
#: one-off (an ``IN`` list of rowids), and the 128 a connection keeps over the served mix hold
#: 0.9 MB of SQLite memory on Legilux and 1.5 MB on EUR-Lex, 0.6 and 0.5 MB with 48.
STATEMENT_CACHE: int | None = None

#: The absolute (``time.monotonic``) deadline of the call running in this context.
_CALL_DEADLINE: contextvars.ContextVar[float] = contextvars.ContextVar("lex_call_deadline", default=float("inf"))


class DeadlineExceeded(LexError):
    """A query ran past its deadline (a transport outcome, never a legal one)."""

    family = "deadline"
    default_code = "deadline_exceeded"


@contextmanager
def call_deadline(seconds: float) -> Iterator[float]:
    """Bound everything the enclosed call does (sessions and :func:`check_deadline`) to ``seconds``."""
    deadline = min(_CALL_DEADLINE.get(), time.monotonic() + seconds)
    token = _CALL_DEADLINE.set(deadline)
    try:
        yield deadline
    finally:
        _CALL_DEADLINE.reset(token)


def check_deadline(subject: str | None = None) -> None:
    """Raise :class:`DeadlineExceeded` when the current call's deadline has passed."""
    if time.monotonic() > _CALL_DEADLINE.get():
        raise DeadlineExceeded("the call exceeded its deadline", subject=subject)


class _Interrupts:
    """How many statements the progress handlers of one index's connections interrupted."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0


class _Reader:
    """One pooled read-only connection and the deadline its progress handler enforces.

    Nothing here refers back to the index, and the connection's progress handler refers to the
    reader only weakly: an index, its readers and their connections form no reference cycle, so an
    unmounted index is freed by reference counting alone — also when a served worker has frozen its
    heap (``gc.freeze``), where a cycle would never be collected."""

    __slots__ = ("__weakref__", "conn", "deadline", "interrupts")

    def __init__(self, conn: sqlite3.Connection, index: MountedIndex) -> None:
        self.conn = conn
        self.deadline = float("inf")
        self.interrupts = index.interrupt_count
        if isinstance(conn, IndexConnection):
            conn.ranked_cache = index.ranked_cache
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
        conn.set_progress_handler(_progress_handler(weakref.ref(self)), PROGRESS_STEPS)

    def past_deadline(self) -> int:
        if time.monotonic() > self.deadline:
            self.interrupts.count += 1
            return 1
        return 0


def _progress_handler(reader: weakref.ref[_Reader]) -> Callable[[], int]:
    """The progress handler of ``reader``'s connection (which the reader holds: so the handler
    must not hold the reader)."""

    def handler() -> int:
        found = reader()
        return 0 if found is None else found.past_deadline()

    return handler


class _BoundedConnection(IndexConnection):
    """An index connection keeping at most :data:`STATEMENT_CACHE` prepared statements."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if STATEMENT_CACHE is not None:
            kwargs["cached_statements"] = STATEMENT_CACHE
        super().__init__(*args, **kwargs)


def _connect(path: Path) -> sqlite3.Connection:
    """A pooled read-only connection to ``path`` (:data:`STATEMENT_CACHE` statements kept when set),
    its page cache bounded to :data:`CACHE_KIB` from the start: the mount's checks count the rows of
    the large tables (:func:`derive.index.read.check_mountable`), which with SQLite's default 2 MB
    cache left ~2 MB of heap per index touched in every worker (a worker's adoption of the prebuilt
    set: 10 -> 15 MB private; shrinking the cache afterwards frees the pages into the heap, it does
    not give them back)."""
    conn = open_readonly(path, check_same_thread=False,
                         factory=IndexConnection if STATEMENT_CACHE is None else _BoundedConnection)
    conn.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
    return conn


class FileIdentity(NamedTuple):
    """Which file an index was built from: the same path replaced by another file differs."""

    device: int
    inode: int
    size: int
    modified_ns: int


def file_identity(path: Path) -> FileIdentity:
    found = path.stat()
    return FileIdentity(found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns)


class NameEntry(NamedTuple):
    """A held work a normalised name names, and the kind of that name (``work_names.kind``).

    The stored spelling and language stay in the index (:meth:`MountedIndex.catalogue_entries`
    reads them there): the in-memory catalogue keeps only what a lookup decides with."""

    work_rowid: int
    kind: str


#: Kinds of :class:`CatalogueEntry`, the public view of ``work_names``.
CATALOGUE_KINDS = ("identifier", "slug", "celex", "eli", "title", "short_title", "alias")
_PUBLIC_KIND = {"official_title": "title", "publisher_short_title": "short_title", "alias": "alias"}
#: A CELEX corrigendum slug: the corrected act's slug and ``r(NN)`` (``32016r0679r(02)``).
_CORRIGENDUM = re.compile(r"^(.+)r\(\d{2}\)$")


@dataclass(frozen=True)
class CatalogueEntry:
    """One stored name of a held work (``LegalCore.catalogue_entries``).

    ``kind``: ``identifier`` (the lex work id, a publisher URI that is no ELI), ``slug``,
    ``celex``, ``eli``, ``title`` (official titles), ``short_title`` (publisher short titles),
    ``alias`` (``legilux_same_as``). ``normalized`` is :func:`derive.index.text.normalize` of
    ``value``, the form every comparison uses.
    """

    work_id: str
    kind: str
    normalized: str
    value: str


@dataclass
class Catalogue:
    """Work names held in memory: normalised name → entries; slug ↔ rowid; act → corrigenda.

    Compact, as every worker process holds one per index: each name's entries are one tuple, and
    equal ``(work, kind)`` pairs, kinds and rowids are one object each (:func:`load_catalogue`)."""

    names: dict[str, tuple[NameEntry, ...]] = field(default_factory=dict)
    slug_of: dict[int, str] = field(default_factory=dict)
    rowid_of: dict[str, int] = field(default_factory=dict)
    longest_name_tokens: int = 1
    #: Held corrigenda of a held act (CELEX ``…R(NN)``), in slug order.
    corrigenda: dict[int, list[int]] = field(default_factory=dict)

    def public_kind(self, work_rowid: int, kind: str, value: str) -> str:
        """The :data:`CATALOGUE_KINDS` kind of a stored name (``work_names`` kind and value)."""
        if kind != "official_identifier":
            return _PUBLIC_KIND.get(kind, kind)
        if value == self.slug_of.get(work_rowid):
            return "slug"
        if "/eli/" in value.lower():
            return "eli"
        found = celex_numbers(value)
        if found and found[0][0] == 0 and found[0][1] == len(value):
            return "celex"
        return "identifier"


#: The stored names in catalogue order (:func:`load_catalogue`, :meth:`MountedIndex.catalogue_entries`).
#: The table is ordered by work (format 8), so this sorts it once, at mount.
NAMES_SQL = ("SELECT normalized, work_rowid, kind, value FROM work_names "
             "ORDER BY normalized, kind, work_rowid, value, language")


def load_catalogue(conn: sqlite3.Connection) -> Catalogue:
    catalogue = Catalogue()
    for rowid, slug in conn.execute("SELECT work_rowid, slug FROM works ORDER BY slug"):
        catalogue.slug_of[rowid] = slug
        catalogue.rowid_of[slug] = rowid
        corrected = _CORRIGENDUM.match(slug)
        if corrected and corrected.group(1) in catalogue.rowid_of:
            catalogue.corrigenda.setdefault(catalogue.rowid_of[corrected.group(1)], []).append(rowid)
    rowids = {rowid: rowid for rowid in catalogue.slug_of}  # one int object per work
    shared: dict[tuple[int, str], NameEntry] = {}
    names: dict[str, list[NameEntry]] = defaultdict(list)
    cursor = conn.cursor()
    cursor.row_factory = None
    for normalized, rowid, kind, _value in cursor.execute(NAMES_SQL):
        key = (rowid, kind)
        entry = shared.get(key)
        if entry is None:
            entry = shared[key] = NameEntry(rowids.setdefault(rowid, rowid), sys.intern(kind))
        names[normalized].append(entry)
    catalogue.names = {normalized: tuple(entries) for normalized, entries in names.items()}
    catalogue.longest_name_tokens = max([1, *(len(normalized.split()) for normalized in catalogue.names)])
    return catalogue


class MountedIndex:
    """One publisher's index, mounted read-only."""

    def __init__(self, path: Path, conn: sqlite3.Connection, stamp: dict[str, str], *,
                 max_connections: int = MAX_CONNECTIONS) -> None:
        self.name = path.name
        self.path = path
        self.publisher = Publisher.parse(stamp["publisher"])
        self.stamp = stamp
        self.semantics = TimelineSemantics.parse(stamp["timeline_semantics"])
        self.built_date = _dt.date.fromisoformat(stamp["built_at"][:10]).isoformat()
        self.text_public = stamp.get("text_public", "true") == "true"
        self.max_connections = max(1, max_connections)
        self.interrupt_count = _Interrupts()
        self._idle: queue.SimpleQueue[_Reader] = queue.SimpleQueue()
        self._opened: list[_Reader] = []
        self._open_lock = threading.Lock()
        self._closed = False
        self._memo: dict[str, object] = {}
        self._memo_lock = threading.Lock()
        self.ranked_cache = RankedCache()
        #: the file this index was mounted from (:meth:`reopen` adopts only the same file)
        self.identity = file_identity(path)
        first = _Reader(conn, self)
        self._opened.append(first)
        self.catalogue = load_catalogue(conn)
        self._idle.put(first)

    @classmethod
    def open(cls, path: Path, *, max_connections: int = MAX_CONNECTIONS) -> MountedIndex:
        conn = _connect(path)
        try:
            stamp = check_mountable(conn, path.name)
            return cls(path, conn, stamp, max_connections=max_connections)
        except BaseException:
            conn.close()
            raise

    def memo(self, name: str, load: Callable[[sqlite3.Connection], _M]) -> _M:
        """``load(conn)`` once per mounted index (an immutable file: the value never goes stale)."""
        found = self._memo.get(name)
        if found is None:
            with self._memo_lock:
                found = self._memo.get(name)
                if found is None:
                    with self.session(60.0) as conn:
                        found = self._memo[name] = load(conn)
        return cast(_M, found)

    @property
    def interrupts(self) -> int:
        """Statements interrupted by the progress handler at their deadline (observability)."""
        return self.interrupt_count.count

    @property
    def connections(self) -> int:
        """Connections opened so far (at most ``max_connections``)."""
        return len(self._opened)

    @property
    def idle_connections(self) -> int:
        """Connections not lent to a session right now."""
        return self._idle.qsize()

    def spellings(self, normalized: str, kind: str) -> list[str]:
        """The stored spellings of one normalised name of one kind (the compact catalogue keeps
        only the works and kinds; a rare question such as "is this short title written as plain
        words?" reads the index)."""
        works = sorted({entry.work_rowid for entry in self.catalogue.names.get(normalized, ()) if entry.kind == kind})
        if not works:
            return []
        with self.session(1.0) as conn:
            cursor = conn.cursor()
            cursor.row_factory = None
            # the table is ordered by work (format 8): one seek per work the catalogue names
            rows = cursor.execute(
                "SELECT value FROM work_names WHERE work_rowid IN (SELECT value FROM json_each(?)) AND kind = ? "
                "AND normalized = ? ORDER BY work_rowid, value, language", (json.dumps(works), kind, normalized)).fetchall()
        return [str(value) for (value,) in rows]

    def catalogue_entries(self) -> Iterator[CatalogueEntry]:
        """Every stored name of every held work (normalised name, kind, work order)."""
        publisher = self.publisher.value
        with self.session(60.0) as conn:
            cursor = conn.cursor()
            cursor.row_factory = None
            rows = cursor.execute(NAMES_SQL).fetchall()
        for normalized, rowid, kind, value in rows:
            slug = self.catalogue.slug_of.get(rowid)
            if slug is not None:
                yield CatalogueEntry(f"{publisher}:{slug}", self.catalogue.public_kind(rowid, kind, value), normalized,
                                     value)

    def _borrow(self, deadline: float) -> _Reader:
        if self._closed:
            raise IndexError_("the index is closed", code="index_closed", subject=self.publisher.value)
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            pass
        with self._open_lock:
            if self._closed:
                raise IndexError_("the index is closed", code="index_closed", subject=self.publisher.value)
            if len(self._opened) < self.max_connections:
                reader = _Reader(_connect(self.path), self)
                self._opened.append(reader)
                return reader
        try:
            return self._idle.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise DeadlineExceeded("no connection to the index was free before the deadline",
                                   subject=self.publisher.value) from None

    @contextmanager
    def session(self, seconds: float) -> Iterator[sqlite3.Connection]:
        """A pooled connection until the block ends; statements stop at the deadline.

        The deadline is ``seconds`` from now or the enclosing call's (:func:`call_deadline`),
        whichever comes first. A statement past it raises :class:`DeadlineExceeded`, naming the
        deadline that applied (the enclosing call's when it came first), and the
        connection goes back to the pool, free for the next caller.
        """
        started = time.monotonic()
        deadline = min(started + seconds, _CALL_DEADLINE.get())
        reader = self._borrow(deadline)
        reader.deadline = deadline
        token = _CALL_DEADLINE.set(deadline)
        try:
            yield reader.conn
        except sqlite3.OperationalError as exc:
            if "interrupt" in str(exc):
                raise DeadlineExceeded(f"query exceeded its {deadline - started:.3f} s deadline",
                                       subject=self.publisher.value) from None
            raise
        finally:
            _CALL_DEADLINE.reset(token)
            reader.deadline = float("inf")
            if reader.conn.in_transaction:  # never expected read-only; keep the pool clean anyway
                reader.conn.rollback()
            self._idle.put(reader)

    def warm(self) -> None:
        """Load now what the first calls of each kind would load (:func:`warm_index`)."""
        warm_index(self)

    def close(self) -> None:
        with self._open_lock:
            self._closed = True
            readers = list(self._opened)
        for reader in readers:
            reader.conn.close()

    def reopen(self) -> bool:
        """Open this closed index again, keeping what it built from its file (catalogue, warmed
        tables, caches), if the file is still the one it was built from (:attr:`identity`: device,
        inode, size, modification time) and fits with the same stamp; False (nothing opened) else.

        A served worker adopts this way the index its supervisor built and warmed before forking
        (``serve.app.prebuild_core``): the tables are then shared copy-on-write instead of built
        again in every worker. SQLite connections never cross the fork: the supervisor closed its
        own, this opens the worker's."""
        if not self._closed or file_identity(self.path) != self.identity:
            return False
        conn = _connect(self.path)
        try:
            if check_mountable(conn, self.path.name) != self.stamp or file_identity(self.path) != self.identity:
                conn.close()
                return False
        except BaseException:
            conn.close()
            raise
        with self._open_lock:
            self._idle = queue.SimpleQueue()
            first = _Reader(conn, self)
            self._opened = [first]
            self._closed = False
            self._idle.put(first)
        return True


def warm_index(index: MountedIndex) -> None:
    """Load the tables every process builds alike on the first call that needs them — the newest
    live version of each state (search), the work profiles and works by title subject (search's
    ranking, built together), every work's name words (search's title coverage), the validity
    periods (``in_force_on``, ``changes_in_period``, held packed: ADR 0178) and each work's place in
    slug order (``in_force_on``'s order): about 1 s of CPU over the two full indexes,
    which a served worker spends at mount, before it says it is ready, instead of in its first
    requests. Each is a function of the immutable index alone, loaded into the same place the
    calls read it from, so no answer changes.

    It also loads what a worker would otherwise build in its first searches and keep (issue #14,
    worker memory): every work's title subject words (search's title precision), the acts each
    title repeals (search's successors), the acts each EUR-Lex title names by number (search's dated
    amendment and title parent), the languages the index holds text in (search's plan),
    the cross-language lexicons and their dictionary tier (an English or German query), the everyday-word list
    (the any-word quorum, :mod:`derive.index.everyday`), the name words' document frequencies
    (search's title share weighed by rarity, :mod:`serve.core.titleidf`), the EuroVoc subject labels (search's
    off-subject relaxation, :mod:`serve.core.subjects`) and the act terms (:mod:`serve.core.actterms`, ≈ 3.6 MB
    over the two full indexes): under ``lex serve --workers N`` they are then built once before the workers fork (``serve.app.prebuild_core``) and shared
    copy-on-write, instead of ~3 MB built again in every worker. And the tables a worker would build
    by reading the whole catalogue or every profile (the spaceless names, the acronyms' initials, the
    untexted works' name words) and the synonyms' languages: read in a worker, they wrote to every page
    holding a name or a profile, which that worker then copied (ADR 0134)."""
    from derive.index import everyday, relax, xlang
    from serve.core import actterms, ranking, subjects, titleidf
    from serve.core.ops.inventory import slug_ranks_of
    from serve.core.ops.search import (
        citations,
        load_name_words,
        load_subject_words,
        untexted_word_works,
    )
    from serve.core.periods import load_periods
    from serve.core.resolve import name_initials
    from serve.core.searchplan import spaced_names, text_languages

    with index.session(60.0) as conn:
        index.ranked_cache.newest_versions(conn)
        ranking.profiles(conn, index)
        load_name_words(conn, index)
        load_subject_words(conn, index)
        titleidf.name_df(conn, index)
        subjects.labels_of(conn, index)
        actterms.terms_of(conn, index)
    index.memo("periods", load_periods)
    slug_ranks_of(index)
    index.memo("repealers", ranking.repealers)
    index.memo("name_initials", name_initials)
    citations(index)
    spaced_names(index)
    with index.session(60.0) as conn:
        untexted_word_works(conn, ranking.profiles(conn, index), index)
    relax.synonym_languages()
    text_languages(index)
    for language in xlang.SOURCES:
        xlang.lexicon(language)
        xlang.dictionary(language)
    everyday.is_everyday("")
