"""Canonical JSON (RFC 8785): our encoder agrees with the reference library and is stable."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from legal.canonical import (
    FILE_CHUNK,
    _slow_text,
    canonical_bytes,
    digest,
    file_sha256,
    hash_file,
    pretty_bytes,
)
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


# -- the fast path (C encoder) and the full encoder agree byte for byte, or refuse alike -----

# every code point, including controls, DEL, lone surrogates and non-BMP characters
ANY_TEXT = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=24)
ANY_KEYS = ANY_TEXT | st.sampled_from(["a", "b", "\ue000", "\U0001f600", "é", "Z", ""])
ANY_SCALARS = (st.none() | st.booleans() | st.integers(min_value=-(2**60), max_value=2**60) | ANY_TEXT
               | st.floats(allow_nan=False))
ANY_VALUES = st.recursive(ANY_SCALARS,
                          lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ANY_KEYS, inner, max_size=4),
                          max_leaves=20)


def _outcome(encode: Callable[[object], bytes], value: object) -> object:
    try:
        return encode(value)
    except CanonicalError as exc:
        return ("error", exc.code)


def _slow_bytes(value: object) -> bytes:
    return _slow_text(value).encode("utf-8")


def _slow_pretty(value: object) -> bytes:
    _slow_text(value)
    return (json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode("utf-8")


@settings(max_examples=400, deadline=None)
@given(ANY_VALUES)
def test_fast_path_is_the_full_encoder(value: object) -> None:
    assert _outcome(canonical_bytes, value) == _outcome(_slow_bytes, value)


@settings(max_examples=200, deadline=None)
@given(ANY_VALUES)
def test_fast_pretty_is_the_checked_pretty(value: object) -> None:
    assert _outcome(pretty_bytes, value) == _outcome(_slow_pretty, value)


@pytest.mark.parametrize("value", [
    {"\ue000": 1, "\U0001f600": 2},  # UTF-16 order differs from code point order here
    ["\ud800"], {"x": 1.5}, {"x": 2**53}, {"x": ("a", 1)}, "\x7f\x1f\u2028",
], ids=["utf16-order", "lone-surrogate", "float", "unsafe-int", "tuple", "controls"])
def test_fast_path_edge_values(value: object) -> None:
    assert _outcome(canonical_bytes, value) == _outcome(_slow_bytes, value)
    assert _outcome(pretty_bytes, value) == _outcome(_slow_pretty, value)


@pytest.mark.parametrize("value", [
    {"\ufeff8. Médias": 1, "8. Médias": 2, "\uf0b7 a": 3, "é": 4, "\uffff": 5, "z": {"\ue000": [1]}},
    [{"\u2019\ufeff": None, "\uf0b7": "\U0001f600"}],
], ids=["bmp-keys", "astral-value"])
def test_keys_up_to_the_bmp_end_take_the_c_encoder(value: object) -> None:
    """A key whose highest characters are U+E000–U+FFFF (a BOM opening a heading, a private-use
    bullet: the ratchet's signature counts hold such keys) sorts alike in UTF-16 and code point
    order: the C encoder writes it, and its bytes are the full encoder's."""
    import legal.canonical as canonical

    assert canonical._plain(value)
    assert canonical_bytes(value) == _slow_bytes(value) == rfc8785.dumps(value)
    assert pretty_bytes(value) == _slow_pretty(value)


def test_a_key_past_the_bmp_or_a_surrogate_takes_the_full_encoder() -> None:
    import legal.canonical as canonical

    assert not canonical._plain({"\ue000": 1, "\U0001f600": 2})
    assert not canonical._plain({"a\ud800": 1})
    assert canonical_bytes({"\ue000": 1, "\U0001f600": 2}) == rfc8785.dumps({"\ue000": 1, "\U0001f600": 2})


@pytest.mark.parametrize("size", [0, 1, FILE_CHUNK - 1, FILE_CHUNK, FILE_CHUNK + 1, 2 * FILE_CHUNK + 7])
def test_file_sha256_is_the_sha256_of_the_bytes(tmp_path: Path, size: int) -> None:
    data = bytes(range(256)) * (size // 256) + bytes(size % 256)
    path = tmp_path / "blob"
    path.write_bytes(data)
    assert file_sha256(path) == hashlib.sha256(data).hexdigest()
    assert hash_file(path) == (hashlib.sha256(data).hexdigest(), size)


def test_the_file_hash_helpers_are_one() -> None:
    """The evidence store, the stage state, the index builder and the vector lane hash files with
    the one helper of the vocabulary (no private copies)."""
    import corpus_tree.evidence
    import derive.index.build
    import derive.vectors.encoder
    import pipelines.state

    assert corpus_tree.evidence.hash_file is hash_file
    assert pipelines.state.file_sha256 is file_sha256
    assert derive.index.build._sha256_file is file_sha256
    assert derive.vectors.encoder.file_sha256 is file_sha256


@settings(max_examples=200, deadline=None)
@given(ANY_VALUES)
def test_the_json_fallback_writes_the_orjson_bytes(value: object) -> None:
    """Where ``orjson`` is not installed, ``json`` takes the fast path: the same bytes, the same refusals."""
    import legal.canonical as canonical

    with_orjson = (_outcome(canonical_bytes, value), _outcome(pretty_bytes, value))
    saved, canonical._ORJSON = canonical._ORJSON, None
    try:
        without = (_outcome(canonical_bytes, value), _outcome(pretty_bytes, value))
    finally:
        canonical._ORJSON = saved
    assert with_orjson == without
