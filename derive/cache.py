"""Per-work derivation cache: a work is re-derived only when its inputs change (issues #7, #12).

A work's **cache key** is the SHA-256 of the canonical JSON of two things, and nothing else:

1. its *inputs* (:func:`work_inputs_digest`):

   - the declared derivation versions (:func:`derivation_versions`): the version constants of
     the shared, non-profile code (text normalisation, rendering, rows, history, body selection,
     parsing, the dispatch rules, the cache entry format) and the versions of Python, Unicode,
     lxml/libxml2, pypdfium2 and PDFium;
   - the limits in force;
   - the work id, and each version's ``lex_id`` with its verified ``record_sha256`` (the record
     names every observation's evidence hash, its format and text status);
   - which of those evidence hashes this store holds (bytes are content-addressed, so the set of
     held hashes fixes every byte a profile can read);

2. the **profile id and version** (``akn-lu/1``) of every profile that derives, or could derive,
   a body of the work (:func:`work_key`): per body, the dispatch *route* its bytes take
   (:func:`route`: ``akn``, ``html``, ``pdf``…) names the profiles the dispatcher runs or falls
   back to (:func:`route_profiles`).

No source file is hashed: editing a docstring or refactoring re-derives nothing, and a change
that alters output must bump the version it falls under (a profile's id, or one of the declared
constants, each defined next to the code it versions). ``tests/derive/test_cache_keys.py`` ties
the profile versions to the frozen per-profile output fingerprints of the fixture bodies.

The routes of a work are a function of its held bytes, which are part of its inputs, so they are
learnt when the work is derived and kept in its entry: an entry is stored under the inputs
digest, ``<cache>/works/<publisher>/<slug>/<inputs-digest>.json``, with its routes and key, and is
a hit only if the key recomputed from those routes with the *current* profile versions is the
stored key. An unchanged re-run therefore reads no body; a profile bump re-derives exactly the
works with a body on one of its routes.

The alias table is deliberately *not* an input: cached rows keep their citations unresolved
(``href`` and ``text``) and :mod:`derive.dataset` resolves them against the current table when
it assembles the dataset, so a new work or alias re-resolves links without re-deriving bodies.
The resolver's own version (:data:`derive.citations.RESOLVER_VERSION`) enters only
:func:`derivation_digest`, the identity of a whole build (shards, pipeline stage).

Entries are written atomically (temporary file + rename); an entry that cannot be read, or that
names another digest, is a miss. After a run, other digests of the works it processed are
pruned. The cache is never evidence: deleting it only makes the next run slower, and
``lex derive verify`` always re-derives from scratch.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import sys
import tempfile
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from corpus_tree import VersionRecord
from derive.dispatch import sniff
from derive.limits import DEFAULT_LIMITS, Limits
from derive.units import PDF_MEMORIAL, Evidence, held
from legal.canonical import canonical_bytes, digest

CACHE_SCHEMA = "lex-derive-cache/2"
INPUT_SCHEMA = "lex-derive-work-input/2"

# Version of the dispatch rules of derive/dispatch.py (sniffing, fallbacks between profiles, the
# errors and gaps it returns itself) and of the route table below. It is part of every cache key:
# a change there that changes which profile a body goes to, or any output, must bump it.
DISPATCH_VERSION = 1


def route(data: bytes, fmt: str | None = None) -> str:
    """The dispatch route of one body: what :func:`derive.dispatch.derive_body` does with it.

    ``akn`` | ``formex`` | ``zip`` | ``html`` | ``pdf`` | ``pdf-memorial`` | ``xml`` | ``unknown``.
    """
    kind = sniff(data)
    return PDF_MEMORIAL if kind == "pdf" and fmt == PDF_MEMORIAL else kind


def route_profiles() -> dict[str, tuple[str, ...]]:
    """Route → the ids (with version) of every profile the dispatcher may run on it.

    Read from the profile modules' own constants at each call, so bumping ``PROFILE`` in a
    profile module is all it takes to re-derive the works it touches.
    """
    from derive.profiles import akn_lu, fmx4_eu, html_eu, pdf_lu, pdf_memorial_lu, xhtml_eu

    return {
        "akn": (akn_lu.PROFILE, akn_lu.DOCUMENT_PROFILE),  # articles, else the whole document
        "formex": (fmx4_eu.PROFILE,),
        "zip": (fmx4_eu.PROFILE,),
        "html": (xhtml_eu.PROFILE, html_eu.PROFILE),  # strict, else tolerant
        "pdf": (pdf_lu.PROFILE,),
        PDF_MEMORIAL: (pdf_memorial_lu.PROFILE, pdf_lu.PROFILE),  # pdf-lu: the gap without an act
        "xml": (),  # refused by the dispatcher (unknown_namespace)
        "unknown": (),  # refused by the dispatcher (unknown_format)
    }


def profile_ids() -> list[str]:
    """Every profile id (with version) the dispatcher can run now, sorted."""
    return sorted({p for ids in route_profiles().values() for p in ids})


@functools.cache
def _environment() -> dict[str, Any]:
    from lxml import etree
    from pypdfium2 import version as pdfium_version

    return {
        "python": list(sys.version_info[:2]), "unicode": unicodedata.unidata_version,
        "lxml": list(etree.LXML_VERSION), "libxml2": list(etree.LIBXML_VERSION),
        "pypdfium2": str(pdfium_version.PYPDFIUM_INFO), "pdfium": str(pdfium_version.PDFIUM_INFO),
    }


def declared_versions() -> dict[str, Any]:
    """The version constants of the shared, non-profile derivation code (read at each call).

    Each is defined next to the code it versions; ``body`` ones (:data:`BODY_VERSIONS`) shape
    what a profile makes of one body and are frozen with the profiles' output fingerprints.
    """
    from derive import dataset, history, limits, render, rows, text, units

    return {
        "cache": CACHE_SCHEMA,
        "dispatch": DISPATCH_VERSION,
        "history": history.HISTORY_VERSION,
        "normalisation": text.NORMALISATION_VERSION,
        "parsing": limits.PARSING_VERSION,
        "render": render.RENDER_VERSION,
        "rows": rows.ROW_FORMAT_VERSION,
        "units": units.UNITS_VERSION,
        "work_block": dataset.WORK_BLOCK_VERSION,
    }


# The declared versions that shape one body's extraction result (the others shape rows, history,
# body selection or the cache): a profile's frozen fingerprints hold only under these.
BODY_VERSIONS = ("dispatch", "normalisation", "parsing", "render")


def derivation_versions() -> dict[str, Any]:
    """What every derived output depends on besides profiles and inputs: the declared versions
    and the versions of Python, Unicode, lxml/libxml2, pypdfium2 and PDFium."""
    return {**declared_versions(), **_environment()}


def derivation_digest(limits: Limits = DEFAULT_LIMITS) -> str:
    """The identity of the derivation as a whole: every profile id, the declared versions, the
    citation resolver's version and the limits. Shards of one build must agree on it, and the
    pipeline's derive stage re-runs when it changes (the per-work cache then re-derives only the
    works whose own key changed). The Parquet format (``DATASET_FORMAT_VERSION``, and the row
    groups' cut, ``ROW_GROUPS_VERSION``) is here too, not in the per-work key: the cache holds rows,
    the Parquet files are written from them."""
    from derive.citations import RESOLVER_VERSION
    from derive.parquet import DATASET_FORMAT_VERSION, ROW_GROUPS_VERSION

    return digest({"profiles": profile_ids(), "versions": derivation_versions(),
                   "resolver": RESOLVER_VERSION, "dataset": DATASET_FORMAT_VERSION,
                   "row_groups": ROW_GROUPS_VERSION, "limits": dataclasses.asdict(limits)})


def work_inputs_digest(work_id: str, versions: Iterable[VersionRecord], evidence: Evidence,
                       limits: Limits, derivation: Mapping[str, Any]) -> str:
    """The digest of one work's inputs (``versions`` already hash-checked)."""
    versions = list(versions)
    records = sorted((v.lex_id, v.record_sha256) for v in versions)
    hashes: set[str] = set()
    for version in versions:
        for _expr, obs in version.observations():
            if held(obs, evidence):
                hashes.add(obs.sha256)
    return digest({
        "schema": INPUT_SCHEMA, "derivation": dict(derivation), "limits": dataclasses.asdict(limits),
        "work_id": work_id, "versions": [list(r) for r in records], "held": sorted(hashes),
    })


def work_key(inputs: str, routes: Iterable[str], table: Mapping[str, Iterable[str]]) -> str:
    """The cache key of a work: its inputs digest and the profile ids (with version) of its
    bodies' ``routes`` in ``table`` (:func:`route_profiles`). A route the table does not know
    (a dispatch change) keys as itself, so it can never match a key made with that route known."""
    profiles = sorted({p for r in routes for p in table.get(r, (f"route:{r}?",))})
    return digest({"inputs": inputs, "profiles": profiles})


class WorkCache:
    """The content-addressed store of per-work derived outputs under ``root``."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def _dir(self, work_id: str) -> Path:
        publisher, slug = work_id.split(":", 1)
        return self.root / "works" / publisher / slug

    def path(self, work_id: str, input_digest: str) -> Path:
        return self._dir(work_id) / f"{input_digest}.json"

    def open(self, work_id: str, input_digest: str,
             table: Mapping[str, Iterable[str]] | None = None) -> CachedEntry | None:
        """The cached entry, its rows still on disk, or ``None`` (absent, unreadable, truncated,
        not this work and digest, or keyed with profile versions other than the current ones of
        ``table``, default :func:`route_profiles`)."""
        path = self.path(work_id, input_digest)
        try:
            entry, offset = _read_entry(path)
        except (OSError, ValueError):
            return None
        if (not isinstance(entry, dict) or entry.get("schema") != CACHE_SCHEMA
                or entry.get("input_digest") != input_digest or entry.get("work_id") != work_id
                or not isinstance(entry.get("routes"), list)):
            return None
        current = work_key(input_digest, entry["routes"], route_profiles() if table is None else table)
        if entry.get("key") != current:
            return None
        return CachedEntry(path, entry, offset)

    def get(self, work_id: str, input_digest: str,
            table: Mapping[str, Iterable[str]] | None = None) -> dict[str, Any] | None:
        """The cached entry with its ``rows`` (:meth:`open`, rows read), or ``None``."""
        cached = self.open(work_id, input_digest, table)
        if cached is None:
            return None
        return {**cached.entry, "rows": [row for rows in cached.rows() for row in rows]}

    def writer(self, work_id: str, input_digest: str,
               table: Mapping[str, Iterable[str]] | None = None) -> EntryWriter:
        """A writer of the entry of ``work_id`` under ``input_digest``, rows first (as they come)."""
        path = self.path(work_id, input_digest)
        path.parent.mkdir(parents=True, exist_ok=True)
        return EntryWriter(path, work_id, input_digest, route_profiles() if table is None else table)

    def put(self, work_id: str, input_digest: str, entry: dict[str, Any],
            table: Mapping[str, Iterable[str]] | None = None) -> None:
        """Store ``entry`` (which names its ``routes``) under its inputs digest, with its key."""
        writer = self.writer(work_id, input_digest, table)
        try:
            writer.rows(list(entry.get("rows", [])))
            writer.finish(entry)
        except BaseException:
            writer.abort()
            raise

    def prune(self, keep: dict[str, str]) -> int:
        """Remove, for each work in ``keep`` (work id → digest), every other entry. Returns the count."""
        removed = 0
        for work_id, input_digest in keep.items():
            base = self._dir(work_id)
            if not base.is_dir():
                continue
            for path in base.iterdir():
                if path.name != f"{input_digest}.json" and path.is_file():
                    path.unlink(missing_ok=True)
                    removed += 1
        return removed


# An entry is one JSON object, written as it is derived: its rows first, one a line (each row its
# canonical JSON, which the dataset line of a row without citations is too), then the rest.
#
#     {"rows":[
#     {…row…}
#     ,{…row…}
#     ],"lex_ids":[…],…,"schema":"lex-derive-cache/2","input_digest":…,"key":…,"row_count":N}
#
# ``json.loads`` reads it whole (the object is the same as a compact entry's); :class:`CachedEntry`
# reads the trailer first and then the rows a chunk at a time, so a cached work is never held
# whole. A compact entry (written whole) is still read, whole.
_ROWS_HEAD = b'{"rows":[\n'
_TRAILER = b"],"


def _dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _read_entry(path: Path) -> tuple[Any, int | None]:
    """An entry file's object without its rows, and the offset of its row lines (``None``: the
    entry is compact and its ``rows`` are in the object). Raises ``OSError``/``ValueError``."""
    with path.open("rb") as fh:
        if fh.readline() != _ROWS_HEAD:
            entry = json.loads(path.read_bytes())
            return entry, None
        offset = fh.tell()
        for count, line in enumerate(fh):
            if line.startswith(_TRAILER):
                trailer = json.loads(b"{" + line[len(_TRAILER):])
                if not isinstance(trailer, dict) or trailer.get("row_count") != count:
                    raise ValueError("cache entry rows and count differ")
                return trailer, offset
            if not (line.startswith((b"{", b",{")) and line.endswith(b"}\n")):
                raise ValueError("not a cache entry row line")
    raise ValueError("truncated cache entry")


@dataclasses.dataclass
class CachedEntry:
    """A cache hit: ``entry`` (everything but the rows) and the rows, read on demand."""

    path: Path
    entry: dict[str, Any]
    offset: int | None  # where the row lines start; None: the rows are in ``entry`` (compact entry)

    def rows(self, chunk: int = 2048) -> Iterator[list[dict[str, Any]]]:
        """The entry's rows, in order, ``chunk`` at a time."""
        if self.offset is None:
            rows = list(self.entry.get("rows", []))
            for start in range(0, len(rows), chunk):
                yield rows[start:start + chunk]
            return
        batch: list[dict[str, Any]] = []
        with self.path.open("rb") as fh:
            fh.seek(self.offset)
            for line in fh:
                if line.startswith(_TRAILER):
                    break
                batch.append(json.loads(line[1:] if line.startswith(b",") else line))
                if len(batch) >= chunk:
                    yield batch
                    batch = []
        if batch:
            yield batch


class EntryWriter:
    """Writes one cache entry as its rows come (:meth:`rows`), then the rest (:meth:`finish`),
    into a temporary file renamed into place at the end (atomic: a reader never sees half an entry)."""

    def __init__(self, path: Path, work_id: str, input_digest: str, table: Mapping[str, Iterable[str]]) -> None:
        self.path = path
        self.work_id = work_id
        self.input_digest = input_digest
        self.table = table
        self.count = 0
        fd, self.tmp = tempfile.mkstemp(prefix=".entry-", suffix=".tmp", dir=path.parent)
        self.fh = os.fdopen(fd, "wb")
        self.fh.write(_ROWS_HEAD)

    def rows(self, rows: Iterable[dict[str, Any]]) -> list[bytes]:
        """Write ``rows``, one a line, each as its canonical JSON (RFC 8785), which is returned
        (a caller encoding the same rows for the dataset reuses it)."""
        lines = [canonical_bytes(row) for row in rows]
        self.fh.write(b"".join((b"," if self.count or i else b"") + line + b"\n" for i, line in enumerate(lines)))
        self.count += len(lines)
        return lines

    def finish(self, entry: dict[str, Any]) -> None:
        """Complete the entry with ``entry`` (which names its ``routes``; any ``rows`` in it are
        ignored: they are the ones written) and its key, and move it into place."""
        key = work_key(self.input_digest, entry["routes"], self.table)
        data = {**{k: v for k, v in entry.items() if k != "rows"}, "schema": CACHE_SCHEMA,
                "input_digest": self.input_digest, "work_id": self.work_id, "key": key, "row_count": self.count}
        self.fh.write(_TRAILER + _dumps(data)[1:] + b"\n")
        self.fh.close()
        os.replace(self.tmp, self.path)

    def abort(self) -> None:
        self.fh.close()
        Path(self.tmp).unlink(missing_ok=True)
