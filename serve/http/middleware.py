"""Pure ASGI middleware of the edge: security headers, deadline, rate limit, body limit.

Each one is small and answers its own refusal in the shape of the path
(:func:`serve.http.errors.edge_error`). None of them reads the body except the body limit,
which counts bytes as they arrive and refuses past the limit with 413 ``request_too_large``.
"""

from __future__ import annotations

import logging

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from legal.errors import LexError, RequestError
from serve.admission import DeadlineExceeded, RateLimiter, TransportError
from serve.http.errors import edge_error, internal_error

log = logging.getLogger("serve.http")

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=(), interest-cohort=()"),
    (b"content-security-policy",
     b"default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
     b"base-uri 'none'; frame-ancestors 'none'"),
)
EXEMPT_PREFIXES = ("/healthz", "/readyz", "/static/")


class SecurityHeadersMiddleware:
    """Adds the security headers to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {bytes(k).lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class CatchAllMiddleware:
    """The single catch at the edge: a typed error keeps its shape, anything else becomes the
    fixed ``internal/internal_error`` (logged here, never sent to the client)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        tracker = _ResponseTracker(send)
        try:
            await self.app(scope, receive, tracker)
        except Exception as exc:  # the one catch-all of the edge
            if tracker.started:
                raise
            if isinstance(exc, LexError):
                await edge_error(scope, exc)(scope, receive, send)
                return
            log.error("unexpected failure on %s", scope.get("path"), exc_info=exc)
            await edge_error(scope, internal_error(), 500)(scope, receive, send)


class _ResponseTracker:
    """Wraps ``send`` and remembers whether the response has started."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self.started = False

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.started = True
        await self._send(message)


class DeadlineMiddleware:
    """Every HTTP request gets ``seconds`` to complete; past it, 504 ``deadline_exceeded``.

    Paths under ``exempt`` prefixes bound themselves (the assistant's ``/ask`` has its own
    planner, first-result and synthesis deadlines and must return its deterministic reply when
    they expire, not a 504 cut by this edge deadline).
    """

    def __init__(self, app: ASGIApp, seconds: float, exempt: tuple[str, ...] = ()) -> None:
        self.app = app
        self.seconds = seconds
        self.exempt = exempt

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or str(scope.get("path", "")).startswith(self.exempt):
            await self.app(scope, receive, send)
            return
        tracker = _ResponseTracker(send)
        with anyio.move_on_after(self.seconds) as cancel_scope:
            await self.app(scope, receive, tracker)
        if cancel_scope.cancelled_caught and not tracker.started:
            error = DeadlineExceeded("the request did not complete within its deadline")
            await edge_error(scope, error)(scope, receive, send)


def client_id(scope: Scope, trust_forwarded: bool = False) -> str:
    """The client a request is charged to: the peer address, or the last forwarded entry."""
    if trust_forwarded:
        for key, value in scope.get("headers", ()):
            if key == b"x-forwarded-for":
                last = bytes(value).decode("latin-1").split(",")[-1].strip()
                if last:
                    return last[:64]
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


class RateLimitMiddleware:
    """Charges each request (health, readiness and static files excepted) to its client."""

    def __init__(self, app: ASGIApp, limiter: RateLimiter, trust_forwarded: bool = False) -> None:
        self.app = app
        self.limiter = limiter
        self.trust_forwarded = trust_forwarded

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.limiter.enabled and not _exempt(scope):
            try:
                self.limiter.check(client_id(scope, self.trust_forwarded))
            except TransportError as error:
                await edge_error(scope, error)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _exempt(scope: Scope) -> bool:
    return str(scope.get("path", "")).startswith(EXEMPT_PREFIXES)


class _TooLarge(Exception):
    pass


def _content_length(scope: Scope) -> int | None:
    for key, value in scope.get("headers", ()):
        if key == b"content-length":
            try:
                return int(bytes(value))
            except ValueError:
                return None
    return None


class BodyLimitMiddleware:
    """Refuses request bodies over ``limit`` bytes with 413 ``request_too_large``."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.limit:
            await self._refuse(scope, receive, send)
            return
        tracker = _ResponseTracker(send)
        total = 0

        async def counted_receive() -> Message:
            nonlocal total
            message = await receive()
            if message["type"] == "http.request":
                total += len(message.get("body", b""))
                if total > self.limit:
                    raise _TooLarge
            return message

        try:
            await self.app(scope, counted_receive, tracker)
        except _TooLarge:
            if tracker.started:
                raise
            await self._refuse(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        error = RequestError(f"request body is larger than {self.limit} bytes", code="request_too_large")
        await edge_error(scope, error)(scope, receive, send)
