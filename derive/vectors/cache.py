"""A content-addressed cache of chunk embeddings (optional, speeds up rebuilds).

One SQLite file; key ``(profile, chunk_sha256)`` where ``profile`` is the SHA-256 of the encoder
identity, so a cache can never hand one encoder's vectors to another. Values are the raw float32
bytes, with their own SHA-256 re-checked on read. The cache only saves time: vectors built with
and without it are byte-identical (tested).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from derive.vectors.encoder import EncoderIdentity, FloatMatrix


def profile_of(identity: EncoderIdentity) -> str:
    doc = json.dumps(identity.as_dict(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(doc.encode("utf-8")).hexdigest()


class EmbeddingCache:
    def __init__(self, path: Path, identity: EncoderIdentity) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(str(path), isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("""CREATE TABLE IF NOT EXISTS embeddings(
            profile TEXT NOT NULL, chunk_sha256 TEXT NOT NULL, vector BLOB NOT NULL, vector_sha256 TEXT NOT NULL,
            PRIMARY KEY (profile, chunk_sha256)) WITHOUT ROWID""")
        self._profile = profile_of(identity)
        self._dims = identity.dims

    def get_many(self, keys: Iterable[str]) -> dict[str, FloatMatrix]:
        found: dict[str, FloatMatrix] = {}
        for key in keys:
            row = self._conn.execute("SELECT vector, vector_sha256 FROM embeddings WHERE profile=? AND chunk_sha256=?",
                                     (self._profile, key)).fetchone()
            if row is None:
                continue
            blob = bytes(row[0])
            if hashlib.sha256(blob).hexdigest() != row[1] or len(blob) != 4 * self._dims:
                continue  # a damaged entry is recomputed, never used
            found[key] = np.frombuffer(blob, dtype="<f4").astype(np.float32)
        return found

    def put_many(self, items: Mapping[str, FloatMatrix]) -> None:
        rows = []
        for key, vector in items.items():
            blob = np.asarray(vector, dtype="<f4").tobytes()
            rows.append((self._profile, key, blob, hashlib.sha256(blob).hexdigest()))
        self._conn.execute("BEGIN")
        self._conn.executemany("INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?, ?)", rows)
        self._conn.execute("COMMIT")

    def close(self) -> None:
        self._conn.close()
