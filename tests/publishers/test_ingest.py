"""Ingest through the replay publisher with faults: all or nothing, typed errors naming the
record, transaction-time events, and no refetching."""

from __future__ import annotations

import datetime as _dt
from pathlib import Path

import pytest

from corpus_tree import CorpusTree
from corpus_tree.writer import WithdrawalGuard
from legal.errors import PublisherError
from legal.ids import Publisher
from publishers.eurlex.replay import CELEX_BASE
from publishers.http import Paging
from tests.publishers.conftest import NOW, Harness, snapshot

LATER = NOW + _dt.timedelta(days=1)
LU_STATE = "http://data.legilux.public.lu/eli/etat/leg/rgd/2001/10/18/n3/consolide/20191019"
EU_STATE = CELEX_BASE + "02016R0679-20160504"


def a_state(h: Harness) -> str:
    return LU_STATE if h.publisher is Publisher.LEGILUX else EU_STATE


def a_body(h: Harness, tree: CorpusTree) -> str:
    """The sha256 of a body of ``a_state`` (held in the store)."""
    for v in tree.iter_versions():
        if v.publisher_version_identifier == a_state(h):
            return next(o.sha256 for _, o in v.observations() if not o.held_elsewhere)
    raise AssertionError("state not in tree")


def record_of(tree: CorpusTree, pvid: str) -> dict[str, object]:
    (v,) = [v for v in tree.iter_versions() if v.publisher_version_identifier == pvid]
    return v.to_dict()


def test_state_used_by_the_tests_exists(small: Harness, target: CorpusTree) -> None:
    small.ingest(target)
    assert record_of(target, a_state(small))["events"]


# -- retries ----------------------------------------------------------------------------------


def test_5xx_and_429_bursts_complete_and_waits_honour_retry_after(small: Harness, target: CorpusTree) -> None:
    small.replay.set_faults(burst=2, burst_status=503, rate_limit=2, retry_after=3)
    report = small.ingest(target, adapter=small.adapter(max_attempts=6))
    assert report.apply is not None and report.apply.records_written == report.versions
    assert small.sleeps == [1.0, 2.0, 3.0, 3.0]  # backoff 1, 2 for the 503s; Retry-After 3 for each 429
    assert report.retries == 4
    assert small.replay.stats["fault_burst"] == 2 and small.replay.stats["fault_rate_limit"] == 2


def test_retry_after_is_capped(lu_small: Harness, target: CorpusTree) -> None:
    lu_small.replay.set_faults(rate_limit=1, retry_after=120)
    lu_small.ingest(target)
    assert lu_small.sleeps == [30.0]


def test_slow_responses_past_the_timeout_are_retried(lu_small: Harness, target: CorpusTree) -> None:
    lu_small.replay.set_faults(slow=1, slow_seconds=1.5, target="files")
    adapter = lu_small.adapter(body_timeout=0.5)
    report = lu_small.ingest(target, adapter=adapter)
    assert report.retries == 1 and lu_small.replay.stats["fault_slow"] == 1
    assert report.apply is not None and report.apply.records_written == report.versions


# -- all or nothing ------------------------------------------------------------------------------


def test_permanent_failure_commits_nothing_and_names_the_record(small: Harness, tmp_path: Path) -> None:
    tree = CorpusTree.create(tmp_path / "t")
    small.ingest(tree)
    twin = a_state(small) + ("-bis" if small.publisher is Publisher.LEGILUX else "R(01)")
    small.replay.set_faults(same_day=[{"of": a_state(small), "identifier": twin}],
                            withdrawn=[next(v.publisher_version_identifier for v in tree.iter_versions()
                                            if v.publisher_version_identifier != a_state(small))],
                            not_found=[a_body(small, tree)])
    before = snapshot(tree.root)
    with pytest.raises(PublisherError) as info:
        small.ingest(tree, now=LATER, guard=WithdrawalGuard(allow=1))  # the withdrawal is not the point here
    assert info.value.code == "body_not_found"
    assert twin in (info.value.subject or "")
    assert snapshot(tree.root) == before


def test_gone_is_permanent_too(lu_small: Harness, target: CorpusTree, tmp_path: Path) -> None:
    probe = CorpusTree.create(tmp_path / "probe")
    lu_small.ingest(probe)
    lu_small.replay.set_faults(gone=[a_body(lu_small, probe)])
    before = snapshot(target.root)
    with pytest.raises(PublisherError) as info:
        lu_small.ingest(target)
    assert info.value.code == "body_gone" and LU_STATE in (info.value.subject or "")
    assert snapshot(target.root) == before


def test_lenient_mode_records_the_reason_instead(lu_small: Harness, target: CorpusTree, tmp_path: Path) -> None:
    probe = CorpusTree.create(tmp_path / "probe")
    lu_small.ingest(probe)
    lu_small.replay.set_faults(not_found=[a_body(lu_small, probe)])
    report = lu_small.ingest(target, strict=False)
    text = record_of(target, LU_STATE)["expressions"][0]["text"]  # type: ignore[index]
    assert text == {"available": False, "reason": "body_not_found",
                    "url": "https://legilux.public.lu/eli/etat/leg/rgd/2001/10/18/n3/consolide/20191019/fr"}
    assert report.text_reasons.get("body_not_found") == 1


def test_incomplete_enumeration_commits_nothing(lu_small: Harness, tmp_path: Path) -> None:
    tree = CorpusTree.create(tmp_path / "t")
    lu_small.ingest(tree)
    lu_small.replay.set_faults(withdrawn=[LU_STATE])  # would be a change, if anything were applied
    before = snapshot(tree.root)
    adapter = lu_small.adapter(catalogue=Paging(page_size=5, max_rows=10))
    with pytest.raises(PublisherError) as info:
        lu_small.ingest(tree, adapter=adapter, now=LATER)
    assert info.value.code == "incomplete_enumeration" and info.value.subject == "Legilux catalogue"
    assert snapshot(tree.root) == before


def test_sparql_outage_commits_nothing(eu_small: Harness, target: CorpusTree) -> None:
    eu_small.replay.set_faults(burst=10, target="sparql")
    before = snapshot(target.root)
    with pytest.raises(PublisherError) as info:
        eu_small.ingest(target)
    assert info.value.code == "enumeration_retry_exhausted" and info.value.retryable
    assert snapshot(target.root) == before


# -- truncation ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["digest", "length"])
def test_truncated_body_is_retried_and_the_stored_bytes_are_whole(mode: str, lu_small: Harness,
                                                                  target: CorpusTree) -> None:
    lu_small.replay.set_faults(truncate=1, truncate_mode=mode)
    report = lu_small.ingest(target)
    assert report.retries == 1 and lu_small.replay.stats["fault_truncate"] == 1
    for v in target.iter_versions():
        for _, o in v.observations():
            if not o.held_elsewhere:
                assert target.evidence.verify(o.sha256) == (True, o.size)


@pytest.mark.parametrize("mode", ["digest", "length"])
def test_a_body_truncated_on_every_attempt_is_never_stored(mode: str, lu_small: Harness,
                                                           target: CorpusTree) -> None:
    lu_small.replay.set_faults(truncate=4, truncate_mode=mode)
    before = snapshot(target.root)
    with pytest.raises(PublisherError) as info:
        lu_small.ingest(target)
    assert info.value.code == "body_retry_exhausted" and info.value.retryable
    assert snapshot(target.root) == before
    assert not list(target.evidence.iter_hashes())


# -- transaction time ------------------------------------------------------------------------------


def test_withdrawn_then_restored(small: Harness, target: CorpusTree) -> None:
    small.ingest(target)
    pvid = a_state(small)
    # EUR-Lex end dates are computed from the next state: withdrawing the consolidation
    # reopens the original state's interval (and restoring it closes it again).
    eu = small.publisher is Publisher.EURLEX
    reopened, closed = ({"validity_revised": 1}, {"interval_closed": 1}) if eu else ({}, {})
    small.replay.set_faults(withdrawn=[pvid])
    report = small.ingest(target, now=LATER, guard=WithdrawalGuard(allow=1))  # 1 of 5 EUR-Lex versions: > 5 %
    assert report.events == {"withdrawn_from_source": 1, **reopened}
    events = record_of(target, pvid)["events"]
    assert events[-1] == {"event": "withdrawn_from_source", "observed_from": "2026-12-02T06:00:00Z",  # type: ignore[index]
                          "scope": "version", "detail": "publisher record absent from the current enumeration"}
    small.replay.set_faults(withdrawn=[])
    report = small.ingest(target, now=LATER + _dt.timedelta(days=1))
    assert report.events == {"resighted": 1, **closed}
    assert record_of(target, pvid)["events"][-1]["event"] == "resighted"  # type: ignore[index]
    assert report.bodies_fetched == 0


def test_shuffled_enumeration_changes_nothing(small: Harness, target: CorpusTree) -> None:
    small.ingest(target)
    before = snapshot(target.root)
    small.replay.set_faults(shuffle_seed=7)
    report = small.ingest(target, now=LATER)
    assert report.apply is not None and not report.apply.wrote_anything and report.events == {}
    assert snapshot(target.root) == before


def test_a_new_same_day_state_gets_its_own_key_and_the_old_one_is_untouched(small: Harness,
                                                                          target: CorpusTree) -> None:
    small.ingest(target)
    old = record_of(target, a_state(small))
    old_path = target.version_dir(str(old["lex_id"]).split(":")[1], str(old["lex_id"]).split(":")[2])
    old_bytes = (old_path / "meta.json").read_bytes()
    twin = a_state(small) + ("-bis" if small.publisher is Publisher.LEGILUX else "R(01)")
    small.replay.set_faults(same_day=[{"of": a_state(small), "identifier": twin}])
    report = small.ingest(target, now=LATER)
    assert report.events == {"first_sighting": 1}
    new = record_of(target, twin)
    assert new["valid_from"] == old["valid_from"] and new["lex_id"] != old["lex_id"]
    assert str(new["lex_id"]).split(":")[2][:10] == old["valid_from"]
    assert (old_path / "meta.json").read_bytes() == old_bytes


def test_second_run_with_nothing_changed_downloads_no_body(small: Harness, target: CorpusTree) -> None:
    small.ingest(target)
    before = snapshot(target.root)
    sparql, files = small.replay.stats["sparql"], small.replay.stats["files"]
    second = small.ingest(target, now=LATER)
    assert second.manifestations_fetched == 0 and second.bodies_fetched == 0
    assert small.replay.stats["files"] == files  # not one body request
    assert second.requests == small.replay.stats["sparql"] - sparql  # only the enumeration
    assert second.events == {} and second.apply is not None and not second.apply.wrote_anything
    assert snapshot(target.root) == before


# -- bad publisher data -------------------------------------------------------------------------------


def _lu_triple(predicate: str, value: str) -> str:
    return f"<{LU_STATE}> <http://data.legilux.public.lu/resource/ontology/jolux#{predicate}> {value} ."


XSD_DATE = "<http://www.w3.org/2001/XMLSchema#date>"


@pytest.mark.parametrize(("faults", "code", "needle"), [
    ({"malformed_sparql": 3}, "enumeration_parser_failure", "not JSON"),
    ({"patch_remove": [_lu_triple("dateApplicability", f'"2019-10-19"^^{XSD_DATE}')]},
     "enumeration_parser_failure", "no jolux:dateApplicability"),
    ({"patch_remove": [_lu_triple("dateApplicability", f'"2019-10-19"^^{XSD_DATE}')],
      "patch_add": [_lu_triple("dateApplicability", '"20142209"')]},
     "enumeration_parser_failure", "'20142209'"),
    ({"patch_remove": [f"<{LU_STATE}/fr> <http://data.legilux.public.lu/resource/ontology/jolux#language> "
                       "<http://data.legilux.public.lu/resource/authority/language/FRA> ."],
      "patch_add": [f"<{LU_STATE}/fr> <http://data.legilux.public.lu/resource/ontology/jolux#language> "
                    "<http://data.legilux.public.lu/resource/authority/language/ITA> ."]},
     "unknown_language", "ITA"),
])
def test_bad_legilux_data_is_a_typed_error_and_nothing_is_committed(
        faults: dict[str, object], code: str, needle: str, lu_small: Harness, tmp_path: Path) -> None:
    tree = CorpusTree.create(tmp_path / "t")
    lu_small.ingest(tree)
    lu_small.replay.set_faults(**faults)
    before = snapshot(tree.root)
    with pytest.raises(PublisherError) as info:
        lu_small.ingest(tree, now=LATER)
    assert info.value.code == code and needle in info.value.message
    if code != "enumeration_parser_failure" or "not JSON" not in needle:
        assert info.value.subject == LU_STATE
    assert snapshot(tree.root) == before


def test_bad_eurlex_data_names_the_record(eu_small: Harness, target: CorpusTree) -> None:
    cdm = "http://publications.europa.eu/ontology/cdm#"
    from publishers.eurlex.replay import node

    state = node("02016R0679-20160504")
    eu_small.replay.set_faults(
        patch_remove=[f'<{state}> <{cdm}act_consolidated_date> "2016-05-04"^^{XSD_DATE} .'],
        patch_add=[f'<{state}> <{cdm}act_consolidated_date> "20160504" .'])
    before = snapshot(target.root)
    with pytest.raises(PublisherError) as info:
        eu_small.ingest(target)
    assert info.value.subject == EU_STATE and "20160504" in info.value.message
    assert snapshot(target.root) == before


def test_a_rerun_counts_no_text_reason_for_an_expression_the_tree_holds(lu_small: Harness, target: CorpusTree,
                                                                         tmp_path: Path) -> None:
    """Issue #13 (mem25): the languages the tree holds an observation of are noted by the plan, so
    ``text_reasons`` of a re-run count only the expressions still without any body (the one whose
    body the publisher no longer serves, asked again and failing again, and one with metadata only),
    not the ones it holds and does not fetch again."""
    probe = CorpusTree.create(tmp_path / "probe")
    lu_small.ingest(probe)
    lu_small.replay.set_faults(not_found=[a_body(lu_small, probe)])
    first = lu_small.ingest(target, strict=False)
    again = lu_small.ingest(target, now=LATER, strict=False)
    assert again.text_reasons == first.text_reasons == {"publisher_metadata_only": 1, "body_not_found": 1}
