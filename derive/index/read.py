"""Read side of the index format: open read-only, read the stamp, check what is mounted.

``serve/`` mounts indexes through these functions; ``lex index verify`` uses
:func:`derive.index.verify.verify_index`, which adds the expensive checks (content digest,
text hashes, stamp file).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from derive.index.schema import (
    APPLICATION_ID,
    COUNTED_TABLES,
    INDEX_FORMAT,
    REQUIRED_STAMP_KEYS,
    REQUIRED_TABLES,
    USER_VERSION,
    count_key,
    count_sql,
)
from derive.index.text import NORMALIZATION
from legal.errors import IndexError_


def open_readonly(path: Path, *, check_same_thread: bool = True,
                  factory: type[sqlite3.Connection] = sqlite3.Connection) -> sqlite3.Connection:
    """A read-only connection: ``mode=ro&immutable=1`` URI and ``PRAGMA query_only=1``."""
    if not path.is_file():
        raise IndexError_("index file not found", code="index_missing", subject=path.name)
    uri = path.resolve().as_uri() + "?mode=ro&immutable=1"
    conn = sqlite3.connect(uri, uri=True, check_same_thread=check_same_thread, isolation_level=None,
                           factory=factory)
    conn.execute("PRAGMA query_only=1")
    return conn


@contextmanager
def readonly_indexes(index_dir: Path) -> Iterator[dict[str, sqlite3.Connection]]:
    """Every ``*.sqlite`` index of ``index_dir`` opened read-only (:func:`open_readonly`), by file
    stem (the publisher), closed on exit — for the scripts that check a lexicon against a build."""
    conns = {path.stem: open_readonly(path) for path in sorted(index_dir.glob("*.sqlite"))}
    try:
        yield conns
    finally:
        for conn in conns.values():
            conn.close()


def read_stamp(conn: sqlite3.Connection) -> dict[str, str]:
    try:
        return {str(k): str(v) for k, v in conn.execute("SELECT k, v FROM stamp ORDER BY k")}
    except sqlite3.DatabaseError as exc:
        raise IndexError_(f"cannot read the index stamp: {exc}", code="stamp_unreadable") from None


def mount_problems(conn: sqlite3.Connection) -> list[str]:
    """Everything that makes an index unfit to mount (empty list = fit). Cheap checks only."""
    problems: list[str] = []
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        user_version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
    except sqlite3.DatabaseError as exc:
        return [f"not a readable SQLite file: {exc}"]
    if app_id == APPLICATION_ID and isinstance(user_version, int) and 0 < user_version < USER_VERSION:
        problems.append(f"index format {user_version} is older than {INDEX_FORMAT} (user_version {USER_VERSION}); "
                        "rebuild the index")
    elif app_id != APPLICATION_ID or user_version != USER_VERSION:
        problems.append(f"not a {INDEX_FORMAT} file (application_id {app_id}, user_version {user_version})")
    missing = sorted(REQUIRED_TABLES - tables)
    if missing:
        return [*problems, f"missing tables: {', '.join(missing)}"]
    stamp = read_stamp(conn)
    if stamp.get("schema") != INDEX_FORMAT:
        problems.append(f"schema {stamp.get('schema')!r} is not {INDEX_FORMAT!r}; rebuild the index")
    problems.extend(f"stamp lacks {key!r}" for key in REQUIRED_STAMP_KEYS if key not in stamp)
    if "text_normalization" in stamp and stamp["text_normalization"] != NORMALIZATION:
        problems.append(f"names normalised by {stamp['text_normalization']!r}, not {NORMALIZATION!r}; rebuild the index")
    for table in COUNTED_TABLES:
        actual = conn.execute(count_sql(table)).fetchone()[0]
        if stamp.get(count_key(table)) != str(actual):
            problems.append(f"stamp {count_key(table)}={stamp.get(count_key(table))} but the table holds {actual}")
    return problems


def check_mountable(conn: sqlite3.Connection, name: str) -> dict[str, str]:
    """The stamp of a fit index; raises :class:`IndexError_` listing every problem otherwise."""
    problems = mount_problems(conn)
    if problems:
        raise IndexError_("; ".join(problems), code="index_unfit", subject=name)
    return read_stamp(conn)
