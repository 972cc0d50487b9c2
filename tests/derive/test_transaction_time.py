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
from derive.events import first_observed, first_sighting, instant, visibility_rows
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
    assert [e.event.value for e in versions[ORIGINAL].events] == ["first_sighting"]
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
        (ORIGINAL, 1, "first_sighting", None, _at(0), None),
        (CONSOLIDATED, 1, "first_sighting", "withdrawn_from_source", _at(1), _at(2)),
        (CONSOLIDATED, 2, "resighted", None, _at(3), None),
    ]
    assert [r["valid_to_exclusive"] for r in rows] == [_dt.date(2019, 3, 14), None, None]  # EU valid_to inclusive


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


def _event(name: str, day: int) -> dict[str, str]:
    return {"event": name, "observed_from": f"2026-09-{day:02d}T00:00:00Z"}


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
