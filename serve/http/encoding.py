"""The JSON bytes of answers: ``orjson`` where it is installed, else the standard library.

Both give the same JSON value (``tests/serve/test_encoding.py`` compares them over the fixture
answers): keys in their order, text as UTF-8, no ``NaN``. The text differs only where JSON allows
it to — a float in exponent form is written in its shortest form (``-2e-6``, not ``-2e-06``).
``orjson`` spends a tenth of the CPU of ``json`` on an indented document (the MCP text content,
which ``json`` encodes in pure Python) and about a third on a compact one (the HTTP API).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from typing import Any

from starlette.responses import JSONResponse

Encoder = Callable[..., bytes]


def _orjson() -> tuple[Encoder, int, int] | None:
    try:
        module = importlib.import_module("orjson")
    except ImportError:  # pragma: no cover - orjson is a dependency; json is the fallback
        return None
    return module.dumps, int(module.OPT_NON_STR_KEYS), int(module.OPT_INDENT_2)


_FAST = _orjson()


def compact(value: Any) -> bytes:
    """Compact UTF-8 JSON (what ``starlette.responses.JSONResponse`` writes)."""
    if _FAST is not None:
        try:
            return _FAST[0](value, option=_FAST[1])
        except TypeError:  # an integer past 64 bits, or a type orjson does not know: json decides
            pass
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")


def indented(value: Any) -> str:
    """JSON indented by two spaces (the MCP tool result's text)."""
    if _FAST is not None:
        try:
            return _FAST[0](value, option=_FAST[1] | _FAST[2]).decode("utf-8")
        except TypeError:
            pass
    return json.dumps(value, ensure_ascii=False, indent=2)


class AnswerResponse(JSONResponse):
    """A ``JSONResponse`` encoded by :func:`compact`."""

    def render(self, content: Any) -> bytes:
        return compact(content)
