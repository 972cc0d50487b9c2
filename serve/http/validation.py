"""Argument validation at the edge, against the operation's own declaration.

Arguments arrive as a JSON object (``POST``) or as query parameters (``GET``). Both end here,
as one ``dict`` checked before any queueing: by the legal core's own validator of the
operation when it has one (the same declarations its JSON Schema is rendered from), else
against the closed JSON Schema (unknown members refused). A refusal is one
:class:`legal.errors.RequestError` naming the argument.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import ValidationError

from legal.errors import RequestError
from serve.http.catalog import Operation, is_list, scalar_type

_INTEGER = re.compile(r"^-?[0-9]{1,18}$")
_NUMBER = re.compile(r"^-?[0-9]{1,18}(\.[0-9]{1,18})?$")
MAX_SUBJECT = 120


def _subject(text: str) -> str:
    return text[:MAX_SUBJECT]


class ArgumentValidator:
    """Validates arguments of one operation against its closed schema."""

    def __init__(self, operation: Operation) -> None:
        self.operation = operation
        self._validator = Draft202012Validator(operation.closed_schema(), format_checker=FormatChecker())

    def validate(self, arguments: object) -> dict[str, Any]:
        """Return the arguments as a plain dict, or raise :class:`RequestError`."""
        if not isinstance(arguments, Mapping):
            raise RequestError("arguments must be a JSON object", code="invalid_arguments")
        args = dict(arguments)
        unknown = sorted(name for name in args if name not in self.operation.properties)
        if unknown:
            raise RequestError(f"unknown argument for {self.operation.name}",
                               code="unknown_argument", subject=_subject(unknown[0]))
        errors = sorted(self._validator.iter_errors(args), key=_error_order)
        if errors:
            raise _refusal(errors[0])
        return args


def _error_order(error: ValidationError) -> tuple[int, str]:
    rank = {"required": 0, "type": 1}.get(str(error.validator), 2)
    return rank, "/".join(str(p) for p in error.absolute_path)


def _refusal(error: ValidationError) -> RequestError:
    path = "/".join(str(part) for part in error.absolute_path)
    keyword = str(error.validator)
    if keyword == "required":
        missing = _missing_name(error)
        return RequestError("a required argument is missing", code="missing_argument", subject=_subject(missing))
    if keyword == "additionalProperties":
        return RequestError("unknown argument", code="unknown_argument", subject=_subject(path or "arguments"))
    where = path or "arguments"
    return RequestError(f"argument {where!r} is not valid ({keyword})", code="invalid_argument",
                        subject=_subject(where))


def _missing_name(error: ValidationError) -> str:
    required = error.validator_value if isinstance(error.validator_value, list) else []
    present = error.instance if isinstance(error.instance, Mapping) else {}
    for name in required:
        if name not in present:
            return str(name)
    return "arguments"


@lru_cache(maxsize=64)
def _validator_for(operation: Operation) -> ArgumentValidator:
    return ArgumentValidator(operation)


def validate_arguments(operation: Operation, arguments: object) -> dict[str, Any]:
    """Validate ``arguments`` for ``operation``; return them unchanged (as a plain dict)."""
    if operation.validator is not None:
        if not isinstance(arguments, Mapping):
            raise RequestError("arguments must be a JSON object", code="invalid_arguments")
        operation.validator(arguments)
        return dict(arguments)
    return _validator_for(operation).validate(arguments)


def parse_json_body(body: bytes) -> object:
    """The JSON value of a request body (an empty body is ``{}``)."""
    if not body.strip():
        return {}
    try:
        return json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise RequestError("request body is not valid JSON", code="invalid_json") from None


def arguments_from_query(operation: Operation, items: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """Query parameters as typed arguments.

    A list argument is given by repeating its name (``anchors=art_1&anchors=art_2``); any
    other repeated name, and any unknown name, is refused.
    """
    args: dict[str, Any] = {}
    for name, raw in items:
        prop = operation.properties.get(name)
        if prop is None:
            raise RequestError(f"unknown argument for {operation.name}", code="unknown_argument",
                               subject=_subject(name))
        if is_list(prop):
            args.setdefault(name, []).append(_coerce(raw, scalar_type(prop["items"])))
            continue
        if name in args:
            raise RequestError("an argument was given more than once", code="duplicate_argument",
                               subject=_subject(name))
        args[name] = _coerce(raw, scalar_type(prop))
    return args


def _coerce(raw: str, kind: str | None) -> Any:
    """Turn a query string into the JSON type the schema asks for; leave it when it does not fit."""
    if kind == "integer" and _INTEGER.match(raw):
        return int(raw)
    if kind == "number" and _NUMBER.match(raw):
        return float(raw) if "." in raw else int(raw)
    if kind == "boolean" and raw in ("true", "false"):
        return raw == "true"
    return raw
