"""The EUR-Lex versions spilled as each batch of works is built (issue #13, ADR 0126): the listing read
back is the one the whole enumeration spills, the ingest's tree and report are the same, an ingest holds
no more than a batch's versions while it enumerates, and a failure part-way leaves the tree and no
staging behind.
"""

from __future__ import annotations

import dataclasses
import gc
import itertools
from pathlib import Path
from typing import Any

import pytest

from corpus_tree import CorpusTree
from corpus_tree.model import VersionInput
from corpus_tree.txn import STAGING
from legal.errors import PublisherError
from publishers import spill
from publishers.eurlex import EurlexAdapter
from publishers.protocol import FetchResult, ListingAdapter, Manifestation, PublisherEnumeration
from publishers.spill import SpilledListing
from tests.publishers.conftest import Harness, comparable, snapshot


class _Whole:
    """An adapter that only enumerates whole (the ingest's other path): the same EUR-Lex adapter."""

    def __init__(self, inner: EurlexAdapter) -> None:
        self.inner, self.publisher, self.http = inner, inner.publisher, inner.http

    def enumerate(self, scope: object | None = None) -> PublisherEnumeration:
        return self.inner.enumerate(scope)

    def fetch(self, manifestation: Manifestation) -> FetchResult:
        return self.inner.fetch(manifestation)


def _eurlex(h: Harness, **config: Any) -> EurlexAdapter:
    adapter = h.adapter(**config)
    assert isinstance(adapter, EurlexAdapter) and isinstance(adapter, ListingAdapter)
    return adapter


@pytest.mark.parametrize("batch", [1, 16])
def test_the_streamed_spill_reads_back_as_the_whole_listing_spilled(eu_small: Harness, tmp_path: Path,
                                                                   batch: int) -> None:
    whole = _eurlex(eu_small, batch=batch).enumerate(eu_small.scope)
    expected = SpilledListing(list(whole.enumeration.versions), whole.manifestations, tmp_path)
    streamed = SpilledListing.streamed(tmp_path)
    try:
        listing = _eurlex(eu_small, batch=batch).enumerate_into(eu_small.scope, streamed.append)
        streamed.seal()
        assert listing.enumeration.versions == () and listing.manifestations == ()
        assert listing.enumeration.works == whole.enumeration.works and listing.notes == whole.notes
        assert len(streamed) == len(whole.enumeration.versions) >= 5
        back = list(streamed.spilled())
        assert back == list(expected.spilled())
        # the shared values are on disk, each work's read back once: its versions share that one object
        assert isinstance(streamed._table, spill._DiskTable)
        pairs = [(a, b) for (a, _), (b, _) in itertools.pairwise(back) if a.slug == b.slug and a.publisher_metadata]
        assert pairs and all(a.publisher_metadata is b.publisher_metadata for a, b in pairs)
        assert streamed.expressions == sum(len(v.expressions) for v in whole.enumeration.versions)
        assert streamed.manifestations_listed == len(whole.manifestations)
    finally:
        expected.close()
        streamed.close()


def test_versions_sharing_an_identifier_get_every_one_s_manifestations(eu_small: Harness, tmp_path: Path) -> None:
    """Two versions of one publisher version identifier (works apart in the listing): each gets the
    manifestations listed for both, in the listing's order, as the whole form groups them."""
    whole = _eurlex(eu_small).enumerate(eu_small.scope)
    versions = list(whole.enumeration.versions)
    first = versions[0]
    twin = dataclasses.replace(first, slug="twin-of-" + first.slug)
    listed: list[tuple[VersionInput, tuple[Manifestation, ...]]] = [
        (v, tuple(m for m in whole.manifestations if m.publisher_version_identifier == v.publisher_version_identifier))
        for v in versions]
    listed.append((twin, tuple(dataclasses.replace(m, slug=twin.slug) for m in listed[0][1])))
    expected = SpilledListing([v for v, _ in listed], [m for _, ms in listed for m in ms], tmp_path)
    streamed = SpilledListing.streamed(tmp_path)
    try:
        for v, ms in listed:
            streamed.append(v, ms)
        streamed.seal()
        back = list(streamed.spilled())
        assert back == list(expected.spilled())
        assert back[0][1] == back[-1][1] == listed[0][1] + listed[-1][1]
        assert back[0][0].publisher_metadata == first.publisher_metadata
        assert streamed.manifestations_listed == sum(len(ms) for _, ms in listed)
    finally:
        expected.close()
        streamed.close()


@pytest.mark.parametrize("revalidate", [False, True])
def test_the_streamed_ingest_writes_the_tree_and_report_of_the_whole_one(eu_small: Harness, tmp_path: Path,
                                                                        revalidate: bool) -> None:
    trees = {name: CorpusTree.create(tmp_path / name) for name in ("streamed", "whole")}
    reports = {}
    for name, tree in trees.items():
        for _ in range(2):  # a fresh ingest, then a re-ingest
            adapter = _eurlex(eu_small)
            chosen = adapter if name == "streamed" else _Whole(adapter)
            reports[name] = eu_small.ingest(tree, adapter=chosen, revalidate=revalidate)
    assert snapshot(trees["streamed"].root) == snapshot(trees["whole"].root)
    assert comparable(reports["streamed"]) == comparable(reports["whole"])
    assert reports["streamed"].versions >= 5


def _live_versions() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is VersionInput)


def test_an_ingest_holds_no_more_than_a_batch_of_versions_while_it_enumerates(eu_small: Harness, target: CorpusTree,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """With a batch of one work, at each version handed to the spill only that work's versions are
    alive (before: every version listed so far, and the whole listing at the spill)."""
    whole = _eurlex(eu_small, batch=1).enumerate(eu_small.scope)
    largest = max(sum(1 for v in whole.enumeration.versions if v.slug == w.slug) for w in whole.enumeration.works)
    total = len(whole.enumeration.versions)
    del whole
    seen: list[int] = []
    append = SpilledListing.append

    def watched(self: SpilledListing, v: VersionInput, ms: tuple[Manifestation, ...]) -> None:
        seen.append(_live_versions())
        append(self, v, ms)

    already = _live_versions()
    monkeypatch.setattr(SpilledListing, "append", watched)
    report = eu_small.ingest(target, adapter=_eurlex(eu_small, batch=1))
    assert len(seen) == report.versions == total > largest
    assert max(seen) - already <= largest, (already, largest, seen)


@pytest.mark.parametrize("seeded", [False, True])
def test_a_failure_part_way_through_the_enumeration_leaves_the_tree(eu_small: Harness, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch,
                                                                     seeded: bool) -> None:
    """A batch that fails after earlier batches' versions were spilled: the error is the adapter's, the
    tree is byte-identical, no staging is left and the spill is closed."""
    tree = CorpusTree.create(tmp_path / "t")
    if seeded:
        eu_small.ingest(tree, adapter=_eurlex(eu_small))
    before = snapshot(tree.root)
    batches = EurlexAdapter._batch
    calls: list[int] = []

    def failing(self: EurlexAdapter, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:
            raise PublisherError("the publisher fell over", code="incomplete_enumeration", subject="batch 2")
        return batches(self, *args, **kwargs)

    spills: list[SpilledListing] = []
    streamed = SpilledListing.streamed.__func__  # type: ignore[attr-defined]

    def watched(cls: type[SpilledListing], staging: Path) -> SpilledListing:
        out: SpilledListing = streamed(cls, staging)
        spills.append(out)
        return out

    monkeypatch.setattr(EurlexAdapter, "_batch", failing)
    monkeypatch.setattr(SpilledListing, "streamed", classmethod(watched))
    with pytest.raises(PublisherError) as caught:
        eu_small.ingest(tree, adapter=_eurlex(eu_small, batch=1))
    assert caught.value.code == "incomplete_enumeration"
    assert len(spills) == 1 and len(spills[0]) > 0  # the first batch's versions were spilled
    assert spills[0]._file.closed
    assert snapshot(tree.root) == before
    assert not (tree.root / STAGING).exists() and tree.evidence.staging_entries() == []
