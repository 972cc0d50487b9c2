"""The assets: corpus tree → provision shards → provisions (dataset) → search index, per
publisher; then the signed artifact set.

Each asset is a thin shell over the same functions the ``lex`` command line calls; it reports
counts, digests and timings as metadata, and a ``data_version`` that is a digest of what it
produced, so unchanged inputs are visible as unchanged outputs in the Dagster UI. Stages record
their input digests (:mod:`pipelines.state`) and skip work when nothing changed.
"""

import contextlib
import datetime as _dt
import json
import os
import time
import warnings
from pathlib import Path
from typing import Any

import dagster as dg
from dagster import AssetExecutionContext

from corpus_tree import CorpusTree
from corpus_tree.verify import verify_tree
from legal.ids import Publisher
from pipelines import versions
from pipelines.settings import PUBLISHERS, SHARDS, LexSettings
from pipelines.sources import update_tree, verified_state

publisher_partitions = dg.StaticPartitionsDefinition(list(PUBLISHERS))
#: publisher × shard (``lu-legilux|0`` … ``eu-eurlex|3``): a bounded number of static shards of
#: works per publisher, never one partition per work.
shard_partitions = dg.MultiPartitionsDefinition({
    "publisher": publisher_partitions,
    "shard": dg.StaticPartitionsDefinition([str(i) for i in range(SHARDS)]),
})
#: A publisher partition ↔ every ``publisher|shard`` partition of that publisher (what Dagster
#: would infer; explicit for the reader, its beta warning silenced).
with warnings.catch_warnings():
    warnings.simplefilter("ignore", dg.BetaWarning)
    BY_PUBLISHER = dg.MultiToSingleDimensionPartitionMapping(partition_dimension_name="publisher")

CORPUS_VERIFIES = dg.AssetCheckSpec("verifies", asset="corpus_tree", blocking=True,
                                    description="Every record, body and identity of the tree verifies.")
INDEX_VERIFIES = dg.AssetCheckSpec("stamp_digest_recomputes", asset="search_index", blocking=True,
                                   description="The index verifies: the stamp's content digest is the one the build computed over "
                                               "this file (tied by the stamp file's SHA-256), every text hashes to "
                                               "its key (after an incremental build: every text it wrote, ADR 0026), "
                                               "counters and FTS rows match.")
#: the tags under which Dagster reads a materialisation's data and code versions (what a
#: ``MaterializeResult(data_version=...)`` of an asset with a ``code_version`` records)
DATA_VERSION_TAG = "dagster/data_version"
CODE_VERSION_TAG = "dagster/code_version"
PROVISIONS_DETERMINISTIC = dg.AssetCheckSpec(
    "deterministic_sample", asset="provisions", blocking=True,
    description="Re-deriving a sample of versions from evidence gives byte-identical rows.")


def _publisher(context: AssetExecutionContext) -> Publisher:
    return Publisher.parse(context.partition_key)


def _progress(context: AssetExecutionContext, every: int = 200) -> Any:
    def report(phase: str, done: int, total: int) -> None:
        if total and (done == total or done % every == 0):
            context.log.info(f"{phase}: {done}/{total}")

    return report


def _meta(values: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in values.items():
        if isinstance(value, (bool, int, float, str, dg.MetadataValue)):
            out[key] = value
        elif value is not None:
            out[key] = dg.MetadataValue.json(value)
    return out


#: Declarative automation (evaluated only while the ``lex_automation`` sensor runs:
#: ``LEX_AUTOMATION=eager``): each publisher's tree is refreshed at 03:00 UTC, the dataset and index
#: of a publisher follow as soon as their parent partition has a new materialisation (the data
#: version decides whether anything downstream is stale), and the artifact set is built at 05:00 UTC
#: once its inputs were updated since that tick.
NIGHTLY_TREE = dg.AutomationCondition.on_cron("0 3 * * *", "UTC")
FOLLOW = dg.AutomationCondition.eager()
NIGHTLY_RELEASE = dg.AutomationCondition.on_cron("0 5 * * *", "UTC")

#: Each publisher's tree must have been refreshed within 26 hours (nightly run plus slack).
CORPUS_FRESHNESS = dg.FreshnessPolicy.time_window(fail_window=_dt.timedelta(hours=26),
                                                  warn_window=_dt.timedelta(hours=25))


@dg.asset(partitions_def=publisher_partitions, group_name="evidence", kinds={"python", "filesystem"},
          check_specs=[CORPUS_VERIFIES], pool="publisher_http", freshness_policy=CORPUS_FRESHNESS,
          code_version=versions.corpus_tree(), automation_condition=NIGHTLY_TREE)
def corpus_tree(context: AssetExecutionContext, lex: LexSettings) -> dg.MaterializeResult:  # type: ignore[type-arg]
    """The append-only evidence store and dated work/version tree of one publisher."""
    publisher = _publisher(context)
    started = time.monotonic()
    root = lex.tree(publisher.value)
    # an existing tree is imported into as it is open, in a caching block: the verification below
    # takes the records the import parsed instead of parsing every record file again
    held = CorpusTree.open(root) if (root / "manifest.json").is_file() else None  # as the import opens it
    staged: set[str] = set()  # the bodies the import installed, each hashed as it was written
    with held.caching() if held is not None else contextlib.nullcontext():
        report = update_tree(lex, publisher, progress=_progress(context), tree=held, staged=staged)
        parsed = held.parsed_records() if held is not None else {}
    # new bodies: fetched (ingest: bodies_new) or taken from a published tree (import: bodies_added)
    downloads = report.get("bodies_new", report.get("bodies_added", report.get("bodies", 0)))
    tree = CorpusTree.open(root, evidence_dir=lex.evidence_dir or None)
    manifest = tree.manifest()
    # Full verification (every record, identity and body hash) whenever the tree changed; an
    # unchanged tree (same records digest as the last full pass) is not re-hashed every night —
    # `lex corpus verify` is the periodic scrub for storage faults.
    # After a change the record files whose size, time and inode are those the last sound pass read
    # are parsed, not re-hashed, and their bodies checked for size (corpus_tree.verify, ``known``):
    # the changed works' records and bodies are verified in full, the manifest against every record,
    # but for the bodies the import just installed: hashed as they were written, their size is checked.
    verified, verified_inputs = verified_state(lex, publisher, manifest.get("records_digest"))
    unchanged = verified.unchanged(verified_inputs, {})
    problems: list[str] = []
    if not unchanged:
        stats = lex.root / "state" / f"corpus-verified-{publisher.value}.records.json"
        known = {} if lex.rehash else _read_stats(stats)
        checked = verify_tree(tree.root, evidence_dir=lex.evidence_dir or None, known=known, parsed=parsed,
                              fresh=() if lex.rehash else staged)
        problems = [str(p) for p in checked.problems]
        if not problems:
            _write_stats(stats, checked.record_stats)
            verified.record(verified_inputs, {})
    return dg.MaterializeResult(
        metadata=_meta({
            "source": lex.source,
            "skipped": str(report.get("skipped", "")),
            **{k: manifest["counts"].get(k) for k in ("works", "versions", "expressions", "bodies_held",
                                                      "bodies_held_elsewhere", "withdrawn_versions")},
            "records_digest": manifest.get("records_digest"),
            "new_bodies": downloads,
            "requests": report.get("requests", 0),
            "run": report,
            "seconds": round(time.monotonic() - started, 3),
            "tree": dg.MetadataValue.path(str(tree.root)),
        }),
        data_version=dg.DataVersion(str(manifest.get("records_digest"))),
        check_results=[dg.AssetCheckResult(check_name="verifies", passed=not problems,
                                           metadata=_meta({"problems": problems[:20],
                                                           "verified": "at the last change (records unchanged)"
                                                           if unchanged else "now"}))],
    )


def _read_stats(path: Path) -> dict[str, str]:
    """The record files' stats a sound verification recorded (none when unreadable)."""
    try:
        value = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def _write_stats(path: Path, stats: dict[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(json.dumps(dict(sorted(stats.items())), separators=(",", ":")).encode())
    os.replace(tmp, path)


@dg.asset(partitions_def=shard_partitions, group_name="derived", kinds={"python", "jsonl"},
          deps=[dg.AssetDep(corpus_tree, partition_mapping=BY_PUBLISHER)], code_version=versions.derivation())
def provision_shards(context: AssetExecutionContext, lex: LexSettings) -> dg.MaterializeResult:  # type: ignore[type-arg]
    """One shard of one publisher's works derived to provisions (the fan-out unit at scale)."""
    from pipelines import derive_stage

    key = context.partition_key.keys_by_dimension
    result = derive_stage.run_shard(lex, Publisher.parse(key["publisher"]), int(key["shard"]),
                                    progress=_progress(context))
    return dg.MaterializeResult(metadata=_meta(result.metadata), data_version=dg.DataVersion(result.data_version))


@dg.asset(partitions_def=publisher_partitions, group_name="derived", kinds={"python", "parquet"},
          deps=[corpus_tree, dg.AssetDep(provision_shards, partition_mapping=BY_PUBLISHER)],
          check_specs=[PROVISIONS_DETERMINISTIC], code_version=versions.derivation(), automation_condition=FOLLOW)
def provisions(context: AssetExecutionContext, lex: LexSettings) -> dg.MaterializeResult:  # type: ignore[type-arg]
    """The per-article dataset of one publisher — the four tables of the dataset contract
    (provisions, states, version_events, version_visibility: rows, bytes and digest of each in the
    ``tables`` metadata), gaps, JSONL rows and per-work histories — the merge of its shards. In a run that does not materialise ``provision_shards`` itself (the
    ``evidence`` job), each shard is brought up to date here first, and each shard that ran is
    recorded as a materialisation of its own ``provision_shards`` partition, so Dagster shows the
    shards that ran in this step."""
    from pipelines import derive_stage

    publisher = _publisher(context)
    in_step: list[int] = []
    works_derived = works_copied = 0
    # the tree's facts every shard asks (work facts, tree digest, shard inputs): computed once here
    with derive_stage.tree_facts_held(lex, publisher):
        if not _shards_in_run(context):
            for index in range(SHARDS):
                shard = derive_stage.run_shard(lex, publisher, index, progress=_progress(context),
                                               workers=derive_stage.partition_workers())
                if not shard.skipped:  # a shard that was current did not run: nothing to record
                    in_step.append(index)
                    works_derived += int(shard.metadata.get("works_derived", 0))
                    works_copied += int(shard.metadata.get("works_copied", 0))
                    context.log_event(_shard_materialization(publisher, index, shard))
        result = derive_stage.run(lex, publisher, progress=_progress(context))
    metadata = dict(result.metadata)
    if in_step:  # the shards this step derived (before the merge, which then found them current)
        metadata.update({"shards_derived_in_step": in_step, "works_derived_in_step": works_derived,
                         "works_copied_in_step": works_copied})
    return dg.MaterializeResult(
        metadata=_meta(metadata),
        data_version=dg.DataVersion(result.data_version),
        check_results=[dg.AssetCheckResult(check_name="deterministic_sample", passed=result.deterministic,
                                           metadata=_meta({"sampled": result.sampled}))],
    )


def _shards_in_run(context: AssetExecutionContext) -> bool:
    """Whether ``provision_shards`` is materialised by this run itself (then its own steps record it)."""
    return dg.AssetKey("provision_shards") in context.run.asset_selection if context.run.asset_selection else False


def _shard_materialization(publisher: Publisher, index: int, shard: Any) -> dg.AssetMaterialization:
    """A ``provision_shards`` materialisation for a shard run inside the ``provisions`` step, with the
    data and code versions its own step would have recorded."""
    key = dg.MultiPartitionKey({"publisher": publisher.value, "shard": str(index)})
    return dg.AssetMaterialization(
        asset_key="provision_shards", partition=key,
        metadata={**_meta(shard.metadata), "run_in_step": "provisions"},
        tags={DATA_VERSION_TAG: shard.data_version, CODE_VERSION_TAG: versions.derivation()},
    )


@dg.asset_check(asset=provisions, description="Empty provisions do not increase between runs (the ratchet).")
def empty_provisions_not_increasing(lex: LexSettings) -> dg.AssetCheckResult:
    from pipelines import derive_stage

    problems = derive_stage.ratchet_problems(lex)
    return dg.AssetCheckResult(passed=not problems, metadata=_meta({"problems": problems[:20]}))


@dg.asset(partitions_def=publisher_partitions, group_name="derived", kinds={"sqlite"},
          deps=[provisions], check_specs=[INDEX_VERIFIES], code_version=versions.search_index(),
          automation_condition=FOLLOW)
def search_index(context: AssetExecutionContext, lex: LexSettings) -> dg.MaterializeResult:  # type: ignore[type-arg]
    """The SQLite FTS5 index of one publisher, with its stamp (rebuilt only when its inputs —
    records, dataset files, build instant, builder and normalisation versions — changed; then
    incrementally from the previous index when it can be updated)."""
    from derive.index.build import build_from_paths
    from derive.index.verify import verify_index
    from pipelines.index_stage import index_state, texts_to_verify

    publisher = _publisher(context)
    tree = CorpusTree.open(lex.tree(publisher.value), evidence_dir=lex.evidence_dir or None)
    dataset_dir = lex.derived(publisher.value)
    out_dir = lex.indexes()
    built_at = lex.built_at_stamp()
    state, inputs, outputs = index_state(lex, publisher, tree)
    index_path, stamp_path = outputs["index"], outputs["stamp"]
    started = time.monotonic()
    skipped = state.unchanged(inputs, outputs)
    problems: list[str] = []
    metrics: dict[str, object] = {}
    texts_from_block = 0  # no check ran (skipped)
    if not skipped:
        # the previous index, when there is one of this format, is updated in place of a full
        # build: only the works whose inputs changed are rebuilt (same content digest)
        previous = index_path if index_path.is_file() else None
        previous_sha256 = state.sha256(previous) if previous is not None else None
        built = build_from_paths(publisher, tree, dataset_dir, out_dir, built_at=built_at, previous=previous,
                                 previous_sha256=previous_sha256, known_sha256=state.sha256)
        metrics = built.metrics
        # the content digest is computed once, by the build, over this file's content tables after
        # their last write; the check ties it to the file through the stamp file's SHA-256 and
        # re-checks everything else (counters, FTS rows) and the texts: those the build wrote when it
        # updated a previous file this stage verified, else all (docs/adr/0026); `lex index verify`
        # recomputes the digest and checks every text
        texts_from_block = texts_to_verify(state, previous_sha256, built.texts_from_block)
        problems = verify_index(index_path, sealed_digest=built.stamp["content_digest"],
                                texts_from_block=texts_from_block).problems
        if not problems:  # recorded only once verified: a skip means this exact file verified
            # the index's hash is the one the build took of the file and the verification
            # confirmed against the stamp file (which it read whole): not read a third time
            state.record(inputs, outputs, {"index": built.index_sha256, "stamp": state.sha256(stamp_path)})
    stamp = json.loads(stamp_path.read_bytes())
    index_sha256 = state.sha256(index_path)
    return dg.MaterializeResult(
        metadata=_meta({
            "skipped": "inputs unchanged" if skipped else "",
            "index_sha256": index_sha256,
            "index_bytes": index_path.stat().st_size,
            "stamp": stamp,
            "seconds": round(time.monotonic() - started, 3),
            "build_mode": str(metrics.get("mode", "")),
            "works_changed": int(str(metrics.get("works_changed", 0))),
            "works_unread": int(str(metrics.get("works_unread", 0))),
            # the first text block the check inflated and hashed (1: every text; docs/adr/0026)
            "texts_checked_from_block": texts_from_block,
            "index": dg.MetadataValue.path(str(index_path)),
        }),
        data_version=dg.DataVersion(index_sha256),
        check_results=[dg.AssetCheckResult(check_name="stamp_digest_recomputes", passed=not problems,
                                           metadata=_meta({"problems": problems[:20],
                                                           "verified": "when built (file unchanged since)"
                                                           if skipped else "now (content digest: the build's)"}))],
    )


ARTIFACT_SET_VERIFIES = dg.AssetCheckSpec(
    "verifies_against_trust_root", asset="artifact_set", blocking=True,
    description="The promoted set's signature and every file's size and hash verify.")


@dg.asset(group_name="release", kinds={"python"}, deps=[search_index, provisions, corpus_tree],
          check_specs=[ARTIFACT_SET_VERIFIES], code_version=versions.artifact_set(),
          automation_condition=NIGHTLY_RELEASE)
def artifact_set(context: AssetExecutionContext, lex: LexSettings) -> dg.MaterializeResult:  # type: ignore[type-arg]
    """The signed artifact set (indexes, dataset, manifests, scope, benchmark report), promoted
    to ``current`` when its signed benchmark report passes the gates."""
    from pipelines import release_stage

    started = time.monotonic()
    result = release_stage.run(lex)
    context.log.info(f"artifact set {result.set_id} ({'promoted' if result.promoted else 'not promoted'})")
    return dg.MaterializeResult(
        metadata=_meta({
            "set_id": result.set_id,
            "skipped": "inputs unchanged" if result.skipped else "",
            "promoted": result.promoted,
            "report_passed": result.report_passed,
            "metrics": result.metrics,
            "failed_gates": [g["name"] for g in result.gates if not g.get("passed")],
            "development_key": result.development_key,
            "seconds": round(time.monotonic() - started, 3),
            "set_dir": dg.MetadataValue.path(str(result.set_dir)),
        }),
        data_version=dg.DataVersion(result.set_id),
        check_results=[dg.AssetCheckResult(check_name="verifies_against_trust_root", passed=result.verified)],
    )
