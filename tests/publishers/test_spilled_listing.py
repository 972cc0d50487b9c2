"""The listing and the summaries spilled (issue #13, ADR 0083): an ingest holds an offset per enumerated
version and per summary of its publisher, not the objects, and reads each back when it is used; the
records, the manifest and the reports are those of the run that held them.
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest

import publishers.ingest as ingest_module
from corpus_tree import CorpusTree, VersionSummary
from corpus_tree.model import VersionInput
from publishers.protocol import Manifestation
from publishers.spill import SpilledListing
from tests.publishers.conftest import Harness, snapshot
from tests.publishers.test_completeness import LATER


def _live(kind: type) -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is kind)


@pytest.mark.parametrize("harness", ["lu_small", "eu_small"])
def test_a_spilled_listing_reads_back_every_version_and_its_manifestations(harness: str, tmp_path: Path,
                                                                          request: pytest.FixtureRequest) -> None:
    """Each version comes back equal, in order, with the manifestations of its publisher version
    identifier in the listing's order, and with the very ``publisher_metadata`` object the adapter
    gave it (shared by the versions of a work: the writer's memo of its canonical form finds them)."""
    h: Harness = request.getfixturevalue(harness)
    listing = h.adapter().enumerate(h.scope)
    versions = list(listing.enumeration.versions)
    expected = [(v, tuple(m for m in listing.manifestations
                          if m.publisher_version_identifier == v.publisher_version_identifier)) for v in versions]
    spilled = SpilledListing(list(versions), listing.manifestations, tmp_path)
    try:
        assert len(spilled) == len(versions) >= 5
        back = list(spilled.spilled())
        assert back == expected
        assert all(b[0] is not v for b, (v, _) in zip(back, expected, strict=True))  # made again, not held
        assert all(b[0].publisher_metadata is v.publisher_metadata for b, (v, _) in zip(back, expected, strict=True)
                   if v.publisher_metadata)
        assert sum(len(ms) for _, ms in back) == len(listing.manifestations)
        assert list(spilled) == versions and spilled[-1] == versions[-1]
    finally:
        spilled.close()


def test_an_ingest_holds_no_listed_manifestation_while_the_writer_applies(lu_small: Harness,
                                                                         target: CorpusTree,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """At each version the writer reaches, only that version's manifestations are alive (before: the
    plan held every manifestation to fetch, and the listing every one listed, until the last)."""
    seen: list[tuple[int, int]] = []
    real = ingest_module._Observer.__call__

    def watched(self: Any, v: VersionInput) -> VersionInput:
        seen.append((_live(Manifestation), _live(VersionInput)))
        return real(self, v)

    already = (_live(Manifestation), _live(VersionInput))
    monkeypatch.setattr(ingest_module._Observer, "__call__", watched)
    report = lu_small.ingest(target)
    assert report.versions == len(seen) >= 30 and report.manifestations_fetched >= 20
    assert max(m for m, _ in seen) - already[0] <= 4, (already, seen)
    assert max(v for _, v in seen) - already[1] <= 3, (already, seen)


def test_a_re_ingest_holds_no_summary_object_while_it_plans_and_applies(lu_small: Harness, target: CorpusTree,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The tree's summaries are spilled by its caching block: while a re-ingest plans and its writer
    applies, a summary is alive only while it is read (before: one per version of the publisher), and
    the re-ingest's outcome is unchanged (no record, no manifest written)."""
    first = lu_small.ingest(target)
    before = snapshot(target.root)
    seen: list[int] = []
    real_plan = ingest_module._plan

    def plan(*args: Any) -> Any:
        out = real_plan(*args)
        seen.append(_live(VersionSummary))
        return out

    real_call = ingest_module._Observer.__call__

    def watched(self: Any, v: VersionInput) -> VersionInput:
        if self.next in (0, self.count - 1):
            seen.append(_live(VersionSummary))
        return real_call(self, v)

    already = _live(VersionSummary)
    monkeypatch.setattr(ingest_module, "_plan", plan)
    monkeypatch.setattr(ingest_module._Observer, "__call__", watched)
    again = lu_small.ingest(target, now=LATER)
    assert again.versions == first.versions >= 30 and len(seen) == 3
    assert max(seen) - already <= 2, (already, seen, first.versions)
    assert again.apply is not None and not again.apply.wrote_anything
    assert snapshot(target.root) == before


def test_the_legilux_catalogue_is_consumed_as_its_versions_are_built(lu_small: Harness,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The Legilux adapter builds each version from the states it reads back from its spill one work at a
    time (ADR 0129): as each version is built only that work's states are alive (before ADR 0083: every
    state of the catalogue), and the listing is the same."""
    import publishers.legilux.adapter as adapter_module
    from publishers.legilux.records import Consolidation

    expected = lu_small.adapter().enumerate(None)
    alive: list[tuple[str, int]] = []
    real = adapter_module.records.version_input

    def version_input(c: Any, **kw: Any) -> Any:
        alive.append((c.slug, _live(Consolidation)))
        return real(c, **kw)

    already = _live(Consolidation)
    monkeypatch.setattr(adapter_module.records, "version_input", version_input)
    listing = lu_small.adapter().enumerate(None)
    assert listing == expected and len(alive) == len(listing.enumeration.versions) >= 30
    per_work = {slug: sum(1 for v in listing.enumeration.versions if v.slug == slug) for slug, _ in alive}
    # the work's states, and the next work's first (read ahead to find where the work ends)
    assert all(count - already <= per_work[slug] + 1 for slug, count in alive), (already, alive)
    assert max(per_work.values()) < len(alive)  # a work's states, not the catalogue's
