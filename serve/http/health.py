"""Liveness and readiness.

``/healthz`` answers 200 ``ok`` whenever the process is up. ``/readyz`` answers 200 only when
a verified artifact set is mounted with every required publisher index; otherwise 503 with
the typed reason (``release/bad_signature``, ``release/missing_file``, ``serve/mount_pending``…).
Under several worker processes (``lex serve --workers N``) each worker answers for itself and
``/readyz`` says which one did (``worker``). With an answer cache (``lex serve --answer-cache``)
``/readyz`` also shows that process's cache of the mounted set (``answer_cache``: entries, bytes
kept, budget, hits, misses; :meth:`serve.answers.AnswerCache.stats`).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from serve.mount import ServeState


async def healthz(request: Request) -> Response:
    return PlainTextResponse("ok")


async def readyz(request: Request) -> Response:
    state: ServeState = request.app.state.lex
    mounted = state.mounted
    document = mounted.readiness()
    if state.worker is not None:
        document["worker"] = state.worker
    stats = state.answer_stats()
    if stats is not None:
        document["answer_cache"] = stats
    return JSONResponse(document, status_code=200 if mounted.ready else 503)


def routes() -> list[Route]:
    return [
        Route("/healthz", healthz, methods=["GET"], name="healthz"),
        Route("/readyz", readyz, methods=["GET"], name="readyz"),
    ]
