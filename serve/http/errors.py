"""The one error shape of the HTTP edge, and its HTTP status.

Every refusal leaves the server as ``{"error": {"family", "code", "message", "subject"?}}``,
the :meth:`legal.errors.LexError.to_dict` of the error. On ``/mcp`` the same object rides
inside a JSON-RPC error (``error.data``) because MCP clients read JSON-RPC; on web pages a
small HTML page says the same. An unexpected exception becomes the fixed
``internal/internal_error`` object: no exception text, no stack trace.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.types import Scope

from legal.errors import (
    ConfigError,
    IdentityError,
    IndexError_,
    IntegrityError,
    LexError,
    ReleaseError,
    RequestError,
    TemporalError,
)
from serve.admission import TransportError

_REQUEST_STATUS = {
    "request_too_large": 413,
    "unknown_operation": 404,
    "not_found": 404,
    "method_not_allowed": 405,
    "unsupported_media_type": 415,
}
_JSONRPC_CODE = {"busy": -32001, "rate_limited": -32002, "request_too_large": -32003}


class InternalError(LexError):
    """What the caller sees of an unexpected failure: nothing but this."""

    family = "internal"
    default_code = "internal_error"


def internal_error() -> InternalError:
    return InternalError("the server could not answer this request")


def status_for(error: LexError) -> int:
    """The HTTP status of a typed error."""
    if isinstance(error, TransportError):
        return error.status
    if error.code == "deadline_exceeded":
        return 504
    if isinstance(error, RequestError):
        return _REQUEST_STATUS.get(error.code, 400)
    if isinstance(error, (IdentityError, TemporalError)):
        return 400
    if isinstance(error, (ReleaseError, IndexError_, IntegrityError, ConfigError)):
        return 503
    return 500


def error_body(error: LexError) -> dict[str, Any]:
    return {"error": error.to_dict()}


def _headers(error: LexError) -> dict[str, str]:
    if isinstance(error, TransportError) and (value := error.retry_after_header()):
        return {"Retry-After": value}
    return {}


def json_error(error: LexError, status: int | None = None) -> JSONResponse:
    """The JSON error response of ``error``."""
    return JSONResponse(error_body(error), status_code=status or status_for(error), headers=_headers(error))


def jsonrpc_error(error: LexError, request_id: Any = None, status: int | None = None) -> JSONResponse:
    """The same error as a JSON-RPC 2.0 error object (for ``/mcp``)."""
    code = _JSONRPC_CODE.get(error.code, -32600 if isinstance(error, RequestError) else -32603)
    body = {"jsonrpc": "2.0", "id": request_id,
            "error": {"code": code, "message": error.code, "data": error_body(error)}}
    return JSONResponse(body, status_code=status or status_for(error), headers=_headers(error))


def html_error(error: LexError, status: int | None = None) -> HTMLResponse:
    """A minimal, escaped HTML page for a refusal met outside the web views."""
    info = error.to_dict()
    page = (
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{html.escape(info['code'])}</title><link rel=\"stylesheet\" href=\"/static/style.css\">"
        "</head><body><main class=\"page\"><h1>Not served</h1>"
        f"<p class=\"refusal\"><code>{html.escape(info['family'])}/{html.escape(info['code'])}</code> "
        f"{html.escape(info['message'])}</p><p><a href=\"/\">Search</a></p></main></body></html>"
    )
    return HTMLResponse(page, status_code=status or status_for(error), headers=_headers(error))


def wants_html(scope: Scope) -> bool:
    """True for browser page requests (not the API, not MCP, not health)."""
    path = str(scope.get("path", ""))
    if path.startswith(("/api/", "/mcp", "/openapi.json", "/healthz", "/readyz")):
        return False
    accept = _header(scope, b"accept")
    return "text/html" in accept


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).decode("latin-1")
    return ""


def edge_error(scope: Scope, error: LexError, status: int | None = None) -> Response:
    """The error response in the shape the path speaks: JSON-RPC, HTML or the JSON shape."""
    path = str(scope.get("path", ""))
    if path == "/mcp" or path.startswith("/mcp/"):
        return jsonrpc_error(error, status=status)
    if wants_html(scope):
        return html_error(error, status)
    return json_error(error, status)


async def lex_error_handler(request: Request, exc: Exception) -> Response:
    """Starlette exception handler for :class:`LexError` raised by a view."""
    error = exc if isinstance(exc, LexError) else internal_error()
    return edge_error(request.scope, error)


def http_exception_error(status: int, detail: str | None = None) -> LexError:
    """A Starlette ``HTTPException`` (404 route, 405 method) as a typed request error."""
    codes: Mapping[int, str] = {404: "not_found", 405: "method_not_allowed", 413: "request_too_large",
                                415: "unsupported_media_type"}
    code = codes.get(status, "invalid_request")
    return RequestError(detail or code.replace("_", " "), code=code)
