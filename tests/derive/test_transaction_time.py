"""Transaction time in the dataset (docs/derive.md §6.6): first_observed, version_events, version_visibility.

Over a tree the corpus writer recorded on four nights from real fixture records
(:mod:`tests.derive.transaction_tree`: a version withdrawn and resighted), and over the real
fixture datasets (Legilux holds versions withdrawn by the publisher).
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from corpus_tree import CorpusTree, VersionRecord
from corpus_tree.records import Event
from derive.events import (
    first_observed,
    first_sighting,
    instant,
    valid_to_as_known,
    valid_to_change,
    visibility_rows,
)
from derive.parquet import TIMESTAMP, plain_batch
from tests.derive.conftest import read_jsonl
from tests.derive.transaction_tree import CONSOLIDATED, NIGHTS, ORIGINAL, SLUG, WORK_ID

UTC = _dt.UTC


def _at(night: int) -> _dt.datetime:
    return NIGHTS[night][0]


def _versions(tree: CorpusTree) -> dict[str, VersionRecord]:
    return {v.valid_from: v for v in tree.versions(SLUG)}


def test_the_tree_recorded_a_withdrawal_and_a_resighting(transaction_tree: CorpusTree) -> None:
    versions = _versions(transaction_tree)
    assert [(e.event.value, e.detail) for e in versions[ORIGINAL].events] == [
        ("first_sighting", None), ("interval_closed", "valid_to=2019-03-13")]
    assert [(e.event.value, e.observed_from) for e in versions[CONSOLIDATED].events] == [
        ("first_sighting", "2026-09-08T06:00:00Z"), ("withdrawn_from_source", "2026-09-15T06:00:00Z"),
        ("resighted", "2026-09-22T06:00:00Z")]


def test_visibility_gives_one_interval_per_cycle(transaction_dataset: Path) -> None:
    table = pq.read_table(transaction_dataset / "version_visibility.parquet")
    assert table.schema.field("known_from").type == TIMESTAMP
    rows = sorted(table.to_pylist(), key=lambda r: (r["valid_from"], r["interval"]))
    got = [(r["valid_from"].isoformat(), r["interval"], r["opened_by"], r["closed_by"], r["known_from"], r["known_to"])
           for r in rows]
    assert got == [
        (ORIGINAL, 1, "first_sighting", "interval_closed", _at(0), _at(1)),
        (ORIGINAL, 2, "interval_closed", None, _at(1), None),
        (CONSOLIDATED, 1, "first_sighting", "withdrawn_from_source", _at(1), _at(2)),
        (CONSOLIDATED, 2, "resighted", None, _at(3), None),
    ]
    # the valid time as known in each interval (EUR-Lex ends are inclusive)
    assert [(r["valid_to"], r["valid_to_exclusive"]) for r in rows] == [
        (None, None), (_dt.date(2019, 3, 13), _dt.date(2019, 3, 14)), (None, None), (None, None)]


def test_version_events_are_the_records_events_verbatim(transaction_tree: CorpusTree,
                                                        transaction_dataset: Path) -> None:
    rows = pq.read_table(transaction_dataset / "version_events.parquet").to_pylist()
    expected = [(v.lex_id, seq, e.event.value, e.observed_from, e.scope, e.detail)
                for v in transaction_tree.versions(SLUG) for seq, e in enumerate(v.events)]
    assert sorted((r["lex_id"], r["seq"], r["event"], r["observed_from"].strftime("%Y-%m-%dT%H:%M:%SZ"),
                   r["scope"], r["detail"]) for r in rows) == sorted(expected)
    assert {r["work_id"] for r in rows} == {WORK_ID}


def test_first_observed_is_when_the_version_and_its_body_were_both_held(transaction_dataset: Path) -> None:
    rows = read_jsonl(transaction_dataset / "provisions.jsonl")
    by_version = {(r["valid_from"], r["first_observed"]) for r in rows}
    assert by_version == {(ORIGINAL, "2026-09-01T06:00:00Z"), (CONSOLIDATED, "2026-09-08T06:00:00Z")}
    table = pq.read_table(transaction_dataset / "provisions.parquet")
    assert table.schema.field("first_observed").type == TIMESTAMP
    assert plain_batch(table) == rows  # the Parquet instants read back as the JSONL strings


def test_the_fixture_datasets_carry_every_event_and_their_withdrawals(imported_trees: Any, fixture_dataset: Any) -> None:
    for name in ("eu", "lu"):
        tree, out = imported_trees[name], fixture_dataset[name][0]
        events = pq.read_table(out / "version_events.parquet", columns=["lex_id", "seq"]).to_pylist()
        visibility = pq.read_table(out / "version_visibility.parquet").to_pylist()
        records = [v for w in tree.works() for v in tree.versions(w.slug)]
        assert len(events) == sum(len(v.events) for v in records)
        last = {r["lex_id"]: r for r in sorted(visibility, key=lambda r: r["interval"])}
        assert set(last) == {v.lex_id for v in records}
        current = {v.lex_id: v.valid_to for v in records}
        assert all(str(r["valid_to"]) == str(current[k]) for k, r in last.items())  # the last is what we hold now
        withdrawn = {v.lex_id for v in records if v.is_withdrawn}
        assert {k for k, r in last.items() if r["known_to"] is not None} == withdrawn
        if name == "lu":
            assert len(withdrawn) == 8
        provisions = pq.read_table(out / "provisions.parquet", columns=["first_observed"]).column(0)
        assert provisions.null_count == 0


# -- the pure functions --------------------------------------------------------------------


def _record(transaction_tree: CorpusTree, events: list[dict[str, str]]) -> VersionRecord:
    data = dict(_versions(transaction_tree)[CONSOLIDATED].data)
    return VersionRecord.from_dict({**data, "events": events})


def _event(name: str, day: int, detail: str | None = None, scope: str | None = None) -> dict[str, str]:
    out = {"event": name, "observed_from": f"2026-09-{day:02d}T00:00:00Z"}
    if detail is not None:
        out["detail"] = detail
    if scope is not None:
        out["scope"] = scope
    return out


@pytest.mark.parametrize(("events", "intervals"), [
    ([("first_sighting", 1)], [(1, None)]),
    ([("first_sighting", 1), ("metadata_revised", 2), ("withdrawn_from_source", 3)], [(1, 3)]),
    ([("first_sighting", 1), ("withdrawn_from_source", 3), ("resighted", 5), ("withdrawn_from_source", 7),
      ("resighted", 9)], [(1, 3), (5, 7), (9, None)]),
    ([("first_sighting", 1), ("resighted", 2)], [(1, None)]),                          # nothing to reopen
    ([("first_sighting", 1), ("withdrawn_from_source", 3), ("withdrawn_from_source", 4)], [(1, 3)]),
    ([("metadata_revised", 2), ("withdrawn_from_source", 3)], [(2, 3)]),             # a record starts held
    ([("withdrawn_from_source", 3), ("resighted", 4)], [(4, None)]),
])
def test_visibility_rows(transaction_tree: CorpusTree, events: list[tuple[str, int]],
                         intervals: list[tuple[int, int | None]]) -> None:
    rows = visibility_rows(_record(transaction_tree, [_event(n, d) for n, d in events]))
    day = "2026-09-{:02d}T00:00:00Z".format
    assert [(r["known_from"], r["known_to"]) for r in rows] == [(day(a), None if b is None else day(b))
                                                                for a, b in intervals]
    assert [r["interval"] for r in rows] == list(range(1, len(intervals) + 1))


def test_first_observed_is_the_later_of_sighting_and_body(transaction_tree: CorpusTree) -> None:
    record = _record(transaction_tree, [_event("metadata_revised", 3), _event("first_sighting", 5)])
    assert first_sighting(record) == "2026-09-05T00:00:00Z"
    observation = record.expressions[0].observations[0]
    assert first_observed(record, observation) == "2026-09-08T06:00:00Z"  # the body came later
    early = _record(transaction_tree, [_event("first_sighting", 20)])
    assert first_observed(early, observation) == "2026-09-20T00:00:00Z"   # the version came later


@pytest.mark.parametrize(("text", "expected"), [
    ("2026-09-01T06:00:00Z", "2026-09-01T06:00:00Z"),
    ("2026-09-01T08:00:00+02:00", "2026-09-01T06:00:00Z"),
    ("2026-09-01T06:00:00", None),
    ("not a time", None),
    (None, None),
])
def test_instants(text: str | None, expected: str | None) -> None:
    assert instant(text) == expected


def test_an_empty_dataset_has_empty_transaction_tables(tmp_path: Path) -> None:
    from derive.dataset import build_dataset

    out = tmp_path / "ds"
    build_dataset(CorpusTree.create(tmp_path / "empty"), out, use_cache=False)
    for name, column in (("version_events.parquet", "observed_from"), ("version_visibility.parquet", "known_from")):
        table = pq.read_table(out / name)
        assert table.num_rows == 0 and pa.types.is_timestamp(table.schema.field(column).type)


@pytest.mark.parametrize(("name", "detail", "scope", "change"), [
    ("interval_closed", "valid_to=2016-05-03", "version", (None, "2016-05-03")),               # the writer's
    ("validity_revised", "valid_to: 2016-05-03 -> 2016-05-10", "version", ("2016-05-03", "2016-05-10")),
    ("validity_revised", "valid_to: 2016-05-10 -> null", "version", ("2016-05-10", None)),
    ("interval_closed", "field=valid_to;new=2003-12-22", "version", (None, "2003-12-22")),      # the exports'
    ("validity_revised", "field=valid_to;old=2029-03-28;new=2015-12-10", "version", ("2029-03-28", "2015-12-10")),
    ("validity_revised", "field=valid_to;old=2029-03-28;new=2015-12-10", "expression:en:2015-11-25", None),
    ("validity_revised", "field=valid_to;new=2015-12-10", "version", None),                      # old end unknown
    ("validity_revised", "valid_to: soon -> 2016-05-10", "version", None),
    ("validity_revised", "field=valid_to;old=2029-02-30;new=2015-12-10", "version", None),      # not a date
    ("metadata_revised", "fields=raw", "version", None),
    ("interval_closed", "closed by the publisher", "version", (None, None)),                   # open before it anyway
])
def test_valid_to_change(name: str, detail: str, scope: str, change: tuple[str | None, str | None] | None) -> None:
    assert valid_to_change(Event.from_dict({"event": name, "observed_from": "2026-09-01T00:00:00Z", "scope": scope,
                                            "detail": detail})) == change


def test_valid_to_as_known_reads_the_events_backwards(transaction_tree: CorpusTree) -> None:
    record = VersionRecord.from_dict({**_versions(transaction_tree)[CONSOLIDATED].data, "valid_to": "2016-06-01",
                                      "events": [_event("first_sighting", 1),
                                                 _event("interval_closed", 2, "valid_to=2016-05-03", "version"),
                                                 _event("metadata_revised", 3, "fields=raw", "version"),
                                                 _event("validity_revised", 4, "valid_to: 2016-05-03 -> 2016-06-01",
                                                        "version")]})
    assert valid_to_as_known(record) == [None, "2016-05-03", "2016-05-03", "2016-06-01"]
    rows = visibility_rows(record)
    assert [(r["known_from"][8:10], r["known_to"] and r["known_to"][8:10], r["valid_to"], r["valid_to_exclusive"])
            for r in rows] == [("01", "02", None, None), ("02", "04", "2016-05-03", "2016-05-04"),
                               ("04", None, "2016-06-01", "2016-06-02")]
    assert [(r["opened_by"], r["closed_by"]) for r in rows] == [
        ("first_sighting", "interval_closed"), ("interval_closed", "validity_revised"), ("validity_revised", None)]


def test_an_end_revised_while_withdrawn_shows_when_resighted(transaction_tree: CorpusTree) -> None:
    record = VersionRecord.from_dict({**_versions(transaction_tree)[CONSOLIDATED].data, "valid_to": "2016-05-03",
                                      "events": [_event("first_sighting", 1), _event("withdrawn_from_source", 2),
                                                 _event("interval_closed", 3, "valid_to=2016-05-03", "version"),
                                                 _event("resighted", 4)]})
    assert [(r["known_from"][8:10], r["valid_to"]) for r in visibility_rows(record)] == [
        ("01", None), ("04", "2016-05-03")]
