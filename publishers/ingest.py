"""Ingest: enumerate → plan → fetch only what the tree lacks, version by version, as the writer
applies the enumeration, all or nothing.

1. The adapter enumerates completely (an incomplete enumeration raises; nothing is read from
   or written to the tree before that). An adapter that lists its versions as it builds them
   (:class:`publishers.protocol.ListingAdapter`: EUR-Lex) has them spilled as they come, into the
   run's staging directory, entered first (ADR 0126): an enumeration error removes it with the
   spill, and the tree is left as it was.
2. For every expression, the manifestations to fetch are those the tree has no observation
   for: the primary body while the expression has no primary observation (once one exists
   it is never refetched); an alternative file (Legilux PDF) while no observation of it
   exists; EUR-Lex Formex only alongside a primary fetch. Bodies already in the evidence
   store are not passed again. The whole plan is made before any body request.
3. The enumeration goes to :func:`corpus_tree.writer.apply_enumeration` (one journaled
   transaction, which appends the events: first sighting, revisions, withdrawals,
   resightings) with an ``observe`` hook: when the writer reaches a version, that version's
   planned manifestations are fetched (and, with ``revalidate``, its held bodies asked again),
   its new bodies staged, and the version is handed back with its observations; the writer
   stages its record at once. So the run never holds the observations of the whole
   enumeration, only the plan and the staged bodies' sha256s (ADR 0037, 0057). Nor does it hold
   the listing: as soon as the adapter returns it, its versions (each with the manifestations listed
   for it) are spilled to an unnamed file in the run's staging directory
   (:class:`publishers.spill.SpilledListing`) and read back one at a time by the plan, the writer's
   validation and its apply; the run keeps an offset per version, the plan as indices among a
   version's manifestations, and of the lex ids only those of the tree's versions the listing names
   (what the withdrawal guard reads) (ADR 0083).
4. Every fetch must succeed. A permanent failure (``body_not_found``, ``body_gone``), an
   exhausted retry budget or bad bytes abort the run with an error naming the record, and
   the tree stays byte-identical (the records already staged are removed with the run's
   staging). ``publisher_metadata_only`` is coverage, not failure. With ``strict=False``
   failures are recorded as the expression's text reason instead.

Before any body request, the withdrawals the enumeration implies are checked against the
:class:`corpus_tree.writer.WithdrawalGuard` (an empty enumeration, or more withdrawals than
the tolerated share, fails closed with ``empty_enumeration`` / ``withdrawal_guard`` unless the
run allows them); the writer checks again under its lock.

With ``revalidate=True`` every held body the enumeration still lists (primary bodies and
Legilux PDFs; not the optional Formex members) is asked again with ``If-Modified-Since`` (the
time we retrieved it). ``304`` or the same bytes: unchanged. Other bytes: a new observation and
blob are appended (never overwritten) and the writer records a ``metadata_revised`` event
naming the file. A body that cannot be revalidated is reported (``notes``,
``revalidation_failures``), never silently skipped; with ``strict`` an exhausted retry budget
aborts the run.

Bodies are fetched while the writer holds the tree's write lock (a second writer waits for the
whole run, not only for its apply). Fetched bodies are staged in the evidence store's own staging area (a locked run directory,
:meth:`corpus_tree.evidence.EvidenceStore.staging_run`), never in ``$TMPDIR``: a killed ingest
leaves an orphan that ``verify`` reports and the next open removes. Running out of space is
the typed ``disk_full``; the tree stays byte-identical.

Planning reads the publisher's version records as :class:`corpus_tree.VersionSummary` objects (what
the plan, the revalidation plan and the withdrawal guard read; not ``raw``, ``publisher_metadata``
or ``relations``; expressions packed), and the other publishers' records only as the manifest's rows
(:meth:`corpus_tree.CorpusTree.publisher_summaries`, ADR 0048); inside the tree's caching block the
summaries themselves are rows of a private temporary database, by path and by lex id, made again when
read (ADR 0083, 0133), and the lex ids the listing names among them (the withdrawals') a byte per
version, so a run holds nothing per record of its publisher and a row on disk per other record.

A body is held once while it is fetched and checked (no chunk list and join, no stripped or
sliced copy; a Formex member decompressed in chunks) and the fetch's result is dropped once its
bodies are staged, before the next manifestation is fetched (ADR 0063).

Truncated bodies never reach step 4: the HTTP policy refuses a body shorter than its
``Content-Length`` or not matching its ``Repr-Digest``; the writer re-hashes every new body
while staging it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import email.utils
import os
import re
import tempfile
import time
import uuid
from collections.abc import Callable, Container, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpus_tree import CorpusTree, Expression, VersionSummary, listed_lex_ids
from corpus_tree.evidence import enospc_as_disk_full
from corpus_tree.model import Enumeration, ObservationInput, VersionInput
from corpus_tree.writer import ApplyReport, WithdrawalGuard, apply_enumeration, planned_withdrawals
from legal.errors import PublisherError
from legal.ids import Publisher, VersionKey, WorkSlug
from legal.outcomes import FetchOutcome
from publishers.protocol import (
    PUBLISHER_METADATA_ONLY,
    FetchResult,
    ListingAdapter,
    Manifestation,
    PublisherAdapter,
    PublisherEnumeration,
)
from publishers.spill import SpilledListing

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
    withdrawals: int = 0
    bodies_revalidated: int = 0
    bodies_unchanged: int = 0
    bodies_changed: int = 0
    revalidation_failures: int = 0
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
    bodies: _StagedBodies
    observations: dict[tuple[str, str], list[ObservationInput]] = field(default_factory=dict)
    reasons: dict[tuple[str, str], str] = field(default_factory=dict)


class _StagedBodies(Mapping[str, str]):
    """The bodies a run has staged: sha256 → the staged file's path (what the writer reads).

    A staged body's path is the staging directory joined with its sha256, and the staging directory
    (the run's own) is the set of the staged sha256s: a sha256 is staged if its file is there. So
    nothing is held per body for the run — neither a path string (≈ 0.2 KB each) nor, since ADR 0112,
    its sha256 (≈ 0.15 KB each with its entry, issue #13); and no :class:`pathlib.Path` is made of it
    (pathlib interns each part: the interpreter's table of interned strings would grow by a sha256 per
    body). Only the count is kept. Iterated in sha256 order."""

    __slots__ = ("_count", "_dir")

    def __init__(self, staging: Path) -> None:
        self._dir = str(staging)
        self._count = 0

    def put(self, sha256: str, body: bytes) -> None:
        """Stage ``body`` under its ``sha256`` (an OS error, e.g. a full disk, propagates, and a file
        it left half written is removed: it is not listed)."""
        if not _is_sha256(sha256):
            raise ValueError(f"not a sha256: {sha256!r}")
        path = os.path.join(self._dir, sha256)
        known = os.path.exists(path)
        try:
            with open(path, "wb") as f:
                f.write(body)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(path)
            if known:
                self._count -= 1
            raise
        self._count += 0 if known else 1

    def _path(self, sha256: object) -> str | None:
        if not isinstance(sha256, str) or not _is_sha256(sha256):
            return None
        path = os.path.join(self._dir, sha256)
        return path if os.path.isfile(path) else None

    def __getitem__(self, sha256: str) -> str:
        path = self._path(sha256)
        if path is None:
            raise KeyError(sha256)
        return path

    def __contains__(self, sha256: object) -> bool:
        return self._path(sha256) is not None

    def __iter__(self) -> Iterator[str]:
        try:
            names = [e.name for e in os.scandir(self._dir) if _is_sha256(e.name) and e.is_file()]
        except FileNotFoundError:
            names = []
        return iter(sorted(names))

    def __len__(self) -> int:
        return self._count


_SHA256 = re.compile("[0-9a-f]{64}")


def _is_sha256(name: str) -> bool:
    """Whether ``name`` is 64 lower-case hex digits (a staged body's name)."""
    return _SHA256.fullmatch(name) is not None


@dataclass(frozen=True)
class _Recheck:
    """A held body to revalidate: the conditional request and the sha256s held per file."""

    manifestation: Manifestation
    held: Mapping[str, frozenset[str]]


def ingest(adapter: PublisherAdapter, tree: CorpusTree, *, scope: object | None = None,
           now: _dt.datetime | None = None, strict: bool = True, staging_dir: str | Path | None = None,
           progress: Progress | None = None, durable: bool = True, revalidate: bool = False,
           guard: WithdrawalGuard | None = None) -> IngestReport:
    """Run one ingest of ``adapter`` into ``tree``; see the module docstring.

    ``guard`` defaults to :class:`WithdrawalGuard` ``()`` (5 %, nothing explicitly allowed);
    ``staging_dir`` (tests) stages fetched bodies there instead of the evidence staging area."""
    stamp = now or _dt.datetime.now(_dt.UTC)
    guard = guard or WithdrawalGuard()
    report = IngestReport(adapter.publisher.value)
    counters = _http_counters(adapter)
    clock = _Phases(report)
    # The listing is spilled to the run's staging directory as soon as it is enumerated (ADR 0083): the
    # run holds an offset per version, and the plan and the writer read the versions back one at a time.
    # An adapter that lists its versions as it builds them has them spilled as they come (ADR 0126): the
    # staging area is entered first, and an enumeration error leaves it, removed with the spill.
    lister = adapter if isinstance(adapter, ListingAdapter) else None
    listing: PublisherEnumeration | None = None
    if lister is None:
        listing = adapter.enumerate(scope)
        clock.done("enumerate_s")
        _count_listing(listing, report)
    with enospc_as_disk_full(str(tree.root)), _staging_area(tree, staging_dir) as staging:
        if lister is not None:
            enumeration, spilled = _enumerated_into_spill(lister, scope, staging, report)
            clock.done("enumerate_s")
        else:
            assert listing is not None
            enumeration = dataclasses.replace(listing.enumeration, versions=())
            versions, manifestations = list(listing.enumeration.versions), listing.manifestations
            del listing
            spilled = SpilledListing(versions, manifestations, staging)  # empties ``versions``
            del versions, manifestations
        try:
            # Records are parsed once for the run to plan here, and only their summaries are kept
            # (corpus_tree.records.VersionSummary); the writer (under its lock) reuses them unless a file
            # changed meanwhile, and reads again only the records of the versions this run enumerates
            # or withdraws, one at a time; it checks the hash of every record it revises.
            with tree.caching():
                existing = _existing(tree, adapter.publisher)
                plan = _plan(adapter.publisher.value, spilled, existing, revalidate)
                withdrawing, current = planned_withdrawals(enumeration, existing.values(), plan.enumerated)
                guard.check(adapter.publisher.value, withdrawing, current, len(spilled))  # before any body request
                report.withdrawals = len(withdrawing)
                del withdrawing
                plan.enumerated = set()  # the writer collects its own
                clock.done("plan_s")
                report.apply = _fetch_and_apply(adapter, tree, enumeration, spilled, plan, stamp, staging, strict, report, progress, durable, guard)
                clock.last = time.monotonic()
        finally:
            spilled.close()
    _record_http(adapter, counters, report)
    report.timings["total_s"] = time.monotonic() - clock.started
    return report


def _enumerated_into_spill(adapter: ListingAdapter, scope: object | None, staging: Path,
                           report: IngestReport) -> tuple[Enumeration, SpilledListing]:
    """``adapter``'s enumeration of ``scope`` with its versions spilled into ``staging`` as the adapter
    lists them (:meth:`ListingAdapter.enumerate_into`): the enumeration (its works; no version) and the
    sealed spill, the report's counts taken from the spill. The spill is closed if the enumeration fails."""
    spilled = SpilledListing.streamed(staging)
    try:
        listing = adapter.enumerate_into(scope, spilled.append)
        spilled.seal()
    except BaseException:
        spilled.close()
        raise
    _count_listing(listing, report, spilled)
    return listing.enumeration, spilled


@contextlib.contextmanager
def _staging_area(tree: CorpusTree, staging_dir: str | Path | None) -> Iterator[Path]:
    if staging_dir is not None:
        with tempfile.TemporaryDirectory(prefix="lex-ingest-", dir=staging_dir) as staging:
            yield Path(staging)
        return
    with tree.evidence.staging_run(f"ingest-{uuid.uuid4().hex}") as staging:
        yield staging


def _existing(tree: CorpusTree, publisher: Publisher) -> Mapping[str, VersionSummary]:
    """The summaries of the publisher's version records in the tree (for planning only), by lex id
    (the other publishers' records are folded for the writer's manifest, not kept: ADR 0048)."""
    return tree.publisher_summaries(publisher)[0]


def _fetch_and_apply(adapter: PublisherAdapter, tree: CorpusTree, enumeration: Enumeration, listing: SpilledListing,
                     plan: _Plan, stamp: _dt.datetime, staging: Path, strict: bool, report: IngestReport,
                     progress: Progress | None, durable: bool, guard: WithdrawalGuard | None = None) -> ApplyReport:
    """Let the writer apply ``enumeration`` with ``listing`` (:class:`SpilledListing`) as its versions,
    fetching each version's planned manifestations when the writer reaches it (:class:`_Observer`)."""
    observer = _Observer(adapter, tree, listing, plan, stamp, staging, strict, report, progress)
    del plan
    started = time.monotonic()
    applied = apply_enumeration(tree, dataclasses.replace(enumeration, versions=listing), observer.bodies, stamp, durable=durable,
                                progress=progress, guard=guard, observe=observer, consume=True)
    report.timings["fetch_s"] = observer.fetch_s
    report.timings["apply_s"] = time.monotonic() - started - observer.fetch_s
    return applied


class _Observer:
    """The writer's ``observe``: fetches one version's planned manifestations (and revalidations)
    when the writer reaches it, stages the new bodies, and returns the version with its
    observations. Only the staged bodies' sha256s (``bodies``) are kept from one version to the next;
    the observations go into the record the writer stages, and are not held for the run. The planned
    manifestations are taken from the version the writer read back from the spill (by their index
    among the version's manifestations, :class:`_Plan`)."""

    def __init__(self, adapter: PublisherAdapter, tree: CorpusTree, listing: SpilledListing, plan: _Plan,
                 now: _dt.datetime, staging: Path, strict: bool, report: IngestReport,
                 progress: Progress | None) -> None:
        self.adapter, self.tree = adapter, tree
        self.listing: SpilledListing | None = listing
        self.count = len(listing)
        self.observed, self.plan, self.rechecks = plan.observed, plan.fetch, plan.rechecks
        self.now, self.strict = now, strict
        self.report, self.progress = report, progress
        self.bodies = _StagedBodies(staging)
        self.next = 0
        self.done = 0
        self.total = plan.total
        self.fetch_s = 0.0

    def __call__(self, v: VersionInput) -> VersionInput:
        i = self.next
        manifestations = None if self.listing is None else self.listing.manifestations_of(i, v)
        if manifestations is None:
            raise PublisherError("the writer asked for versions out of the enumeration's order",
                                 code="incomplete_enumeration", subject=v.publisher_version_identifier)
        self.next = i + 1
        started = time.monotonic()
        out = _Fetched(bodies=self.bodies)
        wanted, self.plan[i] = self.plan[i], ()
        planned = tuple(manifestations[j] for j in wanted)
        del manifestations
        self.done = _fetch_all(self.adapter, planned, self.tree, self.now, self.strict,
                               self.report, self.progress, out, self.done, self.total)
        if self.rechecks is not None:
            _revalidate(self.adapter, self.rechecks[i], self.tree, self.now, self.strict, self.report,
                        out)
            self.rechecks[i] = ()
        final = _with_observations(v, out)
        _count_reasons(final, self.observed[i], self.report)
        self.fetch_s += time.monotonic() - started
        if self.next == self.count:
            self._release()
        return final

    def _release(self) -> None:
        """Drop the plan once the last version is observed (the writer stages it next and then
        commits: nothing of the listing is needed for that). The listing is closed: its file, and the values
        its versions shared (a work's ``publisher_metadata``, ADR 0121), are not held through the commit."""
        if self.listing is not None:
            self.listing.close()
        self.observed, self.plan, self.rechecks, self.listing = [], [], None, None


class _Phases:
    """Wall time of each phase, into ``report.timings``."""

    def __init__(self, report: IngestReport) -> None:
        self.report = report
        self.started = self.last = time.monotonic()

    def done(self, name: str) -> None:
        now = time.monotonic()
        self.report.timings[name] = now - self.last
        self.last = now


def _count_listing(listing: PublisherEnumeration, report: IngestReport, spilled: SpilledListing | None = None) -> None:
    """The report's counts of the listing: its works and notes, and its versions, expressions and
    manifestations — those of ``spilled`` when the versions were spilled as they were listed."""
    enumeration = listing.enumeration
    report.works = len(enumeration.works)
    if spilled is None:
        report.versions = len(enumeration.versions)
        report.expressions = sum(len(v.expressions) for v in enumeration.versions)
        report.manifestations_listed = len(listing.manifestations)
    else:
        report.versions, report.expressions = len(spilled), spilled.expressions
        report.manifestations_listed = spilled.manifestations_listed
    report.notes.extend(listing.notes)


# -- planning ----------------------------------------------------------------------------------


def lex_id_of(adapter_publisher: str, v: VersionInput) -> str:
    key = VersionKey.create(v.valid_from, v.publisher_version_identifier)
    return f"{adapter_publisher}:{WorkSlug(v.slug).value}:{key}"


@dataclass
class _Plan:
    """What a run plans before any body request, per enumerated version (in order): ``fetch``, the
    indices of the manifestations to fetch among the version's (:meth:`SpilledListing.read`; equal
    tuples shared: a re-run's versions hold the one empty tuple); ``observed``, the languages of its
    expressions the tree holds an observation of (equal tuples shared, so that the summaries are not
    read again: :func:`_count_reasons`); ``rechecks`` (``revalidate`` only), its held bodies to ask
    again. ``enumerated``: the lex ids the listing names among the tree's (the withdrawal guard's set:
    the summaries' own strings, not one made per version); ``total``: the manifestations to fetch."""

    fetch: list[tuple[int, ...]] = field(default_factory=list)
    observed: list[tuple[str, ...]] = field(default_factory=list)
    rechecks: list[Sequence[_Recheck]] | None = None
    enumerated: Container[str] = field(default_factory=set)
    total: int = 0


def _plan(publisher: str, listing: SpilledListing, existing: Mapping[str, VersionSummary],
          revalidate: bool = False) -> _Plan:
    """The run's :class:`_Plan`, reading the spilled versions back one at a time: the manifestations to
    fetch are those the tree has no observation for."""
    shared: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    enumerated = listed_lex_ids(existing)  # a byte per tree version, not its lex id (ADR 0133)
    out = _Plan(rechecks=[] if revalidate else None, enumerated=enumerated)
    for v, manifestations in listing.spilled():
        old = existing.get(lex_id_of(publisher, v))
        if old is not None:
            enumerated.add(old.lex_id)
        old_expressions = _by_language(old)
        held_languages = tuple(lang for lang, x in old_expressions.items() if x.observations)
        out.observed.append(shared.setdefault(held_languages, held_languages))
        by_expression: dict[tuple[str, str], list[int]] = {}
        for j, m in enumerate(manifestations):
            by_expression.setdefault((m.publisher_version_identifier, m.language), []).append(j)
        wanted: list[int] = []
        for e in v.expressions:
            held = old_expressions.get(e.language)
            observed = [] if held is None else list(held.observations)
            has_primary = any(o.format is None for o in observed)
            formats = {(o.format, o.source_uri) for o in observed}
            alt_formats = {o.format for o in observed if o.format}
            for j in by_expression.get((v.publisher_version_identifier, e.language), []):
                m = manifestations[j]
                if m.is_primary:
                    want = not has_primary
                elif m.optional:
                    want = not has_primary and m.format not in alt_formats
                else:
                    want = (m.format, m.source_uri) not in formats
                if want:
                    wanted.append(j)
        fetch = tuple(wanted)
        out.fetch.append(shared.setdefault(fetch, fetch))
        out.total += len(fetch)
        if out.rechecks is not None:
            planned = {manifestations[j] for j in fetch}
            rechecks = _rechecks(v, manifestations, old_expressions, planned)
            out.rechecks.append(rechecks if rechecks else ())
    return out


def _rechecks(v: VersionInput, manifestations: Sequence[Manifestation], old_expressions: Mapping[str, Expression],
              planned: set[Manifestation]) -> list[_Recheck]:
    """Held bodies of ``v`` the enumeration still lists, each with a conditional request."""
    out: list[_Recheck] = []
    if not old_expressions:
        return out
    by_expression: dict[tuple[str, str], list[Manifestation]] = {}
    for m in manifestations:
        by_expression.setdefault((m.publisher_version_identifier, m.language), []).append(m)
    for e in v.expressions:
        held = old_expressions.get(e.language)
        if held is None:
            continue
        for m in by_expression.get((v.publisher_version_identifier, e.language), []):
            if m in planned or m.optional:
                continue
            matched = [o for o in held.observations if not o.held_elsewhere and o.format == m.format
                       and (m.is_primary or o.source_uri == m.source_uri)]
            if not matched:
                continue
            since = max(_instant(o.retrieved_at) for o in matched)
            files: dict[str, set[str]] = {}
            for o in matched:
                files.setdefault(o.file, set()).add(o.sha256)
            conditional = dataclasses.replace(m, if_modified_since=email.utils.format_datetime(
                since.astimezone(_dt.UTC), usegmt=True))
            out.append(_Recheck(conditional, {f: frozenset(s) for f, s in files.items()}))
    return out


def _by_language(old: VersionSummary | None) -> dict[str, Expression]:
    """The expressions of ``old`` by language (unpacked once: :attr:`VersionSummary.expressions`)."""
    return {} if old is None else {e.language: e for e in old.expressions}


def _instant(value: object) -> _dt.datetime:
    """An observation's ``retrieved_at`` (stored as ``YYYY-MM-DDTHH:MM:SSZ``) as an aware datetime."""
    if isinstance(value, _dt.datetime):
        return value if value.tzinfo else value.replace(tzinfo=_dt.UTC)
    parsed = _dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=_dt.UTC)


def _revalidate(adapter: PublisherAdapter, rechecks: Sequence[_Recheck], tree: CorpusTree, now: _dt.datetime,
                strict: bool, report: IngestReport, out: _Fetched) -> None:
    for r in rechecks:
        m = r.manifestation
        report.bodies_revalidated += 1
        try:
            result = adapter.fetch(m)
        except PublisherError as exc:
            if strict and exc.retryable:
                raise _named(exc, m) from exc
            report.revalidation_failures += 1
            report.notes.append(f"{m.subject}: not revalidated ({exc.code}: {exc.message})")
            continue
        if result.outcome is not FetchOutcome.OK:
            if strict and result.outcome is FetchOutcome.RETRY_EXHAUSTED:
                _failed(result, m, strict, out)
            report.revalidation_failures += 1
            report.notes.append(f"{m.subject}: not revalidated ({result.outcome.value}, HTTP {result.status})")
            continue
        if result.status == 304:
            report.bodies_unchanged += 1
            continue
        changed = [x for x in result.members if x.body is not None and x.sha256 not in r.held.get(x.file, ())]
        if not changed:
            report.bodies_unchanged += 1
            continue
        report.bodies_changed += 1
        report.notes.append(f"{m.subject}: the publisher serves changed bytes "
                            f"({', '.join(f'{x.file} sha256 {x.sha256}' for x in changed)}); new observation appended")
        _record(dataclasses.replace(result, members=tuple(changed)),
                (m.publisher_version_identifier, m.language), tree, now, out, report)


# -- fetching ----------------------------------------------------------------------------------


def _fetch_all(adapter: PublisherAdapter, plan: Sequence[Manifestation], tree: CorpusTree, now: _dt.datetime,
               strict: bool, report: IngestReport, progress: Progress | None, out: _Fetched,
               done: int, total: int) -> int:
    """Fetch ``plan`` (one version's manifestations) into ``out``; returns ``done`` plus those fetched
    (``(done, total)`` is the run's ``fetch`` progress)."""
    for i, m in enumerate(plan, start=done + 1):
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
            _record(result, key, tree, now, out, report)
        del result  # its bodies are staged: not held while the next one is fetched (issue #13)
        if progress is not None:
            progress("fetch", i, total)
    return done + len(plan)


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


def _record(result: FetchResult, key: tuple[str, str], tree: CorpusTree, now: _dt.datetime,
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
        out.bodies.put(member.sha256, member.body)
        report.bodies_new += 1


def _with_observations(v: VersionInput, fetched: _Fetched) -> VersionInput:
    """``v`` with the observations and text reasons fetched for it (``v`` itself if none)."""
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
        return v  # nothing fetched for it: the same value
    return dataclasses.replace(v, expressions=tuple(expressions))


def _count_reasons(v: VersionInput, observed: tuple[str, ...], report: IngestReport) -> None:
    """Expressions of ``v`` left without any observation (``observed``: the languages the tree holds
    an observation of, :func:`_plan`), by text reason (coverage, not failure)."""
    for e in v.expressions:
        if e.observations or e.language in observed:
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
