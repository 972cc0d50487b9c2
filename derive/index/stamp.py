"""The index stamp: what an index was built from, how, and what it holds.

The stamp is a flat ``key → string`` map stored in the ``stamp`` table and repeated, with the
index file's size and SHA-256, in ``<publisher>.stamp.json``. Nothing in it comes from the
clock or the machine: ``built_at`` is a build input, paths are never recorded (only dataset
file names relative to the dataset directory and their hashes).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from derive.index.inputs import InputFile
from derive.index.rows import IndexRows
from derive.index.schema import (
    COUNTED_TABLES,
    FTS_TOKENIZER,
    INDEX_FORMAT,
    PAGE_SIZE,
    PROVISION_FTS_WEIGHTS,
    WORK_FTS_WEIGHTS,
    count_key,
    count_sql,
)
from derive.index.text import NORMALIZATION
from derive.index.textstore import ENCODING, ZLIB_VERSION
from legal.canonical import canonical_text, digest
from legal.ids import Publisher
from legal.validity import convention_of, semantics_of

BUILDER = "derive.index/9"  # /5: texts packed in zlib blocks; /6: word counts of texts; /7: per-work digests;
# /8: work_names ordered by work, every word_diffs pair stored as its changes; /9: a provision's type, num and
# heading stored only where they are not its lexical state's
STAMP_FILE_SCHEMA = "lex-evidence-index-stamp/1"


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    return canonical_text(value)


def publisher_facts(publisher: Publisher, manifest: Mapping[str, Any]) -> dict[str, str]:
    info = manifest.get("publisher")
    name = info.get("name") if isinstance(info, Mapping) else None
    out = {
        "publisher": publisher.value,
        "publisher_name": str(name or publisher.facts.authority),
        "jurisdiction": publisher.jurisdiction,
        "timeline_semantics": semantics_of(publisher).value,
        "valid_to_convention": convention_of(publisher).value,
        "text_public": _text(manifest.get("text_public", True)),
        "history_begins": _text(manifest.get("history_begins", "publisher")),
    }
    for key in ("tier", "attribution", "source_terms_url", "text_included", "modifications"):
        if manifest.get(key) is not None:
            out[key] = _text(manifest[key])
    return out


def input_facts(manifest: Mapping[str, Any], dataset_files: Sequence[InputFile]) -> dict[str, str]:
    files = [{"path": f.path, "sha256": f.sha256, "size": f.size} for f in dataset_files]
    out = {
        "corpus_manifest_sha256": digest(manifest),
        "dataset_sha256": digest(files),
        "dataset_files": canonical_text(files),
    }
    for key in ("schema", "digest", "records_digest", "content_digest"):
        value = manifest.get(key)
        if isinstance(value, str):
            out[f"corpus_manifest.{key}"] = value
    return out


def content_facts(rows: IndexRows) -> dict[str, str]:
    versions = rows.versions
    froms = sorted(str(v[6]) for v in versions if not v[14])
    out = {count_key(t): str(len(rows.table(t))) for t in COUNTED_TABLES}
    out.update({
        "excluded_empty_provisions": str(rows.excluded_empty_provisions),
        "withdrawn_versions": str(sum(1 for v in versions if v[14])),
        "valid_from_earliest": froms[0] if froms else "",
        "valid_from_latest": froms[-1] if froms else "",
    })
    return out


def stored_facts(conn: sqlite3.Connection, excluded_empty_provisions: int) -> dict[str, str]:
    """:func:`content_facts` read from the written tables (no row is held in memory)."""
    out = {count_key(t): str(conn.execute(count_sql(t)).fetchone()[0]) for t in COUNTED_TABLES}
    withdrawn, earliest, latest = conn.execute(
        "SELECT (SELECT count(*) FROM versions WHERE withdrawn), min(valid_from), max(valid_from)"
        " FROM versions WHERE NOT withdrawn").fetchone()
    out.update({
        "excluded_empty_provisions": str(excluded_empty_provisions),
        "withdrawn_versions": str(withdrawn),
        "valid_from_earliest": earliest or "",
        "valid_from_latest": latest or "",
    })
    return out


def format_facts(sqlite_version: str) -> dict[str, str]:
    return {
        "schema": INDEX_FORMAT,
        "builder": BUILDER,
        "sqlite_version": sqlite_version,
        "page_size": str(PAGE_SIZE),
        "text_encoding": ENCODING,
        "zlib_version": ZLIB_VERSION,
        "fts_tokenizer": FTS_TOKENIZER,
        "text_normalization": NORMALIZATION,
        "provision_fts_weights": canonical_text([str(w) for w in PROVISION_FTS_WEIGHTS]),
        "work_fts_weights": canonical_text([str(w) for w in WORK_FTS_WEIGHTS]),
    }


def build_stamp(publisher: Publisher, manifest: Mapping[str, Any], dataset_files: Sequence[InputFile],
                content: Mapping[str, str], built_at: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """Every stamp entry except ``content_digest``; ``content`` is :func:`content_facts` or :func:`stored_facts`."""
    stamp = {
        **publisher_facts(publisher, manifest),
        **input_facts(manifest, dataset_files),
        **content,
        **format_facts(sqlite3.sqlite_version),
        "built_at": built_at,
    }
    for key, value in (extra or {}).items():
        stamp[f"input.{key}"] = value
    return dict(sorted(stamp.items()))


def stamp_document(stamp: Mapping[str, str], index_name: str, index_sha256: str, index_bytes: int) -> dict[str, Any]:
    """The content of ``<publisher>.stamp.json``."""
    return {
        "schema": STAMP_FILE_SCHEMA,
        "index": {"file": index_name, "sha256": index_sha256, "bytes": index_bytes},
        "stamp": dict(sorted(stamp.items())),
    }
