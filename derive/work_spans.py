"""Where each work's lines are in a merged dataset's ``provisions.jsonl``, and what they are a
function of: the sidecar the dataset merge writes beside the dataset directory
(``.<name>.work-spans.json``, like the row groups' sidecar; the dataset stays pure), bound to the
``provisions.jsonl`` SHA-256 the merge computed as it wrote the file.

Per work with lines, in file order: its work id, the position of its first line among the rows
(0-based; every line is a row), its byte offsets ``[start, end)``, and its rows' identity — the
work, its derive cache key and the rows encoding (:func:`derive.dataset.row_ident`), what the
merge already trusts to copy a work's Parquet rows and JSONL bytes from a previous output.

An incremental index build whose dataset file has the SHA-256 the sidecar names reads these
spans instead of passing over the 618 MB file to find and hash each work's lines
(:func:`derive.index.ranges.jsonl_ranges`); each work's key then digests its rows' identity
instead of its lines' bytes (:func:`identity_digest`). The sidecar is written only when every work
has an identity; a missing, damaged or stale sidecar (another file's digest) is not used.
Stdlib only: the dataset writer and the index builder both read this module.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from legal.canonical import canonical_bytes, sha256_hex

SCHEMA = "lex-work-spans/1"
#: what a work key's digest of a work's rows identity starts with (never a SHA-256 of bytes)
IDENTITY_PREFIX = "rows-identity:"


@dataclass(frozen=True)
class WorkSpan:
    """One work's lines: first row position, byte offsets ``[start, end)``, rows identity."""

    work_id: str
    position: int
    start: int
    end: int
    ident: str


def sidecar_path(dataset_dir: Path) -> Path:
    """``.<name>.work-spans.json`` beside the dataset directory ``<name>``."""
    return dataset_dir.parent / f".{dataset_dir.name}.work-spans.json"


def identity_digest(ident: str) -> str:
    """What stands for a work's lines in its index key when the sidecar vouches for them."""
    return IDENTITY_PREFIX + sha256_hex(ident.encode("utf-8"))


def document(jsonl_sha256: str, spans: Sequence[WorkSpan]) -> bytes:
    return canonical_bytes(
        {
            "schema": SCHEMA,
            "provisions_jsonl_sha256": jsonl_sha256,
            "works": [[s.work_id, s.position, s.start, s.end, s.ident] for s in spans],
        }
    )


def write(dataset_dir: Path, jsonl_sha256: str, spans: Sequence[WorkSpan] | None) -> None:
    """Write the sidecar (atomically), or remove it when ``spans`` is None (a work had no identity)."""
    path = sidecar_path(dataset_dir)
    if spans is None:
        path.unlink(missing_ok=True)
        return
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(document(jsonl_sha256, spans))
    os.replace(tmp, path)


def _span(entry: object) -> WorkSpan | None:
    if not (
        isinstance(entry, list)
        and len(entry) == 5
        and isinstance(entry[0], str)
        and isinstance(entry[4], str)
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in entry[1:4])
    ):
        return None
    return WorkSpan(entry[0], entry[1], entry[2], entry[3], entry[4])


def read(dataset_dir: Path, jsonl_sha256: str | None, size: int) -> list[WorkSpan] | None:
    """The spans the sidecar records for the ``provisions.jsonl`` whose SHA-256 is ``jsonl_sha256``
    and size ``size``; None when there is no sidecar, it names another file, or its spans do not
    tile the file (contiguous from byte 0 to ``size``, positions from 0 increasing, each work once)."""
    if jsonl_sha256 is None:
        return None
    try:
        value = json.loads(sidecar_path(dataset_dir).read_bytes())
    except (OSError, ValueError):
        return None
    if (
        not isinstance(value, Mapping)
        or value.get("schema") != SCHEMA
        or value.get("provisions_jsonl_sha256") != jsonl_sha256
        or not isinstance(value.get("works"), list)
    ):
        return None
    spans: list[WorkSpan] = []
    seen: set[str] = set()
    at = 0
    for entry in value["works"]:
        span = _span(entry)
        if (
            span is None
            or span.work_id in seen
            or span.start != at
            or span.end <= span.start
            or (span.position <= spans[-1].position if spans else span.position != 0)
        ):
            return None
        seen.add(span.work_id)
        spans.append(span)
        at = span.end
    return spans if at == size else None
