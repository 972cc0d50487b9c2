"""The JSON bytes of answers: ``orjson`` where it is installed, else the standard library.

Both give the same JSON value (``tests/serve/test_encoding.py`` compares them over the fixture
answers): keys in their order, text as UTF-8, no ``NaN``. The text differs only where JSON allows
it to — a float in exponent form is written in its shortest form (``-2e-6``, not ``-2e-06``).
``orjson`` spends a tenth of the CPU of ``json`` on an indented document (which ``json`` encodes
in pure Python) and about a third on a compact one (the HTTP API, the MCP tool result's text).
"""

from __future__ import annotations

import json
from typing import Any

from starlette.responses import Response

from legal.canonical import orjson_module

_ORJSON = orjson_module()


def compact(value: Any) -> bytes:
    """Compact UTF-8 JSON (what ``starlette.responses.JSONResponse`` writes)."""
    if _ORJSON is not None:
        try:
            return bytes(_ORJSON.dumps(value, option=_ORJSON.OPT_NON_STR_KEYS))
        except TypeError:  # an integer past 64 bits, or a type orjson does not know: json decides
            pass
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")


def indented(value: Any) -> str:
    """JSON indented by two spaces."""
    if _ORJSON is not None:
        try:
            return str(_ORJSON.dumps(value, option=_ORJSON.OPT_NON_STR_KEYS | _ORJSON.OPT_INDENT_2).decode("utf-8"))
        except TypeError:
            pass
    return json.dumps(value, ensure_ascii=False, indent=2)


def exact(value: Any) -> bytes | None:
    """:func:`compact`'s bytes when :func:`loads` gives ``value`` back from them; else None (with
    ``orjson``: an integer past 64 bits, which ``orjson.loads`` would read as a float)."""
    if _ORJSON is None:
        return compact(value)
    try:
        return bytes(_ORJSON.dumps(value))
    except TypeError:
        return None


def loads(data: bytes) -> Any:
    """The JSON value of bytes :func:`exact` wrote."""
    return _ORJSON.loads(data) if _ORJSON is not None else json.loads(data)


def canonical_key(operation: str, arguments: Any) -> bytes | None:
    """``[operation, arguments]`` as compact JSON with every object's keys sorted: equal for equal
    calls whatever the order their arguments came in (the answer cache's key); None when the
    arguments are not JSON values."""
    value = [operation, arguments]
    if _ORJSON is not None:
        try:
            return bytes(_ORJSON.dumps(value, option=_ORJSON.OPT_SORT_KEYS))
        except TypeError:
            pass
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, sort_keys=True,
                          separators=(",", ":")).encode("utf-8")
    except (TypeError, ValueError):
        return None


class EncodedResponse(Response):
    """A JSON response of bytes already encoded (:meth:`serve.mount.ServeState.call_encoded`):
    the same status, headers and body as a ``JSONResponse`` of the answer encoded by :func:`compact`."""

    media_type = "application/json"
