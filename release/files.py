"""Files of an artifact directory: safe relative names, listing, streaming hashes, atomic writes.

Names are relative POSIX paths (``indexes/eu-eurlex.sqlite``). A directory that holds a
symbolic link or a special file is refused: a link could point outside the set, and the
server must open exactly the bytes that were hashed. Hashing streams through the one file
hasher (:func:`legal.canonical.hash_open_file`, 1 MiB reads), so memory stays flat whatever
the file size; several files are hashed
on a small thread pool (SHA-256 releases the GIL while hashing large buffers).
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from legal.canonical import hash_open_file
from legal.fs import fsync_dir
from release.codes import Reason, refuse

_PARALLEL_FROM_BYTES = 32 << 20


@dataclass(frozen=True)
class FileFacts:
    """What we know of one file: its relative name, byte size and SHA-256 (hex)."""

    name: str
    size: int
    sha256: str


def check_name(name: str) -> str:
    """Return ``name`` if it is a safe relative POSIX path, else refuse with ``unsafe_path``."""
    if not isinstance(name, str) or not name or "\\" in name or "\x00" in name:
        refuse(Reason.UNSAFE_PATH, "file name is not a safe relative path", repr(name)[:200])
    if name.startswith("/") or any(part in ("", ".", "..") for part in name.split("/")):
        refuse(Reason.UNSAFE_PATH, "file name is not a safe relative path", name[:200])
    return name


def _walk(root: Path, prefix: str) -> Iterator[tuple[str, os.stat_result]]:
    with os.scandir(root) as entries:
        for entry in entries:
            name = f"{prefix}{entry.name}"
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode):
                yield from _walk(Path(entry.path), f"{name}/")
            elif stat.S_ISREG(info.st_mode):
                yield name, info
            else:
                refuse(Reason.UNSAFE_PATH, "artifact directories hold only regular files", name)


def list_files(root: Path, exclude: Iterable[str] = ()) -> dict[str, int]:
    """Every regular file under ``root`` as ``{relative name: size}``, minus ``exclude``.

    ``root`` itself may be reached through a symbolic link (``/srv/lex/current``); nothing
    inside it may be one.
    """
    if not root.is_dir():
        refuse(Reason.NOT_A_DIRECTORY, "artifact set must be a directory", str(root))
    skip = set(exclude)
    found = {name: info.st_size for name, info in _walk(root, "") if name not in skip}
    return {name: found[name] for name in sorted(found)}


def hash_file(path: Path) -> tuple[int, str]:
    """``(size, sha256 hex)`` of a file, streamed in 1 MiB chunks (a link is never followed)."""
    with os.fdopen(_open_no_follow(path), "rb", buffering=0) as handle:
        sha, size = hash_open_file(handle)
    return size, sha


def _open_no_follow(path: Path) -> int:
    try:
        return os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        refuse(Reason.MISSING_FILE, "file disappeared while being verified", path.name)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            refuse(Reason.UNSAFE_PATH, "artifact directories hold only regular files", path.name)
        refuse(Reason.UNSAFE_PATH, f"cannot read file: {exc.strerror}", path.name)


def hash_files(root: Path, files: Mapping[str, int], *, workers: int | None = None,
               known: Mapping[str, tuple[int, str]] | None = None) -> dict[str, FileFacts]:
    """Hash ``files`` (``{name: listed size}``, as :func:`list_files` returns) under ``root``.

    Sets larger than a few tens of MiB are hashed on a small thread pool. ``known``
    (``{name: (size, sha256)}``): hashes the caller already holds for files it has just written
    there (a copy of a file whose hash it knows), taken instead of reading a file of that listed
    size. A producer passes them (signing its own set); verification only through
    :func:`release.verify.reverify_artifact_set`, for files its caller verified whole before and
    vouches for (``lex release verify`` and the server's mount never pass any).
    """
    given = {name: FileFacts(name, files[name], known[name][1]) for name in files
             if known is not None and name in known and known[name][0] == files[name]}
    ordered = [name for name in files if name not in given]
    pool = workers if workers is not None else _default_workers(sum(files.values()), len(ordered))
    if pool <= 1:
        results = [hash_file(root / name) for name in ordered]
    else:
        with ThreadPoolExecutor(max_workers=pool) as executor:
            results = list(executor.map(lambda name: hash_file(root / name), ordered))
    hashed = {name: FileFacts(name, size, sha) for name, (size, sha) in zip(ordered, results, strict=True)}
    return {name: given[name] if name in given else hashed[name] for name in files}


def _default_workers(total_bytes: int, count: int) -> int:
    if total_bytes < _PARALLEL_FROM_BYTES or count < 2:
        return 1
    return max(1, min(count, os.cpu_count() or 1, 8))


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old or the new bytes, never a mix.

    Temp file in the same directory, ``fsync``, ``rename`` over the target, ``fsync`` of the
    directory so the rename itself survives a crash.
    """
    temp = path.with_name(f".{path.name}.tmp-{secrets.token_hex(6)}")
    try:
        with open(temp, "xb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    finally:
        if temp.exists():
            temp.unlink()
    fsync_dir(path.parent)
