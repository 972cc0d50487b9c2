"""Operation arguments declared once, as data: validation and JSON Schema from one source.

Each operation lists its :class:`Param` values and cross-field :class:`Rule` values. From them
:func:`json_schema` renders the JSON Schema (``additionalProperties: false``, bounds, enums,
date pattern, conditional requirements) that the HTTP API, MCP and the assistant publish, and
:func:`validate` checks a call's arguments against exactly the same declarations.

Refusals raise :class:`legal.errors.RequestError` with a stable ``code`` and the argument
name as ``subject``; nothing is coerced (``"50"`` is not an integer, ``true`` is not ``1``).
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from legal.errors import RequestError

DATE_PATTERN = r"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$"
_DATE = re.compile(DATE_PATTERN)
#: "not blank", published as one character outside the whitespace the server strips (Python's
#: ``str.isspace`` set, spelled out so that JSON Schema (ECMA-262) and Python regex engines read
#: the same class; ``\S`` differs between them, e.g. for U+001C or U+0085)
NOT_BLANK_PATTERN = (r"[^\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000-\u200a"
                     r"\u2028\u2029\u202f\u205f\u3000]")
Json = dict[str, Any]


def _refuse(message: str, name: str, code: str = "invalid_argument") -> RequestError:
    return RequestError(message, code=code, subject=name)


@dataclass(frozen=True)
class Param:
    """Base of every argument declaration."""

    name: str
    description: str
    required: bool = False

    def schema(self) -> Json:
        raise NotImplementedError

    def check(self, value: Any) -> Any:
        raise NotImplementedError

    @property
    def default(self) -> Any:
        return None

    def _with_description(self, schema: Json) -> Json:
        return {**schema, "description": self.description}


@dataclass(frozen=True)
class Text(Param):
    max_length: int = 1000
    pattern: str | None = None
    lower: bool = False

    def schema(self) -> Json:
        out: Json = {"type": "string", "minLength": 1, "maxLength": self.max_length,
                     "pattern": self.pattern or NOT_BLANK_PATTERN}
        return self._with_description(out)

    def check(self, value: Any) -> Any:
        if not isinstance(value, str):
            raise _refuse(f"{self.name} must be a string", self.name)
        if not value.strip():
            raise _refuse(f"{self.name} must not be blank", self.name)
        if len(value) > self.max_length:
            raise _refuse(f"{self.name} is longer than {self.max_length} characters", self.name)
        if self.pattern and not re.search(self.pattern, value):
            raise _refuse(f"{self.name} does not match {self.pattern}", self.name)
        return value.strip().lower() if self.lower else value.strip()


@dataclass(frozen=True)
class Date(Param):
    def schema(self) -> Json:
        return self._with_description({"type": "string", "format": "date", "pattern": DATE_PATTERN,
                                       "minLength": 10, "maxLength": 10})

    def check(self, value: Any) -> Any:
        if not isinstance(value, str) or not _DATE.match(value):
            raise _refuse(f"{self.name} must be a date YYYY-MM-DD", self.name, "invalid_date")
        try:
            _dt.date.fromisoformat(value)
        except ValueError:
            raise _refuse(f"{self.name} is not a calendar date", self.name, "invalid_date") from None
        return value


@dataclass(frozen=True)
class Integer(Param):
    minimum: int = 0
    maximum: int = 100
    default_value: int | None = None

    @property
    def default(self) -> Any:
        return self.default_value

    def schema(self) -> Json:
        out: Json = {"type": "integer", "minimum": self.minimum, "maximum": self.maximum}
        if self.default_value is not None:
            out["default"] = self.default_value
        return self._with_description(out)

    def check(self, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _refuse(f"{self.name} must be an integer", self.name)
        if not self.minimum <= value <= self.maximum:
            raise _refuse(f"{self.name} must be between {self.minimum} and {self.maximum}", self.name)
        return value


@dataclass(frozen=True)
class Choice(Param):
    choices: tuple[str, ...] = ()
    default_value: str | None = None

    @property
    def default(self) -> Any:
        return self.default_value

    def schema(self) -> Json:
        out: Json = {"type": "string", "enum": list(self.choices)}
        if self.default_value is not None:
            out["default"] = self.default_value
        return self._with_description(out)

    def check(self, value: Any) -> Any:
        if not isinstance(value, str) or value not in self.choices:
            raise _refuse(f"{self.name} must be one of {', '.join(self.choices)}", self.name)
        return value


@dataclass(frozen=True)
class Flag(Param):
    default_value: bool = False

    @property
    def default(self) -> Any:
        return self.default_value

    def schema(self) -> Json:
        return self._with_description({"type": "boolean", "default": self.default_value})

    def check(self, value: Any) -> Any:
        if not isinstance(value, bool):
            raise _refuse(f"{self.name} must be true or false", self.name)
        return value


@dataclass(frozen=True)
class TextList(Param):
    max_items: int = 50
    item_max_length: int = 512
    item_pattern: str | None = None

    def schema(self) -> Json:
        item: Json = {"type": "string", "minLength": 1, "maxLength": self.item_max_length,
                      "pattern": self.item_pattern or NOT_BLANK_PATTERN}
        return self._with_description({"type": "array", "items": item, "minItems": 1, "maxItems": self.max_items,
                                       "uniqueItems": True})

    def check(self, value: Any) -> Any:
        if not isinstance(value, list) or not value:
            raise _refuse(f"{self.name} must be a non-empty list of strings", self.name)
        if len(value) > self.max_items:
            raise _refuse(f"{self.name} holds more than {self.max_items} items", self.name)
        out: list[str] = []
        for item in value:
            if not isinstance(item, str) or not item.strip() or len(item) > self.item_max_length:
                raise _refuse(f"{self.name} items must be strings of 1..{self.item_max_length} characters", self.name)
            if self.item_pattern and not re.search(self.item_pattern, item):
                raise _refuse(f"{self.name} item {item!r} does not match {self.item_pattern}", self.name)
            if item.strip() not in out:
                out.append(item.strip())
        return out


@dataclass(frozen=True)
class Rule:
    """A cross-field constraint."""

    def schema(self) -> Json | None:
        return None

    def check(self, args: Mapping[str, Any]) -> None:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class NotAfter(Rule):
    """``first`` must not be after ``second`` when both are given."""

    first: str
    second: str

    def check(self, args: Mapping[str, Any]) -> None:
        a, b = args.get(self.first), args.get(self.second)
        if a is not None and b is not None and a > b:
            raise _refuse(f"{self.first} is after {self.second}", self.first, "dates_out_of_order")

    def describe(self) -> str:
        return f"{self.first} must not be after {self.second}"


@dataclass(frozen=True)
class RequiredWhen(Rule):
    """``field`` is required when ``when`` holds one of ``values``."""

    field: str
    when: str
    values: tuple[str, ...]

    def schema(self) -> Json | None:
        return {"if": {"properties": {self.when: {"enum": list(self.values)}}, "required": [self.when]},
                "then": {"required": [self.field]}}

    def check(self, args: Mapping[str, Any]) -> None:
        if args.get(self.when) in self.values and args.get(self.field) is None:
            raise _refuse(f"{self.field} is required when {self.when} is {args.get(self.when)}", self.field,
                          "missing_argument")

    def describe(self) -> str:
        return f"{self.field} is required when {self.when} is one of {', '.join(self.values)}"


@dataclass(frozen=True)
class ForbiddenWhen(Rule):
    """``field`` must be absent when ``when`` holds one of ``values``."""

    field: str
    when: str
    values: tuple[str, ...]

    def schema(self) -> Json | None:
        return {"if": {"properties": {self.when: {"enum": list(self.values)}}, "required": [self.when]},
                "then": {"not": {"required": [self.field]}}}

    def check(self, args: Mapping[str, Any]) -> None:
        if args.get(self.when) in self.values and args.get(self.field) is not None:
            raise _refuse(f"{self.field} is not allowed when {self.when} is {args.get(self.when)}", self.field,
                          "conflicting_arguments")

    def describe(self) -> str:
        return f"{self.field} is not allowed when {self.when} is one of {', '.join(self.values)}"


def json_schema(params: Sequence[Param], rules: Sequence[Rule] = ()) -> Json:
    """The JSON Schema (draft 2020-12) of an operation's arguments."""
    schema: Json = {
        "type": "object",
        "properties": {p.name: p.schema() for p in params},
        "required": [p.name for p in params if p.required],
        "additionalProperties": False,
    }
    conditional = [s for s in (r.schema() for r in rules) if s is not None]
    if conditional:
        schema["allOf"] = conditional
    notes = [r.describe() for r in rules if r.schema() is None]
    if notes:
        schema["description"] = "; ".join(notes)
    return schema


def validate(params: Sequence[Param], rules: Sequence[Rule], args: Any) -> dict[str, Any]:
    """Checked arguments with defaults filled in (absent optional arguments are ``None``)."""
    if args is None:
        args = {}
    if not isinstance(args, Mapping):
        raise RequestError("arguments must be an object", code="invalid_arguments")
    known = {p.name: p for p in params}
    for key in args:
        if key not in known:
            raise _refuse(f"unknown argument {key!r}", str(key), "unknown_argument")
    out: dict[str, Any] = {}
    for param in params:
        value = args.get(param.name)
        if value is None:
            if param.required:
                raise _refuse(f"{param.name} is required", param.name, "missing_argument")
            out[param.name] = param.default
        else:
            out[param.name] = param.check(value)
    for rule in rules:
        rule.check(out)
    return out
