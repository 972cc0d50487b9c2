"""The ``/mcp`` endpoint of the served app (streamable HTTP, stateless, JSON responses), which loads
the MCP SDK only when the first MCP request arrives.

The SDK (:mod:`serve.mcp_server` and what it imports: the ``mcp`` package, its pydantic models,
its HTTP client) adds ~30 MB to a process. A served worker that is never asked for MCP never loads
it: the endpoint's session manager starts with the app's lifespan but waits, and the first ``POST
/mcp`` imports the SDK (in a thread, off the event loop), builds the server over the same catalogue
and state, starts the session manager and then answers; every later request goes straight to it.
Each worker loads it on its own first MCP request (after a fork a worker cannot share what it
imports), so a deployment whose clients speak MCP pays the SDK once per worker and the first MCP
request of each worker waits for the import (about a second).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any

import anyio
from starlette.types import Receive, Scope, Send

from legal.errors import RequestError
from serve.admission import TransportError
from serve.http.catalog import Operation
from serve.http.errors import jsonrpc_error
from serve.mount import ServeState

log = logging.getLogger("serve.mcp")

#: seconds the first MCP request waits for the SDK to load before it is answered ``busy``
LOAD_WAIT = 60.0


def _session_manager(state: Callable[[], ServeState], catalog: Mapping[str, Operation],
                     allowed_hosts: tuple[str, ...]) -> Any:
    """Import the SDK and build a fresh session manager over ``catalog`` (runs in a thread)."""
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

    from serve.mcp_server import MAX_BODY, build_server, transport_security

    return StreamableHTTPSessionManager(app=build_server(state, catalog), json_response=True, stateless=True,
                                        security_settings=transport_security(allowed_hosts),
                                        max_request_body_size=MAX_BODY)


class McpHttpEndpoint:
    """The ``/mcp`` ASGI endpoint; a fresh session manager runs for each app lifespan, started on
    the lifespan's first MCP request."""

    def __init__(self, state: Callable[[], ServeState], catalog: Mapping[str, Operation],
                 allowed_hosts: tuple[str, ...] = ()) -> None:
        self._state = state
        self._catalog = catalog
        self._allowed_hosts = allowed_hosts
        self._manager: Any = None
        self._wanted: anyio.Event | None = None
        self._ready: anyio.Event | None = None

    @property
    def loaded(self) -> bool:
        """Whether this lifespan's session manager runs (the SDK was loaded and started)."""
        return self._manager is not None

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        wanted, ready = anyio.Event(), anyio.Event()
        async with anyio.create_task_group() as group:
            self._wanted, self._ready = wanted, ready
            group.start_soon(self._run_when_wanted, wanted, ready)
            try:
                yield
            finally:
                self._wanted = self._ready = None
                group.cancel_scope.cancel()

    async def _run_when_wanted(self, wanted: anyio.Event, ready: anyio.Event) -> None:
        await wanted.wait()
        try:
            manager = await anyio.to_thread.run_sync(_session_manager, self._state, self._catalog,
                                                     self._allowed_hosts)
        except Exception:
            log.exception("the MCP SDK could not be loaded")
            ready.set()
            return
        async with manager.run():
            self._manager = manager
            ready.set()
            try:
                await anyio.sleep_forever()
            finally:
                self._manager = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("method") != "POST":
            # stateless, JSON responses: no server-sent event stream to hold open (GET) and no
            # session to end (DELETE); answer at once instead of an idle stream
            refusal = RequestError("the MCP endpoint takes POST (stateless, JSON responses)",
                                   code="method_not_allowed")
            response = jsonrpc_error(refusal, status=405)
            response.headers["Allow"] = "POST"
            await response(scope, receive, send)
            return
        manager = self._manager
        if manager is None and self._wanted is not None and self._ready is not None:
            ready = self._ready
            self._wanted.set()
            with anyio.move_on_after(LOAD_WAIT):
                await ready.wait()
            manager = self._manager
        if manager is None:
            error = TransportError("the MCP endpoint is not running", code="busy", retry_after=1)
            await jsonrpc_error(error, status=503)(scope, receive, send)
            return
        await manager.handle_request(scope, receive, send)
