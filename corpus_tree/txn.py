"""All-or-nothing commits of a change set to a tree, with a journal for crash recovery.

A change set is (a) new or changed files of the tree (records, work records, the manifest)
and (b) evidence blobs to add, given as bytes or a path. A :class:`ChangeSet` holds the files'
bytes until :func:`commit`; a :class:`Stage` (:func:`staged`) writes each file to staging as
it is produced (:meth:`Stage.put`) and holds only its path, so a run that writes many records
does not hold their bytes. A commit:

1. **stages** every file under ``<tree>/.staging/<run>/files/`` and every new blob under
   ``<evidence>/.staging/<run>/`` (same filesystem as its final place), hashing each blob on
   the way; a blob that does not hash to its name aborts the run, and nothing outside the
   staging directories has been touched (a run that fails or is killed while it stages
   leaves the tree as it was: the same process removes its staging, the next :func:`recover`
   an orphan's);
2. plans the run's operations — every rename (in path order), the directories it will create
   (each before anything under it) and, for each file it replaces, the backup it will take — and
   writes them, as they are planned, one JSON object a line to the run's **oplog**
   ``<tree>/.staging/<run>/journal.ops``; after the durability barrier (which covers the staged
   files and the oplog) it writes the **journal** ``<tree>/.journal.json`` (fsynced: format
   ``lex-tree-journal/2``), which names the oplog, counts its lines and lists the new blobs;
3. moves the blobs into the store, keeps every file it will replace as a backup (a hard
   link to the current file, so nothing is copied), and ``os.replace``-s each staged file
   over its target, reading the oplog back (twice: directories and backups, then renames);
   durability barriers (one ``sync(2)`` each) come after staging and after the renames;
4. marks the journal ``committed`` and removes it with the staging directories.

If anything fails in step 3 the same process rolls back at once; if the process dies, the
next :func:`recover` (run by :meth:`corpus_tree.tree.CorpusTree.open`) finds the journal and
rolls back (or, if it says ``committed``, just cleans up). Rollback restores every backup,
removes every file and directory the run created, and — when the evidence store lives inside
the tree — the blobs it added, so the tree is byte-identical to before; each step can be done
again, so a rollback killed part-way (in the failing process or in a recovery) is finished by the
next :func:`recover`. Rollback reads the oplog last line first, so every file under a directory the
run created is put back or removed before the directory. (With a shared
evidence store outside the tree, blobs added by a rolled-back run are left in place: they
are content-addressed, verified and harmless, and another run may already rely on them.)

Nothing of the commit is held per file (ADR 0100, superseding ADR 0058's in-memory journal): the
stage's file map may be any mapping (the import hands a spilled one that iterates in path order;
a dict is sorted by its keys), the plan remembers only the current path's ancestor directories, and
the operations are on disk. A journal of the first format (``lex-tree-journal/1``: operations and
directories inline) left by an older run is still recovered as before. An oplog whose lines are not
those its journal counts (it is made durable before the journal names it, so something else changed
it) is refused before anything is undone (``journal_torn``); an oplog that is gone was removed by the
clean-up of a finished rollback (or of a commit that failed before it applied anything), so nothing
is left to undo.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import uuid
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from corpus_tree.evidence import (
    EvidenceStore,
    check_sha256,
    enospc_as_disk_full,
    hash_stream,
)
from legal.errors import CorpusError, IntegrityError
from legal.fs import fsync_dir, is_inside

JOURNAL = ".journal.json"
#: the journal's format; a journal of ``lex-tree-journal/1`` (operations inline) is still recovered
JOURNAL_SCHEMA = "lex-tree-journal/2"
#: the run's planned operations, one JSON object a line, under ``<tree>/.staging/<run>/`` (ADR 0100)
OPLOG = "journal.ops"
STAGING = ".staging"
LOCK = ".lock"

#: Progress callback: ``(phase, done, total)``.
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class BlobSource:
    """Bytes to add to the evidence store: in memory (``data``) or at ``path``.

    ``label`` names what the blob is for (a record path and file) in error messages. ``path`` may be
    a string (the writer's staged bodies: no :class:`pathlib.Path` held per body, issue #13).
    """

    data: bytes | None = None
    path: Path | str | None = None
    label: str = ""

    def open(self) -> Any:
        if self.data is not None:
            import io

            return io.BytesIO(self.data)
        if self.path is None:
            raise CorpusError("blob source has neither bytes nor a path", subject=self.label)
        return open(self.path, "rb", buffering=0)


@dataclass
class ChangeSet:
    """Files of the tree to write (relative POSIX path → bytes, held in memory) and blobs to add
    (see :class:`Stage` for the streamed form)."""

    files: dict[str, bytes] = field(default_factory=dict)
    blobs: dict[str, BlobSource] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.files or self.blobs)


@dataclass
class CommitReport:
    run_id: str
    files_written: int = 0
    blobs_added: int = 0
    blobs_present: int = 0
    blobs_present_unread: int = 0  # held already, so not read again (no ``rehash``)
    bytes_hashed: int = 0
    #: the blobs this commit installed, each hashed as its bytes were written to the store (sorted)
    staged: list[str] = field(default_factory=list)


# -- locking -----------------------------------------------------------------------------------


@contextlib.contextmanager
def tree_lock(root: Path, *, blocking: bool = True) -> Iterator[None]:
    """An exclusive advisory lock on ``<tree>/.lock`` for the duration of a write.

    With ``blocking=False`` a lock held by another process raises :class:`BlockingIOError`.
    """
    path = root / LOCK
    with open(path, "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


# -- helpers -----------------------------------------------------------------------------------


def _check_rel(rel: str) -> str:
    parts = rel.split("/")
    if not rel or rel.startswith("/") or "\\" in rel or any(p in ("", ".", "..") for p in parts):
        raise CorpusError(f"unsafe path in change set: {rel!r}", code="path_escape", subject=rel)
    if parts[0] in (STAGING, JOURNAL, LOCK):
        raise CorpusError(f"reserved path in change set: {rel!r}", code="path_escape", subject=rel)
    return rel


def _write_file(path: Path, data: bytes, fsync: bool = False) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        if fsync:
            os.fsync(f.fileno())


def _barrier(durable: bool) -> None:
    """Make everything written so far durable: one ``sync(2)`` instead of an fsync per file."""
    if durable:
        os.sync()


def _write_json_atomic(path: Path, tmp: Path, value: Any, durable: bool) -> None:
    """``value`` as indented, key-sorted JSON at ``path`` (via ``tmp``, then a rename).

    The text is streamed to the file as it is encoded (``json.dump``): the bytes are those of
    ``json.dumps(value, indent=1, sort_keys=True).encode()``, but the whole text (a journal
    names every file a run writes: about 2 MB at 16 replicas of the fixtures) is never held,
    nor its chunks and bytes at once (issue #13)."""
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        json.dump(value, f, indent=1, sort_keys=True)
        f.flush()
        if durable:
            os.fsync(f.fileno())
    os.replace(tmp, path)
    if durable:
        fsync_dir(path.parent)


def _rmtree(path: Path) -> None:
    if path.exists():
        shutil.rmtree(path, ignore_errors=True)


def _rmdir_if_empty(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.rmdir()


# -- staging -----------------------------------------------------------------------------------


def _stage_blob(evidence: EvidenceStore, sha: str, src: BlobSource, dest: Path,
                rehash: bool = False) -> tuple[bool, int]:
    """Verify ``src`` hashes to ``sha``; copy it to ``dest`` unless the store holds it already.

    A body the store already holds under its address is not read at all unless ``rehash``: the
    store's copy was verified when it was installed (``lex corpus verify`` re-hashes the store).
    Returns ``(staged, bytes hashed)``.
    """
    check_sha256(sha)
    present = evidence.has(sha)
    if present and not rehash:
        return False, 0
    try:
        stream = src.open()
    except OSError as exc:
        raise CorpusError(f"cannot read body: {exc.strerror}", code="body_unreadable", subject=src.label) from None
    with stream:
        if present:
            actual, size = hash_stream(stream)
        else:
            with open(dest, "wb") as sink:
                actual, size = hash_stream(stream, sink)
    if actual != sha:
        raise IntegrityError(f"body does not hash to its recorded sha256 {sha} (got {actual})",
                             code="body_hash_mismatch", subject=src.label or sha)
    return (not present), size


# -- commit ------------------------------------------------------------------------------------


def commit(
    root: Path, evidence: EvidenceStore, changes: ChangeSet, *, durable: bool = True,
    progress: Progress | None = None, rehash: bool = False,
) -> CommitReport:
    """Apply ``changes`` to the tree at ``root`` atomically (see the module docstring).

    The in-memory form of :class:`Stage`: every file is staged (in path order), then committed.
    Bodies the evidence store already holds are neither copied nor re-read unless ``rehash``.

    The caller must hold :func:`tree_lock`. Files whose current bytes already equal the new
    bytes are skipped; an empty effective change set writes nothing at all. A write that runs
    out of space is rolled back like any other failure and raised as ``disk_full``.
    """
    with staged(root, evidence) as stage:
        for rel, data in sorted(changes.files.items()):
            stage.put(rel, data)
        stage.blobs.update(changes.blobs)
        return stage.commit(durable=durable, progress=progress, rehash=rehash)


@contextlib.contextmanager
def staged(root: Path, evidence: EvidenceStore) -> Iterator[Stage]:
    """A :class:`Stage` of the tree at ``root`` for the duration of the block; whatever it
    staged and did not commit is removed on exit (the tree is then as it was)."""
    stage = Stage(root, evidence)
    try:
        yield stage
    finally:
        stage.close()


class Stage:
    """A change set streamed to disk: each file goes to ``<tree>/.staging/<run>/files/`` as
    it is :meth:`put`, so what the run holds is the path of each file, not its bytes.

    Nothing outside the staging directories is touched before :meth:`commit`, which stages the
    blobs and then journals, applies and cleans up exactly as :func:`commit` does (all or
    nothing; a killed run leaves a staging directory the next :func:`recover` removes). The
    staging directories are created by the first file that differs from the tree (or by the
    commit), so a run with nothing to write creates nothing. Use it through :func:`staged`;
    the caller must hold :func:`tree_lock` from the first :meth:`put` to the commit.
    """

    def __init__(self, root: Path, evidence: EvidenceStore) -> None:
        self.root = root
        self.evidence = evidence
        self.run_id = uuid.uuid4().hex
        #: relative POSIX path in the tree → name of its staged file under ``files/`` (any mapping: an
        #: import hands its spilled one, which iterates in path order, ADR 0100)
        self.files: MutableMapping[str, str] = {}
        #: sha256 → its bytes' source (any mapping: an import hands its spilled one, ADR 0093)
        self.blobs: MutableMapping[str, BlobSource] = {}
        self._count = 0
        self._open: contextlib.ExitStack | None = None

    @property
    def directory(self) -> Path:
        """``<tree>/.staging/<run>`` (it exists once something is staged)."""
        return self.root / STAGING / self.run_id

    def put(self, rel: str, data: bytes) -> bool:
        """Stage ``data`` as the new bytes of the tree's file ``rel``; ``False`` (nothing
        staged, and an earlier staging of ``rel`` dropped) if the tree holds these bytes already."""
        _check_rel(rel)
        with enospc_as_disk_full(str(self.root)):
            if not _differs(self.root / rel, data):
                name = self.files.pop(rel, None)
                if name is not None:
                    (self._files_dir() / name).unlink()
                return False
            name = self.files.get(rel)
            if name is None:
                name = str(self._count)
                self._count += 1
            _write_file(self._files_dir() / name, data)
        self.files[rel] = name
        return True

    def put_file(self, rel: str, src: BinaryIO) -> bool:
        """:meth:`put` of the bytes read from ``src`` (from its current position to its end),
        copied a chunk at a time: the bytes are never held whole (an import's manifest, ADR 0093)."""
        _check_rel(rel)
        with enospc_as_disk_full(str(self.root)):
            start = src.tell()
            if not _differs_stream(self.root / rel, src):
                name = self.files.pop(rel, None)
                if name is not None:
                    (self._files_dir() / name).unlink()
                return False
            src.seek(start)
            name = self.files.get(rel)
            if name is None:
                name = str(self._count)
                self._count += 1
            with open(self._files_dir() / name, "wb") as f:
                shutil.copyfileobj(src, f, _CHUNK)
        self.files[rel] = name
        return True

    def commit(self, *, durable: bool = True, progress: Progress | None = None,
               rehash: bool = False) -> CommitReport:
        """Stage the blobs and commit everything staged (see the module docstring)."""
        if not rehash and not self.files and all(self.evidence.has(check_sha256(sha)) for sha in self.blobs):
            n = len(self.blobs)  # nothing to write: no staging directory is even created
            return CommitReport(self.run_id, blobs_present=n, blobs_present_unread=n)
        with enospc_as_disk_full(str(self.root)):
            self._files_dir()
            return _commit(self.root, self.evidence, self.files, self.blobs, self.run_id, durable, progress,
                           rehash)

    def _files_dir(self) -> Path:
        files = self.directory / "files"
        if self._open is None:
            # The tree's own staging directory exists before anything is staged, so that recovery
            # knows this run (and its evidence staging) even if it is killed while staging.
            self.directory.mkdir(parents=True)
            stack = contextlib.ExitStack()
            self._open = stack
            stack.enter_context(self.evidence.staging_run(self.run_id))
            files.mkdir()
        return files

    def close(self) -> None:
        """Remove this run's staging directories unless a pending journal still needs them."""
        if self._open is None:
            return
        try:
            self._open.close()
        finally:
            self._open = None
            if not (self.root / JOURNAL).exists():  # a pending journal keeps its staging for recovery
                _rmtree(self.directory)
                _rmdir_if_empty(self.root / STAGING)


def _commit(root: Path, evidence: EvidenceStore, files: Mapping[str, str], blobs: Mapping[str, BlobSource],
            run_id: str, durable: bool, progress: Progress | None, rehash: bool) -> CommitReport:
    report = CommitReport(run_id)
    ev_staging = evidence.staging_root() / run_id
    try:
        new_blobs = _stage_blobs(evidence, blobs, ev_staging, report, progress, rehash)
        if not files and not new_blobs:
            _cleanup(root, evidence, run_id)
            return report
        journal = _plan(root, evidence, run_id, files, new_blobs)  # its operations written to the oplog
        _barrier(durable)  # the staged files and the oplog durable before the journal names them
        _write_json_atomic(root / JOURNAL, root / STAGING / run_id / "journal.tmp", journal, durable)
    except BaseException:
        _cleanup(root, evidence, run_id)
        raise
    try:
        _apply(root, evidence, journal, durable, progress)
        _write_json_atomic(root / JOURNAL, root / STAGING / run_id / "journal.tmp", {**journal, "state": "committed"},
                           durable)
    except BaseException:
        rollback(root, evidence, journal)
        raise
    _finish(root, evidence, run_id)
    report.files_written = journal["files"]
    report.blobs_added = len(new_blobs)
    report.staged = new_blobs
    return report


_CHUNK = 1 << 20


def _differs_stream(path: Path, src: BinaryIO) -> bool:
    """Whether the file at ``path`` (missing: it differs) holds other bytes than ``src`` from its
    position to its end; both read a chunk at a time."""
    try:
        current = open(path, "rb")  # noqa: SIM115 - closed below; only its opening may find it missing
    except FileNotFoundError:
        return True
    with current:
        while True:
            a, b = current.read(_CHUNK), src.read(_CHUNK)
            if a != b:
                return True
            if not a:
                return False


def _differs(path: Path, data: bytes) -> bool:
    try:
        return path.read_bytes() != data
    except FileNotFoundError:
        return True


def _stage_blobs(
    evidence: EvidenceStore, blobs: Mapping[str, BlobSource], ev_staging: Path,
    report: CommitReport, progress: Progress | None, rehash: bool = False,
) -> list[str]:
    new: list[str] = []
    total = len(blobs)
    for i, (sha, src) in enumerate(_in_key_order(blobs)):
        staged, size = _stage_blob(evidence, sha, src, ev_staging / sha, rehash)
        report.bytes_hashed += size
        if staged:
            new.append(sha)
        else:
            report.blobs_present += 1
            report.blobs_present_unread += 0 if rehash else 1
        if progress is not None:
            progress("bodies", i + 1, total)
    return new


_V = TypeVar("_V")


def _in_key_order(mapping: Mapping[str, _V]) -> Iterator[tuple[str, _V]]:
    """``mapping``'s items by key: a mapping that says it iterates in key order (``in_key_order``:
    the import's spilled ones, ADR 0100) as it iterates, any other with its keys sorted (the keys,
    not the values, listed at once)."""
    if getattr(mapping, "in_key_order", False):
        return iter(mapping.items())
    return ((key, mapping[key]) for key in sorted(mapping))


class _Ancestors:
    """Which directories of the tree exist, for paths met in path order: only the last path's
    ancestors are remembered (all paths under a directory are neighbours in path order, so a
    directory left is never met again), each one looked up on disk once."""

    def __init__(self, root: Path) -> None:
        self.base = os.fspath(root)
        self.chain: list[tuple[str, bool]] = []  # (relative directory, exists), top-down

    def missing(self, rel_dir: str) -> list[str]:
        """The directories (top-down) that would be created to make ``root/rel_dir`` and were not
        reported by an earlier call."""
        parts = [p for p in rel_dir.split("/") if p]
        keep = 0
        while keep < min(len(parts), len(self.chain)) and \
                self.chain[keep][0] == "/".join(parts[:keep + 1]):
            keep += 1
        del self.chain[keep:]
        out: list[str] = []
        for i in range(keep + 1, len(parts) + 1):
            rel = "/".join(parts[:i])
            exists = os.path.isdir(os.path.join(self.base, rel))
            self.chain.append((rel, exists))
            if not exists:
                out.append(rel)
        return out


def _plan(root: Path, evidence: EvidenceStore, run_id: str, files: Mapping[str, str],
          new_blobs: list[str]) -> dict[str, Any]:
    """The journal: ``files`` (path → staged name) are renamed in path order.

    Its operations are written, as they are planned, one JSON object a line to the run's oplog
    (``<tree>/.staging/<run>/journal.ops``, flushed and, when ``durable``, made durable by the
    barrier before the journal is written): ``{"dir": rel}`` for a directory the run creates (before
    anything under it) and ``{"path", "staged", "backup"}`` for a file it renames; what is returned
    (the journal itself) lists the new blobs and their directories and counts the lines."""
    oplog = root / STAGING / run_id / OPLOG
    ancestors = _Ancestors(root)
    n_files = n_dirs = 0
    base = os.fspath(root)
    with open(oplog, "w", encoding="utf-8", newline="\n") as out:
        for rel, name in _in_key_order(files):
            for d in ancestors.missing(rel.rpartition("/")[0]):
                out.write(json.dumps({"dir": d}) + "\n")
                n_dirs += 1
            backup = os.path.exists(os.path.join(base, rel))
            out.write(json.dumps({"backup": backup, "path": rel, "staged": name}, sort_keys=True) + "\n")
            n_files += 1
        out.flush()
    store = _Ancestors(evidence.root)  # new_blobs come in hash order (_stage_blobs), so in path order
    blob_dirs = [d for sha in new_blobs for d in store.missing(f"sha256/{sha[:2]}/{sha[2:4]}")]
    return {
        "schema": JOURNAL_SCHEMA,
        "run_id": run_id,
        "state": "prepared",
        "evidence_root": str(evidence.root),
        "evidence_in_tree": is_inside(evidence.root, root),
        "oplog": OPLOG,
        "files": n_files,
        "dirs": n_dirs,
        "blobs": new_blobs,
        "blob_dirs": blob_dirs,
    }


def _oplog(root: Path, journal: Mapping[str, Any], *, reverse: bool = False) -> Iterator[dict[str, Any]]:
    """The operations of ``journal`` in the order planned (``reverse``: last first), read back a
    line (forward) or a block (reverse) at a time: from the journal itself when it lists them (the
    format before ADR 0100: ``ops`` then ``new_dirs``), else from its oplog. An oplog that is gone
    was removed by the cleanup of a rollback or commit that had finished (only :func:`_cleanup`
    removes a journaled run's staging, after its rollback): nothing is left to do. An oplog with
    other lines than the journal counts is refused (``journal_torn``): it was written whole and
    made durable before the journal named it, so it was changed by something else."""
    if "ops" in journal:  # lex-tree-journal/1: operations inline, directories created first
        entries: list[dict[str, Any]] = [{"dir": d} for d in journal["new_dirs"]] + list(journal["ops"])
        yield from (reversed(entries) if reverse else entries)
        return
    path = root / STAGING / journal["run_id"] / journal["oplog"]
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below; only its opening may find it gone
    except FileNotFoundError:
        return
    with handle:
        expected = journal["files"] + journal["dirs"]
        if _count_lines(handle) != expected:  # checked before anything is done
            raise CorpusError(f"the oplog of run {journal['run_id']} does not hold the {expected} operations its "
                              f"journal counts", code="journal_torn", subject=str(path))
        handle.seek(0)
        for line in (_lines_reversed(handle) if reverse else handle):
            yield json.loads(line)


def _count_lines(handle: BinaryIO) -> int:
    """The whole lines of ``handle`` (each ending in ``\\n``), or -1 if text follows the last one."""
    count, last = 0, b"\n"
    while chunk := handle.read(_CHUNK):
        count += chunk.count(b"\n")
        last = chunk[-1:]
    return count if last == b"\n" else -1


def _lines_reversed(handle: BinaryIO, block: int = 1 << 16) -> Iterator[bytes]:
    """The lines of ``handle``, last first, read a block at a time: each with its ``\\n``, but for
    text after the last ``\\n`` (an unterminated last line), given bare."""
    end = handle.seek(0, os.SEEK_END)
    pending, terminated = b"", False  # the start of the file's text after the last block's first newline
    while end > 0:
        start = max(0, end - block)
        handle.seek(start)
        pieces = (handle.read(end - start) + pending).split(b"\n")
        end = start
        if len(pieces) == 1:
            pending = pieces[0]
            continue
        if terminated:
            yield pieces[-1] + b"\n"
        elif pieces[-1]:
            yield pieces[-1]
        for piece in reversed(pieces[1:-1]):
            yield piece + b"\n"
        pending, terminated = pieces[0], True
    if terminated:
        yield pending + b"\n"
    elif pending:
        yield pending


def _apply(root: Path, evidence: EvidenceStore, journal: Mapping[str, Any], durable: bool,
           progress: Progress | None) -> None:
    run_id = journal["run_id"]
    ev_staging = evidence.staging_root() / run_id
    for sha in journal["blobs"]:
        evidence.install(ev_staging / sha, sha, sync_dir=False)
    staging = root / STAGING / run_id
    backups = False
    for op in _oplog(root, journal):  # directories top-down, each before what is under it; backups
        if "dir" in op:
            (root / op["dir"]).mkdir(exist_ok=True)
        elif op["backup"]:
            if not backups:
                (staging / "backup").mkdir()
                backups = True
            _backup_op(root, staging, op)
    _barrier(durable)
    total = journal["files"]
    done = 0
    for op in _oplog(root, journal):
        if "dir" in op:
            continue
        _apply_op(root, staging, op)
        done += 1
        if progress is not None:
            progress("commit", done, total)
    _barrier(durable)


def _backup_op(root: Path, staging: Path, op: Mapping[str, Any]) -> None:
    """Keep the current file as ``backup/<n>``: a hard link (no copy), else an fsynced copy."""
    target = root / op["path"]
    backup = staging / "backup" / op["staged"]
    try:
        os.link(target, backup)
    except OSError:
        tmp = backup.with_name(backup.name + ".tmp")
        shutil.copyfile(target, tmp)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, backup)


def _apply_op(root: Path, staging: Path, op: Mapping[str, Any]) -> None:
    os.replace(staging / "files" / op["staged"], root / op["path"])


# -- rollback and recovery ---------------------------------------------------------------------


def rollback(root: Path, evidence: EvidenceStore, journal: Mapping[str, Any]) -> None:
    """Undo a (partially) applied journal; idempotent, so it can itself be interrupted.

    The operations are undone last first: every file under a directory the run created is put back
    or removed before the directory is removed (if empty)."""
    staging = root / STAGING / journal["run_id"]
    for op in _oplog(root, journal, reverse=True):
        if "dir" in op:
            _rmdir_if_empty(root / op["dir"])
        else:
            _undo_op(root, staging, op)
    if journal.get("evidence_in_tree"):
        for sha in journal["blobs"]:
            with contextlib.suppress(FileNotFoundError):
                evidence.path_of(sha).unlink()
        for d in reversed(journal["blob_dirs"]):
            _rmdir_if_empty(evidence.root / d)
    _finish(root, evidence, journal["run_id"])


def _undo_op(root: Path, staging: Path, op: Mapping[str, Any]) -> None:
    """Put back what ``op`` replaced (its backup) or remove what it created; a no-op when done
    already (the backup was renamed back, the created file is gone), so rollback can be re-run."""
    target = root / op["path"]
    if op["backup"]:
        backup = staging / "backup" / op["staged"]
        if backup.exists():
            os.rename(backup, target)
    else:
        with contextlib.suppress(FileNotFoundError):
            target.unlink()


def _finish(root: Path, evidence: EvidenceStore, run_id: str) -> None:
    """Remove the journal and this run's staging directories."""
    _cleanup(root, evidence, run_id)
    journal = root / JOURNAL
    with contextlib.suppress(FileNotFoundError):
        journal.unlink()


def _cleanup(root: Path, evidence: EvidenceStore, run_id: str) -> None:
    _rmtree(root / STAGING / run_id)
    _rmtree(evidence.staging_root() / run_id)
    with contextlib.suppress(FileNotFoundError):
        (evidence.staging_root() / f"{run_id}.lock").unlink()  # only reached with no live owner
    _rmdir_if_empty(root / STAGING)
    _rmdir_if_empty(evidence.staging_root())


def read_journal(root: Path) -> dict[str, Any] | None:
    path = root / JOURNAL
    try:
        value = json.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except (ValueError, UnicodeDecodeError):
        # A journal is written atomically; a torn one means the run never started applying.
        return {"state": "torn"}
    if not isinstance(value, dict):
        return {"state": "torn"}
    return value


def recover(root: Path, evidence: EvidenceStore) -> str | None:
    """Finish or undo an interrupted commit. Returns what was done, or ``None``.

    Only a run whose process is gone is recovered: if another process holds the tree lock
    (a live writer), nothing is touched and ``"busy"`` is returned.
    """
    if (not (root / JOURNAL).exists() and not (root / STAGING).exists()
            and not evidence.staging_root().exists() and not _put_leftovers(evidence)):
        return None
    try:
        with tree_lock(root, blocking=False):
            return _recover_locked(root, evidence)
    except BlockingIOError:
        return "busy"


def _recover_locked(root: Path, evidence: EvidenceStore) -> str | None:
    journal = read_journal(root)
    action = None
    if journal is not None and "run_id" in journal:
        if journal.get("state") == "committed":
            _finish(root, evidence, journal["run_id"])
            action = "rolled_forward"
        else:
            if journal.get("evidence_root") and Path(journal["evidence_root"]) != evidence.root:
                evidence = EvidenceStore(journal["evidence_root"])
            rollback(root, evidence, journal)
            action = "rolled_back"
    elif journal is not None:
        (root / JOURNAL).unlink()
        action = "discarded_torn_journal"
    stale = sorted(p.name for p in (root / STAGING).iterdir()) if (root / STAGING).is_dir() else []
    for run_id in stale:
        _cleanup(root, evidence, run_id)
        action = action or "removed_stale_staging"
    if evidence.sweep_staging():  # orphans of killed ingests and commits (live runs are kept)
        action = action or "removed_stale_staging"
    return action


def _put_leftovers(evidence: EvidenceStore) -> bool:
    sha_dir = evidence.root / "sha256"
    return sha_dir.is_dir() and any(sha_dir.glob(".put-*"))


def repair(root: Path, evidence: EvidenceStore) -> list[str]:
    """Safe repairs, under the tree lock: finish or undo an interrupted commit, remove staging
    orphans (never a live run's) and leftover temporary files, and make writable blobs read-only
    (after re-hashing them). Returns what was done; ``["busy"]`` if a live writer holds the tree."""
    done: list[str] = []
    try:
        with tree_lock(root, blocking=False):
            action = _recover_locked(root, evidence)
            if action:
                done.append(action)
            done.extend(f"removed staging orphan {name}" for name in evidence.sweep_staging())
            for sha in evidence.iter_hashes():
                if evidence.make_read_only(sha):
                    done.append(f"made blob {sha} read-only")
    except BlockingIOError:
        return ["busy"]
    return done
