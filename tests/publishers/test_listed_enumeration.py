"""The Legilux enumeration made page by page and listed one version at a time (issue #13, ADR 0085).

- the catalogue's states are made as its pages arrive: a page's rows are freed before the next page
  is asked for (but the rows of the consolidation its last row names, which may go on);
- the manifestation index likewise: no page's rows outlive it;
- the versions are handed to the ingest's spill one at a time (the adapter's ``listed``): while the
  spill writes one, the others are not alive;
- a failure while the versions are listed (after some were spilled) leaves the tree as it was.

Each test fails without its lever (the rows of every page, or every version, alive at once).
"""

from __future__ import annotations

import gc
import weakref
from pathlib import Path
from typing import Any

import pytest

import publishers.spill as spill_module
from corpus_tree import CorpusTree
from corpus_tree.model import VersionInput
from legal.errors import PublisherError
from publishers.http import Paging, SparqlClient
from publishers.protocol import Manifestation
from tests.publishers.conftest import Harness, snapshot


class _Row(dict[str, str]):
    """A row that can be watched by weak reference (a plain dict cannot)."""


def _watched_select(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[list[weakref.ref[_Row]]]]:
    """Every paged query's pages, as weak references to their rows, by the query's kind; before each
    page is asked for, the rows of the earlier pages still alive are recorded in ``alive``."""
    pages: dict[str, list[list[weakref.ref[_Row]]]] = {"catalogue": [], "files": [], "alive": []}
    real = SparqlClient.select

    def select(self: SparqlClient, query: str, *, subject: str) -> list[Any]:
        kind = "files" if "manifestations" in subject else "catalogue" if "catalogue" in subject else None
        if kind is None or "COUNT" in subject:
            return real(self, query, subject=subject)
        gc.collect()
        earlier = pages[kind]
        pages["alive"].append([kind, len(earlier), sum(1 for page in earlier for r in page if r() is not None)])
        rows = [_Row(r) for r in real(self, query, subject=subject)]
        earlier.append([weakref.ref(r) for r in rows])
        return rows

    monkeypatch.setattr(SparqlClient, "select", select)
    return pages


def _small_pages(lu_small: Harness) -> Any:
    return lu_small.adapter(catalogue=Paging(page_size=4, max_rows=20000, window=20000),
                            manifestations=Paging(page_size=4, max_rows=20000, window=20000))


def test_the_catalogue_and_the_file_index_free_each_page_before_the_next(lu_small: Harness,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """With 4-row pages, when a page is asked for, of the earlier pages' rows at most those of one
    consolidation (the last row's, which may go on) and the overlap row are alive (before: all of them,
    until the last page was read)."""
    expected = _small_pages(lu_small).enumerate(None).whole()
    pages = _watched_select(monkeypatch)
    listing = _small_pages(lu_small).enumerate(None).whole()
    assert listing == expected  # the same listing, whatever the page size
    catalogue = [(n, alive) for kind, n, alive in pages["alive"] if kind == "catalogue"]
    files = [(n, alive) for kind, n, alive in pages["alive"] if kind == "files"]
    assert len(catalogue) >= 8 and len(files) >= 5, pages["alive"]
    assert max(alive for _, alive in catalogue) <= 4, catalogue  # a consolidation's rows (its expressions)
    assert max(alive for _, alive in files) <= 1, files  # the overlap's row, no more


def test_small_pages_give_the_same_tree(lu_small: Harness, tmp_path: Path) -> None:
    """A consolidation whose rows go on in the next page is made once, from all of them: a fresh
    ingest with 4-row pages writes the tree the default pages write."""
    whole, paged = CorpusTree.create(tmp_path / "whole"), CorpusTree.create(tmp_path / "paged")
    lu_small.ingest(whole)
    lu_small.ingest(paged, adapter=_small_pages(lu_small))
    assert snapshot(paged.root) == snapshot(whole.root)


def test_the_versions_are_spilled_as_they_are_listed(lu_small: Harness, target: CorpusTree,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """While the spill writes a version, only that one (and the one the adapter builds next) is alive,
    and only its manifestations (before: the adapter returned every version and manifestation at once)."""
    seen: list[tuple[int, int]] = []
    real = spill_module._Pickler.dump

    def dump(self: Any, obj: Any) -> None:
        gc.collect()
        seen.append((sum(1 for o in gc.get_objects() if type(o) is VersionInput),
                     sum(1 for o in gc.get_objects() if type(o) is Manifestation)))
        real(self, obj)

    gc.collect()
    already = (sum(1 for o in gc.get_objects() if type(o) is VersionInput),
               sum(1 for o in gc.get_objects() if type(o) is Manifestation))
    monkeypatch.setattr(spill_module._Pickler, "dump", dump)
    report = lu_small.ingest(target)
    assert report.versions == len(seen) >= 30 and report.manifestations_listed >= 20
    assert max(v for v, _ in seen) - already[0] <= 2, (already, seen)
    assert max(m for _, m in seen) - already[1] <= 4, (already, seen)


def test_a_failure_while_the_versions_are_listed_leaves_the_tree_as_it_was(lu_small: Harness, target: CorpusTree,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The adapter's listing fails after versions were spilled (bad publisher data in a late state): the
    run fails with that error, nothing is written and the staging area is removed, fresh and re-ingest."""
    import publishers.legilux.adapter as adapter_module
    real = adapter_module.records.version_input
    calls: list[int] = []

    def version_input(c: Any, **kw: Any) -> Any:
        calls.append(1)
        if len(calls) == 20:
            raise PublisherError("a bad state", code="enumeration_parser_failure", subject=c.uri)
        return real(c, **kw)

    for first in (True, False):
        if not first:
            lu_small.ingest(target)
        before = snapshot(target.root)
        calls.clear()
        monkeypatch.setattr(adapter_module.records, "version_input", version_input)
        with pytest.raises(PublisherError) as info:
            lu_small.ingest(target)
        monkeypatch.undo()
        assert info.value.code == "enumeration_parser_failure" and len(calls) == 20
        assert snapshot(target.root) == before
        assert target.evidence.staging_entries() == []


def test_a_consolidation_whose_rows_go_on_in_the_next_page_is_made_once() -> None:
    """The rows of the page's last consolidation are carried to the next page; a consolidation whose
    rows resume after it was made is refused; a bad row is reported once the pages are all read."""
    from publishers.legilux import records
    from tests.publishers.test_legilux_paging import GOOD

    fr, de = dict(GOOD), dict(GOOD, expr=GOOD["expr"][:-3] + "/de", lang=GOOD["lang"][:-3] + "DEU")
    other = {k: v.replace("20240910", "20250101") for k, v in GOOD.items()}
    whole = records.consolidations([dict(fr), dict(de), dict(other)])
    assert [len(c.expressions) for c in whole] == [2, 1]
    assert records.consolidations_paged(iter([[dict(fr)], [dict(de), dict(other)]])) == whole
    assert records.consolidations_paged(iter([[dict(fr), dict(de)], [dict(other)]])) == whole
    with pytest.raises(PublisherError, match="not contiguous"):
        records.consolidations_paged(iter([[dict(fr), dict(other)], [dict(de)]]))
    pages = iter([[{"work": "x"}], [dict(other)]])
    with pytest.raises(PublisherError, match="without"):
        records.consolidations_paged(pages)
    assert next(pages, None) is None  # every page was read first


def test_the_file_index_keeps_only_what_the_versions_read() -> None:
    """Of an expression's files the index keeps its first XML file (in URI order), or its PDF files when
    it has no XML: the versions read nothing else (before: every (format, file) pair listed)."""
    from publishers.legilux import LegiluxAdapter
    from tests.publishers.test_legilux_paging import CODE, FILE

    pdf = FILE["fmt"][:-3] + "pdf"
    other = CODE.replace("20240910", "20250101")
    rows = [dict(FILE, fmt=pdf, file=FILE["file"][:-5] + "p.pdf"), dict(FILE, file=FILE["file"][:-5] + "b.xml"),
            dict(FILE), dict(FILE, c=other, expr=other + "/fr", fmt=pdf, file=FILE["file"][:-5] + "q.pdf"),
            dict(FILE, c=other, expr=other + "/fr", fmt=pdf, file=FILE["file"][:-5] + "p.pdf")]
    from publishers.legilux import LegiluxConfig

    adapter = LegiluxAdapter.__new__(LegiluxAdapter)
    adapter.config = LegiluxConfig()
    adapter._pages = lambda *args: iter([rows[:2], rows[2:]])  # type: ignore[method-assign]
    index = adapter._manifestation_index()
    assert index == {(CODE, "fr"): FILE["file"], (other, "fr"): [FILE["file"][:-5] + "q.pdf",
                                                                 FILE["file"][:-5] + "p.pdf"]}
