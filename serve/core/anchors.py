"""Anchor matching and "nearest anchors" suggestions.

A requested anchor matches exactly first; failing that, two article anchors match when their
:func:`~derive.index.text.anchor_article_key` is equal (``art_1`` ↔ ``art_1er``), never by
prefix (``art_42`` never meets ``art_42ter``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from derive.index.text import anchor_article_key

_FIRST_NUMBER = re.compile(r"\d+")
NEAREST = 6


def match_anchor(requested: str, held: Sequence[str]) -> str | None:
    if requested in held:
        return requested
    lowered = requested.lower()
    exact_case = next((a for a in held if a.lower() == lowered), None)
    if exact_case is not None:
        return exact_case
    key = anchor_article_key(requested)
    if key is None:
        return None
    return next((a for a in held if anchor_article_key(a) == key), None)


def _family(anchor: str) -> str:
    return anchor.split("_", 1)[0].lower()


def _number(anchor: str) -> int | None:
    match = _FIRST_NUMBER.search(anchor)
    return int(match.group()) if match else None


def nearest_anchors(requested: str, held: Sequence[str], limit: int = NEAREST) -> list[str]:
    """Anchors of the same family closest in number; else the family's first; else the first held."""
    family = [a for a in held if _family(a) == _family(requested)]
    wanted = _number(requested)
    if family and wanted is not None:
        numbered = [(abs(n - wanted), i, a) for i, a in enumerate(family) if (n := _number(a)) is not None]
        if numbered:
            return [a for _, _, a in sorted(numbered)[:limit]]
    return list((family or list(held))[:limit])
