"""SPARQL 1.1 protocol client: JSON results parsing and the fail-closed paging protocol."""

from __future__ import annotations

import json
import re
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
