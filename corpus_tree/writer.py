"""Apply one publisher's complete enumeration to a tree, as one all-or-nothing transaction.

:func:`apply_enumeration` computes every new or changed record in memory, then commits
records, new evidence blobs and the manifest together through :mod:`corpus_tree.txn`. The
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
  (never deleted).

Not revised (as in the reference writer): ``valid_from`` (part of the key: a re-dated state
is a new version and the old one is withdrawn), ``valid_time_source``,
``publication_date``, ``relations``, ``work_identifier``.

Refused, with nothing written: an incomplete enumeration; two versions of one work with one
publisher version identifier; an existing record whose identifier does not give its own key;
a body whose bytes do not hash to its sha256; an observation whose bytes are neither given
nor already stored (unless ``held_elsewhere``).
"""

from __future__ import annotations

import copy
import datetime as _dt
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpus_tree import txn
from corpus_tree.manifest import build_manifest
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
    WorkRecord,
    build_work_record,
    is_withdrawn,
    render,
    render_unchecked,
    seal,
)
from corpus_tree.tree import MANIFEST, CorpusTree, version_relpath, work_relpath
from legal.canonical import canonical_text, is_sha256_hex
from legal.errors import CorpusError, IdentityError, IntegrityError
from legal.ids import Publisher, VersionId, VersionKey, WorkId, WorkSlug
from legal.outcomes import RecordEvent
from legal.validity import convention_of, format_timestamp

#: Bytes of a body: in memory, or a path to a staged file.
Body = bytes | str | os.PathLike[str]

WITHDRAWN_DETAIL = "publisher record absent from the current enumeration"
RESIGHTED_DETAIL = "publisher record returned to the current enumeration"


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
    manifest_changed: bool = False
    changed: list[str] = field(default_factory=list)

    def count(self, event: RecordEvent) -> None:
        self.events[event.value] = self.events.get(event.value, 0) + 1

    @property
    def wrote_anything(self) -> bool:
        return bool(self.records_written or self.works_written or self.bodies_added or self.manifest_changed)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items()}


# -- entry point ---------------------------------------------------------------------------------


def apply_enumeration(
    tree: CorpusTree, enumeration: Enumeration, bodies: Mapping[str, Body], now: _dt.datetime, *,
    durable: bool = True, progress: txn.Progress | None = None,
) -> ApplyReport:
    """Apply ``enumeration`` to ``tree``; all or nothing. See the module docstring."""
    stamp = format_timestamp(now)
    _validate(enumeration)
    report = ApplyReport(enumeration.publisher.value, works_enumerated=len(enumeration.works),
                         versions_enumerated=len(enumeration.versions))
    with tree.lock():
        changes = txn.ChangeSet()
        works = {w.slug: w for w in tree.works()}
        versions = {v.lex_id: v for v in tree.iter_versions(verify=True)}
        _check_existing_identities(versions.values(), enumeration.publisher)
        new_works = _apply_works(enumeration, works, changes, report)
        new_versions = _apply_versions(enumeration, versions, stamp, report)
        for lex_id, record in sorted(new_versions.items()):
            vid = VersionId.parse(lex_id)
            rel = version_relpath(vid.work.slug.value, vid.key)
            changes.files[rel] = render_unchecked(record)  # sealed: digest already validated it
            versions[lex_id] = VersionRecord.from_dict(record, rel)
            report.records_written += 1
            report.changed.append(lex_id)
        changes.blobs = _needed_bodies(tree, new_versions, versions, bodies)
        works.update(new_works)
        manifest_bytes = render(build_manifest(works.values(), versions.values()))
        if tree.path(MANIFEST).read_bytes() != manifest_bytes:
            changes.files[MANIFEST] = manifest_bytes
            report.manifest_changed = True
        result = txn.commit(tree.root, tree.evidence, changes, durable=durable, progress=progress)
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
    seen: dict[tuple[str, str], VersionInput] = {}
    for v in enumeration.versions:
        slug = _slug(v.slug)
        if slug not in work_ids:
            raise CorpusError("version of a work that is not enumerated", code="unknown_work", subject=slug)
        if v.work_identifier != work_ids[slug]:
            raise IntegrityError("version work_identifier differs from its work's", code="identity_mismatch",
                                 subject=f"{slug} {v.publisher_version_identifier}")
        VersionKey.create(v.valid_from, v.publisher_version_identifier)
        if (slug, v.publisher_version_identifier) in seen:
            raise IntegrityError("duplicate publisher version identifier in one work",
                                 code="duplicate_version_identifier",
                                 subject=f"{slug} {v.publisher_version_identifier}")
        seen[(slug, v.publisher_version_identifier)] = v
        languages = [e.language for e in v.expressions]
        if len(set(languages)) != len(languages):
            raise CorpusError("repeated language in one version", code="repeated_language",
                              subject=f"{slug} {v.publisher_version_identifier}")
        for e in v.expressions:
            for o in e.observations:
                _check_observation(o, f"{slug} {v.publisher_version_identifier}")


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
    if not is_sha256_hex(o.sha256):
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


def _apply_works(enumeration: Enumeration, works: dict[str, WorkRecord], changes: txn.ChangeSet,
                 report: ApplyReport) -> dict[str, WorkRecord]:
    out: dict[str, WorkRecord] = {}
    for w in enumeration.works:
        record = _work_record(enumeration.publisher, w)
        existing = works.get(w.slug)
        if existing is not None and (existing.publisher is not enumeration.publisher
                                     or existing.work_identifier != w.work_identifier):
            raise IntegrityError("the tree holds a different work under this slug", code="identity_mismatch",
                                 subject=existing.path)
        if existing is None or existing.to_dict() != record:
            rel = work_relpath(w.slug)
            changes.files[rel] = render(record)
            out[w.slug] = WorkRecord.from_dict(record, rel)
            report.works_written += 1
    return out


def _work_record(publisher: Publisher, w: WorkInput) -> dict[str, Any]:
    return build_work_record(publisher, w.slug, w.work_identifier, document_type=w.document_type,
                             title=w.title, title_language=w.title_language, source_uri=w.source_uri)


# -- versions ------------------------------------------------------------------------------------


def _lex_id(publisher: Publisher, v: VersionInput) -> str:
    key = VersionKey.create(v.valid_from, v.publisher_version_identifier)
    return str(WorkId(publisher, WorkSlug(v.slug)).version(key))


def _apply_versions(enumeration: Enumeration, existing: Mapping[str, VersionRecord], stamp: str,
                    report: ApplyReport) -> dict[str, dict[str, Any]]:
    """New or changed version records (sealed), by lex id."""
    out: dict[str, dict[str, Any]] = {}
    enumerated: set[str] = set()
    for v in enumeration.versions:
        lex_id = _lex_id(enumeration.publisher, v)
        enumerated.add(lex_id)
        old = existing.get(lex_id)
        if old is None:
            record = new_record(enumeration.publisher, v, lex_id, stamp)
            report.count(RecordEvent.FIRST_SIGHTING)
            report.observations_added += sum(len(e.observations) for e in v.expressions)
        else:
            if old.publisher_version_identifier != v.publisher_version_identifier:
                raise IntegrityError("existing record has a different publisher_version_identifier",
                                     code="identity_mismatch", subject=old.path)
            record = merge_record(old.to_dict(), v, stamp, report)
        sealed = seal(record)
        if old is None or sealed != dict(old.data):
            out[lex_id] = sealed
    for lex_id, old in existing.items():
        if old.publisher is enumeration.publisher and lex_id not in enumerated and not old.is_withdrawn:
            record = old.to_dict()
            record["events"].append(_event(RecordEvent.WITHDRAWN_FROM_SOURCE, stamp, "version", WITHDRAWN_DETAIL))
            report.count(RecordEvent.WITHDRAWN_FROM_SOURCE)
            out[lex_id] = seal(record)
    return out


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


def _canonical_list(items: Any) -> list[dict[str, Any]]:
    unique = {canonical_text(dict(i)): dict(i) for i in items}
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
                old["observations"].append(_observation(o))
                have.add((o.file, o.sha256))
                report.observations_added += 1
        if old["observations"] and not old["text"].get("available"):
            old["text"]["available"] = True
            old["text"].pop("reason", None)


# -- bodies --------------------------------------------------------------------------------------


def _needed_bodies(tree: CorpusTree, new_versions: Mapping[str, dict[str, Any]],
                   versions: Mapping[str, VersionRecord], bodies: Mapping[str, Body]) -> dict[str, txn.BlobSource]:
    """Blobs to stage: every held observation of a written record must be given or stored."""
    out: dict[str, txn.BlobSource] = {}
    for lex_id, record in sorted(new_versions.items()):
        for e in record["expressions"]:
            for o in e["observations"]:
                if o.get("held_elsewhere"):
                    continue
                sha = o["sha256"]
                label = f"{lex_id} {e['language']}:{o['file']}"
                body = bodies.get(sha)
                if body is not None:
                    out.setdefault(sha, _source(body, label))
                elif sha not in out and not tree.evidence.has(sha):
                    raise CorpusError(f"no bytes for body {o['file']} ({sha}) and the store does not hold it",
                                      code="missing_body", subject=label)
    return out


def _source(body: Body, label: str) -> txn.BlobSource:
    if isinstance(body, bytes):
        return txn.BlobSource(data=body, label=label)
    return txn.BlobSource(path=Path(body), label=label)
