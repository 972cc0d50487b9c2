"""Typed reads of one mounted index (the only module of the core that writes SQL by hand,
apart from search ranking in :mod:`serve.core.search`).

Every function takes the connection of a :meth:`serve.core.mount.MountedIndex.session` and
returns frozen dataclasses, so the operations reason on values, not on cursor rows.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from derive.index.textstore import read_texts


@dataclass(frozen=True)
class Work:
    rowid: int
    work_id: str
    slug: str
    work_identifier: str
    document_type: str | None
    title: str | None
    title_language: str | None
    source_uri: str | None
    primary_language: str | None
    languages: tuple[str, ...]

    @classmethod
    def of(cls, r: sqlite3.Row) -> Work:
        return cls(r["work_rowid"], r["work_id"], r["slug"], r["work_identifier"], r["document_type"], r["title"],
                   r["title_language"], r["source_uri"], r["primary_language"], tuple(json.loads(r["languages"])))


@dataclass(frozen=True)
class Version:
    rowid: int
    work_rowid: int
    lex_id: str
    version_key: str
    publisher_version_identifier: str
    document_type: str | None
    valid_from: str
    valid_to: str | None
    valid_to_convention: str
    end_exclusive: str | None
    interval_status: str
    valid_time_source: str
    in_force_status: str | None
    publication_date: str | None
    withdrawn: bool
    first_observed: str | None
    record_sha256: str
    provenance_record_sha256: str | None
    document_roles_json: str = "[]"
    raw_json: str = "{}"

    @classmethod
    def of(cls, r: sqlite3.Row) -> Version:
        return cls(r["version_rowid"], r["work_rowid"], r["lex_id"], r["version_key"],
                   r["publisher_version_identifier"], r["document_type"], r["valid_from"], r["valid_to"],
                   r["valid_to_convention"], r["end_exclusive"], r["interval_status"], r["valid_time_source"],
                   r["in_force_status"], r["publication_date"], bool(r["withdrawn"]), r["first_observed"],
                   r["record_sha256"], r["provenance_record_sha256"], r["document_roles"], r["raw"])

    @property
    def document_roles(self) -> tuple[str, ...]:
        return tuple(json.loads(self.document_roles_json))

    @property
    def raw(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.raw_json)
        return value

    def covers(self, day: str) -> bool:
        """Half-open containment ``valid_from <= day < end_exclusive`` (ISO strings)."""
        return self.valid_from <= day and (self.end_exclusive is None or day < self.end_exclusive)


@dataclass(frozen=True)
class Expression:
    rowid: int
    version_rowid: int
    language: str
    title: str | None
    title_short: str | None
    source_uri: str | None
    text_available: bool
    text_reason: str | None
    text_url: str | None
    text_state: str
    gap_reason: str | None
    profile: str | None
    evidence_sha256: str | None
    evidence_file: str | None
    provision_count: int
    provisions_digest: str | None

    @classmethod
    def of(cls, r: sqlite3.Row) -> Expression:
        return cls(r["expression_rowid"], r["version_rowid"], r["language"], r["title"], r["title_short"],
                   r["source_uri"], bool(r["text_available"]), r["text_reason"], r["text_url"], r["text_state"],
                   r["gap_reason"], r["profile"], r["evidence_sha256"], r["evidence_file"], r["provision_count"],
                   r["provisions_digest"])

    @property
    def has_text(self) -> bool:
        return self.text_state == "provisions" and self.provision_count > 0


@dataclass(frozen=True)
class Provision:
    expression_rowid: int
    seq: int
    anchor: str
    type: str
    num: str | None
    heading: str | None
    path: tuple[str, ...]
    article_valid_from: str | None
    text_sha256: str
    state_rowid: int

    @classmethod
    def of(cls, r: sqlite3.Row) -> Provision:
        return cls(r["expression_rowid"], r["seq"], r["anchor"], r["type"], r["num"], r["heading"],
                   tuple(json.loads(r["path"])), r["article_valid_from"], r["text_sha256"], r["state_rowid"])


def _marks(values: Sequence[Any]) -> str:
    return ",".join("?" * len(values))


def work_by_slug(conn: sqlite3.Connection, slug: str) -> Work | None:
    row = conn.execute("SELECT * FROM works WHERE slug = ?", (slug,)).fetchone()
    return Work.of(row) if row else None


#: The columns of ``works`` in :class:`Work`'s field order (what ``SELECT *`` gives, named).
_WORK_COLUMNS = ("work_rowid, work_id, slug, work_identifier, document_type, title, title_language, source_uri, "
                 "primary_language, languages")


@functools.lru_cache(maxsize=64)
def _languages(value: str) -> tuple[str, ...]:
    """A work's ``languages`` JSON list as a tuple (a handful of distinct values per index)."""
    return tuple(json.loads(value))


def works_by_rowid(conn: sqlite3.Connection, rowids: Iterable[int]) -> dict[int, Work]:
    """The works of ``rowids`` (those that exist), by row id: :meth:`Work.of` of each row, built from
    plain tuples (the search shapes every answer's rows through here)."""
    ids = sorted(set(rowids))
    if not ids:
        return {}
    cursor = conn.cursor()
    cursor.row_factory = None
    rows = cursor.execute(f"SELECT {_WORK_COLUMNS} FROM works WHERE work_rowid IN ({_marks(ids)})", ids)
    return {r[0]: Work(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], _languages(r[9])) for r in rows}


def versions_of(conn: sqlite3.Connection, work_rowid: int) -> list[Version]:
    rows = conn.execute("SELECT * FROM versions WHERE work_rowid = ? ORDER BY valid_from, version_key", (work_rowid,))
    return [Version.of(r) for r in rows]


def version_by_lex_id(conn: sqlite3.Connection, lex_id: str) -> Version | None:
    row = conn.execute("SELECT * FROM versions WHERE lex_id = ?", (lex_id,)).fetchone()
    return Version.of(row) if row else None


def versions_by_rowid(conn: sqlite3.Connection, rowids: Iterable[int]) -> dict[int, Version]:
    ids = sorted(set(rowids))
    if not ids:
        return {}
    rows = conn.execute(f"SELECT * FROM versions WHERE version_rowid IN ({_marks(ids)})", ids)
    return {r["version_rowid"]: Version.of(r) for r in rows}


def expressions_of(conn: sqlite3.Connection, version_rowid: int) -> list[Expression]:
    rows = conn.execute("SELECT * FROM expressions WHERE version_rowid = ? ORDER BY language", (version_rowid,))
    return [Expression.of(r) for r in rows]


def expressions_for(conn: sqlite3.Connection, version_rowids: Iterable[int]) -> dict[int, list[Expression]]:
    ids = sorted(set(version_rowids))
    out: dict[int, list[Expression]] = defaultdict(list)
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        query = f"SELECT * FROM expressions WHERE version_rowid IN ({_marks(chunk)}) ORDER BY version_rowid, language"
        for r in conn.execute(query, chunk):
            out[r["version_rowid"]].append(Expression.of(r))
    return out


def provisions_of(conn: sqlite3.Connection, expression_rowid: int) -> list[Provision]:
    rows = conn.execute("SELECT * FROM provisions WHERE expression_rowid = ? ORDER BY seq", (expression_rowid,))
    return [Provision.of(r) for r in rows]


def provisions_by_anchors(conn: sqlite3.Connection, expression_rowid: int, anchors: Sequence[str]) -> list[Provision]:
    """The provisions with exactly these anchors (index lookup, document order)."""
    if not anchors:
        return []
    query = (f"SELECT * FROM provisions WHERE expression_rowid = ? AND anchor IN ({_marks(anchors)}) "
             "ORDER BY seq")
    return [Provision.of(r) for r in conn.execute(query, [expression_rowid, *anchors])]


class ProvisionKey(NamedTuple):
    """The light form of a provision used for comparisons (no path decoding)."""

    anchor: str
    text_sha256: str
    num: str | None
    heading: str | None


#: A ``ProvisionKey`` of a row of its four columns: ``tuple.__new__`` called from C (what
#: ``ProvisionKey._make`` does after a Python call per row; a row always has the four).
_provision_key = functools.partial(tuple.__new__, ProvisionKey)


def provision_keys(conn: sqlite3.Connection, expression_rowid: int,
                   anchors: Sequence[str] | None = None) -> list[ProvisionKey]:
    """The provisions' keys in document order (all of them, or those with exactly ``anchors``):
    the ``provisions`` view's columns, which join ``provision_rows`` to their lexical states (the path's
    subquery is not run for columns not asked)."""
    cursor = conn.cursor()
    cursor.row_factory = None
    query = "SELECT anchor, text_sha256, num, heading FROM provisions WHERE expression_rowid = ?"
    params: list[Any] = [expression_rowid]
    if anchors is not None:
        query += f" AND anchor IN ({_marks(anchors)})"
        params.extend(anchors)
    return list(map(_provision_key, cursor.execute(query + " ORDER BY seq", params)))


def anchors_of(conn: sqlite3.Connection, expression_rowid: int) -> list[str]:
    rows = conn.execute("SELECT anchor FROM provisions WHERE expression_rowid = ? ORDER BY seq", (expression_rowid,))
    return [str(r[0]) for r in rows]


def texts(conn: sqlite3.Connection, shas: Iterable[str]) -> dict[str, str]:
    """``sha -> text`` of the stored texts among ``shas`` (:func:`derive.index.textstore.read_texts`)."""
    return read_texts(conn, shas)


def citations_of(conn: sqlite3.Connection, expression_rowid: int,
                 anchors: Sequence[str] | None = None) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    query = "SELECT anchor, href, label, target_work_id FROM citations WHERE expression_rowid = ?"
    params: list[Any] = [expression_rowid]
    if anchors is not None:
        query += f" AND anchor IN ({_marks(anchors)})" if anchors else " AND 0"
        params.extend(anchors)
    for r in conn.execute(query + " ORDER BY seq", params):
        out[r["anchor"]].append({"href": r["href"], "text": r["label"], "work": r["target_work_id"]})
    return out


def has_history(conn: sqlite3.Connection, work_rowid: int, language: str) -> bool:
    row = conn.execute("SELECT 1 FROM provision_states WHERE work_rowid = ? AND language = ? LIMIT 1",
                       (work_rowid, language)).fetchone()
    return row is not None


def version_gap_reason(conn: sqlite3.Connection, lex_id: str, language: str = "") -> str | None:
    """The dataset's gap reason for a version (``language=""``: the version as a whole)."""
    row = conn.execute("SELECT gap, reason FROM gaps WHERE lex_id = ? AND language = ? ORDER BY gap LIMIT 1",
                       (lex_id, language)).fetchone()
    return None if row is None else str(row["reason"] or row["gap"])
