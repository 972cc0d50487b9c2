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
        """The argument schema as the edge validates it: unknown members refused, dates that
        are calendar dates (year 0001 on), strings that are not blank (see :func:`edge_property`)."""
        schema = copy.deepcopy(dict(self.input_schema))
        schema.setdefault("type", "object")
        schema["additionalProperties"] = False
        props = schema.get("properties")
        if isinstance(props, dict):
            schema["properties"] = {name: edge_property(prop) for name, prop in props.items()}
        return schema


#: A calendar date ``YYYY-MM-DD`` from 0001-01-01 to 9999-12-31 (leap years included): exactly
#: what the core's date check accepts (its pattern, then ``date.fromisoformat``).
_YEAR = "(?:[1-9][0-9]{3}|0[1-9][0-9]{2}|00[1-9][0-9]|000[1-9])"
_LEAP_YEAR = "(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)"
CALENDAR_DATE = (
    f"^(?:{_YEAR}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
    f"|02-(?:0[1-9]|1[0-9]|2[0-8]))|{_LEAP_YEAR}-02-29)$"
)
#: At least one character that Python's ``str.strip`` keeps (the core refuses blank strings).
NOT_BLANK = "[^\\t\\n\\u000b\\f\\r\\u001c-\\u001f \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"


def edge_property(prop: Mapping[str, Any]) -> dict[str, Any]:
    """One argument's schema, tightened to what the core's validator accepts."""
    out = dict(prop)
    if out.get("format") == "date":
        out["pattern"] = CALENDAR_DATE
    elif out.get("type") == "string" and "enum" not in out:
        out = _with_pattern(out, NOT_BLANK)
    elif out.get("type") == "array" and isinstance(out.get("items"), Mapping) and out["items"].get("type") == "string":
        out["items"] = _with_pattern(dict(out["items"]), NOT_BLANK)
    return out


def _with_pattern(schema: dict[str, Any], pattern: str) -> dict[str, Any]:
    if "pattern" not in schema:
        return {**schema, "pattern": pattern}
    return {**schema, "allOf": [*schema.get("allOf", []), {"pattern": pattern}]}


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
