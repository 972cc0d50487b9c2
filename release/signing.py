"""Sign a build directory: hash every file, build the statement, write ``statement.dsse.json``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from legal.canonical import canonical_bytes
from release.keys import Signer
from release.signatures import sign_statement as sign_intoto
from release.signatures import write_envelope
from release.statement import ENVELOPE_NAME, build_statement, scan_subjects

DEFAULT_INDEX_FORMAT = "lex-index/1"


def utc_now() -> str:
    """The current UTC time as ``YYYY-MM-DDTHH:MM:SSZ``."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class SignedSet:
    """The result of signing: the set identity, the envelope written and the payload signed."""

    set_id: str
    envelope_path: Path
    statement: Mapping[str, Any]
    payload: bytes
    key_ids: tuple[str, ...]


def statement_for(
    directory: Path,
    *,
    created_by: str,
    index_format: str = DEFAULT_INDEX_FORMAT,
    created_at: str | None = None,
    labels: Mapping[str, str] | None = None,
    workers: int | None = None,
    known: Mapping[str, tuple[int, str]] | None = None,
) -> dict[str, Any]:
    """The artifact-set statement for the files of ``directory`` as they are now (``known``:
    hashes the producer holds for files it just copied there, :func:`release.files.hash_files`)."""
    return build_statement(
        scan_subjects(directory, workers=workers, known=known),
        created_by=created_by,
        created_at=created_at or utc_now(),
        index_format=index_format,
        labels=labels,
    )


def sign_statement(directory: Path, statement: Mapping[str, Any], signers: Sequence[Signer]) -> SignedSet:
    """Sign ``statement`` and write its envelope into ``directory`` (atomically)."""
    payload = canonical_bytes(statement)
    envelope = sign_intoto(statement, signers)
    path = write_envelope(Path(directory) / ENVELOPE_NAME, envelope)
    key_ids = tuple(s.keyid for s in envelope.signatures)
    return SignedSet(statement["predicate"]["set_id"], path, statement, payload, key_ids)


def sign_artifact_set(
    directory: Path,
    signers: Sequence[Signer],
    *,
    created_by: str,
    index_format: str = DEFAULT_INDEX_FORMAT,
    created_at: str | None = None,
    labels: Mapping[str, str] | None = None,
    workers: int | None = None,
    known: Mapping[str, tuple[int, str]] | None = None,
) -> SignedSet:
    """Hash every file of ``directory`` (but ``known`` ones, :func:`statement_for`), sign the
    statement, write ``statement.dsse.json``."""
    statement = statement_for(directory, created_by=created_by, index_format=index_format,
                              created_at=created_at, labels=labels, workers=workers, known=known)
    return sign_statement(directory, statement, signers)
