"""SPARQL 1.1 protocol client: SELECT queries over HTTP POST, JSON results, fail-closed paging.

Results are parsed with plain :mod:`json` (an order of magnitude faster than rdflib's result
parser) into rows of ``{variable: string value}``; unbound variables are absent from a row.
Each term is reduced to its value while the JSON is read (no dict per term is ever held: the
peak of a 5,000-row page, issue #13), and equal values of one answer are held once; an answer that
reading cannot prove well-formed is parsed again by the checking path, so every malformed answer
fails with the same first error (ADR 0041). The client decodes an answer and drops its bytes before
parsing it, and paging keeps a hash per row for its duplicate check, not the row's key (ADR 0057).
Every failure is a :class:`legal.errors.PublisherError` with a run-level code:
``enumeration_retry_exhausted``, ``enumeration_http_failure`` or ``enumeration_parser_failure``.

Paging follows the reference protocol (Virtuoso cannot verify a sorted window beyond
``window`` rows): each request asks ``min(page_size, remaining + 1)`` new rows, where
``remaining = max_rows - accumulated``; a page larger than requested or than ``remaining``
aborts ("exceeds the configured maximum"); a short page ends; a request whose
``offset + limit`` would pass the window aborts before it is sent. Never truncate.

An enumeration proves its completeness (it is never trusted because it ended):

- **overlap**: every page after the first starts ``overlap`` rows back, and those rows must
  equal the last rows already read — rows that moved between pages (an unstable sort) are
  ``unstable_paging``;
- **unique key**: a paged query orders by all its projected variables, so a row seen twice is
  ``duplicate_rows``;
- **count**: the publisher's own ``COUNT`` of the same pattern must equal the rows paging
  returned (``incomplete_enumeration`` otherwise: a truncated or lossy answer).

A malformed answer (not SPARQL JSON) is asked again with bounded exponential backoff
(``malformed_attempts``, the HTTP policy's backoff and sleep); after the last attempt it is
``enumeration_parser_failure`` (``retryable``) naming the query.
"""

from __future__ import annotations

import bisect
import heapq
import json
import string
from array import array
from collections.abc import Callable, Iterable, Iterator
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
    overlap: int = 1


def parse_results(body: bytes, *, subject: str) -> list[Row]:
    """Rows of a SPARQL 1.1 JSON results document; anything malformed is a typed error.

    Each term is reduced to its value as the JSON is read (:func:`_rows_as_read`), so a page
    never holds a dict per term; any answer that path cannot prove well-formed is parsed again
    by the checking path (:func:`_parse_checked`), which gives the rows or the first error."""
    return parse_text(decoded(body, subject=subject), subject=subject)


def decoded(body: bytes, *, subject: str) -> str:
    """The answer's text, decoded as :func:`json.loads` decodes bytes (UTF-8, -16 or -32 told by
    :func:`json.detect_encoding`, ``surrogatepass``), so that the caller can drop the bytes before the
    parse (a page's bytes and its text are never both held while its rows are built, issue #13)."""
    try:
        return body.decode(json.detect_encoding(body), "surrogatepass")
    except UnicodeDecodeError as exc:
        raise _parser_failure(f"SPARQL response is not JSON: {exc}", subject) from None


def parse_text(text: str, *, subject: str) -> list[Row]:
    """:func:`parse_results` of an answer already :func:`decoded`."""
    rows = _rows_as_read(text)
    return rows if rows is not None else _checked_rows(text, subject=subject)


class _TermReader:
    """``json.loads`` ``object_hook`` reducing SPARQL terms to their values as objects are read.

    Objects come innermost first. An object whose ``value`` member is a string is a term: it
    becomes the marker ``(value,)`` (JSON never yields a tuple). An object whose members are all
    markers is a binding: its members become their values in place (the row). Any other object
    is kept; one whose members are all strings (a binding the checking path would reject, e.g.
    ``{"a": "x"}``) sets :attr:`stray`, so that no such object can pass for a row."""

    __slots__ = ("share", "stray")

    def __init__(self) -> None:
        self.stray = False
        #: equal values of one answer held once (a page repeats its types, dates, languages, works
        #: and titles row after row); sharing equal strings changes no row
        self.share: dict[str, str] = {}

    def hook(self, obj: dict[str, Any]) -> Any:
        """The ``object_hook``: bind it once per answer (``reader.hook``) and hand it to the decoder. It is
        not kept on the reader: a reader holding its own bound method is a reference cycle, freed only by
        the cyclic collector, and it holds the answer's every distinct value meanwhile (issue #13, ADR 0129)."""
        value = obj.get("value")
        if type(value) is str:
            return (self.share.setdefault(value, value),)
        kinds = set(map(type, obj.values()))
        if kinds == _MARKER or not kinds:
            for name, term in obj.items():
                obj[name] = term[0]
        elif kinds == _STRING:
            self.stray = True
        return obj


_MARKER = {tuple}
_STRING = {str}
#: what :func:`json.loads` parses a decoded text with (it refuses a leading BOM only in a ``str`` it is
#: given, never in one it decoded from bytes: this path parses what the bytes' decode gave)
_PLAIN = json.JSONDecoder()


def _rows_as_read(text: str) -> list[Row] | None:
    """The rows, read with :class:`_TermReader`; ``None`` when the answer is not plainly well-formed.

    Rows returned here are exactly those :func:`_parse_checked` returns: a row is a binding all of
    whose members were terms with a string value, the document, ``head`` and ``results`` are
    objects (reduced objects are markers or have string members, so they fail the checks), and
    ``results.bindings`` is the list read. Every other answer (not JSON, a missing part, a bad
    binding or term, a document that merely looks odd) goes to the checking path."""
    reader = _TermReader()
    try:
        document = json.JSONDecoder(object_hook=reader.hook).decode(text)  # bound once, for every object
    except (ValueError, RecursionError):  # a JSONDecodeError is a ValueError
        return None
    if reader.stray or type(document) is not dict or type(document.get("head")) is not dict:
        return None
    results = document.get("results")
    if type(results) is not dict:
        return None
    bindings = results.get("bindings")
    if type(bindings) is not list:
        return None
    for row in bindings:
        if type(row) is not dict or not all(type(value) is str for value in row.values()):
            return None
    return bindings


def _parse_checked(body: bytes, *, subject: str) -> list[Row]:
    """The checking path: the whole document as plain JSON, then each part checked in order."""
    return _checked_rows(decoded(body, subject=subject), subject=subject)


def _checked_rows(text: str, *, subject: str) -> list[Row]:
    """:func:`_parse_checked` of the decoded text (:func:`json.loads` of the bytes, after the decode)."""
    try:
        document = _PLAIN.decode(text)
    except json.JSONDecodeError as exc:
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

    def __init__(self, http: HttpClient, endpoint: str, *, timeout: float = 120.0, pace: str = "sparql",
                 malformed_attempts: int = 3) -> None:
        self.http = http
        self.endpoint = endpoint
        self.timeout = timeout
        self.pace = pace
        self.malformed_attempts = max(1, malformed_attempts)
        #: malformed answers asked again (each one also counted in ``http.stats.retries``)
        self.malformed_retries = 0

    def select(self, query: str, *, subject: str) -> list[Row]:
        """Run one SELECT; ``subject`` names what is being enumerated (for error messages).

        A malformed answer is retried (bounded backoff); bad *data* in a well-formed answer is
        the caller's to judge and is never retried here."""
        attempt = 1
        while True:
            try:
                return self._select_once(query, subject=subject)
            except PublisherError as exc:
                if exc.code != "enumeration_parser_failure":
                    raise
                if attempt >= self.malformed_attempts:
                    raise PublisherError(f"malformed SPARQL answer after {attempt} attempt(s): {exc.message}",
                                         code="enumeration_parser_failure", subject=subject,
                                         retryable=True) from None
                self.malformed_retries += 1
                self.http.backoff_wait(attempt)
                attempt += 1

    def count(self, query: str, *, subject: str) -> int:
        """The single integer a ``SELECT (COUNT(*) AS ?n)`` query answers (typed error otherwise)."""
        rows = self.select(query, subject=subject)
        try:
            (row,) = rows
            (value,) = row.values()
            n = int(value)
        except (ValueError, TypeError):
            raise PublisherError(f"COUNT answer is not one integer: {rows[:2]!r}", code="enumeration_parser_failure",
                                 subject=subject) from None
        if n < 0:
            raise PublisherError(f"COUNT answer is negative: {n}", code="enumeration_parser_failure", subject=subject)
        return n

    def _select_once(self, query: str, *, subject: str) -> list[Row]:
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
        text = decoded(response.body, subject=subject)
        del response  # the bytes go before the rows are built: a 5,000-row page is megabytes (issue #13)
        return parse_text(text, subject=subject)

    def select_paged(self, render: Callable[[int, int], str], paging: Paging, *, subject: str,
                     expected: int | None = None) -> list[Row]:
        """All rows of a sorted query rendered by ``render(limit, offset)``, fail-closed: the pages of
        :meth:`select_pages` joined.

        ``expected`` is the publisher's own count of the rows (its ``COUNT`` query); paging must
        return exactly that many. See the module docstring for the overlap and duplicate checks.
        """
        rows: list[Row] = []
        for page in self.select_pages(render, paging, subject=subject, expected=expected, earlier=lambda: rows):
            rows.extend(page)
        return rows

    def select_pages(self, render: Callable[[int, int], str], paging: Paging, *, subject: str,
                     expected: int | None = None,
                     earlier: Callable[[], Iterable[Row]]) -> Iterator[list[Row]]:
        """Each page's new rows (the overlap removed) of a sorted query rendered by ``render(limit,
        offset)``, fail-closed, as :meth:`select_paged` reads them, in the same requests: the next page
        is asked for only when the caller asks for it, and the publisher's ``COUNT`` (``expected``) is
        checked once the last page is read.

        Nothing is held of the pages already yielded but their last ``overlap`` rows and each row's
        key's hash (8 bytes a row, :class:`_Hashes`); a hash met twice is confirmed against ``earlier()``
        (every row already yielded, in order: the caller keeps them, e.g. on disk) and the page read so
        far, so a duplicate gives the same error as when the rows were held (issue #13, ADR 0129)."""
        count = 0
        tail: list[Row] = []  # the last ``overlap`` rows yielded
        seen = _Hashes()
        while True:
            remaining = paging.max_rows - count
            take = min(paging.page_size, remaining + 1)
            back = min(paging.overlap, count)
            offset, limit = count - back, take + back
            if offset + limit > paging.window:
                raise PublisherError(f"cannot verify a sorted result beyond {paging.window} rows",
                                     code="incomplete_enumeration", subject=subject)
            page = self.select(render(limit, offset), subject=subject)
            if back:
                if page[:back] != tail[len(tail) - back:]:
                    raise PublisherError(
                        f"unstable paging: the page at offset {offset} does not start with the last "
                        f"{back} row(s) of the previous page (rows moved between pages)",
                        code="unstable_paging", subject=subject, retryable=True)
                page = page[back:]
            if len(page) > take or len(page) > remaining:
                raise PublisherError(f"{subject} exceeds the configured maximum of {paging.max_rows} rows",
                                     code="incomplete_enumeration", subject=subject)
            fresh: set[int] = set()
            for index, row in enumerate(page):
                key = hash(tuple(sorted(row.items())))
                if (key in fresh or key in seen) and _repeated(row, earlier(), page, index):
                    raise PublisherError(f"paging returned a row twice (offset {offset}): {row!r}",
                                         code="duplicate_rows", subject=subject, retryable=True)
                fresh.add(key)
            seen.add_all(fresh)
            del fresh
            count += len(page)
            if paging.overlap:
                tail = (tail + page[-paging.overlap:])[-paging.overlap:]
            last = len(page) < take
            yield page
            del page
            if last:
                break
        if expected is not None and count != expected:
            raise PublisherError(f"paging returned {count} rows but the publisher counts {expected}",
                                 code="incomplete_enumeration", subject=subject, retryable=True)

    def select_capped(self, query: str, cap: int, *, subject: str) -> list[Row]:
        """One unpaged query whose text carries ``LIMIT cap + 1``; more than ``cap`` rows aborts."""
        rows = self.select(query, subject=subject)
        if len(rows) > cap:
            raise PublisherError(f"{subject} exceeds the configured maximum of {cap} rows",
                                 code="incomplete_enumeration", subject=subject)
        return rows


def _repeated(row: Row, rows: Iterable[Row], page: list[Row], index: int) -> bool:
    """Whether ``row`` equals a row already read (the earlier pages' ``rows`` or ``page[:index]``).

    Paging keeps a hash per row, not the row's key (a tuple of pairs per row, ≈ 0.6 KB: 3 MB for a
    5,000-row catalogue, issue #13); a hash met twice is confirmed here, so two different rows whose
    keys share a hash are never reported."""
    return any(other == row for other in rows) or any(other == row for other in page[:index])


class _Hashes:
    """A set of row hashes held as one sorted ``array`` (8 bytes a hash, not a Python ``int`` in a
    ``set``: ≈ 80 bytes; issue #13): each page's hashes are merged in once it is read."""

    __slots__ = ("_sorted",)

    def __init__(self) -> None:
        self._sorted = array("q")

    def __contains__(self, key: int) -> bool:
        at = bisect.bisect_left(self._sorted, key)
        return at < len(self._sorted) and self._sorted[at] == key

    def add_all(self, keys: Iterable[int]) -> None:
        self._sorted = array("q", heapq.merge(self._sorted, sorted(keys)))


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
