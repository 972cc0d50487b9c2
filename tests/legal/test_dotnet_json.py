"""The published record-hash recipe (:mod:`legal.dotnet_json`): the table-driven escape equals the
character-by-character reference escape on every code point, the general writer's dict/list
shortcut equals its general branch, and the ``orjson`` writer (with its re-escaping) equals an
independent character-by-character copy of the recipe on random values and on edge values, or
hands them to the general writer (floats, integers beyond 64 bits, lone surrogates, other types)."""

from __future__ import annotations

import random
import uuid
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from legal import dotnet_json
from legal.errors import CanonicalError


def _reference_escape(text: str) -> str:
    return '"' + "".join(dotnet_json._escape_char(ch) for ch in text) + '"'


def _reference_write(value: Any, depth: int = 0) -> str:
    out: list[str] = []
    dotnet_json._write_any(value, depth, out)
    return "".join(out)


def test_escape_of_every_code_point_is_the_reference_escape() -> None:
    for code in range(0x110000):
        ch = chr(code)
        for text in (ch, "a" + ch + "b"):
            assert dotnet_json._escape(text) == _reference_escape(text), hex(code)


def test_escape_fixed_points() -> None:
    assert dotnet_json._escape("a\"&'+<>`\\b") == '"a\\u0022\\u0026\\u0027\\u002B\\u003C\\u003E\\u0060\\\\b"'
    assert dotnet_json._escape("é\x7f\n\x01") == '"\\u00E9\\u007F\\n\\u0001"'
    assert dotnet_json._escape("\U0001F600") == '"\\uD83D\\uDE00"'
    assert dotnet_json._escape("plain ascii") == '"plain ascii"'


def test_escape_of_random_strings() -> None:
    rnd = random.Random(13)
    for _ in range(5000):
        text = "".join(chr(rnd.choice([rnd.randrange(0x80), rnd.randrange(0x800), rnd.randrange(0x110000)]))
                       for _ in range(rnd.randrange(40)))
        assert dotnet_json._escape(text) == _reference_escape(text)


def test_fast_writer_equals_the_general_writer() -> None:
    value = {"b": "x\u00e9", "a": [1, -2, True, False, None, "", {}, [], {"k": ["v", {"z": 0}]}],
             "e": {}, "l": [], "n": {"deep": [[["é"]]]}, "s": "\"<>"}
    for depth in (0, 1, 3):
        out: list[str] = []
        dotnet_json._write(value, depth, out)
        assert "".join(out) == _reference_write(value, depth)
    ordered = OrderedDict([("z", "1"), ("a", ("t", "u"))])  # a Mapping and a tuple: the general path
    assert dotnet_json.dotnet_serialize({"o": ordered}) == \
        b'{\r\n  "o": {\r\n    "z": "1",\r\n    "a": [\r\n      "t",\r\n      "u"\r\n    ]\r\n  }\r\n}'


# --- the recipe, written again character by character (the original pure-Python writer) ----------

def _recipe_char(ch: str) -> str:
    code = ord(ch)
    short = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}.get(ch)
    if short is not None:
        return short
    if ch in "\"&'+<>`" or code < 0x20 or code > 0x7E:
        if code > 0xFFFF:
            code -= 0x10000
            return f"\\u{0xD800 + (code >> 10):04X}\\u{0xDC00 + (code & 0x3FF):04X}"
        return f"\\u{code:04X}"
    return ch


def _recipe(value: Any, depth: int = 0) -> str:
    pad, end = "\r\n" + "  " * (depth + 1), "\r\n" + "  " * depth
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + "".join(_recipe_char(ch) for ch in value) + '"'
    if isinstance(value, Mapping):
        items = [pad + _recipe(key) + ": " + _recipe(item, depth + 1) for key, item in value.items()]
        return "{" + ",".join(items) + end + "}" if items else "{}"
    if isinstance(value, Sequence):
        items = [pad + _recipe(item, depth + 1) for item in value]
        return "[" + ",".join(items) + end + "]" if items else "[]"
    raise CanonicalError(f"{type(value).__name__} is not supported", code="not_json")


def _outcome(write: Callable[[Any], bytes], value: Any) -> bytes | str:
    try:
        return write(value)
    except CanonicalError as exc:
        return f"refused: {exc.code}"


def _recipe_bytes(value: Any) -> bytes:
    return _recipe(value).encode("utf-8")


_HTML = "\"&'+<>`\\/\x7f"
TEXT = st.text(st.one_of(
    st.characters(),  # any code point, lone surrogates included
    st.characters(max_codepoint=0x7F),  # ASCII, controls included
    st.sampled_from(list(_HTML + "\b\f\n\r\t\x00\x1f\u00e9\u00a0\u2019\u3000\uffff\U0001F600\U0010FFFF\ud800\udfff")),
), max_size=24)
JSON_SCALARS = st.one_of(st.none(), st.booleans(), TEXT, st.integers(min_value=-(2**63), max_value=2**64 - 1))
SCALARS = st.one_of(JSON_SCALARS, st.integers(), st.floats(allow_nan=True, allow_infinity=True))


def _records(scalars: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    values = st.recursive(scalars, lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(TEXT, inner, max_size=5)), max_leaves=30)
    return st.dictionaries(TEXT, values, max_size=6)


RECORDS = _records(SCALARS)  # floats and integers of any size too: the general writer's share
PLAIN_RECORDS = _records(JSON_SCALARS)  # mostly the orjson writer's


@settings(max_examples=600, deadline=None)
@given(RECORDS)
def test_the_serialisation_is_the_recipe(record: dict[str, Any]) -> None:
    assert _outcome(dotnet_json.dotnet_serialize, record) == _outcome(_recipe_bytes, record)


@settings(max_examples=600, deadline=None)
@given(PLAIN_RECORDS)
def test_the_orjson_writer_is_the_recipe_on_what_it_takes(record: dict[str, Any]) -> None:
    """Every value :func:`_plain` admits is written by the ``orjson`` writer as the recipe writes
    it, unless ``orjson`` refuses it (a lone surrogate, an integer beyond 64 bits)."""
    if not dotnet_json._plain(record):
        return
    assert dotnet_json._ORJSON is not None
    try:
        fast = dotnet_json._fast_bytes(record, *dotnet_json._ORJSON)
    except TypeError:
        leaves = _leaves(record)
        assert any("\ud800" <= ch <= "\udfff" for leaf in leaves if type(leaf) is str for ch in leaf) or any(
            type(leaf) is int and not -(2**63) <= leaf < 2**64 for leaf in leaves)
        return
    assert fast == _recipe_bytes(record)


def _leaves(value: Any) -> list[Any]:
    """Every scalar of ``value`` and every member name in it."""
    if isinstance(value, dict):
        return list(value) + [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def test_the_orjson_writer_on_every_escape() -> None:
    """One record holding every code point class the re-escaping handles, in keys and values,
    nested, next to the escapes that look alike (a literal backslash before ``u``, ``x``, ``"``)."""
    text = "".join(chr(code) for code in range(0x100)) + "\u0100\u2019\u2fff\u3000\ufeff\uffff\U00010000\U0001F600\U0010FFFF"
    tricky = ["\\", "\\\\", "\\u0041", "\\x41", "\\U0001F600", '\\"', "\\\u00e9", "\\n", "a\\", "\u00e9\\"]
    record = {text: [text, {"k": tricky, text[::-1]: {}}, [], [[]], True, False, None, 0, -1, 2**63 - 1, -(2**63), 2**64 - 1],
              "t": tricky, "e": {}, "l": []}
    assert dotnet_json._plain(record)
    assert dotnet_json._ORJSON is not None
    assert dotnet_json._fast_bytes(record, *dotnet_json._ORJSON) == _recipe_bytes(record)
    assert dotnet_json.dotnet_serialize(record) == _recipe_bytes(record)


@pytest.mark.parametrize("record", [
    {"big": 2**64}, {"small": -(2**63) - 1}, {"s": "a\ud800b"}, {"k\udfff": "v"},
    {"o": OrderedDict([("z", "1")])}, {"t": ("a", 1)}, {"f": 1.5}, {"n": [float("nan")]},
    {"u": uuid.UUID(int=1)}, {"b": b"xy"}, OrderedDict([("a", "b")]),
], ids=["int-2^64", "int-below-i64", "lone-surrogate", "surrogate-key", "ordered-dict", "tuple", "float", "nan",
        "uuid", "bytes", "top-ordered-dict"])
def test_what_the_orjson_writer_does_not_take_is_the_general_writers(record: Mapping[str, Any]) -> None:
    """The values ``orjson`` refuses or would write otherwise take the general writer: the recipe's
    text or its refusal (a float, a UUID); an integer beyond 64 bits reaches ``orjson`` and is refused."""
    assert _outcome(dotnet_json.dotnet_serialize, record) == _outcome(_recipe_bytes, record)
    if type(record) is dict and dotnet_json._plain(record):
        assert dotnet_json._ORJSON is not None
        with pytest.raises(TypeError):
            dotnet_json._fast_bytes(record, *dotnet_json._ORJSON)


def test_without_orjson_the_general_writer_writes_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    record = {"a": ["\u00e9<&>", {"b": True, "c": None, "d": 7}], "e": "\U0001F600\\\""}
    with_orjson = dotnet_json.dotnet_serialize(record)
    monkeypatch.setattr(dotnet_json, "_ORJSON", None)
    assert dotnet_json.dotnet_serialize(record) == with_orjson == _recipe_bytes(record)


def test_the_token_table_keeps_only_small_code_points() -> None:
    table = dotnet_json._TokenTable()
    assert table[b"\\u2019"] == b"\\u2019" and table[b"\\xe9"] == b"\\u00E9" and table[b'\\"'] == b"\\u0022"
    assert table[b"\\U0001f600"] == b"\\uD83D\\uDE00" and table[b"\\uabcd"] == b"\\uABCD"
    assert set(table) == {b"\\u2019", b"\\xe9", b'\\"'}
