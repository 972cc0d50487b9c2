"""Build the vectors of one publisher index: ``<publisher>.vectors.npy`` + ``<publisher>.vectors.json``.

Rows, in this order (the manifest's ``rows`` lists them as ``[kind, rowid, ordinal, language]``):

- ``"s"``: provision chunks, per lexical state (``lexical_states.state_rowid``) that occurs in at
  least one non-withdrawn version, by ``state_rowid`` then chunk ordinal;
- ``"w"``: work titles, per work (``works.work_rowid``): its distinct official titles and publisher
  short titles (no cut "…" forms, no Legilux "Version consolidée applicable au …" banners), by
  ``work_rowid``, language and title; ordinal = position in that list.

``scope="titles"`` builds the work-title rows only (no ``"s"`` rows): the affordable build for
the full corpora, where embedding every provision state is far beyond a build's budget. The
manifest then says ``"scope": "titles"``; a full build (``scope="all"``, the default) writes no
``scope`` key, so its bytes are unchanged. Readers need nothing new: a lane over a titles-only
file simply has no provision rows.

Every distinct chunk text is embedded once (``passage:`` side), in order of first appearance;
the encoder is batch-invariant (tested), so the batch size never changes bytes. Vectors are
quantised to int8 with one scale per file (:mod:`derive.vectors.quantise`). The manifest binds the
vectors to the index (file SHA-256 and stamp ``content_digest``) and to the encoder (id, weights
and engine SHA-256). Same index + same encoder → byte-identical files.
"""

from __future__ import annotations

import hashlib
import io
import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from derive.index.read import check_mountable, open_readonly
from derive.index.textstore import read_texts
from derive.vectors.cache import EmbeddingCache
from derive.vectors.chunking import DEFAULT_POLICY, ChunkPolicy, WordCounter, chunk_text, state_text
from derive.vectors.encoder import Encoder, FloatMatrix
from derive.vectors.quantise import choose_scale, quantise
from legal.canonical import canonical_bytes as canonical_json
from legal.canonical import file_sha256
from legal.errors import IndexError_

VECTORS_FORMAT = "lex-evidence-vectors/1"
QUANTISATION = "int8-symmetric-file-scale"
BANNER_PREFIX = "version consolidée applicable au"
#: What a build embeds: provision states and work titles, or the work titles only.
SCOPES = ("all", "titles")


def vectors_file_name(publisher: str) -> str:
    return f"{publisher}.vectors.npy"


def manifest_file_name(publisher: str) -> str:
    return f"{publisher}.vectors.json"


@dataclass(frozen=True)
class VectorsResult:
    publisher: str
    vectors_path: Path
    manifest_path: Path
    count: int
    state_rows: int
    work_rows: int
    chunks_embedded: int
    chunks_cached: int
    seconds: float
    manifest: dict[str, Any]


def _live_states(conn: sqlite3.Connection) -> list[tuple[int, str, str | None, str]]:
    """``(state_rowid, language, heading, text)`` of every state a live version shows."""
    rows = [(int(r[0]), str(r[1]), r[2], str(r[3])) for r in conn.execute(
        """SELECT s.state_rowid, s.language, s.heading, s.text_sha256
           FROM lexical_states s
           WHERE EXISTS (SELECT 1 FROM provisions p
                         JOIN expressions e ON e.expression_rowid = p.expression_rowid
                         JOIN versions v ON v.version_rowid = e.version_rowid
                         WHERE p.state_rowid = s.state_rowid AND v.withdrawn = 0)
           ORDER BY s.state_rowid""")]
    bodies = read_texts(conn, (sha for *_, sha in rows))
    return [(rowid, language, heading, bodies[sha]) for rowid, language, heading, sha in rows if sha in bodies]


def work_titles(conn: sqlite3.Connection) -> list[tuple[int, str, str]]:
    """Each work's distinct official and publisher short titles (no cut "…" forms, no banners): ``(work_rowid, language, title)``."""
    out: list[tuple[int, str, str]] = []
    seen: set[tuple[int, str, str]] = set()
    for work_rowid, language, value in conn.execute(
            """SELECT work_rowid, language, value FROM work_names
               WHERE kind IN ('official_title', 'publisher_short_title')
               ORDER BY work_rowid, language, value"""):
        title = " ".join(str(value).split())
        if not title or title.endswith("…") or title.lower().startswith(BANNER_PREFIX):
            continue
        key = (int(work_rowid), str(language), title)
        if key not in seen:
            seen.add(key)
            out.append(key)
    return out


def _npy_bytes(matrix: np.ndarray[Any, Any]) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(matrix), allow_pickle=False)
    return buf.getvalue()


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def canonical_bytes(doc: dict[str, Any]) -> bytes:
    """RFC 8785 bytes of the manifest (integers and strings only) and a final newline."""
    return canonical_json(doc) + b"\n"


def build_vectors(index_path: Path, encoder: Encoder, *, out_dir: Path | None = None,
                  policy: ChunkPolicy = DEFAULT_POLICY, cache_path: Path | None = None, batch_size: int = 16,
                  progress: Callable[[int, int], None] | None = None, scope: str = "all") -> VectorsResult:
    """Embed one index's provision states (unless ``scope="titles"``) and work titles; write them beside it."""
    if scope not in SCOPES:
        raise IndexError_(f"unknown vectors scope {scope!r}", code="invalid_argument", subject=scope)
    started = time.perf_counter()
    conn = open_readonly(index_path)
    try:
        stamp = check_mountable(conn, index_path.name)
        publisher = stamp["publisher"]
        states = _live_states(conn) if scope == "all" else []
        titles = work_titles(conn)
    finally:
        conn.close()
    index_sha = file_sha256(index_path)
    identity = encoder.identity
    words = WordCounter(encoder.count_tokens)

    rows: list[list[Any]] = []
    row_chunks: list[str] = []
    for state_rowid, language, heading, text in states:
        for ordinal, chunk in enumerate(chunk_text(state_text(heading, text), words, policy)):
            rows.append(["s", state_rowid, ordinal, language])
            row_chunks.append(chunk)
    state_rows = len(rows)
    title_policy = ChunkPolicy(policy.chunk_tokens, policy.chunk_tokens)
    ordinals: dict[int, int] = {}
    for work_rowid, language, title in titles:
        chunks = chunk_text(title, words, title_policy)
        if not chunks:
            continue
        ordinal = ordinals.get(work_rowid, 0)
        ordinals[work_rowid] = ordinal + 1
        rows.append(["w", work_rowid, ordinal, language])
        row_chunks.append(chunks[0])

    keys = [hashlib.sha256(c.encode("utf-8")).hexdigest() for c in row_chunks]
    unique: dict[str, str] = {}
    for key, chunk in zip(keys, row_chunks, strict=True):
        unique.setdefault(key, chunk)
    cache = EmbeddingCache(cache_path, identity) if cache_path is not None else None
    try:
        vectors: dict[str, FloatMatrix] = cache.get_many(unique) if cache is not None else {}
        cached = len(vectors)
        todo = [k for k in unique if k not in vectors]
        for start in range(0, len(todo), batch_size):
            batch = todo[start:start + batch_size]
            embedded = encoder.encode_passages([unique[k] for k in batch])
            fresh = {k: embedded[i] for i, k in enumerate(batch)}
            vectors.update(fresh)
            if cache is not None:
                cache.put_many(fresh)
            if progress is not None:
                progress(min(start + batch_size, len(todo)), len(todo))
    finally:
        if cache is not None:
            cache.close()

    matrix = (np.stack([vectors[k] for k in keys]).astype(np.float32) if keys
              else np.zeros((0, identity.dims), dtype=np.float32))
    scale = choose_scale(matrix)
    q = quantise(matrix, scale)
    npy = _npy_bytes(q)
    target = out_dir if out_dir is not None else index_path.parent
    target.mkdir(parents=True, exist_ok=True)
    vectors_path = target / vectors_file_name(publisher)
    manifest_path = target / manifest_file_name(publisher)
    manifest: dict[str, Any] = {
        "schema": VECTORS_FORMAT,
        "publisher": publisher,
        "index": {"file": index_path.name, "sha256": index_sha, "content_digest": stamp["content_digest"]},
        "encoder": identity.as_dict(),
        "chunking": policy.as_dict(),
        "quantisation": {"kind": QUANTISATION, "dtype": "int8", "scale": scale},
        "vectors": {"file": vectors_path.name, "sha256": hashlib.sha256(npy).hexdigest(), "bytes": len(npy),
                    "count": len(rows), "dims": identity.dims},
        "counts": {"state_rows": state_rows, "work_rows": len(rows) - state_rows,
                   "states": len({r[1] for r in rows[:state_rows]}),
                   "works": len({r[1] for r in rows[state_rows:]}), "distinct_chunks": len(unique)},
        "rows": rows,
    }
    if scope != "all":
        manifest["scope"] = scope
    _write_atomic(vectors_path, npy)
    _write_atomic(manifest_path, canonical_bytes(manifest))
    return VectorsResult(publisher, vectors_path, manifest_path, len(rows), state_rows, len(rows) - state_rows,
                         len(unique) - cached, cached, time.perf_counter() - started, manifest)


def find_indexes(index_dir: Path) -> list[Path]:
    from derive.index.schema import index_file_name
    from legal.ids import Publisher

    found = [index_dir / index_file_name(p.value) for p in Publisher if (index_dir / index_file_name(p.value)).is_file()]
    if not found:
        raise IndexError_("no index file found", code="index_missing", subject=index_dir.name)
    return found
