"""The edge request deadline cuts ordinary requests but not self-bounded paths (``/ask``)."""

from __future__ import annotations

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from assistant.web import SELF_BOUNDED_PATHS
from serve.http.middleware import DeadlineMiddleware


async def slow(request: Request) -> PlainTextResponse:
    await anyio.sleep(0.3)
    return PlainTextResponse("done")


def _client() -> TestClient:
    app = Starlette(routes=[Route("/ask", slow, methods=["POST"]), Route("/api/v1/slow", slow, methods=["POST"])])
    return TestClient(DeadlineMiddleware(app, seconds=0.05, exempt=SELF_BOUNDED_PATHS))


def test_ordinary_request_past_the_deadline_is_504() -> None:
    assert _client().post("/api/v1/slow").status_code == 504


def test_ask_keeps_its_own_deadlines() -> None:
    response = _client().post("/ask")
    assert response.status_code == 200 and response.text == "done"
