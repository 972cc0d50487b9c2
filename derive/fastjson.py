"""Fast encoders that give exactly the bytes of :mod:`legal.canonical` for dataset values.

:func:`legal.canonical.canonical_bytes` walks every character in Python; on the fixture trees
it was more than half of a dataset build. For values whose object keys are all BMP characters
below the surrogate range (every key the dataset writes is ASCII), RFC 8785 is what the C
``json`` encoder writes with sorted keys, no whitespace and literal UTF-8: the same short
escapes (``\\" \\\\ \\b \\f \\n \\r \\t``), other controls as lowercase ``\\u00xx``, nothing else
escaped, integers as digits. Anything else — a float, an unsafe integer, a lone surrogate, a
key outside that range, a non-JSON type — goes to :mod:`legal.canonical`, which encodes it
or raises its typed :class:`legal.errors.CanonicalError`. ``tests/derive/test_fastjson.py``
checks the equality property on generated values.
"""

from __future__ import annotations

import json
from typing import Any

from legal.canonical import canonical_bytes, pretty_bytes

_SAFE_INT = 2**53 - 1
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False,
                            check_circular=False)


def _plain(value: Any) -> bool:
    """True when the C encoder's output is the RFC 8785 text of ``value``."""
    stack = [value]
    while stack:
        item = stack.pop()
        if item is None or item is True or item is False or type(item) is str:
            continue
        if type(item) is int:
            if -_SAFE_INT <= item <= _SAFE_INT:
                continue
            return False
        if type(item) is dict:
            for key, sub in item.items():
                if type(key) is not str or (not key.isascii() and max(key) >= "\ud800"):
                    return False
                stack.append(sub)
            continue
        if type(item) is list or type(item) is tuple:
            stack.extend(item)
            continue
        return False
    return True


def canonical_line(value: Any) -> bytes:
    """``legal.canonical.canonical_bytes(value)``, fast for plain values."""
    if _plain(value):
        try:
            return _ENCODER.encode(value).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: the canonical encoder names it
            pass
    return canonical_bytes(value)


def pretty(value: Any) -> bytes:
    """``legal.canonical.pretty_bytes(value)``, fast for plain values."""
    if not _plain(value):
        return pretty_bytes(value)
    try:
        text = json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return pretty_bytes(value)
