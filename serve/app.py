"""The serving application: one Starlette app with the HTTP API, MCP, web pages and health.

``create_app(state, extensions=…)`` assembles, in this order of routes: ``/healthz`` and
``/readyz``; the JSON API under ``/api/v1`` and ``/openapi.json``; MCP (streamable HTTP) at
``/mcp``; the routes of each :class:`Extension` the composition root passes (``lex serve``
passes the assistant's); the web pages. ``serve`` never imports the assistant or the hybrid
lane: the composition root (``cli/serve.py``) hands in their routes, templates and mount hooks. Around them,
outermost first: security headers, the request deadline, the per-client rate limit and the
64 KiB body limit. Every error leaves through :mod:`serve.http.errors` (one shape, no stack
trace). The artifact set is verified and mounted in the background when the app starts, so
``/healthz`` answers at once and ``/readyz`` says 503 ``mount_pending`` until it is done.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
import sys
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import h11
import uvicorn
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from uvicorn.protocols.http.h11_impl import H11Protocol

from legal.errors import LexError
from serve.admission import AdmissionLimits, RateLimiter
from serve.core import OPERATIONS, LegalCore
from serve.core.mount import MountedIndex
from serve.http import api, health
from serve.http.catalog import Operation, catalog
from serve.http.errors import edge_error, http_exception_error, lex_error_handler
from serve.http.middleware import (
    BodyLimitMiddleware,
    CatchAllMiddleware,
    DeadlineMiddleware,
    RateLimitMiddleware,
    SecurityHeadersMiddleware,
)
from serve.mcp_http import McpHttpEndpoint
from serve.mount import ArtifactIdentity, Core, CoreBackend, MountConfig, ServeState
from serve.web import routes as web_routes

log = logging.getLogger("serve")

BODY_LIMIT = 64 * 1024
#: Called with the freshly mounted core and its index directory (e.g. hybrid activation).
MountHook = Callable[[LegalCore, Path], object]


@dataclass(frozen=True)
class Extension:
    """What a composition root adds to the app (``lex serve`` adds the assistant's web boundary).

    ``routes`` are mounted after MCP and before the web pages; ``templates`` are directories
    searched after serve's own; ``self_bounded`` are paths that enforce their own deadlines (the
    edge deadline skips them); ``work_panel`` is a template included on every work page.
    """

    routes: Sequence[BaseRoute] = ()
    templates: Sequence[Path] = ()
    self_bounded: tuple[str, ...] = ()
    work_panel: str | None = None


@dataclass(frozen=True)
class AppSettings:
    """Edge settings (admission limits, body limit, deadline, trusted proxies, MCP hosts)."""

    limits: AdmissionLimits = field(default_factory=AdmissionLimits)
    body_limit: int = BODY_LIMIT
    deadline: float = 10.0
    trust_forwarded: bool = False
    allowed_hosts: tuple[str, ...] = ()
    mount_on_startup: bool = True
    #: seconds between re-verifications of the mounted set (``None`` or 0: only on SIGHUP)
    reverify_interval: float | None = 300.0
    #: seconds a connection may take to send a request's headers (slow clients are closed)
    header_timeout: float = 10.0


class LegalCoreBackend:
    """The production backend: :class:`serve.core.LegalCore`, each index warmed
    (:meth:`serve.core.mount.MountedIndex.warm`), then each mount hook in turn.

    Under ``lex serve --workers N`` the builder (:class:`serve.workers.Supervisor`) builds and
    warms the core once before forking the workers (:func:`prebuild_core`); a worker's first mount adopts it when its own verification names the
    same set and every index file is still the one it was built from, and builds its own
    otherwise."""

    def __init__(self, required: tuple[str, ...] = (), mount_hooks: Sequence[MountHook] = ()) -> None:
        self.required = required
        self.mount_hooks = tuple(mount_hooks)

    def empty(self) -> Core:
        return LegalCore.empty()

    def build(self, directory: Path, artifact: ArtifactIdentity) -> LegalCore:
        """Mount and warm the indexes of ``directory`` (no hooks)."""
        core = LegalCore.mount(directory, artifact.to_dict(), publishers=self.required or None)
        for index in core.indexes.values():  # before /readyz says ready, not in the first requests
            index.warm()
        return core

    def mount(self, directory: Path, artifact: ArtifactIdentity) -> Core:
        core = adopt_prebuilt(directory, artifact, self.required) or self.build(directory, artifact)
        for hook in self.mount_hooks:
            hook(core, directory)
        return core

    def publishers(self, core: Core) -> tuple[str, ...]:
        return tuple(str(p) for p in getattr(core, "publishers", ()))


@dataclass(frozen=True)
class Prebuilt:
    """A core the builder built and warmed before forking the workers, its connections closed."""

    directory: Path
    artifact: ArtifactIdentity
    required: tuple[str, ...]
    core: LegalCore


#: The builder's prebuilt core (:func:`prebuild_core`); each forked worker adopts it at most once.
_PREBUILT: list[Prebuilt] = []


def prebuild_core(state: ServeState) -> Prebuilt | None:
    """In the builder (the supervisor's short-lived child that forks the first workers), before
    forking: verify ``state``'s set as a worker would, mount and warm it, close its connections (SQLite connections must not cross a fork) and keep it for the
    workers to adopt (:func:`adopt_prebuilt`). The catalogue, the newest-version table, the
    ranking profiles and the validity periods are then built once and shared copy-on-write instead
    of built in every worker. Anything refused here is left to the workers (each verifies and
    mounts, or refuses, as before); None then."""
    from serve.mount import artifact_directory, index_directory, verify

    backend = state.backend
    if not isinstance(backend, LegalCoreBackend):
        return None
    _PREBUILT.clear()
    try:
        directory, source = artifact_directory(state.config)
        artifact = verify(directory, source, state.config)
        directory = index_directory(directory)
        core = backend.build(directory, artifact)
    except LexError as error:
        log.warning("the builder did not prebuild the set (%s/%s); each worker mounts its own",
                    error.family, error.code)
        return None
    core.close()
    prebuilt = Prebuilt(directory, artifact, backend.required, core)
    _PREBUILT.append(prebuilt)
    return prebuilt


def adopt_prebuilt(directory: Path, artifact: ArtifactIdentity, required: tuple[str, ...]) -> LegalCore | None:
    """The builder's prebuilt core, reopened, if this is the first mount of this process since
    the fork, it is of the same directory, set (the identity this process's own verification
    gave, signature and files included) and required publishers, and each index file is the one
    it was built from (:meth:`serve.core.mount.MountedIndex.reopen`); else None, and the caller
    builds its own (a re-mount after ``SIGHUP``, a worker restarted after the set changed)."""
    if not _PREBUILT:
        return None
    prebuilt = _PREBUILT.pop()
    if (prebuilt.directory, prebuilt.artifact, prebuilt.required) != (directory, artifact, required):
        return None
    reopened: list[MountedIndex] = []
    try:
        for index in prebuilt.core.indexes.values():
            if not index.reopen():
                break
            reopened.append(index)
        else:
            return prebuilt.core
    except LexError:
        pass
    for index in reopened:
        index.close()
    return None


def new_state(config: MountConfig, limits: AdmissionLimits | None = None,
              backend: CoreBackend | None = None, *, mount_hooks: Sequence[MountHook] = (),
              answer_cache: int = 0) -> ServeState:
    """A :class:`ServeState` over the production legal core (nothing mounted yet), keeping up to
    ``answer_cache`` bytes of compressed answers (:mod:`serve.answers`; 0: none)."""
    backend = backend or LegalCoreBackend(config.required_publishers, mount_hooks)
    return ServeState(config, backend, limits or AdmissionLimits(), answer_cache=answer_cache)


async def http_exception_handler(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    response = edge_error(request.scope, http_exception_error(status), status)
    if isinstance(exc, HTTPException) and exc.headers:
        response.headers.update(exc.headers)
    return response


def _middleware(settings: AppSettings, self_bounded: tuple[str, ...]) -> list[Middleware]:
    return [
        Middleware(SecurityHeadersMiddleware),
        Middleware(CatchAllMiddleware),
        Middleware(DeadlineMiddleware, seconds=settings.deadline, exempt=self_bounded),
        Middleware(RateLimitMiddleware, limiter=RateLimiter(settings.limits),
                   trust_forwarded=settings.trust_forwarded),
        Middleware(BodyLimitMiddleware, limit=settings.body_limit),
    ]


def _lifespan(mcp: McpHttpEndpoint, settings: AppSettings) -> Any:
    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        state: ServeState = app.state.lex
        async with mcp.running(), anyio.create_task_group() as group:
            if settings.mount_on_startup and state.mounted.status == "pending":
                group.start_soon(_mount_in_background, state)
            group.start_soon(_reverify_on_schedule, state, settings.reverify_interval)
            yield
            group.cancel_scope.cancel()

    return lifespan


REVERIFY_TICK = 0.5


async def _reverify_on_schedule(state: ServeState, interval: float | None, tick: float = REVERIFY_TICK) -> None:
    """Re-verify the mounted set every ``interval`` seconds and whenever one is requested
    (SIGHUP); a mismatch unmounts it (:meth:`serve.mount.ServeState.reverify`)."""
    while True:
        await anyio.sleep(tick)
        if state.mounted.status == "pending" or not state.reverify_due(interval):
            continue
        await anyio.to_thread.run_sync(state.reverify, abandon_on_cancel=True)


def install_sighup(state: ServeState) -> bool:
    """SIGHUP asks for a re-verification of the mounted set (main thread only; False elsewhere)."""
    try:
        signal.signal(signal.SIGHUP, lambda _signum, _frame: state.request_reverify())
    except (ValueError, AttributeError, OSError):  # not the main thread, or no SIGHUP here
        return False
    return True


async def _mount_in_background(state: ServeState) -> None:
    mounted = await anyio.to_thread.run_sync(state.mount, abandon_on_cancel=True)
    if mounted.refusal is not None:
        log.warning("nothing mounted: %s/%s %s", mounted.refusal.family, mounted.refusal.code,
                    mounted.refusal.message)
    else:
        log.info("mounted artifact set %s (%s)", mounted.artifact.set_id if mounted.artifact else "?",
                 ", ".join(mounted.publishers))


def create_app(state: ServeState, settings: AppSettings | None = None, extensions: Iterable[Extension] = ()) -> Starlette:
    """The whole serving app over ``state`` (HTTP API, MCP, web pages, health) plus ``extensions``."""
    settings = settings or AppSettings()
    extensions = tuple(extensions)
    ops: dict[str, Operation] = catalog(OPERATIONS)
    mcp = McpHttpEndpoint(lambda: state, ops, settings.allowed_hosts)
    routes: list[BaseRoute] = [
        *health.routes(),
        *api.routes(),
        Route("/mcp", mcp, name="mcp"),
        *(route for extension in extensions for route in extension.routes),
        *web_routes.routes(),
    ]
    app = Starlette(
        routes=routes,
        middleware=_middleware(settings, tuple(p for e in extensions for p in e.self_bounded)),
        exception_handlers={LexError: lex_error_handler, HTTPException: http_exception_handler},
        lifespan=_lifespan(mcp, settings),
    )
    app.state.lex = state
    app.state.catalog = ops
    app.state.openapi = None
    app.state.templates = template_dirs(extensions)
    app.state.work_panel = next((e.work_panel for e in extensions if e.work_panel), None)
    return app


def template_dirs(extensions: Iterable[Extension]) -> tuple[Path, ...]:
    """The template directories the extensions bring (searched after serve's own)."""
    return tuple(Path(d) for e in extensions for d in e.templates)


def warm_templates(extensions: Iterable[Extension] = ()) -> int:
    """Compile every page template of an app with ``extensions`` now; the number compiled. The
    supervisor of :func:`run_workers` does it before forking, so the workers share the compiled code."""
    from serve.web.render import environment

    env = environment(template_dirs(extensions))
    names = env.list_templates()
    for name in names:
        env.get_template(name)
    return len(names)


class _AnnouncingServer(uvicorn.Server):
    """A uvicorn server that reports its bound URL once it listens (also for port 0)."""

    def __init__(self, config: uvicorn.Config, announce: Callable[[str], None]) -> None:
        super().__init__(config)
        self._announce = announce

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started and self.servers:
            host, port = self.servers[0].sockets[0].getsockname()[:2]
            shown = f"[{host}]" if ":" in str(host) else str(host)
            self._announce(f"http://{shown}:{port}/")


class _HeaderTimeout:
    """The header-read timeout of a connection: armed on connect and after each response,
    disarmed once a request head is complete; when it fires the connection gets ``408`` and is
    closed. Mixed into uvicorn's HTTP protocols (``_head_complete`` says whether a head is in)."""

    _header_seconds: float = 10.0
    _header_timer: asyncio.TimerHandle | None = None
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport

    def _head_complete(self) -> bool:
        raise NotImplementedError

    def _arm(self) -> None:
        self._disarm()
        self._header_timer = self.loop.call_later(self._header_seconds, self._headers_too_slow)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if self.transport.is_closing() or self._head_complete():
            return
        log.info("closing a connection that sent no complete request head within %.1f s", self._header_seconds)
        self.transport.write(b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
        self.transport.close()


def h11_header_timeout_protocol(seconds: float) -> type[H11Protocol]:
    """uvicorn's pure-Python h11 protocol with the header-read timeout (the fallback where
    ``httptools`` is not installed)."""

    class H11HeaderTimeoutProtocol(_HeaderTimeout, H11Protocol):
        _header_seconds = seconds

        def _head_complete(self) -> bool:
            return self.conn.their_state is not h11.IDLE

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self._head_complete():
                self._disarm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return H11HeaderTimeoutProtocol


def header_timeout_protocol(seconds: float) -> type[asyncio.Protocol]:
    """uvicorn's HTTP/1.1 protocol with a header-read timeout: a connection that has not sent a
    complete request head within ``seconds`` (on connect, and again after each response) is
    closed with ``408``. uvicorn's own ``timeout_keep_alive`` is reset by every byte received,
    so alone it does not bound a client that drips its headers.

    The protocol is uvicorn's ``httptools`` one (a C parser: about a third of the edge's CPU per
    request less than ``h11``); where ``httptools`` is not installed, the ``h11`` one."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # pragma: no cover - httptools is a dependency of uvicorn[standard]
        return h11_header_timeout_protocol(seconds)

    class HttpToolsHeaderTimeoutProtocol(_HeaderTimeout, HttpToolsProtocol):
        _header_seconds = seconds
        _head_in = False

        def _head_complete(self) -> bool:
            return self._head_in

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def on_message_begin(self) -> None:
            self._head_in = False
            super().on_message_begin()

        def on_headers_complete(self) -> None:
            self._head_in = True
            self._disarm()
            super().on_headers_complete()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and (self.cycle is None or self.cycle.response_complete):
                self._head_in = False
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return HttpToolsHeaderTimeoutProtocol


M_ARENA_MAX = -8  # glibc's mallopt parameters (malloc.h)
M_MMAP_THRESHOLD = -3
M_TRIM_THRESHOLD = -1


def _mallopt(parameter: int, value: int) -> bool:
    """glibc's ``mallopt(parameter, value)``; False where the C library has none (not glibc)."""
    import ctypes

    try:  # the process's own symbols hold the C library's: ``ctypes.util.find_library`` would run
        mallopt = ctypes.CDLL(None).mallopt  # ``ldconfig -p`` in a subprocess and parse its output,
    except (OSError, AttributeError):  # which in a fresh worker wrote 1-5 MB of private pages
        return False
    return bool(mallopt(parameter, int(value)) == 1)


def limit_malloc_arenas(arenas: int) -> bool:
    """Cap glibc's malloc arenas for threads started from now on (``MALLOC_ARENA_MAX``): the worker
    threads then share ``arenas`` heaps instead of one each, which keeps the resident set down.
    False where the C library has no ``mallopt`` (not glibc)."""
    return _mallopt(M_ARENA_MAX, arenas)


#: A worker's fixed malloc threshold for memory mapped allocations (glibc's default starting value).
WORKER_MMAP_THRESHOLD = 128 << 10


def fix_mmap_threshold(size: int = WORKER_MMAP_THRESHOLD) -> bool:
    """Allocate every block of ``size`` bytes or more by its own mapping, given back when freed, and
    trim the heap's free top beyond ``size`` (``M_MMAP_THRESHOLD``, ``M_TRIM_THRESHOLD``). glibc
    otherwise raises the threshold to the largest such block freed (up to 32 MiB), after which large
    short-lived buffers — a big answer's JSON, a diff page, SQLite's reads of long rows — come from
    the heap and stay resident once freed. False where the C library has no ``mallopt``."""
    return _mallopt(M_MMAP_THRESHOLD, size) and _mallopt(M_TRIM_THRESHOLD, size)


class _HandedServer(uvicorn.Server):
    """A worker's uvicorn server: it listens on nothing and serves the connections the supervisor
    hands over on ``handoff`` (:func:`serve.workers.receive_connections`)."""

    def __init__(self, config: uvicorn.Config, handoff: socket.socket) -> None:
        super().__init__(config)
        self._handoff = handoff
        self._pending: set[asyncio.Future[Any]] = set()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        from serve.workers import receive_connections

        await super().startup(sockets=[])
        if not self.started:
            return
        loop = asyncio.get_running_loop()
        config = self.config

        def protocol() -> asyncio.Protocol:
            made: asyncio.Protocol = config.http_protocol_class(  # type: ignore[call-arg]
                config=config, server_state=self.server_state, app_state=self.lifespan.state)
            return made

        def accept(connection: socket.socket) -> None:
            future = asyncio.ensure_future(loop.connect_accepted_socket(protocol, connection))
            self._pending.add(future)
            future.add_done_callback(self._connected)

        def closed() -> None:
            loop.remove_reader(self._handoff.fileno())
            self.should_exit = True

        loop.add_reader(self._handoff.fileno(), receive_connections(self._handoff, accept, closed))

    def _connected(self, future: asyncio.Future[Any]) -> None:
        self._pending.discard(future)
        if not future.cancelled() and future.exception() is not None:
            log.debug("a handed-over connection failed: %s", future.exception())

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        with contextlib.suppress(ValueError, OSError):
            asyncio.get_running_loop().remove_reader(self._handoff.fileno())
        await super().shutdown(sockets=None)


def _config(app: Starlette, host: str, port: int, log_level: str, header_timeout: float) -> uvicorn.Config:
    return uvicorn.Config(app, host=host, port=port, log_level=log_level, lifespan="on", ws="none",
                          access_log=False, server_header=False, timeout_graceful_shutdown=5,
                          http=header_timeout_protocol(header_timeout), timeout_keep_alive=5)


def run(app: Starlette, *, host: str, port: int, announce: Callable[[str], None], log_level: str = "warning",
        header_timeout: float = 10.0, handoff: socket.socket | None = None) -> None:
    """Serve ``app`` (from :func:`create_app`) with uvicorn until interrupted; ``announce`` receives the URL.
    SIGHUP re-verifies the mounted set. With ``handoff`` (a worker of :func:`run_workers`), serve the
    connections the supervisor hands over instead of binding ``host:port``."""
    state: ServeState = app.state.lex
    install_sighup(state)
    config = _config(app, host, port, log_level, header_timeout)
    server = _AnnouncingServer(config, announce) if handoff is None else _HandedServer(config, handoff)
    try:
        server.run()
    except KeyboardInterrupt:  # uvicorn re-raises the SIGINT it handled, after a clean shutdown
        pass
    finally:
        state.close()


#: Modules a worker imports only once it runs (uvicorn's HTTP protocol, lifespan and event loop —
#: ``uvloop`` where installed —, anyio's asyncio backend) or mounts (the verification of the artifact
#: set): :func:`run_workers` imports them before forking, so their code is shared copy-on-write
#: instead of loaded again in every worker.
WORKER_MODULES = ("uvicorn.protocols.http.httptools_impl", "uvicorn.protocols.http.h11_impl", "uvicorn.lifespan.on",
                  "anyio._backends._asyncio", "release.verify", "uvicorn.loops.auto", "uvicorn.loops.uvloop", "uvloop")


def preload(modules: Iterable[str] = WORKER_MODULES) -> list[str]:
    """Import ``modules`` now (those not installed are skipped); the names imported."""
    import importlib

    loaded = []
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:
            continue
        loaded.append(name)
    return loaded


#: Inflated text blocks each worker process keeps (:data:`derive.index.textstore.BLOCKS`, 8 MiB in a
#: process of its own): every worker holds its own, so several workers bound it lower. The served mix
#: spends the same CPU per request with 2 MiB and each worker ~6 MB less; with 1 MiB the same CPU
#: again (in process, four passes of the mix: 4.9-5.2 against 4.7-5.1 CPU-s) and ~2.5 MB less.
WORKER_TEXT_CACHE_BYTES = 1 << 20


#: Prepared statements each of a worker's pooled connections keeps (:data:`serve.core.mount.STATEMENT_CACHE`;
#: Python's default 128): a worker opens two connections per index under load (two executing slots),
#: and with 48 each holds ~1.3 MB less SQLite memory per pair of indexes for ~2-3 % more CPU over the
#: mix in process (6.4 against 6.3 CPU-s, medians of four).
WORKER_STATEMENT_CACHE = 48
#: Bytes of a served worker's diff pair cache (:class:`serve.core.ops.diff.PairCache`; 8 MiB in
#: process): a served worker also keeps whole answers (``lex serve --answer-cache``), which
#: answer a repeated diff before its pairs are looked at, so its pairs are kept within 2 MiB.
WORKER_PAIR_CACHE_BYTES = 2 << 20


def bound_worker_caches(text_bytes: int = WORKER_TEXT_CACHE_BYTES, statements: int = WORKER_STATEMENT_CACHE,
                        pair_bytes: int = WORKER_PAIR_CACHE_BYTES) -> None:
    """Bound this worker process's caches: the text blocks (per process, not per index), the
    prepared statements of each pooled connection opened from now on, the diff's known pairs; and give large freed buffers
    back at once (:func:`fix_mmap_threshold`: the served mix's PSS sum peak 181.7 / 181.2 against
    183.8 / 188.8 / 186.6 MB, the same CPU per request)."""
    from derive.index import textstore
    from serve.core import mount
    from serve.core.ops import diff

    textstore.BLOCKS.capacity = min(textstore.BLOCKS.capacity, text_bytes)
    diff.PAIRS.capacity = min(diff.PAIRS.capacity, pair_bytes)
    mount.STATEMENT_CACHE = statements
    fix_mmap_threshold()


def run_workers(make_app: Callable[[int], Starlette], *, workers: int, host: str, port: int,
                announce: Callable[[str], None], log_level: str = "warning", header_timeout: float = 10.0,
                grace: float = 10.0, prebuild: bool = True) -> int:
    """Serve with ``workers`` processes (:mod:`serve.workers`): bind and listen here, announce the URL,
    build and warm the set once with ``prebuild`` (:func:`prebuild_core`, over the state
    ``make_app(0)`` makes) in a short-lived builder that forks the first workers and exits
    (:class:`serve.workers.Supervisor`'s ``prepare``); each worker builds its app with ``make_app(index)`` (its own
    state: it verifies the set itself, and its first mount adopts the prebuilt core when that
    verification names the same set and files) and serves the connections this process accepts
    and hands to the workers in turn. With ``prebuild`` this process then supervises as the lean
    supervisor (``relaunch``: this command line, run again to restart a worker; a process so started
    serves as that worker and binds nothing). Returns when interrupted (SIGINT/SIGTERM)."""
    from legal.errors import ConfigError
    from serve.workers import (
        Supervisor,
        bound_url,
        listen,
        notify_supervisor,
        relaunched_worker,
        work,
    )

    def serve_worker(index: int, handoff: socket.socket) -> int:
        bound_worker_caches()
        app = make_app(index)
        state: ServeState = app.state.lex
        state.worker = index
        state.on_refusal = notify_supervisor
        run(app, host=host, port=port, announce=lambda _url: None, log_level=log_level,
            header_timeout=header_timeout, handoff=handoff)
        return 0

    relaunched = relaunched_worker()
    if relaunched is not None:  # a worker the lean supervisor restarted: it binds nothing
        index, handoff, supervisor = relaunched
        work(index, handoff, supervisor, serve_worker)

    try:
        sock = listen(host, port)
    except OSError as error:
        raise ConfigError(f"cannot listen on {host}:{port}: {error.strerror or error}", code="cannot_listen",
                          subject=f"{host}:{port}") from None

    def prepare() -> None:  # the state worker 0 would build: its set, verified and mounted once
        prebuild_core(make_app(0).state.lex)

    preload()
    try:
        announce(bound_url(sock))
        return Supervisor(workers, serve_worker, sock, grace=grace, prepare=prepare if prebuild else None,
                          relaunch=sys.orig_argv if prebuild else None).run()
    finally:
        sock.close()
