"""Bounded calls to an OpenAI-compatible chat deployment (Azure OpenAI, OpenAI, local server).

Every model role (planner, composer, judge) is one forced function call: the request names a
single function and forces it, and the answer is read from that call's JSON arguments. The
:class:`ChatTransport` protocol is the seam tests replace with scripted models; the
production transport is :class:`OpenAIChatTransport` over the plain ``openai`` SDK (see
docs/adr/0005-assistant-model-client.md). Configuration comes from the environment through
:meth:`ModelConfig.from_env`; with nothing configured there is no model and the deterministic
rule planner serves.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlparse

from legal.errors import ConfigError, LexError


class ModelUnavailableError(LexError):
    """The configured model could not be reached or answered with a transport error."""

    family = "model"
    default_code = "model_unavailable"


@dataclass(frozen=True)
class ToolCall:
    id: str | None
    name: str
    arguments: str


@dataclass(frozen=True)
class ChatResponse:
    tool_calls: tuple[ToolCall, ...]
    content: str | None = None
    finish_reason: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True)
class ChatRequest:
    """One bounded chat completion forcing the function ``function_name``."""

    messages: tuple[Mapping[str, Any], ...]
    function_name: str
    function_description: str
    parameters: Mapping[str, Any]
    max_tokens: int = 4000

    def tools(self) -> list[dict[str, Any]]:
        return [{"type": "function", "function": {
            "name": self.function_name, "description": self.function_description,
            "parameters": dict(self.parameters)}}]

    def tool_choice(self) -> dict[str, Any]:
        return {"type": "function", "function": {"name": self.function_name}}


@dataclass(frozen=True)
class ModelIdentity:
    host: str
    model: str

    def to_dict(self) -> dict[str, str]:
        return {"host": self.host, "model": self.model}


class ChatTransport(Protocol):
    """Sends one chat request; raises :class:`ModelUnavailableError` on transport failure."""

    @property
    def identity(self) -> ModelIdentity: ...

    async def complete(self, request: ChatRequest) -> ChatResponse: ...


def _env(env: Mapping[str, str], *names: str) -> str | None:
    for name in names:
        value = env.get(name, "").strip()
        if value:
            return value
    return None


@dataclass(frozen=True)
class ModelConfig:
    """Where the chat deployment is and how to call it."""

    kind: str
    model: str
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    api_version: str | None = None
    token_parameter: str = "max_completion_tokens"
    reasoning_effort: str | None = None
    timeout_s: float = 90.0

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> ModelConfig | None:
        """``LEX_MODEL_*`` (OpenAI or a local server) or ``LEX_MODEL_AZURE_*``/``AZURE_OPENAI_*``.

        Returns ``None`` when no model is configured.
        """
        token_parameter = _env(env, "LEX_MODEL_TOKEN_PARAMETER") or "max_completion_tokens"
        effort = _env(env, "LEX_MODEL_REASONING_EFFORT")
        azure_endpoint = _env(env, "LEX_MODEL_AZURE_ENDPOINT", "AZURE_OPENAI_ENDPOINT")
        azure_deployment = _env(env, "LEX_MODEL_AZURE_DEPLOYMENT", "AZURE_OPENAI_DEPLOYMENT")
        if azure_endpoint and azure_deployment:
            return cls("azure", azure_deployment, azure_endpoint,
                       _env(env, "LEX_MODEL_AZURE_API_KEY", "AZURE_OPENAI_API_KEY"),
                       _env(env, "LEX_MODEL_AZURE_API_VERSION", "OPENAI_API_VERSION") or "2024-10-21",
                       token_parameter, effort)
        name = _env(env, "LEX_MODEL_NAME")
        if not name:
            if azure_endpoint or _env(env, "LEX_MODEL_BASE_URL"):
                raise ConfigError("a model endpoint is set but no model or deployment name",
                                  code="model_name_missing")
            return None
        return cls("openai", name, _env(env, "LEX_MODEL_BASE_URL"), _env(env, "LEX_MODEL_API_KEY"),
                   None, token_parameter, effort)

    def identity(self) -> ModelIdentity:
        host = urlparse(self.base_url).hostname if self.base_url else "api.openai.com"
        return ModelIdentity(host or "unknown", self.model)


class OpenAIChatTransport:
    """The production transport: the plain ``openai`` SDK, async, one request per call."""

    def __init__(self, config: ModelConfig, client: Any = None) -> None:
        self.config = config
        self._client = client

    @property
    def identity(self) -> ModelIdentity:
        return self.config.identity()

    def _get_client(self) -> Any:
        if self._client is None:
            import openai

            if self.config.kind == "azure":
                self._client = openai.AsyncAzureOpenAI(
                    azure_endpoint=self.config.base_url or "", api_key=self.config.api_key,
                    api_version=self.config.api_version, timeout=self.config.timeout_s, max_retries=0)
            else:
                self._client = openai.AsyncOpenAI(
                    base_url=self.config.base_url, api_key=self.config.api_key or "not-needed",
                    timeout=self.config.timeout_s, max_retries=0)
        return self._client

    async def complete(self, request: ChatRequest) -> ChatResponse:
        import openai

        kwargs: dict[str, Any] = {
            "model": self.config.model, "messages": [dict(m) for m in request.messages],
            "tools": request.tools(), "tool_choice": request.tool_choice(),
            self.config.token_parameter: request.max_tokens,
        }
        if self.config.reasoning_effort:
            kwargs["reasoning_effort"] = self.config.reasoning_effort
        try:
            completion = await self._get_client().chat.completions.create(**kwargs)
        except openai.OpenAIError as exc:
            raise ModelUnavailableError(f"model call failed: {type(exc).__name__}",
                                        subject=self.identity.host) from exc
        return response_from_completion(completion)


def response_from_completion(completion: Any) -> ChatResponse:
    """A :class:`ChatResponse` from an SDK completion object (first choice only)."""
    choice = completion.choices[0] if completion.choices else None
    message = choice.message if choice is not None else None
    calls = tuple(
        ToolCall(getattr(c, "id", None), c.function.name, c.function.arguments or "")
        for c in (getattr(message, "tool_calls", None) or [])
        if getattr(c, "function", None) is not None
    )
    usage = getattr(completion, "usage", None)
    return ChatResponse(
        calls, getattr(message, "content", None), getattr(choice, "finish_reason", None),
        int(getattr(usage, "prompt_tokens", 0) or 0), int(getattr(usage, "completion_tokens", 0) or 0))


def assistant_message(response: ChatResponse) -> dict[str, Any]:
    """The assistant turn carrying a response's tool calls verbatim (for a correction)."""
    return {"role": "assistant", "content": response.content, "tool_calls": [
        {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
        for c in response.tool_calls]}


def tool_message(call_id: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": json.dumps(dict(payload))}


@dataclass
class Usage:
    """Token usage summed over every model call of a turn."""

    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0

    def add(self, response: ChatResponse) -> None:
        self.input_tokens += response.input_tokens
        self.output_tokens += response.output_tokens
        self.calls += 1

    def to_dict(self) -> dict[str, int]:
        return {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "total_tokens": self.input_tokens + self.output_tokens}


def single_call(response: ChatResponse, name: str) -> ToolCall | None:
    """The one call of function ``name``, or ``None`` if there is not exactly one."""
    calls = [c for c in response.tool_calls if c.name == name]
    return calls[0] if len(calls) == 1 and len(response.tool_calls) == 1 else None


def history_messages(history: Sequence[Mapping[str, str]]) -> list[dict[str, str]]:
    """The restored bounded transcript as chat messages (user/assistant roles only)."""
    return [{"role": m["role"], "content": m["content"]} for m in history
            if m.get("role") in ("user", "assistant") and isinstance(m.get("content"), str)]
