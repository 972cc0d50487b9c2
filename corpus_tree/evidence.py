"""The evidence store: verbatim publisher bytes addressed by SHA-256, write-once.

Layout: ``<root>/sha256/<aa>/<bb>/<hex>`` where ``aa``/``bb`` are the first two byte pairs of
the lower-case hex digest. A blob is written to a temporary file in its final directory,
fsynced and moved into place with :func:`os.replace`; putting bytes that are already stored is
a no-op, and a stored file whose content does not hash to its name is never overwritten
(:class:`legal.errors.IntegrityError`). Every read re-verifies the hash: :meth:`read` before
returning, :meth:`open` while streaming (the mismatch is raised at end of file).

Staging (``<root>/.staging/``) holds the bytes of work in progress — a transaction's new
blobs, an ingest's fetched bodies — on the store's own filesystem (never ``$TMPDIR``). Each run
is a directory ``<run>`` guarded by an exclusive ``flock`` on ``<run>.lock`` taken *before*
the directory exists and held until after it is removed (:meth:`EvidenceStore.staging_run`),
so :meth:`EvidenceStore.sweep_staging` can tell an orphan of a killed process (lock free, or
no lock file) from the work of a live one (lock held) and removes only orphans — also when the
store is shared by several trees and writers.

The store's location is configurable: by default ``<tree>/evidence``; a shared filesystem
path can be given explicitly or through the ``LEX_EVIDENCE_DIR`` environment variable (see
:func:`corpus_tree.tree.CorpusTree.open`).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import io
import os
import re
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import IO, BinaryIO

from legal.canonical import hash_file
from legal.errors import CorpusError, IntegrityError
from legal.fs import fsync_dir

CHUNK = 1 << 20
#: Buffer of every streamed read (hashing, staging copies): 1 MiB.
STREAM_CHUNK = 1 << 20
ENV_EVIDENCE_DIR = "LEX_EVIDENCE_DIR"
STAGING_DIR = ".staging"


_SHA256 = re.compile("[0-9a-f]{64}")


def check_sha256(sha256: str) -> str:
    """``sha256`` if it is 64 lower-case hex characters, else an :class:`IntegrityError`."""
    if not isinstance(sha256, str) or not _SHA256.fullmatch(sha256):  # is_sha256_hex, compiled
        raise IntegrityError(f"not a sha256 hex digest: {sha256!r}", code="invalid_sha256", subject=str(sha256))
    return sha256


def blob_relpath(sha256: str) -> str:
    """``sha256/<aa>/<bb>/<hex>`` (POSIX separators), the blob's path inside a store."""
    check_sha256(sha256)
    return f"sha256/{sha256[:2]}/{sha256[2:4]}/{sha256}"


def hash_stream(stream: IO[bytes], sink: IO[bytes] | None = None) -> tuple[str, int]:
    """SHA-256 hex and size of everything left in ``stream``, optionally copying it to ``sink``."""
    h = hashlib.sha256()
    size = 0
    buf = bytearray(STREAM_CHUNK)
    view = memoryview(buf)
    readinto = getattr(stream, "readinto", None)
    while True:
        if readinto is not None:
            n = readinto(buf)
            if not n:
                break
            chunk = view[:n]
        else:
            data = stream.read(STREAM_CHUNK)
            if not data:
                break
            chunk = memoryview(data)
            n = len(data)
        h.update(chunk)
        if sink is not None:
            sink.write(chunk)
        size += n
    return h.hexdigest(), size


def disk_full(exc: OSError, subject: str) -> CorpusError:
    """The typed error of a write that ran out of space (``ENOSPC``, ``EDQUOT``)."""
    return CorpusError(f"no space left on the device while writing ({exc.strerror or exc})", code="disk_full",
                       subject=subject)


def is_disk_full(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT)


@contextlib.contextmanager
def enospc_as_disk_full(subject: str) -> Iterator[None]:
    """Turn ``ENOSPC`` / ``EDQUOT`` raised inside the block into :func:`disk_full` (an edge)."""
    try:
        yield
    except OSError as exc:
        if is_disk_full(exc):
            raise disk_full(exc, subject) from exc
        raise


def _names(path: str, *, dirs_only: bool) -> list[str]:
    """Sorted entry names of the directory ``path`` (only directories, symbolic links to
    directories included, with ``dirs_only``)."""
    with os.scandir(path) as entries:
        return sorted(e.name for e in entries if not dirs_only or e.is_dir())


def _lock_free(path: Path) -> bool:
    """Whether no process holds a ``flock`` on ``path`` (a missing file counts as free)."""
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below
    except FileNotFoundError:
        return True
    with handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        return True


class VerifyingReader(io.RawIOBase):
    """A read-only binary stream that hashes what it returns and checks it at end of file."""

    def __init__(self, raw: io.FileIO, sha256: str, path: Path) -> None:
        super().__init__()
        self._raw = raw
        self._expected = sha256
        self._path = path
        self._hash = hashlib.sha256()
        self._checked = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        n = self._raw.readinto(buffer)
        if n is None:
            return 0
        if n:
            self._hash.update(memoryview(buffer)[:n])
            return n
        self._check()
        return 0

    def _check(self) -> None:
        if self._checked:
            return
        self._checked = True
        actual = self._hash.hexdigest()
        if actual != self._expected:
            raise IntegrityError(
                f"evidence blob does not match its hash (got {actual})", code="evidence_hash_mismatch",
                subject=str(self._path),
            )

    def close(self) -> None:
        try:
            self._raw.close()
        finally:
            super().close()


class EvidenceStore:
    """Verbatim bytes by SHA-256 under ``root``; write-once, verified on every read."""

    def __init__(self, root: str | os.PathLike[str], *, durable: bool = True) -> None:
        self.root = Path(root)
        self.durable = durable

    def __repr__(self) -> str:
        return f"EvidenceStore({str(self.root)!r})"

    # -- paths -------------------------------------------------------------------------------

    def path_of(self, sha256: str) -> Path:
        return self.root / blob_relpath(sha256)

    def staging_root(self) -> Path:
        """Where a transaction stages new blobs (same filesystem as the store)."""
        return self.root / STAGING_DIR

    def ensure(self) -> None:
        (self.root / "sha256").mkdir(parents=True, exist_ok=True)

    @contextlib.contextmanager
    def staging_run(self, name: str | None = None) -> Iterator[Path]:
        """A private staging directory ``<root>/.staging/<name>`` for the duration of the block,
        guarded by a lock on ``<name>.lock`` (see the module docstring); removed on exit."""
        base = self.staging_root()
        base.mkdir(parents=True, exist_ok=True)
        run = name or uuid.uuid4().hex
        lock_path = base / f"{run}.lock"
        with open(lock_path, "a+b") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            path = base / run
            try:
                path.mkdir(exist_ok=True)
                yield path
            finally:
                shutil.rmtree(path, ignore_errors=True)
                with contextlib.suppress(FileNotFoundError):
                    lock_path.unlink()
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        with contextlib.suppress(OSError):
            base.rmdir()

    def staging_entries(self) -> list[Path]:
        """Every entry of the staging area (live runs and orphans alike), sorted."""
        base = self.staging_root()
        try:
            return sorted(base.iterdir())
        except (FileNotFoundError, NotADirectoryError):
            return []

    def sweep_staging(self) -> list[str]:
        """Remove the staging runs no live process holds (orphans of killed runs) and stray
        temporary files of :meth:`put_stream`; returns the names removed."""
        removed: list[str] = []
        base = self.staging_root()
        for entry in self.staging_entries():
            if entry.name.endswith(".lock"):
                run = entry.name[: -len(".lock")]
                if (base / run).exists():
                    continue  # judged with its directory
            else:
                run = entry.name
            if self._take_orphan(base, run):
                removed.append(run)
        with contextlib.suppress(OSError):
            base.rmdir()
        sha_dir = self.root / "sha256"
        if sha_dir.is_dir():
            for tmp in sorted(sha_dir.glob(".put-*")):
                if _lock_free(tmp):
                    with contextlib.suppress(FileNotFoundError):
                        tmp.unlink()
                    removed.append(tmp.name)
        return sorted(set(removed))

    @staticmethod
    def _take_orphan(base: Path, run: str) -> bool:
        lock_path = base / f"{run}.lock"
        path = base / run
        if not lock_path.exists():
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
            return True
        try:
            handle = open(lock_path, "rb")  # noqa: SIM115 - closed below
        except FileNotFoundError:
            return False  # its owner just finished
        with handle:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False  # a live run
            try:
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path, ignore_errors=True)
                elif path.exists() or path.is_symlink():
                    path.unlink()
                with contextlib.suppress(FileNotFoundError):
                    lock_path.unlink()
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        return True

    # -- queries -----------------------------------------------------------------------------

    def has(self, sha256: str) -> bool:
        return self.path_of(sha256).is_file()

    def size(self, sha256: str) -> int:
        try:
            return self.path_of(sha256).stat().st_size
        except FileNotFoundError:
            raise CorpusError("evidence blob not held", code="evidence_missing", subject=sha256) from None

    def iter_hashes(self) -> Iterator[str]:
        """Every blob name in the store, sorted (no hashing; see :meth:`verify`)."""
        base = os.path.join(self.root, "sha256")
        if not os.path.isdir(base):
            return
        for a in _names(base, dirs_only=True):
            for b in _names(os.path.join(base, a), dirs_only=True):
                for name in _names(os.path.join(base, a, b), dirs_only=False):
                    if _SHA256.fullmatch(name) and name[:2] == a and name[2:4] == b:
                        yield name

    # -- reads -------------------------------------------------------------------------------

    def open(self, sha256: str) -> BinaryIO:
        """A binary stream of the blob; raises :class:`IntegrityError` at EOF on a mismatch."""
        path = self.path_of(sha256)
        try:
            raw = open(path, "rb", buffering=0)  # noqa: SIM115 - handed to the caller
        except FileNotFoundError:
            raise CorpusError("evidence blob not held", code="evidence_missing", subject=sha256) from None
        return io.BufferedReader(VerifyingReader(raw, sha256, path), CHUNK)

    def read(self, sha256: str) -> bytes:
        """The blob's bytes, after checking they hash to ``sha256``."""
        path = self.path_of(sha256)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise CorpusError("evidence blob not held", code="evidence_missing", subject=sha256) from None
        actual = hashlib.sha256(data).hexdigest()
        if actual != sha256:
            raise IntegrityError(f"evidence blob does not match its hash (got {actual})",
                                 code="evidence_hash_mismatch", subject=str(path))
        return data

    def verify(self, sha256: str) -> tuple[bool, int]:
        """``(matches, size)`` of the stored blob, hashing it in a stream."""
        actual, size = hash_file(self.path_of(sha256))
        return actual == sha256, size

    # -- writes ------------------------------------------------------------------------------

    def put_bytes(self, data: bytes, sha256: str | None = None) -> str:
        """Store ``data``; ``sha256`` (if given) must be its hash. Returns the hash."""
        actual = hashlib.sha256(data).hexdigest()
        if sha256 is not None and actual != sha256:
            raise IntegrityError(f"bytes do not hash to the claimed sha256 (got {actual})",
                                 code="body_hash_mismatch", subject=sha256)
        return self.put_stream(io.BytesIO(data), actual)

    def put_file(self, path: str | os.PathLike[str], sha256: str | None = None) -> str:
        with open(path, "rb", buffering=0) as f:
            return self.put_stream(f, sha256, source=str(path))

    def put_stream(self, stream: IO[bytes], sha256: str | None = None, *, source: str | None = None) -> str:
        """Store everything left in ``stream`` (streamed, never fully in memory).

        The bytes are written to a temporary file in the store, hashed on the way, and moved to
        their address only if they hash to ``sha256`` (when given). Returns the hash.
        """
        if sha256 is not None:
            check_sha256(sha256)
        self.ensure()
        tmp_dir = self.root / "sha256"
        fd, tmp_name = tempfile.mkstemp(prefix=".put-", dir=tmp_dir)
        tmp = Path(tmp_name)
        fcntl.flock(fd, fcntl.LOCK_EX)  # a live temporary file (sweep_staging leaves it alone)
        try:
            with os.fdopen(fd, "wb") as sink:
                actual, _ = hash_stream(stream, sink)
                sink.flush()
                if self.durable:
                    os.fsync(sink.fileno())
            if sha256 is not None and actual != sha256:
                raise IntegrityError(f"bytes do not hash to the claimed sha256 (got {actual})",
                                     code="body_hash_mismatch", subject=source or sha256)
            self.install(tmp, actual)
            return actual
        finally:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()

    def install(self, tmp: Path, sha256: str, *, sync_dir: bool | None = None) -> bool:
        """Move an already-verified file ``tmp`` to the address of ``sha256``.

        Returns ``True`` if the blob is new, ``False`` if identical content was already stored
        (``tmp`` is then removed). A stored file with different content is refused.
        """
        final = self.path_of(sha256)
        if final.exists():
            self._check_existing(final, sha256)
            tmp.unlink()
            return False
        if not final.parent.is_dir():
            final.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(tmp, 0o444)
        os.replace(tmp, final)
        if self.durable if sync_dir is None else sync_dir:
            fsync_dir(final.parent)
        return True

    def make_read_only(self, sha256: str) -> bool:
        """Clear the write bits of a stored blob (after checking its bytes); ``True`` if changed."""
        path = self.path_of(sha256)
        mode = path.stat().st_mode
        if not mode & 0o222:
            return False
        self._check_existing(path, sha256)
        os.chmod(path, mode & ~0o222)
        return True

    @staticmethod
    def _check_existing(final: Path, sha256: str) -> None:
        actual, _ = hash_file(final)
        if actual != sha256:
            raise IntegrityError(
                f"stored evidence blob does not match its name (got {actual}); refusing to overwrite",
                code="evidence_hash_mismatch", subject=str(final),
            )
