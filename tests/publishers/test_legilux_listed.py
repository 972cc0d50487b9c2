"""The Legilux enumeration listed into the ingest's spill, its per-version state held on disk (issue #13,
ADR 0129): the enumeration is the one the whole catalogue held in memory gave (the same works, versions,
manifestations and errors), the ingest's tree and report are the same, and a failure part-way leaves the
tree byte-identical, no staging and no spill behind.
"""

from __future__ import annotations

import datetime as _dt
import tempfile
from pathlib import Path
from typing import Any

import pytest

from corpus_tree import CorpusTree
from corpus_tree.import_spill import Spill
from corpus_tree.model import Enumeration, ExpressionInput, VersionInput
from corpus_tree.txn import STAGING
from legal.errors import PublisherError
from publishers.http import Row
from publishers.legilux import listing_spill, records
from publishers.legilux.adapter import LegiluxAdapter, _require_unique_slugs
from publishers.protocol import (
    PUBLISHER_METADATA_ONLY,
    FetchResult,
    ListingAdapter,
    Manifestation,
    PublisherEnumeration,
    SharedEntries,
    canonical_metadata,
)
from tests.publishers.conftest import Harness, comparable, snapshot

WORK = "http://data.legilux.public.lu/eli/etat/leg/loi/2006/07/31/n2/jo"


def _whole(adapter: LegiluxAdapter) -> PublisherEnumeration:
    """The enumeration as the adapter made it before this change (every form held in memory): the
    reference the listed one must equal."""
    a = adapter
    states = records.consolidations(_paged(a, "catalogue.rq", a.config.catalogue, "Legilux catalogue"))
    rows = _paged(a, "manifestations.rq", a.config.manifestations, "Legilux manifestations")
    files: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for row in rows:
        files.setdefault((row["c"], records.last_segment(row["expr"])), []).append((row["fmt"], row["file"]))
    works = sorted({c.work for c in states})
    metadata: dict[str, list[dict[str, str]]] = {}
    for start in range(0, len(works), a.config.metadata_batch):
        batch = works[start:start + a.config.metadata_batch]
        values = " ".join(f"<{w}>" for w in batch)
        subjects = a._capped("subjects.rq", values, len(batch) * a.config.subject_rows_per_work, "s")
        aliases = a._capped("same_as.rq", values, len(batch) * a.config.same_as_rows_per_work, "a")
        for mapping in (records.subject_metadata(subjects), records.same_as_metadata(aliases)):
            for work, entries in mapping.items():
                metadata.setdefault(work, []).extend(entries)
    by_work: dict[str, list[records.Consolidation]] = {}
    for c in states:
        by_work.setdefault(c.work, []).append(c)
    work_inputs = tuple(sorted((records.work_input(w, by_work[w]) for w in works), key=lambda w: w.slug))
    versions: list[VersionInput] = []
    manifestations: list[Manifestation] = []
    share: SharedEntries = {}
    for c in states:
        expressions = []
        for e in c.expressions:
            found = _files_of(a, c, e, files)
            manifestations.extend(found)
            expressions.append(ExpressionInput(language=e.language, source_uri=e.source_uri, title=e.title,
                                               title_short=e.title_short,
                                               text_reason=None if found else PUBLISHER_METADATA_ONLY))
        entries = canonical_metadata(metadata.get(c.work, []), subject=c.work, share=share)
        versions.append(records.version_input(c, expressions=expressions, publisher_metadata=entries))
    enumeration = Enumeration(publisher=a.publisher, complete=True, works=work_inputs, versions=tuple(versions))
    return PublisherEnumeration(enumeration=enumeration, manifestations=tuple(manifestations))


def _paged(a: LegiluxAdapter, name: str, paging: Any, subject: str) -> list[Row]:
    template = records_query(name)
    expected = a.sparql.count(records_query(name.replace(".rq", "_count.rq")).template, subject=subject)
    return a.sparql.select_paged(lambda limit, offset: template.substitute(limit=limit, offset=offset), paging,
                                 subject=subject, expected=expected)


def records_query(name: str) -> Any:
    from publishers.http import load_query

    return load_query("publishers.legilux", name)


def _files_of(a: LegiluxAdapter, c: records.Consolidation, e: records.Expression,
              files: dict[tuple[str, str], list[tuple[str, str]]]) -> list[Manifestation]:
    class _Dict:
        def get(self, consolidation: str, segment: str) -> list[tuple[str, str]]:
            return files.get((consolidation, segment), [])

    return a._manifestations_of(c, e, _Dict())  # type: ignore[arg-type]


def _legilux(h: Harness, **config: Any) -> LegiluxAdapter:
    adapter = h.adapter(**config)
    assert isinstance(adapter, LegiluxAdapter) and isinstance(adapter, ListingAdapter)
    return adapter


@pytest.mark.parametrize("page_size", [7, 5000])
def test_the_listed_enumeration_is_the_whole_one(lu_full: Harness, page_size: int) -> None:
    from publishers.http import Paging

    paging = Paging(page_size=page_size, max_rows=20000)
    config = {"catalogue": paging, "manifestations": Paging(page_size=page_size, max_rows=50000)}
    reference = _whole(_legilux(lu_full, **config))
    requests = len(lu_full.replay.requests) if hasattr(lu_full.replay, "requests") else None
    listed = _legilux(lu_full, **config).enumerate()
    assert listed.enumeration.works == reference.enumeration.works
    assert listed.enumeration.versions == reference.enumeration.versions
    assert listed.manifestations == reference.manifestations
    assert len(listed.enumeration.versions) >= 50 and listed.manifestations
    if requests is not None:
        assert len(lu_full.replay.requests) == 2 * requests


def _rows(uri: str, **values: str) -> Row:
    return {"c": uri, "work": WORK, "from": "2006-08-01", **values}


def _states(pages: list[list[Row]]) -> list[records.Consolidation]:
    with Spill() as spill:
        catalogue = listing_spill.CatalogueSpill(spill, listing_spill.WorkTable(spill))
        try:
            for page in pages:
                catalogue.add_page(list(page))
            catalogue.end()
            return list(catalogue.states())
        finally:
            catalogue.close()


def test_the_states_are_the_whole_catalogues_for_every_cut() -> None:
    rows = [_rows(f"{WORK}/consolidation/{d}", expr=f"{WORK}/consolidation/{d}/{lang}",
                  lang=f"http://publications.europa.eu/resource/authority/language/{code}", title=f"T {d} {lang}")
            for d in ("20060801", "20100101", "20200101") for lang, code in (("fr", "FRA"), ("de", "DEU"))]
    whole = records.consolidations(rows)
    for cut in range(len(rows) + 1):
        assert _states([rows[:cut], rows[cut:]]) == whole
    # rows of one consolidation apart in the answer (not ordered as asked): one state, as before
    apart = rows[1:] + rows[:1]
    assert _states([apart]) == records.consolidations(apart) == whole


def test_the_first_error_is_the_whole_catalogues() -> None:
    good = _rows(f"{WORK}/consolidation/20100101")
    bad_a = {"c": f"{WORK}/consolidation/20060801", "work": WORK}  # no dateApplicability
    bad_b = {"c": f"{WORK}/consolidation/20200101", "work": WORK, "from": "20200101"}  # a malformed date
    for pages in ([[bad_b, good], [bad_a]], [[bad_a], [bad_b]]):
        with pytest.raises(PublisherError) as caught:
            _states(pages)
        with pytest.raises(PublisherError) as expected:
            records.consolidations([row for page in pages for row in page])
        assert caught.value.subject == expected.value.subject == bad_a["c"]
        assert caught.value.message == expected.value.message
    # a row without ?c anywhere comes first
    with pytest.raises(PublisherError, match="without \\?c"):
        _states([[bad_a], [good, {"work": WORK}]])


def test_the_file_index_joins_the_rows_of_a_key_apart() -> None:
    c = f"{WORK}/consolidation/20060801"
    rows = [{"c": c, "expr": f"{c}/fr", "fmt": "x", "file": "1"}, {"c": c, "expr": f"{c}/de", "fmt": "x", "file": "2"},
            {"c": c, "expr": f"{c}/fr", "fmt": "y", "file": "3"}]
    with Spill() as spill:
        files = listing_spill.FileIndex(spill)
        files.add_page(rows[:2])
        files.add_page(rows[2:])
        files.end()
        assert files.get(c, "fr") == [("x", "1"), ("y", "3")]
        assert files.get(c, "de") == [("x", "2")]
        assert files.get(c, "en") == []
    with Spill() as spill:
        files = listing_spill.FileIndex(spill)
        files.add_page([rows[0], {"c": c, "fmt": "x", "file": "4"}, {"expr": "e"}])
        with pytest.raises(PublisherError, match="without \\?expr"):
            files.end()


def test_two_works_of_one_slug_name_the_smallest_pair() -> None:
    with pytest.raises(PublisherError, match="'b': w1 and w2"):
        _require_unique_slugs([("a", "w0"), ("b", "w1"), ("b", "w2"), ("b", "w3"), ("c", "w4"), ("c", "w5")])
    _require_unique_slugs([("a", "w0"), ("b", "w1")])


def test_the_keys_sort_as_the_tuples() -> None:
    parts = [("a", "b"), ("a\0", "b"), ("a", "\0b"), ("ab", ""), ("a", ""), ("é", "z"), ("a\ud800", "b"), ("", "")]
    assert sorted(parts, key=lambda p: listing_spill.key_of(*p)) == sorted(parts)
    state = records.Consolidation(uri=f"{WORK}/consolidation/20060801", work=WORK, slug="loi-2006-07-31-n2",
                                  valid_from=_dt.date(2006, 8, 1), valid_to=None, document_type="LOI",
                                  in_force_status="x", publication_date=_dt.date(2006, 8, 2),
                                  expressions=[records.Expression("e", "fr", "s", "t", None)])
    assert listing_spill.load_state(listing_spill.dump_state(state)) == state


class _Whole:
    """The same adapter enumerating whole (the ingest's other path)."""

    def __init__(self, inner: LegiluxAdapter) -> None:
        self.inner, self.publisher, self.http = inner, inner.publisher, inner.http

    def enumerate(self, scope: object | None = None) -> PublisherEnumeration:
        return _whole(self.inner)

    def fetch(self, manifestation: Manifestation) -> FetchResult:
        return self.inner.fetch(manifestation)


def test_the_listed_ingest_writes_the_whole_ones_tree_and_report(lu_small: Harness, tmp_path: Path) -> None:
    trees, reports = [], []
    for name, adapter in (("whole", _Whole(_legilux(lu_small))), ("listed", _legilux(lu_small))):
        tree = CorpusTree.create(tmp_path / name)
        first = lu_small.ingest(tree, adapter=adapter)  # type: ignore[arg-type]
        again = lu_small.ingest(tree, adapter=adapter if name == "whole" else _legilux(lu_small))  # type: ignore[arg-type]
        trees.append(snapshot(tree.root))
        reports.append((comparable(first), comparable(again)))
    assert trees[0] == trees[1] and reports[0] == reports[1]
    assert reports[1][0]["versions"] >= 5


def _temporary_files() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).iterdir()}


@pytest.mark.parametrize("seeded", [False, True])
def test_a_failure_part_way_leaves_the_tree_and_no_spill(lu_small: Harness, tmp_path: Path, seeded: bool) -> None:
    tree = CorpusTree.create(tmp_path / "tree")
    if seeded:
        lu_small.ingest(tree)
    before = snapshot(tree.root)
    adapter = _legilux(lu_small)
    real = adapter._manifestations_of
    calls = {"n": 0}

    def failing(*args: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 4:  # after some versions were spilled
            raise PublisherError("bad file URI", code="enumeration_parser_failure", subject="x")
        return real(*args)

    adapter._manifestations_of = failing  # type: ignore[method-assign]
    files = _temporary_files()
    with pytest.raises(PublisherError, match="bad file URI"):
        lu_small.ingest(tree, adapter=adapter)
    assert calls["n"] == 4
    assert snapshot(tree.root) == before
    staging = tree.root / STAGING
    assert not staging.exists() or not any(staging.iterdir())
    assert _temporary_files() <= files  # the enumeration's spill is gone (unnamed files: never listed)

