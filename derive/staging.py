"""Replace an output directory all at once: build beside it, then swap (issue #7).

:func:`staged` yields a fresh staging directory ``.<name>.staging-*`` beside ``target``; when
the block completes, ``target`` is renamed to ``.<name>.previous``, the staging directory to
``target``, and the previous one is removed. If the block raises (or the process is killed),
``target`` is untouched and the staging directory is removed (or, after a kill, by the next
run). A kill between the two renames leaves ``target`` absent and ``.<name>.previous``
complete: the next run renames it back before it starts. One run at a time per target: a
second concurrent run is refused (``dataset_locked``) through an advisory lock on
``.<name>.lock``.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from legal.errors import DerivationError


def _sibling(target: Path, suffix: str) -> Path:
    return target.parent / f".{target.name}.{suffix}"


@contextlib.contextmanager
def locked(target: Path) -> Iterator[None]:
    """Hold the advisory lock of ``target`` (refused at once if another run holds it)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(_sibling(target, "lock"), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise DerivationError("another run is writing this dataset", code="dataset_locked",
                                  subject=target.name) from None
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


def recover(target: Path) -> None:
    """Undo what a killed run left: restore a swapped-out previous output, drop stale staging."""
    previous = _sibling(target, "previous")
    if os.path.lexists(previous) and not os.path.lexists(target):
        os.rename(previous, target)
    if os.path.lexists(previous):
        _remove(previous)
    for stale in target.parent.glob(f".{target.name}.staging-*"):
        shutil.rmtree(stale, ignore_errors=True)


@contextlib.contextmanager
def staged(target: str | Path) -> Iterator[Path]:
    """A staging directory that replaces ``target`` when the block completes without error."""
    target = Path(target)
    with locked(target):
        recover(target)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.staging-", dir=target.parent))
        staging.chmod(0o755)
        try:
            yield staging
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        previous = _sibling(target, "previous")
        had_target = os.path.lexists(target)
        if had_target:
            os.rename(target, previous)
        os.rename(staging, target)
        if had_target:
            _remove(previous)
