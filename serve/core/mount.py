"""Mounted indexes: read-only connections with a per-call deadline and an in-memory catalogue.

An index is mounted only after the release verification of the server shell has checked its
bytes; mounting then re-checks the format and the stamp counters
(:func:`derive.index.read.check_mountable`) and refuses anything unfit. Each mounted index
holds one connection (``mode=ro&immutable=1``, ``PRAGMA query_only=1``) guarded by a lock, and
a SQLite progress handler that aborts any statement running past the current call's deadline.
"""

from __future__ import annotations

import datetime as _dt
import re
import sqlite3
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from derive.index.identifiers import celex_numbers
from derive.index.read import check_mountable, open_readonly
from legal.errors import LexError
from legal.ids import Publisher
from legal.outcomes import TimelineSemantics

#: Virtual-machine instructions between two deadline checks.
PROGRESS_STEPS = 2000


class DeadlineExceeded(LexError):
    """A query ran past its deadline (a transport outcome, never a legal one)."""

    family = "deadline"
    default_code = "deadline_exceeded"


@dataclass(frozen=True)
class NameEntry:
    work_rowid: int
    kind: str
    value: str
    language: str


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
    """Work names held in memory: normalised name → entries; slug ↔ rowid; act → corrigenda."""

    names: dict[str, list[NameEntry]] = field(default_factory=lambda: defaultdict(list))
    slug_of: dict[int, str] = field(default_factory=dict)
    rowid_of: dict[str, int] = field(default_factory=dict)
    longest_name_tokens: int = 1
    #: Held corrigenda of a held act (CELEX ``…R(NN)``), in slug order.
    corrigenda: dict[int, list[int]] = field(default_factory=dict)

    def public_kind(self, entry: NameEntry) -> str:
        """The :data:`CATALOGUE_KINDS` kind of a stored name."""
        if entry.kind != "official_identifier":
            return _PUBLIC_KIND.get(entry.kind, entry.kind)
        value = entry.value
        if value == self.slug_of.get(entry.work_rowid):
            return "slug"
        if "/eli/" in value.lower():
            return "eli"
        found = celex_numbers(value)
        if found and found[0][0] == 0 and found[0][1] == len(value):
            return "celex"
        return "identifier"


def load_catalogue(conn: sqlite3.Connection) -> Catalogue:
    catalogue = Catalogue()
    for rowid, slug in conn.execute("SELECT work_rowid, slug FROM works ORDER BY slug"):
        catalogue.slug_of[rowid] = slug
        catalogue.rowid_of[slug] = rowid
        corrected = _CORRIGENDUM.match(slug)
        if corrected and corrected.group(1) in catalogue.rowid_of:
            catalogue.corrigenda.setdefault(catalogue.rowid_of[corrected.group(1)], []).append(rowid)
    query = "SELECT normalized, work_rowid, kind, value, language FROM work_names ORDER BY normalized, kind, work_rowid"
    for normalized, rowid, kind, value, language in conn.execute(query):
        catalogue.names[normalized].append(NameEntry(rowid, kind, value, language))
        catalogue.longest_name_tokens = max(catalogue.longest_name_tokens, len(normalized.split()))
    return catalogue


class MountedIndex:
    """One publisher's index, mounted read-only."""

    def __init__(self, path: Path, conn: sqlite3.Connection, stamp: dict[str, str]) -> None:
        self.name = path.name
        self.publisher = Publisher.parse(stamp["publisher"])
        self.stamp = stamp
        self.semantics = TimelineSemantics.parse(stamp["timeline_semantics"])
        self.built_date = _dt.date.fromisoformat(stamp["built_at"][:10]).isoformat()
        self.text_public = stamp.get("text_public", "true") == "true"
        self._conn = conn
        self._lock = threading.Lock()
        self._deadline = float("inf")
        conn.row_factory = sqlite3.Row
        conn.set_progress_handler(self._past_deadline, PROGRESS_STEPS)
        self.catalogue = load_catalogue(conn)

    @classmethod
    def open(cls, path: Path) -> MountedIndex:
        conn = open_readonly(path, check_same_thread=False)
        try:
            stamp = check_mountable(conn, path.name)
            return cls(path, conn, stamp)
        except BaseException:
            conn.close()
            raise

    def catalogue_entries(self) -> Iterator[CatalogueEntry]:
        """Every stored name of every held work (normalised name, kind, work order)."""
        publisher = self.publisher.value
        for normalized, entries in self.catalogue.names.items():
            for entry in entries:
                slug = self.catalogue.slug_of.get(entry.work_rowid)
                if slug is not None:
                    yield CatalogueEntry(f"{publisher}:{slug}", self.catalogue.public_kind(entry), normalized,
                                         entry.value)

    def _past_deadline(self) -> int:
        return 1 if time.monotonic() > self._deadline else 0

    @contextmanager
    def session(self, seconds: float) -> Iterator[sqlite3.Connection]:
        """Exclusive use of the connection until the block ends or the deadline passes."""
        with self._lock:
            self._deadline = time.monotonic() + seconds
            try:
                yield self._conn
            except sqlite3.OperationalError as exc:
                if "interrupt" in str(exc):
                    raise DeadlineExceeded(f"query exceeded its {seconds:.3f} s deadline",
                                           subject=self.publisher.value) from None
                raise
            finally:
                self._deadline = float("inf")

    def close(self) -> None:
        with self._lock:
            self._conn.close()
