"""Text helpers of the assistant: the shared normaliser, word-bounded spans, locale, dates.

Matching always runs on :func:`derive.index.text.normalize`, the same normalisation the index
stores names under, so a name typed by a reader and a name held in the catalogue meet on
identical strings. Nothing here reads a clock or the environment.
"""

from __future__ import annotations

import datetime as dt
import re

from derive.index.text import article_key, fold, normalize

__all__ = [
    "article_key",
    "find_spans",
    "fold",
    "is_iso_date",
    "locale_of",
    "normalize",
    "parse_iso_date",
    "sanitize",
]

_ISO_DATE = re.compile(r"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$")
_FRENCH_MARKERS = frozenset(
    ["quel", "quelle", "quels", "quelles", "que", "qu", "est", "les", "des", "du", "une", "le", "la", "au", "aux", "loi", "lois", "reglement", "article", "vigueur", "entre", "depuis", "montre", "montrez", "donne", "donnez", "affiche", "historique", "comparer", "compare", "chronologie", "couverture", "selon", "dans", "pour", "sur", "avec"]
)
_ENGLISH_MARKERS = frozenset(
    ["what", "which", "the", "of", "in", "on", "show", "give", "list", "is", "are", "was", "were", "did", "does", "do", "law", "laws", "article", "between", "since", "compare", "timeline", "coverage", "history", "text", "say", "says", "about", "force", "from", "to"]
)


def find_spans(haystack: str, needle: str) -> list[tuple[int, int]]:
    """Word-bounded occurrences of normalised ``needle`` in normalised ``haystack``.

    Spans are token index ranges ``[start, end)``; both inputs must already be normalised.
    """
    if not needle:
        return []
    hay = haystack.split()
    words = needle.split()
    size = len(words)
    return [(i, i + size) for i in range(len(hay) - size + 1) if hay[i:i + size] == words]


def locale_of(text: str) -> str:
    """``fr`` when the turn reads as French, else ``en`` (a count of marker words)."""
    words = normalize(text).split()
    french = sum(1 for w in words if w in _FRENCH_MARKERS)
    english = sum(1 for w in words if w in _ENGLISH_MARKERS)
    return "fr" if french > english else "en"


def is_iso_date(value: str) -> bool:
    """``YYYY-MM-DD`` and a real calendar day."""
    return parse_iso_date(value) is not None


def parse_iso_date(value: str) -> dt.date | None:
    """The calendar day of a strict ISO date string, else ``None``."""
    if not _ISO_DATE.match(value):
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        return None


def sanitize(text: str, limit: int = 200) -> str:
    """A violation message safe to echo to a model: first ``limit`` chars, plain ASCII only."""
    allowed = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _'.,-")
    return "".join(ch if ch in allowed else "?" for ch in text[:limit])
