"""The serving application: one Starlette app with the HTTP API, MCP, web pages and health.

``create_app(state)`` assembles, in this order of routes: ``/healthz`` and ``/readyz``; the
JSON API under ``/api/v1`` and ``/openapi.json``; MCP (streamable HTTP) at ``/mcp``; the
assistant's routes when :mod:`assistant.web` is importable; the web pages. Around them,
outermost first: security headers, the request deadline, the per-client rate limit and the
64 KiB body limit. Every error leaves through :mod:`serve.http.errors` (one shape, no stack
trace). The artifact set is verified and mounted in the background when the app starts, so
``/healthz`` answers at once and ``/readyz`` says 503 ``mount_pending`` until it is done.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import socket
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import uvicorn
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route, Router

from legal.errors import LexError
from serve.admission import AdmissionLimits, RateLimiter
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
from serve.mcp_server import McpHttpEndpoint, build_server, transport_security
from serve.mount import ArtifactIdentity, Core, CoreBackend, MountConfig, ServeState
from serve.web import routes as web_routes

log = logging.getLogger("serve")

BODY_LIMIT = 64 * 1024
ASSISTANT_MODULE = "assistant.web"


@dataclass(frozen=True)
class AppSettings:
    """Edge settings (admission limits, body limit, deadline, trusted proxies, MCP hosts)."""

    limits: AdmissionLimits = field(default_factory=AdmissionLimits)
    body_limit: int = BODY_LIMIT
    deadline: float = 10.0
    trust_forwarded: bool = False
    allowed_hosts: tuple[str, ...] = ()
    mount_on_startup: bool = True


class LegalCoreBackend:
    """The production backend: :class:`serve.core.LegalCore`, imported on first use."""

    def _core_class(self) -> Any:
        return importlib.import_module("serve.core").LegalCore

    def __init__(self, required: tuple[str, ...] = ()) -> None:
        self.required = required

    def empty(self) -> Core:
        core: Core = self._core_class().empty()
        return core

    def mount(self, directory: Path, artifact: ArtifactIdentity) -> Core:
        core: Core = self._core_class().mount(directory, artifact.to_dict(), publishers=self.required or None)
        # hybrid retrieval only with a signed, passing benchmark report (LEX_HYBRID_REPORT); never raises
        importlib.import_module("hybrid.activate").activate_from_env(core, directory)
        return core

    def publishers(self, core: Core) -> tuple[str, ...]:
        return tuple(str(p) for p in getattr(core, "publishers", ()))


def core_operations() -> Mapping[str, Any]:
    """The legal core's ``OPERATIONS`` (the single source of schemas)."""
    operations: Mapping[str, Any] = importlib.import_module("serve.core").OPERATIONS
    return operations


def new_state(config: MountConfig, limits: AdmissionLimits | None = None,
              backend: CoreBackend | None = None) -> ServeState:
    """A :class:`ServeState` over the production legal core (nothing mounted yet)."""
    backend = backend or LegalCoreBackend(config.required_publishers)
    return ServeState(config, backend, limits or AdmissionLimits())


def assistant_routes() -> list[BaseRoute]:
    """The assistant's routes (``POST /ask`` …) when its web package is installed."""
    try:
        if importlib.util.find_spec(ASSISTANT_MODULE) is None:
            return []
        routes = getattr(importlib.import_module(ASSISTANT_MODULE), "routes", None)
    except ImportError:
        log.warning("the assistant web routes could not be imported; serving without them")
        return []
    if callable(routes) and not isinstance(routes, Router):
        routes = routes()
    if isinstance(routes, Router):
        return list(routes.routes)
    return list(routes) if isinstance(routes, Sequence) else []


async def http_exception_handler(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    response = edge_error(request.scope, http_exception_error(status), status)
    if isinstance(exc, HTTPException) and exc.headers:
        response.headers.update(exc.headers)
    return response


#: Routes that enforce their own deadlines (the assistant's turn deadlines).
SELF_BOUNDED_PATHS = ("/ask",)


def _middleware(settings: AppSettings) -> list[Middleware]:
    return [
        Middleware(SecurityHeadersMiddleware),
        Middleware(CatchAllMiddleware),
        Middleware(DeadlineMiddleware, seconds=settings.deadline, exempt=SELF_BOUNDED_PATHS),
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
            yield
            group.cancel_scope.cancel()

    return lifespan


async def _mount_in_background(state: ServeState) -> None:
    mounted = await anyio.to_thread.run_sync(state.mount, abandon_on_cancel=True)
    if mounted.refusal is not None:
        log.warning("nothing mounted: %s/%s %s", mounted.refusal.family, mounted.refusal.code,
                    mounted.refusal.message)
    else:
        log.info("mounted artifact set %s (%s)", mounted.artifact.set_id if mounted.artifact else "?",
                 ", ".join(mounted.publishers))


def create_app(state: ServeState, settings: AppSettings | None = None,
               operations: Mapping[str, Any] | None = None) -> Starlette:
    """The whole serving app over ``state`` (HTTP API, MCP, web pages, health)."""
    settings = settings or AppSettings()
    ops: dict[str, Operation] = catalog(operations if operations is not None else core_operations())
    mcp = McpHttpEndpoint(build_server(lambda: state, ops), transport_security(settings.allowed_hosts))
    assistant = assistant_routes()
    routes: list[BaseRoute] = [
        *health.routes(),
        *api.routes(),
        Route("/mcp", mcp, name="mcp"),
        *assistant,
        *web_routes.routes(),
    ]
    app = Starlette(
        routes=routes,
        middleware=_middleware(settings),
        exception_handlers={LexError: lex_error_handler, HTTPException: http_exception_handler},
        lifespan=_lifespan(mcp, settings),
    )
    app.state.lex = state
    app.state.catalog = ops
    app.state.openapi = None
    app.state.ask_enabled = bool(assistant)
    return app


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


def run(state: ServeState, settings: AppSettings, *, host: str, port: int,
        announce: Callable[[str], None], log_level: str = "warning") -> None:
    """Serve ``state`` with uvicorn until interrupted; ``announce`` receives the URL."""
    app = create_app(state, settings)
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level, lifespan="on",
                            access_log=False, server_header=False, timeout_graceful_shutdown=5)
    try:
        _AnnouncingServer(config, announce).run()
    except KeyboardInterrupt:  # uvicorn re-raises the SIGINT it handled, after a clean shutdown
        pass
    finally:
        state.close()
