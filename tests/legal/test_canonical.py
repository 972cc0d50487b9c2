"""Canonical JSON (RFC 8785): our encoder agrees with the reference library and is stable."""

from __future__ import annotations

import json

import pytest
import rfc8785
from hypothesis import given
from hypothesis import strategies as st

from legal.canonical import canonical_bytes, digest, pretty_bytes
from legal.errors import CanonicalError, LexError

# Strings without lone surrogates (they cannot be UTF-8 encoded).
texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=30)
scalars = st.none() | st.booleans() | st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1) | texts
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(texts, inner, max_size=5),
    max_leaves=30,
)


@given(values)
def test_agrees_with_rfc8785_reference_library(value: object) -> None:
    assert canonical_bytes(value) == rfc8785.dumps(value)


@given(values)
def test_parse_then_reencode_is_identity(value: object) -> None:
    once = canonical_bytes(value)
    assert canonical_bytes(json.loads(once)) == once


@given(values)
def test_pretty_rendering_reads_back_to_the_same_digest(value: object) -> None:
    assert digest(json.loads(pretty_bytes(value))) == digest(value)


def test_member_order_is_utf16_code_unit_order() -> None:
    # U+10000 (surrogates D800..) sorts before U+E000 in UTF-16, after it in code points.
    assert canonical_bytes({"\ue000": 1, "\U00010000": 2}) == '{"\U00010000":2,"\ue000":1}'.encode()


def test_key_order_does_not_change_the_digest() -> None:
    assert digest({"a": 1, "b": [True, None]}) == digest({"b": [True, None], "a": 1})


@pytest.mark.parametrize(
    ("value", "code"),
    [
        (1.5, "float_not_allowed"),
        ({"x": 2**60}, "unsafe_integer"),
        ("\ud800", "lone_surrogate"),
        ({1: "x"}, "non_string_key"),
        (b"bytes", "not_json"),
    ],
    ids=["float", "unsafe-int", "lone-surrogate", "int-key", "bytes"],
)
def test_refuses_non_canonical_values_with_typed_error(value: object, code: str) -> None:
    with pytest.raises(CanonicalError) as err:
        canonical_bytes(value)
    assert err.value.code == code
    assert isinstance(err.value, LexError)
