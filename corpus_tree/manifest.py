"""``manifest.json`` of a ``lex-tree/1`` tree: counts, languages, date ranges and digests.

The manifest is a pure function of the records (:func:`build_manifest`): it carries no clock
and no path, so applying the same enumeration twice leaves it byte-identical.

- ``records_digest`` = ``digest({"works": [[lex_work_id, digest(work record)], …],
  "versions": [[lex_id, record_sha256], …]})``, both lists sorted;
- ``works_index[lex_work_id]`` = ``{"versions": n, "digest": digest([[lex_id, record_sha256], …])}``
  so that a missing or extra version directory is reported against its work.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from corpus_tree.records import SCHEMA, VersionRecord, VersionSummary, WorkRecord
from legal.canonical import digest

COUNT_KEYS = (
    "works", "versions", "current_versions", "withdrawn_versions", "expressions", "expressions_with_text",
    "observations", "bodies_held", "bodies_held_elsewhere", "distinct_bodies_held",
)


class _Tally:
    def __init__(self) -> None:
        self.counts = dict.fromkeys(COUNT_KEYS, 0)
        self.languages: set[str] = set()
        self.earliest: str | None = None
        self.latest: str | None = None
        self.bodies: set[str] = set()
        self.conventions: set[str] = set()

    def add_version(self, v: VersionRecord | VersionSummary) -> None:
        c = self.counts
        c["versions"] += 1
        if v.is_withdrawn:
            c["withdrawn_versions"] += 1
        else:
            c["current_versions"] += 1
        self.conventions.add(v.valid_to_convention.value)
        if self.earliest is None or v.valid_from < self.earliest:
            self.earliest = v.valid_from
        if self.latest is None or v.valid_from > self.latest:
            self.latest = v.valid_from
        for e in v.expressions:
            c["expressions"] += 1
            self.languages.add(e.language)
            if e.has_text:
                c["expressions_with_text"] += 1
            for o in e.observations:
                c["observations"] += 1
                if o.held_elsewhere:
                    c["bodies_held_elsewhere"] += 1
                else:
                    c["bodies_held"] += 1
                    self.bodies.add(o.sha256)

    @classmethod
    def merged(cls, tallies: list[_Tally]) -> _Tally:
        """One tally of the same publisher's versions folded apart (``tallies[0]`` if alone)."""
        if len(tallies) == 1:
            return tallies[0]
        out = cls()
        for t in tallies:
            out.absorb(t)
            out.bodies |= t.bodies
            out.conventions |= t.conventions
        return out

    def absorb(self, other: _Tally) -> None:
        """Add ``other``'s counts, languages and dates (not its bodies or conventions)."""
        for key, n in other.counts.items():
            self.counts[key] += n
        self.languages |= other.languages
        if other.earliest is not None and (self.earliest is None or other.earliest < self.earliest):
            self.earliest = other.earliest
        if other.latest is not None and (self.latest is None or other.latest > self.latest):
            self.latest = other.latest

    def to_dict(self) -> dict[str, Any]:
        counts = dict(self.counts)
        counts["distinct_bodies_held"] = len(self.bodies)
        out: dict[str, Any] = {"counts": counts, "languages": sorted(self.languages)}
        if self.earliest is not None:
            out["valid_from_earliest"] = self.earliest
            out["valid_from_latest"] = self.latest
        return out


class PublisherPart:
    """What the manifest reads of one publisher's works and versions, folded one at a time: its
    tally, its ``[lex_work_id, digest]`` and ``[lex_id, record_sha256]`` rows, and the version rows
    of each work. A folded version is not kept, only those rows and the tally's sets (languages,
    conventions and the sha256 of each body held), so a part costs a row per version (ADR 0048)."""

    __slots__ = ("by_work", "tally", "version_rows", "work_rows")

    def __init__(self) -> None:
        self.tally = _Tally()
        self.work_rows: list[tuple[str, str]] = []
        self.version_rows: list[tuple[str, str]] = []
        self.by_work: dict[str, list[tuple[str, str]]] = {}

    def add_work(self, w: WorkRecord) -> None:
        self.work_rows.append((w.lex_work_id, w.digest()))
        self.by_work.setdefault(w.lex_work_id, [])
        self.tally.counts["works"] += 1

    def add_version(self, v: VersionRecord | VersionSummary) -> None:
        self.tally.add_version(v)
        row = (v.lex_id, v.record_sha256)  # a tuple: 16 bytes less than a list; canonical JSON reads both
        self.version_rows.append(row)
        self.by_work.setdefault(str(v.work_id), []).append(row)


class ManifestFold:
    """Works and versions folded into one :class:`PublisherPart` per publisher (a work by its
    ``publisher``, a version by its record's ``publisher``). The manifest of several folds
    (:func:`manifest_of`) is the manifest of all their works and versions, in any order."""

    __slots__ = ("parts",)

    def __init__(self) -> None:
        self.parts: dict[str, PublisherPart] = {}

    def _part(self, publisher: str) -> PublisherPart:
        part = self.parts.get(publisher)
        if part is None:
            part = self.parts[publisher] = PublisherPart()
        return part

    def add_work(self, w: WorkRecord) -> None:
        self._part(w.publisher.value).add_work(w)

    def add_version(self, v: VersionRecord | VersionSummary) -> None:
        self._part(v.publisher.value).add_version(v)


def build_manifest(works: Iterable[WorkRecord], versions: Iterable[VersionRecord | VersionSummary]) -> dict[str, Any]:
    """The manifest of a tree holding exactly ``works`` and ``versions`` (records, or their
    :class:`corpus_tree.records.VersionSummary`: the manifest reads nothing else)."""
    fold = ManifestFold()
    for w in works:
        fold.add_work(w)
    for v in versions:
        fold.add_version(v)
    return manifest_of(fold)


def manifest_of(*folds: ManifestFold) -> dict[str, Any]:
    """The manifest of the works and versions folded into ``folds`` (each work and version in one
    of them only): :func:`build_manifest` of them all, byte for byte."""
    by_publisher: dict[str, list[PublisherPart]] = {}
    for fold in folds:
        for pub, part in fold.parts.items():
            by_publisher.setdefault(pub, []).append(part)
    total = _Tally()
    bodies: list[set[str]] = []
    work_rows: list[tuple[str, str]] = []
    version_rows: list[tuple[str, str]] = []
    by_work: dict[str, list[tuple[str, str]]] = {}
    publishers: dict[str, Any] = {}
    for pub in sorted(by_publisher):
        tally = _Tally.merged([p.tally for p in by_publisher[pub]])
        total.absorb(tally)
        bodies.append(tally.bodies)
        entry = tally.to_dict()
        if tally.conventions:
            entry["valid_to_conventions"] = sorted(tally.conventions)
        publishers[pub] = entry
        for part in by_publisher[pub]:
            work_rows.extend(part.work_rows)
            version_rows.extend(part.version_rows)
            for wid, rows in part.by_work.items():
                by_work.setdefault(wid, []).extend(rows)
    total.bodies = set().union(*bodies) if len(bodies) > 1 else (bodies[0] if bodies else set())
    work_rows.sort()
    version_rows.sort()
    works_index = {
        wid: {"versions": len(rows), "digest": digest(sorted(rows))} for wid, rows in sorted(by_work.items())
    }
    out: dict[str, Any] = {"schema": SCHEMA, "publishers": publishers}
    out.update(total.to_dict())
    out["records_digest"] = digest({"works": work_rows, "versions": version_rows})
    out["works_index"] = works_index
    return out


def empty_manifest() -> dict[str, Any]:
    return build_manifest((), ())


def text_holdings(versions: Iterable[VersionRecord]) -> dict[str, dict[str, int]]:
    """Per publisher: expressions whose text bytes this store holds, and those whose every body
    is held elsewhere (the publisher said there is text, but no byte of it is here).

    The manifest's ``expressions_with_text`` counts both; a reader of ``lex corpus stats`` must
    not take a text held elsewhere for a text held.
    """
    out: dict[str, dict[str, int]] = {}
    for v in versions:
        c = out.setdefault(v.publisher.value, {"expressions_text_held": 0, "expressions_text_held_elsewhere_only": 0})
        for e in v.expressions:
            if not e.has_text:
                continue
            if any(not o.held_elsewhere for o in e.observations):
                c["expressions_text_held"] += 1
            else:
                c["expressions_text_held_elsewhere_only"] += 1
    return out
