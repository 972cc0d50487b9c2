"""Enumerations prove their completeness; held bodies are revalidated; malformed answers are
retried (issue #16, acquisition).

Every fault of the replay publisher has one expected typed outcome, and each test checks
"nothing lost, nothing unreported": a refused run leaves the tree byte-identical, an accepted
one reports every withdrawal and change it makes and the tree still verifies.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import Any

import pytest

from corpus_tree import CorpusTree
from corpus_tree.verify import verify_tree
from corpus_tree.writer import WithdrawalGuard
from legal.errors import CorpusError, LexError, PublisherError
from legal.ids import Publisher
from publishers.eurlex import EurlexScope
from publishers.http import Paging
from publishers.ingest import ingest
from publishers.replay.app import CHANGED_MARKER
from tests.publishers.conftest import NOW, Harness, snapshot

LATER = NOW + _dt.timedelta(days=1)
#: which query each publisher's enumeration faults hit: the Legilux catalogue, the EUR-Lex
#: consolidated versions (their COUNT queries are never faulted)
TARGET = {Publisher.LEGILUX: "?titleShort", Publisher.EURLEX: "act_consolidated_based_on_resource_legal ?work"}


def _seeded(small: Harness, tmp_path: Path) -> tuple[CorpusTree, dict[str, str]]:
    tree = CorpusTree.create(tmp_path / "t")
    small.ingest(tree)
    return tree, snapshot(tree.root)


def _refused(small: Harness, tree: CorpusTree, before: dict[str, str], error: type[LexError] = PublisherError,
             **kwargs: Any) -> LexError:
    with pytest.raises(error) as info:
        small.ingest(tree, now=LATER, **kwargs)
    assert snapshot(tree.root) == before  # nothing lost: the tree is byte-identical
    return info.value


def _current(tree: CorpusTree) -> int:
    return sum(not v.is_withdrawn for v in tree.iter_versions())


# -- enumeration completeness -------------------------------------------------------------------


def test_an_empty_catalogue_withdraws_nothing(lu_small: Harness, tmp_path: Path) -> None:
    small = lu_small
    tree, before = _seeded(small, tmp_path)
    held = _current(tree)
    small.replay.set_faults(empty_catalogue=True)
    error = _refused(small, tree, before, CorpusError)
    assert error.code == "empty_enumeration" and str(held) in error.message
    # explicitly allowed: every version withdrawn, none deleted, each one reported
    report = small.ingest(tree, now=LATER, guard=WithdrawalGuard(allow=held))
    assert report.withdrawals == held and report.events["withdrawn_from_source"] == held
    assert len(list(tree.iter_versions())) == held and _current(tree) == 0
    assert verify_tree(tree.root).ok


def test_an_empty_eurlex_catalogue_cannot_describe_the_scope(eu_small: Harness, tmp_path: Path) -> None:
    """EUR-Lex enumerates the works its scope names: a publisher that knows none of them is
    ``publisher_metadata_unavailable`` (naming the work), before any withdrawal is considered."""
    tree, before = _seeded(eu_small, tmp_path)
    eu_small.replay.set_faults(empty_catalogue=True)
    error = _refused(eu_small, tree, before)
    assert error.code == "publisher_metadata_unavailable" and "celex/3" in (error.subject or "")


def test_an_empty_catalogue_is_refused_before_any_body_request(lu_small: Harness, tmp_path: Path) -> None:
    tree, before = _seeded(lu_small, tmp_path)
    lu_small.replay.set_faults(empty_catalogue=True)
    files = lu_small.replay.stats["files"]
    _refused(lu_small, tree, before, CorpusError, revalidate=True)
    assert lu_small.replay.stats["files"] == files


def test_more_withdrawals_than_the_tolerated_share_fail_closed(lu_small: Harness, tmp_path: Path) -> None:
    tree, before = _seeded(lu_small, tmp_path)
    pvids = sorted({v.publisher_version_identifier for v in tree.iter_versions()})[:3]  # 3 of 35: > 5 %
    lu_small.replay.set_faults(withdrawn=pvids)
    error = _refused(lu_small, tree, before, CorpusError)
    assert error.code == "withdrawal_guard" and "3 of 35" in error.message
    report = lu_small.ingest(tree, now=LATER, guard=WithdrawalGuard(allow=3))
    assert report.events == {"withdrawn_from_source": 3} and report.withdrawals == 3


def test_one_withdrawal_within_the_share_passes(lu_small: Harness, tmp_path: Path) -> None:
    tree, _ = _seeded(lu_small, tmp_path)
    pvid = sorted(v.publisher_version_identifier for v in tree.iter_versions())[0]  # 1 of 35 <= 5 %
    lu_small.replay.set_faults(withdrawn=[pvid])
    report = lu_small.ingest(tree, now=LATER)
    assert report.events == {"withdrawn_from_source": 1} and report.withdrawals == 1


def test_a_narrower_eurlex_scope_never_withdraws_works_outside_it(eu_small: Harness, tmp_path: Path) -> None:
    tree, _ = _seeded(eu_small, tmp_path)
    narrow = EurlexScope.of(["32019R0401"])
    report = ingest(eu_small.adapter(), tree, scope=narrow, now=LATER, durable=False)
    assert report.events == {} and report.withdrawals == 0
    assert _current(tree) == len(list(tree.iter_versions()))  # the GDPR versions stay current
    assert verify_tree(tree.root).ok


@pytest.mark.parametrize(("fault", "code"), [
    ({"truncate_enumeration": 1}, "incomplete_enumeration"),
    ({"duplicate_rows": 1}, "duplicate_rows"),
])
def test_truncated_or_duplicated_answers_are_caught(small: Harness, tmp_path: Path, fault: dict[str, int],
                                                    code: str) -> None:
    tree, before = _seeded(small, tmp_path)
    small.replay.set_faults(enumeration_target=TARGET[small.publisher], **fault)
    error = _refused(small, tree, before)
    assert error.code == code
    assert small.replay.stats[f"fault_{next(iter(fault))}"] == 1
    assert isinstance(error, PublisherError) and error.retryable  # a later run may succeed
    report = small.ingest(tree, now=LATER)  # the fault was one answer: the next run is complete
    assert report.events == {}


SMALL_PAGES = {"catalogue": Paging(page_size=8, max_rows=20000), "manifestations": Paging(page_size=8)}


def test_unstable_paging_is_caught_by_the_overlap(lu_small: Harness, tmp_path: Path) -> None:
    tree, before = _seeded(lu_small, tmp_path)
    lu_small.replay.set_faults(enumeration_target=TARGET[Publisher.LEGILUX], unstable_paging=1)
    error = _refused(lu_small, tree, before, adapter=lu_small.adapter(**SMALL_PAGES))
    assert error.code == "unstable_paging" and "rows moved between pages" in error.message
    # paged in small pages without the fault: the same result as one page (nothing lost)
    report = lu_small.ingest(tree, now=LATER, adapter=lu_small.adapter(**SMALL_PAGES))
    assert report.events == {} and report.versions == 35


def test_unstable_paging_without_overlap_is_still_caught(lu_small: Harness, tmp_path: Path) -> None:
    """Without the overlap, the swapped boundary reads one row twice (and loses its neighbour):
    the duplicate check (and the COUNT) still refuse the run."""
    tree, before = _seeded(lu_small, tmp_path)
    lu_small.replay.set_faults(enumeration_target=TARGET[Publisher.LEGILUX], unstable_paging=1)
    pages = {"catalogue": Paging(page_size=8, max_rows=20000, overlap=0)}
    error = _refused(lu_small, tree, before, adapter=lu_small.adapter(**pages))
    assert error.code == "duplicate_rows"


# -- malformed answers --------------------------------------------------------------------------


def test_malformed_answers_are_retried_with_bounded_backoff(small: Harness, tmp_path: Path) -> None:
    tree, before = _seeded(small, tmp_path)
    small.replay.set_faults(malformed_sparql=2, target="sparql")
    report = small.ingest(tree, now=LATER)
    assert report.events == {} and report.retries == 2
    assert small.sleeps[-2:] == [1.0, 2.0]  # the policy's backoff, 1 s · 2^(n-1)
    assert snapshot(tree.root) == before


def test_malformed_answers_past_the_budget_are_a_typed_failure_naming_the_query(
        small: Harness, tmp_path: Path) -> None:
    tree, before = _seeded(small, tmp_path)
    small.replay.set_faults(malformed_sparql=3, target="sparql")
    error = _refused(small, tree, before)
    assert error.code == "enumeration_parser_failure" and "after 3 attempt(s)" in error.message
    assert error.subject and ("Legilux" in error.subject or "of 3" in error.subject)
    assert isinstance(error, PublisherError) and error.retryable


# -- change detection ---------------------------------------------------------------------------


def _observations(tree: CorpusTree) -> dict[tuple[str, str], list[tuple[str, str]]]:
    return {(v.lex_id, e.language): [(o.file, o.sha256) for o in e.observations]
            for v in tree.iter_versions() for e in v.expressions}


def test_a_changed_body_is_appended_with_an_event_never_overwritten(small: Harness, tmp_path: Path) -> None:
    tree, _ = _seeded(small, tmp_path)
    old = _observations(tree)
    small.replay.set_faults(changed_bodies=["*"])
    quiet = small.ingest(tree, now=LATER)  # not revalidating: a held body is not asked again
    assert quiet.events == {} and quiet.bodies_revalidated == 0
    report = small.ingest(tree, now=LATER, revalidate=True)
    assert report.bodies_changed > 0 and report.bodies_revalidated >= report.bodies_changed
    assert report.events == {"metadata_revised": report.bodies_changed}
    new = _observations(tree)
    grown = [k for k in new if new[k] != old[k]]
    assert len(grown) == report.bodies_changed
    for key in grown:
        assert new[key][: len(old[key])] == old[key] and len(new[key]) == len(old[key]) + 1  # appended
        file, sha = new[key][-1]
        assert tree.evidence.read(sha).endswith(CHANGED_MARKER) and file in {f for f, _ in old[key]}
        for _, held in old[key]:
            assert tree.evidence.has(held)  # the old bytes stay
    events = [e for v in tree.iter_versions() for e in v.events if e.event.value == "metadata_revised"]
    assert all(e.detail and ".observations." in e.detail for e in events)
    assert verify_tree(tree.root).ok
    # asked again with nothing changed since: 304s, nothing written
    small.replay.set_faults(changed_bodies=[])
    before = snapshot(tree.root)
    again = small.ingest(tree, now=LATER + _dt.timedelta(days=1), revalidate=True)
    assert again.events == {} and again.bodies_changed == 0
    assert again.bodies_unchanged == again.bodies_revalidated - again.revalidation_failures
    assert snapshot(tree.root) == before


def test_revalidation_of_unchanged_bodies_is_conditional(lu_small: Harness, tmp_path: Path) -> None:
    tree, before = _seeded(lu_small, tmp_path)
    bodies = lu_small.replay.stats["bodies"]
    report = lu_small.ingest(tree, now=LATER, revalidate=True)
    assert report.bodies_revalidated > 0 and report.bodies_unchanged == report.bodies_revalidated
    assert lu_small.replay.stats["bodies"] == bodies  # every answer a 304: no body sent
    assert snapshot(tree.root) == before


# -- temporary files and disk full at the ingest edge ---------------------------------------------


def test_bodies_are_staged_in_the_store_never_in_tmpdir(lu_small: Harness, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    import publishers.ingest as ingest_module

    tmpdir = tmp_path / "tmpdir"
    tmpdir.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmpdir))
    tree = CorpusTree.create(tmp_path / "t")
    seen: list[Path] = []
    real = ingest_module._StagedBodies.put

    def spy(self: Any, sha256: str, body: bytes) -> None:
        real(self, sha256, body)
        seen.append(Path(self[sha256]).parent)  # the staging directory the body was written to

    monkeypatch.setattr(ingest_module._StagedBodies, "put", spy)
    report = ingest(lu_small.adapter(), tree, now=NOW, durable=False)
    assert report.bodies_new > 0 and seen
    assert all(s.parent == tree.evidence.staging_root() for s in seen)
    assert list(tmpdir.iterdir()) == [] and not tree.evidence.staging_root().exists()


def test_disk_full_while_staging_a_body_is_typed(lu_small: Harness, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    import errno

    import publishers.ingest as ingest_module
    from cli.main import main

    def full(self: Any, sha256: str, body: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(ingest_module._StagedBodies, "put", full)  # where a fetched body is staged
    tree = CorpusTree.create(tmp_path / "t")
    before = snapshot(tree.root)
    code = main(["ingest", "run", "--publisher", "lu-legilux", "--replay-url", lu_small.base_url,
                 "--tree", str(tree.root)])
    err = capsys.readouterr().err
    assert code == 2 and "[corpus/disk_full]" in err and "Traceback" not in err
    assert snapshot(tree.root) == before
