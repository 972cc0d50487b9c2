"""Argument validation at the edge, against the operation's own declaration.

Arguments arrive as a JSON object (``POST``) or as query parameters (``GET``). Both end here,
as one ``dict`` checked before any queueing by the legal core's own validator of the
operation (the same declarations its JSON Schema is rendered from). A refusal is one
:class:`legal.errors.RequestError` naming the argument.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from legal.errors import RequestError
from serve.http.catalog import Operation, is_list, scalar_type

_INTEGER = re.compile(r"^-?[0-9]{1,18}$")
_NUMBER = re.compile(r"^-?[0-9]{1,18}(\.[0-9]{1,18})?$")
MAX_SUBJECT = 120


def _subject(text: str) -> str:
    return text[:MAX_SUBJECT]


_SURROGATE = re.compile("[\ud800-\udfff]")


def check_unicode(value: object, where: str = "arguments") -> None:
    """Refuse text that is not valid Unicode: a lone surrogate (``"\\ud800"``) can be written
    in JSON but encodes to no UTF-8, so nothing downstream could store, search or echo it."""
    if isinstance(value, str):
        if _SURROGATE.search(value):
            raise RequestError("text holds a lone UTF-16 surrogate (not valid Unicode)", code="invalid_unicode",
                               subject=_subject(where))
    elif isinstance(value, Mapping):
        for key, item in value.items():
            check_unicode(key, where)
            check_unicode(item, str(key) if isinstance(key, str) and not _SURROGATE.search(key) else where)
    elif isinstance(value, list):
        for item in value:
            check_unicode(item, where)


def validate_arguments(operation: Operation, arguments: object) -> dict[str, Any]:
    """Validate ``arguments`` with the core's own validator of ``operation``; return them as a plain dict."""
    if not isinstance(arguments, Mapping):
        raise RequestError("arguments must be a JSON object", code="invalid_arguments")
    check_unicode(arguments)
    normalised = normalise(operation, arguments)
    operation.validator(normalised)
    return normalised


def normalise(operation: Operation, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The edge's two decisions, declared the same way in the published schema: ``null`` is
    not a value (omit the member instead), and an integer may be written ``7.0`` (JSON Schema's
    ``integer`` is the mathematical one)."""
    out: dict[str, Any] = {}
    for name, value in arguments.items():
        if value is None:
            raise RequestError("null is not a value; omit the argument instead", code="invalid_argument",
                               subject=_subject(str(name)))
        prop = operation.properties.get(name) if isinstance(name, str) else None
        if prop is not None and prop.get("type") == "integer" and isinstance(value, float) and value.is_integer():
            value = int(value)
        if prop is not None and prop.get("uniqueItems") and isinstance(value, list) and _repeats(value):
            raise RequestError("a list argument names an item twice", code="invalid_argument",
                               subject=_subject(str(name)))
        out[name] = value
    return out


def parse_json_body(body: bytes) -> object:
    """The JSON value of a request body (an empty body is ``{}``)."""
    if not body.strip():
        return {}
    try:
        return json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise RequestError("request body is not valid JSON", code="invalid_json") from None


def _repeats(items: list[Any]) -> bool:
    seen: list[Any] = []
    for item in items:
        if any(item == other and type(item) is type(other) for other in seen):
            return True
        seen.append(item)
    return False


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
