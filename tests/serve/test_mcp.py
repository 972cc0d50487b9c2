"""MCP with the official client: every operation as a tool, over stdio (``lex mcp``) and streamable HTTP (/mcp)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from legal.outcomes import Outcome
from serve.app import AppSettings, create_app, new_state
from serve.core import OPERATIONS
from serve.http.catalog import catalog
from serve.mount import MountConfig
from tests.index.handmade import LU_SLUG, build_handmade
from tests.serve.conftest import NO_RATE
from tests.serve.server import running

ROOT = Path(__file__).resolve().parents[2]
OUTCOMES = {o.value for o in Outcome}

ARGUMENTS: dict[str, dict[str, Any]] = {
    "search": {"query": "choses"},
    "as_of": {"work": f"lu-legilux:{LU_SLUG}", "date": "2024-06-01"},
    "diff": {"work": "eu-eurlex:32099r0001", "from_date": "2020-06-01", "to_date": "2022-06-01"},
    "timeline": {"work": "eu-eurlex:32099r0001"},
    "article_history": {"work": "eu-eurlex:32099r0001", "anchor": "art_1"},
    "changes_in_period": {"from_date": "2019-01-01", "to_date": "2023-01-01"},
    "in_force_on": {"date": "2022-06-01"},
    "coverage": {},
    "cited_by": {"work": "eu-eurlex:32099r0001"},
    "provenance": {"lex_id": f"lu-legilux:{LU_SLUG}"},
}


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("mcp-index")
    build_handmade(directory)
    return directory


def _payload(result: Any) -> dict[str, Any]:
    assert len(result.content) == 1 and result.content[0].type == "text"
    payload = json.loads(result.content[0].text)
    assert isinstance(payload, dict)
    return payload


async def _exercise(client: Client, expect_mounted: bool) -> dict[str, str]:
    listed = await client.list_tools()
    names = [tool.name for tool in listed.tools]
    assert sorted(names) == sorted(OPERATIONS) == sorted(ARGUMENTS)
    schemas = catalog(OPERATIONS)
    for tool in listed.tools:
        assert tool.input_schema["additionalProperties"] is False
        assert tool.input_schema["properties"] == schemas[tool.name].closed_schema()["properties"]
    outcomes: dict[str, str] = {}
    for name, args in ARGUMENTS.items():
        result = await client.call_tool(name, args)
        assert not result.is_error, (name, result.content)
        payload = _payload(result)
        assert payload["outcome"] in OUTCOMES
        assert result.structured_content == payload
        outcomes[name] = payload["outcome"]
    if expect_mounted:
        assert outcomes["as_of"] == "succeeded" and outcomes["coverage"] == "succeeded"
    else:
        assert set(outcomes.values()) == {"no_corpus_mounted"}
    refused = await client.call_tool("as_of", {"work": "x", "date": "not a date", "colour": "red"})
    assert refused.is_error
    assert _payload(refused)["error"]["family"] == "request"
    return outcomes


def _stdio(*args: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "cli", "mcp", *args], cwd=str(ROOT))


def test_stdio_lists_every_tool_and_calls_each(index_dir: Path) -> None:
    async def scenario() -> None:
        async with Client(_stdio("--index-dir", str(index_dir), "--unsigned-dev")) as client:
            await _exercise(client, expect_mounted=True)

    asyncio.run(scenario())


def test_stdio_with_a_refused_set_answers_no_corpus_mounted(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    trust = tmp_path / "not-a-key.pem"
    trust.write_text("not a key")

    async def scenario() -> None:
        async with Client(_stdio("--index-dir", str(tmp_path / "empty"), "--trust-root", str(trust))) as client:
            await _exercise(client, expect_mounted=False)

    asyncio.run(scenario())


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_streamable_http_lists_every_tool_and_calls_each(index_dir: Path, mode: str) -> None:
    state = new_state(MountConfig(index_dir=index_dir, unsigned_dev=True), NO_RATE)
    state.mount()
    app = create_app(state, AppSettings(limits=NO_RATE, mount_on_startup=False))

    async def scenario(url: str) -> None:
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            await _exercise(client, expect_mounted=True)

    with running(app) as base:
        asyncio.run(scenario(f"{base}/mcp"))


def test_streamable_http_refuses_a_foreign_host_header(index_dir: Path) -> None:
    import httpx

    state = new_state(MountConfig(index_dir=index_dir, unsigned_dev=True), NO_RATE)
    app = create_app(state, AppSettings(limits=NO_RATE, mount_on_startup=False))
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"host": "evil.example:80", "accept": "application/json, text/event-stream",
               "mcp-protocol-version": "2025-06-18"}
    with running(app) as base:
        response = httpx.post(f"{base}/mcp", json=body, headers=headers, timeout=10)
    assert response.status_code in (403, 421)


def test_a_tool_results_wire_form_is_the_sdk_models_dump(index_dir: Path) -> None:
    """The handler hands the SDK its result as the dictionary the model would dump to (the answer
    is not built into models and dumped back); the text is the answer's compact JSON."""
    import mcp_types as types

    from legal.errors import RequestError
    from serve.mcp_server import answer_result, answer_wire, call_tool, refusal_result, refusal_wire

    state = new_state(MountConfig(index_dir=index_dir, unsigned_dev=True), NO_RATE)
    state.mount()
    tools = catalog(OPERATIONS)
    try:
        for name, args in ARGUMENTS.items():
            wire = asyncio.run(call_tool(state, tools, types.CallToolRequestParams(name=name, arguments=args)))
            model = types.CallToolResult.model_validate(wire)  # the same JSON (a tuple is an array)
            assert json.loads(json.dumps(wire)) == model.model_dump(by_alias=True, mode="json", exclude_none=True)
            assert answer_result(wire["structuredContent"]) == model
            text = wire["content"][0]["text"]
            assert "\n" not in text and json.loads(text) == json.loads(json.dumps(wire["structuredContent"]))
        assert answer_wire([1, 2])["structuredContent"] == {"results": [1, 2]}
        error = RequestError("no", code="invalid_argument", subject="date")
        refused = refusal_wire(error)
        assert refused == refusal_result(error).model_dump(by_alias=True, mode="json", exclude_none=True)
        assert refused["isError"] is True
    finally:
        state.close()


def test_the_bench_mcp_row_shapes_the_bytes_a_real_stdio_server_writes(index_dir: Path) -> None:
    """``bench.bench_serve_full``'s MCP row times the SDK's reply as :func:`mcp_reply` makes it; a
    real ``lex mcp`` server over stdio writes exactly those bytes for every tool (its row,
    ``--mcp-stdio``, counts them), so the in-process row leaves out no shaping a client pays for."""
    from bench.bench_serve_full import mcp_stdio

    figures = mcp_stdio(index_dir, {name: [(name, args)] for name, args in ARGUMENTS.items()})
    assert figures["calls"] == len(ARGUMENTS)
    assert figures["replies_as_mcp_reply"] == len(ARGUMENTS)
