"""The published record-hash recipe (:mod:`legal.dotnet_json`): the table-driven escape equals the
character-by-character reference escape on every code point, and the fast writer equals the
general one on plain and non-plain values."""

from __future__ import annotations

import random
from collections import OrderedDict
from typing import Any

from legal import dotnet_json


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
