"""The Legilux enumeration's paged queries: paging errors come before bad-row errors.

A bad catalogue or manifestation row is reported only once paging has proved itself (overlap,
duplicates, the publisher's ``COUNT``): a guard for any change that streams the rows (issue #13).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from urllib.parse import parse_qs

import httpx
import pytest

from legal.errors import PublisherError
from publishers.http import HttpClient, HttpPolicy, Paging
from publishers.legilux import LegiluxAdapter, LegiluxConfig

J = "http://data.legilux.public.lu/"
WORK = J + "eli/etat/leg/loi/2011/04/08/n2"
CODE = J + "eli/etat/leg/code/consommation/20240910"
GOOD = {"c": CODE, "work": WORK, "from": "2024-09-10", "type": J + "resource/authority/resource-type/CODE",
        "expr": CODE + "/fr", "lang": J + "resource/authority/language/FRA", "title": "Code de la consommation"}
NO_C = {k: v for k, v in GOOD.items() if k != "c"}
FILE = {"c": CODE, "expr": CODE + "/fr", "fmt": J + "resource/authority/user-format/xml",
        "file": J + "filestore/eli/etat/leg/code/consommation/20240910/fr/xml/a.xml"}
NO_FILE = {k: v for k, v in FILE.items() if k != "file"}


def adapter(catalogue: list[dict[str, str]], catalogue_count: int, files: list[dict[str, str]],
            files_count: int) -> LegiluxAdapter:
    """An adapter whose endpoint answers the two paged queries and their ``COUNT`` s."""
    handler = endpoint(catalogue, catalogue_count, files, files_count)
    http = HttpClient(httpx.Client(transport=httpx.MockTransport(handler)), HttpPolicy(politeness_delay=0))
    return LegiluxAdapter(http, LegiluxConfig.for_replay("https://legilux.test"))


def endpoint(catalogue: list[dict[str, str]], catalogue_count: int, files: list[dict[str, str]],
             files_count: int) -> Callable[[httpx.Request], httpx.Response]:
    """The endpoint of :func:`adapter`."""

    def handler(request: httpx.Request) -> httpx.Response:
        query = parse_qs(request.content.decode())["query"][0]
        manifestations = "isEmbodiedBy" in query
        if "COUNT(*)" in query:
            n = files_count if manifestations else catalogue_count
            bindings = [{"n": {"type": "literal", "value": str(n)}}]
        elif (paged := re.search(r"LIMIT (\d+) OFFSET (\d+)", query)) is None:
            bindings = []  # the works' metadata: none
        else:
            limit, offset = (int(x) for x in paged.groups())
            rows = (files if manifestations else catalogue)[offset:offset + limit]
            bindings = [{k: {"type": "literal", "value": v} for k, v in r.items()} for r in rows]
        return httpx.Response(200, json={"head": {"vars": []}, "results": {"bindings": bindings}})

    return handler


def failure(a: LegiluxAdapter) -> PublisherError:
    with pytest.raises(PublisherError) as info:
        a.enumerate()
    return info.value


def test_a_catalogue_row_without_c_is_reported_after_paging_proved_itself() -> None:
    error = failure(adapter([NO_C, GOOD], 2, [FILE], 1))
    assert error.code == "enumeration_parser_failure" and "catalogue row without ?c" in error.message
    error = failure(adapter([NO_C, GOOD], 3, [FILE], 1))  # the count mismatch comes first, as before
    assert error.code == "incomplete_enumeration" and "publisher counts 3" in error.message


def test_a_manifestation_row_without_file_is_reported_after_paging_proved_itself() -> None:
    error = failure(adapter([GOOD], 1, [NO_FILE, FILE], 2))
    assert error.code == "enumeration_parser_failure" and "manifestation row without ?file" in error.message
    error = failure(adapter([GOOD], 1, [NO_FILE, FILE], 3))  # the count mismatch comes first, as before
    assert error.code == "incomplete_enumeration" and "publisher counts 3" in error.message


# -- the pages used and dropped as they are read (issue #13, ADR 0117) ---------------------------

def consolidation_rows(i: int, languages: tuple[str, ...] = ("FRA",)) -> list[dict[str, str]]:
    """The catalogue rows of a consolidation ``i`` of work ``i // 3`` (one per language)."""
    work = f"{J}eli/etat/leg/loi/2011/04/{8 + i // 3:02d}/n2"
    c = f"{work}/consolide/2024{1 + i % 3:02d}10"
    return [{"c": c, "work": work, "from": f"2024-{1 + i % 3:02d}-10", "type": J + "resource/authority/resource-type/LOI",
             "expr": f"{c}/{lang.lower()}", "lang": f"{J}resource/authority/language/{lang}", "title": f"Loi {i} {lang}"}
            for lang in languages]


def catalogue_of(n: int) -> list[dict[str, str]]:
    rows = [row for i in range(n) for row in consolidation_rows(i, ("DEU", "FRA") if i % 2 else ("FRA",))]
    return sorted(rows, key=lambda r: (r["c"], r["expr"]))


def file_rows(catalogue: list[dict[str, str]]) -> list[dict[str, str]]:
    return [{"c": r["c"], "expr": r["expr"], "fmt": J + "resource/authority/user-format/xml",
             "file": f"{J}filestore/{r['expr'][len(J):]}/xml/a.xml"} for r in catalogue]


def paged_adapter(catalogue: list[dict[str, str]], files: list[dict[str, str]], page: int,
                  seen: list[tuple[str, int]], made: list[str], indexed: list[str]) -> LegiluxAdapter:
    """:func:`adapter` with pages of ``page`` rows; each page request logs what was made before it."""
    handler = endpoint(catalogue, len(catalogue), files, len(files))

    def logged(request: httpx.Request) -> httpx.Response:
        query = parse_qs(request.content.decode())["query"][0]
        if "COUNT(*)" not in query and "OFFSET" in query:
            seen.append(("files" if "isEmbodiedBy" in query else "catalogue", len(indexed if "isEmbodiedBy" in query
                                                                                      else made)))
        return handler(request)

    http = HttpClient(httpx.Client(transport=httpx.MockTransport(logged)), HttpPolicy(politeness_delay=0))
    paging = Paging(page_size=page, max_rows=1000, window=1000)
    return LegiluxAdapter(http, LegiluxConfig.for_replay("https://legilux.test", catalogue=paging,
                                                         manifestations=paging))


def test_the_catalogue_and_manifestation_pages_are_used_as_they_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each catalogue page's consolidations are made, and each manifestation page indexed, before the
    next page is asked for (on the rows-whole reading nothing is made until every page is read)."""
    from publishers.legilux import adapter as adapter_module
    from publishers.legilux import records

    made: list[str] = []
    indexed: list[str] = []
    real_consolidation, real_last_segment = records.consolidation, adapter_module.last_segment

    def consolidation(uri: str, rows: list[dict[str, str]]) -> records.Consolidation:
        made.append(uri)
        return real_consolidation(uri, rows)

    def last_segment(uri: str) -> str:
        indexed.append(uri)
        return real_last_segment(uri)

    monkeypatch.setattr(records, "consolidation", consolidation)
    monkeypatch.setattr(adapter_module, "last_segment", last_segment)
    catalogue = catalogue_of(12)
    seen: list[tuple[str, int]] = []
    listing = paged_adapter(catalogue, file_rows(catalogue), 5, seen, made, indexed).enumerate()
    assert len(listing.enumeration.versions) == 12 and len(listing.manifestations) == len(catalogue)
    pages = [n for what, n in seen if what == "catalogue"]
    assert len(pages) >= 4 and pages[0] == 0 and all(b > a for a, b in itertools.pairwise(pages))
    files = [n for what, n in seen if what == "files"]
    assert len(files) >= 4 and files[0] == 0 and files[-1] > 0


@pytest.mark.parametrize("page", [1, 2, 3, 5, 7, 100])
def test_the_paged_catalogue_gives_the_states_the_whole_one_gives(page: int) -> None:
    """Page by page or whole, the same states in the same order, whatever the pages' cut (a
    consolidation's rows across two pages included), and the same listing."""
    from publishers.legilux import records

    catalogue = catalogue_of(12)
    rows = [dict(r) for r in catalogue]
    pages = [[dict(r) for r in catalogue[i:i + page]] for i in range(0, len(catalogue), page)]
    assert records.consolidations_paged(iter(pages)) == records.consolidations(rows)
    seen: list[tuple[str, int]] = []
    paged = paged_adapter(catalogue, file_rows(catalogue), page, seen, [], []).enumerate()
    whole = adapter(catalogue, len(catalogue), file_rows(catalogue), len(catalogue)).enumerate()
    assert paged == whole


def test_the_paged_catalogue_reports_the_first_error_the_whole_one_reports() -> None:
    """A row without ``?c`` anywhere comes before a bad consolidation of an earlier page; of two bad
    consolidations, the one with the smaller URI (as the whole catalogue, grouped and sorted, reports)."""
    from publishers.legilux import records

    catalogue = catalogue_of(9)
    no_work = {k: v for k, v in catalogue[0].items() if k != "work"}  # consolidation 0: one row
    no_date = {k: v for k, v in catalogue[-1].items() if k != "from"}  # consolidation 8: one row

    def first_error(rows: list[dict[str, str]], page: int) -> tuple[str, str | None]:
        pages = [[dict(r) for r in rows[i:i + page]] for i in range(0, len(rows), page)]
        with pytest.raises(PublisherError) as paged:
            records.consolidations_paged(iter(pages))
        with pytest.raises(PublisherError) as whole:
            records.consolidations([dict(r) for r in rows])
        assert (paged.value.code, paged.value.message, paged.value.subject) == (
            whole.value.code, whole.value.message, whole.value.subject)
        return paged.value.message, paged.value.subject

    for page in (1, 2, 4, 100):
        bad = [no_date, no_work, *catalogue[1:-1]]  # the larger URI's rows first
        assert first_error(bad, page) == ("consolidation has no jolux:isMemberOf work", catalogue[0]["c"])
        with_no_c = [no_work, *catalogue[1:], NO_C]
        assert first_error(with_no_c, page) == ("catalogue row without ?c", "catalogue")


def test_a_consolidation_whose_rows_resume_in_a_later_page_is_refused() -> None:
    """An answer not ordered by ``?c`` across pages: never two states of one consolidation."""
    from publishers.legilux import records

    catalogue = catalogue_of(4)
    pages = [[dict(catalogue[0])], [dict(r) for r in catalogue[1:3]], [dict(catalogue[0])]]
    with pytest.raises(PublisherError) as info:
        records.consolidations_paged(iter(pages))
    assert info.value.code == "enumeration_parser_failure" and "not contiguous" in info.value.message
