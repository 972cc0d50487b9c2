"""SPARQL 1.1 protocol client: SELECT queries over HTTP POST, JSON results, fail-closed paging.

Results are parsed with plain :mod:`json` (an order of magnitude faster than rdflib's result
parser) into rows of ``{variable: string value}``; unbound variables are absent from a row.
Every failure is a :class:`legal.errors.PublisherError` with a run-level code:
``enumeration_retry_exhausted``, ``enumeration_http_failure`` or ``enumeration_parser_failure``.

Paging follows the reference protocol (Virtuoso cannot verify a sorted window beyond
``window`` rows): each request asks ``min(page_size, remaining + 1)`` rows, where
``remaining = max_rows - accumulated``; a page larger than requested or than ``remaining``
aborts ("exceeds the configured maximum"); a short page ends; a request whose
``offset + limit`` would pass the window aborts before it is sent. Never truncate.
"""

from __future__ import annotations

import json
import string
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any

from legal.errors import PublisherError
from publishers.http.client import HttpClient, RetryExhausted

Row = dict[str, str]
SPARQL_JSON = "application/sparql-results+json"


@dataclass(frozen=True, slots=True)
class Paging:
    """Limits of one paged query."""

    page_size: int = 5000
    max_rows: int = 20000
    window: int = 10000


def parse_results(body: bytes, *, subject: str) -> list[Row]:
    """Rows of a SPARQL 1.1 JSON results document; anything malformed is a typed error."""
    try:
        document = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _parser_failure(f"SPARQL response is not JSON: {exc}", subject) from None
    bindings = _bindings_of(document, subject)
    return [_row(binding, subject) for binding in bindings]


def _bindings_of(document: Any, subject: str) -> list[Any]:
    if not isinstance(document, dict) or not isinstance(document.get("head"), dict):
        raise _parser_failure("SPARQL JSON has no head", subject)
    results = document.get("results")
    if not isinstance(results, dict) or not isinstance(results.get("bindings"), list):
        raise _parser_failure("SPARQL JSON has no results.bindings list", subject)
    bindings: list[Any] = results["bindings"]
    return bindings


def _row(binding: Any, subject: str) -> Row:
    if not isinstance(binding, dict):
        raise _parser_failure("SPARQL binding is not an object", subject)
    row: Row = {}
    for name, term in binding.items():
        if not isinstance(term, dict) or not isinstance(term.get("value"), str):
            raise _parser_failure(f"SPARQL binding {name!r} has no string value", subject)
        row[str(name)] = term["value"]
    return row


def _parser_failure(message: str, subject: str) -> PublisherError:
    return PublisherError(message, code="enumeration_parser_failure", subject=subject)


class SparqlClient:
    """One SPARQL endpoint behind the HTTP policy."""

    def __init__(self, http: HttpClient, endpoint: str, *, timeout: float = 120.0, pace: str = "sparql") -> None:
        self.http = http
        self.endpoint = endpoint
        self.timeout = timeout
        self.pace = pace

    def select(self, query: str, *, subject: str) -> list[Row]:
        """Run one SELECT; ``subject`` names what is being enumerated (for error messages)."""
        try:
            response = self.http.post_form(self.endpoint, {"query": query},
                                           headers={"Accept": SPARQL_JSON}, timeout=self.timeout,
                                           pace=self.pace)
        except RetryExhausted as exc:
            raise PublisherError(f"SPARQL endpoint unavailable: {exc.message}", code="enumeration_retry_exhausted",
                                 subject=subject, retryable=True) from exc
        except PublisherError as exc:
            raise PublisherError(f"SPARQL request failed: {exc.message}", code="enumeration_http_failure",
                                 subject=subject) from exc
        if response.status != 200:
            raise PublisherError(f"SPARQL endpoint answered HTTP {response.status}",
                                 code="enumeration_http_failure", subject=subject)
        return parse_results(response.body, subject=subject)

    def select_paged(self, render: Callable[[int, int], str], paging: Paging, *, subject: str) -> list[Row]:
        """All rows of a sorted query rendered by ``render(limit, offset)``, fail-closed."""
        rows: list[Row] = []
        while True:
            remaining = paging.max_rows - len(rows)
            limit = min(paging.page_size, remaining + 1)
            offset = len(rows)
            if offset + limit > paging.window:
                raise PublisherError(f"cannot verify a sorted result beyond {paging.window} rows",
                                     code="incomplete_enumeration", subject=subject)
            page = self.select(render(limit, offset), subject=subject)
            if len(page) > limit or len(page) > remaining:
                raise PublisherError(f"{subject} exceeds the configured maximum of {paging.max_rows} rows",
                                     code="incomplete_enumeration", subject=subject)
            rows.extend(page)
            if len(page) < limit:
                return rows

    def select_capped(self, query: str, cap: int, *, subject: str) -> list[Row]:
        """One unpaged query whose text carries ``LIMIT cap + 1``; more than ``cap`` rows aborts."""
        rows = self.select(query, subject=subject)
        if len(rows) > cap:
            raise PublisherError(f"{subject} exceeds the configured maximum of {cap} rows",
                                 code="incomplete_enumeration", subject=subject)
        return rows


def load_query(package: str, name: str) -> string.Template:
    """The ``.rq`` file ``queries/<name>`` of ``package`` as a :class:`string.Template`."""
    text = resources.files(package).joinpath("queries", name).read_text(encoding="utf-8")
    return string.Template(text)


_IRI_FORBIDDEN = set('<>"{}|^`\\ \t\r\n')


def iri(value: str) -> str:
    """``<value>`` for a SPARQL query; characters that cannot appear in an IRI are refused."""
    if not value or any(ch in _IRI_FORBIDDEN for ch in value):
        raise PublisherError(f"cannot put {value!r} in a SPARQL query as an IRI", code="invalid_query_term",
                             subject=value)
    return f"<{value}>"


def literal(value: str) -> str:
    """A SPARQL string literal (escaped)."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return f'"{escaped}"'
