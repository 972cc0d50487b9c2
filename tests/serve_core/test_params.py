"""Operation declarations: one source for validation and JSON Schema."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from legal.errors import RequestError
from serve.core import OPERATIONS, Effect, LegalCore

EXPECTED = {"search", "as_of", "timeline", "in_force_on", "diff", "article_history", "provenance", "coverage",
            "cited_by", "changes_in_period"}


def test_ten_operations_with_schemas_and_effects() -> None:
    assert set(OPERATIONS) == EXPECTED
    for name, spec in OPERATIONS.items():
        schema = spec.input_schema
        Draft202012Validator.check_schema(schema)
        assert schema["additionalProperties"] is False
        assert spec.name == name and spec.description and isinstance(spec.effect, Effect)
        assert callable(spec.handler)
        assert spec.describe()["input_schema"] == schema


def _refused(op: str, args: Any) -> RequestError:
    with pytest.raises(RequestError) as err:
        LegalCore.empty().call(op, args)
    return err.value


@pytest.mark.parametrize(("op", "args", "code"), [
    ("search", {"query": "x", "limit": 51}, "invalid_argument"),
    ("search", {"query": "x", "limit": "50"}, "invalid_argument"),
    ("search", {"query": "x", "limit": True}, "invalid_argument"),
    ("search", {"query": "x" * 1001}, "invalid_argument"),
    ("search", {"query": "   "}, "invalid_argument"),
    ("search", {"query": "x", "colour": "red"}, "unknown_argument"),
    ("search", {"query": "x", "time_scope": "as_of"}, "missing_argument"),
    ("search", {"query": "x", "time_scope": "all_versions", "as_of": "2020-01-01"}, "conflicting_arguments"),
    ("search", {}, "missing_argument"),
    ("as_of", {"work": "w", "date": "2021-02-30"}, "invalid_date"),
    ("as_of", {"work": "w", "date": "20210101"}, "invalid_date"),
    ("as_of", {"work": "w", "date": "2021-01-01", "mode": "select"}, "missing_argument"),
    ("as_of", {"work": "w", "date": "2021-01-01", "anchors": "art_1"}, "invalid_argument"),
    ("as_of", {"work": "w", "date": "2021-01-01", "anchors": ["art 1"]}, "invalid_argument"),
    ("as_of", {"work": "w", "date": "2021-01-01", "version_key": "nope"}, "invalid_argument"),
    ("timeline", {"work": "w", "offset": -1}, "invalid_argument"),
    ("diff", {"work": "w", "from_date": "2022-01-01", "to_date": "2021-01-01"}, "dates_out_of_order"),
    ("changes_in_period", {"from_date": "2022-01-01", "to_date": "2021-01-01"}, "dates_out_of_order"),
    ("nope", {}, "unknown_operation"),
])
def test_invalid_arguments_are_refused_before_anything(op: str, args: Any, code: str) -> None:
    assert _refused(op, args).code == code


def test_arguments_must_be_an_object() -> None:
    assert _refused("coverage", ["publisher"]).code == "invalid_arguments"


def test_schema_and_validation_agree_on_bounds() -> None:
    props = OPERATIONS["search"].input_schema["properties"]
    assert props["limit"] == {"type": "integer", "minimum": 1, "maximum": 50, "default": 10,
                              "description": props["limit"]["description"]}
    assert props["query"]["maxLength"] == 1000
    as_of = OPERATIONS["as_of"].input_schema
    assert as_of["required"] == ["work", "date"]
    assert as_of["allOf"][0]["then"] == {"required": ["anchors"]}
    assert "from_date must not be after to_date" in OPERATIONS["diff"].input_schema["description"]
