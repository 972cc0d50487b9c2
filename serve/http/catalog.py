"""The operation catalogue as the shells see it, projected once from the legal core's OPERATIONS.

The legal core owns the one definition of every operation (name, description, JSON Schema of
its arguments, effect kind). HTTP, OpenAPI, MCP and the web pages read it through
:class:`Operation` so that no shell keeps a schema of its own.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from serve.core import OperationSpec

Validator = Callable[[Any], Any]

_SCALAR_TYPES = frozenset({"string", "integer", "number", "boolean"})


@dataclass(frozen=True, eq=False)
class Operation:
    """One legal operation: its name, description, argument schema and effect kind.

    Compared and hashed by identity: there is one object per operation per catalogue.
    """

    name: str
    description: str
    input_schema: Mapping[str, Any]
    effect: str
    title: str
    validator: Validator

    @property
    def properties(self) -> Mapping[str, Mapping[str, Any]]:
        props = self.input_schema.get("properties", {})
        return props if isinstance(props, Mapping) else {}

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(self.input_schema.get("required", ()))

    @property
    def query_ok(self) -> bool:
        """True when every argument is a scalar or a list of scalars, so GET can carry it."""
        return all(_scalar_type(prop) is not None or is_list(prop) for prop in self.properties.values())

    def closed_schema(self) -> dict[str, Any]:
        """The argument schema with unknown members always refused."""
        schema = copy.deepcopy(dict(self.input_schema))
        schema.setdefault("type", "object")
        schema["additionalProperties"] = False
        return schema


def _scalar_type(prop: Mapping[str, Any]) -> str | None:
    kind = prop.get("type")
    if isinstance(kind, str) and kind in _SCALAR_TYPES:
        return kind
    if isinstance(kind, list):
        scalars = [k for k in kind if k in _SCALAR_TYPES]
        return scalars[0] if len(scalars) == 1 and set(kind) <= _SCALAR_TYPES | {"null"} else None
    if "enum" in prop and all(isinstance(v, str) for v in prop["enum"]):
        return "string"
    return None


def is_list(prop: Mapping[str, Any]) -> bool:
    """True for an array of scalars (given in a query as a repeated parameter)."""
    items = prop.get("items")
    return prop.get("type") == "array" and isinstance(items, Mapping) and _scalar_type(items) is not None


def scalar_type(prop: Mapping[str, Any]) -> str | None:
    """The JSON type of a scalar argument (``string``/``integer``/``number``/``boolean``)."""
    return _scalar_type(prop)


def project(spec: OperationSpec) -> Operation:
    """An :class:`Operation` from one entry of the core's ``OPERATIONS``."""
    return Operation(name=spec.name, description=spec.description, input_schema=spec.input_schema,
                     effect=spec.effect.value, title=spec.title, validator=spec.validate)


def catalog(operations: Mapping[str, OperationSpec]) -> dict[str, Operation]:
    """Every operation of the core's ``OPERATIONS``, in the core's order."""
    return {name: project(spec) for name, spec in operations.items()}
