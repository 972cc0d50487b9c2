"""What a replay publisher serves: the current (non-withdrawn) records of a corpus tree and
a way to read each body's bytes.

Two kinds of trees are accepted, told apart by their ``manifest.json`` schema:

- our own ``lex-tree/1`` trees, read through :class:`corpus_tree.CorpusTree` (bodies from
  its evidence store);
- published ``lex-corpus/3`` (Legilux) and ``lex-corpus/4`` (EUR-Lex) trees, read directly
  in place with the importer's verified reader (records converted in memory, bodies read
  from beside the records; nothing is written).

A body a record names but whose bytes are not held (``held_elsewhere``, or omitted from a
published snapshot) is served by the replay as a *held-elsewhere* document, never invented.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from corpus_tree import CorpusTree, VersionRecord, WorkRecord
from corpus_tree.importer import read_source
from legal.errors import CorpusError, IntegrityError
from legal.ids import Publisher


@dataclass
class ReplaySource:
    """The current records of one publisher and a reader of body bytes by sha256."""

    publisher: Publisher
    works: list[WorkRecord]
    versions: list[VersionRecord]
    read_body: Callable[[str], bytes | None] = field(repr=False)
    origin: str = ""

    @property
    def current(self) -> list[VersionRecord]:
        return [v for v in self.versions if not v.is_withdrawn]


def load_source(path: str | Path, *, works: Iterable[str] | None = None) -> ReplaySource:
    """A :class:`ReplaySource` for the tree at ``path`` (ours or a published one).

    ``works`` (slugs) restricts what is served to those works (a smaller publisher).
    """
    source = _load(Path(path))
    if works is None:
        return source
    keep = set(works)
    source.works = [w for w in source.works if w.slug in keep]
    source.versions = [v for v in source.versions if v.slug in keep]
    return source


def _load(path: Path) -> ReplaySource:
    root = Path(path)
    manifest = root / "manifest.json"
    try:
        schema = json.loads(manifest.read_bytes()).get("schema")
    except (OSError, ValueError) as exc:
        raise CorpusError(f"cannot read the tree's manifest: {exc}", code="not_a_tree", subject=str(manifest)) from None
    if schema == "lex-tree/1":
        return _from_tree(root)
    if isinstance(schema, str) and schema.startswith("lex-corpus/"):
        return _from_published(root)
    raise CorpusError(f"unknown tree schema {schema!r}", code="unknown_schema", subject=str(manifest))


def _from_tree(root: Path) -> ReplaySource:
    tree = CorpusTree.open(root, recover=False)
    works = list(tree.works())
    versions = list(tree.iter_versions(verify=True))
    publishers = {w.publisher for w in works} | {v.publisher for v in versions}
    if len(publishers) != 1:
        raise CorpusError("a replay source must hold exactly one publisher", code="mixed_publishers",
                          subject=str(root))

    def read(sha: str) -> bytes | None:
        return tree.evidence.read(sha) if tree.evidence.has(sha) else None

    return ReplaySource(publishers.pop(), works, versions, read, origin=str(root))


def _from_published(root: Path) -> ReplaySource:
    source = read_source(root)
    works = [WorkRecord.from_dict(w) for _, w in sorted(source.works.items())]
    versions = [VersionRecord.from_dict(r, rel) for rel, r in sorted(source.versions.items())]
    paths: dict[str, Path] = {}
    for sha, blob in source.blobs.items():
        if blob.path is not None:
            paths[sha] = Path(blob.path)
    for sha, extra in source.extra_bodies:
        paths.setdefault(sha, extra)

    def read(sha: str) -> bytes | None:
        path = paths.get(sha)
        if path is None:
            return None
        data = path.read_bytes()
        if hashlib.sha256(data).hexdigest() != sha:
            raise IntegrityError("published body does not match its recorded sha256", code="body_hash_mismatch",
                                 subject=str(path))
        return data

    return ReplaySource(source.publisher, works, versions, read, origin=str(root))
