"""The HTTP JSON API: ``POST /api/v1/{operation}`` (and ``GET`` with query parameters).

Arguments are validated against the operation's own schema (unknown members refused), then
the legal core answers through the admission gate. A legal answer is always HTTP 200 with
its closed ``status`` (``ok``, ``unknown_work``, ``no_corpus_mounted``, …): an honest answer
is not an HTTP error. Refusals of the request itself use the one error shape.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from legal.errors import RequestError
from serve.http.catalog import Operation
from serve.http.encoding import EncodedResponse
from serve.http.openapi import openapi_document
from serve.http.validation import arguments_from_query, parse_json_body, validate_arguments
from serve.mount import ServeState

API_PREFIX = "/api/v1"


def state_of(request: Request) -> ServeState:
    state: ServeState = request.app.state.lex
    return state


def catalog_of(request: Request) -> dict[str, Operation]:
    operations: dict[str, Operation] = request.app.state.catalog
    return operations


def _operation(request: Request) -> Operation:
    name = str(request.path_params["operation"])
    operation = catalog_of(request).get(name)
    if operation is None:
        raise RequestError("no such operation", code="unknown_operation", subject=name[:64])
    return operation


async def _arguments(request: Request, operation: Operation) -> object:
    if request.method == "GET":
        if not operation.query_ok:
            raise RequestError("this operation takes a JSON body; use POST", code="method_not_allowed")
        return arguments_from_query(operation, request.query_params.multi_items())
    if request.query_params:
        raise RequestError("POST takes its arguments in the JSON body, not the query",
                           code="unknown_argument", subject=next(iter(request.query_params))[:64])
    body = await request.body()
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if body.strip() and media not in ("application/json", ""):
        raise RequestError("send arguments as application/json", code="unsupported_media_type")
    return parse_json_body(body)


async def call_operation(request: Request) -> Response:
    """Validate the arguments of one operation, call the legal core, return its answer."""
    operation = _operation(request)
    arguments = validate_arguments(operation, await _arguments(request, operation))
    return EncodedResponse(await state_of(request).call_encoded(operation.name, arguments))


def describe(operation: Operation) -> dict[str, Any]:
    return {
        "name": operation.name,
        "description": operation.description,
        "effect": operation.effect,
        "methods": ["POST", "GET"] if operation.query_ok else ["POST"],
        "path": f"{API_PREFIX}/{operation.name}",
        "input_schema": operation.closed_schema(),
    }


async def list_operations(request: Request) -> Response:
    """The catalogue: every operation with its argument schema."""
    return JSONResponse({"operations": [describe(op) for op in catalog_of(request).values()]})


async def openapi(request: Request) -> Response:
    """The OpenAPI 3.1 document, generated from the same catalogue."""
    document = request.app.state.openapi
    if document is None:
        document = request.app.state.openapi = openapi_document(catalog_of(request))
    return JSONResponse(document)


def routes() -> list[Route]:
    return [
        Route(API_PREFIX, list_operations, methods=["GET"], name="api_operations"),
        Route(f"{API_PREFIX}/{{operation}}", call_operation, methods=["GET", "POST"], name="api_call"),
        Route("/openapi.json", openapi, methods=["GET"], name="openapi"),
    ]
