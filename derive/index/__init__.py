"""The SQLite FTS5 index of one publisher, built from a corpus tree and the per-article dataset.

Build: :func:`build_from_paths` (or :func:`derive.index.build.build_index` over already-read
inputs). Read side for servers: :mod:`derive.index.read` and :mod:`derive.index.schema`.
Format description: ``docs/index.md``.
"""

from __future__ import annotations

from derive.index.build import BuildResult, build_from_paths, build_index
from derive.index.inputs import DatasetInput, TreeInput, TreeLike, read_dataset, read_tree
from derive.index.schema import INDEX_FORMAT
from derive.index.verify import VerifyReport, verify_index

__all__ = [
    "INDEX_FORMAT",
    "BuildResult",
    "DatasetInput",
    "TreeInput",
    "TreeLike",
    "VerifyReport",
    "build_from_paths",
    "build_index",
    "read_dataset",
    "read_tree",
    "verify_index",
]
