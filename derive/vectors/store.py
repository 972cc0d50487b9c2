"""Read side of the vectors: load ``<publisher>.vectors.npy`` + ``.vectors.json`` and verify them.

:func:`load_vectors` refuses (``IndexError_``) with a typed code, so a server can say why the
hybrid lane is unavailable while the keyword lane stays mounted:

- ``vectors_missing`` — the manifest or the vectors file is absent;
- ``vectors_unverified`` — the manifest is malformed, the vectors file's SHA-256 or shape differs
  from the manifest, or the manifest was built from another index (file SHA-256 or content
  digest) or for another publisher.

Nothing here loads the encoder; the caller compares ``manifest["encoder"]`` with the encoder
it runs.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from derive.vectors.build import QUANTISATION, VECTORS_FORMAT, manifest_file_name, vectors_file_name
from legal.canonical import file_sha256
from legal.errors import IndexError_


@dataclass(frozen=True)
class LoadedVectors:
    publisher: str
    matrix: npt.NDArray[np.int8]
    scale: str
    kinds: npt.NDArray[np.bool_]  # True for a provision-state row, False for a work-title row
    rowids: npt.NDArray[np.int64]
    manifest: dict[str, Any]
    manifest_sha256: str
    vectors_sha256: str

    @property
    def encoder(self) -> dict[str, Any]:
        return dict(self.manifest["encoder"])

    @property
    def nbytes(self) -> int:
        return int(self.matrix.nbytes + self.kinds.nbytes + self.rowids.nbytes)


def _unverified(message: str, subject: str) -> IndexError_:
    return IndexError_(message, code="vectors_unverified", subject=subject)


def load_vectors(index_path: Path, stamp: dict[str, str], *, index_sha256: str | None = None) -> LoadedVectors:
    """The verified vectors beside ``index_path`` (whose stamp the caller has already checked)."""
    publisher = stamp["publisher"]
    manifest_path = index_path.with_name(manifest_file_name(publisher))
    vectors_path = index_path.with_name(vectors_file_name(publisher))
    if not manifest_path.is_file():
        raise IndexError_("no vectors manifest beside the index", code="vectors_missing", subject=manifest_path.name)
    if not vectors_path.is_file():
        raise IndexError_("no vectors file beside the index", code="vectors_missing", subject=vectors_path.name)
    raw = manifest_path.read_bytes()
    try:
        manifest = json.loads(raw)
        ok = (manifest["schema"] == VECTORS_FORMAT and manifest["quantisation"]["kind"] == QUANTISATION
              and isinstance(manifest["rows"], list))
    except (ValueError, KeyError, TypeError):
        ok = False
    if not ok:
        raise _unverified("the vectors manifest is malformed", manifest_path.name)
    if manifest["publisher"] != publisher:
        raise _unverified("the vectors were built for another publisher", manifest_path.name)
    index_sha = index_sha256 or file_sha256(index_path)
    if manifest["index"].get("sha256") != index_sha or manifest["index"].get("content_digest") != stamp.get(
            "content_digest"):
        raise _unverified("the vectors were built from another index", manifest_path.name)
    vectors_sha = file_sha256(vectors_path)
    if vectors_sha != manifest["vectors"].get("sha256"):
        raise _unverified("the vectors file does not match its manifest", vectors_path.name)
    try:
        matrix = np.load(vectors_path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise _unverified(f"the vectors file is unreadable: {exc}", vectors_path.name) from None
    count, dims = int(manifest["vectors"]["count"]), int(manifest["encoder"]["dims"])
    rows = manifest["rows"]
    if matrix.dtype != np.int8 or matrix.shape != (count, dims) or len(rows) != count:
        raise _unverified("the vectors' shape differs from the manifest", vectors_path.name)
    try:
        kinds = np.array([r[0] == "s" for r in rows], dtype=np.bool_)
        rowids = np.array([int(r[1]) for r in rows], dtype=np.int64)
    except (TypeError, ValueError, IndexError):
        raise _unverified("the vectors manifest rows are malformed", manifest_path.name) from None
    return LoadedVectors(publisher, matrix, str(manifest["quantisation"]["scale"]), kinds, rowids, manifest,
                         hashlib.sha256(raw).hexdigest(), vectors_sha)
