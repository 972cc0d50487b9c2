"""Integrity verification of a ``lex-tree/1`` tree: every problem at once, each with its path.

:func:`verify_tree` is read-only (it never recovers a journal; a leftover journal is itself a
problem). It checks:

- layout: no symbolic links anywhere, no unexpected entries, valid slugs and v4 keys, a
  ``meta.json`` in every work and version directory;
- records: strict JSON, the canonical on-disk rendering (any byte changed is caught), the
  record shape, ``record_sha256`` recomputed, identity (directory = version key =
  ``VersionKey.create(valid_from, publisher_version_identifier)``; ``lex_id`` =
  ``publisher:slug:key``; work directory = slug; work identifier and publisher agree),
  duplicate lex ids, repeated languages, safe observation file names;
- bodies: every referenced blob present (unless ``held_elsewhere``) and re-hashed in a
  stream, with its recorded size; with the store inside the tree, unreferenced blobs too;
- the store's layout: anything in the evidence staging area (``staging_orphan``: bytes left
  by a killed run, or a run in progress), any entry that is not ``sha256/<aa>/<bb>/<hex>``
  (``unexpected_entry``: stray files, leftover temporary files), and blobs that are writable
  (``writable_blob``: blobs are installed read-only);
- the manifest: recomputed from the records and compared member by member, with a per-work
  entry so that a missing or extra version directory is reported against its work.

``known`` (the pipeline's verification after a change): ``{record path: "size:mtime_ns:inode"}``
of the record files a previous pass found sound (:attr:`VerifyReport.record_stats` of that pass).
A record file whose three are still those is parsed and checked for shape, identity and contents
as any other, but its canonical rendering and ``record_sha256`` are not recomputed and its bodies
are checked for presence and size only, not re-hashed (blobs are immutable and content-addressed;
a body also referenced by a changed record is hashed). Everything else is checked in full, so a
one-work change costs its own records and bodies plus a parse of the rest — or not even that
for a known file the same process parsed already in its present state (``parsed``: the
pipeline's import parsed every record of the tree just before). ``fresh`` (the pipeline's
verification after an import): the bodies that import installed in the store, each hashed as its
bytes were written there; they are checked for presence and size, not hashed a second time (a
cold import would otherwise hash every body twice). ``lex corpus verify`` passes nothing: every
byte is read.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from stat import S_ISREG
from typing import Any

from corpus_tree import txn
from corpus_tree.evidence import STAGING_DIR, blob_relpath
from corpus_tree.manifest import build_manifest
from corpus_tree.records import (
    RECORD_FILE,
    SCHEMA,
    VersionRecord,
    WorkRecord,
    parse_canonical_record,
    parse_record_bytes,
    render_unchecked,
)
from corpus_tree.tree import EVIDENCE, MANIFEST, VERSIONS, WORKS, resolve_evidence_dir
from legal.canonical import hash_file
from legal.errors import LexError
from legal.fs import is_inside
from legal.ids import VersionKey, WorkSlug

Progress = Callable[[str, int, int], None]
TOP_LEVEL = frozenset({MANIFEST, WORKS, EVIDENCE, txn.LOCK})
_HEX2 = re.compile("[0-9a-f]{2}")
_SHA = re.compile("[0-9a-f]{64}")


@dataclass(frozen=True, order=True)
class Problem:
    """One integrity problem: where (path relative to the tree, or absolute outside it), what."""

    path: str
    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message} [{self.code}]"


@dataclass
class VerifyReport:
    root: str
    problems: list[Problem] = field(default_factory=list)
    works: int = 0
    versions: int = 0
    current_versions: int = 0
    expressions: int = 0
    observations: int = 0
    held_elsewhere: int = 0
    bodies_checked: int = 0
    bytes_hashed: int = 0
    #: ``{record path: "size:mtime_ns:inode"}`` of every record file read (taken before reading):
    #: what a later pass may take as ``known`` when this one found no problem
    record_stats: dict[str, str] = field(default_factory=dict, repr=False)
    #: record files taken as ``known`` (not re-rendered nor re-hashed)
    records_known: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k not in ("problems", "record_stats", "records_known")}
        out["ok"] = self.ok
        out["problems"] = [{"path": p.path, "code": p.code, "message": p.message} for p in self.problems]
        return out


def stat_key(path: Path) -> str:
    """``size:mtime_ns:inode`` of a file (what the quick check compares)."""
    st = path.stat()
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}"


#: record files parsed earlier in this process: ``{record path: (file state, record, hash checked)}``
#: with the file state ``(st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns)`` — what
#: :meth:`corpus_tree.CorpusTree.caching` holds (:meth:`corpus_tree.CorpusTree.parsed_records`)
Parsed = Mapping[str, tuple[tuple[int, ...], VersionRecord, bool]]


class _Checker:
    def __init__(self, root: Path, evidence_root: Path, progress: Progress | None,
                 known: Mapping[str, str] | None = None, parsed: Parsed | None = None,
                 fresh: Collection[str] = ()) -> None:
        self.root = root
        self._root = str(root)
        self._prefix = self._root if self._root.endswith("/") else f"{self._root}/"  # what :meth:`rel` strips
        self.known = known or {}
        self.parsed = parsed or {}
        self.trusted: set[str] = set()  # record paths taken as known in this pass
        self.hashed_refs: set[str] = set()  # blobs referenced by a record that is not known
        self.fresh = frozenset(fresh)  # blobs hashed as they were written, by this process's import
        self.evidence_root = evidence_root
        self.evidence_in_tree = is_inside(evidence_root, root)
        self.progress = progress
        self.report = VerifyReport(str(root))
        self.works: dict[str, WorkRecord] = {}
        self.versions: list[VersionRecord] = []
        self.lex_ids: dict[str, str] = {}
        self.refs: dict[str, list[tuple[str, str, int | None]]] = {}  # sha -> [(record, file, size)]
        self.version_dirs: dict[str, int] = {}  # work slug -> version dirs seen

    # -- helpers -------------------------------------------------------------------------------

    def problem(self, path: str, code: str, message: str) -> None:
        self.report.problems.append(Problem(path, code, message))

    def rel(self, path: Path) -> str:
        """``path`` relative to the root as a POSIX string (``path.relative_to(root).as_posix()``,
        by its string: paths under the root are built from it, so its string is a prefix); a path
        outside the root as it is."""
        text = str(path)
        if text == self._root:
            return "."
        if text.startswith(self._prefix):
            return text[len(self._prefix):]
        return text

    # -- layout ----------------------------------------------------------------------------------

    def check_layout(self) -> None:
        if not self.root.is_dir():
            self.problem(str(self.root), "not_a_tree", "tree directory does not exist")
            return
        for name in (txn.JOURNAL, txn.STAGING):
            if (self.root / name).exists():
                self.problem(name, "uncommitted_transaction",
                             "an interrupted commit is pending; open the tree to recover it")
        for entry in sorted(self.root.iterdir()):
            if entry.name not in TOP_LEVEL and entry.name not in (txn.JOURNAL, txn.STAGING):
                self.problem(entry.name, "unexpected_entry", "unexpected entry at the top of the tree")
        for link in _symlinks(self.root):
            self.problem(self.rel(Path(link)), "symlink", "symbolic links are not allowed in a tree")
        if not self.evidence_in_tree and self.evidence_root.is_dir():
            for link in _symlinks(self.evidence_root):
                self.problem(link, "symlink", "symbolic links are not allowed in the evidence store")

    def check_store_layout(self) -> None:
        """Staging leftovers, stray entries and writable blobs of the evidence store."""
        ev = self.evidence_root
        if not ev.is_dir():
            return
        staging = ev / STAGING_DIR
        if staging.is_dir():
            for entry in sorted(staging.iterdir()):
                if entry.name.endswith(".lock") and (staging / entry.name[: -len(".lock")]).exists():
                    continue  # reported with its run directory
                size = _size_under(entry)
                self.problem(self.rel(entry), "staging_orphan",
                             f"evidence staging entry ({size} bytes) left by an interrupted or running "
                             "write; `lex corpus repair` (or opening the tree) removes orphans")
        for entry in sorted(ev.iterdir()):
            if entry.name not in ("sha256", STAGING_DIR):
                self.problem(self.rel(entry), "unexpected_entry", "unexpected entry in the evidence store")
        base = ev / "sha256"
        if not base.is_dir():
            return
        for a in sorted(base.iterdir()):
            if not (a.is_dir() and _HEX2.fullmatch(a.name)):
                self.problem(self.rel(a), "unexpected_entry", "unexpected entry in the evidence store")
                continue
            for b in sorted(a.iterdir()):
                if not (b.is_dir() and _HEX2.fullmatch(b.name)):
                    self.problem(self.rel(b), "unexpected_entry", "unexpected entry in the evidence store")
                    continue
                with os.scandir(b) as entries:
                    found = sorted(entries, key=lambda e: e.name)
                for e in found:
                    if not (_SHA.fullmatch(e.name) and e.name[:2] == a.name and e.name[2:4] == b.name
                            and e.is_file(follow_symlinks=False)):
                        self.problem(self.rel(Path(e.path)), "unexpected_entry",
                                     "unexpected entry in the evidence store (not a blob named by its sha256)")
                    elif e.stat(follow_symlinks=False).st_mode & 0o222:
                        self.problem(self.rel(Path(e.path)), "writable_blob",
                                     "evidence blob is writable (blobs are installed read-only, 0444)")

    # -- records -------------------------------------------------------------------------------

    def read(self, path: Path) -> dict[str, Any] | None:
        rel = self.rel(path)
        if path.is_symlink():
            return None
        try:
            stat = stat_key(path)
            data = path.read_bytes()
        except FileNotFoundError:
            self.problem(rel, "missing_record", "record file is missing")
            return None
        self.report.record_stats[rel] = stat
        if self.known.get(rel) != stat:
            # the canonical rendering of its value (the usual case): parsed by the C parser; any
            # other bytes take the strict parser and the rendering check below, which name the fault
            canonical = parse_canonical_record(data)
            if canonical is not None:
                return canonical
        try:
            value = parse_record_bytes(data, rel)
        except LexError as exc:
            self.problem(rel, exc.code, exc.message)
            return None
        if self.known.get(rel) == stat:
            self.trusted.add(rel)
            self.report.records_known += 1
            return value
        try:
            rendered = render_unchecked(value)  # parse_record_bytes already refused floats
        except UnicodeEncodeError:
            self.problem(rel, "lone_surrogate", "record holds a lone surrogate (not canonical JSON)")
            return None
        if rendered != data:
            self.problem(rel, "non_canonical_rendering",
                         "record file is not the canonical rendering of its content (bytes changed)")
        return value

    def parsed_known(self, path: Path) -> VersionRecord | None:
        """The record of a known file (its stat that of the last sound pass) that this process
        already parsed from the file in its present state (device, inode, size, mtime and
        ctime all the same): the very bytes :meth:`read` would parse, so not parsed again."""
        rel = self.rel(path)
        hit = self.parsed.get(rel)
        if hit is None:
            return None
        try:
            st = path.lstat()
        except OSError:
            return None
        if not S_ISREG(st.st_mode) or hit[0] != (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns):
            return None
        key = f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}"
        if self.known.get(rel) != key:
            return None
        self.report.record_stats[rel] = key
        self.trusted.add(rel)
        self.report.records_known += 1
        return hit[1]

    def check_works(self) -> None:
        base = self.root / WORKS
        if not base.is_dir() or base.is_symlink():
            self.problem(WORKS, "missing_directory", "works/ directory is missing")
            return
        entries = sorted(base.iterdir())
        for i, wdir in enumerate(entries):
            self.check_work(wdir)
            if self.progress is not None:
                self.progress("records", i + 1, len(entries))

    def check_work(self, wdir: Path) -> None:
        rel = self.rel(wdir)
        if wdir.is_symlink():
            return
        if not wdir.is_dir():
            self.problem(rel, "unexpected_entry", "unexpected file in works/")
            return
        try:
            slug = WorkSlug(wdir.name).value
        except LexError as exc:
            self.problem(rel, "invalid_slug", exc.message)
            return
        for entry in sorted(wdir.iterdir()):
            if entry.name not in (RECORD_FILE, VERSIONS):
                self.problem(self.rel(entry), "unexpected_entry", "unexpected entry in a work directory")
        work = self.check_work_record(wdir / RECORD_FILE, slug)
        vbase = wdir / VERSIONS
        if not vbase.is_dir() or vbase.is_symlink():
            self.problem(self.rel(vbase), "missing_directory", "versions/ directory is missing")
            return
        dirs = sorted(vbase.iterdir())
        self.version_dirs[slug] = len(dirs)
        for vdir in dirs:
            self.check_version(vdir, slug, work)

    def check_work_record(self, path: Path, slug: str) -> WorkRecord | None:
        value = self.read(path)
        if value is None:
            return None
        rel = self.rel(path)
        try:
            work = WorkRecord.from_dict(value, rel)
        except LexError as exc:
            self.problem(rel, exc.code, exc.message)
            return None
        if work.slug != slug:
            self.problem(rel, "identity_mismatch", f"work slug {work.slug!r} differs from its directory {slug!r}")
        if work.lex_work_id != f"{work.publisher.value}:{slug}":
            self.problem(rel, "identity_mismatch", f"lex_work_id {work.lex_work_id!r} does not match the slug")
        self.works[slug] = work
        self.report.works += 1
        return work

    def check_version(self, vdir: Path, slug: str, work: WorkRecord | None) -> None:
        rel_dir = self.rel(vdir)
        if vdir.is_symlink():
            return
        if not vdir.is_dir():
            self.problem(rel_dir, "unexpected_entry", "unexpected file in versions/")
            return
        if not VersionKey.looks_like(vdir.name):
            self.problem(rel_dir, "invalid_version_key", "directory name is not a v4 version key")
        for entry in sorted(vdir.iterdir()):
            if entry.name != RECORD_FILE:
                self.problem(self.rel(entry), "unexpected_entry", "unexpected entry in a version directory")
        path = vdir / RECORD_FILE
        rel = self.rel(path)
        known_record = self.parsed_known(path)
        if known_record is not None:
            record = known_record
        else:
            value = self.read(path)
            if value is None:
                return
            try:
                record = VersionRecord.from_dict(value, rel)
            except LexError as exc:
                self.problem(rel, exc.code, exc.message)
                return
        try:
            hash_ok = rel in self.trusted or record.hash_ok()
        except LexError as exc:
            self.problem(rel, exc.code, exc.message)
            return
        if not hash_ok:
            self.problem(rel, "record_hash_mismatch",
                         f"record_sha256 {record.record_sha256} does not match the content "
                         f"({record.computed_sha256()})")
        self.check_identity(record, rel, rel_dir, vdir.name, slug, work)
        self.check_contents(record, rel)
        self.versions.append(record)

    def check_identity(self, record: VersionRecord, rel: str, rel_dir: str, dirname: str, slug: str,
                       work: WorkRecord | None) -> None:
        try:
            expected = str(record.expected_key())
        except LexError as exc:
            self.problem(rel, exc.code, exc.message)
            return
        if dirname != expected:
            self.problem(rel_dir, "identity_mismatch",
                         f"directory is not the version key {expected} of (valid_from, publisher_version_identifier)")
        want = f"{record.publisher.value}:{slug}:{expected}"
        if record.lex_id != want:
            self.problem(rel, "identity_mismatch", f"lex_id {record.lex_id!r} is not {want!r}")
        if record.lex_id in self.lex_ids:
            self.problem(rel, "duplicate_lex_id", f"lex_id also used by {self.lex_ids[record.lex_id]}")
        self.lex_ids[record.lex_id] = rel
        if work is not None:
            if record.publisher is not work.publisher:
                self.problem(rel, "identity_mismatch", "publisher differs from the work's")
            if record.work_identifier != work.work_identifier:
                self.problem(rel, "identity_mismatch", "work_identifier differs from the work's")

    def check_contents(self, record: VersionRecord, rel: str) -> None:
        r = self.report
        r.versions += 1
        r.current_versions += 0 if record.is_withdrawn else 1
        seen: set[str] = set()
        for expr in record.expressions:
            r.expressions += 1
            if expr.language in seen:
                self.problem(rel, "repeated_language", f"language {expr.language!r} appears twice")
            seen.add(expr.language)
            for obs in expr.observations:
                r.observations += 1
                if not _safe_file(obs.file):
                    self.problem(rel, "path_escape", f"observation file {obs.file!r} is not a safe relative name")
                if obs.held_elsewhere:
                    r.held_elsewhere += 1
                    continue
                self.refs.setdefault(obs.sha256, []).append((rel, f"{expr.language}:{obs.file}", obs.size))
                if rel not in self.trusted:
                    self.hashed_refs.add(obs.sha256)

    # -- bodies --------------------------------------------------------------------------------

    def blob_name(self, sha: str) -> str:
        return self.rel(self.evidence_root / blob_relpath(sha))

    def check_bodies(self) -> None:
        shas = sorted(self.refs)
        extra: list[str] = []
        if self.evidence_in_tree:
            extra = [s for s in _iter_store(self.evidence_root) if s not in self.refs]
        total = len(shas) + len(extra)
        for i, sha in enumerate([*shas, *extra]):
            self.check_blob(sha, self.refs.get(sha, []))
            if self.progress is not None:
                self.progress("bodies", i + 1, total)

    def check_blob(self, sha: str, refs: list[tuple[str, str, int | None]]) -> None:
        path = self.evidence_root / blob_relpath(sha)
        name = self.blob_name(sha)
        users = ", ".join(sorted({f"{r} ({f})" for r, f, _ in refs})) or "no record"
        if not path.is_file() or path.is_symlink():
            for rec, file, _ in refs:
                self.problem(rec, "missing_body", f"body {file} ({sha}) is not in the evidence store ({name})")
            return
        # referenced by known records only, or hashed as they were written just now: size, not bytes
        if refs and (sha not in self.hashed_refs or sha in self.fresh):
            size = path.stat().st_size
            for rec, file, want in refs:
                if want is not None and want != size:
                    self.problem(rec, "body_size_mismatch", f"body {file} is {size} bytes, record says {want}")
            return
        try:
            actual, size = hash_file(path)
        except OSError as exc:
            self.problem(name, "unreadable_body", f"cannot read body: {exc.strerror}")
            return
        self.report.bodies_checked += 1
        self.report.bytes_hashed += size
        if actual != sha:
            self.problem(name, "body_hash_mismatch", f"body bytes hash to {actual}; referenced by {users}")
            return
        for rec, file, want in refs:
            if want is not None and want != size:
                self.problem(rec, "body_size_mismatch", f"body {file} is {size} bytes, record says {want}")

    # -- manifest ------------------------------------------------------------------------------

    def check_manifest(self) -> None:
        value = self.read(self.root / MANIFEST)
        if value is None:
            return
        if value.get("schema") != SCHEMA:
            self.problem(MANIFEST, "unknown_schema", f"manifest schema {value.get('schema')!r} is not {SCHEMA!r}")
            return
        expected = build_manifest(self.works.values(), self.versions)
        for key in sorted(set(value) | set(expected)):
            if key == "works_index":
                continue
            for where, have, want in _diff(key, value.get(key), expected.get(key)):
                self.problem(MANIFEST, "manifest_mismatch", f"{where}: manifest {have!r}, tree {want!r}")
        self.check_works_index(value.get("works_index"), expected["works_index"])

    def check_works_index(self, have: Any, want: dict[str, Any]) -> None:
        if not isinstance(have, dict):
            self.problem(MANIFEST, "manifest_mismatch", "works_index is missing")
            return
        for wid in sorted(set(have) | set(want)):
            slug = wid.partition(":")[2]
            where = f"{WORKS}/{slug}" if slug else MANIFEST
            h, w = have.get(wid), want.get(wid)
            if h == w:
                continue
            if h is None:
                self.problem(where, "manifest_mismatch", "work is not listed in the manifest")
            elif w is None:
                self.problem(where, "manifest_mismatch", "work listed in the manifest is missing from the tree")
            elif isinstance(h, dict) and h.get("versions") != w["versions"]:
                self.problem(f"{where}/{VERSIONS}", "manifest_mismatch",
                             f"manifest lists {h.get('versions')} version records, tree has {w['versions']}")
            else:
                self.problem(f"{where}/{VERSIONS}", "manifest_mismatch",
                             "version records differ from those the manifest lists")


def _diff(where: str, have: Any, want: Any) -> Iterable[tuple[str, Any, Any]]:
    if isinstance(have, dict) and isinstance(want, dict):
        for key in sorted(set(have) | set(want)):
            yield from _diff(f"{where}.{key}", have.get(key), want.get(key))
    elif have != want:
        yield where, have, want


def _size_under(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def _symlinks(root: Path) -> list[str]:
    """Paths of the symbolic links under ``root`` (not followed), as ``os.walk`` would find
    them, from directory entries alone (no ``lstat`` per file); unreadable directories are
    skipped, as ``os.walk`` skips them."""
    found: list[str] = []
    pending = [str(root)]
    while pending:
        top = pending.pop()
        try:
            with os.scandir(top) as entries:
                for e in entries:
                    if e.is_symlink():
                        found.append(e.path)
                    elif e.is_dir(follow_symlinks=False):
                        pending.append(e.path)
        except OSError:
            continue
    return found


def _safe_file(name: str) -> bool:
    parts = name.split("/")
    return bool(name) and not name.startswith("/") and "\\" not in name and all(
        p not in ("", ".", "..") for p in parts)


def _iter_store(root: Path) -> list[str]:
    from corpus_tree.evidence import EvidenceStore

    return list(EvidenceStore(root).iter_hashes())


def verify_tree(path: str | os.PathLike[str], *, evidence_dir: str | os.PathLike[str] | None = None,
                progress: Progress | None = None, known: Mapping[str, str] | None = None,
                parsed: Parsed | None = None, fresh: Collection[str] = ()) -> VerifyReport:
    """Check everything about the tree at ``path``; never raises for a problem found. ``known``:
    record files a previous sound pass read, by their stat (see the module docstring).
    ``parsed``: version records this process parsed already (the import before it), taken
    instead of parsing again for a known file whose state is the one they were parsed in.
    ``fresh``: bodies this process's import installed, hashed as they were written (size checked only)."""
    root = Path(path)
    checker = _Checker(root, resolve_evidence_dir(root, evidence_dir), progress, known, parsed, fresh)
    checker.check_layout()
    checker.check_store_layout()
    if root.is_dir():
        checker.check_works()
        checker.check_bodies()
        checker.check_manifest()
    checker.report.problems.sort()
    return checker.report
