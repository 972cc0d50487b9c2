"""Snippets cut in code (the FTS tables are contentless, so SQLite's ``snippet()`` is not available).

The window opens around the earliest word-start occurrence of a query term, found
accent- and case-insensitively (``prevues`` finds ``prévues``) by a regular expression whose
letters are classes of their accented forms (over the lower-cased text, with the common
French and German accents only, which is cheap to compile; with every Latin accent only when
lower-casing changes the text's length),
so the original text is never folded;
it extends to whitespace boundaries and is marked with ``…`` where text was cut. No term
found: the opening words.

Only the head of a stored text can matter (the scan stops at :data:`SCAN` characters), so a
search decodes at most :data:`HEAD` characters of each body (:func:`derive.index.textstore.read_heads`;
a large annex runs to megabytes of zlib; :func:`serve.core.ops.search.text_snippets` first tries a
32 KiB head) and cuts the snippet from that head when the head decides it, the whole text
otherwise (:func:`head_snippet` answers ``None`` then): the same snippet. A word's forms are scanned for as their
shortest prefixes (:func:`_shortest`: where ``listings`` starts, ``list`` does): the same first word start.
Over lower-cased text each of those is searched for alone, its word-start check placed after its
first letter so that the regular expression engine skips to that letter, and only before the
earliest start found so far (:func:`_earliest`): the first start of the alternation of them all.
A long head is lower-cased in its first :data:`FIRST_LOWERED` characters first, the rest only when
they do not decide the first start (:func:`_earliest_by_prefix`: the same start).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

WINDOW = 240
#: Only this many leading characters are scanned for a query word (large annexes run to megabytes).
SCAN = 20_000
#: Characters of a stored text decoded for its snippet (the scan, a window either side, a margin).
HEAD = SCAN + 2 * WINDOW + 2_000


def _variants() -> dict[str, str]:
    table: dict[str, set[str]] = {}
    for code in range(0x00C0, 0x0250):
        ch = chr(code)
        base = unicodedata.normalize("NFKD", ch)[:1].lower()
        if base.isascii() and base.isalpha():
            table.setdefault(base, {base}).update({ch.lower(), ch.upper()})
    return {k: "".join(sorted(v)) for k, v in table.items()}


_VARIANTS = _variants()


def _term_regex(term: str) -> str:
    parts = []
    for ch in term:
        variants = _VARIANTS.get(ch)
        parts.append(f"[{re.escape(variants)}]" if variants else re.escape(ch))
    return "".join(parts)


@lru_cache(maxsize=1024)
def term_pattern(term: str) -> re.Pattern[str]:
    """A word-start, accent- and case-insensitive pattern for a normalised term."""
    return re.compile(r"(?<!\w)" + _term_regex(term), re.IGNORECASE)


@lru_cache(maxsize=256)
def _any_term(terms: tuple[str, ...]) -> re.Pattern[str]:
    """One pattern for all ``terms``: a single scan finds the earliest word start of any."""
    return re.compile(r"(?<!\w)(?:" + "|".join(_term_regex(t) for t in terms) + ")", re.IGNORECASE)


#: The accented lower-case letters of French, German and Luxembourgish texts, by base letter.
_COMMON = {"a": "aàâäáã", "e": "eéèêë", "i": "iîïí", "o": "oôöó", "u": "uùûüú", "c": "cç", "n": "nñ", "y": "yÿ"}


@lru_cache(maxsize=256)
def _lower_terms(terms: tuple[str, ...]) -> re.Pattern[str]:
    """One pattern for ``terms`` over lower-cased text with small accent classes (cheap to compile,
    unlike the full classes of :func:`_any_term` under IGNORECASE)."""
    def one(term: str) -> str:
        return "".join(f"[{_COMMON[ch]}]" if ch in _COMMON else re.escape(ch) for ch in term)
    return re.compile(r"(?<!\w)(?:" + "|".join(one(t) for t in terms) + ")")


#: ``(?<!\w)`` checked after a word's first character instead of before it: the character before
#: that one is no word character (or there is none). The same matches, but a pattern that begins
#: with its first letter lets the regular expression engine skip to that letter: a 20,000-character
#: head without the word is scanned in about 0.1 ms instead of 0.8.
_STARTED = r"(?<!\w(?s:.))"


@lru_cache(maxsize=1024)
def _lower_term(term: str) -> re.Pattern[str]:
    """:func:`_lower_terms` of one term, its word-start check after its first letter; a match is
    ``len(term)`` characters long (each part matches one character)."""
    parts = [f"[{_COMMON[ch]}]" if ch in _COMMON else re.escape(ch) for ch in term]
    return re.compile(parts[0] + _STARTED + "".join(parts[1:]))


def _earliest(lowered: str, terms: Sequence[str]) -> int | None:
    """Where :func:`_lower_terms` ``(terms)`` first matches ``lowered``: the earliest of each term's
    first match (an alternation matches at the first position any alternative matches), each term
    searched only before the earliest found so far."""
    found: int | None = None
    for term in terms:
        end = len(lowered) if found is None else found + len(term) - 1
        hit = _lower_term(term).search(lowered, 0, end)
        if hit is not None:
            found = hit.start()
    return found


def _shortest(terms: Sequence[str]) -> tuple[str, ...]:
    """The terms no other term is a prefix of: a pattern has no end boundary, so where a longer
    form (``listings``) matches, its prefix (``list``) matches at the same start."""
    ordered = sorted(set(terms))
    kept: list[str] = []
    for term in ordered:  # a prefix sorts right before the words it starts
        if not kept or not term.startswith(kept[-1]):
            kept.append(term)
    return tuple(kept)


#: Characters lower-cased first (:func:`_first_hit`): most hits lie in a text's first lines.
FIRST_LOWERED = 2_048
#: ``İ`` (U+0130) lowers to two characters: the only character whose lower-casing changes a text's
#: length. ``Σ`` (U+03A3) lowers to ``σ`` or ``ς`` by its neighbours, the only one lowered by its
#: context. A head holding neither lowers character by character: its prefixes lower to the
#: prefixes of its lowered form.
_LONGER, _CONTEXTUAL = "\u0130", "\u03a3"


def _first_hit(text: str, terms: Sequence[str]) -> int | None:
    wanted = _shortest([t for t in terms if len(t) >= 3])
    if not wanted:
        return None
    head = text[:SCAN]
    if _LONGER in head:
        # lower-casing changes lengths: the full accent classes over the text itself
        found = _any_term(wanted).search(head)
        return found.start() if found is not None else None
    if _CONTEXTUAL in head or len(head) <= FIRST_LOWERED:
        return _earliest(head.lower(), wanted)
    return _earliest_by_prefix(head, wanted)


def _earliest_by_prefix(head: str, terms: Sequence[str]) -> int | None:
    """:func:`_earliest` of ``head.lower()`` for a head lowered character by character (neither
    :data:`_LONGER` nor :data:`_CONTEXTUAL` in it), lowering first its :data:`FIRST_LOWERED` characters, then all.

    A term's match is ``len(term)`` characters long and looks back, never ahead, so a match lying
    inside a prefix is one over the whole head; the earliest match found in a prefix is the
    earliest over the whole head when it starts at least the longest term's length before the
    prefix's end (a match starting earlier would end inside the prefix and have been found)."""
    longest = max(len(t) for t in terms)
    prefix = head[:FIRST_LOWERED].lower()
    found = _earliest(prefix, terms)
    if found is not None and found <= len(prefix) - longest:
        return found
    return _earliest(head.lower(), terms)


def snippet(text: str, terms: Sequence[str], window: int = WINDOW) -> str:
    found = _cut(text, terms, window, complete=True)
    assert found is not None  # a whole text always decides its snippet
    return found


def head_snippet(head: str, terms: Sequence[str], window: int = WINDOW) -> str | None:
    """The snippet of the stored text whose first characters are ``head`` (``read_heads``, not
    the whole text), or ``None`` when the head cannot decide it."""
    return _cut(head, terms, window, complete=False)


def _cut(text: str, terms: Sequence[str], window: int, complete: bool) -> str | None:
    if not text or text.isspace():  # blank (``not text.strip()`` without copying a long head)
        return "" if complete else None
    if not complete and len(text) < SCAN:
        return None
    words = [w for t in terms for w in t.split()]
    hit = _first_hit(text, words)
    start = max(0, hit - window // 3) if hit is not None else 0
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    end = min(len(text), start + window)
    while end < len(text) and not text[end].isspace():
        end += 1
    if not complete and end >= len(text):
        return None
    body = " ".join(text[start:end].split())  # each run of whitespace one space, none at the ends
    return ("… " if start > 0 else "") + body + (" …" if end < len(text) else "")
