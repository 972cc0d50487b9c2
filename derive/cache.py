"""Per-work derivation cache: a work is re-derived only when its inputs change (issue #7).

A work's *input digest* is the SHA-256 of the canonical JSON of everything its derived outputs
depend on:

- the code: a digest of the source of :mod:`derive` (its modules and :mod:`derive.profiles`;
  not the packages that read the dataset, such as :mod:`derive.index`), :mod:`legal` and
  :mod:`corpus_tree`, the registered profile ids, and the versions of Python, Unicode,
  lxml/libxml2 and pypdf (:func:`code_digest`) — any edit there is a new digest;
- the limits in force;
- the work id, and each version's ``lex_id`` with its verified ``record_sha256`` (the record
  names every observation's evidence hash, its format and text status);
- which of those evidence hashes this store holds (bytes are content-addressed, so the set of
  held hashes fixes every byte a profile can read).

The alias table is deliberately *not* an input: cached rows keep their citations unresolved
(``href`` and ``text``) and :mod:`derive.dataset` resolves them against the current table when
it assembles the dataset, so a new work or alias re-resolves links without re-deriving bodies.

Entries are content-addressed files ``<cache>/works/<publisher>/<slug>/<input-digest>.json``
written atomically (temporary file + rename); an entry that cannot be read, or that names
another digest, is a miss. After a run, other digests of the works it processed are pruned.
The cache is never evidence: deleting it only makes the next run slower, and
``lex derive verify`` always re-derives from scratch.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import json
import os
import sys
import tempfile
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from corpus_tree import VersionRecord
from derive.limits import Limits
from derive.units import Evidence, held
from legal.canonical import digest, sha256_hex

CACHE_SCHEMA = "lex-derive-cache/1"
INPUT_SCHEMA = "lex-derive-work-input/1"
_PACKAGES = ("derive", "legal", "corpus_tree")
_DERIVE_SUBPACKAGES = ("derive/profiles/",)  # not derive.index, derive.vectors…: they read the dataset


def _counted(rel: str) -> bool:
    if not rel.startswith("derive/"):
        return True
    return "/" not in rel[len("derive/"):] or rel.startswith(_DERIVE_SUBPACKAGES)


def _sources() -> list[tuple[str, str]]:
    """(package-relative path, sha256) of every Python source the derivation runs."""
    out = []
    for name in _PACKAGES:
        module = importlib.import_module(name)
        base = Path(str(module.__file__)).parent
        for path in sorted(base.rglob("*.py")):
            rel = f"{name}/{path.relative_to(base).as_posix()}"
            if _counted(rel):
                out.append((rel, sha256_hex(path.read_bytes())))
    return sorted(out)


@functools.cache
def code_digest() -> str:
    """Digest of the derivation code and the parsers it relies on (computed once per process)."""
    from lxml import etree
    from pypdf import __version__ as pypdf_version

    from derive.profiles import registry

    return digest({
        "sources": [list(s) for s in _sources()],
        "profiles": sorted(registry()),
        "python": list(sys.version_info[:2]),
        "unicode": unicodedata.unidata_version,
        "lxml": list(etree.LXML_VERSION), "libxml2": list(etree.LIBXML_VERSION),
        "pypdf": pypdf_version,
    })


def work_input_digest(work_id: str, versions: Iterable[VersionRecord], evidence: Evidence, limits: Limits,
                      code: str) -> str:
    """The input digest of one work (``versions`` already hash-checked)."""
    records = sorted((v.lex_id, v.record_sha256) for v in versions)
    hashes: set[str] = set()
    for version in versions:
        for _expr, obs in version.observations():
            if held(obs, evidence):
                hashes.add(obs.sha256)
    return digest({
        "schema": INPUT_SCHEMA, "code": code, "limits": dataclasses.asdict(limits), "work_id": work_id,
        "versions": [list(r) for r in records], "held": sorted(hashes),
    })


class WorkCache:
    """The content-addressed store of per-work derived outputs under ``root``."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def _dir(self, work_id: str) -> Path:
        publisher, slug = work_id.split(":", 1)
        return self.root / "works" / publisher / slug

    def path(self, work_id: str, input_digest: str) -> Path:
        return self._dir(work_id) / f"{input_digest}.json"

    def get(self, work_id: str, input_digest: str) -> dict[str, Any] | None:
        """The cached entry, or ``None`` (absent, unreadable, or not this work and digest)."""
        try:
            entry = json.loads(self.path(work_id, input_digest).read_bytes())
        except (OSError, ValueError):
            return None
        if (not isinstance(entry, dict) or entry.get("schema") != CACHE_SCHEMA
                or entry.get("input_digest") != input_digest or entry.get("work_id") != work_id):
            return None
        return entry

    def put(self, work_id: str, input_digest: str, entry: dict[str, Any]) -> None:
        path = self.path(work_id, input_digest)
        path.parent.mkdir(parents=True, exist_ok=True)
        data = {**entry, "schema": CACHE_SCHEMA, "input_digest": input_digest, "work_id": work_id}
        fd, tmp = tempfile.mkstemp(prefix=".entry-", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def prune(self, keep: dict[str, str]) -> int:
        """Remove, for each work in ``keep`` (work id → digest), every other entry. Returns the count."""
        removed = 0
        for work_id, input_digest in keep.items():
            base = self._dir(work_id)
            if not base.is_dir():
                continue
            for path in base.iterdir():
                if path.name != f"{input_digest}.json" and path.is_file():
                    path.unlink(missing_ok=True)
                    removed += 1
        return removed
