"""The derive stage of the pipeline: sharded dataset build (incremental), merge, determinism
sample, ratchet.

A publisher's works are split into ``SHARDS`` static shards (:func:`derive.dataset.shard_of`,
a stable hash of the work slug: bounded, never one partition per work). Each shard is derived
into ``<workdir>/shards/<publisher>/<i>-of-<n>`` (:func:`run_shard`, the ``provision_shards``
asset) and the shards are merged into ``<workdir>/derived/<publisher>`` (:func:`run`, the
``provisions`` asset).

Every build is parallel over works (``build_dataset(workers=…)``, a process pool, the same bytes
as one process): a shard partition uses its share of the machine's cores (the partitions run
side by side), a shard derived in-step by a publisher's ``provisions`` step its publisher's share
(:func:`partition_workers`: the publishers' runs run side by side; ``LEX_DERIVE_WORKERS``
overrides the number of cores). On one machine the
shards are therefore not needed for speed; they remain the unit of fan-out across machines.

Kept out of ``assets.py`` so the Dagster shell stays thin; everything here is plain functions
over the ``derive`` package.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from corpus_tree import CorpusTree
from legal.artifacts import DATASET_FILES, DATASET_TABLES
from legal.canonical import canonical_bytes, digest
from legal.ids import Publisher
from pipelines.settings import PUBLISHERS, SHARDS, LexSettings
from pipelines.state import StageState, files_digest

if TYPE_CHECKING:
    from derive.dataset import BuildReport
    from derive.ratchet import SignatureCounts

SAMPLE_SIZE = 3
Progress = Callable[[str, int, int], None]
#: What the stage writes and checks before skipping: every file of the dataset contract (the four
#: Parquet tables and the gaps, which the artifact set carries) and the JSONL rows, errors and
#: summary. A missing or changed one makes the stage run again.
OUTPUTS = ("provisions.jsonl", *DATASET_FILES, "errors.jsonl", "summary.json")


@dataclass
class StageResult:
    metadata: dict[str, Any] = field(default_factory=dict)
    data_version: str = ""
    deterministic: bool = True
    sampled: list[str] = field(default_factory=list)
    skipped: bool = False


def _profile_fingerprint() -> str:
    """The derive code digest of the stage inputs: what the derivation declares about its output
    (:func:`derive.cache.derivation_digest`: every profile id with its version, the declared
    versions of the shared code and of the citation resolver, the parser versions, the limits).
    The same declared versions key the per-work cache, so a bump re-runs the stage and the
    stage re-derives only the works whose own key changed. No source file is hashed."""
    from derive.cache import derivation_digest

    return derivation_digest()


def _version_progress(progress: Progress | None, phase: str, total: int) -> Callable[[str], None] | None:
    """Adapt the pipeline's ``(phase, done, total)`` progress to the derive per-version callback."""
    if progress is None:
        return None
    done = 0

    def step(_lex_id: str) -> None:
        nonlocal done
        done += 1
        progress(phase, done, total)

    return step


def table_facts(out: Path, digests: dict[str, str]) -> dict[str, dict[str, Any]]:
    """``{table file: {rows, bytes, sha256}}`` of the dataset's Parquet tables in ``out`` (rows
    from the Parquet footer, digests as :func:`pipelines.state.files_digest` gave them)."""
    import pyarrow.parquet as pq

    return {name: {"rows": pq.read_metadata(out / name).num_rows, "bytes": (out / name).stat().st_size,
                   "sha256": digests[name]} for name in DATASET_TABLES}


def written_digest(outputs: dict[str, Path], written: dict[str, str]) -> dict[str, str]:
    """:func:`pipelines.state.files_digest` of ``outputs`` just written, taking the hashes the
    writer computed as it wrote (``written``, :attr:`derive.dataset.BuildReport.sha256`: the
    620 MB ``provisions.jsonl`` is not read again) and reading the others."""
    known = {name: sha for name, sha in written.items() if name in outputs and outputs[name].is_file()}
    return dict(sorted({**files_digest({k: v for k, v in outputs.items() if k not in known}), **known}.items()))


def dataset_version(digests: dict[str, str]) -> str:
    """The data version of a dataset: one digest over every output file's digest."""
    return digest(digests)


def shard_outputs(out: Path) -> dict[str, Path]:
    """What a shard's stage state records: every file but ``shard.json``, which carries the
    whole-tree facts and is rewritten when another shard's works change
    (:func:`derive.dataset.refresh_shard`)."""
    return {name: out / name for name in OUTPUTS}


def stage_workers() -> int:
    """Derivation processes of one build in this stage: ``LEX_DERIVE_WORKERS``, else the cores."""
    from derive.dataset import default_workers

    return int(os.environ.get("LEX_DERIVE_WORKERS", "0") or 0) or default_workers()


def shard_workers(shards: int) -> int:
    """Processes per shard partition when ``shards`` partitions run side by side on this machine."""
    return max(1, stage_workers() // max(1, shards))


def partition_workers() -> int:
    """Processes per shard derived in-step by one publisher's ``provisions`` step: the stage's
    (:func:`stage_workers`) shared among the publishers' ``evidence`` runs, which a backfill runs
    side by side (``max_concurrent_runs: 2``): on two cores, one each — both cores busy, and no
    pool to pay for (docs/adr/0017-publishers-side-by-side.md measures it)."""
    return max(1, stage_workers() // max(1, len(PUBLISHERS)))


_ALIASES: dict[tuple[str, str], Any] = {}


ALIAS_MEMO_SCHEMA = "lex-alias-memo/1"


def alias_memo_path(lex: LexSettings, publisher: Publisher) -> Path:
    """Per work, the records digest and alias slugs the last alias table read (pipeline state)."""
    return lex.root / "state" / f"aliases-{publisher.value}.json"


def _read_alias_memo(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    works = value.get("works") if isinstance(value, dict) and value.get("schema") == ALIAS_MEMO_SCHEMA else None
    return works if isinstance(works, dict) else {}


def _alias_table(tree: CorpusTree, memo: Path | None = None) -> Any:
    """The tree's alias table (:func:`derive.dataset.alias_table`), computed once per tree and
    records digest in this process (a function of the records: every shard of a run shares it).
    ``memo``: a state file of each work's records digest and alias slugs (:data:`ALIAS_MEMO_SCHEMA`),
    read so that only the works whose digest in the tree manifest changed have their version
    records read (in a one-changed-work run: one work's, not every record), and rewritten."""
    from derive.dataset import alias_table
    from release.files import atomic_write

    key = (str(tree.root), str(tree.manifest().get("records_digest")))
    if key not in _ALIASES:
        _ALIASES.clear()
        if memo is None:
            _ALIASES[key] = alias_table(tree)
        else:
            found: dict[str, list[Any]] = {}
            _ALIASES[key] = alias_table(tree, _read_alias_memo(memo), found)
            memo.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(memo, canonical_bytes({"schema": ALIAS_MEMO_SCHEMA, "works": found}))
    return _ALIASES[key]


def shard_tree_state(lex: LexSettings, publisher: Publisher, index: int, shards: int,
                     tree: CorpusTree) -> tuple[StageState, dict[str, Any], dict[str, Path]]:
    """A shard's quick check: its state for the tree, the inputs (the tree's records digest, the
    code, the shard) and every file of it (with ``shard.json``). Current: nothing to do."""
    from derive.dataset import SHARD_FILE

    out = lex.shard(publisher.value, index, shards)
    state = StageState(lex.root, f"derive-{publisher.value}-shard-{index}-of-{shards}-tree", rehash=lex.rehash)
    inputs = {"records": tree.manifest().get("records_digest"), "code": _profile_fingerprint(),
              "shard": [index, shards]}
    return state, inputs, {**shard_outputs(out), SHARD_FILE: out / SHARD_FILE}


def dataset_state(lex: LexSettings, publisher: Publisher, shards: int,
                  tree: CorpusTree) -> tuple[StageState, dict[str, Any], dict[str, Path]]:
    """The merged dataset's state, inputs (the tree's records digest, the code, the shard count)
    and outputs: :func:`run` merges nothing when the state holds them."""
    out = lex.derived(publisher.value)
    state = StageState(lex.root, f"derive-{publisher.value}", rehash=lex.rehash)
    inputs = {"records": tree.manifest().get("records_digest"), "code": _profile_fingerprint(),
              "shards": shards}
    return state, inputs, {name: out / name for name in OUTPUTS}


@contextlib.contextmanager
def tree_facts_held(lex: LexSettings, publisher: Publisher) -> Iterator[None]:
    """The publisher's tree's facts that every shard asks (its work facts, the build's tree digest,
    each shard's inputs) computed once for the block (:func:`derive.dataset.tree_held`): around a
    step that brings every shard up to date and merges them, which reads the tree it started on."""
    from derive.dataset import tree_held

    with tree_held(CorpusTree.open(lex.tree(publisher.value), evidence_dir=lex.evidence_dir or None)):
        yield


def run_shard(lex: LexSettings, publisher: Publisher, index: int, shards: int = SHARDS,
              progress: Progress | None = None, workers: int | None = None,
              aliases: Any = None) -> StageResult:
    """Derive shard ``index`` of ``shards`` of a publisher's works, with ``workers`` processes
    (default :func:`shard_workers`). Skipped when the shard's own inputs
    (:func:`derive.dataset.shard_inputs`: its works' records, the alias table, the code) are those
    of its files: then only its ``shard.json`` is brought up to date with the tree
    (:func:`derive.dataset.refresh_shard`), so one changed work re-derives one shard.
    ``aliases``: the tree's alias table when the caller already has it."""
    from derive.dataset import (
        SHARD_FILE,
        build_dataset,
        count_versions,
        refresh_shard,
        shard_inputs,
    )

    tree = CorpusTree.open(lex.tree(publisher.value), evidence_dir=lex.evidence_dir or None)
    out = lex.shard(publisher.value, index, shards)
    started = time.monotonic()
    outputs = shard_outputs(out)
    # The quick check first: the very tree (records digest) this shard and its shard.json were last
    # made current for — then nothing is computed but the outputs' hashes (the no-change run).
    current, tree_inputs, whole = shard_tree_state(lex, publisher, index, shards, tree)
    state = StageState(lex.root, f"derive-{publisher.value}-shard-{index}-of-{shards}", rehash=lex.rehash)
    inputs: dict[str, Any] = {}
    if current.unchanged(tree_inputs, whole):
        skipped = True
        state = current
    else:
        table = aliases if aliases is not None else _alias_table(tree, alias_memo_path(lex, publisher))
        inputs = {"shard_inputs": shard_inputs(tree, (index, shards), aliases=table),
                  "code": _profile_fingerprint(), "shard": [index, shards]}
        skipped = state.unchanged(inputs, outputs) and refresh_shard(tree, out, (index, shards), aliases=table)
    run: dict[str, Any]
    written: dict[str, str] = {}
    if skipped:
        run = {**json.loads((out / "summary.json").read_bytes()), "works_derived": 0}
    else:
        shard = (index, shards)
        step = _version_progress(progress, f"derive shard {index}/{shards}", count_versions(tree, shard))
        label = shard_counts_label(publisher, index, shards)
        prior = _current_counts(lex, label, out / "provisions.jsonl")  # before the build replaces it
        built = build_dataset(tree, out, shard=shard, progress=step, aliases=_alias_table(tree),
                              workers=workers if workers is not None else shard_workers(shards))
        run, written = built.run_dict(), built.sha256
        if prior is not None:
            _keep_updated_counts(lex, label, out, prior, built)
    if not skipped:
        hashes = written_digest(whole, written)
    elif state is current:
        hashes = state.output_digests(whole)
    else:  # refreshed: only shard.json was written since the check hashed the rest
        hashes = {**state.output_digests(outputs), **files_digest({SHARD_FILE: out / SHARD_FILE})}
    digests = {name: hashes[name] for name in outputs if name in hashes}
    if not skipped:
        state.record(inputs, outputs, digests)
    if state is not current:  # built or refreshed for this tree
        current.record(tree_inputs, whole, hashes)
    return StageResult(
        metadata={"skipped": "inputs unchanged" if skipped else "", **run, "shard": f"{index}/{shards}",
                  "provisions_jsonl_sha256": digests["provisions.jsonl"],
                  "tables": table_facts(out, digests), "seconds": round(time.monotonic() - started, 3)},
        data_version=dataset_version(digests), skipped=skipped,
    )


def run(lex: LexSettings, publisher: Publisher, shards: int = SHARDS,
        progress: Progress | None = None) -> StageResult:
    """The publisher's dataset: the merge of its ``shards`` shard outputs (byte-identical to an
    unsharded build). A shard that is not current for the tree (its ``provision_shards``
    partition was not run since the tree changed) is derived here first, in-step, so one
    per-publisher run is complete on its own; in the fan-out deployment every shard is already
    current and this step only merges."""
    from derive.dataset import merge_shards, tree_held

    tree = CorpusTree.open(lex.tree(publisher.value), evidence_dir=lex.evidence_dir or None)
    out = lex.derived(publisher.value)
    state, inputs, outputs = dataset_state(lex, publisher, shards, tree)
    started = time.monotonic()
    skipped = state.unchanged(inputs, outputs)
    summary: dict[str, Any]
    in_step: list[int] = []
    works_derived = works_copied = 0
    spans: dict[str, tuple[int, int]] | None = None
    written: dict[str, str] = {}
    groups: list[int] = []  # provisions.parquet row groups written, copied from the previous file
    if skipped:
        summary = json.loads((out / "summary.json").read_bytes())
    else:
        aliases = _alias_table(tree, alias_memo_path(lex, publisher))
        with tree_held(tree):  # the tree's facts asked of every shard: computed once for the stage
            for index in range(shards):
                shard = run_shard(lex, publisher, index, shards, progress, workers=partition_workers(),
                                  aliases=aliases)
                if not shard.skipped:
                    in_step.append(index)
                    works_derived += int(shard.metadata.get("works_derived", 0))
                    works_copied += int(shard.metadata.get("works_copied", 0))
        _remember_empty_counts(lex, publisher, out)
        merged = merge_shards([lex.shard(publisher.value, i, shards) for i in range(shards)], out)
        summary, spans, written = merged.to_dict(), merged.spans, merged.sha256
        groups = [merged.row_groups, merged.row_groups_copied]
    # The determinism sample runs whenever the dataset was (re)built; the stage is recorded only
    # if it passed, so a skipped stage means "this exact dataset passed when it was built".
    memo = StageState(lex.root, f"determinism-{publisher.value}", rehash=lex.rehash)
    sampled, same = ([], True) if skipped else determinism_sample(tree, out, memo, spans)
    digests = state.output_digests(outputs) if skipped else written_digest(outputs, written)
    if not skipped and same:
        state.record(inputs, outputs, digests)
        # the ratchet's counts of the dataset just merged, from its shards' (read only if rebuilt)
        empty_counts(lex, publisher, out, counted=lambda: merged_counts(lex, publisher, shards))
    return StageResult(
        metadata={"skipped": "inputs unchanged" if skipped else "", **summary, "shards": shards,
                  "shards_derived_in_step": in_step, "works_derived_in_step": works_derived,
                  "works_copied_in_step": works_copied, "row_groups_copied": groups,
                  "provisions_jsonl_sha256": digests["provisions.jsonl"], "tables": table_facts(out, digests),
                  "seconds": round(time.monotonic() - started, 3)},
        data_version=dataset_version(digests), deterministic=same, sampled=sampled, skipped=skipped,
    )


def _sample_versions(tree: CorpusTree) -> list[Any]:
    """The :data:`SAMPLE_SIZE` versions whose lex ids hash lowest. Their ids come from the
    manifest's works and the version directories (no record parsed but the chosen ones'); a
    directory without a record is passed over, as :meth:`CorpusTree.iter_versions` does."""
    from corpus_tree.records import RECORD_FILE

    works = tree.manifest().get("works_index")
    if not isinstance(works, dict):
        versions = list(tree.iter_versions(verify=False))
        versions.sort(key=lambda v: hashlib.sha256(v.lex_id.encode()).hexdigest())
        return versions[:SAMPLE_SIZE]
    ids = [f"{work_id}:{key}" for work_id in works for key in tree.version_keys(str(work_id).split(":", 1)[1])]
    ids.sort(key=lambda lex_id: hashlib.sha256(lex_id.encode()).hexdigest())
    chosen: list[Any] = []
    for lex_id in ids:
        if len(chosen) == SAMPLE_SIZE:
            break
        _publisher, slug, key = lex_id.split(":", 2)
        if (tree.version_dir(slug, key) / RECORD_FILE).is_file():
            chosen.append(tree.version(lex_id, verify=False))
    return chosen


def _rows_by_lex_id(path: Path, wanted: set[str],
                    ranges: list[tuple[int, int]] | None = None) -> dict[str, list[bytes]]:
    """The canonical lines of ``wanted`` lex ids, in file order: each line holding
    ``"lex_id":"<id>"`` (a byte search over the file read in chunks of whole lines) is parsed and
    kept if its ``lex_id`` is that one. ``ranges``: only these ``(offset, length)`` spans of whole
    lines are searched (the spans of the wanted versions' works, as the merge that wrote the file
    copied them, each line checked to name its work: a version's rows are all in its work's)."""
    if ranges is None:
        return _scan_file(path, wanted)
    found: dict[str, list[bytes]] = {k: [] for k in wanted}
    with path.open("rb") as handle:
        for offset, length in sorted(set(ranges)):
            handle.seek(offset)
            for lex_id, lines in _scan(handle.read(length), wanted).items():
                found[lex_id].extend(lines)
    return found


def _scan(lines: bytes, wanted: set[str]) -> dict[str, list[bytes]]:
    """The lines of ``lines`` (whole lines) of each ``wanted`` lex id, in order."""
    found: dict[str, list[bytes]] = {k: [] for k in wanted}
    for lex_id in sorted(wanted):
        key = b'"lex_id":' + json.dumps(lex_id).encode("utf-8")
        at = lines.find(key)
        while at >= 0:
            start = lines.rfind(b"\n", 0, at) + 1
            end = lines.find(b"\n", at)
            end = len(lines) if end < 0 else end
            line = lines[start:end]
            if json.loads(line).get("lex_id") == lex_id:
                found[lex_id].append(line)
            at = lines.find(key, end)
    return found


def _scan_file(path: Path, wanted: set[str]) -> dict[str, list[bytes]]:
    """:func:`_scan` over a whole file read in chunks of whole lines."""
    found: dict[str, list[bytes]] = {k: [] for k in wanted}
    rest = b""
    with path.open("rb") as handle:
        while True:
            chunk = handle.read(1 << 23)
            data = rest + chunk
            cut = data.rfind(b"\n") + 1 if chunk else len(data)
            lines, rest = data[:cut], data[cut:]
            for lex_id, rows in _scan(lines, wanted).items():
                found[lex_id].extend(rows)
            if not chunk:
                return found


def determinism_sample(tree: CorpusTree, out: Path, memo: StageState | None = None,
                       spans: dict[str, tuple[int, int]] | None = None) -> tuple[list[str], bool]:
    """Re-derive a fixed sample of versions from evidence; their rows must equal the dataset's.
    ``spans``: where each work's lines are in the dataset's ``provisions.jsonl`` (the merge that
    wrote it says so): only the sampled works' lines are read.

    With ``memo``, a sample that passed is remembered with everything its outcome is a function
    of: the sampled versions' works' records, the derivation code, the alias table and the
    sampled rows the dataset holds. When all of them are those of the last pass (another work
    changed), the versions are not derived again: the comparison would be the same one."""
    from derive.dataset import derive_version, rows_encoding
    from derive.units import fmx4_languages

    sample = _sample_versions(tree)
    ranges = None if spans is None else [spans[w] for w in {str(v.work_id) for v in sample} if w in spans]
    stored = _rows_by_lex_id(out / "provisions.jsonl", {v.lex_id for v in sample}, ranges)
    aliases = _alias_table(tree)  # the table the shards were built with, computed once per tree
    works = {v.work_id.slug.value: tree.versions(v.work_id.slug.value, verify=False) for v in sample}
    inputs = {"records": {slug: [[v.lex_id, v.record_sha256] for v in found] for slug, found in sorted(works.items())},
              "code": _profile_fingerprint(), "encoding": rows_encoding(aliases),
              "rows": {v.lex_id: digest(sorted(line.decode("utf-8") for line in stored[v.lex_id])) for v in sample}}
    if memo is not None and memo.unchanged(inputs, {}):
        return [v.lex_id for v in sample], True
    same = True
    for version in sample:
        siblings = works[version.work_id.slug.value]
        first = min(str(v.valid_from) for v in siblings)
        outcome = derive_version(version, tree.evidence, fmx4_languages(siblings, tree.evidence), aliases,
                                 first_valid_from=first)
        fresh = sorted(canonical_bytes(r) for r in outcome.rows)
        same = same and fresh == sorted(stored[version.lex_id])
    if same and memo is not None:
        memo.record(inputs, {})
    return [v.lex_id for v in sample], same


def _counts_path(lex: LexSettings, publisher: Publisher) -> Path:
    return lex.root / "state" / f"empty-provisions-{publisher.value}.json"


def empty_counts(lex: LexSettings, publisher: Publisher, dataset: Path, name: str = "",
                 counted: Callable[[], Any] | None = None) -> Any:
    """:func:`derive.ratchet.empty_signature_counts` of ``dataset``, a function of its
    ``provisions.jsonl`` alone: kept in ``state/empty-counts-<publisher>[-<name>].cache.json`` with
    that file's SHA-256, found through the stage quick check (:class:`pipelines.state.StageState`),
    so an unchanged dataset is not read again by every run's ratchet. ``counted``: how to get the
    counts other than by reading the file (a merged dataset: the union of its shards' counts)."""
    from derive.ratchet import empty_signature_counts

    label = _counts_label(publisher, name)
    source = dataset / "provisions.jsonl"
    state = StageState(lex.root, label, rehash=lex.rehash)
    sha = state.sha256(source)
    cache = _counts_cache(lex, label)
    try:
        cached = json.loads(cache.read_bytes())
        if isinstance(cached, dict) and cached.get("provisions_jsonl_sha256") == sha:
            return cached["counts"]
    except (OSError, ValueError, KeyError):
        pass
    counts = counted() if counted is not None else empty_signature_counts(dataset)
    cache.parent.mkdir(parents=True, exist_ok=True)
    tmp = cache.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(canonical_bytes({"provisions_jsonl_sha256": sha, "counts": counts}))
    os.replace(tmp, cache)
    if state.sha256(source) == sha:  # unchanged while it was counted: remember its stat
        state.record({"provisions_jsonl_sha256": sha}, {})
    return counts


def _counts_label(publisher: Publisher, name: str = "") -> str:
    return f"empty-counts-{publisher.value}" + (f"-{name}" if name else "")


def _shard_name(index: int, shards: int) -> str:
    return f"shard-{index}-of-{shards}"


def shard_counts_label(publisher: Publisher, index: int, shards: int) -> str:
    """The :func:`empty_counts` label of shard ``index`` of ``shards`` of a publisher."""
    return _counts_label(publisher, _shard_name(index, shards))


def _counts_cache(lex: LexSettings, label: str) -> Path:
    return lex.root / "state" / f"{label}.cache.json"


def _current_counts(lex: LexSettings, label: str, source: Path) -> SignatureCounts | None:
    """The kept counts of ``source`` (:func:`empty_counts`' cache under ``label``) when the file is
    the one they were counted from by the quick check (its recorded size, time and inode give the
    SHA-256 the cache names; never read here), else None."""
    if lex.rehash:
        return None
    sha = StageState(lex.root, label).recorded_sha256(source)
    if sha is None:
        return None
    try:
        cached = json.loads(_counts_cache(lex, label).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(cached, dict) or cached.get("provisions_jsonl_sha256") != sha \
            or not isinstance(cached.get("counts"), dict):
        return None
    counts: SignatureCounts = cached["counts"]  # the JSON the cache was written from
    return counts


def _keep_updated_counts(lex: LexSettings, label: str, out: Path, prior: SignatureCounts, built: BuildReport) -> None:
    """Keep the counts of the shard ``built`` just wrote in ``out`` (:func:`empty_counts`' cache
    under ``label``) from ``prior``, those of the output it replaced: the works whose lines it
    copied keep theirs, the others are counted from their own lines
    (:func:`derive.ratchet.updated_signature_counts`) — in a one-changed-work build, one work's
    lines are read, not the shard's. The new file's SHA-256 is the one the build hashed as it wrote."""
    from derive.ratchet import updated_signature_counts
    from release.files import atomic_write

    source = out / "provisions.jsonl"
    sha = built.sha256.get("provisions.jsonl")
    if not sha:
        return
    counts = updated_signature_counts(out, prior, built.copied, built.spans)
    state = StageState(lex.root, label)
    state.remember(source, sha)
    atomic_write(_counts_cache(lex, label), canonical_bytes({"provisions_jsonl_sha256": sha, "counts": counts}))
    state.record({"provisions_jsonl_sha256": sha}, {})


def merged_counts(lex: LexSettings, publisher: Publisher, shards: int) -> Any:
    """The empty-provision counts of the dataset just merged from the publisher's ``shards``: the
    union of each shard's counts (a work's rows are all in its shard), each kept against that
    shard's ``provisions.jsonl`` (:func:`empty_counts`), so only a rebuilt shard is read."""
    found: dict[str, Any] = {}
    for index in range(shards):
        found.update(empty_counts(lex, publisher, lex.shard(publisher.value, index, shards),
                                  name=_shard_name(index, shards)))
    return dict(sorted(found.items()))


def _remember_empty_counts(lex: LexSettings, publisher: Publisher, out: Path) -> None:
    """Keep the accepted dataset's empty-provision signatures as the ratchet's baseline."""
    if (out / "provisions.jsonl").is_file():
        path = _counts_path(lex, publisher)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(canonical_bytes(empty_counts(lex, publisher, out)))


def ratchet_problems(lex: LexSettings) -> list[str]:
    """(work, signature) pairs whose empty provisions grew since the previous accepted dataset
    (reference model §6.7); a work with no baseline is accepted as it is."""
    from derive.ratchet import check_ratchet

    problems: list[str] = []
    for publisher in Publisher:
        previous_path = _counts_path(lex, publisher)
        dataset = lex.derived(publisher.value)
        if not previous_path.is_file() or not (dataset / "provisions.jsonl").is_file():
            continue
        previous = json.loads(previous_path.read_bytes())
        problems.extend(str(p) for p in check_ratchet(previous, empty_counts(lex, publisher, dataset)))
    return problems
