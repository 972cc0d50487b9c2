"""Build the per-article dataset from a corpus tree (docs/contracts.md §2), incrementally.

Output directory (every file deterministic: same tree + same code → same bytes)::

    provisions.jsonl        one canonical JSON line per provision state, sorted
    provisions.parquet      the same rows, typed (dates, categoricals, both validity conventions),
                            large row groups, key-value metadata (:mod:`derive.parquet`)
    states.parquet          distinct text states per work/language/anchor (:mod:`derive.states`)
    version_events.parquet  every event of every version record: transaction time (:mod:`derive.events`)
    version_visibility.parquet  per version, the intervals of transaction time it was held as current
    gaps.jsonl              one line per version/language without text (typed TextGap)
    errors.jsonl            one line per version that could not be derived (typed, with the hash)
    history/<publisher>/<slug>.json   distinct text states per anchor, derived intervals
    summary.json            counts (profiles, provisions, empty provisions, gaps, errors)
    shard.json              only in a shard's output (``shard=(i, n)``), read by :func:`merge_shards`

A version is atomic: if any of its bodies raises a :class:`legal.errors.DerivationError`
(malformed XML, unknown namespace, zip bomb, oversize body), nothing of that version is written
and the error is recorded; the run carries on with the next version.

A run is incremental (:mod:`derive.cache`): a work whose input digest is unchanged is read from
the per-work cache instead of re-derived, and citations are resolved against the current alias
table when the outputs are assembled, so the assembled files are byte-identical to a
from-scratch build. The output replaces ``out`` atomically (:mod:`derive.staging`).
"""

from __future__ import annotations

import bisect
import contextlib
import dataclasses
import functools
import hashlib
import importlib.metadata
import json
import multiprocessing
import os
import shutil
import tempfile
from collections import Counter, deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from corpus_tree import CorpusTree, VersionRecord
from corpus_tree.records import RECORD_FILE
from corpus_tree.tree import WORKS
from derive import rows as R
from derive.cache import (
    WorkCache,
    derivation_digest,
    derivation_versions,
    route,
    route_profiles,
    work_inputs_digest,
)
from derive.citations import AliasTable, alias_slug, resolve
from derive.dispatch import derive_body
from derive.events import (
    EVENTS_SCHEMA,
    VISIBILITY_SCHEMA,
    events_table,
    visibility_table,
    work_transaction_rows,
)
from derive.history import VersionTexts, build_history
from derive.limits import DEFAULT_LIMITS, Limits
from derive.model import ExtractionResult, Gap
from derive.parquet import (
    LICENCES,
    ParquetSink,
    PreviousGroups,
    groups_path,
    key_value_metadata,
    parquet_schema,
    plain_rows,
    to_parquet,
    write_groups,
)
from derive.profiles.pdf_memorial_lu import Act
from derive.staging import staged
from derive.states import SCHEMA as STATES_SCHEMA
from derive.states import states_table
from derive.units import FMX4, PDF_MEMORIAL, Evidence, Unit, fmx4_languages, held, units_for
from derive.work_spans import WorkSpan
from derive.work_spans import write as write_work_spans
from legal.artifacts import DATASET_TABLES
from legal.canonical import canonical_bytes as canonical_line
from legal.canonical import digest, sha256_hex
from legal.canonical import pretty_bytes as pretty
from legal.errors import ConfigError, DerivationError, LexError
from legal.heap import (
    DERIVE_GC_THRESHOLD,
    collector_relaxed,
    fastbins_off,
    set_fastbins,
    set_gc_threshold,
)
from legal.outcomes import TextGap

Progress = Callable[[str], None]
WITHHELD_REASONS = frozenset({"pending-gate"})
SHARD_SCHEMA = "lex-derive-shard/3"  # 2: whole-tree facts only in shard.json (``tree``, ``dataset``);
# 3: each work's cache key (``keys``) and the digest of what its rows were encoded with (``encoding``)
#: The dataset metadata that are facts of the whole tree: in a shard's Parquet files they are blank,
#: and the shard's ``shard.json`` carries them (``dataset``), so a shard whose own works did not
#: change keeps its large files byte for byte when another work of the tree changes
#: (:func:`refresh_shard`); the merge writes them from ``shard.json``.
TREE_FACTS = ("lex:corpus_manifest_sha256", "lex:corpus_records_digest")
SHARD_FILE = "shard.json"
#: a shard's ``provisions.parquet`` row groups end after this many bytes of JSONL (the dataset's are
#: :data:`derive.parquet.ROW_GROUP_BYTES`): small, so that the merge decodes only the groups that
#: hold rows it re-encodes (:class:`_ShardRows`); a shard file is not part of the dataset contract
SHARD_ROW_GROUP_BYTES = 8 << 20
# Version of the per-work assembly in this module (derive_version, derive_work: gap rows and their
# reasons, errors, counts). It is part of every derive cache key: a change here that changes any
# per-work output must bump it.
WORK_BLOCK_VERSION = 2  # 2: the versions' events and visibility intervals (derive.events)


@dataclass
class BuildReport:
    """What a run did; ``errors`` lists every refused version (empty on a clean run).

    :meth:`to_dict` is ``summary.json`` (the same for a from-scratch, an incremental, and a
    merged sharded build); :meth:`run_dict` adds how the run got there (works derived vs reused
    from the cache, the shard).
    """

    works: int = 0
    versions: int = 0
    units: int = 0
    provisions: int = 0
    empty_provisions: int = 0
    profiles: Counter[str] = field(default_factory=Counter)
    gaps: Counter[str] = field(default_factory=Counter)
    errors: list[dict[str, Any]] = field(default_factory=list)
    works_derived: int = 0
    works_reused: int = 0
    works_copied: int = 0  # reused works whose rows were copied from the previous shard output
    #: ``provisions.parquet`` row groups written / copied byte for byte from the previous file
    row_groups: int = 0
    row_groups_copied: int = 0
    shard: tuple[int, int] | None = None
    derived: list[str] = field(default_factory=list)  # ids of the works derived (not reused) by this run
    #: ids of the works whose ``provisions.jsonl`` lines a build copied byte for byte from the
    #: previous output it replaced (:attr:`works_copied` of them)
    copied: list[str] = field(default_factory=list)
    #: work id → (offset, length) of its lines in the ``provisions.jsonl`` a build or a merge wrote
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: file name → SHA-256 (hex) of the bytes this run wrote to it (``provisions.jsonl``: hashed as
    #: written, so the caller need not read the file again)
    sha256: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "works": self.works, "versions": self.versions, "units": self.units,
            "provisions": self.provisions, "empty_provisions": self.empty_provisions,
            "profiles": dict(sorted(self.profiles.items())), "gaps": dict(sorted(self.gaps.items())),
            "errors": len(self.errors),
        }

    def run_dict(self) -> dict[str, Any]:
        return {**self.to_dict(), "works_derived": self.works_derived, "works_reused": self.works_reused,
                "works_copied": self.works_copied, "row_groups": self.row_groups,
                "row_groups_copied": self.row_groups_copied, "shard": None if self.shard is None else list(self.shard)}

    def add_summary(self, summary: dict[str, Any]) -> None:
        """Add the counts of another ``summary.json`` (errors are added by the caller)."""
        for name in ("works", "versions", "units", "provisions", "empty_provisions"):
            setattr(self, name, getattr(self, name) + int(summary[name]))
        self.profiles.update(summary["profiles"])
        self.gaps.update(summary["gaps"])


@dataclass
class VersionOutcome:
    rows: list[dict[str, Any]] = field(default_factory=list)
    gaps: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    texts: VersionTexts | None = None
    results: list[ExtractionResult] = field(default_factory=list)
    routes: set[str] = field(default_factory=set)  # dispatch routes of its bodies (cache keys)


@dataclass
class WorkBlock:
    """Everything one work contributes to the dataset; rows keep citations unresolved."""

    work_id: str
    lex_ids: list[str] = field(default_factory=list)
    units: int = 0
    provisions: int = 0
    empty_provisions: int = 0
    profiles: Counter[str] = field(default_factory=Counter)
    rows: list[dict[str, Any]] = field(default_factory=list)
    gaps: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    history: bytes | None = None
    routes: set[str] = field(default_factory=set)  # dispatch routes of its bodies (cache keys)
    events: list[dict[str, Any]] = field(default_factory=list)  # version_events rows (derive.events)
    visibility: list[dict[str, Any]] = field(default_factory=list)  # version_visibility rows
    copied: bool = False  # its rows are to be copied from the previous shard output (not in the entry)

    def to_entry(self) -> dict[str, Any]:
        """The cache entry of the block (:mod:`derive.cache`); ``rows`` as the block holds them
        (none when they were streamed, :func:`derive_work`'s ``rows_out``)."""
        return {
            "lex_ids": self.lex_ids, "units": self.units, "provisions": self.provisions,
            "empty_provisions": self.empty_provisions, "profiles": dict(sorted(self.profiles.items())),
            "rows": self.rows, "gaps": self.gaps, "errors": self.errors,
            "history": None if self.history is None else self.history.decode("utf-8"),
            "routes": sorted(self.routes), "events": self.events, "visibility": self.visibility,
        }

    @classmethod
    def from_entry(cls, entry: dict[str, Any]) -> WorkBlock:
        history = entry["history"]
        return cls(work_id=entry["work_id"], lex_ids=list(entry["lex_ids"]), units=entry["units"],
                   provisions=entry["provisions"], empty_provisions=entry["empty_provisions"],
                   profiles=Counter(entry["profiles"]), rows=entry.get("rows", []), gaps=entry["gaps"],
                   errors=entry["errors"], history=None if history is None else history.encode("utf-8"),
                   routes=set(entry["routes"]), events=entry["events"], visibility=entry["visibility"])


@dataclass
class EncodedBlock:
    """A work's block ready for the writers: citations resolved, rows already encoded (canonical
    JSONL lines and an Arrow IPC stream), so a worker process hands over compact bytes, not
    hundreds of thousands of dicts, and the writer process only copies them."""

    work_id: str
    lex_ids: list[str]
    units: int
    provisions: int
    empty_provisions: int
    profiles: Counter[str]
    gaps: list[dict[str, Any]]
    errors: list[dict[str, Any]]
    history: bytes | None
    lines: list[bytes]  # provisions.jsonl lines of the work, in chunks (empty when spooled)
    table: pa.Buffer | None  # the same rows as an Arrow IPC stream (None when none or spooled)
    spool: str | None = None  # a worker's files <spool>.jsonl and <spool>.arrow, instead of both
    events: list[dict[str, Any]] = field(default_factory=list)  # version_events rows
    visibility: list[dict[str, Any]] = field(default_factory=list)  # version_visibility rows
    copied: bool = False  # no rows here: they are copied from the previous shard output


ENCODE_CHUNK = 2048  # rows per Arrow record batch when a block is encoded


class RowEncoder:
    """Encodes one work's rows as they come (already in output order), a chunk at a time:
    citations resolved by ``target``, canonical JSONL lines and an Arrow IPC stream.

    Rows are released from the lists handed to :meth:`add` as they are encoded, so a large work
    (the CRR: 120 MB of JSONL; the Code du travail: 96 MB) never holds its rows as dicts,
    resolved dicts, lines and Arrow buffers all at once — and, fed a version at a time by
    :func:`derive_work` or a cache entry a chunk at a time, never holds all its rows at all.
    With ``spool`` (a path prefix) the lines and the Arrow stream go to ``<spool>.jsonl`` and
    ``<spool>.arrow`` instead of memory: a worker process then hands over two file names, not
    the bytes. The output does not depend on how the rows were split between calls (the JSONL is
    their concatenation; the Parquet writer combines the Arrow chunks).
    """

    def __init__(self, target: Callable[[str], str | None], spool: str | None = None) -> None:
        self.target = target
        self.spool = spool
        self.lines: list[bytes] = []
        self.count = 0
        self._sink: Any = None
        self._writer: Any = None
        self._jsonl: Any = None

    def add(self, rows: list[dict[str, Any]], lines: list[bytes] | None = None) -> None:
        """Encode ``rows`` (emptied: each is replaced by ``{}`` once encoded). ``lines``, when
        given, are the canonical JSON of each of ``rows`` as they are (unresolved: the cache
        entry's lines, :meth:`derive.cache.EntryWriter.rows`); a row's line is then encoded again
        only in its citations (:func:`derive.rows.resolved_line`)."""
        if not rows:
            return
        if self._writer is None:
            self._sink = pa.OSFile(f"{self.spool}.arrow", "wb") if self.spool else pa.BufferOutputStream()
            self._writer = pa.ipc.new_stream(self._sink, R.SCHEMA)
            self._jsonl = open(f"{self.spool}.jsonl", "wb") if self.spool else None  # noqa: SIM115 - closed in finish
        for start in range(0, len(rows), ENCODE_CHUNK):
            stop = min(start + ENCODE_CHUNK, len(rows))
            chunk = [R.with_targets(r, self.target) for r in rows[start:stop]]
            if lines is None:
                data = b"".join(canonical_line(r) + b"\n" for r in chunk)
            else:
                data = b"".join(R.resolved_line(lines[i], rows[i], chunk[i - start]) + b"\n"
                                for i in range(start, stop))
            for i in range(start, stop):
                rows[i] = {}  # release the unresolved row
            if self._jsonl is not None:
                self._jsonl.write(data)
            else:
                self.lines.append(data)
            self._writer.write_batch(pa.RecordBatch.from_pylist(chunk, schema=R.SCHEMA))
        self.count += len(rows)

    def _close(self) -> pa.Buffer | None:
        table = None
        if self._writer is not None:
            self._writer.close()
            self._writer = None
            if self._jsonl is not None:
                self._jsonl.close()
            if self.spool:
                self._sink.close()
            else:
                table = self._sink.getvalue()
            self._sink = None
        return table

    def finish(self, block: WorkBlock) -> EncodedBlock:
        """The :class:`EncodedBlock` of ``block`` (whose own ``rows`` are encoded first, if any)."""
        rows, block.rows = block.rows, []
        try:
            self.add(rows)
            table = self._close()
        except BaseException:
            self.abort()
            raise
        return EncodedBlock(block.work_id, block.lex_ids, block.units, block.provisions, block.empty_provisions,
                            block.profiles, block.gaps, block.errors, block.history, self.lines, table,
                            self.spool if self.count else None, block.events, block.visibility, block.copied)

    def abort(self) -> None:
        """Drop what was encoded (and the spool files)."""
        try:
            self._close()
        finally:
            self.lines, self.count = [], 0
            if self.spool:
                for suffix in (".jsonl", ".arrow"):
                    Path(f"{self.spool}{suffix}").unlink(missing_ok=True)


def encode_block(block: WorkBlock, target: Callable[[str], str | None], spool: str | None = None) -> EncodedBlock:
    """:class:`EncodedBlock` of ``block``, citations resolved by ``target`` (:class:`RowEncoder`;
    ``block.rows`` is emptied)."""
    return RowEncoder(target, spool).finish(block)


# -- one version ---------------------------------------------------------------------------------


def _text_gap(version: VersionRecord, language: str, reason: str | None) -> Gap:
    if reason in WITHHELD_REASONS:
        return Gap(TextGap.TEXT_WITHHELD, f"publisher text gate pending ({reason})")
    return Gap(TextGap.TEXT_NOT_AVAILABLE, reason or "publisher record holds no text for this expression")


def _expression_gaps(version: VersionRecord, evidence: Evidence, units: list[Unit]) -> list[dict[str, Any]]:
    covered = {u.language for u in units}
    out = []
    if not version.expressions:
        out.append(R.gap_row(version, None, Gap(TextGap.TEXT_NOT_AVAILABLE,
                                                 "publisher lists no expression (no text in any language) for this state")))
    for expr in version.expressions:
        if expr.language in covered:
            continue
        if not expr.text.available:
            out.append(R.gap_row(version, expr.language, _text_gap(version, expr.language, expr.text.reason)))
        elif not any(held(o, evidence) for o in expr.observations):
            files = ", ".join(sorted(o.file for o in expr.observations)) or "none"
            out.append(R.gap_row(version, expr.language, Gap(
                TextGap.TEXT_NOT_AVAILABLE, f"publisher text observed but its bytes are not in this evidence store "
                                            f"(held elsewhere: {files})")))
        else:
            out.append(R.gap_row(version, expr.language, Gap(
                TextGap.UNSUPPORTED_MANIFESTATION, "no derivable manifestation among the held bodies")))
    return out


def memorial_act(version: VersionRecord, first_valid_from: str | None) -> Act | None:
    """Which act (and state) a Mémorial issue of ``version`` is asked for (from its slug)."""
    first = first_valid_from is None or version.valid_from <= first_valid_from
    return Act.from_slug(version.slug, version.valid_from, first)


def derive_version(version: VersionRecord, evidence: Evidence, fmx4_langs: frozenset[str],
                   aliases: AliasTable | None, limits: Limits = DEFAULT_LIMITS,
                   first_valid_from: str | None = None) -> VersionOutcome:
    """Rows, gaps and history texts of one version — or only errors, if any body was refused.

    With ``aliases=None`` the rows' citations stay unresolved (see :func:`derive.rows.with_targets`).
    ``first_valid_from`` is the earliest ``valid_from`` of the work (a Mémorial issue publishing
    the original act is taken only for the first version).
    """
    outcome = VersionOutcome()
    texts = VersionTexts(version.lex_id, str(version.version_key), version.valid_from)
    units = units_for(version, evidence, fmx4_langs)
    for unit in units:
        act = memorial_act(version, first_valid_from) if unit.kind == PDF_MEMORIAL else None
        data = evidence.read(unit.observation.sha256)
        outcome.routes.add(route(data, unit.kind))
        try:
            result = derive_body(data, language=unit.language, fmt=unit.kind, limits=limits, act=act,
                                 attachments=attachments(version, unit), sha256=unit.observation.sha256)
        except LexError as exc:
            outcome.errors.append({
                "lex_id": version.lex_id, "work_id": str(version.work_id), "language": unit.language,
                "evidence_sha256": unit.observation.sha256, "evidence_file": unit.observation.file,
                **exc.to_dict(),
            })
            continue
        outcome.results.append(result)
        _collect(outcome, texts, version, unit, result, aliases)
    if outcome.errors:
        return VersionOutcome(errors=outcome.errors, routes=outcome.routes)
    outcome.gaps.extend(_expression_gaps(version, evidence, units))
    outcome.texts = texts
    return outcome


def attachments(version: VersionRecord, unit: Unit) -> dict[str, tuple[str, int | None]]:
    """The other files of a Formex unit's expression by name: their SHA-256 and size as the
    version record gives them (the images a Formex act references; their bytes are not read)."""
    if unit.kind != FMX4:
        return {}
    return {o.file.rsplit("/", 1)[-1]: (o.sha256, o.size)
            for expr in version.expressions if expr.language == unit.language
            for o in expr.observations if o.format == FMX4 and o.file != unit.observation.file}


def _collect(outcome: VersionOutcome, texts: VersionTexts, version: VersionRecord, unit: Unit,
             result: ExtractionResult, aliases: AliasTable | None) -> None:
    if not result.provisions:
        gap = result.gap or Gap(TextGap.UNSUPPORTED_MANIFESTATION,
                                "; ".join(result.notes) or "profile found no provision in this body")
        outcome.gaps.append(R.gap_row(version, unit.language, gap, result.evidence_sha256))
        return
    texts.profiles.add(result.profile)
    lang_texts = texts.texts.setdefault(unit.language, {})
    fields = R.version_fields(version, unit.observation)
    for p in result.provisions:
        outcome.rows.append(R.provision_row(p, version, unit.observation, aliases, fields))
        if p.is_empty:
            texts.empty[unit.language] += 1
        else:
            lang_texts[p.anchor] = (p.text_sha256, p.article_valid_from)


# -- one work --------------------------------------------------------------------------------------


def _hash_ok(record: VersionRecord) -> bool:
    body = {k: v for k, v in record.data.items() if k != "record_sha256"}
    return sha256_hex(canonical_line(body)) == record.record_sha256


def load_versions(tree: CorpusTree, slug: str) -> list[VersionRecord]:
    """A work's version records, hash-checked, ordered by (valid_from, version key).

    Raises exactly what ``tree.versions(slug)`` (verifying) raises; the hash check itself uses
    the fast canonical encoder and falls back to the corpus's own check on any doubt.
    """
    try:
        records: list[VersionRecord] | None = tree.versions(slug, verify=False)
    except LexError:
        records = None
    if records is None or not all(_hash_ok(r) for r in records):
        records = tree.versions(slug)
    return sorted(records, key=lambda v: (v.valid_from, str(v.version_key)))


def derive_work(work_id: str, versions: Sequence[VersionRecord], evidence: Evidence,
                limits: Limits = DEFAULT_LIMITS, progress: Progress | None = None,
                rows_out: Callable[[list[dict[str, Any]]], None] | None = None) -> WorkBlock:
    """Derive every version of one work (``versions`` ordered as :func:`load_versions` orders them).

    Rows come out in output order (:func:`derive.rows.row_order`: work, version key, language,
    document order) a version at a time: versions are derived in the order of their (work id,
    version key) — versions sharing both, together — and each one's rows sorted, which is the
    order a sort of all the work's rows gives. With ``rows_out`` each version's rows are handed
    to it (and not kept in ``block.rows``), so a work never holds more than one version's rows;
    without, they are collected in ``block.rows``. Everything else (lex ids, gaps, errors, the
    history's texts) keeps the order of ``versions``.
    """
    langs = fmx4_languages(list(versions), evidence)
    first = min((v.valid_from for v in versions), default=None)
    block = WorkBlock(work_id, lex_ids=[v.lex_id for v in versions])
    texts: list[VersionTexts | None] = [None] * len(versions)
    gaps: list[list[dict[str, Any]]] = [[] for _ in versions]
    errors: list[list[dict[str, Any]]] = [[] for _ in versions]
    groups: dict[tuple[str, str], list[int]] = {}
    for i, version in enumerate(versions):
        groups.setdefault((str(version.work_id), str(version.version_key)), []).append(i)
    for group in sorted(groups):
        rows: list[dict[str, Any]] = []
        for i in groups[group]:
            version = versions[i]
            outcome = derive_version(version, evidence, langs, None, limits, first)
            if progress is not None:
                progress(version.lex_id)
            errors[i], gaps[i] = outcome.errors, outcome.gaps
            block.routes |= outcome.routes
            rows.extend(outcome.rows)
            block.units += len(outcome.results)
            for result in outcome.results:
                if result.provisions:
                    block.profiles[result.profile] += 1
                block.provisions += len(result.provisions)
                block.empty_provisions += result.empty_provisions
            if not version.is_withdrawn:
                texts[i] = (outcome.texts if outcome.texts is not None
                            else VersionTexts(version.lex_id, str(version.version_key), version.valid_from))
            del outcome
        rows.sort(key=R.row_order)
        if rows_out is None:
            block.rows.extend(rows)
        else:
            rows_out(rows)
        del rows
    block.errors = [e for part in errors for e in part]
    block.gaps = [g for part in gaps for g in part]
    if versions:
        block.history = pretty(build_history(work_id, [t for t in texts if t is not None]))
    transactions = work_transaction_rows(versions)
    block.events, block.visibility = transactions["events"], transactions["visibility"]
    return block


# -- the tree --------------------------------------------------------------------------------------


def alias_table(tree: CorpusTree, known: Mapping[str, Sequence[Any]] | None = None,
                found: dict[str, list[Any]] | None = None) -> AliasTable:
    """``legilux_same_as`` aliases of every held work, plus the set of held work ids.

    ``known`` (the pipeline's memo of a previous run): per work slug, ``[records digest, alias
    slugs]``; a work whose digest in the tree manifest's ``works_index`` (``digest([[lex_id,
    record_sha256], …])``, verified against the records by the corpus-tree stage) is the recorded
    one is not read: its records are those that named these slugs. ``found``, when given, receives
    every work's ``[digest, slugs]`` (digest None when the manifest has none: never reused)."""
    pairs: list[tuple[str, str]] = []
    held_ids: set[str] = set()
    index = tree.manifest().get("works_index") if known is not None or found is not None else None
    digests = index if isinstance(index, dict) else {}
    for work in tree.works():
        held_ids.add(work.lex_work_id)
        if not work.publisher.facts.identifiers.aliases:  # facts: its official aliases name works
            continue
        entry = digests.get(work.lex_work_id)
        current = entry.get("digest") if isinstance(entry, dict) and isinstance(entry.get("digest"), str) else None
        recorded = (known or {}).get(work.slug)
        if current is not None and isinstance(recorded, (list, tuple)) and len(recorded) == 2 \
                and recorded[0] == current and isinstance(recorded[1], list):
            slugs = [str(s) for s in recorded[1]]
        else:
            slugs = _work_alias_slugs(tree, work.slug)
        if found is not None:
            found[work.slug] = [current, slugs]
        pairs.extend((slug, work.lex_work_id) for slug in slugs)
    return AliasTable.build(sorted(set(pairs)), held_ids)


def _work_alias_slugs(tree: CorpusTree, slug: str) -> list[str]:
    """The alias slugs a work's version records name (``legilux_same_as``), in record order."""
    slugs: list[str] = []
    for version in tree.versions(slug, verify=False):
        for meta in version.publisher_metadata:
            if meta.get("kind") == "legilux_same_as":
                alias = alias_slug(str(meta.get("identifier", "")))
                if alias:
                    slugs.append(alias)
    return slugs


def shard_of(slug: str, shards: int) -> int:
    """The stable shard of a work: ``int(sha256(slug)[:8], 16) % shards``."""
    return int(sha256_hex(slug.encode("utf-8"))[:8], 16) % shards


def _check_shard(shard: tuple[int, int] | None) -> None:
    if shard is not None and not (isinstance(shard[0], int) and isinstance(shard[1], int)
                                  and 0 <= shard[0] < shard[1]):
        raise ConfigError(f"shard must be (i, n) with 0 <= i < n, not {shard!r}", code="bad_shard",
                          subject=repr(shard))


_WORK_FACTS: dict[str, tuple[object, list[tuple[str, str, str, str]]]] = {}

#: The whole-tree facts held for the duration of a :func:`tree_held` block, by tree root: its work
#: facts (``"facts"``), and the digests a stage asks of every shard, by their arguments.
_HELD: dict[str, dict[Any, Any]] = {}


@contextlib.contextmanager
def tree_held(tree: CorpusTree) -> Iterator[None]:
    """Within the block, what a stage asks of the same tree for every shard is computed once and
    held: the work facts (:func:`_work_facts`: without the block, each ask stats every work record
    again to know that the facts it keeps are still current), the build's tree digest
    (:func:`_tree_digest`: every work's version keys listed) and each shard's inputs
    (:func:`shard_inputs`). The caller promises that the tree does not change inside the block (a
    stage reads the tree it started on; the import that writes it is another stage). The values are
    those computed without the block; nothing is kept after it. Blocks nest (the outer one holds)."""
    root = str(tree.root)
    if root in _HELD:
        yield
        return
    _HELD[root] = {}
    try:
        yield
    finally:
        del _HELD[root]


def _held(tree: CorpusTree, key: Any, compute: Callable[[], Any], keep: object = None) -> Any:
    """``compute()``, or inside :func:`tree_held` the value held under ``key`` for ``tree``.
    ``keep``: an object the key names by identity (an alias table), held with the value so that
    its identity cannot be taken by another object while the block lasts."""
    held = _HELD.get(str(tree.root))
    if held is None:
        return compute()
    found = held.get(key)
    if found is None or found[0] is not keep:
        found = held[key] = (keep, compute())
    return found[1]


def _work_records_state(tree: CorpusTree) -> object:
    """Each work record file's (slug, size, mtime_ns, inode): what the stage's quick checks
    compare, a ``stat`` per work."""
    state: list[tuple[str, int, int, int]] = []
    for slug in tree.slugs():
        try:
            st = os.stat(os.path.join(tree.root, WORKS, slug, RECORD_FILE))
        except OSError:
            continue
        state.append((slug, st.st_size, st.st_mtime_ns, st.st_ino))
    return state


def _work_facts(tree: CorpusTree) -> list[tuple[str, str, str, str]]:
    """``(publisher, slug, lex_work_id, digest of the work record)`` of every work record of the
    tree, in slug order. Kept in this process while every work record file keeps its size, time
    and inode (:func:`_work_records_state`): the stage asks it of every shard, and each ask
    parsed every work record. Inside :func:`tree_held` they are read once (no stat per ask)."""
    held = _HELD.get(str(tree.root))
    if held is not None and "facts" in held:
        facts: list[tuple[str, str, str, str]] = held["facts"]
        return facts
    found = _current_work_facts(tree)
    if held is not None:
        held["facts"] = found
    return found


def _current_work_facts(tree: CorpusTree) -> list[tuple[str, str, str, str]]:
    """:func:`_work_facts` checked against every work record file's stat."""
    state = _work_records_state(tree)
    hit = _WORK_FACTS.get(str(tree.root))
    if hit is not None and hit[0] == state:
        return hit[1]
    facts = [(w.publisher.value, w.slug, w.lex_work_id, w.digest()) for w in tree.works()]
    _WORK_FACTS.clear()
    _WORK_FACTS[str(tree.root)] = (state, facts)
    return facts


def _works(tree: CorpusTree, shard: tuple[int, int] | None = None) -> list[tuple[str, str]]:
    works = sorted((publisher, slug) for publisher, slug, _id, _digest in _work_facts(tree))
    if shard is None:
        return works
    return [(p, s) for p, s in works if shard_of(s, shard[1]) == shard[0]]


def count_versions(tree: CorpusTree, shard: tuple[int, int] | None = None) -> int:
    return sum(len(tree.version_keys(slug)) for _publisher, slug in _works(tree, shard))


def iter_work_outcomes(tree: CorpusTree, aliases: AliasTable, limits: Limits = DEFAULT_LIMITS,
                       progress: Progress | None = None) -> Iterator[tuple[str, list[VersionRecord], list[VersionOutcome], list[dict[str, Any]]]]:
    """Per work (sorted): its versions, their outcomes (citations resolved), and work-level errors."""
    for publisher, slug in _works(tree):
        work_id = f"{publisher}:{slug}"
        try:
            versions = load_versions(tree, slug)
        except LexError as exc:
            yield work_id, [], [], [_work_error(work_id, exc)]
            continue
        langs = fmx4_languages(versions, tree.evidence)
        first = min((v.valid_from for v in versions), default=None)
        outcomes = []
        for version in versions:
            outcomes.append(derive_version(version, tree.evidence, langs, aliases, limits, first))
            if progress is not None:
                progress(version.lex_id)
        yield work_id, versions, outcomes, []


def _work_error(work_id: str, exc: LexError) -> dict[str, Any]:
    return {"lex_id": None, "work_id": work_id, "language": None, **exc.to_dict()}


# -- assembling the outputs ------------------------------------------------------------------------


def _error_order(e: dict[str, Any]) -> tuple[str, str, str]:
    return (e["work_id"], e.get("lex_id") or "", e.get("language") or "")


def _write_lines(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("wb") as fh:
        for row in rows:
            fh.write(canonical_line(row) + b"\n")


#: the contract's tables, named once in :mod:`legal.artifacts` (release carries every one of them)
PROVISIONS_FILE, STATES_FILE, EVENTS_FILE, VISIBILITY_FILE = DATASET_TABLES
GENERATOR = "lex-evidence"
VALIDITY_NOTE = ("valid_to is the publisher's, verbatim, in valid_to_convention; valid_to_exclusive and "
                 "valid_to_inclusive state it in both conventions: a version is in force on d when "
                 "valid_from <= d and (valid_to_exclusive is null or d < valid_to_exclusive)")


def _generator() -> str:
    try:
        version = importlib.metadata.version(GENERATOR)
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    return f"{GENERATOR} {version} (derive.dataset)"


def dataset_metadata(tree: CorpusTree, limits: Limits) -> dict[str, str]:
    """The Parquet files' key-value metadata (besides ``lex:contract``/``lex:table``): what the
    dataset was derived from (the tree's manifest and records digests), by what (generator and
    :func:`derive.cache.derivation_digest`), and the publishers' licences and attributions."""
    try:
        manifest: dict[str, Any] = tree.manifest()
    except (OSError, LexError):
        manifest = {}
    publishers = sorted({p for p, _slug in _works(tree)})
    return {
        "lex:generator": _generator(),
        "lex:derivation_digest": derivation_digest(limits),
        "lex:corpus_manifest_sha256": digest(manifest) if manifest else "",
        "lex:corpus_records_digest": str(manifest.get("records_digest", "")),
        "lex:publishers": canonical_line(publishers).decode("utf-8"),
        "lex:licence": canonical_line({p: LICENCES[p] for p in publishers if p in LICENCES}).decode("utf-8"),
        "lex:validity": VALIDITY_NOTE,
    }


def _file_metadata(path: Path) -> dict[str, str]:
    """The ``lex:`` metadata of a dataset's ``provisions.parquet`` (without contract and table)."""
    try:
        meta = pq.read_schema(path).metadata or {}
    except (OSError, pa.ArrowException):
        raise DerivationError("not a shard output (unreadable provisions.parquet)", code="not_a_shard",
                              subject=path.parent.name) from None
    return {k.decode(): v.decode() for k, v in meta.items()
            if k.startswith(b"lex:") and k not in (b"lex:contract", b"lex:table")}


class _HashedFile:
    """A binary file opened for writing that hashes (SHA-256) every byte written through it, in
    order: the digest of the file's bytes once it is closed, without reading it again."""

    def __init__(self, path: Path) -> None:
        self.handle = path.open("wb")
        self.digest = hashlib.sha256()

    def write(self, data: bytes | memoryview) -> int:
        self.digest.update(data)
        written = self.handle.write(data)
        if written != len(data):  # a buffered binary file writes all or raises
            raise OSError(f"short write to {self.handle.name}")
        return written

    def tell(self) -> int:
        return self.handle.tell()

    def close(self) -> None:
        self.handle.close()

    def hexdigest(self) -> str:
        return self.digest.hexdigest()

    def copy_range(self, source: int, offset: int, size: int) -> bool:
        """Append ``size`` bytes of the file open as ``source`` from ``offset`` on, copied by the
        kernel (``os.copy_file_range``: no pass through this process); the caller hashes them
        (:attr:`digest`, in order). False when the kernel cannot copy between these files (nothing
        was appended: the caller writes the bytes itself)."""
        self.handle.flush()
        start = self.handle.tell()
        done = 0
        try:
            while done < size:
                copied = os.copy_file_range(source, self.handle.fileno(), size - done, offset + done, start + done)
                if copied <= 0:
                    raise OSError("copy_file_range copied nothing")
                done += copied
        except (OSError, AttributeError):
            os.ftruncate(self.handle.fileno(), start)  # what was copied goes: the caller writes it all
            return False
        self.handle.seek(start + size)
        return True


class _Assembler:
    """Writes the dataset files from per-work pieces given in work order."""

    def __init__(self, out: Path, metadata: dict[str, str], reuse: PreviousGroups | None = None,
                 group_bytes: int | None = None) -> None:
        self.out = out
        (out / "history").mkdir(parents=True, exist_ok=True)
        self.directories: set[str] = set()  # the history directories made (one per publisher)
        self.gaps: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []
        self.jsonl = _HashedFile(out / "provisions.jsonl")
        self.parquet = ParquetSink(out / PROVISIONS_FILE, R.SCHEMA, parquet_schema(R.SCHEMA),
                                   key_value_metadata("provisions", metadata), reuse=reuse, size=group_bytes,
                                   cut_before=True)
        self.states = ParquetSink(out / STATES_FILE, STATES_SCHEMA, STATES_SCHEMA,
                                  key_value_metadata("states", metadata))
        self.events = ParquetSink(out / EVENTS_FILE, EVENTS_SCHEMA, EVENTS_SCHEMA,
                                  key_value_metadata("version_events", metadata))
        self.visibility = ParquetSink(out / VISIBILITY_FILE, VISIBILITY_SCHEMA, VISIBILITY_SCHEMA,
                                      key_value_metadata("version_visibility", metadata))
        #: work id → [size of its version_events rows, of its version_visibility rows] as the
        #: sinks' row-group bound counts them (canonical JSON bytes; :func:`derive.events.events_table`)
        self.sizes: dict[str, list[int]] = {}
        self.closed = False
        # rows copied from a previous output come in Parquet types (:func:`_shard_works`): the
        # encoded ones are then brought to those types too, so that a row group holds one schema
        self.plain = False
        # the same for the states, version_events and version_visibility rows, when a previous
        # output's are copied (:class:`_PreviousTables`)
        self.plain_tables = False

    def _rows(self, table: pa.Table) -> pa.Table:
        if not self.plain or not table.num_rows:
            return table
        return _typed(table, self.parquet)

    def _table(self, table: pa.Table, sink: ParquetSink) -> pa.Table:
        return _typed(table, sink) if self.plain_tables and table.num_rows else table

    def transactions(self, work_id: str, events: list[dict[str, Any]], visibility: list[dict[str, Any]]) -> None:
        """One work's version_events and version_visibility rows (plain, :mod:`derive.events`);
        the sizes the sinks' row-group bound took are kept (:attr:`sizes`)."""
        sizes = [0, 0]
        if events:
            table, sizes[0] = events_table(events)
            self.events.add(self._table(table, self.events), sizes[0])
        if visibility:
            table, sizes[1] = visibility_table(visibility)
            self.visibility.add(self._table(table, self.visibility), sizes[1])
        if events or visibility:
            self.sizes[work_id] = sizes

    def transactions_copy(self, work_id: str, events: list[pa.RecordBatch], visibility: list[pa.RecordBatch],
                          sizes: Sequence[int]) -> None:
        """One work's version_events and version_visibility rows as a shard output holds them
        (Parquet-typed batches: :func:`_shard_works`) with the sizes its build gave the sinks'
        row-group bound (``shard.json``): the rows and sizes :meth:`transactions` would add."""
        if events:
            self.events.add(pa.Table.from_batches(events), int(sizes[0]))
        if visibility:
            self.visibility.add(pa.Table.from_batches(visibility), int(sizes[1]))
        if events or visibility:
            self.sizes[work_id] = [int(sizes[0]), int(sizes[1])]

    def _history_path(self, work_id: str) -> str:
        """Where ``work_id``'s history file goes (its publisher's directory made once)."""
        publisher, slug = work_id.split(":", 1)
        directory = os.path.join(self.out, "history", publisher)
        if directory not in self.directories:
            os.makedirs(directory, exist_ok=True)
            self.directories.add(directory)
        return os.path.join(directory, f"{slug}.json")

    def _put_history(self, work_id: str, data: bytes, source: str | None = None) -> None:
        """Write ``work_id``'s history file ``data``; ``source``: a previous output's file of it, made
        a second name of the new one (:meth:`_link`) when it holds exactly ``data`` — read and
        compared, so a previous file that was altered is not reused."""
        if source is not None:
            try:
                with open(source, "rb") as handle:
                    held = handle.read(len(data) + 1)
            except OSError:
                held = b""
            if held == data and self._link(source, self._history_path(work_id)):
                return
        with open(self._history_path(work_id), "wb") as handle:
            handle.write(data)

    def history(self, work_id: str, data: bytes, source: str | None = None) -> None:
        self._put_history(work_id, data, source)
        table, size = states_table(data)
        self.states.add(self._table(table, self.states), size)

    def history_copy(self, work_id: str, data: bytes, states: list[pa.RecordBatch], source: str | None = None) -> None:
        """A work's history file and its states rows as a shard output holds them (Parquet-typed
        batches: :func:`_shard_works`), the same rows :meth:`history` would build from ``data``."""
        self._put_history(work_id, data, source)
        if states:
            self.states.add(pa.Table.from_batches(states), len(data))

    @staticmethod
    def _link(source: str, path: str) -> bool:
        """Give the file ``source`` the second name ``path`` (``os.link``: no byte read or written; a
        dataset or shard output is replaced as a whole directory and no writer opens one of its
        files again, so the two names never part); False where the file system cannot."""
        try:
            os.link(source, path)
        except OSError:
            return False
        return True

    def history_link(self, work_id: str, source: str, states: list[pa.RecordBatch]) -> None:
        """:meth:`history_copy` of the history file at ``source`` (a shard output's), linked
        (:meth:`_link`) — or its bytes copied where the file system cannot link them."""
        path = self._history_path(work_id)
        if self._link(source, path):
            size = os.stat(path).st_size
        else:
            with open(source, "rb") as handle:
                data = handle.read()
            with open(path, "wb") as handle:
                handle.write(data)
            size = len(data)
        if states:
            self.states.add(pa.Table.from_batches(states), size)

    def block(self, block: EncodedBlock, ident: str | None = None) -> None:
        """One work's pieces; ``ident``: what its rows are a function of (:func:`row_ident`)."""
        for chunk in block.lines:
            self.jsonl.write(chunk)
        if block.table is not None:
            self.parquet.add(self._rows(pa.ipc.open_stream(block.table).read_all()),
                             sum(len(chunk) for chunk in block.lines), ident=ident)
        if block.spool is not None:
            with open(f"{block.spool}.jsonl", "rb") as fh:
                shutil.copyfileobj(fh, self.jsonl, 1 << 20)
                size = fh.tell()
            # zero-copy from the map, kept open until its rows are in a row group
            source = pa.memory_map(f"{block.spool}.arrow")
            self.parquet.add(self._rows(pa.ipc.open_stream(source).read_all()), size, hold=source, ident=ident)
            os.unlink(f"{block.spool}.jsonl")
            os.unlink(f"{block.spool}.arrow")
        self.gaps.extend(block.gaps)
        self.errors.extend(block.errors)
        if block.history is not None:
            self.history(block.work_id, block.history)
        self.transactions(block.work_id, block.events, block.visibility)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.jsonl.close()
            self.parquet.close()
            self.states.close()
            self.events.close()
            self.visibility.close()

    def abort(self) -> None:
        if not self.closed:
            self.closed = True
            self.jsonl.close()
            self.parquet.abort()
            self.states.abort()
            self.events.abort()
            self.visibility.abort()

    def finish(self, report: BuildReport) -> None:
        self.close()
        self.gaps.sort(key=R.gap_order)
        self.errors.sort(key=_error_order)
        _write_lines(self.out / "gaps.jsonl", self.gaps)
        _write_lines(self.out / "errors.jsonl", self.errors)
        report.errors = self.errors
        report.sha256["provisions.jsonl"] = self.jsonl.hexdigest()
        report.row_groups, report.row_groups_copied = len(self.parquet.identities), self.parquet.writer.copied
        (self.out / "summary.json").write_bytes(pretty(report.to_dict()))


def _typed(table: pa.Table, sink: ParquetSink) -> pa.Table:
    """``table`` (rows built from plain values) in the types of rows read back from a shard output
    (:func:`_shard_works`): the sink's Parquet types, dictionary columns as plain strings."""
    return pa.Table.from_batches([_plain_types(b) for b in to_parquet(table, sink.schema).to_batches()])


def _count(report: BuildReport, block: EncodedBlock) -> None:
    report.works += 1
    report.versions += len(block.lex_ids)
    report.units += block.units
    report.provisions += block.provisions
    report.empty_provisions += block.empty_provisions
    report.profiles.update(block.profiles)
    report.gaps.update(g["gap"] for g in block.gaps)


def default_cache_dir(out: str | Path) -> Path:
    """``.<name>.cache`` beside the dataset directory (never inside it: the dataset stays pure)."""
    target = Path(out)
    return target.parent / f".{target.name}.cache"


def _tree_digest(tree: CorpusTree, aliases: AliasTable, limits: Limits, shards: int) -> str:
    """What every shard of one build must agree on: works, version keys, aliases, the derivation
    (:func:`derive.cache.derivation_digest`: profile ids, declared versions), limits. Held inside
    :func:`tree_held` (the same for every shard)."""
    return str(_held(tree, ("tree_digest", id(aliases), limits, shards),
                     lambda: _tree_digest_of(tree, aliases, limits, shards), aliases))


def _tree_digest_of(tree: CorpusTree, aliases: AliasTable, limits: Limits, shards: int) -> str:
    works = [[p, s, tree.version_keys(s)] for p, s in _works(tree)]
    return digest({"works": works, "aliases": sorted(aliases.aliases.items()), "held": sorted(aliases.held),
                   "code": derivation_digest(limits), "limits": dataclasses.asdict(limits), "shards": shards})


def shard_file_metadata(metadata: dict[str, str]) -> dict[str, str]:
    """A shard's Parquet key-value metadata: the dataset's with its :data:`TREE_FACTS` blank."""
    return {k: "" if k in TREE_FACTS else v for k, v in metadata.items()}


def shard_inputs(tree: CorpusTree, shard: tuple[int, int], limits: Limits = DEFAULT_LIMITS,
                 aliases: AliasTable | None = None) -> str:
    """The digest of what a shard's files (all but ``shard.json``) are a function of: its own
    works' records (work record digest and the manifest's per-work digest of version records),
    the alias table and held works (citations resolve against them), the derivation code and
    limits, the generator and the shard. Another work's new version leaves it unchanged. Held
    inside :func:`tree_held` (a stage asks it of a shard up to three times)."""
    _check_shard(shard)
    table = aliases if aliases is not None else alias_table(tree)
    return str(_held(tree, ("shard_inputs", tuple(shard), id(table), limits),
                     lambda: _shard_inputs_of(tree, shard, limits, table), table))


def _shard_inputs_of(tree: CorpusTree, shard: tuple[int, int], limits: Limits, table: AliasTable) -> str:
    try:
        index: dict[str, Any] = dict(tree.manifest().get("works_index") or {})
    except (OSError, LexError):
        index = {}
    works = [[lex_work_id, work_digest, index.get(lex_work_id)] for _p, slug, lex_work_id, work_digest
             in _work_facts(tree) if shard_of(slug, shard[1]) == shard[0]]
    works.sort()
    return digest({"works": works, "aliases": sorted(table.aliases.items()), "held": sorted(table.held),
                   "code": derivation_digest(limits), "limits": dataclasses.asdict(limits),
                   "generator": _generator(), "shard": list(shard)})


def rows_encoding(aliases: AliasTable, limits: Limits = DEFAULT_LIMITS) -> str:
    """The digest of what a work's encoded rows depend on besides its cache key: the alias table
    and held works (citations are resolved at encoding), the derivation code and limits, the
    generator and the row schema. A previous shard output's rows of a work are reused only when
    this and the work's key are those it recorded (:func:`build_dataset`)."""
    return digest({"aliases": sorted(aliases.aliases.items()), "held": sorted(aliases.held),
                   "code": derivation_digest(limits), "limits": dataclasses.asdict(limits),
                   "generator": _generator(), "schema": R.SCHEMA.to_string()})


def _shard_document(tree: CorpusTree, aliases: AliasTable, limits: Limits, shard: tuple[int, int],
                    works: Sequence[str], keys: dict[str, str], sizes: dict[str, Any] | None = None) -> bytes:
    document = {
        "schema": SHARD_SCHEMA, "shard": shard[0], "shards": shard[1],
        "tree": _tree_digest(tree, aliases, limits, shard[1]),
        "inputs": shard_inputs(tree, shard, limits, aliases),
        "dataset": dataset_metadata(tree, limits),
        "works": list(works),
        "encoding": rows_encoding(aliases, limits),
        "keys": dict(sorted(keys.items())),
    }
    if sizes is not None:
        # per work, the sizes its version_events and version_visibility rows gave the sinks'
        # row-group bound: the merge copies those rows as Parquet batches with them
        document["transaction_sizes"] = dict(sorted(sizes.items()))
    return pretty(document)


def refresh_shard(tree: CorpusTree, out: str | Path, shard: tuple[int, int], limits: Limits = DEFAULT_LIMITS,
                  aliases: AliasTable | None = None) -> bool:
    """Bring the shard output ``out`` up to date with ``tree`` without deriving anything, when its
    own inputs (:func:`shard_inputs`) are those it was built from: only ``shard.json`` (the
    whole-tree facts) is rewritten, atomically; every other file stays byte-identical. False
    (nothing written) when the shard must be rebuilt."""
    path = Path(out)
    try:
        meta = _read_shard(path)
    except DerivationError:
        return False
    table = aliases if aliases is not None else alias_table(tree)
    if [meta.get("shard"), meta.get("shards")] != list(shard) or meta.get("inputs") != shard_inputs(
            tree, shard, limits, table):
        return False
    works = [f"{p}:{s}" for p, s in _works(tree, shard)]
    keys = meta.get("keys")
    if meta.get("works") != works or not isinstance(keys, dict):
        return False
    sizes = meta.get("transaction_sizes")
    document = _shard_document(tree, table, limits, shard, works, keys, sizes if isinstance(sizes, dict) else None)
    if (path / SHARD_FILE).read_bytes() != document:
        tmp = path / f".{SHARD_FILE}.tmp"
        tmp.write_bytes(document)
        os.replace(tmp, path / SHARD_FILE)
    return True


def default_workers() -> int:
    """The default number of derivation processes: the machine's cores."""
    return os.cpu_count() or 1


def build_dataset(tree: CorpusTree, out: str | Path, *, limits: Limits = DEFAULT_LIMITS,
                  progress: Progress | None = None, cache: str | Path | None = None, use_cache: bool = True,
                  shard: tuple[int, int] | None = None, workers: int = 1,
                  only: Sequence[str] | None = None, aliases: AliasTable | None = None) -> BuildReport:
    """Derive ``tree`` into ``out`` (replaced atomically). Returns the run report.

    ``cache`` is the per-work cache directory (default :func:`default_cache_dir`); with
    ``use_cache=False`` every work is derived and no cache is read or written. With
    ``shard=(i, n)`` only the works of shard ``i`` (:func:`shard_of`) are derived, into a shard
    output that :func:`merge_shards` combines. With ``workers > 1`` works are derived by that
    many processes (:func:`work_blocks`); the output is the same bytes as with one. ``only``
    (work slugs) restricts the run to those works (a measurement aid: ``bench.derive_rss``).
    ``aliases``: the tree's :func:`alias_table` when the caller already has it.
    """
    _check_shard(shard)
    target = Path(out)
    aliases = aliases if aliases is not None else alias_table(tree)
    cache_dir = (Path(cache) if cache is not None else default_cache_dir(target)) if use_cache else None
    report = BuildReport(shard=shard)
    keep: dict[str, str] = {}
    works = _works(tree, shard)
    if only is not None:
        works = [(p, s) for p, s in works if s in set(only)]
    previous = _previous_keys(target, shard, aliases, limits) if cache_dir is not None and only is None else {}
    encoding = rows_encoding(aliases, limits)
    with staged(target) as staging, contextlib.ExitStack() as files:
        metadata = dataset_metadata(tree, limits)
        assembler = _Assembler(staging, metadata if shard is None else shard_file_metadata(metadata),
                               previous_groups(target), None if shard is None else SHARD_ROW_GROUP_BYTES)
        copier = _PreviousRows(target, files) if previous else None
        assembler.plain = copier is not None
        assembler.plain_tables = copier is not None and copier.tables is not None
        try:
            for work_id, block, reused, key in work_blocks(tree, works, aliases, limits=limits, cache_dir=cache_dir,
                                                           workers=workers, progress=progress, previous=previous):
                if key is not None:
                    keep[work_id] = key
                report.works_reused += reused
                report.works_derived += not reused
                report.works_copied += block.copied
                if not reused:
                    report.derived.append(work_id)
                _count(report, block)
                ident = row_ident(work_id, key, encoding)
                at = assembler.jsonl.tell()
                if block.copied:
                    assert copier is not None, "a block to copy without a previous output"
                    copier.copy(work_id, assembler, ident)
                    block = copier.copy_tables(block, assembler)
                    report.copied.append(work_id)
                assembler.block(block, ident)
                report.spans[work_id] = (at, assembler.jsonl.tell() - at)
                # the work's encoded rows (JSONL chunks, Arrow stream) are written or in the sinks:
                # let them go before the next work is derived, not when the loop rebinds the name
                # (two large works in a row would otherwise be held at once; issue #13, ver34)
                del block
        except BaseException:
            assembler.abort()
            raise
        assembler.finish(report)
        if shard is not None:
            (staging / SHARD_FILE).write_bytes(_shard_document(tree, aliases, limits, shard,
                                                                [f"{p}:{s}" for p, s in works], keep,
                                                                assembler.sizes))
    write_groups(target, assembler.parquet.groups_document())
    if cache_dir is not None:
        WorkCache(cache_dir).prune(keep)
    return report


WorkResult = tuple[str, EncodedBlock, bool, "str | None"]


def work_blocks(tree: CorpusTree, works: Sequence[tuple[str, str]], aliases: AliasTable, *,
                limits: Limits = DEFAULT_LIMITS, cache_dir: Path | None = None, workers: int = 1,
                progress: Progress | None = None, previous: dict[str, str] | None = None) -> Iterator[WorkResult]:
    """``(work id, encoded block, reused from the cache, cache key)`` per work, in the order of
    ``works``; citations resolved against ``aliases``.

    With ``workers > 1`` the works are derived by a pool of that many processes (forkserver),
    at most a bounded number of blocks ahead of the consumer, and yielded in order: the same
    blocks as one process, so the same bytes. ``progress`` is called per version, in the caller's
    process, as each work's block is handed over. ``previous`` (work id → cache key, from the
    previous shard output, :func:`_previous_keys`): a work whose key is still that one, and whose
    cache entry is there, comes without its rows, marked ``copied`` (the caller copies them).
    """
    if workers <= 1 or len(works) <= 1 or multiprocessing.current_process().daemon:
        state = _WorkerState(tree, aliases, limits, cache_dir, previous=previous)
        # the C heap and the collector of a derivation (legal.heap), for the loop only
        with fastbins_off(), collector_relaxed():
            for publisher, slug in works:
                yield state.derive(publisher, slug, progress)
        return
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["derive.dataset"])
    window = max(8, 8 * workers)
    pending: deque[Future[WorkResult]] = deque()
    with tempfile.TemporaryDirectory(prefix="lex-derive-spool-") as spool, \
            ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_worker_init,
                                initargs=(str(tree.root), str(tree.evidence.root), aliases, limits, cache_dir,
                                          spool, previous)) as pool:
        items = iter(works)
        try:
            for publisher, slug in items:
                pending.append(pool.submit(_worker_derive, publisher, slug))
                if len(pending) >= window:
                    yield _handed(pending.popleft().result(), progress)
            while pending:
                yield _handed(pending.popleft().result(), progress)
        finally:
            for future in pending:
                future.cancel()


def _handed(result: WorkResult, progress: Progress | None) -> WorkResult:
    if progress is not None:
        for lex_id in result[1].lex_ids:
            progress(lex_id)
    return result


class _WorkerState:
    """What one process needs to derive works: the tree, the limits, the cache and its keys."""

    def __init__(self, tree: CorpusTree, aliases: AliasTable, limits: Limits, cache_dir: Path | None,
                 spool: str | None = None, previous: dict[str, str] | None = None) -> None:
        self.tree = tree
        self.previous = previous or {}
        self.spool = spool  # a directory: hand blocks over as files (worker processes)
        self.target = functools.cache(functools.partial(resolve, table=aliases))
        self.limits = limits
        self.store = WorkCache(cache_dir) if cache_dir is not None else None
        self.derivation = derivation_versions() if self.store is not None else {}
        self.table = route_profiles()
        self.handed = 0

    def derive(self, publisher: str, slug: str, progress: Progress | None = None) -> WorkResult:
        work_id = f"{publisher}:{slug}"
        spool = None if self.spool is None else os.path.join(self.spool, f"{os.getpid()}-{self.handed}")
        self.handed += 1
        encoder = RowEncoder(self.target, spool)
        try:
            block, reused, key = _work_block(self.tree, work_id, slug, self.limits, self.store, self.derivation,
                                             self.table, progress, encoder.add, self.previous.get(work_id))
        except BaseException:
            encoder.abort()
            raise
        return work_id, encoder.finish(block), reused, key


_WORKER: _WorkerState | None = None


def _worker_init(tree_root: str, evidence_root: str, aliases: AliasTable, limits: Limits,
                 cache_dir: Path | None, spool: str, previous: dict[str, str] | None = None) -> None:
    global _WORKER
    set_fastbins(0)  # a worker process only derives: its C heap without fastbins (legal.heap.set_fastbins)
    set_gc_threshold(DERIVE_GC_THRESHOLD)  # and its collector relaxed (legal.heap.set_gc_threshold)
    tree = CorpusTree.open(tree_root, evidence_dir=evidence_root, recover=False)
    _WORKER = _WorkerState(tree, aliases, limits, cache_dir, spool, previous)


def _worker_derive(publisher: str, slug: str) -> WorkResult:
    assert _WORKER is not None, "worker not initialised"
    return _WORKER.derive(publisher, slug)


def _work_block(tree: CorpusTree, work_id: str, slug: str, limits: Limits, store: WorkCache | None,
                derivation: dict[str, Any], table: dict[str, tuple[str, ...]],
                progress: Progress | None,
                rows_out: Callable[[list[dict[str, Any]], list[bytes] | None], None],
                previous_key: str | None = None) -> tuple[WorkBlock, bool, str | None]:
    """The block of one work, from the cache when its key (inputs digest and the current
    versions of its profiles, :mod:`derive.cache`) is known there. Its rows, in output order,
    go to ``rows_out`` a version (derived) or a chunk (cached) at a time; the block holds the rest.
    A derived work's cache entry is written as its rows come (:meth:`derive.cache.WorkCache.writer`).
    When the key is ``previous_key`` (the one the previous shard output recorded for the work) and
    cached, the rows are not read: the block is marked ``copied``."""
    try:
        versions = load_versions(tree, slug)
    except LexError as exc:
        return WorkBlock(work_id, errors=[_work_error(work_id, exc)]), False, None
    if store is None:
        return derive_work(work_id, versions, tree.evidence, limits, progress, lambda rows: rows_out(rows, None)), \
            False, None
    key = work_inputs_digest(work_id, versions, tree.evidence, limits, derivation)
    cached = store.open(work_id, key, table)
    if cached is not None:
        copied = key == previous_key
        if not copied:
            for rows in cached.rows(ENCODE_CHUNK):
                rows_out(rows, None)
        block = WorkBlock.from_entry(cached.entry)
        if copied:
            block.rows, block.copied = [], True
        if progress is not None:
            for lex_id in block.lex_ids:
                progress(lex_id)
        return block, True, key
    writer = store.writer(work_id, key, table)

    def both(rows: list[dict[str, Any]]) -> None:
        lines = writer.rows(rows)  # before the encoder releases them
        rows_out(rows, lines)

    try:
        block = derive_work(work_id, versions, tree.evidence, limits, progress, both)
        writer.finish(block.to_entry())
    except BaseException:
        writer.abort()
        raise
    return block, False, key


# -- shards ----------------------------------------------------------------------------------------


def _read_shard(path: Path) -> dict[str, Any]:
    try:
        meta = json.loads((path / SHARD_FILE).read_bytes())
    except (OSError, ValueError):
        raise DerivationError("not a shard output (no readable shard.json)", code="not_a_shard",
                              subject=path.name) from None
    if not isinstance(meta, dict) or meta.get("schema") != SHARD_SCHEMA:
        raise DerivationError("not a shard output (unknown shard.json schema)", code="not_a_shard",
                              subject=path.name)
    return meta


_WORK_ID_KEY = b'"work_id":"'


def _plain_types(batch: pa.RecordBatch) -> pa.RecordBatch:
    """A batch read from a shard's ``provisions.parquet`` with its dictionary columns as plain
    strings: what :func:`derive.parquet.to_parquet` encodes again, as it does rows built from JSONL."""
    columns = [c.cast(pa.string()) if pa.types.is_dictionary(c.type) else c for c in batch.columns]
    return pa.RecordBatch.from_arrays(columns, names=batch.schema.names)


#: bytes buffered per column chunk when a shard's Parquet table is read back (:func:`_shard_works`)
READ_BUFFER = 1 << 16


def _shard_works(path: Path, name: str = PROVISIONS_FILE) -> Iterator[tuple[str, list[pa.RecordBatch]]]:
    """(work id, its rows as Parquet-typed batches) per work of a shard's ``name`` table (its
    ``provisions.parquet``, or ``states.parquet``), in file order, read :data:`ENCODE_CHUNK` rows at
    a time (no row parsed from JSON)."""
    try:
        # streamed a page at a time through a small buffer, decoded in this thread: not a whole row
        # group's column chunks read ahead (``pre_buffer``) nor decoded by the pool's threads (whose
        # allocator heaps keep what they freed), for each of a merge's shards and tables at once
        source = pq.ParquetFile(path / name, pre_buffer=False, buffer_size=READ_BUFFER)
    except (OSError, pa.ArrowException):
        raise DerivationError(f"not a shard output (unreadable {name})", code="not_a_shard",
                              subject=path.name) from None
    current: str | None = None
    parts: list[pa.RecordBatch] = []
    for raw in source.iter_batches(batch_size=ENCODE_CHUNK, use_threads=False):
        batch = _plain_types(raw)
        for work_id, start, end in _runs(batch.column(batch.schema.get_field_index("work_id"))):
            if work_id != current:
                if current is not None:
                    yield current, parts
                current, parts = work_id, []
            parts.append(batch.slice(start, end - start))
    if current is not None:
        yield current, parts


def _runs(ids: pa.Array) -> Iterator[tuple[str, int, int]]:
    """``(value, start, end)`` of each run of equal values of ``ids`` (a string column), in order:
    the run boundaries found by one vectorised comparison of each value with the one before it,
    not a Python loop over the rows."""
    n = len(ids)
    if n == 0:
        return
    if ids.null_count:
        raise DerivationError("a row without work_id", code="shard_mismatch", subject="work_id")
    changed = pc.indices_nonzero(pc.not_equal(ids.slice(1), ids.slice(0, n - 1))).to_pylist()
    starts = [0, *(i + 1 for i in changed)]
    ends = [*starts[1:], n]
    for start, end in zip(starts, ends, strict=True):
        yield str(ids[start].as_py()), start, end


class _Lines:
    """A shard's ``provisions.jsonl``, handed out a work's lines at a time as bytes (read in
    chunks, not parsed: each line is checked to name its work); memory holds a chunk and the
    lines of the work being handed out.

    The file is read into one buffer that is kept (``readinto``), its unread bytes moved to its
    start before each read, and lines are written out of it as views: no chunk, concatenation
    or slice is a new allocation, so the pages of a publisher's JSONL (590 MB to 1.5 GB) are
    not faulted in again a chunk at a time (the kernel's minor page faults are system CPU). The
    buffer grows only for a request (a line, a work's sized lines) longer than it."""

    CHUNK = 1 << 22
    #: a work's lines of at least this many bytes are copied by the kernel (:meth:`copy_sized`)
    KERNEL_COPY = 1 << 16

    def __init__(self, path: Path, files: contextlib.ExitStack) -> None:
        self.name = path.parent.name
        self.handle = files.enter_context(path.open("rb"))
        self.scratch: bytearray | None = None  # the buffer of :meth:`_copy_range`
        self.buf = bytearray()  # the bytes read: ``buf[pos:end]`` not handed out yet
        self.pos = 0
        self.end = 0

    def _read(self, need: int = 0) -> int:
        """Keep the buffer's bytes not handed out (from :attr:`pos`), at its start, and read at
        least :attr:`CHUNK` (and ``need``) bytes more after them, or up to the end of the file; how
        many were read (0 at the end of the file)."""
        rest = self.end - self.pos
        want = max(self.CHUNK, need)
        if rest + want > len(self.buf):  # the first read, or a request longer than the buffer
            grown = bytearray(max(rest + want, self.CHUNK + self.CHUNK // 8))
            grown[:rest] = self.buf[self.pos:self.end]
            self.buf = grown
        elif rest:
            self.buf[:rest] = self.buf[self.pos:self.end]  # the same size: moved in place
        self.pos, self.end = 0, rest
        done = 0
        with memoryview(self.buf) as view:
            while done < want:
                got = self.handle.readinto(view[rest + done:rest + want])
                if not got:
                    break
                done += got
        self.end = rest + done
        return done

    def _write(self, target: Any, start: int, stop: int) -> None:
        """Write ``buf[start:stop]`` to ``target`` as a view of the buffer (no copy)."""
        with memoryview(self.buf) as view, view[start:stop] as part:
            target.write(part)

    def copy(self, work_id: str, count: int, target: Any) -> int:
        """Write the next ``count`` lines, which must all be ``work_id``'s, to ``target`` (``None``:
        pass over them); their size. A line of another work, or too few lines, is a shard that
        does not hold together."""
        key = _WORK_ID_KEY + work_id.encode("utf-8") + b'"'
        start = pos = self.pos
        size = 0
        for _ in range(count):
            end = self.buf.find(b"\n", pos, self.end)
            while end < 0:
                # what is buffered of the work so far goes out before the buffer is refilled
                if target is not None:
                    self._write(target, start, pos)
                size += pos - start
                self.pos = pos
                if not self._read():
                    raise DerivationError("a shard's provisions.jsonl and provisions.parquet disagree",
                                          code="shard_mismatch", subject=self.name)
                start = pos = 0
                end = self.buf.find(b"\n", pos, self.end)
            if self.buf.find(key, pos, end) < 0:
                raise DerivationError("a shard's provisions.jsonl and provisions.parquet disagree",
                                      code="shard_mismatch", subject=self.name)
            pos = end + 1
        if target is not None:
            self._write(target, start, pos)
        self.pos = pos
        return size + pos - start

    def copy_sized(self, work_id: str, count: int, size: int, target: Any) -> None:
        """Write the next ``size`` bytes, which must be ``count`` whole lines, the first of them
        ``work_id``'s, to ``target`` (the lines of a work whose rows were copied with their row
        group: their size is known, they are not split into lines). Into a :class:`_HashedFile`,
        the kernel copies them (:meth:`_copy_range`); they are read here only to be checked and hashed."""
        if isinstance(target, _HashedFile) and size >= self.KERNEL_COPY and self._copy_range(work_id, count, size, target):
            return
        while self.end - self.pos < size:
            if not self._read(size - (self.end - self.pos)):
                break
        end = self.pos + size
        first = self.buf.find(b"\n", self.pos, min(end, self.end))
        key = _WORK_ID_KEY + work_id.encode("utf-8") + b'"'
        if end > self.end or not size or self.buf[end - 1] != 0x0A or first < 0 \
                or self.buf.find(key, self.pos, first) < 0 or self.buf.count(b"\n", self.pos, end) != count:
            raise DerivationError("a shard's provisions.jsonl and provisions.parquet disagree",
                                  code="shard_mismatch", subject=self.name)
        self._write(target, self.pos, end)
        self.pos = end

    def _copy_range(self, work_id: str, count: int, size: int, target: _HashedFile) -> bool:
        """:meth:`copy_sized` by the kernel: the ``size`` bytes from the current position are read
        a chunk at a time into one buffer, checked as :meth:`copy_sized` checks them (the first
        line names ``work_id``, ``count`` lines, a whole last line) and hashed into ``target``'s
        digest, then copied file to file (:meth:`_HashedFile.copy_range`). False (nothing read
        past the position, nothing written) when the first line is longer than a chunk or the
        kernel cannot copy: the caller copies the bytes itself."""
        start = self.handle.tell() - (self.end - self.pos)  # the file offset of the position
        fd = self.handle.fileno()
        digest = target.digest.copy()
        if self.scratch is None:
            self.scratch = bytearray(self.CHUNK)
        buffer = self.scratch
        view = memoryview(buffer)
        key = _WORK_ID_KEY + work_id.encode("utf-8") + b'"'
        lines = 0
        done = 0
        last = 0
        while done < size:
            got = os.preadv(fd, [view[:min(len(buffer), size - done)]], start + done)
            if got <= 0:
                raise DerivationError("a shard's provisions.jsonl and provisions.parquet disagree",
                                      code="shard_mismatch", subject=self.name)
            if not done:
                first = buffer.find(b"\n", 0, got)
                if first < 0:
                    return False  # a first line longer than a chunk: checked the buffered way
                if buffer.find(key, 0, first) < 0:
                    raise DerivationError("a shard's provisions.jsonl and provisions.parquet disagree",
                                          code="shard_mismatch", subject=self.name)
            lines += buffer.count(b"\n", 0, got)
            last = buffer[got - 1]
            digest.update(view[:got])
            done += got
        if lines != count or last != 0x0A:
            raise DerivationError("a shard's provisions.jsonl and provisions.parquet disagree",
                                  code="shard_mismatch", subject=self.name)
        if not target.copy_range(fd, start, size):
            return False
        target.digest = digest
        self.handle.seek(start + size)
        self.pos = self.end = 0
        return True

    def at_end(self) -> bool:
        return self.pos == self.end and not self.handle.read(1)


def _shard_transactions(path: Path) -> dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
    """A shard's version_events and version_visibility rows by work (plain rows, in file order)."""
    by_work: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {}
    for index, name in enumerate((EVENTS_FILE, VISIBILITY_FILE)):
        try:
            table = pq.read_table(path / name)
        except (OSError, pa.ArrowException):
            raise DerivationError(f"not a shard output (unreadable {name})", code="not_a_shard",
                                  subject=path.name) from None
        for row in plain_rows(table):
            by_work.setdefault(row["work_id"], ([], []))[index].append(row)
    return by_work


def _previous_keys(target: Path, shard: tuple[int, int] | None, aliases: AliasTable,
                   limits: Limits) -> dict[str, str]:
    """Work id → cache key of the works whose rows the previous output of shard ``shard`` at
    ``target`` holds, when its rows were encoded as this build encodes them (same
    :func:`rows_encoding`); else nothing. Only a shard output records its works' keys."""
    if shard is None or not (target / SHARD_FILE).is_file():
        return {}
    try:
        meta = _read_shard(target)
    except DerivationError:
        return {}
    keys = meta.get("keys")
    if [meta.get("shard"), meta.get("shards")] != list(shard) or not isinstance(keys, dict) \
            or meta.get("encoding") != rows_encoding(aliases, limits):
        return {}
    return {str(k): str(v) for k, v in keys.items()}


class _WorkRows:
    """A shard table's rows handed out a work at a time, in work order (:func:`_shard_works`): a
    work asked for gets its batches, or none when the table holds no row of it."""

    def __init__(self, path: Path, name: str) -> None:
        self.stream = _shard_works(path, name)
        self.head = next(self.stream, None)

    def take(self, work_id: str) -> list[pa.RecordBatch]:
        if self.head is None or self.head[0] != work_id:
            return []
        batches = self.head[1]
        self.head = next(self.stream, None)
        return batches

    def at_end(self) -> bool:
        return self.head is None


class _PreviousRows:
    """The rows of a previous shard output, copied work by work in work order: its JSONL lines as
    bytes, its states and version events with them (:class:`_PreviousTables`), its Parquet rows
    deferred (:meth:`derive.parquet.ParquetSink.add_deferred`: read, from the row group that holds
    them, only when the new file's group they fall in is not the previous file's,
    :class:`_ShardRows`); works in between that are not copied are passed over."""

    def __init__(self, path: Path, files: contextlib.ExitStack) -> None:
        self.path = path
        self.rows = _ShardRows(path)
        self.order = list(self.rows.runs)  # its works, in file order
        self.at = 0
        self.lines = _Lines(path / "provisions.jsonl", files)
        self.tables: _PreviousTables | None = _PreviousTables.of(path)

    def copy(self, work_id: str, assembler: _Assembler, ident: str | None = None) -> None:
        """Copy ``work_id``'s rows (none when the previous output holds none)."""
        order = _work_order(work_id)
        while self.at < len(self.order) and _work_order(self.order[self.at]) < order:
            passed = self.order[self.at]
            self.lines.copy(passed, self.rows.count(passed), None)
            self.at += 1
        if self.at == len(self.order) or self.order[self.at] != work_id:
            return
        self.at += 1
        rows = self.rows.count(work_id)
        size = self.lines.copy(work_id, rows, assembler.jsonl)
        assembler.parquet.add_deferred(rows, size, functools.partial(self.rows.take, work_id), ident=ident)

    def copy_tables(self, block: EncodedBlock, assembler: _Assembler) -> EncodedBlock:
        """Give ``assembler`` the copied ``block``'s history file with its states rows, and its
        version_events and version_visibility rows, as the previous output holds them (the rows
        :meth:`_Assembler.history` and :meth:`_Assembler.transactions` would build again from the
        block's cache entry, which is the one the previous output was built from: same key);
        the block without them, for :meth:`_Assembler.block`'s rest. The block as it is when the
        previous output records no transaction sizes (a shard that predates them)."""
        if self.tables is None:
            return block
        return self.tables.copy(block, assembler)


def _work_order(work_id: str) -> tuple[str, ...]:
    return tuple(work_id.split(":", 1))


class _OrderedRows:
    """A shard table's rows a work at a time (:func:`_shard_works`), asked for in work order with
    works passed over (those derived again): a work asked for gets its batches, or none."""

    def __init__(self, path: Path, name: str) -> None:
        self.stream = _shard_works(path, name)
        self.head = next(self.stream, None)

    def take(self, work_id: str) -> list[pa.RecordBatch]:
        order = _work_order(work_id)
        while self.head is not None and _work_order(self.head[0]) < order:
            self.head = next(self.stream, None)
        if self.head is None or self.head[0] != work_id:
            return []
        batches = self.head[1]
        self.head = next(self.stream, None)
        return batches


class _PreviousTables:
    """The states, version_events and version_visibility rows of a previous shard output, with
    the row-group sizes its build recorded (``shard.json``), handed out per copied work."""

    def __init__(self, path: Path, sizes: dict[str, Any]) -> None:
        self.path = path
        self.sizes = sizes
        self.states = _OrderedRows(path, STATES_FILE)
        self.events = _OrderedRows(path, EVENTS_FILE)
        self.visibility = _OrderedRows(path, VISIBILITY_FILE)

    @classmethod
    def of(cls, path: Path) -> _PreviousTables | None:
        """The tables of the previous output at ``path``, or None when they cannot be copied from: it
        records no transaction sizes, or one of its three tables is missing or unreadable (a shard
        that lost a table is derived again: its rows are built from the cache, as before the copy)."""
        try:
            sizes = _read_shard(path).get("transaction_sizes")
            return cls(path, sizes) if isinstance(sizes, dict) else None
        except DerivationError:
            return None

    def _history(self, work_id: str) -> str:
        publisher, slug = work_id.split(":", 1)
        return os.path.join(self.path, "history", publisher, f"{slug}.json")

    def copy(self, block: EncodedBlock, assembler: _Assembler) -> EncodedBlock:
        work_id = block.work_id
        states = self.states.take(work_id)
        events, visibility = self.events.take(work_id), self.visibility.take(work_id)
        if sum(b.num_rows for b in events) != len(block.events) \
                or sum(b.num_rows for b in visibility) != len(block.visibility) \
                or (block.history is None and states):
            raise DerivationError("a previous shard output does not hold a copied work's rows",
                                  code="shard_mismatch", subject=self.path.name)
        if block.history is not None and states:
            assembler.history_copy(work_id, block.history, states, self._history(work_id))
        elif block.history is not None:  # no states row: built as a derived work's (its size counts)
            assembler.history(work_id, block.history, self._history(work_id))
        if events or visibility:
            held = self.sizes.get(work_id)
            if not (isinstance(held, list) and len(held) == 2):
                raise DerivationError("a shard holds version events of a work it records no size of",
                                      code="shard_mismatch", subject=self.path.name)
            assembler.transactions_copy(work_id, events, visibility, held)
        return dataclasses.replace(block, history=None, events=[], visibility=[])


class _ShardRows:
    """A shard's ``provisions.parquet`` rows handed out a work at a time, in work order: where each
    work's rows are is read first from the ``work_id`` column alone; a work's rows are decoded when
    taken (:data:`ENCODE_CHUNK` rows at a time), and the rows of works passed over (:meth:`skip`:
    their row group is copied from the previous merged file) are not decoded at all when they
    fill whole row groups of the shard (a shard's groups are small: :data:`SHARD_ROW_GROUP_BYTES`)."""

    def __init__(self, path: Path) -> None:
        self.name = path.name
        try:
            self.file = pq.ParquetFile(path / PROVISIONS_FILE)
            ids = self.file.read(columns=["work_id"]).column(0)
        except (OSError, pa.ArrowException, KeyError):
            raise DerivationError(f"not a shard output (unreadable {PROVISIONS_FILE})", code="not_a_shard",
                                  subject=path.name) from None
        self.runs: dict[str, tuple[int, int]] = {}
        offset = 0
        for chunk in ids.chunks:
            for work_id, start, end in _runs(chunk):
                if work_id in self.runs:
                    first, last = self.runs[work_id]
                    if last != offset + start:
                        raise DerivationError("a shard's rows of one work are not together", code="shard_mismatch",
                                              subject=path.name)
                    self.runs[work_id] = (first, offset + end)
                else:
                    self.runs[work_id] = (offset + start, offset + end)
            offset += len(chunk)
        meta = self.file.metadata
        self.group_starts = [0]
        for i in range(meta.num_row_groups):
            self.group_starts.append(self.group_starts[-1] + meta.row_group(i).num_rows)
        self.cursor = 0
        self.done = 0
        self.stream: Iterator[pa.RecordBatch] | None = None
        self.batch: pa.RecordBatch | None = None
        self.batch_start = 0

    def count(self, work_id: str) -> int:
        found = self.runs.get(work_id)
        return 0 if found is None else found[1] - found[0]

    def _group(self, row: int) -> int:
        return bisect.bisect_right(self.group_starts, row) - 1

    def _batch_at(self, row: int) -> tuple[pa.RecordBatch, int]:
        while self.batch is None or not self.batch_start <= row < self.batch_start + self.batch.num_rows:
            ahead = self.batch_start + (self.batch.num_rows if self.batch is not None else 0)
            if self.stream is None or row < ahead or self._group(row) > self._group(ahead):
                first = self._group(row)  # start decoding at the row group that holds ``row``
                groups = list(range(first, len(self.group_starts) - 1))
                self.stream = iter(self.file.iter_batches(batch_size=ENCODE_CHUNK, row_groups=groups))
                self.batch, self.batch_start = None, self.group_starts[first]
                ahead = self.batch_start
            raw = next(self.stream, None)
            if raw is None:
                raise DerivationError("a shard's rows end early", code="shard_mismatch", subject=self.name)
            self.batch, self.batch_start = _plain_types(raw), ahead
        return self.batch, self.batch_start

    def _next(self, work_id: str) -> tuple[int, int]:
        found = self.runs.get(work_id)
        if found is None or found[0] < self.cursor:
            raise DerivationError("a shard's rows are not in work order", code="shard_mismatch", subject=self.name)
        self.cursor = found[1]
        self.done += 1
        return found

    def take(self, work_id: str) -> pa.Table:
        """The work's rows (Parquet-typed, dictionaries as plain strings: :func:`_plain_types`)."""
        start, end = self._next(work_id)
        parts: list[pa.RecordBatch] = []
        row = start
        while row < end:
            batch, first = self._batch_at(row)
            stop = min(end, first + batch.num_rows)
            parts.append(batch.slice(row - first, stop - row))
            row = stop
        return pa.Table.from_batches(parts)

    def skip(self, work_id: str) -> None:
        self._next(work_id)

    def at_end(self) -> bool:
        """Every work whose rows the shard holds was taken or passed over."""
        return self.done == len(self.runs)


def _reusable_group(sink: ParquetSink, order: Sequence[str], position: int, ident: Callable[[str], str | None],
                    count: Callable[[str], int]) -> tuple[int, dict[str, int]] | None:
    """The previous file's row group that the works from ``order[position]`` on fill exactly as
    they did then (each work's rows named alike: :func:`row_ident`, as many rows), and that this
    build's sink also ends after them (by its bound, or at the file's end both times): ``(its
    index, {work: its JSONL bytes})``, else None."""
    assert sink.reuse is not None
    first = ident(order[position])
    index = sink.reuse.starts.get(first) if first is not None and count(order[position]) else None
    if index is None:
        return None
    _identity, members = sink.reuse.groups[index]
    matched: dict[str, int] = {}
    at = position
    for name, rows, size in members:
        while at < len(order) and not count(order[at]):
            at += 1
        if at == len(order) or ident(order[at]) != name or count(order[at]) != rows:
            return None
        matched[order[at]] = size
        at += 1
    if not sink.holds_whole(members):
        return None  # a group cut by another rule (a previous file's, before ADR 0101)
    following = next((w for w in order[at:] if count(w)), None)
    if following is None or sink.cuts_after(members):
        return index, matched  # it ends by its bound, or at the file's end both times
    # cut before the work that follows (ADR 0101) when that work passes the bound: its JSONL size
    # is known here only when it is the previous file's next group's first work (same rows)
    later = sink.reuse.groups[index + 1][1][0] if index + 1 < len(sink.reuse.groups) else None
    if later is not None and later[0] == ident(following) and later[1] == count(following) and \
            sink.cuts_after(members, (later[1], later[2])):
        return index, matched
    return None  # the previous file's last group with rows after it now, or a cut not known to fall here


def row_ident(work_id: str, key: str | None, encoding: str) -> str | None:
    """What a work's dataset rows are a function of: the work, its derive cache key and the rows
    encoding (:func:`rows_encoding`) — what a shard build trusts to copy a work's rows from its
    previous output; None without a key. A ``provisions.parquet`` row group of works that all have
    one is named by them (:func:`derive.parquet.group_identity`) and copied from the previous file
    instead of being encoded again."""
    return None if key is None else f"{work_id}\n{key}\n{encoding}"


def previous_groups(target: Path) -> PreviousGroups | None:
    """The row groups of ``target``'s ``provisions.parquet`` that the next build may copy."""
    path = target / PROVISIONS_FILE
    return PreviousGroups(path, groups_path(target)) if path.is_file() and groups_path(target).is_file() else None


def _read_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines() if line]


def merge_shards(shards: Sequence[str | Path], out: str | Path) -> BuildReport:
    """Combine the outputs of every shard of one build into ``out`` (replaced atomically).

    The result is byte-identical to the unsharded build of the same tree; the report's ``spans``
    say where each work's lines are in its ``provisions.jsonl``. Refused
    (``DerivationError``) unless the shards are exactly ``0 … n-1`` of one build (same ``n``,
    same works, version keys, aliases, code and limits).
    """
    paths = [Path(p) for p in shards]
    metas = [_read_shard(p) for p in paths]
    if not metas:
        raise DerivationError("no shard to merge", code="shards_incomplete")
    n = metas[0]["shards"]
    if any(m["shards"] != n or m["tree"] != metas[0]["tree"] for m in metas):
        raise DerivationError("shards come from different builds (tree, code, limits or shard count differ)",
                              code="shard_mismatch")
    indices = sorted(m["shard"] for m in metas)
    if indices != list(range(n)):
        raise DerivationError(f"shards {indices} are not exactly 0..{n - 1}", code="shards_incomplete")
    owner = {work: path for path, meta in zip(paths, metas, strict=True) for work in meta["works"]}
    order = sorted(owner, key=lambda w: tuple(w.split(":", 1)))
    readers = {path: _ShardRows(path) for path in paths}
    states = {path: _shard_works(path, STATES_FILE) for path in paths}
    # version_events and version_visibility: copied as Parquet batches with the sizes each shard's
    # build recorded (shard.json), or, from shards that predate them, rebuilt from plain rows
    sizes = [m.get("transaction_sizes") for m in metas]
    batched = all(isinstance(found, dict) for found in sizes)
    transactions = {} if batched else {path: _shard_transactions(path) for path in paths}
    sized: dict[Path, dict[str, Any]] = {path: found for path, found in zip(paths, sizes, strict=True)
                                         if isinstance(found, dict)}
    event_rows = {path: _WorkRows(path, EVENTS_FILE) for path in paths} if batched else {}
    visibility_rows = {path: _WorkRows(path, VISIBILITY_FILE) for path in paths} if batched else {}
    pending_states: dict[Path, tuple[str, list[pa.RecordBatch]] | None] = {
        path: next(stream, None) for path, stream in states.items()}
    report = BuildReport()
    for path in paths:
        report.add_summary(json.loads((path / "summary.json").read_bytes()))
    dataset = metas[0].get("dataset")
    if not isinstance(dataset, dict) or any(m.get("dataset") != dataset for m in metas) or any(
            _file_metadata(path / PROVISIONS_FILE) != shard_file_metadata(dataset) for path in paths):
        raise DerivationError("shards carry different dataset metadata (corpus, code or licence)",
                              code="shard_mismatch")
    keys = {work: (str(meta["keys"][work]), str(meta.get("encoding")))
            for meta in metas if isinstance(meta.get("keys"), dict) for work in meta["works"] if work in meta["keys"]}
    target = Path(out)
    with staged(target) as staging, contextlib.ExitStack() as files:
        lines = {path: _Lines(path / "provisions.jsonl", files) for path in paths}
        assembler = _Assembler(staging, dataset, previous_groups(target))

        def ident(work_id: str) -> str | None:
            key, encoding = keys.get(work_id, (None, ""))
            return row_ident(work_id, key, encoding)

        def count(work_id: str) -> int:
            return readers[owner[work_id]].count(work_id)

        copied: dict[str, int] = {}  # works of a row group copied from the previous file → their JSONL bytes
        spans: list[WorkSpan] | None = []  # the work-spans sidecar (:mod:`derive.work_spans`)
        rows_before = 0
        try:
            for position, work_id in enumerate(order):
                path = owner[work_id]
                if work_id not in copied and assembler.parquet.empty and assembler.parquet.reuse is not None:
                    plan = _reusable_group(assembler.parquet, order, position, ident, count)
                    if plan is not None and assembler.parquet.copy_previous(plan[0]):
                        copied.update(plan[1])
                if n_rows := count(work_id):
                    at = assembler.jsonl.tell()
                    if work_id in copied:
                        size = copied[work_id]  # as many bytes as the previous build copied
                        lines[path].copy_sized(work_id, n_rows, size, assembler.jsonl)
                        readers[path].skip(work_id)  # its rows are in the group copied: not decoded
                    else:
                        size = lines[path].copy(work_id, n_rows, assembler.jsonl)
                        assembler.parquet.add(readers[path].take(work_id), size, ident=ident(work_id))
                    report.spans[work_id] = (at, size)
                    spans = _with_span(spans, work_id, rows_before, at, size, ident(work_id))
                    rows_before += n_rows
                publisher, slug = work_id.split(":", 1)
                history = os.path.join(path, "history", publisher, f"{slug}.json")
                if os.path.isfile(history):
                    # the work's states are the shard's rows of them (what states_table gave it)
                    rows: list[pa.RecordBatch] = []
                    if (found := pending_states[path]) is not None and found[0] == work_id:
                        rows = found[1]
                        pending_states[path] = next(states[path], None)
                    assembler.history_link(work_id, history, rows)
                if batched:
                    events, visibility = event_rows[path].take(work_id), visibility_rows[path].take(work_id)
                    if events or visibility:
                        held = sized[path].get(work_id)
                        if not (isinstance(held, list) and len(held) == 2):
                            raise DerivationError("a shard holds version events of a work it records no size of",
                                                  code="shard_mismatch", subject=path.name)
                        assembler.transactions_copy(work_id, events, visibility, held)
                else:
                    assembler.transactions(work_id, *transactions[path].pop(work_id, ([], [])))
            for path in paths:
                assembler.gaps.extend(_read_lines(path / "gaps.jsonl"))
                assembler.errors.extend(_read_lines(path / "errors.jsonl"))
            leftover = [p.name for p, reader in readers.items() if not reader.at_end()]
            leftover += [p.name for p, head in pending_states.items() if head is not None]
            leftover += [p.name for p, taken in lines.items() if not taken.at_end()]
            leftover += [p.name for p, rows in [*event_rows.items(), *visibility_rows.items()] if not rows.at_end()]
            if leftover:
                raise DerivationError("a shard holds rows of a work it does not list", code="shard_mismatch",
                                      subject=leftover[0])
        except BaseException:
            assembler.abort()
            raise
        assembler.finish(report)
    write_groups(target, assembler.parquet.groups_document())
    write_work_spans(target, report.sha256["provisions.jsonl"], spans)
    return report


def _with_span(spans: list[WorkSpan] | None, work_id: str, position: int, at: int, size: int,
               ident: str | None) -> list[WorkSpan] | None:
    """``spans`` with one more work's, or None once a work has no rows identity (then no sidecar)."""
    if spans is None or ident is None:
        return None
    spans.append(WorkSpan(work_id, position, at, at + size, ident))
    return spans
