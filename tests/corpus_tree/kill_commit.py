"""Kill driver for the commit fault suite: import a published tree into a tree and SIGKILL this
very process at a chosen point of the commit (a real ``kill -9``: no ``finally``, no rollback).

    python -m tests.corpus_tree.kill_commit TREE SRC POINT NTH [FAIL]

``POINT`` is one of :data:`POINTS` or :data:`UNDO_POINTS` (a function of :mod:`corpus_tree.txn`
or :mod:`corpus_tree.evidence`, killed just *after* its ``NTH`` call, or before it for the
``-pre`` points); without a kill the process exits 0 and prints ``completed``. With ``FAIL`` the
commit's ``FAIL``-th rename raises (an I/O error), so the process rolls back in place: the
rollback's points are reached. With ``SRC`` ``recover`` the process imports nothing and opens
the tree (the recovery of a run killed before). The test (``test_faults.py``) counts points ×
trials and checks that every kill leaves a tree whose ``verify`` reports the interruption, which
the next open recovers to byte-identical or fully committed — never anything in between, never
an orphan left unreported.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: point -> (module, function, kill before the call?) — in commit order
POINTS: dict[str, tuple[str, str, bool]] = {
    "stage-mkdir": ("corpus_tree.evidence", "EvidenceStore.staging_run", False),  # run dir made, nothing staged
    "stage-blob": ("corpus_tree.txn", "_stage_blob", False),  # blobs being copied into evidence/.staging
    "stage-blob-pre": ("corpus_tree.txn", "_stage_blob", True),
    "stage-file": ("corpus_tree.txn", "_write_file", False),  # tree files being staged
    "oplog-planned": ("corpus_tree.txn", "_plan", False),  # operations written to the oplog, no journal yet
    "journal-unrenamed": ("corpus_tree.txn", "json.dump", False),  # a journal's temporary file written, not renamed
    "journal-prepared": ("corpus_tree.txn", "_write_json_atomic", False),  # 1st call: journal written
    "blob-install": ("corpus_tree.evidence", "EvidenceStore.install", False),  # blobs moved into the store
    "backup": ("corpus_tree.txn", "_backup_op", False),  # files kept as backups
    "rename": ("corpus_tree.txn", "_apply_op", False),  # staged files renamed over their targets
    "rename-pre": ("corpus_tree.txn", "_apply_op", True),
    "finish": ("corpus_tree.txn", "_finish", True),  # 2nd journal write done (committed), before clean-up
}

#: points of a rollback (reached when a rename fails, or when an open recovers a prepared journal)
UNDO_POINTS: dict[str, tuple[str, str, bool]] = {
    "undo": ("corpus_tree.txn", "_undo_op", False),  # backups renamed back, created files removed
    "undo-dirs": ("corpus_tree.txn", "_rmdir_if_empty", False),  # created directories removed
}


def _kill() -> None:
    sys.stdout.flush()
    os.kill(os.getpid(), signal.SIGKILL)


def install(point: str, nth: int) -> None:
    import importlib

    module_name, qualname, before = {**POINTS, **UNDO_POINTS}[point]
    module = importlib.import_module(module_name)
    owner: Any = module
    *path, name = qualname.split(".")
    for part in path:
        owner = getattr(owner, part)
    original: Callable[..., Any] = getattr(owner, name)
    seen = 0

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nonlocal seen
        seen += 1
        if before and seen == nth:
            _kill()
        result = original(*args, **kwargs)
        if not before and seen == nth:
            if hasattr(result, "__enter__"):  # a context manager: kill once inside it
                return _killing_inside(result)
            _kill()
        return result

    setattr(owner, name, wrapper)


class _killing_inside:
    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __enter__(self) -> Any:
        self.inner.__enter__()
        _kill()

    def __exit__(self, *exc: Any) -> Any:  # pragma: no cover - never reached
        return self.inner.__exit__(*exc)


def fail_rename(nth: int) -> None:
    """Make the commit's ``nth`` rename of a staged file raise, as a failing disk would."""
    import errno

    from corpus_tree import txn

    original = txn._apply_op
    seen = 0

    def failing(*args: Any) -> None:
        nonlocal seen
        seen += 1
        if seen == nth:
            raise OSError(errno.EIO, "Input/output error")
        original(*args)

    txn._apply_op = failing  # type: ignore[assignment]


def main() -> int:
    tree, src, point, nth = Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
    if point != "none":
        install(point, nth)
    if len(sys.argv) > 5:
        fail_rename(int(sys.argv[5]))
    if src == "recover":
        from corpus_tree import CorpusTree

        CorpusTree.open(tree)
    else:
        from corpus_tree.importer import import_published

        import_published(Path(src), tree)
    print("completed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
