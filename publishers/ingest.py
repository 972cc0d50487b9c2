"""Ingest: enumerate → fetch only what the tree lacks → apply, all or nothing.

1. The adapter enumerates completely (an incomplete enumeration raises; nothing is read from
   or written to the tree before that).
2. For every expression, the manifestations to fetch are those the tree has no observation
   for: the primary body while the expression has no primary observation (once one exists
   it is never refetched); an alternative file (Legilux PDF) while no observation of it
   exists; EUR-Lex Formex only alongside a primary fetch. Bodies already in the evidence
   store are not passed again.
3. Every fetch must succeed. A permanent failure (``body_not_found``, ``body_gone``), an
   exhausted retry budget or bad bytes abort the run with an error naming the record, and
   the tree stays byte-identical. ``publisher_metadata_only`` is coverage, not failure. With
   ``strict=False`` failures are recorded as the expression's text reason instead.
4. The enumeration, with the new observations, goes to
   :func:`corpus_tree.writer.apply_enumeration` (one journaled transaction), which appends
   the events (first sighting, revisions, withdrawals, resightings).

Truncated bodies never reach step 4: the HTTP policy refuses a body shorter than its
``Content-Length`` or not matching its ``Repr-Digest``; the writer re-hashes every new body
while staging it.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpus_tree import CorpusTree, VersionRecord
from corpus_tree.model import Enumeration, ObservationInput, VersionInput
from corpus_tree.writer import ApplyReport, apply_enumeration
from legal.errors import PublisherError
from legal.ids import Publisher, VersionKey, WorkSlug
from legal.outcomes import FetchOutcome
from publishers.protocol import (
    PUBLISHER_METADATA_ONLY,
    FetchResult,
    Manifestation,
    PublisherAdapter,
    PublisherEnumeration,
)

#: Progress callback ``(phase, done, total)``; phases ``fetch`` and the writer's phases.
Progress = Callable[[str, int, int], None]


@dataclass
class IngestReport:
    """What one ingest run did."""

    publisher: str
    works: int = 0
    versions: int = 0
    expressions: int = 0
    manifestations_listed: int = 0
    manifestations_fetched: int = 0
    bodies_fetched: int = 0
    bodies_new: int = 0
    bodies_held_elsewhere: int = 0
    body_bytes: int = 0
    requests: int = 0
    bytes_downloaded: int = 0
    retries: int = 0
    retry_waits: list[float] = field(default_factory=list)
    text_reasons: dict[str, int] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    apply: ApplyReport | None = None

    @property
    def events(self) -> dict[str, int]:
        return dict(self.apply.events) if self.apply else {}

    def to_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in dataclasses.asdict(self).items() if k != "apply"}
        out["apply"] = self.apply.to_dict() if self.apply else None
        return out


@dataclass
class _Fetched:
    observations: dict[tuple[str, str], list[ObservationInput]] = field(default_factory=dict)
    reasons: dict[tuple[str, str], str] = field(default_factory=dict)
    bodies: dict[str, str] = field(default_factory=dict)


def ingest(adapter: PublisherAdapter, tree: CorpusTree, *, scope: object | None = None,
           now: _dt.datetime | None = None, strict: bool = True, staging_dir: str | Path | None = None,
           progress: Progress | None = None, durable: bool = True) -> IngestReport:
    """Run one ingest of ``adapter`` into ``tree``; see the module docstring."""
    stamp = now or _dt.datetime.now(_dt.UTC)
    report = IngestReport(adapter.publisher.value)
    counters = _http_counters(adapter)
    clock = _Phases(report)
    listing = adapter.enumerate(scope)
    clock.done("enumerate_s")
    _count_listing(listing, report)
    lex_ids = [lex_id_of(adapter.publisher.value, v) for v in listing.enumeration.versions]  # in order
    # Records are parsed once for the run — to plan here — and again by the writer (under its
    # lock) only if a file changed meanwhile; the writer checks the hash of every record it
    # revises.
    with tree.caching():
        existing = _existing(tree, adapter.publisher)
        with tempfile.TemporaryDirectory(prefix="lex-ingest-", dir=staging_dir) as staging:
            report.apply, final = _fetch_and_apply(adapter, tree, listing, existing, lex_ids, stamp, Path(staging),
                                                   strict, report, progress, durable, clock)
    _count_reasons(final, existing, report, lex_ids)
    _record_http(adapter, counters, report)
    report.timings["total_s"] = time.monotonic() - clock.started
    return report


def _existing(tree: CorpusTree, publisher: Publisher) -> dict[str, VersionRecord]:
    """The publisher's version records in the tree (for planning only), by lex id."""
    return {v.lex_id: v for v in tree.iter_versions(verify=False) if v.publisher is publisher}


def _fetch_and_apply(adapter: PublisherAdapter, tree: CorpusTree, listing: PublisherEnumeration,
                     existing: Mapping[str, VersionRecord], lex_ids: Sequence[str], stamp: _dt.datetime,
                     staging: Path, strict: bool, report: IngestReport, progress: Progress | None, durable: bool,
                     clock: _Phases) -> tuple[ApplyReport, Enumeration]:
    plan = _plan(listing.enumeration, listing.manifestations, existing, lex_ids)
    fetched = _fetch_all(adapter, plan, tree, stamp, staging, strict, report, progress)
    clock.done("fetch_s")
    final = _with_observations(listing.enumeration, fetched)
    applied = apply_enumeration(tree, final, fetched.bodies, stamp, durable=durable, progress=progress)
    clock.done("apply_s")
    return applied, final


class _Phases:
    """Wall time of each phase, into ``report.timings``."""

    def __init__(self, report: IngestReport) -> None:
        self.report = report
        self.started = self.last = time.monotonic()

    def done(self, name: str) -> None:
        now = time.monotonic()
        self.report.timings[name] = now - self.last
        self.last = now


def _count_listing(listing: PublisherEnumeration, report: IngestReport) -> None:
    enumeration = listing.enumeration
    report.works, report.versions = len(enumeration.works), len(enumeration.versions)
    report.expressions = sum(len(v.expressions) for v in enumeration.versions)
    report.manifestations_listed = len(listing.manifestations)
    report.notes.extend(listing.notes)


# -- planning ----------------------------------------------------------------------------------


def lex_id_of(adapter_publisher: str, v: VersionInput) -> str:
    key = VersionKey.create(v.valid_from, v.publisher_version_identifier)
    return f"{adapter_publisher}:{WorkSlug(v.slug).value}:{key}"


def _plan(enumeration: Enumeration, manifestations: Sequence[Manifestation],
          existing: Mapping[str, VersionRecord], lex_ids: Sequence[str]) -> list[Manifestation]:
    """The manifestations to fetch: those the tree has no observation for."""
    by_expression: dict[tuple[str, str], list[Manifestation]] = {}
    for m in manifestations:
        by_expression.setdefault((m.publisher_version_identifier, m.language), []).append(m)
    plan: list[Manifestation] = []
    for v, lex_id in zip(enumeration.versions, lex_ids, strict=True):
        old = existing.get(lex_id)
        for e in v.expressions:
            held = old.expression(e.language) if old is not None else None
            observed = [] if held is None else list(held.observations)
            has_primary = any(o.format is None for o in observed)
            formats = {(o.format, o.source_uri) for o in observed}
            alt_formats = {o.format for o in observed if o.format}
            for m in by_expression.get((v.publisher_version_identifier, e.language), []):
                if m.is_primary:
                    wanted = not has_primary
                elif m.optional:
                    wanted = not has_primary and m.format not in alt_formats
                else:
                    wanted = (m.format, m.source_uri) not in formats
                if wanted:
                    plan.append(m)
    return plan


# -- fetching ----------------------------------------------------------------------------------


def _fetch_all(adapter: PublisherAdapter, plan: Sequence[Manifestation], tree: CorpusTree, now: _dt.datetime,
               staging: Path, strict: bool, report: IngestReport, progress: Progress | None) -> _Fetched:
    out = _Fetched()
    for i, m in enumerate(plan):
        key = (m.publisher_version_identifier, m.language)
        try:
            result = adapter.fetch(m)
        except PublisherError as exc:
            if m.optional and not exc.retryable:
                report.notes.append(f"{m.subject}: not kept ({exc.code}: {exc.message})")
                continue
            if strict:
                raise _named(exc, m) from exc
            out.reasons.setdefault(key, exc.code)
            continue
        report.manifestations_fetched += 1
        if result.outcome is not FetchOutcome.OK:
            _failed(result, m, strict, out)
        else:
            _record(result, key, tree, now, staging, out, report)
        if progress is not None:
            progress("fetch", i + 1, len(plan))
    return out


def _named(exc: PublisherError, m: Manifestation) -> PublisherError:
    return PublisherError(f"{exc.message}; nothing committed (work {m.slug})", code=exc.code, subject=m.subject,
                          retryable=exc.retryable)


def _failed(result: FetchResult, m: Manifestation, strict: bool, out: _Fetched) -> None:
    reason = result.reason or "body_not_found"
    if result.outcome is FetchOutcome.PUBLISHER_METADATA_ONLY:
        out.reasons.setdefault((m.publisher_version_identifier, m.language), PUBLISHER_METADATA_ONLY)
        return
    if m.optional and result.outcome is not FetchOutcome.RETRY_EXHAUSTED:
        return  # an optional manifestation that does not exist (a transient failure still fails the run)
    if strict:
        detail = f" ({result.detail})" if result.detail else ""
        raise PublisherError(
            f"fetch failed with {result.outcome.value} (HTTP {result.status}){detail}; nothing committed "
            f"(work {m.slug})", code=reason, subject=m.subject,
            retryable=result.outcome is FetchOutcome.RETRY_EXHAUSTED)
    out.reasons[(m.publisher_version_identifier, m.language)] = reason


def _record(result: FetchResult, key: tuple[str, str], tree: CorpusTree, now: _dt.datetime, staging: Path,
            out: _Fetched, report: IngestReport) -> None:
    for member in result.members:
        out.observations.setdefault(key, []).append(ObservationInput(
            file=member.file, sha256=member.sha256, source_uri=member.source_uri, retrieved_at=now,
            format=member.format, size=member.size or None, held_elsewhere=member.held_elsewhere))
        if member.body is None:
            report.bodies_held_elsewhere += 1
            continue
        report.bodies_fetched += 1
        report.body_bytes += len(member.body)
        if member.sha256 in out.bodies or tree.evidence.has(member.sha256):
            continue
        path = staging / member.sha256
        path.write_bytes(member.body)
        out.bodies[member.sha256] = str(path)
        report.bodies_new += 1


def _with_observations(enumeration: Enumeration, fetched: _Fetched) -> Enumeration:
    versions = []
    for v in enumeration.versions:
        expressions = []
        for e in v.expressions:
            key = (v.publisher_version_identifier, e.language)
            observations = tuple(fetched.observations.get(key, ()))
            reason = fetched.reasons.get(key, e.text_reason)
            if observations == e.observations and reason == e.text_reason:
                expressions.append(e)  # the same value: no copy (most expressions of a re-run)
            else:
                expressions.append(dataclasses.replace(e, observations=observations, text_reason=reason))
        if isinstance(v.expressions, tuple) and all(a is b for a, b in zip(expressions, v.expressions, strict=True)):
            versions.append(v)  # nothing fetched for it: the same value
        else:
            versions.append(dataclasses.replace(v, expressions=tuple(expressions)))
    if isinstance(enumeration.versions, tuple) and all(
            a is b for a, b in zip(versions, enumeration.versions, strict=True)):
        return enumeration
    return dataclasses.replace(enumeration, versions=tuple(versions))


def _count_reasons(enumeration: Enumeration, existing: Mapping[str, VersionRecord], report: IngestReport,
                   lex_ids: Sequence[str]) -> None:
    """Expressions left without any observation, by text reason (coverage, not failure)."""
    for v, lex_id in zip(enumeration.versions, lex_ids, strict=True):
        old = existing.get(lex_id)
        for e in v.expressions:
            held = old.expression(e.language) if old is not None else None
            if e.observations or (held is not None and held.observations):
                continue
            reason = e.text_reason or "not-fetched"
            report.text_reasons[reason] = report.text_reasons.get(reason, 0) + 1


def _http_counters(adapter: PublisherAdapter) -> tuple[int, int, int, int]:
    """(requests, bytes, retries, waits) of the adapter's HTTP client so far (zeros if none)."""
    stats = getattr(getattr(adapter, "http", None), "stats", None)
    if stats is None:
        return (0, 0, 0, 0)
    return (stats.requests, stats.bytes_downloaded, stats.retries, len(stats.retry_waits))


def _record_http(adapter: PublisherAdapter, before: tuple[int, int, int, int], report: IngestReport) -> None:
    """This run's share of the adapter's HTTP counters (an adapter may serve several runs)."""
    stats = getattr(getattr(adapter, "http", None), "stats", None)
    if stats is None:
        return
    report.requests = stats.requests - before[0]
    report.bytes_downloaded = stats.bytes_downloaded - before[1]
    report.retries = stats.retries - before[2]
    report.retry_waits = list(stats.retry_waits[before[3]:])


__all__ = ["IngestReport", "Progress", "ingest", "lex_id_of"]
