"""The fast encoders write exactly the bytes of legal.canonical, or raise what it raises."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.fastjson import canonical_line, pretty
from legal.canonical import canonical_bytes, pretty_bytes
from legal.errors import CanonicalError

# every code point, including controls, DEL, lone surrogates and non-BMP characters
TEXT = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=24)
KEYS = TEXT | st.sampled_from(["a", "b", "\ue000", "\U0001f600", "é", "Z", ""])
SCALARS = (st.none() | st.booleans() | st.integers(min_value=-(2**60), max_value=2**60) | TEXT
           | st.floats(allow_nan=False))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
                      max_leaves=20)


def _outcome(encode, value):
    try:
        return encode(value)
    except CanonicalError as exc:
        return ("error", exc.code)


@settings(max_examples=400, deadline=None)
@given(VALUES)
def test_canonical_line_is_canonical_bytes(value):
    assert _outcome(canonical_line, value) == _outcome(canonical_bytes, value)


@settings(max_examples=200, deadline=None)
@given(VALUES)
def test_pretty_is_pretty_bytes(value):
    assert _outcome(pretty, value) == _outcome(pretty_bytes, value)


@pytest.mark.parametrize("value", [
    {"\ue000": 1, "\U0001f600": 2},  # UTF-16 order differs from code point order here
    ["\ud800"], {"x": 1.5}, {"x": 2**53}, {"x": ("a", 1)}, "\x7f\x1f\u2028",
])
def test_edge_values(value):
    assert _outcome(canonical_line, value) == _outcome(canonical_bytes, value)
    assert _outcome(pretty, value) == _outcome(pretty_bytes, value)
