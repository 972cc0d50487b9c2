"""The assistant's web boundary: ``POST /ask`` (JSON or SSE), thread reset, the ask panel.

``routes`` is a list of Starlette routes the HTTP app mounts; the composition root
(``cli/serve.py``) hands them, :data:`TEMPLATES`, :data:`PANEL_TEMPLATE` and
:data:`SELF_BOUNDED_PATHS` to ``serve.app.create_app`` (serve never imports the assistant). A request body is exactly
``{"message": "<1..1,000 characters>"}`` (at most 65,536 bytes); the conversation lives on the
server (:mod:`assistant.memory`) behind the opaque ``X-Lex-Thread-Token``; admission and
``Idempotency-Key`` are checked here. With ``Accept: text/event-stream`` the turn streams
``phase``, ``step``, ``operation_result`` and ``synthesis`` events and ends with ``done``,
whose payload equals the JSON body a non-streaming request receives.

State is created on the first request, never at import: ``app.state.assistant_web`` (an
:class:`AskWeb`) may be set by the host app; otherwise one is built over ``app.state.assistant``
(an :class:`~assistant.service.Assistant`) or over the mounted legal core of
``app.state.lex``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import secrets
import time
import uuid
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from assistant.admission import (
    Admission,
    AdmissionLease,
    AdmissionRefused,
    Entry,
    IdempotencyConflict,
    IdempotencyRegistry,
    fingerprint,
    valid_key,
)
from assistant.memory import Lease, ThreadError, ThreadRegistry
from assistant.service import AskOutcome, Assistant

MAX_BODY = 65_536
MAX_MESSAGE = 1000
PURPOSE = "ask-v1"
STREAM_VERSION = "1"
TEMPLATES = Path(__file__).parent / "templates"
#: The ask panel the host app includes on its work pages (found under :data:`TEMPLATES`).
PANEL_TEMPLATE = "assistant/ask_panel.html"
#: Paths whose turn deadlines the assistant enforces itself (the host's edge deadline skips them).
SELF_BOUNDED_PATHS = ("/ask",)
_STATUS = {"thread_unavailable": 409, "thread_busy": 429, "thread_capacity": 503, "key_reused": 409,
           "replay_unavailable": 409, "busy": 429, "per_client_quota": 429, "global_quota": 429}
_HEADERS = {"Cache-Control": "private, no-store, max-age=0"}


@dataclass
class AskWeb:
    """Per-process web state: the assistant source, threads, admission, idempotency."""

    assistant_source: Callable[[], Assistant | None]
    threads: ThreadRegistry = field(default_factory=ThreadRegistry)
    admission: Admission = field(default_factory=Admission)
    idempotency: IdempotencyRegistry = field(default_factory=IdempotencyRegistry)

    @classmethod
    def for_app(cls, app: Any) -> AskWeb:
        env = dict(os.environ)
        return cls(_assistant_source(app, env), admission=Admission.from_env(env))


def _assistant_source(app: Any, env: Mapping[str, str]) -> Callable[[], Assistant | None]:
    cache: dict[int, Assistant] = {}

    def source() -> Assistant | None:
        fixed = getattr(app.state, "assistant", None)
        if isinstance(fixed, Assistant):
            return fixed
        lex = getattr(app.state, "lex", None)
        mounted = getattr(lex, "mounted", None)
        if lex is None or mounted is None or getattr(mounted, "status", None) != "mounted":
            return None
        core = mounted.core
        if id(core) not in cache:
            from assistant.build import assistant_for_core

            cache.clear()
            cache[id(core)] = assistant_for_core(core, env, call=lex.call)
        return cache[id(core)]

    return source


def web_state(request: Request) -> AskWeb:
    state = getattr(request.app.state, "assistant_web", None)
    if not isinstance(state, AskWeb):
        state = AskWeb.for_app(request.app)
        request.app.state.assistant_web = state
    return state


def error_body(family: str, code: str, message: str) -> dict[str, Any]:
    """The project's one error shape (as every other route answers), with an empty reply."""
    return {"error": {"family": family, "code": code, "message": message}, "reply": ""}


def _error(status: int, code: str, message: str, family: str = "request") -> JSONResponse:
    return JSONResponse(error_body(family, code, message), status_code=status, headers=_HEADERS)


def client_address(request: Request) -> str:
    """The last ``X-Forwarded-For`` element (appended by the ingress), else the peer."""
    forwarded = request.headers.get("x-forwarded-for", "")
    parts = [p.strip() for p in forwarded.split(",") if p.strip()]
    if parts:
        return parts[-1]
    return request.client.host if request.client else "unknown"


async def read_body(request: Request) -> bytes | None:
    """At most ``MAX_BODY`` bytes, whatever Content-Length claims; ``None`` when larger."""
    data = bytearray()
    async for chunk in request.stream():
        data.extend(chunk)
        if len(data) > MAX_BODY:
            return None
    return bytes(data)


def parse_message(raw: bytes) -> str | None:
    try:
        value = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(value, dict) or set(value) != {"message"} or not isinstance(value["message"], str):
        return None
    message: str = value["message"]
    return message if 1 <= len(message.strip()) <= MAX_MESSAGE and len(message) <= MAX_MESSAGE else None


def sse_frame(name: str, request_id: str, sequence: int, elapsed_ms: int, payload: Any) -> bytes:
    envelope = {"version": STREAM_VERSION, "request_id": request_id, "sequence": sequence,
                "server_elapsed_ms": elapsed_ms, "payload": payload}
    return f"event: {name}\ndata: {json.dumps(envelope, ensure_ascii=False)}\n\n".encode()


@dataclass
class _Turn:
    """One admitted request: its entry, lease, admission slot and event queue."""

    state: AskWeb
    assistant: Assistant
    message: str
    key: str
    entry: Entry
    token: str | None
    request_id: str
    queue: asyncio.Queue[tuple[str, Any] | None] = field(default_factory=asyncio.Queue)
    started: float = field(default_factory=time.monotonic)

    async def emit(self, name: str, payload: Mapping[str, Any]) -> None:
        event = (name, dict(payload))
        if name == "operation_result":
            self.entry.events.append(event)
        await self.queue.put(event)


async def _run_turn(turn: _Turn, client: str) -> tuple[int, dict[str, Any]]:
    """Lease the thread, admit, ask, commit; always completes the idempotency entry."""
    status, retain = 500, False
    body: dict[str, Any] = error_body("lex", "internal_error", "the assistant turn failed")
    lease: Lease | None = None
    slot: AdmissionLease | None = None
    try:
        lease = await turn.state.threads.acquire(turn.token)
        slot = turn.state.admission.admit(client)
        outcome = await turn.assistant.ask(turn.message, history=lease.history, context=lease.context,
                                           emit=turn.emit, request_id=turn.request_id)
        status, body, retain = outcome.status, outcome.body, outcome.retain
        if _commit(lease, turn, outcome) or turn.token is not None:
            body["thread_token"] = lease.token
    except (ThreadError, AdmissionRefused) as exc:
        status, body = _STATUS.get(exc.code, 503), error_body(exc.family, exc.code, exc.message)
    except Exception:
        logging.getLogger(__name__).exception("assistant turn failed")
    finally:
        body = {**body, "status": status}
        if slot is not None:
            slot.release()
        if lease is not None:
            lease.release()
        turn.state.idempotency.complete(turn.key, turn.entry, status, body, retain)
        await turn.queue.put(None)
    return status, body


def _commit(lease: Lease, turn: _Turn, outcome: AskOutcome) -> bool:
    reply = str(outcome.body.get("reply") or "")
    if outcome.status != 200 or outcome.body.get("error") or not reply.strip():
        return False
    try:
        lease.commit(turn.message, reply, outcome.context, outcome.disposition)
    except ThreadError:
        return False
    return True


async def _stream(turn: _Turn, task: asyncio.Task[tuple[int, dict[str, Any]]] | None) -> AsyncIterator[bytes]:
    sequence = 0

    def frame(name: str, payload: Any) -> bytes:
        nonlocal sequence
        sequence += 1
        elapsed = int((time.monotonic() - turn.started) * 1000)
        return sse_frame(name, turn.request_id, sequence, elapsed, payload)

    streamed = 0
    while True:
        event = await turn.queue.get()
        if event is None:
            break
        streamed += event[0] == "operation_result"
        yield frame(*event)
    if task is not None:
        await task
    body = turn.entry.body or {}
    if not streamed:
        for operation in body.get("operations") or []:
            yield frame("operation_result", operation)
    yield frame("done", body)


async def _replay(entry: Entry, request_id: str) -> AsyncIterator[bytes]:
    await entry.done.wait()
    started = time.monotonic()
    body = entry.body or {}
    events = [*(("operation_result", op) for op in body.get("operations") or []), ("done", body)]
    for sequence, (name, payload) in enumerate(events, start=1):
        yield sse_frame(name, request_id, sequence, int((time.monotonic() - started) * 1000), payload)


def _wants_stream(request: Request) -> bool:
    return "text/event-stream" in request.headers.get("accept", "")


async def ask_endpoint(request: Request) -> Response:
    state = web_state(request)
    raw = await read_body(request)
    if raw is None:
        return _error(413, "request_too_large", "the request body exceeds 65,536 bytes")
    message = parse_message(raw)
    if message is None:
        return _error(400, "invalid_body", 'the body must be exactly {"message": "<1..1000 characters>"}')
    key = request.headers.get("idempotency-key") or uuid.uuid4().hex
    token = request.headers.get("x-lex-thread-token") or None
    if not valid_key(key):
        return _error(400, "invalid_idempotency_key", "the idempotency key has 1-128 [A-Za-z0-9._-]")
    assistant = state.assistant_source()
    if assistant is None:
        return _error(503, "assistant_disabled", "no verified legal core is mounted", family="config")
    if Assistant.is_non_selection(message):
        outcome = await assistant.ask(message)
        return JSONResponse({**outcome.body, "status": outcome.status}, headers=_HEADERS)
    try:
        claim = state.idempotency.claim(key, fingerprint(PURPOSE, token, raw))
    except IdempotencyConflict as exc:
        return _error(_STATUS.get(exc.code, 409), exc.code, exc.message, family=exc.family)
    request_id = uuid.uuid4().hex
    headers = {**_HEADERS, "X-Lex-Request-Id": request_id}
    if not claim.owner:
        if _wants_stream(request):
            return StreamingResponse(_replay(claim.entry, request_id), media_type="text/event-stream",
                                     headers={**headers, "X-Accel-Buffering": "no"})
        await claim.entry.done.wait()
        return JSONResponse(claim.entry.body, status_code=claim.entry.status, headers=headers)
    turn = _Turn(state, assistant, message, key, claim.entry, token, request_id)
    task = asyncio.create_task(_run_turn(turn, client_address(request)))
    if _wants_stream(request):
        return StreamingResponse(_stream(turn, task), media_type="text/event-stream",
                                 headers={**headers, "X-Accel-Buffering": "no"})
    status, body = await task
    return JSONResponse(body, status_code=status, headers=headers)


async def reset_endpoint(request: Request) -> Response:
    state = web_state(request)
    token = request.headers.get("x-lex-thread-token") or ""
    removed = state.threads.reset(token)
    return JSONResponse({"reset": removed}, headers=_HEADERS)


def panel_html(endpoint: str = "/ask", nonce: str = "") -> str:
    """The ask panel fragment (no Jinja needed): the same markup the template renders.

    ``nonce`` is the Content-Security-Policy nonce that lets the panel's inline script run.
    """
    template = (TEMPLATES / PANEL_TEMPLATE).read_text(encoding="utf-8")
    safe = json.dumps(endpoint)[1:-1].replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    html = template.replace("{{ ask_endpoint | default('/ask') }}", safe)
    return html.replace("{{ csp_nonce | default('') }}", nonce)


#: The panel's own response may run only its nonce-carrying inline script and call this origin.
PANEL_CSP = ("default-src 'none'; script-src 'nonce-{nonce}'; connect-src 'self'; style-src 'self' 'unsafe-inline'; "
             "frame-ancestors 'none'; base-uri 'none'; form-action 'self'")


async def panel_endpoint(request: Request) -> Response:
    base = request.url.path.rsplit("/panel", 1)[0] or "/ask"
    nonce = secrets.token_urlsafe(16)
    headers = {**_HEADERS, "content-security-policy": PANEL_CSP.format(nonce=nonce)}
    return HTMLResponse(panel_html(base, nonce), headers=headers)


routes: list[BaseRoute] = [
    Route("/ask", ask_endpoint, methods=["POST"], name="ask"),
    Route("/ask/thread/reset", reset_endpoint, methods=["POST"], name="ask_thread_reset"),
    Route("/ask/panel", panel_endpoint, methods=["GET"], name="ask_panel"),
]

__all__ = ["PANEL_TEMPLATE", "SELF_BOUNDED_PATHS", "TEMPLATES", "AskWeb", "panel_html", "routes", "web_state"]
