"""The shape of one legal operation: name, description, arguments, effect kind, handler."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from serve.core.envelope import Answer, CallContext
from serve.core.params import Json, Param, Rule, json_schema, validate

Handler = Callable[[CallContext, dict[str, Any]], Answer]


class Effect(StrEnum):
    """What kind of legal evidence an operation produces (closed set)."""

    PROVISION = "provision"
    TIMELINE = "timeline"
    IN_FORCE = "in_force"
    DIFF = "diff"
    SEARCH = "search"
    HISTORY = "history"
    VERIFICATION = "verification"
    COVERAGE = "coverage"
    CITED_BY = "cited_by"
    RANKING = "ranking"


@dataclass(frozen=True)
class OperationSpec:
    """One operation of the legal core, declared once for every shell (HTTP, MCP, assistant)."""

    name: str
    title: str
    description: str
    effect: Effect
    params: tuple[Param, ...]
    rules: tuple[Rule, ...]
    handler: Handler
    fans_out: bool = False

    @property
    def input_schema(self) -> Json:
        """JSON Schema of the arguments (``additionalProperties: false``)."""
        return json_schema(self.params, self.rules)

    def validate(self, args: Any) -> dict[str, Any]:
        """Checked arguments with defaults (raises :class:`legal.errors.RequestError`)."""
        return validate(self.params, self.rules, args)

    def describe(self) -> Json:
        """A transport-neutral listing entry (what an MCP ``tools/list`` projects)."""
        return {"name": self.name, "title": self.title, "description": self.description, "effect": self.effect.value,
                "read_only": True, "fans_out_over_publishers": self.fans_out, "input_schema": self.input_schema}
