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

    def to_dict(self) -> dict[str, Any]:
        counts = dict(self.counts)
        counts["distinct_bodies_held"] = len(self.bodies)
        out: dict[str, Any] = {"counts": counts, "languages": sorted(self.languages)}
        if self.earliest is not None:
            out["valid_from_earliest"] = self.earliest
            out["valid_from_latest"] = self.latest
        return out


def build_manifest(works: Iterable[WorkRecord], versions: Iterable[VersionRecord | VersionSummary]) -> dict[str, Any]:
    """The manifest of a tree holding exactly ``works`` and ``versions`` (records, or their
    :class:`corpus_tree.records.VersionSummary`: the manifest reads nothing else)."""
    total = _Tally()
    per_publisher: dict[str, _Tally] = {}
    work_rows: list[list[str]] = []
    by_work: dict[str, list[list[str]]] = {}
    for w in works:
        work_rows.append([w.lex_work_id, w.digest()])
        by_work.setdefault(w.lex_work_id, [])
        tally = per_publisher.setdefault(w.publisher.value, _Tally())
        tally.counts["works"] += 1
        total.counts["works"] += 1
    version_rows: list[list[str]] = []
    for v in versions:
        total.add_version(v)
        per_publisher.setdefault(v.publisher.value, _Tally()).add_version(v)
        row = [v.lex_id, v.record_sha256]
        version_rows.append(row)
        by_work.setdefault(str(v.work_id), []).append(row)
    work_rows.sort()
    version_rows.sort()
    publishers: dict[str, Any] = {}
    for pub in sorted(per_publisher):
        entry = per_publisher[pub].to_dict()
        if per_publisher[pub].conventions:
            entry["valid_to_conventions"] = sorted(per_publisher[pub].conventions)
        publishers[pub] = entry
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
