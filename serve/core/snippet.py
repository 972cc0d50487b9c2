"""Snippets cut in code (the FTS tables are contentless, so SQLite's ``snippet()`` is not available).

The window opens around the earliest word-start occurrence of a query term (compared
diacritics-folded and lower-cased, so ``prevues`` finds ``prévues``), extends to whitespace
boundaries, and is marked with ``…`` where text was cut. No term found: the opening words.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

WINDOW = 240
_SPACE = re.compile(r"\s+")


def _folded_with_offsets(text: str) -> tuple[str, list[int]]:
    chars: list[str] = []
    offsets: list[int] = []
    for i, ch in enumerate(text):
        for part in unicodedata.normalize("NFKD", ch):
            if not unicodedata.combining(part):
                chars.append(part.lower())
                offsets.append(i)
    return "".join(chars), offsets


def _first_hit(folded: str, terms: Sequence[str]) -> int | None:
    best: int | None = None
    for term in terms:
        if len(term) < 3:
            continue
        for m in re.finditer(re.escape(term), folded):
            if m.start() == 0 or not folded[m.start() - 1].isalnum():
                best = m.start() if best is None else min(best, m.start())
                break
    return best


def snippet(text: str, terms: Sequence[str], window: int = WINDOW) -> str:
    if not text.strip():
        return ""
    folded, offsets = _folded_with_offsets(text)
    hit = _first_hit(folded, terms)
    centre = offsets[hit] if hit is not None and hit < len(offsets) else 0
    start = max(0, centre - window // 3) if hit is not None else 0
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    end = min(len(text), start + window)
    while end < len(text) and not text[end].isspace():
        end += 1
    body = _SPACE.sub(" ", text[start:end]).strip()
    return ("… " if start > 0 else "") + body + (" …" if end < len(text) else "")
