"""The MCP server's structured pass-through (``serve.mcp_server.StructuredPassThrough``) changes no
reply byte: the JSON-RPC replies of the server as built are the replies of the same server without
the middleware (the SDK validating and re-dumping each result itself), in process and over stdio,
for the handshake protocol (2025-11-25) and the 2026 one (per-request envelope, ``serverInfo``
stamp); with the answer cache on, a kept answer's reply is the same bytes as well."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.server import Server
from mcp.shared.message import SessionMessage

from serve.app import new_state
from serve.core import OPERATIONS
from serve.http.catalog import catalog
from serve.mcp_server import StructuredPassThrough, build_server, held_back, put_back
from serve.mount import MountConfig, ServeState
from tests.index.handmade import build_handmade
from tests.index.pipeline import FixtureBuild
from tests.serve.conftest import NO_RATE
from tests.serve.test_mcp import ARGUMENTS

ROOT = Path(__file__).resolve().parents[2]
HANDSHAKE = "2025-11-25"
MODERN = "2026-07-28"
ENVELOPE = {types.PROTOCOL_VERSION_META_KEY: MODERN, types.CLIENT_INFO_META_KEY: {"name": "test", "version": "1"},
            types.CLIENT_CAPABILITIES_META_KEY: {}}
#: calls besides the workload's: a refused argument, an unknown tool, arguments that are not an object
ODD_CALLS: list[tuple[str, Any]] = [("as_of", {"work": "x", "date": "not a date", "colour": "red"}),
                                    ("no_such_tool", {}), ("search", ["not", "an", "object"])]


@pytest.fixture(scope="module")
def handmade_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("mcp-pass-index")
    build_handmade(directory)
    return directory


def _requests(calls: list[tuple[str, Any]], protocol: str) -> list[dict[str, Any]]:
    """The client's messages: the handshake (2025 era) or nothing (2026 era: every call carries
    its envelope), then ``tools/list`` and every call, ids from 1."""
    opening: list[dict[str, Any]] = []
    if protocol != MODERN:
        opening = [{"jsonrpc": "2.0", "id": 0, "method": "initialize",
                    "params": {"protocolVersion": protocol, "capabilities": {},
                               "clientInfo": {"name": "test", "version": "1"}}},
                   {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    asked = [("tools/list", {}), *(("tools/call", {"name": name, "arguments": args}) for name, args in calls)]
    return opening + [{"jsonrpc": "2.0", "id": i, "method": method,
                       "params": {**params, "_meta": ENVELOPE} if protocol == MODERN else params}
                      for i, (method, params) in enumerate(asked, start=1)]


#: the server :func:`_replies` drives now
_SERVER: list[Server[Any]] = []


async def _replies(server: Server[Any], requests: list[dict[str, Any]]) -> list[bytes]:
    """The reply bytes a stdio transport would write for each request, the server driven over
    memory streams (each line parsed as the stdio transport parses it)."""
    _SERVER[:] = [server]
    to_server, server_reads = anyio.create_memory_object_stream[SessionMessage | Exception](len(requests))
    server_writes, from_server = anyio.create_memory_object_stream[SessionMessage](len(requests))
    out: list[bytes] = []
    async with anyio.create_task_group() as group:
        group.start_soon(server.run, server_reads, server_writes, server.create_initialization_options())
        for request in requests:
            message = types.jsonrpc_message_adapter.validate_json(json.dumps(request), by_name=False)
            await to_server.send(SessionMessage(message))
            if "id" in request:
                reply = await from_server.receive()
                out.append(reply.message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8"))
        await to_server.aclose()
    return out


def _without_pass_through(state: ServeState) -> Server[Any]:
    server = build_server(lambda: state, catalog(OPERATIONS))
    server.middleware = [m for m in server.middleware if not isinstance(m, StructuredPassThrough)]
    return server


@pytest.fixture
def states(handmade_dir: Path) -> Iterator[dict[str, ServeState]]:
    made = {}
    for name, cache in (("plain", 0), ("cached", 8 << 20)):
        state = new_state(MountConfig(index_dir=handmade_dir, unsigned_dev=True), NO_RATE, answer_cache=cache)
        state.mount()
        made[name] = state
    yield made
    for state in made.values():
        state.close()


def _without_id(reply: bytes) -> bytes:
    return re.sub(rb'^\{"jsonrpc":"2.0","id":[0-9]+,', b"{", reply, count=1)


def _compare(index_dir: Path, calls: list[tuple[str, Any]], protocol: str) -> int:
    """Replies with and without the pass-through (and with it over the answer cache, every call
    asked twice: the second answer is the kept bytes) are the same bytes; how many."""
    plain = new_state(MountConfig(index_dir=index_dir, unsigned_dev=True), NO_RATE)
    cached = new_state(MountConfig(index_dir=index_dir, unsigned_dev=True), NO_RATE, answer_cache=8 << 20)
    try:
        plain.mount()
        cached.mount()
        requests = _requests(calls, protocol)
        reference = anyio.run(_replies, _without_pass_through(plain), requests)
        passed = anyio.run(_replies, build_server(lambda: plain, catalog(OPERATIONS)), requests)
        twice = anyio.run(_replies, build_server(lambda: cached, catalog(OPERATIONS)), _requests(calls + calls, protocol))
        assert cached.answers() is not None and cached.answers().hits > 0  # type: ignore[union-attr]
    finally:
        plain.close()
        cached.close()
    assert passed == reference
    n = len(reference) - len(calls)  # the handshake's reply and the listing come first
    assert twice[:len(reference)] == reference
    assert [_without_id(r) for r in twice[len(reference):]] == [_without_id(r) for r in reference[n:]]
    results = [json.loads(r)["result"] for r in reference[n:] if "result" in json.loads(r)]
    assert results and all(r["structuredContent"] == json.loads(r["content"][0]["text"]) for r in results)
    if protocol == MODERN:
        assert all(r["resultType"] == "complete" and types.SERVER_INFO_META_KEY in r["_meta"] for r in results)
    else:
        assert all("resultType" not in r and "_meta" not in r for r in results)
    return len(reference)


@pytest.mark.parametrize("protocol", [HANDSHAKE, MODERN])
def test_replies_are_the_sdks_own_bytes_on_the_handmade_index(handmade_dir: Path, protocol: str,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp_types import methods

    shaped: list[tuple[bool, Any]] = []  # (pass-through on, the structured content the SDK's shaping walked)
    serialize = methods.serialize_server_result

    def recording(method: str, version: str, data: Any, **kw: Any) -> Any:
        if method == "tools/call":
            shaped.append((any(isinstance(m, StructuredPassThrough) for m in _SERVER[0].middleware),
                           data.get("structuredContent")))
        return serialize(method, version, data, **kw)

    monkeypatch.setattr(methods, "serialize_server_result", recording)
    assert _compare(handmade_dir, [*ARGUMENTS.items(), *ODD_CALLS], protocol) == len(ARGUMENTS) + len(ODD_CALLS) + 1 \
        + (protocol != MODERN)
    # without the middleware the SDK walks every answer; with it, only the empty stand-in
    assert {on for on, _ in shaped} == {True, False}
    assert all(walked == {} for on, walked in shaped if on)
    assert any(walked not in ({}, None) for on, walked in shaped if not on)


@pytest.mark.parametrize("protocol", [HANDSHAKE, MODERN])
def test_replies_are_the_sdks_own_bytes_on_the_fixture_indexes(fixture_indexes: FixtureBuild, protocol: str) -> None:
    """The bench's MCP workload drawn from the indexes of both real fixture corpora."""
    from bench.bench_serve_full import _mcp_calls, workload

    calls = _mcp_calls(workload(fixture_indexes.index_dir, 14, 40))
    assert len(calls) > 50
    _compare(fixture_indexes.index_dir, [(name, args) for name, args in calls], protocol)


@pytest.mark.parametrize("protocol", [HANDSHAKE, MODERN])
def test_a_real_stdio_server_writes_the_sdks_own_bytes(handmade_dir: Path, protocol: str) -> None:
    """``lex mcp`` (pass-through on) writes, line for line, the replies of the SDK without it."""
    requests = _requests([*ARGUMENTS.items(), *ODD_CALLS], protocol)
    state = new_state(MountConfig(index_dir=handmade_dir, unsigned_dev=True), NO_RATE)
    state.mount()
    try:
        reference = anyio.run(_replies, _without_pass_through(state), requests)
    finally:
        state.close()
    command = [sys.executable, "-m", "cli", "mcp", "--index-dir", str(handmade_dir), "--unsigned-dev"]
    process = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
    assert process.stdin is not None and process.stdout is not None
    written = []
    try:
        for request in requests:  # one at a time, as a client waiting for each reply
            process.stdin.write(json.dumps(request).encode("utf-8") + b"\n")
            process.stdin.flush()
            if "id" in request:
                written.append(process.stdout.readline().rstrip(b"\n"))
    finally:
        process.stdin.close()
        process.wait(30)
    assert written == reference


def test_held_back_and_put_back_round_trip() -> None:
    wire = {"content": [{"type": "text", "text": '{"a":1}'}], "structuredContent": {"a": 1}, "isError": False}
    stand_in, payload = held_back(wire)
    assert stand_in["content"][0]["text"] == "" and stand_in["structuredContent"] == {}
    assert wire["structuredContent"] == {"a": 1}  # the handler's result is not changed
    assert payload is not None and put_back(stand_in, payload) == wire
    assert held_back({"content": [], "isError": True}) == ({"content": [], "isError": True}, None)
