"""Write one publisher's index file and its stamp file, byte-reproducibly, in bounded memory.

Reproducibility recipe (tested by rebuilding and comparing bytes): a fresh file with a fixed
``page_size``; the whole schema and content written in one transaction in the deterministic
row order of :func:`derive.index.rows.assemble`; FTS5 segments merged with ``optimize``;
``ANALYZE``; then ``VACUUM``. No value comes from the clock (``built_at`` is an input) or
from the build machine's paths. The file is written beside its destination and renamed into
place, so a reader never sees a half-written index.

Memory: :func:`build_from_paths` reads the tree one work at a time and the dataset one
expression at a time (a canonical ``provisions.jsonl`` read by each expression's run of lines,
:mod:`derive.index.ranges`; any other dataset one row at a time into a scratch table first); table
rows wait in a scratch SQLite file beside the index (``derive/index/spill.py``) and are copied into
the index tables in the same order :func:`write_index` inserts the in-memory rows of
:func:`derive.index.rows.assemble` (the reference, byte-compared in the tests).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpus_tree import CorpusTree
from derive.index.analysis import term_stem_rows
from derive.index.catalogue import MetadataRow, Name, fts_columns
from derive.index.digest import sealed_digest
from derive.index.inputs import (
    DatasetInput,
    GapRow,
    InputFile,
    KnownSha256,
    TreeInput,
    TreeLike,
    as_dict,
    dataset_gaps,
    dataset_row_values,
    merged_files,
    row_files,
    work_publisher,
)
from derive.index.progress import BuildMeter, ProgressFn
from derive.index.ranges import JsonlRanges, Range, RangeRows, Run, jsonl_ranges, range_values
from derive.index.rows import (
    WORK_SPAN,
    BuildContext,
    ExpressionRows,
    GroupedRows,
    IndexRows,
    assemble_into,
    build_context,
    check_timestamp,
    work_aliases,
)
from derive.index.schema import (
    APPLICATION_ID,
    BUILD_INDEXES,
    BUILD_TABLES,
    DDL,
    DIGEST_ORDER,
    FTS_SETTINGS,
    FTS_TOKENIZER,
    INDEX_FORMAT,
    PAGE_SIZE,
    USER_VERSION,
    VOCABULARY_MIN_LENGTH,
    index_file_name,
    stamp_file_name,
)
from derive.index.serving import (
    WindowUpdate,
    groups_recipe,
    least_docs,
    work_pairs,
    write_serving_tables,
)
from derive.index.sidecar import write as write_sidecar
from derive.index.spill import SCHEMA, DirectSink, SpilledRows, SpillSink
from derive.index.stamp import build_stamp, content_facts, stamp_document, stored_facts
from derive.index.succession import load as load_pairs
from derive.index.succession import path_of as pairs_path
from derive.index.succession import write as write_pairs
from derive.index.terms import changed_terms, term_docs, updated_docs
from derive.index.terms import load as load_terms
from derive.index.terms import path_of as terms_path
from derive.index.terms import write as write_terms
from derive.index.text import fts_number, fts_text
from derive.index.textstore import (
    ZLIB_VERSION,
    next_block,
    read_texts,
    write_dictionary,
    write_texts,
)
from derive.index.textstore import prune as prune_texts
from derive.index.windows import Changes, Windows
from derive.index.windows import dump as dump_windows
from derive.index.windows import load as load_windows
from derive.work_spans import identity_digest
from derive.work_spans import read as read_work_spans
from derive.work_spans import sidecar_path as work_spans_path
from legal.canonical import digest, pretty_bytes
from legal.canonical import file_sha256 as _sha256_file
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
    #: Wall/CPU seconds, per-phase figures (:mod:`derive.index.progress`), ``mode`` (``full`` or
    #: ``incremental``) and, for an incremental build, ``works_changed``.
    metrics: dict[str, object] = field(default_factory=dict)
    #: The first ``text_blocks`` row this build wrote: 1 for a full build (it wrote every block); for an
    #: incremental one, the blocks numbered below it are the previous file's, copied as they were
    #: (its own check verifies the texts it wrote: ``docs/adr/0026-index-stage-verifies-what-it-wrote.md``).
    texts_from_block: int = 1


def _insert(conn: sqlite3.Connection, table: str, rows: list[tuple[Any, ...]]) -> None:
    if not rows:
        return
    marks = ",".join("?" * len(rows[0]))
    conn.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)


_PROVISION_FTS_COLUMNS = ("title", "number", "heading", "text")
_PROVISION_FTS = f"provision_fts(rowid, {', '.join(_PROVISION_FTS_COLUMNS)})"
_WORK_FTS = "work_fts(rowid, identifiers, titles, short_titles, aliases, metadata)"


def _write_tables(conn: sqlite3.Connection, rows: IndexRows) -> None:
    for table, _ in DIGEST_ORDER:
        if table == "texts":
            write_dictionary(conn, rows.text_dictionary())
            write_texts(conn, rows.texts.items())
        else:
            _insert(conn, table, rows.table(table))
    _insert(conn, "work_inputs", rows.work_inputs)
    conn.executemany(f"INSERT INTO {_PROVISION_FTS} VALUES (?,?,?,?,?)", rows.provision_fts)
    conn.executemany(f"INSERT INTO {_WORK_FTS} VALUES (?,?,?,?,?,?)", rows.work_fts)
    _finish_search(conn)


def _copy_tables(conn: sqlite3.Connection, sink: SpillSink) -> list[tuple[str, int]]:
    """:func:`_write_tables` from the scratch database: the same rows in the same order; returns
    :func:`_finish_search`'s terms."""
    for table, _ in DIGEST_ORDER:
        if table == "texts":
            write_dictionary(conn, sink.text_dictionary())
            write_texts(conn, sink.texts())
        else:
            sink.table(table).copy_into(table)
    for table in BUILD_TABLES:
        sink.table(table).copy_into(table)
    sink.table("provision_fts").copy_into(_PROVISION_FTS)
    sink.table("work_fts").copy_into(_WORK_FTS)
    return _finish_search(conn)


def _finish_search(conn: sqlite3.Connection, incremental: bool = False) -> list[tuple[str, int]]:
    """FTS ``optimize``, ``vocabulary`` and ``term_stems``; ``incremental``: the file holds the previous
    build's ``vocabulary`` and ``term_stems``, brought up to date (:func:`_update_vocabulary`: only the
    words whose rows changed are written, and only new words are stemmed). Returns every
    ``provision_vocab`` term with its rows (one scan of the FTS index, which the frequent windows
    read again: :class:`derive.index.serving.WindowUpdate`)."""
    conn.execute("INSERT INTO provision_fts(provision_fts) VALUES('optimize')")
    conn.execute("INSERT INTO work_fts(work_fts) VALUES('optimize')")
    terms = conn.execute("SELECT term, doc FROM provision_vocab ORDER BY term").fetchall()
    words = [(t, d) for t, d in terms if _vocabulary_word(t)]
    if incremental:
        _update_vocabulary(conn, words)
    else:
        conn.executemany("INSERT INTO vocabulary(term, docs) VALUES (?, ?)", words)
        _write_term_stems(conn, words)
    return terms


# --- search: Snowball stems of the vocabulary (derive/index/analysis.py) ---
def _write_term_stems(conn: sqlite3.Connection, words: list[tuple[str, int]]) -> None:
    conn.execute("DELETE FROM term_stems")
    conn.executemany("INSERT INTO term_stems(language, stem, term, docs) VALUES (?, ?, ?, ?)",
                     sorted(term_stem_rows(words)))


def vocabulary_changes(old: Mapping[str, int], words: Sequence[tuple[str, int]]) -> list[str]:
    """The words whose ``vocabulary`` row differs between ``old`` (word → rows) and ``words`` (the
    new ``(word, rows)``): gone, new, or held by another number of rows; sorted."""
    new = dict(words)
    return sorted({t for t, d in old.items() if new.get(t) != d} | {t for t, d in new.items() if old.get(t) != d})


def _update_vocabulary(conn: sqlite3.Connection, words: list[tuple[str, int]],
                       old: Mapping[str, int] | None = None) -> set[tuple[str, str]]:
    """Bring the previous build's ``vocabulary`` and ``term_stems`` to ``words``: the rows of the
    words :func:`vocabulary_changes` names are deleted and those still held written again (a word's
    stems taken from the previous ``term_stems`` when the previous ``vocabulary`` held it: the stem
    of a word is a function of the word alone; a new word is stemmed), the others kept as they are.
    Both tables are ``WITHOUT ROWID``: their content, hence their bytes after ``VACUUM``, is that of
    rewriting them whole. ``old``: the previous rows of every word whose rows may have changed, when
    ``words`` are those words only (:func:`_finish_search_delta`); else the whole table is read.
    Returns the ``(language, stem)`` of every ``term_stems`` row deleted or written."""
    if old is None:
        old = {str(t): int(d) for t, d in conn.execute("SELECT term, docs FROM vocabulary")}
    touched = vocabulary_changes(old, words)
    if not touched:
        return set()
    wanted = json.dumps(touched)
    known: dict[str, list[tuple[str, str]]] = {t: [] for t in touched if t in old}
    stale = conn.execute("SELECT language, stem, term FROM term_stems "
                         "WHERE term IN (SELECT value FROM json_each(?))", (wanted,)).fetchall()
    for language, stem, term in stale:
        known.setdefault(str(term), []).append((str(language), str(stem)))
    conn.executemany("DELETE FROM term_stems WHERE language = ? AND stem = ? AND term = ?", stale)
    conn.execute("DELETE FROM vocabulary WHERE term IN (SELECT value FROM json_each(?))", (wanted,))
    new = dict(words)
    fresh = [(t, new[t]) for t in touched if t in new]
    conn.executemany("INSERT INTO vocabulary(term, docs) VALUES (?, ?)", fresh)
    written = sorted(_stem_rows(fresh, known))
    conn.executemany("INSERT INTO term_stems(language, stem, term, docs) VALUES (?, ?, ?, ?)", written)
    return {(str(lang), str(stem)) for lang, stem, _ in stale} | {(lang, stem) for lang, stem, _, _ in written}


def _vocabulary_word(term: str) -> bool:
    return len(term) >= VOCABULARY_MIN_LENGTH and term.isalpha()


def _finish_search_delta(conn: sqlite3.Connection, rows: Sequence[Sequence[object]]) -> tuple[dict[str, int], set[str]]:
    """:func:`_finish_search` of an incremental build that knows every ``provision_fts`` row it
    deleted or inserted (``rows``, with the values they were written with): FTS ``optimize``, then
    only those rows' terms are looked up (:func:`derive.index.terms.changed_terms`; no other term's
    row count can have changed) and their ``vocabulary`` and ``term_stems`` rows brought up to date.
    Returns those terms' new row counts (0: gone) and the terms whose frequent groups may have
    changed: those terms and every term sharing a stem with a ``term_stems`` row deleted or written."""
    conn.execute("INSERT INTO provision_fts(provision_fts) VALUES('optimize')")
    conn.execute("INSERT INTO work_fts(work_fts) VALUES('optimize')")
    found = term_docs(conn, "provision_vocab", changed_terms(conn, rows, _PROVISION_FTS_COLUMNS, FTS_TOKENIZER))
    candidates = [t for t in found if _vocabulary_word(t)]
    old = {str(t): int(d) for t, d in conn.execute(
        "SELECT term, docs FROM vocabulary WHERE term IN (SELECT value FROM json_each(?))", (json.dumps(candidates),))}
    stems = _update_vocabulary(conn, [(t, found[t]) for t in candidates if found[t] > 0], old)
    affected = set(found)
    for language, stem in sorted(stems):
        affected.update(str(t) for (t,) in conn.execute(
            "SELECT term FROM term_stems WHERE language = ? AND stem = ?", (language, stem)))
    return found, affected


def _stem_rows(words: list[tuple[str, int]],
               known: Mapping[str, list[tuple[str, str]]]) -> Iterator[tuple[str, str, str, int]]:
    """:func:`derive.index.analysis.term_stem_rows` of ``words``, taking a known word's stems from ``known``."""
    new: list[tuple[str, int]] = []
    for term, docs in words:
        stems = known.get(term)
        if stems is None:
            new.append((term, docs))
            continue
        for language, stem in stems:
            yield language, stem, term, docs
    yield from term_stem_rows(new)
# --- end search ---


def _create(path: Path) -> sqlite3.Connection:
    if path.exists():
        path.unlink()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA page_size={PAGE_SIZE}")
    conn.execute("PRAGMA journal_mode=OFF")
    conn.execute("PRAGMA synchronous=OFF")
    conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version={USER_VERSION}")
    return conn


def _seal(conn: sqlite3.Connection, stamp: Mapping[str, str]) -> dict[str, str]:
    """Digest, stamp table, commit, ``ANALYZE``, ``VACUUM``; the stamp with ``content_digest``."""
    full = dict(stamp)
    full["content_digest"] = sealed_digest(conn)
    write_serving_tables(conn)
    _drop_build_indexes(conn)
    conn.executemany("INSERT INTO stamp(k, v) VALUES (?, ?)", sorted(full.items()))
    conn.execute("COMMIT")
    conn.execute("ANALYZE")
    conn.execute("VACUUM")
    return dict(sorted(full.items()))


def _drop_build_indexes(conn: sqlite3.Connection) -> None:
    for name in BUILD_INDEXES:
        conn.execute(f"DROP INDEX IF EXISTS {name}")


def write_index(path: Path, rows: IndexRows, stamp: Mapping[str, str]) -> dict[str, str]:
    """Create ``path`` from in-memory ``rows``; returns the stamp completed with ``content_digest``.

    The reference the streaming build is compared with, byte for byte, in the tests.
    """
    conn = _create(path)
    try:
        conn.execute("BEGIN")
        for statement in (*DDL, *FTS_SETTINGS):
            conn.execute(statement)
        _write_tables(conn, rows)
        return _seal(conn, stamp)
    finally:
        conn.close()


@dataclass(frozen=True)
class _Sources:
    """One publisher's build inputs, read lazily."""

    manifest: dict[str, Any]
    works: Sequence[dict[str, Any]]
    versions: Callable[[str], Sequence[dict[str, Any]]]
    gaps: Sequence[GapRow]
    files: Sequence[InputFile]
    rows: Callable[[sqlite3.Connection, BuildMeter], ExpressionRows]
    #: the dataset's provision lines read as bytes (:func:`derive.index.ranges.jsonl_ranges`), when it is
    #: one JSONL file: what lets an incremental build read only the changed works' rows, and a full
    #: build read each expression's rows when it reaches it
    #: (``with_runs``: each expression's runs too, what only a full build reads)
    ranges: Callable[[bool], tuple[Path, JsonlRanges] | None] = lambda with_runs: None
    #: a work's version records read without their ``record_sha256`` checked, when the tree can: what a
    #: full build's first pass (:func:`_select`) reads, since its second pass reads and checks them all
    unchecked_versions: Callable[[str], Sequence[dict[str, Any]]] | None = None


#: The sidecar of an index (``.<publisher>.work-keys.json`` beside it, never in a release): per work,
#: a key of its inputs computed without parsing its rows (:func:`_work_keys`), the inputs digest the
#: index holds for it, the digest of its version records' ids and verified hashes as the build read
#: them, and the alias slugs those records name (:func:`derive.index.rows.work_aliases`). Trusted
#: only for the index file whose SHA-256 it names.
WORK_KEYS_SCHEMA = "lex-index-work-keys/2"
#: The previous schema (per work: key, inputs digest only), still read: its keys are computed by the
#: same recipe (:func:`_work_keys`), so its works' rows are not read again; their records are.
WORK_KEYS_SCHEMA_1 = "lex-index-work-keys/1"


def work_keys_path(out_dir: Path, publisher: str) -> Path:
    return out_dir / f".{publisher}.work-keys.json"


def _work_keys(publisher: Publisher, sources: _Sources, context: BuildContext, records: Mapping[str, str],
               ranges: Mapping[str, Range]) -> dict[str, str]:
    """Per work slug, the SHA-256 of what its index rows are built from, read without parsing a row:
    the build context, the work record, its version records (their ids and verified record hashes),
    the bytes of its dataset lines and its gaps."""
    gaps: dict[str, list[str]] = {}
    for gap in sources.gaps:
        gaps.setdefault(gap.work_id, []).append(repr(gap))
    keys: dict[str, str] = {}
    for work in sources.works:
        slug = str(work["slug"])
        work_id = f"{publisher.value}:{slug}"
        found = ranges.get(work_id)
        keys[slug] = digest([WORK_KEYS_SCHEMA_1, context.digest, dict(work), records.get(slug),
                             found.sha256 if found else None, sorted(gaps.get(work_id, []))])
    return keys


def _read_work_keys(path: Path, index_sha256: str) -> dict[str, list[str]]:
    try:
        value = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    if not isinstance(value, dict) or value.get("schema") not in (WORK_KEYS_SCHEMA, WORK_KEYS_SCHEMA_1) or \
            value.get("index_sha256") != index_sha256 or not isinstance(value.get("works"), dict):
        return {}
    return dict(value["works"])


def _write_work_keys(out_dir: Path, publisher: str, index: Path, index_sha256: str, keys: Mapping[str, str],
                     records: Mapping[str, str], aliases: Mapping[str, Sequence[str]]) -> None:
    """Record ``keys`` with the inputs digests ``index`` holds, each work's records digest and alias
    slugs (written after the index is in place: a run killed before leaves a sidecar naming the
    previous file, then ignored)."""
    conn = sqlite3.connect(f"file:{index}?mode=ro", uri=True)
    try:
        stored = dict(conn.execute("SELECT slug, inputs_sha256 FROM work_inputs").fetchall())
    finally:
        conn.close()
    works = {slug: [key, stored[slug], records[slug], list(aliases[slug])] for slug, key in sorted(keys.items())
             if slug in stored and slug in records and slug in aliases}
    path = work_keys_path(out_dir, publisher)
    tmp = path.with_name(path.name + ".building")
    tmp.write_bytes(pretty_bytes({"schema": WORK_KEYS_SCHEMA, "index_sha256": index_sha256, "works": works}))
    os.replace(tmp, path)


#: The frequent windows' bm25 inputs of an index (``.<publisher>.windows.z`` beside it, never in a
#: release; :mod:`derive.index.windows`): what lets the next incremental build bring its
#: ``frequent_matches`` up to date without ranking every match again. Trusted only for the index file
#: whose SHA-256 it names.
def _known_records(recorded: Mapping[str, Any], publisher: Publisher,
                   manifest: Mapping[str, Any]) -> dict[str, tuple[str, list[str]]]:
    """``slug → (records digest, alias slugs)`` of the works of a previous build's sidecar (``recorded``,
    :func:`_read_work_keys`) whose version records are those that build read and verified: the
    records digest it recorded is the one the tree's manifest now holds for the work
    (``works_index[<publisher>:<slug>].digest``, the digest of its versions' ids and
    ``record_sha256``; the corpus-tree stage verifies the manifest against the records). An
    incremental build takes these works' alias slugs and records digest without reading their
    version records again (:func:`_select`)."""
    index = manifest.get("works_index")
    if not isinstance(index, Mapping):
        return {}
    out: dict[str, tuple[str, list[str]]] = {}
    for slug, value in recorded.items():
        if not isinstance(value, list) or len(value) != 4 or not isinstance(value[2], str) or \
                not isinstance(value[3], list) or not all(isinstance(a, str) for a in value[3]):
            continue
        entry = index.get(f"{publisher.value}:{slug}")
        if isinstance(entry, Mapping) and entry.get("digest") == value[2]:
            out[slug] = (value[2], list(value[3]))
    return out


def windows_path(out_dir: Path, publisher: str) -> Path:
    return out_dir / f".{publisher}.windows.z"


def _write_windows(out_dir: Path, publisher: str, index_sha256: str, windows: Windows | None) -> None:
    # nothing to keep (no window): every match would be ranked anyway, the file is removed
    write_sidecar(windows_path(out_dir, publisher),
                  dump_windows(windows, index_sha256) if windows is not None and windows.matches else None)


@dataclass
class _Selection:
    """The fast path's facts of one build: the build context, each work's key, the rows' file."""

    context: BuildContext
    keys: dict[str, str]
    path: Path
    ranges: dict[str, Range]
    #: each expression's runs of lines (:class:`derive.index.ranges.JsonlRanges`), when known
    runs: dict[tuple[str, str], list[Run]] | None = None
    #: per work, the digest of its version records' ids and hashes, and the alias slugs they name
    records: dict[str, str] = field(default_factory=dict)
    aliases: dict[str, list[str]] = field(default_factory=dict)


def act_term_facts(context: BuildContext, publisher: Publisher) -> dict[str, int]:
    """The build's facts on the act terms (:mod:`derive.index.actterms`): the held works given terms, and
    the works of this publisher the files give terms that it does not hold (ignored). Pure."""
    named = sum(1 for w in context.act_terms.by_work if w.startswith(f"{publisher.value}:"))
    missing = context.act_terms.not_held(publisher.value, context.held)
    return {"act_terms_works": named - missing, "act_terms_not_held": missing}


def _select(publisher: Publisher, sources: _Sources, *, checked: bool = True,
            with_runs: bool = True, known: Mapping[str, tuple[str, list[str]]] | None = None
            ) -> tuple[BuildContext, _Selection | None]:
    """The build context (every work's version records read once, verified unless not ``checked``: a
    full build, whose works are all read and verified again as they are assembled) and, when the
    dataset is one JSONL file of contiguous works, each work's key (:func:`_work_keys`); the
    expressions' runs of lines only ``with_runs`` (a full build's; an incremental build reads only
    the changed works' ranges). ``known`` (an incremental build's :func:`_known_records`): works whose
    records digest and alias slugs are taken as recorded, their version records not read."""
    records: dict[str, str] = {}
    aliases: dict[str, list[str]] = {}
    read = sources.versions if checked or sources.unchecked_versions is None else sources.unchecked_versions

    def aliases_of(slug: str) -> list[str]:
        if known is not None and slug in known:
            records[slug], aliases[slug] = known[slug]
        else:
            found = read(slug)
            records[slug] = digest([[str(v.get("lex_id")), str(v.get("record_sha256"))] for v in found])
            aliases[slug] = work_aliases(found)
        return aliases[slug]

    context = build_context(publisher, sources.works, read, aliases_of=aliases_of)
    ranges = sources.ranges(with_runs)
    if ranges is None:
        return context, None
    path, found = ranges
    return context, _Selection(context, _work_keys(publisher, sources, context, records, found.works), path,
                               found.works, found.runs, records, aliases)


def _attach_scratch(conn: sqlite3.Connection, scratch: Path) -> None:
    scratch.unlink(missing_ok=True)
    conn.execute(f"ATTACH DATABASE ? AS {SCHEMA}", (str(scratch),))
    conn.execute(f"PRAGMA {SCHEMA}.journal_mode=OFF")
    conn.execute(f"PRAGMA {SCHEMA}.synchronous=OFF")


def _work_progress(meter: BuildMeter) -> Callable[[int, int, int], None]:
    def done(works_done: int, _total: int, chars: int) -> None:
        meter.advance(chars=chars, done=works_done)
    return done


def _seal_streamed(conn: sqlite3.Connection, meter: BuildMeter, excluded: int,
                   stamp: Callable[[dict[str, str]], dict[str, str]],
                   changed: Sequence[int] | None = None, windows: WindowUpdate | None = None) -> dict[str, str]:
    meter.phase("finish")
    content = stored_facts(conn, excluded)
    full = dict(stamp(content))
    # the last write to a content table is above: serving tables, stamp, ANALYZE and VACUUM leave the
    # digest's rows as they are, so this is the digest of the file as published (the index stage's
    # check takes it instead of computing it again: docs/adr/0016-one-digest-pass-per-build.md); an
    # incremental build digests only the works it rebuilt (``changed``: docs/adr/0018-per-work-content-digest.md)
    full["content_digest"] = sealed_digest(conn, changed)
    meter.phase("serving")
    meter.facts["serving_rows"] = write_serving_tables(conn, windows)
    if windows is not None and windows.result is not None:
        meter.facts["frequent_windows"] = dict(sorted(windows.result.facts.items()))
    _drop_build_indexes(conn)
    conn.executemany("INSERT INTO stamp(k, v) VALUES (?, ?)", sorted(full.items()))
    conn.execute("COMMIT")
    conn.execute(f"DETACH DATABASE {SCHEMA}")
    conn.execute("ANALYZE")
    vacuum_into_place(conn)
    return dict(sorted(full.items()))


#: where the SQLite file header keeps the file change counter and the "version-valid-for" number
_CHANGE_COUNTER, _VALID_FOR = 24, 92


def vacuum_into_place(conn: sqlite3.Connection) -> None:
    """``VACUUM`` of ``conn``'s main database file, done as ``VACUUM INTO`` a file beside it that is
    then renamed over it: the rebuilt pages are written once, not written to a temporary database
    and then copied back page by page. The two files differ only in the header's change counter
    (and its "version-valid-for" copy): ``VACUUM`` commits the copied pages as one more write
    transaction of the file (the counter it held plus one), ``VACUUM INTO`` starts a fresh file at
    one; that number is written in, so the bytes are ``VACUUM``'s (tested against it, and the
    reference builder :func:`write_index` still runs ``VACUUM``). ``conn`` holds no transaction; it
    is left open on the replaced file, for the caller to close."""
    main = next(str(file) for _seq, name, file in conn.execute("PRAGMA database_list") if name == "main")
    with open(main, "rb") as handle:
        header = handle.read(100)
    counter = (int.from_bytes(header[_CHANGE_COUNTER:_CHANGE_COUNTER + 4], "big") + 1) & 0xFFFFFFFF
    into = f"{main}.vacuum"
    if os.path.exists(into):
        os.unlink(into)
    try:
        conn.execute("VACUUM INTO ?", (into,))
        with open(into, "r+b") as handle:
            for offset in (_CHANGE_COUNTER, _VALID_FOR):
                handle.seek(offset)
                handle.write(counter.to_bytes(4, "big"))
        os.replace(into, main)
    except BaseException:
        if os.path.exists(into):
            os.unlink(into)
        raise


def _stream_index(path: Path, publisher: Publisher, sources: _Sources, stamp: Callable[[dict[str, str]], dict[str, str]],
                  meter: BuildMeter, selection: _Selection | None = None,
                  windows: WindowUpdate | None = None) -> dict[str, str]:
    """Create ``path`` streaming: rows go through a scratch file next to it, removed afterwards."""
    scratch = path.with_name(path.name + ".scratch")
    conn = _create(path)
    try:
        _attach_scratch(conn, scratch)
        conn.execute("BEGIN")
        for statement in (*DDL, *FTS_SETTINGS):
            conn.execute(statement)
        sink = SpillSink(conn)
        # each expression's rows read from its lines when the build reaches it (one pass, nothing spilled),
        # else every row loaded into the scratch file first
        rows = (RangeRows(selection.path, selection.runs, publisher.value)
                if selection is not None and selection.runs is not None else sources.rows(conn, meter))
        meter.phase("works", len(sources.works))
        assemble_into(sink, publisher, sources.works, sources.versions, rows, sources.gaps, done=_work_progress(meter),
                      context=selection.context if selection is not None else None)
        meter.phase("copy")
        terms = _copy_tables(conn, sink)
        if windows is not None:
            windows.terms = terms
        full = _seal_streamed(conn, meter, sink.excluded_empty_provisions, stamp, windows=windows)
    except BaseException:
        conn.close()
        path.unlink(missing_ok=True)
        raise
    finally:
        scratch.unlink(missing_ok=True)
    conn.close()
    meter.facts["mode"] = "full"
    return full


def _previous_works(conn: sqlite3.Connection, publisher: Publisher) -> dict[int, tuple[str, str]] | None:
    """``work_rowid → (slug, inputs_sha256)`` of a previous index this build can update, else None."""
    try:
        if conn.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID or \
                conn.execute("PRAGMA user_version").fetchone()[0] != USER_VERSION:
            return None
        stamp = dict(conn.execute("SELECT k, v FROM stamp").fetchall())
        if stamp.get("publisher") != publisher.value or stamp.get("schema") != INDEX_FORMAT or \
                stamp.get("sqlite_version") != sqlite3.sqlite_version or stamp.get("zlib_version") != ZLIB_VERSION:
            return None
        return {r: (slug, sha) for r, slug, sha in conn.execute("SELECT work_rowid, slug, inputs_sha256 FROM work_inputs")}
    except sqlite3.DatabaseError:
        return None


def _incremental_index(path: Path, previous: Path, publisher: Publisher, sources: _Sources,
                       stamp: Callable[[dict[str, str]], dict[str, str]], meter: BuildMeter,
                       context: BuildContext | None = None, selection: _Selection | None = None,
                       previous_sha256: str | None = None, windows: WindowUpdate | None = None,
                       recorded: Mapping[str, Any] | None = None) -> dict[str, str] | None:
    """Update a copy of ``previous`` in place: delete and re-insert the rows of every work whose inputs
    changed, FTS rows included; None (nothing written) when ``previous`` cannot be updated (another
    format, SQLite or zlib version, or another set of works: then every row id would move).

    With a ``selection`` and the previous index's sidecar (:data:`WORK_KEYS_SCHEMA`, naming this
    very file), a work whose key and stored inputs digest are those the sidecar records is kept
    without reading its dataset rows: only the other works' rows are read, validated and digested.
    ``previous_sha256``: the previous file's SHA-256 when the caller holds it (the pipeline's quick
    check), else it is read here to match the sidecar; ``recorded``: that sidecar when the caller read it."""
    meter.phase("copy previous")
    previous_sha256 = previous_sha256 or _sha256_file(previous)
    if selection is None:
        recorded = {}
    elif recorded is None:
        recorded = _read_work_keys(work_keys_path(previous.parent, publisher.value), previous_sha256)
    if windows is not None:
        windows.previous = load_windows(windows_path(previous.parent, publisher.value), previous_sha256)
        windows.terms_previous = load_terms(terms_path(previous.parent, publisher.value), previous_sha256,
                                            groups_recipe())
        windows.pairs_previous = load_pairs(pairs_path(previous.parent, publisher.value), previous_sha256)
        if windows.pairs_previous is not None:
            windows.pairs_old = {}
    shutil.copyfile(previous, path)
    conn = sqlite3.connect(path, isolation_level=None)
    scratch = path.with_name(path.name + ".scratch")
    try:
        known = _previous_works(conn, publisher)
        slugs = sorted(str(w["slug"]) for w in sources.works)
        if known is None or [known.get(i, ("", ""))[0] for i in range(1, len(slugs) + 1)] != slugs \
                or len(known) != len(slugs):
            conn.close()
            path.unlink(missing_ok=True)
            return None
        conn.execute("PRAGMA journal_mode=OFF")
        conn.execute("PRAGMA synchronous=OFF")
        # every block this build writes is numbered from here (texts are only added and pruned)
        first_block = next_block(conn)
        _attach_scratch(conn, scratch)
        conn.execute("BEGIN")
        for statement in BUILD_INDEXES.values():
            conn.execute(statement)
        stored = {slug: sha for slug, sha in known.values()}
        unread = {slug for slug, value in recorded.items()
                  if selection is not None and isinstance(value, list) and len(value) in (2, 4)
                  and selection.keys.get(slug) == value[0] and stored.get(slug) == value[1]}
        rows = (sources.rows(conn, meter) if selection is None or not unread
                else _changed_rows(conn, meter, publisher, selection, unread))
        changed: list[str] = []
        rebuilt: list[int] = []
        deleted: list[tuple[int, str, str, str, str]] = []

        def keep(work_rowid: int, slug: str, inputs_sha256: str) -> bool:
            if slug in unread or known.get(work_rowid) == (slug, inputs_sha256):
                return True
            if windows is not None and windows.pairs_old is not None:
                windows.pairs_old[work_rowid] = work_pairs(conn, work_rowid)
            deleted.extend(delete_work(conn, work_rowid))
            changed.append(slug)
            rebuilt.append(work_rowid)
            return False

        sink = DirectSink(conn)
        conn.execute("DELETE FROM gaps")
        meter.phase("works", len(sources.works))
        assemble_into(sink, publisher, sources.works, lambda slug: () if slug in unread else sources.versions(slug),
                      rows, sources.gaps, keep=keep, done=_work_progress(meter), context=context)
        sink.flush()
        prune_texts(conn)
        conn.execute("DELETE FROM paths WHERE path_rowid NOT IN (SELECT path_rowid FROM provision_rows)")
        conn.execute("DELETE FROM cites WHERE cite_rowid NOT IN (SELECT cite_rowid FROM citation_rows)")
        conn.execute("DELETE FROM metadata_terms WHERE term_rowid NOT IN (SELECT term_rowid FROM work_metadata_rows)")
        inserted = tuple(r for w in sorted(rebuilt) for r in fts_state_rows(conn, w))
        if windows is not None and windows.terms_previous is not None:
            # only the rewritten rows' terms are read (docs/adr/0064-incremental-index-reads-changed-terms.md)
            found, windows.affected = _finish_search_delta(conn, [*deleted, *inserted])
            meter.facts["terms_read"] = len(found)
            windows.terms = updated_docs(windows.terms_previous.docs, found, least_docs()).items()
        else:
            terms = _finish_search(conn, incremental=True)
            meter.facts["terms_read"] = "all"
            if windows is not None:
                windows.terms = terms
        conn.execute("DELETE FROM stamp")
        excluded = conn.execute("SELECT COALESCE(SUM(excluded_empty_provisions), 0) FROM work_inputs").fetchone()[0]
        if windows is not None:
            windows.changes = Changes(tuple((w * WORK_SPAN, (w + 1) * WORK_SPAN - 1) for w in sorted(rebuilt)),
                                      inserted)
        full = _seal_streamed(conn, meter, int(excluded), stamp, rebuilt, windows)
    except BaseException:
        conn.close()
        path.unlink(missing_ok=True)
        raise
    finally:
        scratch.unlink(missing_ok=True)
    conn.close()
    meter.facts.update(mode="incremental", works_changed=len(changed), changed=changed[:20], works_unread=len(unread),
                       texts_from_block=first_block,
                       pairs_walked="all" if windows is None or windows.pairs_old is None else len(windows.pairs_old))
    return full


def _changed_rows(conn: sqlite3.Connection, meter: BuildMeter, publisher: Publisher, selection: _Selection,
                  unread: set[str]) -> ExpressionRows:
    """The dataset rows of every work but ``unread`` (and of any work the tree does not hold: the
    build refuses those), read from their byte ranges, at their positions among all the rows."""
    meter.phase("dataset", sum(r.end - r.start for r in selection.ranges.values()))
    spilled = SpilledRows(conn)
    for work_id, found in sorted(selection.ranges.items(), key=lambda item: item[1].start):
        if work_id.split(":", 1)[-1] in unread and work_id.startswith(f"{publisher.value}:"):
            continue
        spilled.load(range_values(selection.path, found), publisher.value,
                     lambda n: meter.advance(n, n), position=found.position)
    spilled.index()
    return spilled


def fts_state_rows(conn: sqlite3.Connection, work_rowid: int) -> list[tuple[int, str, str, str, str]]:
    """The ``provision_fts`` rows ``(rowid, title, number, heading, text)`` of one work's states, with
    the values they were inserted with (rebuilt from ``lexical_states``, ``texts`` and ``work_inputs``)."""
    found = conn.execute("SELECT fts_titles FROM work_inputs WHERE work_rowid = ?", (work_rowid,)).fetchone()
    titles = json.loads(found[0]) if found else {}
    states = conn.execute("SELECT state_rowid, language, anchor, num, heading, text_sha256 "
                          "FROM lexical_states WHERE work_rowid = ?", (work_rowid,)).fetchall()
    bodies = read_texts(conn, (sha for *_, sha in states))
    return [(rowid, titles.get(language, ""), fts_number(num, anchor), heading or "", fts_text(bodies[sha]))
            for rowid, language, anchor, num, heading, sha in states if sha in bodies]


def delete_work(conn: sqlite3.Connection, work_rowid: int) -> list[tuple[int, str, str, str, str]]:
    """Remove every row of one work from an index (FTS entries through FTS5's ``delete`` command, with the
    values they were inserted with); shared ``texts`` are pruned by the caller. Returns the
    ``provision_fts`` rows deleted (:func:`fts_state_rows`)."""
    lo, hi = work_rowid * WORK_SPAN, (work_rowid + 1) * WORK_SPAN - 1
    deleted = fts_state_rows(conn, work_rowid)
    conn.executemany(f"INSERT INTO {_PROVISION_FTS_DELETE} VALUES ('delete', ?, ?, ?, ?, ?)", deleted)
    names = [Name(k, n, v, lang) for k, n, v, lang in conn.execute(
        "SELECT kind, normalized, value, language FROM work_names WHERE work_rowid = ?", (work_rowid,))]
    labels = [MetadataRow(k, i, label, lang, n, u, f, last) for k, i, label, lang, n, u, f, last in conn.execute(
        "SELECT kind, identifier, label, language, normalized, source_uri, first_valid_from, last_valid_from "
        "FROM work_metadata WHERE work_rowid = ?", (work_rowid,))]  # fts_columns leaves the act terms out, as inserted
    if conn.execute("SELECT 1 FROM works WHERE work_rowid = ?", (work_rowid,)).fetchone():
        conn.execute(f"INSERT INTO {_WORK_FTS_DELETE} VALUES ('delete', ?, ?, ?, ?, ?, ?)",
                     (work_rowid, *fts_columns(names, labels)))
    for table in ("citation_rows", "observations", "provision_rows", "expressions"):
        conn.execute(f"DELETE FROM {table} WHERE expression_rowid BETWEEN ? AND ?", (lo, hi))
    conn.execute("DELETE FROM events WHERE version_rowid BETWEEN ? AND ?", (lo, hi))
    for table in ("versions", "lexical_states", "provision_state_rows", "anchor_event_rows", "work_names", "work_metadata_rows",
                  "works", "work_inputs"):
        conn.execute(f"DELETE FROM {table} WHERE work_rowid = ?", (work_rowid,))
    return deleted


_PROVISION_FTS_DELETE = "provision_fts(provision_fts, rowid, title, number, heading, text)"
_WORK_FTS_DELETE = "work_fts(work_fts, rowid, identifiers, titles, short_titles, aliases, metadata)"


def _replace(tmp: Path, final: Path) -> None:
    os.replace(tmp, final)


def build_index(publisher: Publisher, tree: TreeInput, dataset: DatasetInput, out_dir: Path, *, built_at: str,
                extra_stamp: Mapping[str, str] | None = None) -> BuildResult:
    """Build ``<out_dir>/<publisher>.sqlite`` and ``<publisher>.stamp.json`` from already-read inputs."""
    data = dataset.for_publisher(publisher.value)
    mine = tree.for_publisher(publisher.value)
    sources = _Sources(manifest=tree.manifest, works=mine.works, versions=lambda slug: mine.versions.get(slug, ()),
                       gaps=data.gaps, files=dataset.files, rows=lambda _conn, _meter: GroupedRows(data.rows))
    return _build(publisher, sources, out_dir, built_at, extra_stamp)


def build_from_paths(publisher: Publisher, tree: TreeLike, datasets: Path | Sequence[Path], out_dir: Path, *,
                     built_at: str, extra_stamp: Mapping[str, str] | None = None, previous: Path | None = None,
                     previous_sha256: str | None = None, known_sha256: KnownSha256 | None = None,
                     progress: ProgressFn | None = None) -> BuildResult:
    """:func:`build_index` reading the tree one work and the dataset(s) one row at a time.

    Several dataset directories are one input as in :func:`derive.index.inputs.merge_datasets`.
    Peak memory does not grow with the corpus (the scale harness measures it). With ``previous`` (an
    index file of this publisher, or a directory holding one) only the works whose inputs changed are
    rebuilt in a copy of it; the result has the same content digest as a full build (``docs/index.md``
    §2.1). ``previous_sha256``: that file's SHA-256 when the caller holds it (not read again);
    ``known_sha256``: the dataset files' SHA-256 (for the stamp) where the caller holds them (the
    pipeline: the derive stage hashed them as it wrote them), else they are read.
    ``progress`` receives :class:`derive.index.progress.Progress` snapshots.
    """
    dirs = [datasets] if isinstance(datasets, Path) else list(datasets)
    if known_sha256 is not None:  # asked once per file (the stamp's files, the work-spans sidecar)
        known_sha256 = functools.cache(known_sha256)
    read = [dataset_gaps(d, known_sha256) for d in dirs]
    gaps = [g for group, _ in read for g in group if g.work_id.split(":", 1)[0] == publisher.value]
    works = tuple(sorted((w for w in (as_dict(w) for w in tree.works()) if work_publisher(w) == publisher.value),
                         key=lambda w: str(w.get("slug", ""))))
    files = merged_files([f for _, f in read], [d.name for d in dirs])
    total_chars = sum(f.size for f in files if not f.path.endswith((".json", "gaps.jsonl", "errors.jsonl")))

    def versions(slug: str) -> tuple[dict[str, Any], ...]:
        return tuple(_record(v) for v in tree.versions(slug))

    def rows(conn: sqlite3.Connection, meter: BuildMeter) -> ExpressionRows:
        meter.phase("dataset", total_chars)
        spilled = SpilledRows(conn)
        for directory in dirs:
            spilled.load(dataset_row_values(directory), publisher.value, lambda n: meter.advance(n, n))
        spilled.index()
        return spilled

    def ranges(with_runs: bool) -> tuple[Path, JsonlRanges] | None:
        found = row_files(dirs[0]) if len(dirs) == 1 else []
        if len(found) != 1 or found[0].name != "provisions.jsonl":
            return None
        recorded = recorded_ranges(dirs[0], found[0], known_sha256)
        if recorded is not None and not with_runs:
            return found[0], recorded  # the merge's sidecar: the file is not read
        # the pass hashes each work's lines only when no sidecar gives the works' digests
        read = jsonl_ranges(found[0], with_runs=with_runs, hashed=recorded is None)
        if read is not None and recorded is not None:
            taken = with_recorded_works(read, recorded)
            # the sidecar places the works otherwise: the pass's own ranges, their lines hashed
            read = taken if taken is not read else jsonl_ranges(found[0], with_runs=with_runs)
        return None if read is None else (found[0], read)

    def unchecked_versions(slug: str) -> tuple[dict[str, Any], ...]:
        assert isinstance(tree, CorpusTree)
        return tuple(_record(v) for v in tree.versions(slug, verify=False))

    sources = _Sources(manifest=as_dict(tree.manifest()), works=works, versions=versions, gaps=gaps,
                       files=files, rows=rows, ranges=ranges,
                       unchecked_versions=unchecked_versions if isinstance(tree, CorpusTree) else None)
    if previous is not None and previous.is_dir():
        previous = previous / index_file_name(publisher.value)
    return _build(publisher, sources, out_dir, built_at, extra_stamp, previous=previous, progress=progress,
                  previous_sha256=previous_sha256)


def recorded_ranges(dataset_dir: Path, path: Path, known_sha256: KnownSha256 | None) -> JsonlRanges | None:
    """The works' ranges of ``path`` (a dataset's ``provisions.jsonl``) from the merge's work-spans
    sidecar (:mod:`derive.work_spans`), when the caller holds the file's SHA-256 (``known_sha256``:
    the pipeline's, hashed as the derive stage wrote it) and the sidecar names that digest; None
    otherwise (the file is then read: :func:`derive.index.ranges.jsonl_ranges`). Each range's
    ``sha256`` is then the digest of the work's rows identity (:func:`derive.work_spans.identity_digest`),
    what the merge vouches the lines are a function of."""
    if known_sha256 is None or not work_spans_path(dataset_dir).is_file():
        return None
    sha = known_sha256(path)
    spans = read_work_spans(dataset_dir, sha, path.stat().st_size)
    if spans is None:
        return None
    return JsonlRanges({s.work_id: Range(s.position, s.position + 1, s.start, s.end, identity_digest(s.ident))
                        for s in spans}, None)


def with_recorded_works(read: JsonlRanges, recorded: JsonlRanges) -> JsonlRanges:
    """``read`` (a pass over the file, for its runs) with the works' ranges ``recorded`` (the
    sidecar's: their keys digest rows identities), when both place every work's lines alike;
    otherwise ``read`` as it is."""
    def places(found: JsonlRanges) -> dict[str, tuple[int, int, int, int]]:
        return {w: (r.position, r.line, r.start, r.end) for w, r in found.works.items()}

    return JsonlRanges(recorded.works, read.runs) if places(read) == places(recorded) else read


def _record(record: Any) -> dict[str, Any]:
    """A version record as a dict: a shallow copy of a mapping (the build only reads records, so the
    deep copy of :func:`derive.index.inputs.as_dict` would be work for nothing), else ``as_dict``."""
    return dict(record) if isinstance(record, Mapping) else as_dict(record)


def build_in_memory(publisher: Publisher, tree: TreeInput, dataset: DatasetInput, out_dir: Path, *, built_at: str,
                    extra_stamp: Mapping[str, str] | None = None) -> BuildResult:
    """The pre-streaming builder (:func:`assemble` then :func:`write_index`), kept as the byte reference."""
    from derive.index.rows import assemble

    check_timestamp(built_at)
    rows = assemble(publisher, tree, dataset)
    if not rows.works:
        raise IndexError_("the tree holds no work for this publisher", code="empty_index", subject=publisher.value)
    stamp = build_stamp(publisher, tree.manifest, dataset.files, content_facts(rows), built_at, extra_stamp)
    return _publish(publisher, out_dir, lambda tmp: write_index(tmp, rows, stamp))


def _build(publisher: Publisher, sources: _Sources, out_dir: Path, built_at: str,
           extra_stamp: Mapping[str, str] | None, *, previous: Path | None = None,
           previous_sha256: str | None = None,
           progress: ProgressFn | None = None) -> BuildResult:
    check_timestamp(built_at)
    if not sources.works:
        raise IndexError_("the tree holds no work for this publisher", code="empty_index", subject=publisher.value)
    meter = BuildMeter(publisher.value, progress)

    def stamp(content: dict[str, str]) -> dict[str, str]:
        return build_stamp(publisher, sources.manifest, sources.files, content, built_at, extra_stamp)

    keys: dict[str, str] = {}
    records: dict[str, str] = {}
    aliases: dict[str, list[str]] = {}
    windows = WindowUpdate()

    def write(tmp: Path) -> dict[str, str]:
        # an incremental build keeps works it does not read again: its first pass checks every record
        # it reads (the works its previous sidecar vouches for are not read: :func:`_known_records`)
        incremental = previous is not None and previous.is_file()
        recorded: dict[str, Any] = {}
        sha = previous_sha256
        if previous is not None and incremental:
            sha = previous_sha256 or _sha256_file(previous)
            recorded = _read_work_keys(work_keys_path(previous.parent, publisher.value), sha)
        known = _known_records(recorded, publisher, sources.manifest)
        # (an incremental build finds the works' ranges only: it reads no expression's runs)
        context, selection = _select(publisher, sources, checked=incremental, with_runs=not incremental,
                                     known=known)
        if context.act_terms.by_work:  # the act terms of works this publisher holds, and of those it does not
            meter.facts.update(act_term_facts(context, publisher))
        if selection is not None:
            keys.update(selection.keys)
            records.update(selection.records)
            aliases.update(selection.aliases)
        if previous is not None and incremental:
            updated = _incremental_index(tmp, previous, publisher, sources, stamp, meter, context, selection,
                                         sha, windows, recorded)
            if updated is not None:
                return updated
            meter.facts["incremental_refused"] = "previous index not updatable (format, versions or set of works)"
            windows.previous = windows.changes = windows.result = windows.terms = None
            windows.terms_previous, windows.affected = None, frozenset()
            windows.pairs_previous = windows.pairs_old = None
            if selection is not None:  # the full build reads each expression's runs: find them now
                found = sources.ranges(True)
                selection.runs = None if found is None else found[1].runs
        return _stream_index(tmp, publisher, sources, stamp, meter, _Selection(context, {}, Path(), {})
                             if selection is None else selection, windows)

    # the sidecars name the previous file until the new one is in place (then they are rewritten)
    result = _publish(publisher, out_dir, write, meter)
    sidecar = work_keys_path(out_dir, publisher.value)
    if keys:
        _write_work_keys(out_dir, publisher.value, result.index_path, result.index_sha256, keys, records, aliases)
    else:
        sidecar.unlink(missing_ok=True)
    _write_windows(out_dir, publisher.value, result.index_sha256, windows.result)
    write_terms(terms_path(out_dir, publisher.value), windows.terms_result, result.index_sha256)
    write_pairs(pairs_path(out_dir, publisher.value), windows.pairs_result, result.index_sha256)
    return result


def _publish(publisher: Publisher, out_dir: Path, write: Callable[[Path], dict[str, str]],
             meter: BuildMeter | None = None) -> BuildResult:
    out_dir.mkdir(parents=True, exist_ok=True)
    final = out_dir / index_file_name(publisher.value)
    tmp = out_dir / f".{final.name}.building"
    full = write(tmp)
    _replace(tmp, final)
    sha, size = _sha256_file(final), final.stat().st_size
    stamp_path = out_dir / stamp_file_name(publisher.value)
    tmp_stamp = out_dir / f".{stamp_path.name}.building"
    tmp_stamp.write_bytes(pretty_bytes(stamp_document(full, final.name, sha, size)))
    _replace(tmp_stamp, stamp_path)
    metrics = meter.metrics() if meter is not None else {}
    if metrics:
        metrics["bytes"] = size
    from_block = metrics.get("texts_from_block", 1)
    return BuildResult(publisher=publisher.value, index_path=final, stamp_path=stamp_path, stamp=full,
                       index_sha256=sha, index_bytes=size, metrics=metrics,
                       texts_from_block=from_block if isinstance(from_block, int) else 1)
