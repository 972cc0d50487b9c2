"""Ingest fetches each version's bodies when the writer reaches it (issue #13, ADR 0037).

The plan and the withdrawal guard still see the complete listing before any body request; the
fetched observations of a version go into its record, staged at once, and are not held for the
run; a failure at the last version, after earlier records were staged, leaves the tree as it was;
the listing is freed before the commit (ADR 0048 addendum).
"""

from __future__ import annotations

import gc
import os
from pathlib import Path
from typing import Any

import pytest

from corpus_tree import CorpusTree
from corpus_tree import txn as txn_module
from corpus_tree.manifest import build_manifest
from corpus_tree.model import ObservationInput, VersionInput
from corpus_tree.txn import STAGING
from corpus_tree.writer import WithdrawalGuard
from legal.errors import CorpusError, PublisherError
from publishers.protocol import FetchResult, Manifestation
from tests.publishers.conftest import Harness, snapshot
from tests.publishers.test_completeness import LATER, _refused, _seeded


class _Watched:
    """An adapter whose fetches run ``check`` first."""

    def __init__(self, inner: Any, check: Any) -> None:
        self.inner, self.check, self.publisher = inner, check, inner.publisher
        self.http = inner.http
        self.calls = 0

    def enumerate(self, scope: object | None = None) -> Any:
        return self.inner.enumerate(scope)

    def fetch(self, m: Manifestation) -> FetchResult:
        self.calls += 1
        self.check(self, m)
        result: FetchResult = self.inner.fetch(m)
        return result


def _live_observations() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is ObservationInput)


def test_a_version_s_observations_are_released_before_the_next_is_fetched(lu_small: Harness,
                                                                          target: CorpusTree) -> None:
    seen: list[int] = []
    adapter = _Watched(lu_small.adapter(), lambda a, m: seen.append(_live_observations()))
    already = _live_observations()  # held by earlier tests of the session, if any
    report = lu_small.ingest(target, adapter=adapter)
    assert report.manifestations_fetched >= 20 and adapter.calls == len(seen)
    # at a fetch, at most the previous version's observations are alive (the writer's loop
    # variable), never the run's: before, every fetched observation was held until the apply
    assert max(seen) - already <= 4, (already, seen)
    assert report.events["first_sighting"] == report.versions


def test_a_failure_at_the_last_version_after_records_were_staged_leaves_the_tree(lu_small: Harness,
                                                                                tmp_path: Path) -> None:
    tree = CorpusTree.create(tmp_path / "t")
    before = snapshot(tree.root)
    total = lu_small.ingest(CorpusTree.create(tmp_path / "count")).manifestations_fetched
    staged: list[int] = []

    def fail_last(a: _Watched, m: Manifestation) -> None:
        if a.calls == total:
            staging = tree.root / STAGING
            staged.append(sum(len(files) for _, _, files in os.walk(staging)))
            raise PublisherError("the publisher fell over", code="body_http_failure", subject=m.subject)

    with pytest.raises(PublisherError) as caught:
        lu_small.ingest(tree, adapter=_Watched(lu_small.adapter(), fail_last))
    assert caught.value.code == "body_http_failure" and "nothing committed" in caught.value.message
    assert staged and staged[0] > 0  # records of earlier versions were on disk, in staging
    assert snapshot(tree.root) == before
    assert not (tree.root / STAGING).exists()


def test_the_withdrawal_guard_fires_before_any_body_request(lu_small: Harness, tmp_path: Path) -> None:
    tree, before = _seeded(lu_small, tmp_path)
    pvids = sorted({v.publisher_version_identifier for v in tree.iter_versions()})[:3]  # 3 of 35: > 5 %
    lu_small.replay.set_faults(withdrawn=pvids)
    files = lu_small.replay.stats["files"]
    error = _refused(lu_small, tree, before, CorpusError, revalidate=True)
    assert error.code == "withdrawal_guard"
    assert lu_small.replay.stats["files"] == files
    report = lu_small.ingest(tree, now=LATER, guard=WithdrawalGuard(allow=3), revalidate=True)
    assert report.withdrawals == 3 and report.bodies_revalidated > 0


def _live_versions() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is VersionInput)


@pytest.mark.parametrize(("harness", "revalidate"), [("lu_small", False), ("eu_small", False), ("lu_small", True)])
def test_the_listing_is_freed_before_the_commit(harness: str, revalidate: bool, target: CorpusTree,
                                                request: pytest.FixtureRequest,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """No enumerated version is alive when the ingest's transaction commits, fresh or re-ingested
    (with ``revalidate``, the rechecks are dropped too): the run hands the listing over to the
    writer, which drops it once its versions are staged (issue #13)."""
    h: Harness = request.getfixturevalue(harness)
    already = _live_versions()  # held by the session's replay or earlier tests, if any
    at_commit: list[int] = []
    real_commit = txn_module.Stage.commit

    def commit(self: txn_module.Stage, **kw: Any) -> txn_module.CommitReport:
        at_commit.append(_live_versions() - already)
        return real_commit(self, **kw)

    monkeypatch.setattr(txn_module.Stage, "commit", commit)
    first = h.ingest(target)
    again = h.ingest(target, now=LATER, revalidate=revalidate)
    assert first.versions >= 5 and first.events["first_sighting"] == first.versions
    assert again.versions == first.versions and (again.bodies_revalidated > 0) is revalidate
    # before: every enumerated version was alive at both commits (the listing, the observer's versions)
    assert at_commit == [0, 0], (at_commit, first.versions)


def test_the_listing_is_released_version_by_version(lu_small: Harness, target: CorpusTree) -> None:
    """At each fetch only the version being applied (and the writer's previous one) is alive: the
    listing is spilled as soon as it is enumerated and read back one version at a time (ADR 0083)."""
    seen: list[int] = []
    adapter = _Watched(lu_small.adapter(), lambda a, m: seen.append(_live_versions()))
    already = _live_versions()
    report = lu_small.ingest(target, adapter=adapter)
    assert report.versions >= 30 and len(seen) == adapter.calls >= 20
    # before (mem25): the versions not yet applied were alive at each fetch, all of them at the first
    assert max(seen) - already <= 3, (already, seen)


def test_a_re_ingest_holds_no_string_per_lex_id(lu_small: Harness, target: CorpusTree,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The lex ids a re-ingest plans with (the guard's set) and those the writer collects for its
    withdrawals are a byte per version of the tree's summaries (:class:`corpus_tree.tree.ListedLexIds`),
    not strings: every version listed again is in them (issue #13, mem28; ADR 0133: before, the very
    strings the summaries held)."""
    import corpus_tree.writer as writer_module
    import publishers.ingest as ingest_module
    from corpus_tree.tree import ListedLexIds

    first = lu_small.ingest(target)
    shared: dict[str, list[tuple[int, bool]]] = {}

    def watched(where: str, real: Any) -> Any:
        def planned(enumeration: Any, existing: Any, enumerated: Any) -> Any:
            held = list(existing)
            shared.setdefault(where, []).append(
                (sum(1 for s in held if s.lex_id in enumerated), isinstance(enumerated, ListedLexIds)))
            return real(enumeration, held, enumerated)
        return planned

    monkeypatch.setattr(ingest_module, "planned_withdrawals", watched("plan", ingest_module.planned_withdrawals))
    monkeypatch.setattr(writer_module, "planned_withdrawals", watched("apply", writer_module.planned_withdrawals))
    again = lu_small.ingest(target, now=LATER)
    assert again.versions == first.versions >= 30
    # (summaries enumerated again, held as a ListedLexIds)
    assert shared == {"plan": [(first.versions, True)], "apply": [(first.versions, True)]}


def _live_parts_and_shared() -> tuple[int, int]:
    """Live manifest fold parts (each holds a row per version and a sha256 per body) and shared values
    still held by a spilled listing (a work's ``publisher_metadata``)."""
    from corpus_tree.manifest import PublisherPart
    from publishers.spill import SpilledListing

    gc.collect()
    objects = gc.get_objects()
    return (sum(1 for o in objects if type(o) is PublisherPart),
            sum(len(o._table) for o in objects if isinstance(o, SpilledListing)))


def test_the_manifest_rows_and_the_listing_s_shared_values_are_not_held_at_the_commit(
        lu_small: Harness, eu_small: Harness, target: CorpusTree, monkeypatch: pytest.MonkeyPatch) -> None:
    """At the commit of an ingest into a tree that holds another publisher's versions, no manifest row
    is held in memory — neither the other publishers' fold (the tree's scan) nor the apply's own: both
    are rows of temporary databases — and the listing's shared values (a work's metadata entries) are
    dropped once its last version is observed (issue #13, ADR 0121). On ``main``: two fold parts and
    a metadata tuple per EUR-Lex work alive."""
    at_commit: list[tuple[int, int]] = []
    real_commit = txn_module.Stage.commit

    def commit(self: txn_module.Stage, **kw: Any) -> txn_module.CommitReport:
        at_commit.append(_live_parts_and_shared())
        return real_commit(self, **kw)

    before = target.root.joinpath("manifest.json").read_bytes()
    lu = lu_small.ingest(target)
    monkeypatch.setattr(txn_module.Stage, "commit", commit)
    eu = eu_small.ingest(target)
    assert lu.versions >= 30 and eu.versions >= 5 and eu.events["first_sighting"] == eu.versions
    assert at_commit == [(0, 0)], at_commit
    manifest = target.manifest()
    assert manifest != before and manifest["counts"]["versions"] == lu.versions + eu.versions
    assert sorted(manifest["publishers"]) == ["eu-eurlex", "lu-legilux"]
    assert manifest == build_manifest(target.works(), target.iter_versions(verify=False))
