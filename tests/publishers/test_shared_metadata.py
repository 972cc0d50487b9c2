"""Discovery metadata held once per enumeration (issue #13, ADR 0037).

The works of a corpus repeat their discovery metadata (a EuroVoc descriptor is the same entry on
every work it classifies); an adapter's enumeration holds each distinct entry once and gives all
the versions of a work one tuple. Values are unchanged: only what is shared differs.
"""

from __future__ import annotations

from corpus_tree.import_spill import Spill
from corpus_tree.model import VersionInput
from corpus_tree.writer import _canonical_list, _Memo
from publishers.legilux.adapter import LegiluxAdapter
from publishers.legilux.listing_spill import CatalogueSpill, FileIndex, WorkTable
from publishers.protocol import SharedEntries, canonical_metadata
from tests.publishers.conftest import Harness


def _entry(identifier: str, label: str) -> dict[str, str]:
    return {"kind": "eurovoc", "identifier": identifier, "language": "en", "label": label,
            "source_uri": identifier}


def test_equal_entries_of_two_works_are_one_object() -> None:
    share: SharedEntries = {}
    a = canonical_metadata([_entry("x:1", "data"), _entry("x:2", "privacy")], subject="a", share=share)
    b = canonical_metadata([_entry("x:2", "privacy"), _entry("x:3", "health")], subject="b", share=share)
    assert a[1] is b[0]  # the same entry, held once
    assert len(share) == 3
    # the same values as without sharing, in the same order
    assert a == canonical_metadata([_entry("x:1", "data"), _entry("x:2", "privacy")], subject="a")
    assert b == canonical_metadata([_entry("x:2", "privacy"), _entry("x:3", "health")], subject="b")


def test_legilux_versions_of_a_work_share_one_metadata_tuple() -> None:
    adapter = LegiluxAdapter.__new__(LegiluxAdapter)  # _versions reads neither HTTP nor config here
    work = "http://data.legilux.public.lu/eli/etat/leg/loi/2006/07/31/n2/jo"
    rows = [{"c": f"{work}/consolidation/{d}", "work": work, "from": f"{2006 + i}-01-01", "type": "x/LOI"}
            for i, d in enumerate(("20060801", "20100101", "20200101"))]
    versions: list[VersionInput] = []
    with Spill() as spill:
        works = WorkTable(spill)
        catalogue = CatalogueSpill(spill, works)
        catalogue.add_page(rows)
        catalogue.end()
        catalogue.close()
        files = FileIndex(spill)
        files.end()
        works.extend_metadata(work, [_entry("x:1", "data"), _entry("x:2", "privacy")])
        adapter._versions(catalogue, files, works, lambda v, _: versions.append(v))
    first = versions[0].publisher_metadata
    assert len(versions) == 3 and len(first) == 2
    assert all(v.publisher_metadata is first for v in versions)


def test_eurlex_enumeration_holds_each_distinct_entry_once(eu_full: Harness) -> None:
    listing = eu_full.adapter().enumerate(eu_full.scope)
    by_value: dict[tuple[tuple[str, str], ...], int] = {}
    for v in listing.enumeration.versions:
        for entry in v.publisher_metadata:
            key = tuple(sorted(entry.items()))
            held = by_value.setdefault(key, id(entry))
            assert held == id(entry), f"{v.slug}: an entry equal to another work's is a second object"
    assert len(by_value) < sum(len(v.publisher_metadata) for v in listing.enumeration.versions)


def test_the_writer_memo_keeps_only_its_most_recent_values() -> None:
    memo = _Memo(_canonical_list, size=4)
    tuples = [(_entry(f"x:{i}", "a"),) for i in range(10)]
    for t in tuples:
        assert memo(t) == _canonical_list(t)
    assert len(memo.memo) == 4
    again = memo(tuples[-1])
    assert again is memo(tuples[-1])  # a repeat is found
    assert len(memo.memo) == 4
