"""The artifact-set statement: an in-toto Statement v1 listing every file of a build directory.

Shape (canonical JSON; this is the DSSE payload)::

    {"_type": "https://in-toto.io/Statement/v1",
     "subject": [{"name": "<relative posix path>", "digest": {"sha256": "<hex>"},
                  "annotations": {"size": <bytes>}}, ...],          # sorted by name
     "predicateType": "https://lex-evidence.dev/artifact-set/v1",
     "predicate": {"schema": "lex-artifact-set/1", "set_id": "<hex>", "created_by": "...",
                   "created_at": "...", "index_format": "...", "subject_count": n,
                   "total_bytes": n, "labels": {...}}}

The set identity ``set_id`` is the SHA-256 of the canonical JSON of the sorted subject list:
it names the exact bytes of the set, whoever signed it and whenever.

A statement whose subjects hold part of a publisher's dataset (``dataset/<publisher>/``) but not
every file of the dataset contract is refused ``incomplete_dataset`` (:mod:`release.layout`),
when it is built (signing) and when it is parsed (verifying).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from legal.canonical import canonical_bytes, digest, is_sha256_hex
from legal.errors import CanonicalError
from release.codes import Reason, refuse
from release.files import check_name, hash_files, list_files
from release.layout import missing_dataset_files

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
ARTIFACT_SET_PREDICATE = "https://lex-evidence.dev/artifact-set/v1"
SET_SCHEMA = "lex-artifact-set/1"
ENVELOPE_NAME = "statement.dsse.json"
SIGSTORE_BUNDLE_NAME = "statement.sigstore.json"
RESERVED_NAMES = frozenset({ENVELOPE_NAME, SIGSTORE_BUNDLE_NAME})


@dataclass(frozen=True)
class Subject:
    """One file of the set: relative name, SHA-256 and size."""

    name: str
    sha256: str
    size: int

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "digest": {"sha256": self.sha256}, "annotations": {"size": self.size}}

    @classmethod
    def from_json(cls, item: object, reason: Reason = Reason.MALFORMED_STATEMENT) -> Subject:
        if not isinstance(item, dict):
            refuse(reason, "subject must be an object")
        name, sha = item.get("name"), _member(item, "digest", "sha256")
        size = _member(item, "annotations", "size")
        if not isinstance(name, str) or not isinstance(sha, str) or not is_sha256_hex(sha):
            refuse(reason, "subject needs a name and a lower-case hex sha256 digest", str(name)[:200])
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            refuse(reason, "subject needs annotations.size (a non-negative integer)", name[:200])
        return cls(check_name(name), sha, size)


def _member(item: dict[str, Any], outer: str, inner: str) -> object:
    holder = item.get(outer)
    return holder.get(inner) if isinstance(holder, dict) else None


def compute_set_id(subjects: Iterable[Subject]) -> str:
    """SHA-256 of the canonical JSON of the subject list sorted by name."""
    return digest([s.to_json() for s in sorted(subjects, key=lambda s: s.name)])


def scan_subjects(directory: Path, *, workers: int | None = None,
                  known: Mapping[str, tuple[int, str]] | None = None) -> list[Subject]:
    """Hash every file of ``directory`` (except the reserved signature files) into subjects
    (``known``: hashes the producer holds for files it just wrote, :func:`release.files.hash_files`)."""
    names = list_files(directory, exclude=RESERVED_NAMES)
    if not names:
        refuse(Reason.EMPTY_SET, "an artifact set needs at least one file", str(directory))
    facts = hash_files(directory, names, workers=workers, known=known)
    return [Subject(name, facts[name].sha256, facts[name].size) for name in names]


def build_statement(
    subjects: Iterable[Subject],
    *,
    created_by: str,
    created_at: str,
    index_format: str,
    labels: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The artifact-set statement for ``subjects`` (sorted, with the set id in the predicate)."""
    ordered = sorted(subjects, key=lambda s: s.name)
    _check_subject_names(ordered)
    predicate = {
        "schema": SET_SCHEMA,
        "set_id": compute_set_id(ordered),
        "created_by": created_by,
        "created_at": created_at,
        "index_format": index_format,
        "subject_count": len(ordered),
        "total_bytes": sum(s.size for s in ordered),
        "labels": dict(labels or {}),
    }
    return intoto_statement([s.to_json() for s in ordered], ARTIFACT_SET_PREDICATE, predicate)


def intoto_statement(subjects: list[dict[str, Any]], predicate_type: str, predicate: dict[str, Any]) -> dict[str, Any]:
    return {"_type": STATEMENT_TYPE, "subject": subjects, "predicateType": predicate_type, "predicate": predicate}


def _check_subject_names(ordered: list[Subject], *, accept_legacy: bool = False) -> None:
    if not ordered:
        refuse(Reason.EMPTY_SET, "an artifact set needs at least one file")
    seen: set[str] = set()
    for subject in ordered:
        check_name(subject.name)
        if subject.name in RESERVED_NAMES or subject.name in seen:
            refuse(Reason.MALFORMED_STATEMENT, "subject name is reserved or repeated", subject.name)
        seen.add(subject.name)
    missing = missing_dataset_files(seen, accept_legacy=accept_legacy)
    if missing:
        refuse(Reason.INCOMPLETE_DATASET, "the set lacks a file of the dataset contract", missing[0])


@dataclass(frozen=True)
class ArtifactStatement:
    """A parsed, self-consistent artifact-set statement."""

    set_id: str
    subjects: Mapping[str, Subject]
    predicate: Mapping[str, Any]


def parse_statement(payload: bytes) -> ArtifactStatement:
    """Parse a DSSE payload as an artifact-set statement; refuse anything off-shape."""
    subjects_json, predicate = parse_intoto(payload, ARTIFACT_SET_PREDICATE, Reason.MALFORMED_STATEMENT)
    subjects = [Subject.from_json(item) for item in subjects_json]
    _check_subject_names(subjects, accept_legacy=True)
    if [s.name for s in subjects] != sorted(s.name for s in subjects):
        refuse(Reason.MALFORMED_STATEMENT, "subjects must be sorted by name")
    set_id = compute_set_id(subjects)
    if predicate.get("set_id") != set_id:
        claimed = str(predicate.get("set_id"))[:80]
        refuse(Reason.SET_ID_MISMATCH, "predicate set_id does not match the subjects", claimed)
    return ArtifactStatement(set_id, {s.name: s for s in subjects}, predicate)


def parse_intoto(payload: bytes, predicate_type: str, reason: Reason) -> tuple[list[Any], dict[str, Any]]:
    """``(subjects, predicate)`` of a canonical in-toto Statement v1 of ``predicate_type``."""
    document = decode_canonical(payload, reason)
    if document.get("_type") != STATEMENT_TYPE:
        refuse(reason, f"not an in-toto Statement v1 ({STATEMENT_TYPE})", str(document.get("_type"))[:100])
    if document.get("predicateType") != predicate_type:
        actual = str(document.get("predicateType"))[:100]
        refuse(Reason.WRONG_PREDICATE_TYPE, f"expected predicateType {predicate_type}", actual)
    subjects, predicate = document.get("subject"), document.get("predicate")
    if not isinstance(subjects, list) or not subjects or not isinstance(predicate, dict):
        refuse(reason, "statement needs a non-empty subject list and a predicate object")
    return subjects, predicate


def decode_canonical(payload: bytes, reason: Reason) -> dict[str, Any]:
    """A JSON object whose bytes are exactly its RFC 8785 canonical form (one encoding only)."""
    try:
        value = json.loads(payload.decode("utf-8"), parse_constant=_no_constant)
        canonical = canonical_bytes(value)
    except (UnicodeDecodeError, ValueError, CanonicalError):
        refuse(reason, "payload is not canonical JSON")
    if canonical != payload or not isinstance(value, dict):
        refuse(reason, "payload is not a canonical JSON object")
    return value


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")
