"""Write one publisher's index file and its stamp file, byte-reproducibly.

Reproducibility recipe (tested by rebuilding and comparing bytes): a fresh file with a fixed
``page_size``; the whole schema and content written in one transaction in the deterministic
row order of :func:`derive.index.rows.assemble`; FTS5 segments merged with ``optimize``;
``ANALYZE``; then ``VACUUM``. No value comes from the clock (``built_at`` is an input) or
from the build machine's paths. The file is written beside its destination and renamed into
place, so a reader never sees a half-written index.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from derive.index.digest import content_digest
from derive.index.inputs import DatasetInput, TreeInput
from derive.index.rows import IndexRows, assemble, check_timestamp
from derive.index.schema import (
    APPLICATION_ID,
    DDL,
    DIGEST_ORDER,
    PAGE_SIZE,
    USER_VERSION,
    VOCABULARY_MIN_LENGTH,
    index_file_name,
    stamp_file_name,
)
from derive.index.stamp import build_stamp, stamp_document
from legal.canonical import pretty_bytes
from legal.errors import IndexError_
from legal.ids import Publisher


@dataclass(frozen=True)
class BuildResult:
    publisher: str
    index_path: Path
    stamp_path: Path
    stamp: dict[str, str]
    index_sha256: str
    index_bytes: int


def _insert(conn: sqlite3.Connection, table: str, rows: list[tuple[Any, ...]]) -> None:
    if not rows:
        return
    marks = ",".join("?" * len(rows[0]))
    conn.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)


def _write_tables(conn: sqlite3.Connection, rows: IndexRows) -> None:
    for table, _ in DIGEST_ORDER:
        _insert(conn, table, rows.table(table))
    conn.executemany("INSERT INTO provision_fts(rowid, title, number, heading, text) VALUES (?,?,?,?,?)",
                     rows.provision_fts)
    conn.executemany(
        "INSERT INTO work_fts(rowid, identifiers, titles, short_titles, aliases, metadata) VALUES (?,?,?,?,?,?)",
        rows.work_fts)
    conn.execute("INSERT INTO provision_fts(provision_fts) VALUES('optimize')")
    conn.execute("INSERT INTO work_fts(work_fts) VALUES('optimize')")
    words = [(t, d) for t, d in conn.execute("SELECT term, doc FROM provision_vocab ORDER BY term")
             if len(t) >= VOCABULARY_MIN_LENGTH and t.isalpha()]
    conn.executemany("INSERT INTO vocabulary(term, docs) VALUES (?, ?)", words)


def write_index(path: Path, rows: IndexRows, stamp: Mapping[str, str]) -> dict[str, str]:
    """Create ``path`` from ``rows``; returns the stamp completed with ``content_digest``."""
    if path.exists():
        path.unlink()
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute(f"PRAGMA page_size={PAGE_SIZE}")
        conn.execute("PRAGMA journal_mode=OFF")
        conn.execute("PRAGMA synchronous=OFF")
        conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version={USER_VERSION}")
        conn.execute("BEGIN")
        for statement in DDL:
            conn.execute(statement)
        _write_tables(conn, rows)
        full = dict(stamp)
        full["content_digest"] = content_digest(conn)
        conn.executemany("INSERT INTO stamp(k, v) VALUES (?, ?)", sorted(full.items()))
        conn.execute("COMMIT")
        conn.execute("ANALYZE")
        conn.execute("VACUUM")
    finally:
        conn.close()
    return dict(sorted(full.items()))


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _replace(tmp: Path, final: Path) -> None:
    os.replace(tmp, final)


def build_index(publisher: Publisher, tree: TreeInput, dataset: DatasetInput, out_dir: Path, *, built_at: str,
                extra_stamp: Mapping[str, str] | None = None) -> BuildResult:
    """Build ``<out_dir>/<publisher>.sqlite`` and ``<publisher>.stamp.json`` from the inputs."""
    check_timestamp(built_at)
    rows = assemble(publisher, tree, dataset)
    if not rows.works:
        raise IndexError_("the tree holds no work for this publisher", code="empty_index", subject=publisher.value)
    stamp = build_stamp(publisher, tree, dataset, rows, built_at, extra_stamp)
    out_dir.mkdir(parents=True, exist_ok=True)
    final = out_dir / index_file_name(publisher.value)
    tmp = out_dir / f".{final.name}.building"
    full = write_index(tmp, rows, stamp)
    _replace(tmp, final)
    sha, size = _sha256_file(final), final.stat().st_size
    stamp_path = out_dir / stamp_file_name(publisher.value)
    tmp_stamp = out_dir / f".{stamp_path.name}.building"
    tmp_stamp.write_bytes(pretty_bytes(stamp_document(full, final.name, sha, size)))
    _replace(tmp_stamp, stamp_path)
    return BuildResult(publisher=publisher.value, index_path=final, stamp_path=stamp_path, stamp=full,
                       index_sha256=sha, index_bytes=size)
