"""SPARQL 1.1 protocol client: JSON results parsing and the fail-closed paging protocol."""

from __future__ import annotations

import json
import re
from typing import ClassVar
from urllib.parse import parse_qs

import httpx
import pytest

from legal.errors import PublisherError
from publishers.http import HttpClient, HttpPolicy, Paging, SparqlClient, parse_results


def endpoint(total: int, seen: list[tuple[int, int]]) -> SparqlClient:
    """A fake endpoint holding ``total`` sorted rows, answering ``LIMIT n OFFSET k``."""

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.method == "POST"
        assert request.headers["accept"] == "application/sparql-results+json"
        query = parse_qs(request.content.decode())["query"][0]
        limit, offset = (int(x) for x in re.search(r"LIMIT (\d+) OFFSET (\d+)", query).groups())  # type: ignore[union-attr]
        seen.append((limit, offset))
        rows = [{"n": {"type": "literal", "value": str(i)}} for i in range(offset, min(total, offset + limit))]
        return httpx.Response(200, json={"head": {"vars": ["n"]}, "results": {"bindings": rows}})

    http = HttpClient(httpx.Client(transport=httpx.MockTransport(handler)), HttpPolicy(politeness_delay=0))
    return SparqlClient(http, "https://sparql.test/sparql")


def render(limit: int, offset: int) -> str:
    return f"SELECT ?n WHERE {{ ?s ?p ?n }} ORDER BY ?n LIMIT {limit} OFFSET {offset}"


def test_eleven_rows_over_a_cap_of_ten_abort_after_the_sentinel() -> None:
    seen: list[tuple[int, int]] = []
    with pytest.raises(PublisherError) as info:
        endpoint(11, seen).select_paged(render, Paging(page_size=5, max_rows=10), subject="catalogue")
    assert seen == [(5, 0), (6, 4), (2, 9)]  # each later page starts one row back (the overlap)
    assert info.value.code == "incomplete_enumeration"
    assert "exceeds the configured maximum of 10 rows" in info.value.message


def test_exactly_the_cap_is_accepted_after_the_sentinel() -> None:
    seen: list[tuple[int, int]] = []
    rows = endpoint(10, seen).select_paged(render, Paging(page_size=5, max_rows=10), subject="catalogue")
    assert [r["n"] for r in rows] == [str(i) for i in range(10)]
    assert seen == [(5, 0), (6, 4), (2, 9)]  # each later page starts one row back (the overlap)


def test_the_sorted_window_cannot_be_exceeded() -> None:
    seen: list[tuple[int, int]] = []
    with pytest.raises(PublisherError) as info:
        endpoint(30, seen).select_paged(render, Paging(page_size=5, max_rows=20, window=10), subject="catalogue")
    assert seen == [(5, 0), (6, 4)]
    assert "cannot verify a sorted result beyond 10 rows" in info.value.message


@pytest.mark.parametrize("body", [
    b"{not json",
    b'{"results": {"bindings": []}}',
    b'{"head": {"vars": []}, "results": {}}',
    b'{"head": {"vars": ["a"]}, "results": {"bindings": [{"a": {"type": "uri"}}]}}',
    b'{"head": {"vars": ["a"]}, "results": {"bindings": ["x"]}}',
])
def test_malformed_results_are_typed_errors(body: bytes) -> None:
    with pytest.raises(PublisherError) as info:
        parse_results(body, subject="catalogue")
    assert info.value.code == "enumeration_parser_failure" and info.value.subject == "catalogue"


def test_unbound_variables_are_absent() -> None:
    doc = {"head": {"vars": ["a", "b"]}, "results": {"bindings": [{"a": {"type": "uri", "value": "x"}}]}}
    assert parse_results(json.dumps(doc).encode(), subject="q") == [{"a": "x"}]


def test_http_failures_are_typed() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(400, text="bad query")

    http = HttpClient(httpx.Client(transport=httpx.MockTransport(handler)), HttpPolicy(politeness_delay=0))
    with pytest.raises(PublisherError) as info:
        SparqlClient(http, "https://sparql.test/").select("SELECT * {}", subject="q")
    assert info.value.code == "enumeration_http_failure"

    def down(request: httpx.Request) -> httpx.Response:
        return httpx.Response(503)

    slept: list[float] = []
    http = HttpClient(httpx.Client(transport=httpx.MockTransport(down)), HttpPolicy(politeness_delay=0),
                      sleep=slept.append)
    with pytest.raises(PublisherError) as info:
        SparqlClient(http, "https://sparql.test/").select("SELECT * {}", subject="q")
    assert info.value.code == "enumeration_retry_exhausted" and info.value.retryable
    assert slept == [1.0, 2.0, 4.0]


def fixed_pages(pages: list[list[dict[str, str]]]) -> SparqlClient:
    """An endpoint answering the given pages in turn (whatever the window asked)."""
    answers = iter(pages)

    def handler(request: httpx.Request) -> httpx.Response:
        rows = [{k: {"type": "literal", "value": v} for k, v in r.items()} for r in next(answers)]
        return httpx.Response(200, json={"head": {"vars": []}, "results": {"bindings": rows}})

    http = HttpClient(httpx.Client(transport=httpx.MockTransport(handler)), HttpPolicy(politeness_delay=0))
    return SparqlClient(http, "https://sparql.test/sparql")


def test_duplicates_are_whole_rows_names_and_values() -> None:
    """Equal values under other names are not a duplicate; the same bindings twice are."""
    distinct = [{"a": "x"}, {"b": "x"}, {"a": "x", "b": "y"}, {"a": "y", "b": "x"}]
    client = fixed_pages([distinct])
    assert client.select_paged(render, Paging(page_size=5, max_rows=20, overlap=0), subject="q") == distinct
    client = fixed_pages([[{"a": "x", "b": "y"}, {"b": "y", "a": "x"}]])
    with pytest.raises(PublisherError) as info:
        client.select_paged(render, Paging(page_size=5, max_rows=20, overlap=0), subject="q")
    assert info.value.code == "duplicate_rows"


def test_rows_whose_keys_share_a_hash_are_not_duplicates(monkeypatch: pytest.MonkeyPatch) -> None:
    """Paging keeps a hash per row (issue #13): every key hashing alike, distinct rows still pass,
    across pages and within one, and the same bindings twice are still refused with the same message."""
    from publishers.http import sparql as sparql_module

    monkeypatch.setattr(sparql_module, "hash", lambda key: 0, raising=False)  # every row collides
    pages = [[{"a": "1"}, {"a": "2"}, {"a": "3"}], [{"a": "3"}, {"a": "4"}, {"b": "1"}]]  # one row of overlap
    rows = fixed_pages(pages).select_paged(render, Paging(page_size=3, max_rows=20), subject="q")
    assert rows == [{"a": "1"}, {"a": "2"}, {"a": "3"}, {"a": "4"}, {"b": "1"}]
    twice = [[{"a": "1"}, {"b": "2"}, {"a": "1"}]]
    with pytest.raises(PublisherError) as info:
        fixed_pages(twice).select_paged(render, Paging(page_size=5, max_rows=20, overlap=0), subject="q")
    assert (info.value.code, info.value.message) == ("duplicate_rows",
                                                     "paging returned a row twice (offset 0): {'a': '1'}")


def test_equal_values_of_an_answer_are_held_once() -> None:
    """A page repeats its types, dates, works and titles row after row: one string each (issue #13)."""
    title = "Loi du 31 juillet 2006 portant introduction d'un Code du travail"
    body = json.dumps({"head": {"vars": ["t", "u"]}, "results": {"bindings": [
        {"t": {"type": "literal", "value": title}, "u": {"type": "uri", "value": "http://x/1"}},
        {"t": {"type": "literal", "value": title}, "u": {"type": "uri", "value": "http://x/2"}}]}}).encode()
    first, second = parse_results(body, subject="q")
    assert first["t"] == second["t"] == title
    assert first["t"] is second["t"]
    assert first["u"] != second["u"]


class _Body(bytes):
    """Response bytes that say when they are freed."""

    freed: ClassVar[list[bool]] = []

    def __del__(self) -> None:
        _Body.freed.append(True)


def test_the_answer_bytes_are_freed_before_the_rows_are_built(monkeypatch: pytest.MonkeyPatch) -> None:
    """The client decodes a page and drops its bytes before parsing it: a 5,000-row page's bytes and
    its text are never both held while its rows are built (issue #13)."""
    from publishers.http import sparql as sparql_module
    from publishers.http.client import HttpResponse

    document = {"head": {"vars": ["a"]}, "results": {"bindings": [{"a": {"type": "literal", "value": "é"}}]}}

    class Http:
        def post_form(self, *args: object, **kwargs: object) -> HttpResponse:
            return HttpResponse(200, "https://sparql.test/sparql", {}, _Body(json.dumps(document).encode()))

    freed_at_parse: list[list[bool]] = []
    parse = sparql_module.parse_text

    def watched(text: str, *, subject: str) -> list[dict[str, str]]:
        freed_at_parse.append(list(_Body.freed))
        return parse(text, subject=subject)

    monkeypatch.setattr(sparql_module, "parse_text", watched)
    _Body.freed.clear()
    rows = SparqlClient(Http(), "https://sparql.test/sparql").select("q", subject="q")  # type: ignore[arg-type]
    assert rows == [{"a": "é"}]
    assert freed_at_parse == [[True]]
