"""Dataset rows (docs/contracts.md §2): one per provision state, plus gap rows.

Rows are plain JSON-able dicts with a fixed set of keys (optional values are ``null``), so the
JSONL lines (RFC 8785 canonical encoding) and the Parquet columns carry the same data.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa

from corpus_tree import Observation, VersionRecord
from derive.citations import AliasTable, resolve
from derive.events import first_observed
from derive.model import Gap, Provision
from legal.canonical import canonical_bytes

# Version of the dataset row and gap row format built here. It is part of every derive cache key:
# a change here that changes any row, gap row or column must bump it (3: ``first_observed``).
ROW_FORMAT_VERSION = 3

COLUMNS = (
    "provision_id", "lex_id", "work_id", "publisher", "version_key", "language", "valid_from", "valid_to",
    "valid_to_convention", "anchor", "type", "num", "heading", "path", "article_valid_from", "text_md",
    "text_sha256", "citations", "profile", "evidence_sha256", "evidence_file", "record_sha256", "span",
    "label", "eli", "index_terms", "pages", "figures", "first_observed",
)

SCHEMA = pa.schema([
    ("provision_id", pa.string()), ("lex_id", pa.string()), ("work_id", pa.string()), ("publisher", pa.string()),
    ("version_key", pa.string()), ("language", pa.string()), ("valid_from", pa.string()),
    ("valid_to", pa.string()), ("valid_to_convention", pa.string()), ("anchor", pa.string()),
    ("type", pa.string()), ("num", pa.string()), ("heading", pa.string()), ("path", pa.list_(pa.string())),
    ("article_valid_from", pa.string()), ("text_md", pa.string()), ("text_sha256", pa.string()),
    ("citations", pa.list_(pa.struct([("href", pa.string()), ("text", pa.string()), ("target_work", pa.string())]))),
    ("profile", pa.string()), ("evidence_sha256", pa.string()), ("evidence_file", pa.string()),
    ("record_sha256", pa.string()), ("span", pa.struct([("start", pa.int64()), ("end", pa.int64())])),
    ("label", pa.string()), ("eli", pa.string()), ("index_terms", pa.list_(pa.string())),
    ("pages", pa.struct([("first", pa.int64()), ("last", pa.int64())])),
    ("figures", pa.list_(pa.struct([("n", pa.int64()), ("media_type", pa.string()), ("size", pa.int64()),
                                    ("sha256", pa.string()), ("src", pa.string())]))),
    ("first_observed", pa.string()),
])


def version_fields(version: VersionRecord, obs: Observation) -> dict[str, Any]:
    """The fields every row of one body of ``version`` shares (:func:`provision_row`'s ``fields``):
    worked out once per body, not once per provision."""
    return {
        "lex_id": version.lex_id,
        "work_id": str(version.work_id),
        "publisher": version.publisher.value,
        "version_key": str(version.version_key),
        "valid_from": version.valid_from,
        "valid_to": version.valid_to,
        "valid_to_convention": version.valid_to_convention.value,
        "evidence_file": obs.file,
        "record_sha256": version.record_sha256,
        "first_observed": first_observed(version, obs),
    }


def provision_row(p: Provision, version: VersionRecord, obs: Observation,
                  aliases: AliasTable | None, fields: dict[str, Any] | None = None) -> dict[str, Any]:
    """The row of one provision; with ``aliases=None`` citations stay unresolved (``href`` and
    ``text`` only) until :func:`with_targets` resolves them. ``fields``: :func:`version_fields`
    of ``version`` and ``obs`` when the caller has them (the same row either way)."""
    shared = fields if fields is not None else version_fields(version, obs)
    span = p.derived_from.span
    pages = p.derived_from.pages
    lex_id = shared["lex_id"]
    return {
        "provision_id": f"{lex_id}#{p.anchor}",
        "lex_id": lex_id,
        "work_id": shared["work_id"],
        "publisher": shared["publisher"],
        "version_key": shared["version_key"],
        "language": p.language,
        "valid_from": shared["valid_from"],
        "valid_to": shared["valid_to"],
        "valid_to_convention": shared["valid_to_convention"],
        "anchor": p.anchor,
        "type": p.type,
        "num": p.num,
        "heading": p.heading,
        "path": list(p.path),
        "article_valid_from": p.article_valid_from,
        "text_md": p.text_md,
        "text_sha256": p.text_sha256,
        "citations": [
            {"href": c.href, "text": c.text} if aliases is None
            else {"href": c.href, "text": c.text, "target_work": resolve(c.href, aliases)}
            for c in p.citations
        ],
        "profile": p.profile,
        "evidence_sha256": p.derived_from.evidence_sha256,
        "evidence_file": shared["evidence_file"],
        "record_sha256": shared["record_sha256"],
        "span": None if span is None else span.to_dict(),
        "label": p.label,
        "eli": p.eli,
        "index_terms": list(p.index_terms),
        "pages": None if pages is None else {"first": pages[0], "last": pages[1]},
        "figures": [f.to_dict() for f in p.figures],
        "first_observed": shared["first_observed"],
    }


def with_targets(row: dict[str, Any], target: Callable[[str], str | None]) -> dict[str, Any]:
    """``row`` with each citation's ``target_work`` set by ``target(href)`` (a new dict)."""
    if not row["citations"]:
        return row
    cites = [{"href": c["href"], "text": c["text"], "target_work": target(c["href"])} for c in row["citations"]]
    return {**row, "citations": cites}


_CITATIONS_KEY = b',"citations":'


def resolved_line(line: bytes, row: dict[str, Any], resolved: dict[str, Any]) -> bytes:
    """The canonical JSON (RFC 8785) of ``resolved`` (:func:`with_targets` of ``row``), given
    ``line``, the canonical JSON of ``row``: the same bytes but for the value of ``citations``, so
    only that value is encoded again (none when there is no citation: then ``resolved`` is ``row``).

    The value is found at the first ``,"citations":``, which inside an encoded string would read
    ``,\\"citations\\":``, and before which the sorted keys hold only strings (``anchor``,
    ``article_valid_from``); the old value is checked to be there, else the row is encoded whole.
    """
    if resolved is row:
        return line
    at = line.find(_CITATIONS_KEY)
    old = canonical_bytes(row["citations"])
    start = at + len(_CITATIONS_KEY)
    end = start + len(old)
    if at < 0 or line[start:end] != old or line[end:end + 1] != b",":
        return canonical_bytes(resolved)
    return line[:start] + canonical_bytes(resolved["citations"]) + line[end:]


def gap_row(version: VersionRecord, language: str | None, gap: Gap, evidence_sha256: str | None = None) -> dict[str, Any]:
    row: dict[str, Any] = {
        "lex_id": version.lex_id, "work_id": str(version.work_id), "language": language,
        "gap": gap.gap.value, "reason": gap.reason,
    }
    if evidence_sha256 is not None:
        row["evidence_sha256"] = evidence_sha256
    return row


def row_order(row: dict[str, Any]) -> tuple[str, str, str, int]:
    """Rows sort by work, version key, language, then document order (span start)."""
    span = row.get("span") or {}
    return (row["work_id"], row["version_key"], row["language"], int(span.get("start", 0)))


def gap_order(row: dict[str, Any]) -> tuple[str, str, str]:
    return (row["work_id"], row["lex_id"], row["language"] or "")
