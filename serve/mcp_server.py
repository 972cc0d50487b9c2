"""The ten legal operations as MCP tools (official SDK, low-level ``Server``), over two transports.

- Streamable HTTP at ``/mcp`` inside the same Starlette app (stateless, JSON responses),
  behind the same body limit, rate limit and admission gate as the HTTP API.
- stdio (``lex mcp``): the same server object over standard input/output.

Tool names, descriptions and input schemas are projected from the legal core's catalogue;
arguments are validated against that same schema before the core runs. A refusal of the
arguments is a tool result with ``isError: true`` carrying the one error shape; a legal answer
(including ``no_corpus_mounted``) is a normal result with the answer as compact JSON text and
as structured content. Nothing about an unexpected failure leaks beyond a fixed message.

A tool call's handler returns the result in its wire form (:func:`answer_wire`: the dictionary
``CallToolResult.model_dump(by_alias=True, mode="json", exclude_none=True)`` would give), which the
SDK's runner takes as it is: the answer is not first built into pydantic models and dumped back.
The text is the answer's compact JSON, and it is the very bytes the answer cache keeps or the
encoder wrote once for it (:meth:`serve.mount.ServeState.call_with_bytes`), not a second dump of
the answer (indenting it made the text a quarter longer for the SDK to escape and send).

The SDK's runner then validates the result against the client's protocol version and dumps it
again (``mcp_types.methods.serialize_server_result``): a walk of the whole structured content in
pydantic, per call, for a value that is JSON already. :class:`StructuredPassThrough` (the innermost
server middleware) spares it that walk: the handler hands the runner the result with its text and
structured content held back (empty stand-ins, :func:`held_back`), the runner validates and shapes
that small result exactly as before (key order, version sieve, the 2026 ``serverInfo`` stamp) and
the middleware puts the two back in the stand-ins' places (:func:`put_back`). The reply the
transport writes is byte for byte the one the SDK alone writes (``tests/serve/test_mcp_pass_through.py`` compares
them in process and over stdio, for the handshake and the 2026 protocol). The tools and their
input schemas are built once per server, not per listing or per call.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from typing import Any, cast

import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError

from legal.errors import LexError
from serve.admission import TransportError
from serve.http.catalog import Operation
from serve.http.encoding import compact
from serve.http.errors import error_body
from serve.http.validation import validate_arguments
from serve.mount import ServeState

log = logging.getLogger("serve.mcp")

SERVER_NAME = "lex"
INSTRUCTIONS = (
    "Point-in-time Luxembourg (Legilux) and EU (EUR-Lex) law. Search first, take the work id, then use "
    "as_of for the wording on a date. Every answer names the artifact set it came from and a closed status; "
    "a refusal such as ambiguous_version or no_version_for_date is an honest answer, not a failure."
)
LOCAL_HOSTS = ("127.0.0.1:*", "localhost:*", "[::1]:*")
MAX_BODY = 64 * 1024
_INVALID_PARAMS = -32602
_INTERNAL_ERROR = -32603
_TRANSPORT_CODES = {"busy": -32001, "rate_limited": -32002, "deadline_exceeded": -32004}

StateProvider = Callable[[], ServeState]


def _version() -> str:
    from serve.http.openapi import _version as package_version

    return package_version()


def tool_of(operation: Operation) -> types.Tool:
    """The MCP tool of one operation: same name, description and (closed) input schema."""
    return types.Tool(
        name=operation.name,
        title=operation.title or None,
        description=operation.description,
        input_schema=operation.closed_schema(),
        annotations=types.ToolAnnotations(read_only_hint=True, idempotent_hint=True, destructive_hint=False,
                                          open_world_hint=False),
    )


#: A tool result in its wire form (``CallToolResult`` as the SDK's runner dumps it).
ToolResult = dict[str, Any]


def _wire(text: str, structured: dict[str, Any], is_error: bool) -> ToolResult:
    """What ``CallToolResult(content=[TextContent(text)], structured_content=structured,
    is_error=is_error).model_dump(by_alias=True, mode="json", exclude_none=True)`` gives, without
    walking ``structured`` (a JSON value already)."""
    return {"content": [{"type": "text", "text": text}], "structuredContent": structured, "isError": is_error,
            "resultType": "complete"}


def answer_wire(answer: Any, encoded: bytes | None = None) -> ToolResult:
    """A legal answer as a tool result: its compact JSON text plus structured content.
    ``encoded``: the answer's compact JSON bytes when they were written already."""
    structured = answer if isinstance(answer, dict) else {"results": answer}
    return _wire((compact(answer) if encoded is None else encoded).decode("utf-8"), structured, False)


def answer_result(answer: Any) -> types.CallToolResult:
    """:func:`answer_wire` as the SDK's model."""
    return types.CallToolResult.model_validate(answer_wire(answer))


def refusal_wire(error: LexError) -> ToolResult:
    """A refused call (bad arguments) as a tool error result carrying the one error shape."""
    body = error_body(error)
    return _wire(json.dumps(body), body, True)


def refusal_result(error: LexError) -> types.CallToolResult:
    """:func:`refusal_wire` as the SDK's model."""
    return types.CallToolResult.model_validate(refusal_wire(error))


async def call_tool(state: ServeState, catalog: Mapping[str, Operation],
                    params: types.CallToolRequestParams) -> ToolResult:
    """Validate, admit and run one tool call; its result in wire form."""
    operation = catalog.get(params.name)
    if operation is None:
        raise MCPError(code=_INVALID_PARAMS, message="unknown tool", data={"tool": params.name[:64]})
    try:
        arguments = validate_arguments(operation, params.arguments or {})
    except LexError as error:
        return refusal_wire(error)
    try:
        answer, encoded = await state.call_with_bytes(operation.name, arguments)
    except TransportError as error:
        raise MCPError(code=_TRANSPORT_CODES.get(error.code, -32000), message=error.code,
                       data=error_body(error)) from None
    except LexError as error:
        return refusal_wire(error)
    except Exception:
        log.exception("tool %s failed", operation.name)
        raise MCPError(code=_INTERNAL_ERROR, message="The MCP tool failed internally.") from None
    return answer_wire(answer, encoded)


#: What :func:`held_back` keeps out of a tool result: its text and its structured content.
Payload = tuple[str, Any]


def held_back(result: ToolResult) -> tuple[ToolResult, Payload | None]:
    """``result`` with its text and structured content replaced by empty stand-ins, and the two
    held back (None, and ``result`` as it is, when it is not one text item plus structured content)."""
    content = result.get("content")
    if not (isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict)
            and isinstance(content[0].get("text"), str) and isinstance(result.get("structuredContent"), dict)):
        return result, None
    stand_in = {**result, "content": [{**content[0], "text": ""}], "structuredContent": {}}
    return stand_in, (content[0]["text"], result["structuredContent"])


def put_back(shaped: dict[str, Any], payload: Payload) -> dict[str, Any]:
    """A result the SDK shaped from :func:`held_back`'s stand-in, with the held back text and
    structured content in the stand-ins' places (the same keys in the same order); a key the
    shaping left out stays out."""
    text, structured = payload
    out = dict(shaped)
    if "structuredContent" in out:
        out["structuredContent"] = structured
    content = out.get("content")
    if isinstance(content, list) and content and isinstance(content[0], dict) and "text" in content[0]:
        out["content"] = [{**content[0], "text": text}, *content[1:]]
    return out


#: Set by :class:`StructuredPassThrough` around one ``tools/call``: where the handler leaves the
#: payload it held back (None: no middleware waits for it, the handler returns the whole result).
_HELD: ContextVar[list[Payload] | None] = ContextVar("lex_mcp_held", default=None)


class StructuredPassThrough:
    """The innermost server middleware: a ``tools/call`` result's text and structured content
    pass the SDK's validating re-dump as they are (see the module docstring). Any other message,
    a refused call and a result not of the expected shape go through the SDK untouched."""

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method != "tools/call":
            return await call_next(ctx)
        held: list[Payload] = []
        token = _HELD.set(held)
        try:
            result = await call_next(ctx)
        finally:
            _HELD.reset(token)
        if len(held) == 1 and isinstance(result, dict):
            return put_back(result, held[0])
        return result


def hand_over(result: ToolResult) -> ToolResult:
    """What the ``tools/call`` handler gives the SDK: under :class:`StructuredPassThrough`, the
    stand-in of :func:`held_back` (its payload left for the middleware); else ``result`` itself."""
    held = _HELD.get()
    if held is None or held:
        return result
    stand_in, payload = held_back(result)
    if payload is not None:
        held.append(payload)
    return stand_in


def build_server(state: StateProvider, catalog: Mapping[str, Operation]) -> Server[Any]:
    """The MCP server listing ``catalog`` as tools and calling the legal core of ``state()``; its
    results' structured content passes the SDK as it is (:class:`StructuredPassThrough`)."""
    tools = [tool_of(op) for op in catalog.values()]
    schemas = {name: op.closed_schema() for name, op in catalog.items()}  # built once, not per call

    async def on_list_tools(ctx: ServerRequestContext[Any],
                            params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(ctx: ServerRequestContext[Any],
                           params: types.CallToolRequestParams) -> types.CallToolResult:
        # the wire form: the SDK's runner takes a handler's dictionary as the result's dump
        # (``mcp.server.context.HandlerResult``), though this callback is typed with the model
        return cast(types.CallToolResult, hand_over(await call_tool(state(), catalog, params)))

    def input_schema(name: str) -> Mapping[str, Any] | None:
        return schemas.get(name)

    server: Server[Any] = Server(SERVER_NAME, version=_version(), instructions=INSTRUCTIONS,
                                 get_tool_input_schema=input_schema, on_list_tools=on_list_tools,
                                 on_call_tool=on_call_tool)
    server.middleware.append(StructuredPassThrough())  # innermost: the SDK's own (tracing) stays outermost
    return server


def transport_security(allowed_hosts: tuple[str, ...] = ()) -> TransportSecuritySettings:
    """DNS-rebinding protection: loopback hosts plus the configured public host names."""
    hosts = [*LOCAL_HOSTS, *allowed_hosts]
    origins = [f"http://{h}" for h in hosts] + [f"https://{h}" for h in allowed_hosts]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts,
                                     allowed_origins=origins)


PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def parse_error_reply(error: Exception) -> Any:
    """The JSON-RPC reply to a stdio line that is not JSON (``-32700``) or not a JSON-RPC
    message (``-32600``); ``id`` is null because it could not be read."""
    kinds = {e.get("type") for e in getattr(error, "errors", lambda: [])()} if hasattr(error, "errors") else set()
    not_json = not kinds or "json_invalid" in kinds
    code, message = (PARSE_ERROR, "Parse error") if not_json else (INVALID_REQUEST, "Invalid Request")
    return types.JSONRPCError(jsonrpc="2.0", id=None, error=types.ErrorData(code=code, message=message))


async def answer_parse_errors(source: Any, sink: Any, write_stream: Any) -> None:
    """Forward messages from ``source`` to ``sink``; answer every unreadable line itself
    (the SDK's stdio transport hands those on as exceptions, which the server only logs)."""
    from mcp.shared.message import SessionMessage

    async with sink:
        async for item in source:
            if isinstance(item, Exception):
                log.info("stdio: unreadable line answered with a JSON-RPC error: %s", type(item).__name__)
                await write_stream.send(SessionMessage(parse_error_reply(item)))
                continue
            await sink.send(item)


async def run_stdio(state: ServeState, catalog: Mapping[str, Operation]) -> None:
    """Serve MCP over stdin/stdout until the client closes the stream. A line that is not
    JSON gets a ``-32700`` reply (not JSON-RPC: ``-32600``), never silence."""
    import anyio
    from mcp.server.stdio import stdio_server

    server = build_server(lambda: state, catalog)
    async with stdio_server() as (read_stream, write_stream):
        sink, source = anyio.create_memory_object_stream[Any](0)
        async with anyio.create_task_group() as group:
            group.start_soon(answer_parse_errors, read_stream, sink, write_stream)
            await server.run(source, write_stream, server.create_initialization_options())
            group.cancel_scope.cancel()
