"""Import a published ``lex-corpus/3`` (Legilux) or ``lex-corpus/4`` (EUR-Lex) tree.

Recipe (see ``docs/corpus-tree.md``):

1. Read the source manifest; its ``schema`` must be ``lex-corpus/3`` or ``lex-corpus/4``.
2. Read every work record, then each version record in turn: strict UTF-8 and JSON, known
   members only, a valid slug equal to its directory, and each version record's
   ``record_sha256`` verified with the published recipe
   (:func:`legal.dotnet_json.published_record_sha256`). **Nothing in the tree is written before
   the whole source is read**: each version record, once converted (3–4), is rendered to the
   transaction's staging directory (:class:`corpus_tree.txn.Stage`) unless the tree holds it
   already, and only its :class:`corpus_tree.records.VersionSummary` is kept (for the manifest and
   the checks), not the parsed or converted record (ADR 0088). What is kept per work, per version
   and per body (the work records, the tree's and the source's summaries, the bodies to stage, the
   further files of listed hashes, the manifest's rows and, without a memo, the report's
   held-elsewhere list) is held on disk, in a private temporary SQLite database
   (:mod:`corpus_tree.import_spill`), not in memory; the manifest is rendered to a temporary file a
   work at a time (ADR 0093). So is the listing of the source's work directories, by name, and the
   plan of what to read of each (ADR 0106): without a memo, nothing is held in memory per work from the
   first read to the commit; the commit's staged names are spilled too and its journal is planned
   into an oplog (:mod:`corpus_tree.txn`, ADR 0100).
3. Establish each version's identity: the record's ``publisher_version_identifier``, or —
   for ``lex-corpus/3`` records, which lack it — the identifier recovered from the official
   URIs (Legilux: the expression ``source_uri`` without its trailing ``/<lang>``, host
   ``https://legilux.public.lu/`` rewritten to ``http://data.legilux.public.lu/``; EUR-Lex:
   ``http://publications.europa.eu/resource/celex/`` + ``raw.celex``). The v4 key is then
   ``VersionKey.create(valid_from, identifier)``; two records of one work with one
   identifier are refused. ``lex-corpus/4`` directory names must already equal that key.
4. Convert to ``lex-tree/1``: published events kept verbatim (nothing added),
   ``valid_to_convention`` set by publisher, ``provenance`` = the published
   ``{schema, lex_id, record_sha256}``; bodies present on disk get ``size``, bodies named
   but absent are ``held_elsewhere: true``.
5. Stage every present body into the evidence store, verifying its bytes against the
   observation ``sha256``, and commit records + manifest in one journaled transaction
   (:mod:`corpus_tree.txn`): all or nothing (any error, met after records were staged or not,
   removes the staging and leaves the tree as it was). The errors come in the order of a read of
   the whole source first: the source's own, then ``strict``'s, then a shared body's, then the
   tree's (a work or a version the tree holds differently; a refusal to replace a record is
   found as the record is read, and raised once the whole source is read). A body the store
   already holds under its address is not read again (``rehash=True`` / ``lex corpus import
   --rehash`` re-reads and re-verifies it; ``lex corpus verify`` re-hashes the whole store).

Bodies named by a record but absent from the source (published snapshots leave out large
files) are listed in the report (``held_elsewhere``: path and sha256) and become typed text
gaps downstream; ``strict=True`` (``--strict``) refuses such a source before anything is written.
Re-importing the same source changes nothing (no event, identical manifest).

**Works read at the last sound import** (``memo``, a :class:`SourceMemo`): a source work whose
directory holds exactly the files it held then (each file's relative path, type, size,
modification time and inode: :func:`work_fingerprint`) is not parsed or re-hashed again; what that
import took from it (its work record, its versions' keys, identifiers, sealed record hashes and
bodies) is replayed, provided the tree still holds those very records (else the work is read again). A changed, added
or touched file reads the whole work. Without a memo (``lex corpus import``) every record is read
and verified; ``lex corpus verify`` re-hashes the tree and the store.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import marshal
import os
import shutil
import sqlite3
import stat as _stat
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from corpus_tree import txn
from corpus_tree.import_spill import (
    HeldElsewhere,
    Spill,
    SpilledList,
    SpilledManifest,
    SpilledMap,
    SpilledNames,
    spill_full,
    summaries,
)
from corpus_tree.records import (
    RECORD_FILE,
    VersionRecord,
    VersionSummary,
    WorkRecord,
    build_work_record,
    parse_record_bytes,
    render,
    render_unchecked,
    seal,
    summary_of,
)
from corpus_tree.tree import MANIFEST, CorpusTree, version_relpath, work_relpath
from legal.canonical import hash_file
from legal.dotnet_json import published_record_sha256
from legal.errors import CorpusError, IdentityError, IntegrityError, LexError
from legal.identifiers import recover_eurlex_identifier, recover_legilux_identifier  # noqa: F401 - re-exported
from legal.ids import Publisher, VersionKey, WorkId, WorkSlug, parse_date
from legal.validity import convention_of

SOURCE_SCHEMAS = ("lex-corpus/3", "lex-corpus/4")

PUBLISHED_VERSION_MEMBERS = frozenset({
    "lex_id", "publisher_version_identifier", "work_identifier", "publisher", "document_type", "valid_from",
    "valid_to", "valid_time_source", "in_force_status", "publication_date", "events", "expressions",
    "relations", "raw", "publisher_metadata", "document_roles", "record_sha256",
})
PUBLISHED_WORK_MEMBERS = frozenset({
    "lex_work_id", "work_identifier", "publisher", "document_type", "slug", "title", "title_language",
    "source_uri",
})
PUBLISHED_EXPRESSION_MEMBERS = frozenset({
    "language", "valid_from", "valid_to", "valid_time_source", "title", "title_short", "source_uri",
    "observations", "text",
})
PUBLISHED_OBSERVATION_MEMBERS = frozenset({
    "file", "sha256", "source_uri", "retrieved_at", "observed_from", "format",
})

#: Progress callback ``(phase, done, total)``; phases: ``records``, ``bodies``, ``commit``.
Progress = Callable[[str, int, int], None]


@dataclass
class ImportReport:
    """What an import verified and wrote."""

    source: str
    schema: str
    publisher: str
    works: int = 0
    records_verified: int = 0
    records_written: int = 0
    records_unchanged: int = 0
    works_written: int = 0
    bodies_verified: int = 0
    bodies_added: int = 0
    bodies_held_elsewhere: int = 0
    bytes_hashed: int = 0
    bodies_not_reread: int = 0
    #: works (and their version records) taken from the memo of the last sound import, not read again
    works_not_reread: int = 0
    records_not_reread: int = 0
    manifest_changed: bool = False
    imported_at: str | None = None
    unreferenced_files: list[str] = field(default_factory=list)
    #: every body a record names whose bytes the source does not hold: ``{path, sha256}``, the path
    #: relative to the source root (they become ``held_elsewhere`` observations, typed text gaps)
    #: (without a memo, :class:`~corpus_tree.import_spill.HeldElsewhere`: a sequence held on disk)
    held_elsewhere: Sequence[dict[str, str]] = field(default_factory=list)
    #: the bodies this import installed in the evidence store, each hashed as its bytes were written
    #: there (not part of :meth:`to_dict`: a verification in the same process need not hash them again)
    bodies_staged: list[str] = field(default_factory=list)

    @property
    def errors(self) -> int:
        """Always 0 on return: any error aborts the import with a typed exception."""
        return 0

    def to_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k != "bodies_staged"}
        out["held_elsewhere"] = list(self.held_elsewhere)
        return out


#: what reading a version hands on: ``(tree-relative path, converted sealed record, its typed record)``
Sink = Callable[[str, dict[str, Any], VersionRecord], None]
#: per work, in order: its versions directory to read (``None``: it has none), or its memo entry to replay
Plan = Iterable[tuple[str, Path | dict[str, Any] | None]]

#: a work's mark in :class:`_WorkPlan`: no versions directory, its versions directory to read, its memo entry
_NO_VERSIONS, _VERSIONS, _REPLAY = 0, 1, 2


class _WorkPlan:
    """The :data:`Plan` of a source: its work directories by name, listed into a spill as its works
    directory is walked (:class:`~corpus_tree.import_spill.SpilledNames`, in the order of ``sorted``
    on the names: the order of ``sorted`` on their paths), each marked with what is to be read of it.
    Neither the listing nor the plan is held in memory (a versions directory's path is made again as
    its work is met), only the memo entries of the works to replay, which the memo holds anyway
    (ADR 0106)."""

    def __init__(self, works_dir: Path, spill: Spill) -> None:
        self.works_dir = works_dir
        self.names = SpilledNames(spill)
        with os.scandir(works_dir) as entries:
            for entry in entries:
                self.names.add(entry.name)
        #: name -> the memo entry of a work replayed (marked ``_REPLAY``)
        self.replayed: dict[str, dict[str, Any]] = {}

    def listed(self) -> Iterator[str]:
        """The work directories' names, in order."""
        for name, _mark in self.names:
            yield name

    def plan(self, name: str, item: Path | dict[str, Any] | None) -> None:
        """What is to be read of the work ``name``: ``item`` as in :data:`Plan`."""
        if isinstance(item, dict):
            self.replayed[name] = item
            self.names.mark(name, _REPLAY)
        else:
            self.names.mark(name, _NO_VERSIONS if item is None else _VERSIONS)

    def __iter__(self) -> Iterator[tuple[str, Path | dict[str, Any] | None]]:
        for name, mark in self.names:
            if mark == _REPLAY:
                yield name, self.replayed[name]
            elif mark == _VERSIONS:
                yield name, self.works_dir / name / "versions"
            elif mark == _NO_VERSIONS:
                yield name, None
            else:
                raise AssertionError(f"work {name!r} listed but not planned")


class SpilledBodies:
    """``(sha256, file)`` pairs held in a :class:`~corpus_tree.import_spill.Spill`, in the order appended."""

    def __init__(self, spill: Spill) -> None:
        self._rows: SpilledList[tuple[str, str]] = SpilledList(spill)

    def append(self, pair: tuple[str, Path]) -> None:
        self._rows.append((pair[0], os.fspath(pair[1])))

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[tuple[str, Path]]:
        for sha, path in self._rows:
            yield sha, Path(path)


def _spilled_blobs(spill: Spill) -> SpilledMap[txn.BlobSource]:
    """sha256 → the body file to stage (``BlobSource(path=file, label=str(file))``), in ``spill``."""
    return SpilledMap(spill, lambda b: marshal.dumps(os.fspath(b.path)),
                      lambda data: _blob_source(marshal.loads(data)))


def _blob_source(path: str) -> txn.BlobSource:
    return txn.BlobSource(path=Path(path), label=path)


def _spilled_works(spill: Spill) -> SpilledMap[dict[str, Any]]:
    return SpilledMap(spill)


class _HeldWorks:
    """slug → the :class:`WorkRecord` an import ends with (the tree's, then the source's), held in a spill."""

    def __init__(self, spill: Spill) -> None:
        self._records: SpilledMap[dict[str, Any]] = SpilledMap(spill)

    def get(self, slug: str) -> WorkRecord | None:
        data = self._records.get(slug)
        return None if data is None else WorkRecord.from_dict(data, work_relpath(slug))

    def __setitem__(self, slug: str, work: WorkRecord) -> None:
        self._records[slug] = dict(work.data)

    def values(self) -> Iterator[WorkRecord]:
        for slug, data in self._records.items():
            yield WorkRecord.from_dict(data, work_relpath(slug))


@dataclass
class PublishedSource:
    """Everything :func:`read_source` read and verified from a published tree (no writes).

    ``works``: slug → ``lex-tree/1`` work record; ``versions``: tree-relative record path →
    converted, sealed ``lex-tree/1`` version record; ``blobs``: sha256 → the body file to
    stage (``BlobSource.path``); ``extra_bodies``: further files with an already-listed
    sha256 (shared bodies), verified separately.
    """

    root: Path
    schema: str
    publisher: Publisher
    #: slug -> work record (:func:`import_published`: held in its spill, iterated in slug order)
    works: MutableMapping[str, dict[str, Any]] = field(default_factory=dict)
    versions: dict[str, dict[str, Any]] = field(default_factory=dict)  # rel path -> version record
    #: rel path -> the :class:`VersionRecord` typed from ``versions[rel]`` when it was read (kept, so
    #: that the commit does not type the same record again)
    typed: dict[str, VersionRecord] = field(default_factory=dict)
    #: sha256 -> the body to stage (:func:`import_published`: held in its spill, iterated in sha256 order)
    blobs: MutableMapping[str, txn.BlobSource] = field(default_factory=dict)
    #: ``(sha256, file)`` of each further file of an already-listed sha256
    extra_bodies: list[tuple[str, Path]] | SpilledBodies = field(default_factory=list)
    held_elsewhere: int = 0
    #: (:func:`import_published` without a memo: a :class:`~corpus_tree.import_spill.HeldElsewhere`, on disk)
    held_elsewhere_bodies: list[dict[str, str]] | HeldElsewhere = field(default_factory=list)
    unreferenced: list[str] = field(default_factory=list)
    #: slug → what this read took from each work (:class:`SourceMemo` entries)
    memo: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: versions replayed from the memo, not read: tree-relative path → (lex id, sealed record_sha256, slug)
    unread: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    #: works whose ``lex-tree/1`` work record was replayed from the memo, not read
    replayed_works: set[str] = field(default_factory=set)
    #: whether what each version read adds to ``memo`` is kept (``False``: no memo will be written)
    remember: bool = True
    #: version records read (and verified) from the source
    read: int = 0
    #: what :func:`import_published` has still to read: per work, its version directories or its memo entry
    #: (``None`` once read)
    plan: Plan | None = None
    #: :func:`import_published`'s ``strict``
    strict: bool = False
    #: version directories the plan lists (its progress' total)
    planned: int = 0


MEMO_SCHEMA = "lex-import-memo/1"


@dataclass
class SourceMemo:
    """What the last sound import of a source took from each of its works, keyed by the work's
    :func:`work_fingerprint`: ``works`` = ``{slug: {fingerprint, work, versions: [{rel, lex_id,
    record_sha256, pvid, bodies: [[sha256, path from the source root, present]]}]}}`` (``work``:
    the ``lex-tree/1`` work record converted from the work's ``meta.json``).
    :func:`import_published` reads it (a work whose fingerprint is unchanged is not read again)
    and, on success only, replaces ``works`` with what this import took."""

    schema: str = ""
    publisher: str = ""
    works: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_bytes(self) -> bytes:
        return json.dumps({"memo": MEMO_SCHEMA, "schema": self.schema, "publisher": self.publisher,
                           "works": self.works}, sort_keys=True, separators=(",", ":")).encode("utf-8")

    @classmethod
    def from_bytes(cls, data: bytes) -> SourceMemo:
        """The memo in ``data``; an unreadable one or of another memo schema is an empty memo (every
        work is then read)."""
        try:
            value = json.loads(data)
        except ValueError:
            return cls()
        if not isinstance(value, dict) or value.get("memo") != MEMO_SCHEMA or not isinstance(value.get("works"), dict):
            return cls()
        return cls(str(value.get("schema", "")), str(value.get("publisher", "")), dict(value["works"]))


def work_fingerprint(wdir: Path) -> str:
    """A digest of every entry under a source work directory: each directory's relative path, and
    each other entry's relative path, file type, size, modification time (ns) and inode (``lstat``:
    a symbolic link is seen as one). A rewritten, added, removed, renamed or touched file changes
    it; a copy made of hard links (new directories, the same files) does not."""
    lines: list[str] = []
    pending = [("", os.fspath(wdir))]
    while pending:
        prefix, directory = pending.pop()
        with os.scandir(directory) as entries:
            found = sorted((e.name, e) for e in entries)
        for name, entry in found:
            rel = prefix + name
            if entry.is_dir(follow_symlinks=False):  # its name: its entries are listed below it
                lines.append(f"{rel}/\n")
                pending.append((rel + "/", entry.path))
                continue
            st = entry.stat(follow_symlinks=False)
            lines.append(f"{rel}\0{_stat.S_IFMT(st.st_mode)}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}\n")
    return hashlib.sha256("".join(sorted(lines)).encode()).hexdigest()


# -- public entry point ------------------------------------------------------------------------


def import_published(
    src: str | os.PathLike[str], into: str | os.PathLike[str] | CorpusTree, now: _dt.datetime | None = None,
    progress: Progress | None = None, *, evidence_dir: str | os.PathLike[str] | None = None,
    durable: bool = True, strict: bool = False, rehash: bool = False, memo: SourceMemo | None = None,
) -> ImportReport:
    """Import the published corpus tree at ``src`` into the tree ``into`` (created if missing).

    Raises a :class:`legal.errors.LexError` naming the offending path on any bad input; the
    target tree is then left exactly as it was (and is not created). The report lists every
    body held elsewhere (named by a record, absent from the source); ``strict`` refuses the
    import if there is any. A body the evidence store already holds under its address is not
    read again unless ``rehash``. ``memo``: what the last sound import took from each source work
    (:class:`SourceMemo`); an unchanged work is not read again (never with ``rehash``); on success
    the memo holds what this import took, on failure it is left as it was.
    """
    # the manifest and every work record are read first (as before: their errors come first, and
    # a source refused here creates nothing); each version record is then read, converted and
    # staged as it is read, and only its summary is kept (ADR 0088)
    # what is kept per work, version and body is held in a private temporary SQLite database, not
    # in memory (ADR 0093); it is dropped, with its file, when the import ends
    with Spill() as spill:
        try:
            return _import_spilled(spill, src, into, now, progress, evidence_dir=evidence_dir, durable=durable,
                                   strict=strict, rehash=rehash, memo=memo)
        except sqlite3.Error as exc:
            full = spill_full(exc)
            if full is None:
                raise
            raise full from exc


def _import_spilled(
    spill: Spill, src: str | os.PathLike[str], into: str | os.PathLike[str] | CorpusTree, now: _dt.datetime | None,
    progress: Progress | None, *, evidence_dir: str | os.PathLike[str] | None, durable: bool, strict: bool,
    rehash: bool, memo: SourceMemo | None,
) -> ImportReport:
    source, plan = _open_source(Path(src), None if rehash else memo, listing=spill, spill=spill,
                                remember=memo is not None)
    source.plan, source.remember, source.strict = plan, memo is not None, strict
    report = ImportReport(
        str(src), source.schema, source.publisher.value,
        imported_at=None if now is None else now.astimezone(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        unreferenced_files=source.unreferenced, held_elsewhere=source.held_elsewhere_bodies,
    )
    if isinstance(into, CorpusTree):
        _import_into(into, source, report, progress, durable, rehash, spill)
    else:
        root = Path(into)
        existed = (root / MANIFEST).exists()
        created = _first_missing(root)
        tree = CorpusTree.open_or_create(root, evidence_dir=evidence_dir)
        try:
            _import_into(tree, source, report, progress, durable, rehash, spill)
        except BaseException:
            if not existed:
                _remove_created_tree(tree, created)
            raise
    report.works_not_reread = len({slug for _lex_id, _sha, slug in source.unread.values()})
    report.records_not_reread = len(source.unread)
    if memo is not None:
        memo.schema, memo.publisher, memo.works = source.schema, source.publisher.value, dict(source.memo)
    return report


def _first_missing(root: Path) -> Path | None:
    """The outermost directory of ``root`` (``root`` itself, or one of its parents) that does not
    exist yet: what a failed first import removes, so that it leaves no directory behind."""
    missing = None
    current = root.absolute()
    while not current.exists():
        missing = current
        if current.parent == current:
            break
        current = current.parent
    return missing


def _remove_created_tree(tree: CorpusTree, created: Path | None) -> None:
    """Undo :meth:`CorpusTree.create` after a failed first import (the tree was empty):
    ``created`` is the outermost directory it made (``None``: the tree's directory existed)."""
    shutil.rmtree(tree.root if created is None else created, ignore_errors=True)
    if created is None:
        tree.root.mkdir(parents=True, exist_ok=True)


def _verify_body(path: Path, sha: str) -> None:
    actual, _ = hash_file(path)
    if actual != sha:
        raise IntegrityError(f"body does not hash to its recorded sha256 {sha} (got {actual})",
                             code="body_hash_mismatch", subject=str(path))


# -- phase 1: read and verify the source (no writes) ----------------------------------------------


def read_source(root: Path, progress: Progress | None = None, memo: SourceMemo | None = None) -> PublishedSource:
    """Read and verify a published tree completely; raises on the first bad input. ``memo``: a work
    whose :func:`work_fingerprint` is the memo's is replayed from it (its versions in
    ``unread``), not read. Every converted record is kept (``versions``, ``typed``);
    :func:`import_published` keeps a summary of each instead (:func:`_read_versions`)."""
    with Spill() as listing:  # the work directories' listing and the plan only
        source, plan = _open_source(root, memo, listing=listing)

        def keep(rel: str, record: dict[str, Any], typed: VersionRecord) -> None:
            source.versions[rel] = record
            source.typed[rel] = typed

        _read_versions(source, plan, progress, keep)
    return source


def _open_source(root: Path, memo: SourceMemo | None, *, listing: Spill, spill: Spill | None = None,
                 remember: bool = True) -> tuple[PublishedSource, Plan]:
    """The source's manifest and every work record, read and checked (or replayed from ``memo``),
    and the plan of what to read of each work's versions (each work's versions directory: its
    entries are listed when its versions are read). ``listing``: the work directories' names and the
    plan are held there (:class:`_WorkPlan`, ADR 0106); ``spill``: the work records, the bodies to
    stage and the further files of listed hashes are held there (:func:`import_published`);
    ``remember``: keep what the memo will hold of each work read (``False``: no memo will be written)."""
    manifest_path = root / MANIFEST
    if not manifest_path.is_file():
        raise CorpusError("no manifest.json in the source tree", code="not_a_published_tree",
                          subject=str(manifest_path))
    manifest = parse_record_bytes(manifest_path.read_bytes(), str(manifest_path))
    schema = manifest.get("schema")
    if schema not in SOURCE_SCHEMAS:
        raise CorpusError(f"unknown source schema {schema!r} (expected one of {', '.join(SOURCE_SCHEMAS)})",
                          code="unknown_schema", subject=str(manifest_path))
    pub = manifest.get("publisher")
    pub_id = pub.get("id") if isinstance(pub, Mapping) else None
    try:
        publisher = Publisher.parse(str(pub_id))
    except IdentityError as exc:
        raise IdentityError(exc.message, code=exc.code, subject=str(manifest_path)) from None
    source = PublishedSource(root, str(schema), publisher)
    if spill is not None:
        source.works, source.blobs, source.extra_bodies = _spilled_works(spill), _spilled_blobs(spill), \
            SpilledBodies(spill)
        if not remember:  # with a memo, its body lists name each body by the list's very string (ADR 0086)
            source.held_elsewhere_bodies = HeldElsewhere()
    works_dir = root / "works"
    _require_real_dir(works_dir)
    plan = _WorkPlan(works_dir, listing)  # every name listed (into the spill) before any work is read
    usable = memo is not None and (memo.schema, memo.publisher) == (source.schema, source.publisher.value)
    known = memo.works if memo is not None and usable else {}
    for name in plan.listed():
        wdir = works_dir / name
        fingerprint = work_fingerprint(wdir) if memo is not None else ""
        entry = known.get(wdir.name)
        if memo is not None and isinstance(entry, dict) and entry.get("fingerprint") == fingerprint:
            slug = _replay_work_record(source, wdir, entry)
            plan.plan(wdir.name, entry)
            continue
        slug = _read_work(source, wdir)
        if remember:
            source.memo[slug] = {"fingerprint": fingerprint, "versions": [], "work": source.works[slug]}
        vbase = wdir / "versions"
        if vbase.exists():
            _require_real_dir(vbase)
            source.planned += sum(1 for _ in os.scandir(vbase))
        plan.plan(wdir.name, vbase if vbase.exists() else None)
    return source, plan


def _read_versions(source: PublishedSource, plan: Plan, progress: Progress | None, sink: Sink) -> None:
    """Read, verify and convert every version record of ``plan`` in order, each handed to ``sink``
    as it is read (or replay the memo entry of an unchanged work); raises on the first bad input."""
    total = source.planned
    done = 0
    for slug, item in plan:  # in work order, as a first read: the same blobs, gaps and report order
        # an identity is claimed within its work (the key holds the slug), so each work starts anew
        identities: dict[tuple[str, str], str] = {}
        if isinstance(item, dict):
            _replay_work(source, slug, item, identities)
            continue
        for vdir in sorted(item.iterdir()) if item is not None else []:
            entry = _read_version(source, slug, vdir, identities, sink)
            if source.remember:
                source.memo[slug]["versions"].append(entry)
            done += 1
            source.read += 1
            if progress is not None:
                progress("records", done, total)


def _replay_work_record(source: PublishedSource, wdir: Path, entry: dict[str, Any]) -> str:
    """The work record of an unchanged work (its files, ``meta.json`` among them, those of the
    memo's fingerprint): the ``lex-tree/1`` record the memo kept of it, typed again (cheap), not
    read, parsed and checked again; a memo entry without one (an older memo) reads the work.
    :func:`_import_into` reads a replayed work record again unless the tree holds it as it is."""
    work = entry.get("work")
    if not isinstance(work, dict):
        return _read_work(source, wdir)
    _require_real_dir(wdir)
    try:
        slug = WorkSlug(wdir.name).value
    except IdentityError as exc:
        raise CorpusError(exc.message, code="invalid_slug", subject=str(wdir)) from None
    if work.get("slug") != slug or work.get("publisher") != source.publisher.value:
        return _read_work(source, wdir)
    source.works[slug] = work
    source.replayed_works.add(slug)
    return slug


def _replay_work(source: PublishedSource, slug: str, entry: dict[str, Any],
                 identities: dict[tuple[str, str], str]) -> None:
    """What reading an unchanged work added to ``source`` (its bodies, held or not, and its
    versions' identities), from its memo entry; its versions go to ``unread``."""
    for version in entry["versions"]:
        _claim_identity(identities, slug, str(version["pvid"]),
                        source.root / "works" / slug / str(version["dir"]) / RECORD_FILE)
        for sha, rel, present in version["bodies"]:
            _add_body(source, str(sha), source.root / str(rel), bool(present), str(rel))
        source.unread[str(version["rel"])] = (str(version["lex_id"]), str(version["record_sha256"]), slug)
    source.memo[slug] = {**entry, "work": source.works[slug]}


def _claim_identity(identities: dict[tuple[str, str], str], slug: str, pvid: str, path: Path) -> None:
    """Record that ``path`` holds the work's publisher version ``pvid``; a second record of it is refused."""
    seen = identities.get((slug, pvid))
    if seen is not None:
        raise IntegrityError(f"duplicate publisher version identifier {pvid!r} (also in {seen})",
                             code="duplicate_version_identifier", subject=str(path))
    identities[(slug, pvid)] = str(path)


def _require_real_dir(path: Path) -> None:
    if path.is_symlink():
        raise CorpusError("symbolic links are not allowed in a source tree", code="symlink", subject=str(path))
    if not path.is_dir():
        raise CorpusError("expected a directory", code="missing_directory", subject=str(path))


def _read_json(path: Path) -> dict[str, Any]:
    if path.is_symlink():
        raise CorpusError("symbolic links are not allowed in a source tree", code="symlink", subject=str(path))
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise CorpusError("missing record", code="missing_record", subject=str(path)) from None
    return parse_record_bytes(data, str(path))


def _check_published_members(d: Mapping[str, Any], allowed: frozenset[str], what: str, path: Path) -> None:
    unknown = sorted(set(d) - allowed)
    if unknown:
        raise CorpusError(f"unknown {what} member(s): {', '.join(unknown)}", code="unknown_member",
                          subject=str(path))


def _read_work(source: PublishedSource, wdir: Path) -> str:
    _require_real_dir(wdir)
    try:
        slug = WorkSlug(wdir.name).value
    except IdentityError as exc:
        raise CorpusError(exc.message, code="invalid_slug", subject=str(wdir)) from None
    path = wdir / RECORD_FILE
    work = _read_json(path)
    _check_published_members(work, PUBLISHED_WORK_MEMBERS, "work", path)
    expected = str(WorkId(source.publisher, WorkSlug(slug)))
    for key, want in (("slug", slug), ("lex_work_id", expected), ("publisher", source.publisher.value)):
        if work.get(key) != want:
            raise CorpusError(f"work {key} {work.get(key)!r} does not match {want!r}", code="identity_mismatch",
                              subject=str(path))
    identifier = work.get("work_identifier")
    if not isinstance(identifier, str) or not identifier:
        raise CorpusError("work record has no work_identifier", code="invalid_record", subject=str(path))
    optional = {k: work.get(k) for k in ("document_type", "title", "title_language", "source_uri")}
    for key, value in optional.items():
        if value is not None and not isinstance(value, str):
            raise CorpusError(f"work member {key!r} must be a string", code="invalid_record", subject=str(path))
    record = build_work_record(source.publisher, slug, identifier, **optional)
    WorkRecord.from_dict(record, str(path))
    source.works[slug] = record
    return slug


def _read_version(source: PublishedSource, slug: str, vdir: Path,
                  identities: dict[tuple[str, str], str], sink: Sink) -> dict[str, Any]:
    """Read, verify and convert one version record; what the memo keeps of it."""
    _require_real_dir(vdir)
    path = vdir / RECORD_FILE
    published = _read_json(path)
    _check_published_members(published, PUBLISHED_VERSION_MEMBERS, "version", path)
    claimed = published.get("record_sha256")
    if not isinstance(claimed, str):
        raise IntegrityError("record has no record_sha256", code="record_hash_missing", subject=str(path))
    try:
        actual = published_record_sha256(published)
    except LexError as exc:
        raise CorpusError(exc.message, code=exc.code, subject=str(path)) from None
    if actual != claimed:
        raise IntegrityError(f"record_sha256 does not verify (claimed {claimed}, computed {actual})",
                             code="record_hash_mismatch", subject=str(path))
    work = source.works[slug]
    _check_version_identity(source, published, slug, vdir, work)
    pvid = _version_identifier(source, published, path)
    valid_from = parse_date(str(published["valid_from"]), what="valid_from")
    key = VersionKey.create(valid_from, pvid)
    if source.schema == "lex-corpus/4" and vdir.name != str(key):
        raise IntegrityError(f"directory is not the v4 key {key}", code="identity_mismatch", subject=str(vdir))
    _claim_identity(identities, slug, pvid, path)
    bodies: list[list[Any]] = []
    record = _convert(source, published, slug, key, pvid, vdir, path, bodies)
    typed = VersionRecord.from_dict(record, str(path))
    rel = version_relpath(slug, key)
    sink(rel, record, typed)
    return {"dir": vdir.relative_to(source.root / "works" / slug).as_posix(), "rel": rel,
            "lex_id": record["lex_id"], "record_sha256": record["record_sha256"], "pvid": pvid, "bodies": bodies}


def _check_version_identity(source: PublishedSource, published: Mapping[str, Any], slug: str, vdir: Path,
                            work: Mapping[str, Any]) -> None:
    path = vdir / RECORD_FILE
    want_id = f"{source.publisher.value}:{slug}:{vdir.name}"
    if published.get("lex_id") != want_id:
        raise IntegrityError(f"lex_id {published.get('lex_id')!r} does not match its path ({want_id})",
                             code="identity_mismatch", subject=str(path))
    if published.get("publisher") != source.publisher.value:
        raise IntegrityError("record publisher differs from the manifest's", code="identity_mismatch",
                             subject=str(path))
    if published.get("work_identifier") != work["work_identifier"]:
        raise IntegrityError("record work_identifier differs from its work's", code="identity_mismatch",
                             subject=str(path))
    valid_from = published.get("valid_from")
    if not isinstance(valid_from, str) or not vdir.name.startswith(valid_from):
        raise IntegrityError(f"directory {vdir.name} does not start with valid_from {valid_from!r}",
                             code="identity_mismatch", subject=str(path))


def _version_identifier(source: PublishedSource, published: Mapping[str, Any], path: Path) -> str:
    pvid = published.get("publisher_version_identifier")
    if isinstance(pvid, str) and pvid.strip():
        return pvid
    return source.publisher.facts.identifiers.recover_version_identifier(published, str(path))


def _convert(source: PublishedSource, published: Mapping[str, Any], slug: str, key: VersionKey, pvid: str,
             vdir: Path, path: Path, bodies: list[list[Any]]) -> dict[str, Any]:
    """The ``lex-tree/1`` record of a verified published record (events kept verbatim)."""
    lex_id = str(WorkId(source.publisher, WorkSlug(slug)).version(key))
    out: dict[str, Any] = {
        "schema": "lex-tree/1",
        "lex_id": lex_id,
        "publisher_version_identifier": pvid,
        "work_identifier": published["work_identifier"],
        "publisher": source.publisher.value,
    }
    for k in ("document_type", "valid_from", "valid_to"):
        if published.get(k) is not None:
            out[k] = published[k]
    out["valid_to_convention"] = convention_of(source.publisher).value
    for k in ("valid_time_source", "in_force_status", "publication_date"):
        if published.get(k) is not None:
            out[k] = published[k]
    out["events"] = published.get("events", [])
    expressions = published.get("expressions", [])
    if not isinstance(expressions, list):
        raise CorpusError("expressions must be a list", code="invalid_record", subject=str(path))
    out["expressions"] = [_convert_expression(source, e, vdir, path, bodies) for e in expressions]
    out["relations"] = published.get("relations", [])
    out["raw"] = published.get("raw", {})
    out["publisher_metadata"] = published.get("publisher_metadata", [])
    out["document_roles"] = published.get("document_roles", [])
    out["provenance"] = {"schema": source.schema, "lex_id": published["lex_id"],
                         "record_sha256": published["record_sha256"]}
    return seal(out)


def _convert_expression(source: PublishedSource, expr: Any, vdir: Path, path: Path,
                        bodies: list[list[Any]]) -> dict[str, Any]:
    if not isinstance(expr, Mapping):
        raise CorpusError("an expression must be an object", code="invalid_record", subject=str(path))
    _check_published_members(expr, PUBLISHED_EXPRESSION_MEMBERS, "expression", path)
    out = {k: v for k, v in expr.items() if k != "observations"}
    observations = expr.get("observations", [])
    if not isinstance(observations, list):
        raise CorpusError("observations must be a list", code="invalid_record", subject=str(path))
    out["observations"] = [_convert_observation(source, o, vdir, path, bodies) for o in observations]
    return out


def _convert_observation(source: PublishedSource, obs: Any, vdir: Path, path: Path,
                         bodies: list[list[Any]]) -> dict[str, Any]:
    if not isinstance(obs, Mapping):
        raise CorpusError("an observation must be an object", code="invalid_record", subject=str(path))
    _check_published_members(obs, PUBLISHED_OBSERVATION_MEMBERS, "observation", path)
    file = obs.get("file")
    sha = obs.get("sha256")
    if not isinstance(file, str) or not isinstance(sha, str):
        raise CorpusError("observation needs file and sha256", code="invalid_record", subject=str(path))
    body = _body_path(vdir, file, path)
    out = dict(obs)
    present = body.is_file()
    if present:
        out["size"] = body.stat().st_size
    else:
        out["held_elsewhere"] = True
    rel = body.relative_to(source.root).as_posix()  # one string for the memo and the held-elsewhere list
    _add_body(source, sha, body, present, rel)
    bodies.append([sha, rel, present])
    return out


def _add_body(source: PublishedSource, sha: str, body: Path, present: bool, rel: str) -> None:
    """A body an observation names: to stage (or to verify, a second file of a listed sha256), or
    held elsewhere (``rel``: its path from the source root, the very string the memo keeps)."""
    if present:
        if sha in source.blobs:
            source.extra_bodies.append((sha, body))
        else:
            source.blobs[sha] = txn.BlobSource(path=body, label=str(body))
    else:
        source.held_elsewhere += 1
        source.held_elsewhere_bodies.append({"path": rel, "sha256": sha})


def _body_path(vdir: Path, file: str, record_path: Path) -> Path:
    parts = file.split("/")
    if not file or file.startswith("/") or "\\" in file or any(p in ("", ".", "..") for p in parts):
        raise CorpusError(f"observation file {file!r} escapes its version directory", code="path_escape",
                          subject=str(record_path))
    current = vdir
    for part in parts:
        current = current / part
        if current.is_symlink():
            raise CorpusError("symbolic links are not allowed in a source tree", code="symlink",
                              subject=str(current))
    return current


# -- phase 2: stage and commit ---------------------------------------------------------------------


def _import_into(tree: CorpusTree, source: PublishedSource, report: ImportReport, progress: Progress | None,
                 durable: bool, rehash: bool, spill: Spill) -> None:
    """Read every version record of ``source.plan``, staging each that differs from the tree's as
    it is read and keeping its summary, then commit once (all or nothing: a failure removes the
    staging and leaves the tree as it was). The errors are raised in the order of a read of the
    whole source first: the source's own, then ``strict``'s, then the bodies' and the tree's."""
    # each record goes to the transaction's staging directory as it is read and converted (its
    # bytes are not held until the commit: ADR 0086); what is kept of it is its summary, not its
    # parsed or converted dict (ADR 0088). Still one all-or-nothing commit.
    with tree.lock(), txn.staged(tree.root, tree.evidence) as stage:
        stage.files = SpilledMap(spill)  # each file's staged name, in path order (ADR 0100)
        # Existing records are only compared by their claimed hash, never rewritten from, so
        # they are not re-hashed here (verify_tree reports a stale one); their summaries are kept.
        # What is kept of each (the tree's, then the source's) is held in ``spill`` (ADR 0093).
        final_versions = summaries(spill)
        for summary in tree.version_summaries():
            final_versions[summary.lex_id] = summary
        final_works = _HeldWorks(spill)
        for w in tree.works():
            final_works[w.slug] = w
        for slug, work in _in_key_order(source.works):  # a replayed one may be read again below
            existing = final_works.get(slug)
            if slug not in source.replayed_works and (existing is None or existing.to_dict() != work):
                stage.put(work_relpath(slug), render(work))  # checked against the tree's below
        #: the first refusal to replace a record of the tree, in path order (raised once the source is read)
        refused: list[tuple[str, LexError]] = []

        def stage_record(rel: str, record: dict[str, Any], typed: VersionRecord) -> None:
            existing_v = final_versions.get(typed.lex_id)
            if existing_v is not None and existing_v.record_sha256 == typed.record_sha256:
                report.records_unchanged += 1
                return
            if existing_v is not None:
                try:
                    _check_replaceable(tree.read_version(str(existing_v.path)), record, tree.path(rel))
                except LexError as exc:
                    if not refused or rel < refused[0][0]:
                        refused[:] = [(rel, exc)]
                    return
            stage.put(rel, render_unchecked(record))  # sealed: digest already validated it
            final_versions[typed.lex_id] = replace(summary_of(typed), path=rel)
            report.records_written += 1

        _read_versions(source, source.plan or (), progress, stage_record)
        source.plan = None
        if source.strict and source.held_elsewhere_bodies:
            first = source.held_elsewhere_bodies[0]
            raise CorpusError(
                f"{len(source.held_elsewhere_bodies)} bodies named by records are absent from the source "
                f"(first: {first['path']}, sha256 {first['sha256']}); strict import refuses bodies held elsewhere",
                code="bodies_held_elsewhere", subject=str(source.root / first["path"]))
        report.works, report.records_verified = len(source.works), source.read
        report.bodies_held_elsewhere = source.held_elsewhere
        # a second file with an already-listed sha256 is verified unless the store holds those bytes
        extra = extra_bytes = 0
        for sha, path in source.extra_bodies:
            if rehash or not tree.evidence.has(sha):
                _verify_body(path, sha)
                extra += 1
                extra_bytes += path.stat().st_size
        replayed = set(source.replayed_works)  # not staged above: staged here if the tree lacks them
        _reread_works(source, final_works)
        for slug, work in _in_key_order(source.works):
            rel = work_relpath(slug)
            existing = final_works.get(slug)
            if existing is not None:
                _check_same_work(existing, work, tree.path(rel))
            if existing is None or existing.to_dict() != work:
                if slug in replayed:
                    stage.put(rel, render(work))
                report.works_written += 1
            final_works[slug] = WorkRecord.from_dict(work, rel)
        _read_stale(tree, source, final_versions, stage_record)
        report.records_unchanged += len(source.unread)  # the tree holds them as they were imported
        if refused:
            raise refused[0][1]
        # the manifest is folded a version at a time into ``spill`` and rendered to an unnamed
        # temporary file, a work at a time (ADR 0093): build_manifest's bytes, never held whole
        fold = _fold_manifest(spill, final_works.values(), final_versions.values())
        with tempfile.TemporaryFile() as manifest_file:
            fold.write(manifest_file)
            manifest_file.seek(0)
            report.manifest_changed = stage.put_file(MANIFEST, manifest_file)
        stage.blobs = source.blobs
        result = stage.commit(durable=durable, progress=progress, rehash=rehash)
        not_reread = 0 if rehash else result.blobs_present_unread
        report.bodies_not_reread = not_reread + len(source.extra_bodies) - extra
        report.bodies_verified = len(source.blobs) + len(source.extra_bodies) - report.bodies_not_reread
        report.bodies_added = result.blobs_added
        report.bodies_staged = result.staged
        report.bytes_hashed = result.bytes_hashed + extra_bytes


def _fold_manifest(spill: Spill, works: Iterable[WorkRecord], versions: Iterable[VersionSummary]) -> SpilledManifest:
    """The manifest of exactly ``works`` and ``versions`` (:func:`corpus_tree.manifest.build_manifest`'s),
    folded into ``spill`` a record at a time."""
    fold = SpilledManifest(spill)
    for w in works:
        fold.add_work(w)
    for v in versions:
        fold.add_version(v)
    return fold


def _in_key_order(works: MutableMapping[str, dict[str, Any]]) -> Iterable[tuple[str, dict[str, Any]]]:
    """``works``' items by slug (a spilled map iterates in key order already)."""
    return works.items() if isinstance(works, SpilledMap) else sorted(works.items())


def _reread_works(source: PublishedSource, held: _HeldWorks) -> None:
    """A work record replayed from the memo is taken only when the tree holds it as it is (what the
    memo kept is then what the tree says; nothing is written); any other is read from the source
    after all, as a first read does, and its memo entry takes the record read."""
    for slug in sorted(source.replayed_works):
        existing = held.get(slug)
        if existing is not None and existing.to_dict() == source.works[slug]:
            continue
        _read_work(source, source.root / "works" / slug)
        source.memo[slug] = {**source.memo.get(slug, {}), "work": source.works[slug]}
    source.replayed_works.clear()


def _read_stale(tree: CorpusTree, source: PublishedSource, held: SpilledMap[VersionSummary],
                sink: Sink) -> None:
    """The replayed versions the tree holds as they were imported count as unchanged; a work with
    any other (the tree changed since) is read from the source after all, its records converted
    and verified as a first read does (its bodies, unchanged, were replayed already)."""
    stale = sorted({slug for lex_id, sha, slug in source.unread.values()
                    if (existing := held.get(lex_id)) is None or existing.record_sha256 != sha})
    for slug in stale:
        fresh = PublishedSource(source.root, source.schema, source.publisher, works={slug: source.works[slug]})
        vbase = source.root / "works" / slug / "versions"
        identities: dict[tuple[str, str], str] = {}
        for vdir in sorted(vbase.iterdir()) if vbase.exists() else []:
            _read_version(fresh, slug, vdir, identities, sink)
    source.unread = {rel: v for rel, v in source.unread.items() if v[2] not in stale}


def _check_same_work(existing: WorkRecord, work: Mapping[str, Any], path: Path) -> None:
    if existing.publisher.value != work["publisher"] or existing.work_identifier != work["work_identifier"]:
        raise IntegrityError("the tree holds a different work under this slug", code="identity_mismatch",
                             subject=str(path))


def _check_replaceable(existing: VersionRecord, record: Mapping[str, Any], path: Path) -> None:
    """A re-import may replace a record only by a later state of the same published record."""
    if existing.publisher_version_identifier != record["publisher_version_identifier"]:
        raise IntegrityError("existing record has a different publisher_version_identifier",
                             code="identity_mismatch", subject=str(path))
    old_events = [e.to_dict() for e in existing.events]
    if existing.provenance is None or record["events"][: len(old_events)] != old_events:
        raise CorpusError("the tree holds a different history for this version; refusing to replace it",
                          code="import_conflict", subject=str(path))
