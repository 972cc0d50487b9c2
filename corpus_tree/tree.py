"""The corpus tree ``lex-tree/1``: a dated work/version tree over a content-addressed store.

::

    <tree>/
      manifest.json                                  counts, date ranges, digests (lex-tree/1)
      evidence/sha256/<aa>/<bb>/<sha256>             verbatim publisher bytes (the evidence store)
      works/<slug>/meta.json                         work record
      works/<slug>/versions/<version_key>/meta.json  version record (hashed)
      .lock                                          advisory write lock (empty)

:class:`CorpusTree` is the read side plus the paths the writer and importer need; writes
go through :mod:`corpus_tree.txn` (staged, journaled, all or nothing). Opening a tree
recovers an interrupted commit first (see :func:`corpus_tree.txn.recover`).

The evidence store defaults to ``<tree>/evidence``; pass ``evidence_dir`` or set
``LEX_EVIDENCE_DIR`` to use a shared filesystem path instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from corpus_tree import txn
from corpus_tree.evidence import ENV_EVIDENCE_DIR, EvidenceStore
from corpus_tree.manifest import empty_manifest
from corpus_tree.records import (
    RECORD_FILE,
    SCHEMA,
    VersionRecord,
    WorkRecord,
    load_version,
    load_work,
    parse_record_bytes,
    render,
    require_hash,
)
from legal.errors import CorpusError, IdentityError
from legal.ids import VersionId, VersionKey, WorkSlug

MANIFEST = "manifest.json"
WORKS = "works"
VERSIONS = "versions"
EVIDENCE = "evidence"


def work_relpath(slug: str) -> str:
    return f"{WORKS}/{WorkSlug(slug).value}/{RECORD_FILE}"


def version_relpath(slug: str, key: VersionKey | str) -> str:
    return f"{WORKS}/{WorkSlug(slug).value}/{VERSIONS}/{key}/{RECORD_FILE}"


def resolve_evidence_dir(root: Path, evidence_dir: str | os.PathLike[str] | None) -> Path:
    if evidence_dir is not None:
        return Path(evidence_dir)
    env = os.environ.get(ENV_EVIDENCE_DIR)
    return Path(env) if env else root / EVIDENCE


class CorpusTree:
    """A ``lex-tree/1`` corpus tree on disk. Use :meth:`open` or :meth:`create`."""

    def __init__(self, root: Path, evidence: EvidenceStore) -> None:
        self.root = root
        self.evidence = evidence

    def __repr__(self) -> str:
        return f"CorpusTree({str(self.root)!r})"

    # -- opening -----------------------------------------------------------------------------

    @classmethod
    def create(cls, path: str | os.PathLike[str], *, evidence_dir: str | os.PathLike[str] | None = None,
               exist_ok: bool = False) -> CorpusTree:
        """Create an empty tree at ``path`` (an empty or missing directory)."""
        root = Path(path)
        if (root / MANIFEST).exists():
            if exist_ok:
                return cls.open(root, evidence_dir=evidence_dir)
            raise CorpusError("a corpus tree already exists here", code="tree_exists", subject=str(root))
        if root.exists() and any(root.iterdir()):
            raise CorpusError("refusing to create a tree in a non-empty directory", code="not_empty",
                              subject=str(root))
        root.mkdir(parents=True, exist_ok=True)
        (root / WORKS).mkdir(exist_ok=True)
        (root / txn.LOCK).touch()
        evidence = EvidenceStore(resolve_evidence_dir(root, evidence_dir))
        evidence.ensure()
        (root / MANIFEST).write_bytes(render(empty_manifest()))
        return cls(root, evidence)

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, evidence_dir: str | os.PathLike[str] | None = None,
             recover: bool = True) -> CorpusTree:
        """Open an existing tree, first finishing or undoing an interrupted commit."""
        root = Path(path)
        if not (root / MANIFEST).is_file():
            raise CorpusError("not a corpus tree (no manifest.json)", code="not_a_tree", subject=str(root))
        evidence = EvidenceStore(resolve_evidence_dir(root, evidence_dir))
        if recover:
            txn.recover(root, evidence)
        tree = cls(root, evidence)
        schema = tree.manifest().get("schema")
        if schema != SCHEMA:
            raise CorpusError(f"tree schema {schema!r} is not {SCHEMA!r}", code="unknown_schema",
                              subject=str(root / MANIFEST))
        return tree

    @classmethod
    def open_or_create(cls, path: str | os.PathLike[str], *,
                       evidence_dir: str | os.PathLike[str] | None = None) -> CorpusTree:
        root = Path(path)
        if (root / MANIFEST).exists():
            return cls.open(root, evidence_dir=evidence_dir)
        return cls.create(root, evidence_dir=evidence_dir)

    def lock(self) -> AbstractContextManager[None]:
        """Exclusive write lock (held by the writer and the importer)."""
        return txn.tree_lock(self.root)

    # -- paths -------------------------------------------------------------------------------

    def path(self, rel: str) -> Path:
        return self.root / rel

    def work_dir(self, slug: str) -> Path:
        return self.root / WORKS / WorkSlug(slug).value

    def version_dir(self, slug: str, key: VersionKey | str) -> Path:
        return self.work_dir(slug) / VERSIONS / str(key)

    # -- reading -----------------------------------------------------------------------------

    def manifest(self) -> dict[str, Any]:
        path = self.root / MANIFEST
        return parse_record_bytes(path.read_bytes(), str(path))

    def slugs(self) -> list[str]:
        """Work directory names, sorted (not validated; see :func:`corpus_tree.verify.verify_tree`)."""
        base = self.root / WORKS
        if not base.is_dir():
            return []
        return sorted(p.name for p in base.iterdir() if p.is_dir() and not p.is_symlink())

    def has_work(self, slug: str) -> bool:
        return (self.work_dir(slug) / RECORD_FILE).is_file()

    def work(self, slug: str) -> WorkRecord:
        path = self.work_dir(slug) / RECORD_FILE
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise CorpusError("unknown work", code="unknown_work", subject=slug) from None
        return load_work(data, self._rel(path))

    def works(self) -> Iterator[WorkRecord]:
        """Every work record, in slug order."""
        for slug in self.slugs():
            if self.has_work(slug):
                yield self.work(slug)

    def version_keys(self, slug: str) -> list[str]:
        base = self.work_dir(slug) / VERSIONS
        if not base.is_dir():
            return []
        return sorted(p.name for p in base.iterdir() if p.is_dir() and not p.is_symlink())

    def versions(self, slug: str, *, verify: bool = True) -> list[VersionRecord]:
        """Every version record of a work, in key order (date, then identifier hash).

        With ``verify`` (the default) each record's ``record_sha256`` is recomputed and a
        mismatch raises :class:`legal.errors.IntegrityError`.
        """
        out = []
        for key in self.version_keys(slug):
            path = self.version_dir(slug, key) / RECORD_FILE
            if path.is_file():
                out.append(self._load_version(path, verify))
        return out

    def iter_versions(self, *, verify: bool = True) -> Iterator[VersionRecord]:
        """Every version record of the tree (work slug order, then key order)."""
        for slug in self.slugs():
            yield from self.versions(slug, verify=verify)

    def version(self, lex_id: str | VersionId, *, verify: bool = True) -> VersionRecord:
        """The version record of a version lex id (``publisher:slug:key``)."""
        try:
            vid = lex_id if isinstance(lex_id, VersionId) else VersionId.parse(lex_id)
        except IdentityError as exc:
            raise CorpusError(exc.message, code=exc.code, subject=str(lex_id)) from None
        path = self.version_dir(vid.work.slug.value, vid.key) / RECORD_FILE
        if not path.is_file():
            raise CorpusError("unknown version", code="unknown_version", subject=str(vid))
        record = self._load_version(path, verify)
        if record.lex_id != str(vid):
            raise CorpusError("record lex_id does not match its path", code="identity_mismatch",
                              subject=record.path)
        return record

    def _load_version(self, path: Path, verify: bool) -> VersionRecord:
        record = load_version(path.read_bytes(), self._rel(path))
        return require_hash(record) if verify else record

    def _rel(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)
