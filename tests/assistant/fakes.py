"""Test doubles for the assistant: a fake legal core, scripted models, a fake OpenAI server.

The fake core validates every call with the real operation declarations
(``serve.core.OPERATIONS``), so a plan the assistant executes here is a plan the real core
accepts; its answers have the real envelope shape (``operation``, ``outcome``, …).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from assistant.catalog import Catalog
from assistant.core_port import operation_schemas
from assistant.model import ChatRequest, ChatResponse, ModelIdentity, ToolCall
from assistant.service import Assistant, Deadlines
from assistant.subjects import CatalogueIndex, StaticCatalogue
from serve.core import OPERATIONS

TODAY = "2026-03-01"

RECORDS: list[dict[str, Any]] = [
    {"work": "eu-eurlex:32016r0679", "title": "Regulation (EU) 2016/679",
     "titles": ["Regulation (EU) 2016/679 of the European Parliament and of the Council of 27 April 2016 "
                "on the protection of natural persons with regard to the processing of personal data"],
     "short_titles": ["gdpr", "rgdp", "General Data Protection Regulation"],
     "identifiers": ["32016R0679", "http://publications.europa.eu/resource/celex/32016R0679"]},
    {"work": "eu-eurlex:32016r0679r(02)", "title": "Corrigendum to Regulation (EU) 2016/679",
     "identifiers": ["32016R0679R(02)"]},
    {"work": "eu-eurlex:32013r0575", "title": "Regulation (EU) No 575/2013",
     "titles": ["Regulation (EU) No 575/2013 of the European Parliament and of the Council of 26 June 2013 "
                "on prudential requirements for credit institutions and investment firms and amending "
                "Regulation (EU) No 648/2012"],
     "short_titles": ["crr", "Capital Requirements Regulation"], "identifiers": ["32013R0575"]},
    {"work": "eu-eurlex:32012r0648", "title": "Regulation (EU) No 648/2012",
     "short_titles": ["emir"], "identifiers": ["32012R0648"]},
    {"work": "eu-eurlex:32014r0596", "title": "Regulation (EU) No 596/2014",
     "short_titles": ["mar"], "identifiers": ["32014R0596"]},
    {"work": "eu-eurlex:32004r0139", "title": "Council Regulation (EC) No 139/2004",
     "short_titles": ["European Union Merger Regulation", "eumr", "Merger Regulation"],
     "identifiers": ["32004R0139"]},
    {"work": "eu-eurlex:32015l2302", "title": "Directive (EU) 2015/2302", "identifiers": ["32015L2302"]},
    {"work": "eu-eurlex:32013l0036", "title": "Directive 2013/36/EU", "short_titles": ["crd"],
     "identifiers": ["32013L0036"]},
    {"work": "eu-eurlex:32019l0878", "title": "Directive (EU) 2019/878", "short_titles": ["crd"],
     "identifiers": ["32019L0878"]},
    {"work": "lu-legilux:loi-2006-07-31-n2", "title": "Code du travail",
     "identifiers": ["http://data.legilux.public.lu/eli/etat/leg/loi/2006/07/31/n2/jo"]},
    {"work": "lu-legilux:loi-2011-04-08-n2", "title": "Code de la consommation"},
    {"work": "lu-legilux:constitution-1868-10-17-n1", "title": "Constitution du Grand-Duché de Luxembourg",
     "short_titles": ["Constitution luxembourgeoise"]},
    {"work": "lu-legilux:loi-1925-12-17-n1", "title": "Code de la Sécurité sociale",
     "aliases": ["code securite sociale"]},
]


def catalogue(records: Sequence[Mapping[str, Any]] = RECORDS) -> CatalogueIndex:
    return CatalogueIndex(StaticCatalogue.from_records(records))


def catalog() -> Catalog:
    return Catalog.from_schemas(operation_schemas(OPERATIONS))


def _envelope(tool: str, outcome: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    return {"operation": tool, "outcome": outcome, "publisher": "eu-eurlex", "provisional": False,
            "artifact": {"set_id": "test"}, **payload}


def default_answer(tool: str, args: Mapping[str, Any]) -> dict[str, Any]:
    """A small, realistic answer per operation (real envelope keys)."""
    work = args.get("work", "eu-eurlex:32016r0679")
    version = {"work": work, "lex_id": f"{work}:2016-05-04--{'a' * 64}", "title": "Regulation (EU) 2016/679",
               "valid_from": "2016-05-04", "valid_to": None,
               "source_uri": "https://eur-lex.europa.eu/legal-content/EN/TXT/?uri=CELEX:32016R0679"}
    if tool == "as_of":
        anchors = args.get("anchors") or ["art_6"]
        provisions = [{"anchor": a, "num": "Article 6", "heading": "Lawfulness of processing",
                       "text_sha256": "b" * 64,
                       "text": "Processing shall be lawful only if and to the extent that at least one of "
                               "the following applies: the data subject has given consent (Article 6)."}
                      for a in anchors]
        return _envelope(tool, "succeeded", {"work": work, "date": args.get("date"), "mode": args.get("mode"),
                                             "version": version, "provisions": provisions,
                                             "total_provisions": len(provisions)})
    if tool == "timeline":
        return _envelope(tool, "succeeded", {"work": work, "total_count": 2, "versions": [
            {**version, "valid_from": "2016-04-27"}, version]})
    if tool == "article_history":
        return _envelope(tool, "succeeded", {"work": work, "anchor": args.get("anchor"), "distinct_texts": 1,
                                             "states": [{"valid_from": "2016-05-04", "text_sha256": "c" * 64}]})
    if tool == "diff":
        return _envelope(tool, "succeeded", {"work": work, "changed": True, "changes": [
            {"anchor": "art_6", "change": "changed", "num": "Article 6"}]})
    if tool == "changes_in_period":
        return {"operation": tool, "outcome": "succeeded", "provisional": False, "publishers": [
            _envelope(tool, "succeeded", {"works_changed": 2, "new_versions": 3, "changes": [
                {"work": "eu-eurlex:32013r0575", "versions_in_period": 2}]})]}
    if tool == "in_force_on":
        return {"operation": tool, "outcome": "succeeded", "provisional": False, "publishers": [
            _envelope(tool, "succeeded", {"total_works_in_force": 1, "works": [version]})]}
    if tool == "coverage":
        return {"operation": tool, "outcome": "succeeded", "provisional": False, "publishers": [
            _envelope(tool, "succeeded", {"works": 29, "versions": 64})]}
    if tool == "cited_by":
        return {"operation": tool, "outcome": "empty", "provisional": False, "publishers": [
            _envelope(tool, "empty", {"citing_articles": 0, "citations": []})]}
    if tool == "provenance":
        return _envelope(tool, "succeeded", {"lex_id": args.get("lex_id"), "record_sha256": "d" * 64})
    return {"operation": tool, "outcome": "succeeded", "provisional": False, "publishers": [
        _envelope(tool, "succeeded", {"hits": [{"work": work, "anchor": "art_6", "title": "GDPR"}]})]}


@dataclass
class FakeCore:
    """Validates with the real declarations, records calls, answers from ``default_answer``."""

    answers: dict[str, Callable[[Mapping[str, Any]], Mapping[str, Any]]] = field(default_factory=dict)
    delay_s: float = 0.0
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def call(self, op_name: str, args: Mapping[str, Any]) -> Mapping[str, Any]:
        OPERATIONS[op_name].validate(dict(args))
        self.calls.append((op_name, dict(args)))
        if self.delay_s:
            time.sleep(self.delay_s)
        if op_name in self.answers:
            return self.answers[op_name](args)
        return default_answer(op_name, args)


# --- scripted models ----------------------------------------------------------------------------


def plan_response(operations: Sequence[Mapping[str, Any]] | str, synthesis: bool = False,
                  call_id: str | None = "call_1", tokens: int = 50) -> ChatResponse:
    """A model response submitting one plan (``operations`` may be raw text to script garbage)."""
    arguments = operations if isinstance(operations, str) else json.dumps(
        {"operations": list(operations), "synthesis": synthesis})
    return ChatResponse((ToolCall(call_id, "submit_operation_plan", arguments),), None, "tool_calls", 100, tokens)


def function_response(name: str, payload: Mapping[str, Any], call_id: str = "call_x") -> ChatResponse:
    return ChatResponse((ToolCall(call_id, name, json.dumps(payload)),), None, "tool_calls", 80, 40)


Script = ChatResponse | Callable[[ChatRequest], ChatResponse] | float


@dataclass
class ScriptedTransport:
    """A model that answers from a script; a float entry means "hang for that many seconds"."""

    script: list[Script]
    requests: list[ChatRequest] = field(default_factory=list)

    @property
    def identity(self) -> ModelIdentity:
        return ModelIdentity("scripted.invalid", "scripted-model")

    async def complete(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        step = self.script.pop(0)
        if isinstance(step, float):
            await asyncio.sleep(step)
            raise AssertionError("a hanging model must be cut by its deadline")
        return step(request) if callable(step) else step


def assistant(core: FakeCore | None = None, transport: Any = None, *, deadlines: Deadlines | None = None,
              records: Sequence[Mapping[str, Any]] = RECORDS) -> Assistant:
    import datetime as dt

    from assistant.service import thread_call

    return Assistant(thread_call(core or FakeCore()), catalog(), catalogue(records), transport,
                     deadlines or Deadlines(), today=lambda: dt.date.fromisoformat(TODAY),
                     new_request_id=lambda: "req1")


# --- a fake OpenAI-compatible server on loopback -------------------------------------------------


def completion_json(response: ChatResponse) -> dict[str, Any]:
    """The OpenAI wire form of a scripted response."""
    calls = [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
             for c in response.tool_calls]
    message: dict[str, Any] = {"role": "assistant", "content": response.content}
    if calls:
        message["tool_calls"] = calls
    return {"id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": "fake-model",
            "choices": [{"index": 0, "message": message, "finish_reason": response.finish_reason or "stop"}],
            "usage": {"prompt_tokens": response.input_tokens, "completion_tokens": response.output_tokens,
                      "total_tokens": response.input_tokens + response.output_tokens}}


@dataclass
class FakeOpenAIServer:
    """``POST /v1/chat/completions`` answering from a script, served by uvicorn on 127.0.0.1."""

    script: list[Script] = field(default_factory=list)
    received: list[dict[str, Any]] = field(default_factory=list)
    port: int = 0
    _server: uvicorn.Server | None = None
    _thread: threading.Thread | None = None

    async def _completions(self, request: Request) -> JSONResponse:
        body = await request.json()
        self.received.append(body)
        step = self.script.pop(0)
        if isinstance(step, float):
            await asyncio.sleep(step)
        if callable(step):
            step = step(ChatRequest((), "", "", {}))
        if not isinstance(step, ChatResponse):
            return JSONResponse({"error": {"message": "script exhausted"}}, status_code=500)
        return JSONResponse(completion_json(step))

    def start(self) -> FakeOpenAIServer:
        app = Starlette(routes=[Route("/v1/chat/completions", self._completions, methods=["POST"])])
        config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("fake model server did not start")
            time.sleep(0.01)
        self.port = self._server.servers[0].sockets[0].getsockname()[1]
        return self

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
