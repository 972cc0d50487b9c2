"""The derive stage of the pipeline: dataset build (incremental), determinism sample, ratchet.

Kept out of ``assets.py`` so the Dagster shell stays thin; everything here is plain functions
over the ``derive`` package.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpus_tree import CorpusTree
from legal.canonical import canonical_bytes, digest
from legal.ids import Publisher
from pipelines.settings import LexSettings
from pipelines.state import StageState, file_sha256

SAMPLE_SIZE = 3
OUTPUTS = ("provisions.jsonl", "provisions.parquet", "gaps.jsonl", "errors.jsonl", "summary.json")


@dataclass
class StageResult:
    metadata: dict[str, Any] = field(default_factory=dict)
    data_version: str = ""
    deterministic: bool = True
    sampled: list[str] = field(default_factory=list)


def _profile_fingerprint() -> str:
    """Identifies the derivation code's output contract (profile ids and limits)."""
    from derive.limits import DEFAULT_LIMITS
    from derive.profiles import registry

    return digest({"profiles": sorted(registry()), "limits": repr(DEFAULT_LIMITS)})


def run(lex: LexSettings, publisher: Publisher, progress: Callable[[str, int, int], None] | None = None) -> StageResult:
    from derive.dataset import build_dataset

    tree = CorpusTree.open(lex.tree(publisher.value), evidence_dir=lex.evidence_dir or None)
    out = lex.derived(publisher.value)
    state = StageState(lex.root, f"derive-{publisher.value}")
    inputs = {"records": tree.manifest().get("records_digest"), "code": _profile_fingerprint()}
    outputs = {name: out / name for name in OUTPUTS}
    started = time.monotonic()
    skipped = state.unchanged(inputs, outputs)
    summary: dict[str, Any]
    if skipped:
        summary = json.loads((out / "summary.json").read_bytes())
    else:
        _remember_empty_counts(lex, publisher, out)
        summary = build_dataset(tree, out).to_dict()
        state.record(inputs, outputs)
    sampled, same = determinism_sample(tree, out)
    rows_sha = file_sha256(out / "provisions.jsonl")
    return StageResult(
        metadata={"skipped": "inputs unchanged" if skipped else "", **summary,
                  "provisions_jsonl_sha256": rows_sha, "seconds": round(time.monotonic() - started, 3)},
        data_version=rows_sha, deterministic=same, sampled=sampled,
    )


def _sample_versions(tree: CorpusTree) -> list[Any]:
    versions = list(tree.iter_versions(verify=False))
    versions.sort(key=lambda v: hashlib.sha256(v.lex_id.encode()).hexdigest())
    return versions[:SAMPLE_SIZE]


def _rows_by_lex_id(path: Path, wanted: set[str]) -> dict[str, list[bytes]]:
    found: dict[str, list[bytes]] = {k: [] for k in wanted}
    with path.open("rb") as handle:
        for line in handle:
            row = json.loads(line)
            if row.get("lex_id") in wanted:
                found[row["lex_id"]].append(line.rstrip(b"\n"))
    return found


def determinism_sample(tree: CorpusTree, out: Path) -> tuple[list[str], bool]:
    """Re-derive a fixed sample of versions from evidence; their rows must equal the dataset's."""
    from derive.dataset import alias_table, derive_version
    from derive.units import fmx4_languages

    sample = _sample_versions(tree)
    stored = _rows_by_lex_id(out / "provisions.jsonl", {v.lex_id for v in sample})
    aliases = alias_table(tree)
    same = True
    for version in sample:
        siblings = tree.versions(version.work_id.slug.value, verify=False)
        outcome = derive_version(version, tree.evidence, fmx4_languages(siblings, tree.evidence), aliases)
        fresh = sorted(canonical_bytes(r) for r in outcome.rows)
        same = same and fresh == sorted(stored[version.lex_id])
    return [v.lex_id for v in sample], same


def _counts_path(lex: LexSettings, publisher: Publisher) -> Path:
    return lex.root / "state" / f"empty-provisions-{publisher.value}.json"


def empty_counts(dataset: Path) -> dict[str, int]:
    """Empty provisions per work in a dataset directory."""
    counts: dict[str, int] = {}
    path = dataset / "provisions.jsonl"
    if not path.is_file():
        return counts
    with path.open("rb") as handle:
        for line in handle:
            row = json.loads(line)
            if not str(row.get("text_md", "")).strip():
                counts[row["work_id"]] = counts.get(row["work_id"], 0) + 1
    return counts


def _remember_empty_counts(lex: LexSettings, publisher: Publisher, out: Path) -> None:
    if (out / "provisions.jsonl").is_file():
        path = _counts_path(lex, publisher)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(canonical_bytes(empty_counts(out)))


def ratchet_problems(lex: LexSettings) -> list[str]:
    """Works whose number of empty provisions grew since the previous accepted dataset."""
    problems: list[str] = []
    for publisher in Publisher:
        previous_path = _counts_path(lex, publisher)
        if not previous_path.is_file():
            continue
        previous = json.loads(previous_path.read_bytes())
        for work, count in sorted(empty_counts(lex.derived(publisher.value)).items()):
            if count > previous.get(work, 0):
                problems.append(f"{work}: empty provisions {previous.get(work, 0)} -> {count}")
    return problems
