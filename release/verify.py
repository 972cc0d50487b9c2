"""Verify an artifact set before anything is opened: signature, statement, then every file.

:func:`verify_artifact_set` is what the server calls before mounting. It refuses with one
typed reason (:class:`release.codes.Reason`) per failure:

==========================  ===============================================================
``unsigned``                no ``statement.dsse.json`` (or an envelope with no signature)
``malformed_envelope``      the envelope is not DSSE JSON
``malformed_signature``     a signature is truncated / not base64 / not strict DER
``unknown_key``             no signature is by a pinned trust root
``bad_signature``           a signature by a pinned key does not verify
``missing_file``            a listed file is absent
``extra_file``              a file is present but not listed (signature files excepted)
``size_mismatch``           a listed file has another size
``digest_mismatch``         a listed file has another SHA-256
``incomplete_dataset``      a publisher's dataset lacks a file of the dataset contract (listed
                            or not: the statement itself is refused, :mod:`release.layout`)
==========================  ===============================================================

Cheap checks run first (envelope, signature, listing, sizes); only then are bytes hashed,
streaming, several files at a time. Trust roots come from configuration; a root loaded from
inside the artifact directory is refused (``trust_root_in_artifact_dir``).
:func:`reverify_artifact_set` makes the same checks but takes the digests its caller recorded
for files it verified whole before and vouches for, instead of reading them again (the
pipeline's release stage; never ``lex release verify`` nor the server).
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from legal.fs import is_inside
from release.codes import Reason, refuse
from release.files import hash_files, list_files
from release.keys import TrustStore, load_trust_roots
from release.signatures import open_statement
from release.statement import (
    ENVELOPE_NAME,
    RESERVED_NAMES,
    ArtifactStatement,
    Subject,
    parse_statement,
)


@dataclass(frozen=True)
class VerifiedSet:
    """An artifact set whose signature and every file were verified."""

    root: Path
    set_id: str
    key_ids: tuple[str, ...]
    subjects: Mapping[str, Subject]
    predicate: Mapping[str, Any]

    def path(self, name: str) -> Path:
        """The path of a verified file (only names listed in the statement)."""
        if name not in self.subjects:
            refuse(Reason.MISSING_FILE, "not a file of the verified set", name)
        return self.root / name


def as_trust_store(trust_roots: TrustStore | Iterable[Path], directory: Path | None = None) -> TrustStore:
    """A loaded store as is, or load paths (refusing, before reading, any inside ``directory``)."""
    if isinstance(trust_roots, TrustStore):
        return trust_roots
    paths = [Path(p) for p in trust_roots]
    for path in paths:
        if directory is not None and is_inside(path, directory):
            refuse(Reason.TRUST_ROOT_IN_ARTIFACT_DIR,
                   "trust roots must come from configuration, never from the artifact directory", path.name)
    return load_trust_roots(paths)


def verify_artifact_set(
    directory: Path,
    trust_roots: TrustStore | Iterable[Path],
    *,
    workers: int | None = None,
) -> VerifiedSet:
    """Verify ``directory`` against pinned ``trust_roots``; return its identity and subjects."""
    return _verify(Path(directory), trust_roots, workers, None)


def reverify_artifact_set(
    directory: Path,
    trust_roots: TrustStore | Iterable[Path],
    recorded: Mapping[str, str],
    *,
    workers: int | None = None,
) -> VerifiedSet:
    """:func:`verify_artifact_set` of a set whose files its caller has read whole and verified
    before and still vouches for: ``recorded`` (``{name: sha256}``) holds the digest the caller
    recorded for a file while it is unchanged since (the pipeline's stage state: the same size,
    modification time and inode, :meth:`pipelines.state.StageState.recorded_sha256`; or a hard link
    to a file of a set that was verified whole, :meth:`release.promotion.ReleaseRoot.release`).
    The signature, the statement and the listing (names, sizes) are checked as there, and a
    recorded digest is compared with the listed one as a computed digest would be; only the read
    of those files is saved. Every file not in ``recorded`` is read and hashed.

    ``lex release verify``, the server's mount and every transition of a release root given no
    record use :func:`verify_artifact_set`, which reads every byte."""
    return _verify(Path(directory), trust_roots, workers, recorded)


def _verify(directory: Path, trust_roots: TrustStore | Iterable[Path], workers: int | None,
            recorded: Mapping[str, str] | None) -> VerifiedSet:
    trust = as_trust_store(trust_roots, directory)
    trust.require_outside(directory)
    if not directory.is_dir():
        refuse(Reason.NOT_A_DIRECTORY, "artifact set must be a directory", str(directory))
    opened = open_statement(directory / ENVELOPE_NAME, trust)
    statement = parse_statement(opened.payload)
    check_files(directory, statement.subjects, workers=workers, recorded=recorded)
    return verified(directory, statement, opened.key_ids)


def verified(directory: Path, statement: ArtifactStatement, key_ids: tuple[str, ...]) -> VerifiedSet:
    return VerifiedSet(directory, statement.set_id, key_ids, statement.subjects, statement.predicate)


def check_files(directory: Path, subjects: Mapping[str, Subject], *, workers: int | None = None,
                recorded: Mapping[str, str] | None = None) -> None:
    """Refuse unless ``directory`` holds exactly ``subjects`` (names, sizes, then hashes;
    ``recorded``: digests the caller vouches for, :func:`reverify_artifact_set`)."""
    present = list_files(directory, exclude=RESERVED_NAMES)
    for name in subjects:
        if name not in present:
            refuse(Reason.MISSING_FILE, "a listed file is missing", name)
    for name in present:
        if name not in subjects:
            refuse(Reason.EXTRA_FILE, "a file is present but not listed in the statement", name)
    for name, size in present.items():
        if size != subjects[name].size:
            refuse(Reason.SIZE_MISMATCH, f"size {size} differs from the listed {subjects[name].size}", name)
    vouched = {name: (size, recorded[name]) for name, size in present.items() if recorded and name in recorded}
    for name, facts in hash_files(directory, present, workers=workers, known=vouched).items():
        expected = subjects[name]
        if facts.size != expected.size:
            refuse(Reason.SIZE_MISMATCH, "file changed size while being read", name)
        if not hmac.compare_digest(facts.sha256, expected.sha256):
            refuse(Reason.DIGEST_MISMATCH, "SHA-256 differs from the listed digest", name)
