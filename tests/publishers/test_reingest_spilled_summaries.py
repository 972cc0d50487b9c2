"""The re-ingest with the tree's summaries on disk (issue #13, ADR 0133): the plan made of the spilled
summaries is the plan made of the ``dict`` of them, and a re-ingest that fails part way leaves the tree
byte-identical, no staging and no open temporary file."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

import publishers.ingest as ingest_module
from corpus_tree import CorpusTree
from corpus_tree.tree import ListedLexIds, SpilledSummaries
from corpus_tree.txn import STAGING
from legal.errors import PublisherError
from publishers.spill import SpilledListing
from tests.publishers.conftest import Harness, snapshot


def _open_files() -> set[str]:
    fds = Path("/proc/self/fd")
    return {os.readlink(p) for p in fds.iterdir() if p.exists()} if fds.is_dir() else set()


def test_the_plan_of_the_spilled_summaries_is_the_dicts(small: Harness, tmp_path: Path) -> None:
    """Both publishers' fixture replays, a tree holding them: the plan (what to fetch, the languages
    observed, the listed lex ids) and the withdrawals are the same of a ``dict`` and of the spilled view."""
    tree = CorpusTree.create(tmp_path / "tree")
    small.ingest(tree)
    listing = small.adapter().enumerate(small.scope)
    versions = list(listing.enumeration.versions)
    drop = versions.pop()  # one the tree holds that the listing no longer names: a withdrawal
    publisher = small.publisher
    plain, _ = tree.publisher_summaries(publisher)
    spilled_listing = SpilledListing(list(versions), listing.manifestations, tmp_path)
    try:
        made = ingest_module._plan(publisher.value, spilled_listing, plain)
        with tree.caching():
            view, _ = tree.publisher_summaries(publisher)
            assert isinstance(view, SpilledSummaries)
            spilled = ingest_module._plan(publisher.value, spilled_listing, view)
            assert isinstance(spilled.enumerated, ListedLexIds) and type(made.enumerated) is set
            assert (spilled.fetch, spilled.observed, spilled.total) == (made.fetch, made.observed, made.total)
            assert all((k in spilled.enumerated) == (k in made.enumerated) for k in plain)
            assert len(spilled.enumerated) == len(made.enumerated) == len(versions)  # type: ignore[arg-type]
            from corpus_tree.writer import planned_withdrawals
            enumeration = listing.enumeration
            withdrawn = planned_withdrawals(enumeration, view.values(), spilled.enumerated)
            assert withdrawn == planned_withdrawals(enumeration, plain.values(), made.enumerated)
            assert len(withdrawn[0]) == 1 and withdrawn[0][0].split(":")[1] == drop.slug
    finally:
        spilled_listing.close()


@pytest.mark.parametrize("at", [0, 2])
def test_a_reingest_failing_part_way_leaves_the_tree_and_no_temporary_file(
        small: Harness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at: int) -> None:
    tree = CorpusTree.create(tmp_path / "tree")
    small.ingest(tree)
    before = snapshot(tree.root)
    files = _open_files()
    call = ingest_module._Observer.__call__

    def failing(self: Any, v: Any) -> Any:
        if self.next == at:
            raise PublisherError("part way", code="fetch_failed", subject="x")
        return call(self, v)

    monkeypatch.setattr(ingest_module._Observer, "__call__", failing)
    with pytest.raises(PublisherError, match="part way"):
        small.ingest(tree)
    assert snapshot(tree.root) == before
    staging = tree.root / STAGING
    assert not staging.exists() or not any(staging.iterdir())
    assert tree._summaries is None
    assert {f for f in _open_files() - files if "(deleted)" in f} == set()  # the summaries' database is closed
