"""Filesystem facts every writer of evidence and artifacts shares (no I/O at import).

- :func:`fsync_dir` makes a directory entry change (a rename, a new file) durable. Where a
  directory cannot be opened or the filesystem does not fsync directories (``EINVAL``,
  ``ENOTSUP``), it is a no-op; any other failure (``EIO``: the change may not be on disk) raises,
  because a writer that goes on believing its evidence is durable would lose it silently.
- :func:`is_inside` answers whether a path, resolved (links followed), is a directory or lies
  under it — the one test the corpus tree and the release root use before writing or trusting a
  path.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

_UNSUPPORTED = frozenset({errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EBADF})


def fsync_dir(path: Path) -> None:
    """``fsync`` a directory (no-op where directories cannot be opened or fsynced)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as error:
        if error.errno not in _UNSUPPORTED:
            raise
    finally:
        os.close(fd)


def is_inside(path: Path, directory: Path) -> bool:
    """True when ``path`` (resolved) is ``directory`` (resolved) or lies under it."""
    return path.resolve().is_relative_to(directory.resolve())
