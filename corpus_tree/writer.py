"""Apply one publisher's complete enumeration to a tree, as one all-or-nothing transaction.

:func:`apply_enumeration` computes each new or changed record and writes it to the
transaction's staging directory at once (:class:`corpus_tree.txn.Stage`), then commits records,
new evidence blobs and the manifest together through :mod:`corpus_tree.txn`. The
events it appends (transaction time ``now``), per version:

- new version → ``first_sighting``;
- last lifecycle event ``withdrawn_from_source`` and the version is enumerated again →
  ``resighted``;
- ``valid_to`` null → a date → ``interval_closed`` (``detail="valid_to=<d>"``; expression
  ends that were null are set too); any other change of ``valid_to`` → ``validity_revised``
  (``detail="valid_to: <old|null> -> <new|null>"``; every expression end overwritten);
- ``document_type``, ``in_force_status``, ``raw.<key>`` (old keys are never removed),
  ``publisher_metadata``, ``document_roles``, per-language ``title``, ``title_short``,
  ``source_uri`` and ``text.url`` → one ``metadata_revised`` with ``detail="fields=a,b"``;
- new language → expression appended + ``expression_added`` (``scope=<lang>``,
  ``detail="language=<lang>"``);
- new observation of an existing expression (e.g. a body fetched on a later night) →
  appended to that expression's ``observations`` (the observation is its own
  transaction-time entry; no event);
- a version of this publisher absent from the enumeration → ``withdrawn_from_source``
  (never deleted); a *scoped* enumeration (``Enumeration.scoped``) withdraws only versions
  of the works it lists, never those of works outside its scope;
- a changed body (a new observation of an expression whose stored observation has the same
  ``file`` but another sha256, found by revalidation) → the observation is appended (the
  old one and its blob stay) and one ``metadata_revised`` with
  ``detail="fields=expressions.<lang>.observations.<file>"`` (``scope=<lang>``).

Withdrawal guard (``guard``, :class:`WithdrawalGuard`, given by every ingest): an
enumeration with no version at all is ``empty_enumeration``, and one that would withdraw more
than ``share`` of the publisher's current versions in its scope is ``withdrawal_guard`` —
both fail closed (nothing written) unless the run allows that many withdrawals (``allow``,
``lex ingest run --allow-withdrawals N``).

Not revised (as in the reference writer): ``valid_from`` (part of the key: a re-dated state
is a new version and the old one is withdrawn), ``valid_time_source``,
``publication_date``, ``relations``, ``work_identifier``.

Refused, with nothing written: an incomplete enumeration; two versions of one work with one
publisher version identifier; an existing record whose identifier does not give its own key;
a body whose bytes do not hash to its sha256; an observation whose bytes are neither given
nor already stored (unless ``held_elsewhere``).

No-change fast path: an enumerated version whose record the merge would leave as it is (no
lifecycle event due, the same ``valid_to``, metadata and languages, no new observation —
:func:`is_unchanged`, the merge's own comparisons without copying anything) is left alone: it
is neither re-verified nor re-sealed nor rendered. A record is hash-checked before it is
revised or withdrawn (``verify`` checks them all). When no record changes, the manifest (a
function of the records) is not rebuilt either, so an apply never rewrites a manifest that
``verify`` would report as not matching untouched records. Bodies already in the evidence
store are not staged again (the store is content-addressed and ``verify`` re-hashes it); only
new ones are hashed, while being staged. Each record file is parsed once per run
(:meth:`CorpusTree.caching`); the full record of an enumerated or withdrawn version is parsed
once more, when it is compared.

Memory: planning reads only a slim summary of each version of the publisher
(:class:`corpus_tree.records.VersionSummary`: identity, lifecycle, and its expressions and
observations held packed; not ``raw``, ``publisher_metadata``, ``relations`` or events), which is
all the caching block keeps of the tree's scan (:meth:`CorpusTree.publisher_summaries`); the other
publishers' versions are folded into the manifest's rows as they are read
(:class:`corpus_tree.manifest.ManifestFold`) and not kept (ADR 0048). The full
record of an enumerated or withdrawn version is read again by its path, one at a time
(:meth:`CorpusTree.read_version`), compared (:func:`is_unchanged`) and dropped unless it is
revised; a written record is rendered and staged on disk as soon as it is made, and only its
manifest rows, the path of its staged file and the ``(sha256, language, file)`` of its held bodies
are kept — neither its parsed value, its summary nor its bytes. The tree's works are read once
and folded into the manifest's rows as they are read (a listed one compared as it is read, and only
the verdict kept until its turn, when it is rewritten if it differs: ADR 0137), not held as records
(ADR 0063). So what an apply holds is a packed summary per
version of its publisher (inside the tree's caching block, a row of its database: ADR 0083, 0133), a
manifest row per other version and per work, plus the enumeration it was given (an ingest's is
spilled too, its versions read back one at a time: :class:`publishers.spill.SpilledListing`, ADR
0083). The lex ids collected for the withdrawals are only those of the tree's versions, a byte per
version at its place among the summaries (:func:`corpus_tree.tree.listed_lex_ids`, ADR 0133). With ``observe`` (ingest), the enumeration is a listing without
observations and each version is completed (its bodies fetched) only when it is reached, so the
observations of one version at a time are held, not the run's (ADR 0037).
"""

from __future__ import annotations

import contextlib
import copy
import datetime as _dt
import hashlib
import json
import marshal
import os
import re
import sqlite3
import tempfile
from collections.abc import (
    Callable,
    Container,
    Iterable,
    Iterator,
    Mapping,
    MutableMapping,
    Sequence,
)
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpus_tree import txn
from corpus_tree.evidence import enospc_as_disk_full
from corpus_tree.import_spill import Spill, SpilledManifest, SpilledMap, spill_full
from corpus_tree.model import (
    DEFAULT_TEXT_REASON,
    Enumeration,
    ExpressionInput,
    ObservationInput,
    VersionInput,
    WorkInput,
)
from corpus_tree.records import (
    SCHEMA,
    VersionRecord,
    VersionSummary,
    WorkRecord,
    build_work_record,
    is_withdrawn,
    render,
    render_unchecked,
    seal,
)
from corpus_tree.tree import MANIFEST, CorpusTree, listed_lex_ids, version_relpath, work_relpath
from legal.canonical import canonical_text
from legal.errors import CorpusError, IdentityError, IntegrityError
from legal.ids import Publisher, VersionId, VersionKey, WorkId, WorkSlug
from legal.outcomes import RecordEvent
from legal.validity import convention_of, format_timestamp

#: Bytes of a body: in memory, or a path to a staged file.
Body = bytes | str | os.PathLike[str]

WITHDRAWN_DETAIL = "publisher record absent from the current enumeration"
RESIGHTED_DETAIL = "publisher record returned to the current enumeration"
_SHA256 = re.compile("[0-9a-f]{64}")


@dataclass
class ApplyReport:
    """What one application of an enumeration changed."""

    publisher: str
    works_enumerated: int = 0
    versions_enumerated: int = 0
    events: dict[str, int] = field(default_factory=dict)
    observations_added: int = 0
    records_written: int = 0
    works_written: int = 0
    bodies_added: int = 0
    bytes_hashed: int = 0
    bodies_changed: int = 0
    withdrawals_planned: int = 0
    manifest_changed: bool = False
    changed: list[str] = field(default_factory=list)

    def count(self, event: RecordEvent) -> None:
        self.events[event.value] = self.events.get(event.value, 0) + 1

    @property
    def wrote_anything(self) -> bool:
        return bool(self.records_written or self.works_written or self.bodies_added or self.manifest_changed)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items()}


# -- withdrawal guard ----------------------------------------------------------------------------


@dataclass(frozen=True)
class WithdrawalGuard:
    """How many withdrawals one run may make without being told (see the module docstring).

    ``allow``: withdrawals explicitly allowed for this run (``None``: none, and an empty
    enumeration is refused); ``share``: withdrawals up to this share of the current versions in
    scope pass without ``allow`` (rounded down, so a small tree allows none).
    """

    allow: int | None = None
    share: float = 0.05

    def check(self, publisher: str, withdrawing: list[str], current: int, enumerated: int) -> None:
        allowed = self.allow or 0
        if enumerated == 0 and (self.allow is None or len(withdrawing) > allowed):
            raise CorpusError(
                f"the enumeration lists no version at all; it would withdraw all {len(withdrawing)} current "
                f"version(s) — refused (allow them with --allow-withdrawals {len(withdrawing)})",
                code="empty_enumeration", subject=publisher)
        tolerated = int(self.share * current)
        if len(withdrawing) > max(allowed, tolerated):
            shown = ", ".join(withdrawing[:5]) + (" …" if len(withdrawing) > 5 else "")
            raise CorpusError(
                f"the enumeration would withdraw {len(withdrawing)} of {current} current version(s) "
                f"(more than {self.share:.0%}, tolerated {tolerated}, allowed {allowed}): {shown} — refused "
                f"(allow them with --allow-withdrawals {len(withdrawing)})",
                code="withdrawal_guard", subject=publisher)


def planned_withdrawals(enumeration: Enumeration, existing: Iterable[Any],
                        enumerated: Container[str]) -> tuple[list[str], int]:
    """``(lex ids the enumeration would withdraw, current versions in its scope)``.

    ``existing`` are version records (anything with ``lex_id``, ``publisher``, ``is_withdrawn``);
    ``enumerated`` the lex ids the enumeration lists (only those of ``existing`` are read: a caller
    may give just those). A scoped enumeration only covers the
    versions of its works."""
    works = {WorkSlug(w.slug).value for w in enumeration.works} if enumeration.scoped else None
    withdrawing: list[str] = []
    current = 0
    for old in existing:
        if old.publisher is not enumeration.publisher or old.is_withdrawn:
            continue
        if works is not None and old.lex_id.split(":")[1] not in works:
            continue
        current += 1
        if old.lex_id not in enumerated:
            withdrawing.append(old.lex_id)
    return sorted(withdrawing), current


# -- entry point ---------------------------------------------------------------------------------


#: Completes one enumerated version just before it is applied (see :func:`apply_enumeration`).
Observe = Callable[[VersionInput], VersionInput]


def apply_enumeration(
    tree: CorpusTree, enumeration: Enumeration, bodies: Mapping[str, Body], now: _dt.datetime, *,
    durable: bool = True, progress: txn.Progress | None = None, guard: WithdrawalGuard | None = None,
    observe: Observe | None = None, consume: bool = False,
) -> ApplyReport:
    """Apply ``enumeration`` to ``tree``; all or nothing. See the module docstring.

    ``guard`` (``None``: no guard) refuses empty enumerations and mass withdrawals.

    ``observe`` (ingest) is called with each enumerated version, in order and one at a time,
    just before it is applied, and returns it with its observations and text reasons (the bodies
    it fetched are in ``bodies`` by then); nothing else of the version may differ. The version it
    returns is dropped once its record is staged, so a run never holds the observations of the
    whole enumeration. Its observations are checked as the enumeration's are; an error it raises
    aborts the run with nothing written.

    The writer drops its own references to ``enumeration`` and ``observe`` once every version is
    staged, before it renders the manifest and commits: a caller that hands them over without
    keeping a reference (ingest) has its listing freed before the commit (ADR 0048 addendum).
    With ``consume`` the caller hands over the enumeration's ``versions`` too, as a list the writer
    empties as it applies them (each version freed once its record is staged, if nothing else holds
    it); a tuple is only read."""
    stamp = format_timestamp(now)
    _validate(enumeration)
    report = ApplyReport(enumeration.publisher.value, works_enumerated=len(enumeration.works),
                         versions_enumerated=len(enumeration.versions))
    with tree.lock(), tree.caching(), txn.staged(tree.root, tree.evidence) as stage, _spill() as spill:
        stage.files = SpilledMap(spill)  # each staged file's name, in path order, on disk (ADR 0100, 0112)
        # the manifest's rows of the works, of the records written, then of the others, on disk (ADR 0121)
        fold = SpilledManifest(spill, unique=False)
        # Hashes are checked only for the records this run revises (see is_unchanged); the
        # publisher's versions are held as summaries, a full record is read again only to compare or
        # revise it; the other publishers' versions only as their manifest fold (ADR 0048); the works
        # only as their manifest rows, once applied (ADR 0063).
        versions, others = tree.publisher_summaries(enumeration.publisher)
        _check_existing_identities(versions.values(), enumeration.publisher)
        works_written = _apply_works(enumeration, tree.works(), stage, report, fold)
        # lex id → (sha256, language, file) of its held bodies, on disk (ADR 0112): iterated in lex id order
        held: SpilledMap[tuple[tuple[str, str, str], ...]] = SpilledMap(spill)
        for lex_id, record in _apply_versions(tree, enumeration, versions, stamp, report, guard, observe, consume):
            # each record goes to staging as it is made: the run keeps its manifest rows, not its bytes
            fold.add_version(_stage_version(stage, lex_id, record))
            held[lex_id] = tuple(_held_observations(record))
        # The enumeration and ``observe`` are not needed past the last version: a caller that handed
        # them over (ingest keeps no reference) has its listing freed before the manifest and the commit.
        del enumeration, observe
        report.records_written = len(held)
        report.changed = list(held)  # in key order: sorted
        # the blobs to stage, on disk too (sha256 → its source), iterated by the commit in sha256 order
        stage.blobs = _needed_bodies(tree, ((lex_id, h) for lex_id, hs in held.items() for h in hs), bodies,
                                     _spilled_sources(spill))
        if works_written or held:  # else no record changes, so neither does their manifest
            for lex_id, summary in versions.items():
                if lex_id not in held:
                    fold.add_version(summary)
            fold.absorb(others)
            # rendered to an unnamed temporary file a work at a time (as the import's, ADR 0093): the
            # bytes of ``render(manifest_of(others, fold))``, never held whole
            with enospc_as_disk_full(str(tree.root)), tempfile.TemporaryFile() as manifest_file:
                fold.write(manifest_file)
                manifest_file.seek(0)
                report.manifest_changed = stage.put_file(MANIFEST, manifest_file)
        result = stage.commit(durable=durable, progress=progress)
        report.bodies_added = result.blobs_added
        report.bytes_hashed = result.bytes_hashed
    return report


# -- validation ----------------------------------------------------------------------------------


def _validate(enumeration: Enumeration) -> None:
    if not enumeration.complete:
        raise CorpusError("enumeration is incomplete; nothing written (no withdrawals from a partial view)",
                          code="incomplete_enumeration", subject=enumeration.publisher.value)
    work_ids: dict[str, str] = {}
    for w in enumeration.works:
        slug = _slug(w.slug)
        if slug in work_ids:
            raise CorpusError("work enumerated twice", code="duplicate_work", subject=slug)
        work_ids[slug] = w.work_identifier
    seen: set[int] = set()  # a digest per (work, version identifier): a spilled listing is read one at a time
    for i, v in enumerate(enumeration.versions):
        slug = _slug(v.slug)
        if slug not in work_ids:
            raise CorpusError("version of a work that is not enumerated", code="unknown_work", subject=slug)
        if v.work_identifier != work_ids[slug]:
            raise IntegrityError("version work_identifier differs from its work's", code="identity_mismatch",
                                 subject=f"{slug} {v.publisher_version_identifier}")
        VersionKey.create(v.valid_from, v.publisher_version_identifier)
        key = _pair_digest(slug, v.publisher_version_identifier)
        if key in seen and _listed_before(enumeration.versions, i, slug, v.publisher_version_identifier):
            raise IntegrityError("duplicate publisher version identifier in one work",
                                 code="duplicate_version_identifier",
                                 subject=f"{slug} {v.publisher_version_identifier}")
        seen.add(key)
        languages = [e.language for e in v.expressions]
        if len(set(languages)) != len(languages):
            raise CorpusError("repeated language in one version", code="repeated_language",
                              subject=f"{slug} {v.publisher_version_identifier}")
        for e in v.expressions:
            for o in e.observations:
                _check_observation(o, f"{slug} {v.publisher_version_identifier}")


def _pair_digest(slug: str, pvid: str) -> int:
    """A 64-bit digest of a work's slug and a publisher version identifier (BLAKE2b): what the
    validation holds per version instead of the two strings, so that it does not grow with them."""
    return int.from_bytes(hashlib.blake2b(f"{slug}\n{pvid}".encode("utf-8", "surrogatepass"),
                                          digest_size=8).digest(), "little")


def _listed_before(versions: Sequence[VersionInput], end: int, slug: str, pvid: str) -> bool:
    """Whether a version before ``end`` is of work ``slug`` with identifier ``pvid``: a digest seen
    before is confirmed on the versions themselves (read one at a time), so that a collision of two
    digests is never taken for a duplicate."""
    return any(u.publisher_version_identifier == pvid and _slug(u.slug) == slug
               for u in (versions[j] for j in range(end)))


def _slug(text: str) -> str:
    try:
        return WorkSlug(text).value
    except IdentityError as exc:
        raise CorpusError(exc.message, code="invalid_slug", subject=text) from None


def _check_observation(o: ObservationInput, subject: str) -> None:
    parts = o.file.split("/")
    if not o.file or o.file.startswith("/") or "\\" in o.file or any(p in ("", ".", "..") for p in parts):
        raise CorpusError(f"observation file {o.file!r} is not a safe relative name", code="path_escape",
                          subject=subject)
    if not _SHA256.fullmatch(o.sha256):  # legal.canonical.is_sha256_hex, compiled
        raise IntegrityError(f"observation sha256 {o.sha256!r} is not 64 lower-case hex", code="invalid_sha256",
                             subject=subject)
    if o.retrieved_at.tzinfo is None:
        raise CorpusError("observation retrieved_at must be timezone-aware", code="naive_timestamp",
                          subject=subject)


def _check_existing_identities(versions: Any, publisher: Publisher) -> None:
    for v in versions:
        if v.publisher is not publisher:
            continue
        if v.expected_key() != v.version_key:
            raise IntegrityError(
                "stored publisher_version_identifier does not give the record's own version key",
                code="identity_mismatch", subject=v.path)


# -- works ---------------------------------------------------------------------------------------


def _apply_works(enumeration: Enumeration, tree_works: Iterable[WorkRecord], stage: txn.Stage,
                 report: ApplyReport, fold: SpilledManifest) -> int:
    """Stage the enumerated works that are new or differ from the tree's (``tree_works``: every work
    record of the tree, read once); returns how many. Every work the tree will hold is folded into
    ``fold`` (the manifest's rows: the record written, else the tree's), not kept: a work record is
    ≈ 1.9 KB, its rows ≈ 0.3 KB (issue #13, ADR 0063). A listed work is compared as it is read (each
    record parsed once), and only the comparison's verdict is kept until its turn: the digest of a
    tree's record equal to the enumeration's, ``None`` for one that differs, or the path of one that is
    another work (raised then, in the listing's order, as before) (issue #13, ADR 0133, 0137)."""
    publisher = enumeration.publisher
    listed = {w.slug: w for w in enumeration.works}
    compared: dict[str, _Compared] = {}
    for tree_work in tree_works:
        w = listed.get(tree_work.slug)
        if w is None:
            fold.add_work(tree_work)
        else:
            compared[tree_work.slug] = _compared_work(publisher, w, tree_work)
    written = 0
    for slug, w in listed.items():
        record = _work_record(publisher, w)
        held = compared.pop(slug, None)
        if isinstance(held, _OtherWork):
            raise IntegrityError("the tree holds a different work under this slug", code="identity_mismatch",
                                 subject=held.path)
        if held is None:
            rel = work_relpath(slug)
            stage.put(rel, render(record))
            fold.add_work(WorkRecord.from_dict(record, rel))
            written += 1
        else:
            fold.add_work_rows(publisher.value, record["lex_work_id"], held)
    report.works_written += written
    return written


@dataclass(frozen=True, slots=True)
class _OtherWork:
    """The tree holds another work (another publisher or work identifier) under a listed slug: its path."""

    path: str | None


#: what :func:`_apply_works` keeps of a listed work the tree holds, from its scan to its turn: the
#: digest of its record (equal to the enumeration's), ``None`` (it differs) or :class:`_OtherWork`
_Compared = str | None | _OtherWork


def _compared_work(publisher: Publisher, w: WorkInput, held: WorkRecord) -> _Compared:
    """The verdict on the tree's record ``held`` of the listed work ``w`` (:data:`_Compared`): a record
    equal to the one the enumeration makes is unchanged (its digest, the manifest's row, is kept)."""
    if held.publisher is not publisher or held.work_identifier != w.work_identifier:
        return _OtherWork(held.path)
    return held.digest() if held.data == _work_record(publisher, w) else None


def _work_record(publisher: Publisher, w: WorkInput) -> dict[str, Any]:
    return build_work_record(publisher, w.slug, w.work_identifier, document_type=w.document_type,
                             title=w.title, title_language=w.title_language, source_uri=w.source_uri)


# -- versions ------------------------------------------------------------------------------------


def _lex_id(publisher: Publisher, v: VersionInput) -> str:
    key = VersionKey.create(v.valid_from, v.publisher_version_identifier)
    return str(WorkId(publisher, WorkSlug(v.slug)).version(key))


def _full(tree: CorpusTree, summary: VersionSummary) -> VersionRecord:
    """The full record ``summary`` was made of, read again by its path (under the tree lock)."""
    record = tree.read_version(str(summary.path))
    if record.lex_id != summary.lex_id or record.record_sha256 != summary.record_sha256:
        raise CorpusError("version record changed while the tree was locked", code="record_changed",
                          subject=summary.path)
    return record


def _stage_version(stage: txn.Stage, lex_id: str, record: dict[str, Any]) -> VersionRecord:
    """Stage the sealed ``record`` at its path; returns it typed (for the manifest's fold)."""
    vid = VersionId.parse(lex_id)
    rel = version_relpath(vid.work.slug.value, vid.key)
    stage.put(rel, render_unchecked(record))  # sealed: digest already validated it
    return VersionRecord.from_dict(record, rel)


def _apply_versions(tree: CorpusTree, enumeration: Enumeration, existing: Mapping[str, VersionSummary],
                    stamp: str, report: ApplyReport, guard: WithdrawalGuard | None = None,
                    observe: Observe | None = None, consume: bool = False) -> Iterator[tuple[str, dict[str, Any]]]:
    """New or changed version records (sealed), with their lex ids, one at a time as they are made
    (each lex id once: enumerated versions first, then withdrawals). ``existing`` is only read
    until the withdrawals are planned (after the last enumerated version). Each enumerated version
    is first completed by ``observe`` (if given) and its observations checked. With ``consume`` (and
    a list) the versions are popped from ``enumeration.versions`` as they are applied."""
    enumerated = listed_lex_ids(existing)  # a byte per tree version, not its lex id (ADR 0133)
    canonical_list = _Memo(_canonical_list)
    listed_count = len(enumeration.versions)
    for listed in _drained(enumeration.versions) if consume else enumeration.versions:
        v = listed if observe is None else _observed(observe, listed)
        lex_id = _lex_id(enumeration.publisher, v)
        held = existing.get(lex_id)
        if held is not None:
            lex_id = held.lex_id  # the equal string the summary holds: not a second one per version (issue #13)
            enumerated.add(lex_id)  # only the tree's versions can be withdrawn: a new one is not collected
        if held is None:
            record = new_record(enumeration.publisher, v, lex_id, stamp)
            report.count(RecordEvent.FIRST_SIGHTING)
            report.observations_added += sum(len(e.observations) for e in v.expressions)
            yield lex_id, seal(record)
            continue
        if held.publisher_version_identifier != v.publisher_version_identifier:
            raise IntegrityError("existing record has a different publisher_version_identifier",
                                 code="identity_mismatch", subject=held.path)
        old = _full(tree, held)
        if is_unchanged(old.data, v, canonical_list):
            continue  # the merge would change nothing: no copy, no re-verification, no re-sealing
        tree.checked(old)  # a record is revised only after its hash is checked
        sealed = seal(merge_record(old.to_dict(), v, stamp, report))
        if sealed != dict(old.data):
            yield lex_id, sealed
    withdrawing, current = planned_withdrawals(enumeration, existing.values(), enumerated)
    if guard is not None:
        guard.check(enumeration.publisher.value, withdrawing, current, listed_count)
    report.withdrawals_planned = len(withdrawing)
    for lex_id in withdrawing:
        old = tree.checked(_full(tree, existing[lex_id]))
        record = old.to_dict()
        record["events"].append(_event(RecordEvent.WITHDRAWN_FROM_SOURCE, stamp, "version", WITHDRAWN_DETAIL))
        report.count(RecordEvent.WITHDRAWN_FROM_SOURCE)
        yield lex_id, seal(record)


def _drained(versions: Sequence[VersionInput]) -> Iterator[VersionInput]:
    """``versions`` in order; a list is emptied as it is read (it keeps none it has yielded)."""
    if not isinstance(versions, list):
        yield from versions
        return
    versions.reverse()
    while versions:
        yield versions.pop()


def _observed(observe: Observe, listed: VersionInput) -> VersionInput:
    """``observe(listed)``, its observations checked as :func:`_validate` checks the enumeration's."""
    v = observe(listed)
    subject = f"{_slug(v.slug)} {v.publisher_version_identifier}"
    for e in v.expressions:
        for o in e.observations:
            _check_observation(o, subject)
    return v


def _event(event: RecordEvent, stamp: str, scope: str | None = None, detail: str | None = None) -> dict[str, str]:
    out = {"event": event.value, "observed_from": stamp}
    if scope is not None:
        out["scope"] = scope
    if detail is not None:
        out["detail"] = detail
    return out


def _iso(day: _dt.date | None) -> str | None:
    return None if day is None else day.isoformat()


def _set(d: dict[str, Any], key: str, value: Any) -> None:
    """Set ``d[key]``, or remove it when ``value`` is ``None`` (null members are omitted)."""
    if value is None:
        d.pop(key, None)
    else:
        d[key] = value


# Characters for which the standard library's JSON text may differ from RFC 8785 (surrogates;
# UTF-16 key order differs from code point order only from U+E000 up): those take the slow path.
_NOT_PLAIN = re.compile("[\ud800-\U0010ffff]")
_PLAIN_ENCODER = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _canonical_key(item: dict[str, Any]) -> str:
    """``canonical_text(item)``, computed by the C JSON encoder for string-to-string objects.

    For such an object without characters from U+D800 up, the standard JSON encoder with
    sorted keys, no whitespace and ``ensure_ascii=False`` escapes exactly what RFC 8785
    escapes (``"``, ``\\``, the short forms and ``\\u00xx`` in lower case for the other
    controls) and sorts the keys in the same order, so the two texts are identical (a property
    test checks it). Anything else is encoded by :func:`legal.canonical.canonical_text` itself.
    """
    if all(type(k) is str and type(v) is str for k, v in item.items()):
        text = _PLAIN_ENCODER.encode(item)
        if _NOT_PLAIN.search(text) is None:
            return text
    return canonical_text(item)


class _Memo:
    """``function(items)`` remembered by the identity of ``items`` (kept alive meanwhile, so an
    identity is never reused); for comparisons only — the result is shared.

    Only the ``size`` most recently used values are kept: an adapter gives the versions of a
    work one ``publisher_metadata`` tuple and lists them together, so a few entries find every
    repeat, and the memo does not hold a copy of every work's metadata until the run ends."""

    def __init__(self, function: Callable[[Any], list[dict[str, Any]]], size: int = 64) -> None:
        self.function = function
        self.size = size
        self.memo: dict[int, tuple[Any, list[dict[str, Any]]]] = {}

    def __call__(self, items: Any) -> list[dict[str, Any]]:
        key = id(items)
        hit = self.memo.pop(key, None)
        if hit is None or hit[0] is not items:
            hit = (items, self.function(items))
            if len(self.memo) >= self.size:
                del self.memo[next(iter(self.memo))]  # the least recently used
        self.memo[key] = hit  # most recently used last
        return hit[1]


def _canonical_list(items: Any) -> list[dict[str, Any]]:
    unique = {}
    for i in items:
        d = dict(i)
        unique[_canonical_key(d)] = d
    return [unique[k] for k in sorted(unique)]


def _observation(o: ObservationInput) -> dict[str, Any]:
    out: dict[str, Any] = {"file": o.file, "sha256": o.sha256, "source_uri": o.source_uri,
                           "retrieved_at": format_timestamp(o.retrieved_at)}
    _set(out, "format", o.format)
    _set(out, "size", o.size)
    if o.held_elsewhere:
        out["held_elsewhere"] = True
    return out


def _expression(e: ExpressionInput, v: VersionInput) -> dict[str, Any]:
    out: dict[str, Any] = {"language": e.language, "valid_from": _iso(e.valid_from or v.valid_from)}
    _set(out, "valid_to", _iso(e.valid_to or v.valid_to))
    _set(out, "title", e.title)
    _set(out, "title_short", e.title_short)
    _set(out, "source_uri", e.source_uri)
    out["observations"] = [_observation(o) for o in e.observations]
    out["text"] = _text(bool(e.observations), e)
    return out


def _text(available: bool, e: ExpressionInput) -> dict[str, Any]:
    out: dict[str, Any] = {"available": available}
    if not available:
        out["reason"] = e.text_reason or DEFAULT_TEXT_REASON
    _set(out, "url", e.text_url or e.source_uri)
    return out


def new_record(publisher: Publisher, v: VersionInput, lex_id: str, stamp: str) -> dict[str, Any]:
    """The (unsealed) record of a version seen for the first time."""
    out: dict[str, Any] = {
        "schema": SCHEMA, "lex_id": lex_id, "publisher_version_identifier": v.publisher_version_identifier,
        "work_identifier": v.work_identifier, "publisher": publisher.value,
    }
    _set(out, "document_type", v.document_type)
    out["valid_from"] = v.valid_from.isoformat()
    _set(out, "valid_to", _iso(v.valid_to))
    out["valid_to_convention"] = convention_of(publisher).value
    out["valid_time_source"] = v.valid_time_source
    _set(out, "in_force_status", v.in_force_status)
    _set(out, "publication_date", _iso(v.publication_date))
    out["events"] = [_event(RecordEvent.FIRST_SIGHTING, stamp)]
    out["expressions"] = [_expression(e, v) for e in v.expressions]
    out["relations"] = [dict(r) for r in v.relations]
    out["raw"] = dict(v.raw)
    out["publisher_metadata"] = _canonical_list(v.publisher_metadata)
    out["document_roles"] = sorted(set(v.document_roles))
    return out


def is_unchanged(old: Mapping[str, Any], v: VersionInput,
                 canonical_list: Callable[[Any], list[dict[str, Any]]] | None = None) -> bool:
    """Whether :func:`merge_record` would leave the stored record ``old`` exactly as it is.

    The merge's own tests, in its order, on the stored value (nothing copied): no lifecycle
    event due (not withdrawn), the same ``valid_to``, no metadata field revised, no new
    language, no new observation, and no expression whose text would become available.
    ``canonical_list`` may memoise the canonical form of ``publisher_metadata`` (the versions
    of one work usually share one sequence).
    """
    if is_withdrawn(old["events"]):
        return False  # resighted
    if old.get("valid_to") != _iso(v.valid_to):
        return False  # interval_closed / validity_revised
    if old.get("document_type") != v.document_type or old.get("in_force_status") != v.in_force_status:
        return False
    raw = old["raw"]
    if any(raw.get(key) != value for key, value in v.raw.items()):
        return False
    if old.get("publisher_metadata", []) != (canonical_list or _canonical_list)(v.publisher_metadata):
        return False
    if old.get("document_roles", []) != sorted(set(v.document_roles)):
        return False
    by_lang = {e["language"]: e for e in old["expressions"]}
    for e in v.expressions:
        held = by_lang.get(e.language)
        if held is None:
            return False  # expression_added
        if (held.get("title") != e.title or held.get("title_short") != e.title_short
                or held.get("source_uri") != e.source_uri
                or held["text"].get("url") != (e.text_url or e.source_uri)):
            return False  # metadata_revised
        observations = held["observations"]
        if observations and not held["text"].get("available"):
            return False  # the text becomes available
        if e.observations:
            have = {(o["file"], o["sha256"]) for o in observations}
            if any((o.file, o.sha256) not in have for o in e.observations):
                return False  # a new observation
    return True


def merge_record(old: dict[str, Any], v: VersionInput, stamp: str, report: ApplyReport) -> dict[str, Any]:
    """``old`` (an existing record) updated by the enumerated state ``v``, events appended."""
    rec = copy.deepcopy(old)
    rec.pop("record_sha256", None)
    events: list[dict[str, Any]] = rec["events"]
    if is_withdrawn(events):
        events.append(_event(RecordEvent.RESIGHTED, stamp, "version", RESIGHTED_DETAIL))
        report.count(RecordEvent.RESIGHTED)
    _merge_valid_to(rec, _iso(v.valid_to), stamp, report)
    fields = _merge_metadata(rec, v)
    if fields:
        events.append(_event(RecordEvent.METADATA_REVISED, stamp, "version", "fields=" + ",".join(fields)))
        report.count(RecordEvent.METADATA_REVISED)
    _merge_expressions(rec, v, stamp, report)
    return rec


def _merge_valid_to(rec: dict[str, Any], new_to: str | None, stamp: str, report: ApplyReport) -> None:
    old_to = rec.get("valid_to")
    if old_to == new_to:
        return
    if old_to is None:
        rec["valid_to"] = new_to
        for e in rec["expressions"]:
            if e.get("valid_to") is None:
                e["valid_to"] = new_to
        rec["events"].append(_event(RecordEvent.INTERVAL_CLOSED, stamp, "version", f"valid_to={new_to}"))
        report.count(RecordEvent.INTERVAL_CLOSED)
        return
    _set(rec, "valid_to", new_to)
    for e in rec["expressions"]:
        _set(e, "valid_to", new_to)
    detail = f"valid_to: {old_to or 'null'} -> {new_to or 'null'}"
    rec["events"].append(_event(RecordEvent.VALIDITY_REVISED, stamp, "version", detail))
    report.count(RecordEvent.VALIDITY_REVISED)


def _merge_metadata(rec: dict[str, Any], v: VersionInput) -> list[str]:
    fields: list[str] = []
    for key, value in (("document_type", v.document_type), ("in_force_status", v.in_force_status)):
        if rec.get(key) != value:
            _set(rec, key, value)
            fields.append(key)
    raw = rec.setdefault("raw", {})
    for key in sorted(v.raw):
        if raw.get(key) != v.raw[key]:
            raw[key] = v.raw[key]
            fields.append(f"raw.{key}")
    metadata = _canonical_list(v.publisher_metadata)
    if rec.get("publisher_metadata", []) != metadata:
        rec["publisher_metadata"] = metadata
        fields.append("publisher_metadata")
    roles = sorted(set(v.document_roles))
    if rec.get("document_roles", []) != roles:
        rec["document_roles"] = roles
        fields.append("document_roles")
    by_lang = {e["language"]: e for e in rec["expressions"]}
    for e in v.expressions:
        old = by_lang.get(e.language)
        if old is None:
            continue
        for key, value in (("title", e.title), ("title_short", e.title_short), ("source_uri", e.source_uri)):
            if old.get(key) != value:
                _set(old, key, value)
                fields.append(f"expressions.{e.language}.{key}")
        url = e.text_url or e.source_uri
        if old["text"].get("url") != url:
            _set(old["text"], "url", url)
            fields.append(f"expressions.{e.language}.text.url")
    return fields


def _merge_expressions(rec: dict[str, Any], v: VersionInput, stamp: str, report: ApplyReport) -> None:
    by_lang = {e["language"]: e for e in rec["expressions"]}
    for e in v.expressions:
        old = by_lang.get(e.language)
        if old is None:
            rec["expressions"].append(_expression(e, v))
            rec["events"].append(_event(RecordEvent.EXPRESSION_ADDED, stamp, e.language, f"language={e.language}"))
            report.count(RecordEvent.EXPRESSION_ADDED)
            report.observations_added += len(e.observations)
            continue
        have = {(o["file"], o["sha256"]) for o in old["observations"]}
        for o in e.observations:
            if (o.file, o.sha256) not in have:
                changed = any(f == o.file for f, _ in have) or (o.format is None and any(
                    x.get("format") is None and not x.get("held_elsewhere") for x in old["observations"]))
                old["observations"].append(_observation(o))
                have.add((o.file, o.sha256))
                report.observations_added += 1
                if changed:  # the publisher now serves other bytes for a body we hold
                    rec["events"].append(_event(RecordEvent.METADATA_REVISED, stamp, e.language,
                                                f"fields=expressions.{e.language}.observations.{o.file}"))
                    report.count(RecordEvent.METADATA_REVISED)
                    report.bodies_changed += 1
        if old["observations"] and not old["text"].get("available"):
            old["text"]["available"] = True
            old["text"].pop("reason", None)


# -- bodies --------------------------------------------------------------------------------------


def _held_observations(record: Mapping[str, Any]) -> Iterator[tuple[str, str, str]]:
    """``(sha256, language, file)`` of every observation of ``record`` whose body this store holds:
    the record's own strings, held until the commit; the label naming the body is made only for a
    body staged (:func:`_needed_bodies`), not held per observation (issue #13)."""
    for e in record["expressions"]:
        for o in e["observations"]:
            if not o.get("held_elsewhere"):
                yield o["sha256"], e["language"], o["file"]


def _needed_bodies(tree: CorpusTree, held: Iterable[tuple[str, tuple[str, str, str]]],
                   bodies: Mapping[str, Body], out: MutableMapping[str, txn.BlobSource]
                   ) -> MutableMapping[str, txn.BlobSource]:
    """Blobs to stage, added to ``out`` (empty; the apply's spilled map): every held observation of a
    written record (``held``: lex id and :func:`_held_observations`, in lex id order) must be given or
    stored. The first observation of a body, in that order, names it."""
    for lex_id, (sha, language, file) in held:
        if sha in out or tree.evidence.has(sha):
            continue  # staged already, or stored (content-addressed; verify re-hashes the store)
        label = f"{lex_id} {language}:{file}"
        body = bodies.get(sha)
        if body is None:
            raise CorpusError(f"no bytes for body {file} ({sha}) and the store does not hold it",
                              code="missing_body", subject=label)
        out[sha] = _source(body, label)
    return out


def _source(body: Body, label: str) -> txn.BlobSource:
    if isinstance(body, bytes):
        return txn.BlobSource(data=body, label=label)
    # a staged body's path as the string it is (ingest's staged bodies): no :class:`pathlib.Path` per body
    # held until the commit (its parts, string and interned names: ≈ 0.4 KB a body, issue #13)
    return txn.BlobSource(path=body if isinstance(body, str) else Path(body), label=label)


#: the apply's spill's page cache, KiB: its tables are read in key order and written a row at a time, so a
#: small cache only costs reads of the temporary file from the OS's page cache (the import's is 2 MiB)
APPLY_CACHE_KIB = 512


@contextlib.contextmanager
def _spill() -> Iterator[Spill]:
    """The apply's private temporary SQLite database (:class:`corpus_tree.import_spill.Spill`: its file
    unlinked as it is opened, so nothing of it outlives the apply or a killed process) for what it
    keeps per written version and per new body until the commit (ADR 0112). A temporary directory
    that fills up is the typed ``disk_full`` error."""
    spill = Spill(APPLY_CACHE_KIB)
    try:
        yield spill
    except sqlite3.Error as exc:
        full = spill_full(exc, "the apply's temporary spill")
        if full is None:
            raise
        raise full from exc
    finally:
        spill.close()


def _dump_source(src: txn.BlobSource) -> bytes:
    return marshal.dumps((src.data, None if src.path is None else os.fspath(src.path), src.label))


def _load_source(data: bytes) -> txn.BlobSource:
    body, path, label = marshal.loads(data)
    return txn.BlobSource(data=body, path=path, label=label)


def _spilled_sources(spill: Spill) -> SpilledMap[txn.BlobSource]:
    """sha256 → the source of a body to stage, one table of ``spill`` (its bytes, or its path as a string,
    and its label), made again when the commit reads it, in sha256 order."""
    return SpilledMap(spill, _dump_source, _load_source)
