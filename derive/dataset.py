"""Build the per-article dataset from a corpus tree (docs/contracts.md §2).

Output directory (every file deterministic: same tree + same code → same bytes)::

    provisions.jsonl        one canonical JSON line per provision state, sorted
    provisions.parquet      the same rows and columns (no timestamps in metadata)
    gaps.jsonl              one line per version/language without text (typed TextGap)
    errors.jsonl            one line per version that could not be derived (typed, with the hash)
    history/<publisher>/<slug>.json   distinct text states per anchor, derived intervals
    summary.json            counts (profiles, provisions, empty provisions, gaps, errors)

A version is atomic: if any of its bodies raises a :class:`legal.errors.DerivationError`
(malformed XML, unknown namespace, zip bomb, oversize body), nothing of that version is written
and the error is recorded; the run carries on with the next version.
"""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from corpus_tree import CorpusTree, VersionRecord
from derive import rows as R
from derive.citations import LU, AliasTable, alias_slug
from derive.dispatch import derive_body
from derive.history import VersionTexts, build_history
from derive.limits import DEFAULT_LIMITS, Limits
from derive.model import ExtractionResult, Gap
from derive.units import Evidence, Unit, fmx4_languages, held, units_for
from legal.canonical import canonical_bytes, pretty_bytes
from legal.errors import LexError
from legal.outcomes import TextGap

Progress = Callable[[str], None]
WITHHELD_REASONS = frozenset({"pending-gate"})


@dataclass
class BuildReport:
    """What a run did; ``errors`` lists every refused version (empty on a clean run)."""

    works: int = 0
    versions: int = 0
    units: int = 0
    provisions: int = 0
    empty_provisions: int = 0
    profiles: Counter[str] = field(default_factory=Counter)
    gaps: Counter[str] = field(default_factory=Counter)
    errors: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "works": self.works, "versions": self.versions, "units": self.units,
            "provisions": self.provisions, "empty_provisions": self.empty_provisions,
            "profiles": dict(sorted(self.profiles.items())), "gaps": dict(sorted(self.gaps.items())),
            "errors": len(self.errors),
        }


@dataclass
class VersionOutcome:
    rows: list[dict[str, Any]] = field(default_factory=list)
    gaps: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    texts: VersionTexts | None = None
    results: list[ExtractionResult] = field(default_factory=list)


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


def derive_version(version: VersionRecord, evidence: Evidence, fmx4_langs: frozenset[str], aliases: AliasTable,
                   limits: Limits = DEFAULT_LIMITS) -> VersionOutcome:
    """Rows, gaps and history texts of one version — or only errors, if any body was refused."""
    outcome = VersionOutcome()
    texts = VersionTexts(version.lex_id, str(version.version_key), version.valid_from)
    units = units_for(version, evidence, fmx4_langs)
    for unit in units:
        try:
            result = derive_body(evidence.read(unit.observation.sha256), language=unit.language,
                                 fmt=unit.kind, limits=limits)
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
        return VersionOutcome(errors=outcome.errors)
    outcome.gaps.extend(_expression_gaps(version, evidence, units))
    outcome.texts = texts
    return outcome


def _collect(outcome: VersionOutcome, texts: VersionTexts, version: VersionRecord, unit: Unit,
             result: ExtractionResult, aliases: AliasTable) -> None:
    if not result.provisions:
        gap = result.gap or Gap(TextGap.UNSUPPORTED_MANIFESTATION,
                                "; ".join(result.notes) or "profile found no provision in this body")
        outcome.gaps.append(R.gap_row(version, unit.language, gap, result.evidence_sha256))
        return
    texts.profiles.add(result.profile)
    lang_texts = texts.texts.setdefault(unit.language, {})
    for p in result.provisions:
        outcome.rows.append(R.provision_row(p, version, unit.observation, aliases))
        if p.is_empty:
            texts.empty[unit.language] += 1
        else:
            lang_texts[p.anchor] = (p.text_sha256, p.article_valid_from)


# -- the tree --------------------------------------------------------------------------------------


def alias_table(tree: CorpusTree) -> AliasTable:
    """``legilux_same_as`` aliases of every held work, plus the set of held work ids."""
    pairs: list[tuple[str, str]] = []
    held_ids: set[str] = set()
    for work in tree.works():
        held_ids.add(work.lex_work_id)
        if work.publisher.value != LU:
            continue
        for version in tree.versions(work.slug, verify=False):
            for meta in version.publisher_metadata:
                if meta.get("kind") == "legilux_same_as":
                    slug = alias_slug(str(meta.get("identifier", "")))
                    if slug:
                        pairs.append((slug, work.lex_work_id))
    return AliasTable.build(sorted(set(pairs)), held_ids)


def count_versions(tree: CorpusTree) -> int:
    return sum(len(tree.version_keys(slug)) for slug in tree.slugs())


def _works(tree: CorpusTree) -> list[tuple[str, str]]:
    return sorted((w.publisher.value, w.slug) for w in tree.works())


@dataclass
class _Writers:
    out: Path
    jsonl: Any = None
    gaps: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    parquet: pq.ParquetWriter | None = None

    def open(self) -> None:
        self.jsonl = (self.out / "provisions.jsonl").open("wb")
        self.parquet = pq.ParquetWriter(self.out / "provisions.parquet", R.SCHEMA, compression="zstd",
                                        use_dictionary=True, write_statistics=True)

    def rows(self, rows: list[dict[str, Any]]) -> None:
        rows = sorted(rows, key=R.row_order)
        for row in rows:
            self.jsonl.write(canonical_bytes(row) + b"\n")
        if rows and self.parquet is not None:
            self.parquet.write_table(pa.Table.from_pylist(rows, schema=R.SCHEMA))

    def close(self) -> None:
        if self.jsonl is not None:
            self.jsonl.close()
        if self.parquet is not None:
            self.parquet.close()


def _write_lines(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("wb") as fh:
        for row in rows:
            fh.write(canonical_bytes(row) + b"\n")


def iter_work_outcomes(tree: CorpusTree, aliases: AliasTable, limits: Limits = DEFAULT_LIMITS,
                       progress: Progress | None = None) -> Iterator[tuple[str, list[VersionRecord], list[VersionOutcome], list[dict[str, Any]]]]:
    """Per work (sorted): its versions, their outcomes, and work-level errors."""
    for publisher, slug in _works(tree):
        work_id = f"{publisher}:{slug}"
        try:
            versions = sorted(tree.versions(slug), key=lambda v: (v.valid_from, str(v.version_key)))
        except LexError as exc:
            yield work_id, [], [], [{"lex_id": None, "work_id": work_id, "language": None, **exc.to_dict()}]
            continue
        langs = fmx4_languages(versions, tree.evidence)
        outcomes = []
        for version in versions:
            outcomes.append(derive_version(version, tree.evidence, langs, aliases, limits))
            if progress is not None:
                progress(version.lex_id)
        yield work_id, versions, outcomes, []


def build_dataset(tree: CorpusTree, out: str | Path, *, limits: Limits = DEFAULT_LIMITS,
                  progress: Progress | None = None) -> BuildReport:
    """Derive every version of ``tree`` into ``out`` (replaced). Returns the run report."""
    target = Path(out)
    if target.exists():
        shutil.rmtree(target)
    (target / "history").mkdir(parents=True)
    report = BuildReport()
    writers = _Writers(target)
    writers.open()
    try:
        for work_id, versions, outcomes, work_errors in iter_work_outcomes(tree, alias_table(tree), limits, progress):
            report.works += 1
            writers.errors.extend(work_errors)
            _work(report, writers, work_id, versions, outcomes)
    finally:
        writers.close()
    writers.gaps.sort(key=R.gap_order)
    writers.errors.sort(key=lambda e: (e["work_id"], e.get("lex_id") or "", e.get("language") or ""))
    _write_lines(target / "gaps.jsonl", writers.gaps)
    _write_lines(target / "errors.jsonl", writers.errors)
    report.errors = writers.errors
    (target / "summary.json").write_bytes(pretty_bytes(report.to_dict()))
    return report


def _work(report: BuildReport, writers: _Writers, work_id: str, versions: list[VersionRecord],
          outcomes: list[VersionOutcome]) -> None:
    texts: list[VersionTexts] = []
    rows: list[dict[str, Any]] = []
    for version, outcome in zip(versions, outcomes, strict=True):
        report.versions += 1
        writers.errors.extend(outcome.errors)
        writers.gaps.extend(outcome.gaps)
        report.gaps.update(g["gap"] for g in outcome.gaps)
        rows.extend(outcome.rows)
        report.units += len(outcome.results)
        for result in outcome.results:
            if result.provisions:
                report.profiles[result.profile] += 1
            report.provisions += len(result.provisions)
            report.empty_provisions += result.empty_provisions
        if outcome.texts is not None and not version.is_withdrawn:
            texts.append(outcome.texts)
        elif outcome.texts is None and not version.is_withdrawn:
            texts.append(VersionTexts(version.lex_id, str(version.version_key), version.valid_from))
    writers.rows(rows)
    if versions:
        publisher, slug = work_id.split(":", 1)
        path = writers.out / "history" / publisher / f"{slug}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pretty_bytes(build_history(work_id, texts)))
