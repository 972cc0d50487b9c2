"""The HTTP and MCP encodings of answers (``serve.http.encoding``) give the same JSON as the
standard library for every golden call over the fixtures, and differ in text at most in how a
float in exponent form is written."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from serve.core import LegalCore
from serve.http import encoding
from tests.serve_core.golden_calls import golden_calls

#: ``1e-06`` (json) and ``1e-6`` (orjson): the one textual freedom the encoders take differently.
_EXPONENT = re.compile(r"(\d)e([+-]?)0*(\d)")


def _exponents(text: str) -> str:
    return _EXPONENT.sub(lambda m: f"{m.group(1)}e{m.group(2).replace('+', '')}{m.group(3)}", text)


@pytest.fixture(scope="module")
def fixture_answers(fixture_core: LegalCore) -> list[Any]:
    calls = golden_calls(fixture_core) + golden_calls(fixture_core, search=True)
    return [fixture_core.call(name, args) for name, args in calls]


def test_compact_and_indented_json_are_the_standard_librarys(fixture_answers: list[Any]) -> None:
    assert len(fixture_answers) > 1000
    for answer in fixture_answers:
        reference = json.dumps(answer, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        assert json.loads(encoding.compact(answer)) == json.loads(reference)
        assert _exponents(encoding.compact(answer).decode("utf-8")) == _exponents(reference)
        assert _exponents(encoding.indented(answer)) == _exponents(json.dumps(answer, ensure_ascii=False, indent=2))


def test_what_orjson_cannot_encode_falls_back_to_json() -> None:
    big = {"n": 2**70, 3: "integer key"}
    assert json.loads(encoding.compact(big)) == {"n": 2**70, "3": "integer key"}
    assert json.loads(encoding.indented(big)) == {"n": 2**70, "3": "integer key"}
