"""List markers: the publisher's own numbering symbol applied to a counter.

Legilux declares list styles as ``scl:symbol`` (``1°``, ``a)``, ``i.``, ``(1)``…) and a start;
the item text does not repeat the marker. The first counter token of the symbol (``1``, ``a``,
``A``, ``i``, ``I``) is replaced by the formatted counter, so item 3 of ``a)`` is ``c)``.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"[0-9]+|[ivxlcdm]+|[IVXLCDM]+|[a-z]|[A-Z]")
_ROMAN = ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
          (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"))


def roman(n: int) -> str:
    out = []
    for value, letters in _ROMAN:
        while n >= value:
            out.append(letters)
            n -= value
    return "".join(out)


def alpha(n: int) -> str:
    """1 → a, 26 → z, 27 → aa (spreadsheet style)."""
    out = ""
    while n > 0:
        n, rem = divmod(n - 1, 26)
        out = chr(ord("a") + rem) + out
    return out or "a"


def _format(token: str, n: int) -> str:
    if token.isdigit():
        return str(n)
    if token in ("i", "I") or (len(token) > 1 and token.lower().strip("ivxlcdm") == ""):
        value = roman(n)
        return value.upper() if token.isupper() else value
    value = alpha(n)
    return value.upper() if token.isupper() else value


def ordered_marker(symbol: str | None, index: int, start: str | None = None) -> str:
    """Marker of the ``index``-th (0-based) item of an ordered list with this symbol."""
    try:
        first = int(start) if start else 1
    except ValueError:
        first = 1
    n = first + index
    if not symbol or symbol in ("custom", "none"):
        return f"{n}." if not symbol else ""
    match = _TOKEN.search(symbol)
    if not match:
        return symbol
    return symbol[: match.start()] + _format(match.group(0), n) + symbol[match.end():]


def bullet_marker(symbol: str | None) -> str:
    if symbol in ("none", "custom"):
        return ""
    return "-"
