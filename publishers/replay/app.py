"""The replay publisher: one Starlette app that plays registered publishers from corpus trees.

Each publisher is played by the replay projection its plugin declares
(:class:`publishers.replay.projection.ReplayProjection`, in ``publishers/<name>/replay.py``):
its SPARQL path, its file routes and how they resolve, its same-day twins, its query
templates. This module holds only the shared machinery, on 127.0.0.1:

- every registered publisher's routes (SPARQL 1.1 protocol, ``query=``, SPARQL JSON; its
  file routes) — a publisher the replay holds no source of answers 404;
- ``GET|POST /_replay/faults``, ``POST /_replay/reset``, ``GET /_replay/stats`` — control.

The built-ins: Legilux at ``/sparqlendpoint`` and ``/filestore/<path>``; EUR-Lex at
``/webapi/rdf/sparql``, ``/resource/celex/<CELEX>`` (content negotiation) and
``/resource/cellar/<path>``.

The adapters' own query templates are answered from the graph's indexes
(:mod:`publishers.replay.fast`: the same documents rdflib gives, byte for byte); any other
query — and every query while N-Triples patches are applied — is evaluated by rdflib. Answers
are cached per graph generation (the graph only changes when a record-level fault changes), so
a repeated query costs nothing. Bodies carry an ``ETag`` (conditional GET answers 304) and a
``Repr-Digest``. A body whose bytes the source tree does not hold is answered with a
*held-elsewhere* document (``application/vnd.lex-replay.held-elsewhere+json``) naming its file,
sha256 and size.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import hashlib
import io
import json
import random
import re
import threading
import zipfile
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rdflib import Graph
from rdflib.query import Result
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from legal.errors import ConfigError
from publishers.protocol import HELD_ELSEWHERE_MEDIA_TYPE
from publishers.registry import plugins, replay_projection
from publishers.replay.fast import FastAnswers, term_json
from publishers.replay.faults import GRAPH_FAULTS, Faults
from publishers.replay.projection import (
    FileRequest,
    FileRoute,
    Plain,
    Projected,
    ServedFile,
    quiet_rdflib,
)
from publishers.replay.records import state_records
from publishers.replay.source import ReplaySource
from publishers.replay.sparql import evaluate

SPARQL_JSON = "application/sparql-results+json"
#: appended to a body served under the ``changed_bodies`` fault
CHANGED_MARKER = b"\n<!-- replay fault: the publisher changed this body -->\n"
_PAGE = re.compile(r"LIMIT ([0-9]+) OFFSET ([0-9]+)")


@dataclass
class _Built:
    #: Each source's projection, by publisher id.
    projected: dict[str, Projected] = field(default_factory=dict)
    #: Template answerers by graph id (none while N-Triples patches are applied: rdflib only).
    fast: dict[int, FastAnswers] = field(default_factory=dict)


@dataclass
class ReplayPublisher:
    """Serves the given sources (at most one per publisher: ``duplicate_replay_source`` otherwise)
    with the given faults.

    Each source's publisher must be registered with a replay projection
    (``replay_unsupported_publisher`` otherwise)."""

    sources: Sequence[ReplaySource]
    faults: Faults = field(default_factory=Faults)
    stats: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        publishers = [str(s.publisher) for s in self.sources]
        twice = sorted({p for p in publishers if publishers.count(p) > 1})
        if twice:
            raise ConfigError("the replay serves at most one corpus per publisher", code="duplicate_replay_source",
                              subject=", ".join(twice))
        self._lock = threading.RLock()
        self._built = _Built()
        self._readers = {str(s.publisher): s.read_body for s in self.sources}
        self._projections = {str(s.publisher): replay_projection(s.publisher) for s in self.sources}
        self._zips: dict[str, bytes] = {}
        # (graph id, query) -> (document, its JSON bytes)
        self._answers: dict[tuple[int, str], tuple[dict[str, Any], bytes]] = {}
        self.rebuild()

    # -- state -----------------------------------------------------------------------------------

    def rebuild(self, faults: Faults | None = None) -> None:
        """Re-project every source under ``faults`` (default: the current ones)."""
        with self._lock:
            built = _Built()
            f = faults or self.faults
            for source in self.sources:
                current = [] if f.empty_catalogue else [v.to_dict() for v in source.current]
                records = state_records(current, withdrawn=f.withdrawn,
                                        same_day=f.same_day, shuffle_seed=f.shuffle_seed,
                                        publisher=source.publisher)
                with quiet_rdflib():
                    built.projected[str(source.publisher)] = self._projections[str(source.publisher)].project(records)
            with quiet_rdflib():
                for key, projected in built.projected.items():
                    _patch(projected.graph, f.patch_add, f.patch_remove)
                    if not (f.patch_add or f.patch_remove):
                        built.fast[id(projected.graph)] = FastAnswers(projected.graph,
                                                                      self._projections[key].templates)
            self._built = built
            self._zips.clear()
            self._answers.clear()

    def warm(self) -> int:
        """Build every zip a projection serves ahead of the first request (as a real Cellar has
        its Formex zips ready); returns how many were built."""
        built = 0
        for key, projected in self._built.projected.items():
            read = self._readers[key]
            for path, members in self._projections[key].archives(projected):
                contents = [read(s.sha256) for s in members]
                if all(c is not None for c in contents):
                    self._zip(path, members, contents)
                    built += 1
        return built

    def set_faults(self, **changes: Any) -> dict[str, Any]:
        """Change fault switches (rebuilding the graphs when a record-level fault changed)."""
        with self._lock:
            candidate = dataclasses.replace(self.faults)
            changed = candidate.update(changes)
            if changed & GRAPH_FAULTS:
                self.rebuild(candidate)  # raises before anything changes if the faults are unusable
            self.faults = candidate
            return self.faults.to_dict()

    def reset(self) -> None:
        """Clear every fault and counter (the graphs are rebuilt only if a record-level fault was set)."""
        with self._lock:
            default = Faults()
            changed = {name for name in GRAPH_FAULTS if getattr(self.faults, name) != getattr(default, name)}
            self.faults = default
            self.stats.clear()
            if changed:
                self.rebuild()

    # -- the ASGI app --------------------------------------------------------------------------

    def app(self) -> Starlette:
        routes = []
        for plugin in plugins().values():  # every registered publisher the replay can play
            if plugin.replay_projection is None:
                continue
            projection, key = plugin.replay_projection(), plugin.facts.id
            routes.append(Route(projection.sparql_path, self._sparql_endpoint(key), methods=["GET", "POST"]))
            routes += [Route(r.path, self._file_endpoint(key, r), methods=["GET"]) for r in projection.file_routes]
        return Starlette(routes=[
            *routes,
            Route("/_replay/faults", self._faults, methods=["GET", "POST"]),
            Route("/_replay/reset", self._reset, methods=["POST"]),
            Route("/_replay/stats", self._stats, methods=["GET"]),
        ])

    # -- control -----------------------------------------------------------------------------------

    async def _faults(self, request: Request) -> Response:
        if request.method == "POST":
            try:
                changes = json.loads(await request.body() or b"{}")
                return JSONResponse(self.set_faults(**changes))
            except Exception as exc:  # a bad switch (unknown name, bad value, unparsable N-Triples): 400
                return JSONResponse({"error": str(exc)}, status_code=400)
        return JSONResponse(self.faults.to_dict())

    async def _reset(self, request: Request) -> Response:
        self.reset()
        return JSONResponse(self.faults.to_dict())

    async def _stats(self, request: Request) -> Response:
        return JSONResponse(dict(self.stats))

    # -- faults applied to every publisher request ----------------------------------------------

    async def _countdown(self, kind: str) -> Response | None:
        self.stats[kind] += 1
        with self._lock:
            f = self.faults
            if not f.hits(kind):
                return None
            if f.burst > 0:
                f.burst -= 1
                self.stats["fault_burst"] += 1
                return Response(f"replay fault: burst {f.burst_status}", status_code=f.burst_status)
            if f.rate_limit > 0:
                f.rate_limit -= 1
                self.stats["fault_rate_limit"] += 1
                return Response("replay fault: rate limited", status_code=429,
                                headers={"Retry-After": str(f.retry_after)})
            delay = 0.0
            if f.slow > 0:
                f.slow -= 1
                self.stats["fault_slow"] += 1
                delay = f.slow_seconds
        if delay:
            await asyncio.sleep(delay)
        return None

    # -- SPARQL ------------------------------------------------------------------------------------

    def _sparql_endpoint(self, key: str) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            projected = self._built.projected.get(key)
            return await self._sparql(request, projected.graph if projected is not None else None)

        return endpoint

    async def _sparql(self, request: Request, graph: Graph | None) -> Response:
        fault = await self._countdown("sparql")
        if fault is not None:
            return fault
        if graph is None:
            return Response("no corpus for this publisher", status_code=404)
        query = await _query_text(request)
        if not query:
            return Response("missing query", status_code=400)
        with self._lock:
            if self.faults.malformed_sparql > 0:
                self.faults.malformed_sparql -= 1
                return Response(b'{"head": {"vars": ["c"]}, "results": {"bindings": [', media_type=SPARQL_JSON)
            answered = self._answer(graph, query)
            if isinstance(answered, Response):
                return answered
            document, encoded = answered
            faulted = self._enumeration_faults(graph, query, document)
            seed = self.faults.shuffle_seed
        if faulted is not None:
            document, encoded = faulted, json.dumps(faulted).encode("utf-8")
        if seed is None:
            return Response(encoded, media_type=SPARQL_JSON)
        return Response(json.dumps(shuffled(document, seed)).encode("utf-8"), media_type=SPARQL_JSON)

    def _answer(self, graph: Graph, query: str) -> tuple[dict[str, Any], bytes] | Response:
        """The (cached) answer document of ``query`` and its JSON bytes, or a 400 response."""
        key = (id(graph), query)
        cached = self._answers.get(key)
        if cached is None:
            fast = self._built.fast.get(id(graph))
            with quiet_rdflib():
                document = fast.answer(query) if fast is not None else None
            if document is not None:
                self.stats["sparql_fast"] += 1
            else:
                try:
                    with quiet_rdflib():
                        document = results_json(evaluate(graph, query))
                except Exception as exc:  # rdflib raises many kinds on a bad query: the client's error
                    return Response(f"bad query: {exc}", status_code=400)
                self.stats["sparql_evaluated"] += 1
            cached = (document, json.dumps(document).encode("utf-8"))
            self._answers[key] = cached
        return cached

    def _enumeration_faults(self, graph: Graph, query: str, document: dict[str, Any]) -> dict[str, Any] | None:
        """``document`` changed by the enumeration faults (``None``: none applies). Lock held."""
        f = self.faults
        if "COUNT(" in query.upper() or (f.enumeration_target and f.enumeration_target not in query):
            return None
        rows = list(document["results"]["bindings"])
        if f.unstable_paging > 0:
            paged = _PAGE.search(query)
            if paged is not None and int(paged.group(2)) > 0:
                limit, offset = int(paged.group(1)), int(paged.group(2))
                whole = self._answer(graph, query[:paged.start()] + f"LIMIT {offset + limit + 1} OFFSET 0"
                                     + query[paged.end():])
                if not isinstance(whole, Response):
                    f.unstable_paging -= 1
                    self.stats["fault_unstable_paging"] += 1
                    order = list(whole[0]["results"]["bindings"])
                    if offset < len(order):
                        order[offset - 1], order[offset] = order[offset], order[offset - 1]
                    rows = order[offset:offset + limit]
                    return {"head": document["head"], "results": {"bindings": rows}}
        if f.truncate_enumeration > 0 and rows:
            f.truncate_enumeration -= 1
            self.stats["fault_truncate_enumeration"] += 1
            return {"head": document["head"], "results": {"bindings": rows[:-1]}}
        if f.duplicate_rows > 0 and len(rows) >= 2:
            f.duplicate_rows -= 1
            self.stats["fault_duplicate_rows"] += 1
            return {"head": document["head"], "results": {"bindings": [rows[0], rows[0], *rows[2:]]}}
        return None

    # -- files -------------------------------------------------------------------------------------------

    def _file_endpoint(self, key: str, route: FileRoute) -> Callable[[Request], Awaitable[Response | _Truncated]]:
        async def endpoint(request: Request) -> Response | _Truncated:
            arrived = self.faults  # the faults in force when the request arrived (see _body)
            fault = await self._countdown("files")
            if fault is not None:
                return fault
            answer = route.resolve(self._built.projected.get(key), FileRequest(request.path_params, request.headers))
            if isinstance(answer, Plain):
                return Response(answer.text, status_code=answer.status, headers=dict(answer.headers))
            return self._body(request, key, list(answer.files), answer.content_type, zip_key=answer.zip_key,
                              arrived=arrived)

        return endpoint

    # -- bodies ------------------------------------------------------------------------------------------

    def _body(self, request: Request, publisher: str, files: list[ServedFile], content_type: str,
              zip_key: str | None = None, arrived: Faults | None = None) -> Response | _Truncated:
        """``arrived``: the faults in force when the request arrived. A request that outlives them
        (one held by a ``slow`` fault across ``reset``/``set_faults``) is answered under its own
        faults and never consumes a counted fault set after it arrived."""
        f = self.faults if arrived is None else arrived
        shas = {s.sha256 for s in files}
        if shas & set(f.not_found):
            return Response("not found (replay fault)", status_code=404)
        if shas & set(f.gone):
            return Response("gone (replay fault)", status_code=410)
        read = self._readers[publisher]
        contents = [read(s.sha256) for s in files]
        if any(c is None for c in contents):
            return _held_elsewhere(files)
        data = self._zip(zip_key, files, contents) if zip_key else contents[0]
        assert data is not None
        changed = zip_key is None and bool({"*", *shas} & set(f.changed_bodies)) and bool(f.changed_bodies)
        if changed:
            self.stats["fault_changed_body"] += 1
            data = data + CHANGED_MARKER
        elif request.headers.get("if-modified-since"):
            return Response(status_code=304)  # the replay's bytes never change unless a fault says so
        sha = hashlib.sha256(data).digest()  # one hash for both headers
        etag = '"' + sha.hex() + '"'
        if request.headers.get("if-none-match") == etag:
            return Response(status_code=304, headers={"ETag": etag})
        digest = "sha-256=:" + base64.b64encode(sha).decode("ascii") + ":"
        headers = {"ETag": etag, "Repr-Digest": digest}
        self.stats["bodies"] += 1
        with self._lock:
            if f is self.faults and f.truncate > 0 and f.hits("files"):
                f.truncate -= 1
                self.stats["fault_truncate"] += 1
                if f.truncate_mode == "length":
                    return _Truncated(data, content_type, headers)
                return Response(data[: len(data) // 2], media_type=content_type, headers=headers)
        return Response(data, media_type=content_type, headers=headers)

    def _zip(self, key: str, files: Sequence[ServedFile], contents: Sequence[bytes | None]) -> bytes:
        with self._lock:
            cached = self._zips.get(key)
            if cached is None:
                cached = build_zip((s.file.rsplit("/", 1)[-1], c or b"") for s, c in zip(files, contents, strict=True))
                self._zips[key] = cached
            return cached


class _Truncated:
    """An ASGI response that declares the full length and sends only half the body."""

    def __init__(self, data: bytes, content_type: str, headers: Mapping[str, str]) -> None:
        self.data = data
        self.headers = [(b"content-type", content_type.encode()), (b"content-length", str(len(data)).encode())]
        self.headers += [(k.lower().encode(), v.encode()) for k, v in headers.items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": self.headers})
        await send({"type": "http.response.body", "body": self.data[: len(self.data) // 2], "more_body": True})
        raise ConnectionAbortedError("replay fault: truncated body")


def build_zip(members: Iterable[tuple[str, bytes]]) -> bytes:
    """A deterministic zip (fixed timestamps, sorted members)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        for name, content in sorted(members):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, content)
    return buffer.getvalue()


def _held_elsewhere(files: Sequence[ServedFile]) -> Response:
    doc = {"held_elsewhere": [{"file": s.file, "sha256": s.sha256, "size": s.size} for s in files]}
    return Response(json.dumps(doc).encode("utf-8"), media_type=HELD_ELSEWHERE_MEDIA_TYPE)


async def _query_text(request: Request) -> str | None:
    if request.method == "GET":
        return request.query_params.get("query")
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype == "application/sparql-query":
        return (await request.body()).decode("utf-8")
    form = await request.form()
    value = form.get("query")
    return value if isinstance(value, str) else None


def shuffled(document: dict[str, Any], seed: int | None) -> dict[str, Any]:
    """``document`` with its bindings in a seeded random order (``None``: unchanged)."""
    if seed is None:
        return document
    bindings = list(document["results"]["bindings"])
    random.Random(seed).shuffle(bindings)
    return {"head": document["head"], "results": {"bindings": bindings}}


def results_json(result: Result) -> dict[str, Any]:
    """A SPARQL 1.1 JSON results document for a SELECT result."""
    names = [str(v) for v in (result.vars or [])]
    bindings = []
    for row in result:
        values = row if isinstance(row, tuple) else (row,)
        binding = {name: term_json(value) for name, value in zip(names, values, strict=False) if value is not None}
        bindings.append(binding)
    return {"head": {"vars": names}, "results": {"bindings": bindings}}


def _patch(graph: Graph, add: Sequence[str], remove: Sequence[str]) -> None:
    if remove:
        for triple in Graph().parse(data="\n".join(remove), format="nt"):
            graph.remove(triple)
    if add:
        for triple in Graph().parse(data="\n".join(add), format="nt"):
            graph.add(triple)
