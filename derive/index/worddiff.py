"""Word-level differences between two provision texts — the one word-diff of the project.

- :func:`word_changes` (the core's ``diff``): only the non-equal spans over whitespace words,
  each with the word offsets on both sides and a few words of context, so a reader can place
  every change without receiving both texts twice. The common leading and trailing words are set
  aside before ``SequenceMatcher`` runs (amendments are usually local), which keeps long articles
  cheap without changing the result's meaning.
- :func:`word_segments` (the web diff page): the whole edit as same/del/ins segments over words,
  runs of whitespace and single punctuation marks, so that joined they give both texts back.

Both run ``SequenceMatcher`` from ``cydifflib`` (a compiled port of :mod:`difflib`'s algorithm that
returns the same opcodes, about nine times faster on the corpora's provisions) and fall back to
:mod:`difflib` where it is not installed: answers do not depend on which one ran
(``tests/derive/test_worddiff_engine.py`` compares both).
"""

from __future__ import annotations

import difflib
import importlib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple, cast

CONTEXT_WORDS = 4
Matcher = type[difflib.SequenceMatcher[str]]


def _engine() -> Matcher:
    """``cydifflib.SequenceMatcher`` (the compiled port: the same opcodes, far less CPU) when it is
    installed, else :class:`difflib.SequenceMatcher`."""
    try:
        module = importlib.import_module("cydifflib")
    except ImportError:  # pragma: no cover - the pure-Python original
        return difflib.SequenceMatcher
    return cast(Matcher, module.SequenceMatcher)


SequenceMatcher = _engine()


#: Words :func:`_common_ends` compares at once (two slices compared in C) before it goes word by word.
_STRIDE = 32


def _common_ends(a: Sequence[str], b: Sequence[str]) -> tuple[int, int]:
    """The common leading words, then the common trailing words of what is left (the same counts
    as comparing word by word: runs of :data:`_STRIDE` words are compared at once first)."""
    prefix = 0
    limit = min(len(a), len(b))
    while prefix + _STRIDE <= limit and a[prefix:prefix + _STRIDE] == b[prefix:prefix + _STRIDE]:
        prefix += _STRIDE
    while prefix < limit and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    end_a, end_b = len(a), len(b)
    while suffix + _STRIDE <= limit - prefix and (
            a[end_a - suffix - _STRIDE:end_a - suffix] == b[end_b - suffix - _STRIDE:end_b - suffix]):
        suffix += _STRIDE
    while suffix < limit - prefix and a[-1 - suffix] == b[-1 - suffix]:
        suffix += 1
    return prefix, suffix


class DiffCost(NamedTuple):
    """What :func:`word_changes` will hand to ``SequenceMatcher`` once the common ends are set aside:
    ``words`` on both sides, and ``pairs``, the (word of one side, equal word of the other) pairs its
    longest-match search walks — the measure of its work, which grows far faster than ``words`` on
    repetitive text (tables of figures: 8,600 words, 3.4 M pairs, 0.8 s)."""

    words: int
    pairs: int


#: The characters ``str.split()`` separates words at (those ``str.isspace`` holds true; a test
#: compares every code point): the ASCII ones, and the others.
_ASCII_SPACE = " \t\n\v\f\r\x1c\x1d\x1e\x1f"
_WIDE_SPACE = "\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
#: Every byte to ``b" "`` (an ASCII separator) or ``b"x"`` (any other byte: a UTF-8 multi-byte
#: character is a run of ``x``, inside its word).
_MARKS = bytes(32 if chr(b) in _ASCII_SPACE else 120 for b in range(256))


def word_count(text: str, utf8: bytes | None = None) -> int:
    """The words of a text as the word diff counts them (whitespace-separated: ``texts.words``):
    ``len(text.split())``, counted without making a string per word. A text with no separator
    beyond ASCII is counted in its UTF-8 bytes, each mapped to a separator or not: a word begins at
    each ``x`` after a space, or at the start (the others are split). ``utf8``: the text's UTF-8
    bytes, when the caller holds them."""
    if not text.isascii() and any(space in text for space in _WIDE_SPACE):  # one C search each
        return len(text.split())
    marks = (text.encode("utf-8", "surrogatepass") if utf8 is None else utf8).translate(_MARKS)
    return marks.count(b" x") + (marks[:1] == b"x")


def diff_cost(before: str, after: str) -> DiffCost:
    return diff_cost_of(before.split(), after.split())


def common_ends(a: Sequence[str], b: Sequence[str]) -> tuple[int, int]:
    """The common leading and trailing words the word diff sets aside (computed once, handed to
    :func:`middle_bounds`, :func:`diff_cost_of` and :func:`opcodes_of` as ``ends``)."""
    return _common_ends(a, b)


def middle_bounds(a: Sequence[str], b: Sequence[str], ends: tuple[int, int] | None = None) -> tuple[DiffCost, DiffCost]:
    """What :func:`diff_cost` can be once the common ends are set aside but before any word is
    counted: exactly the middle words, between no pair and every word of one middle paired with
    every word of the other."""
    prefix, suffix = ends or _common_ends(a, b)
    middle_a, middle_b = len(a) - prefix - suffix, len(b) - prefix - suffix
    return DiffCost(middle_a + middle_b, 0), DiffCost(middle_a + middle_b, middle_a * middle_b)


def diff_cost_of(a: Sequence[str], b: Sequence[str], ends: tuple[int, int] | None = None) -> DiffCost:
    """:func:`diff_cost` of two texts already split into words (``ends``: their :func:`common_ends`)."""
    prefix, suffix = ends or _common_ends(a, b)
    return _middle_cost(a[prefix:len(a) - suffix], b[prefix:len(b) - suffix])


def _middle_cost(middle_a: Sequence[str], middle_b: Sequence[str]) -> DiffCost:
    counts_a, counts_b = Counter(middle_a), Counter(middle_b)
    if len(counts_b) < len(counts_a):
        counts_a, counts_b = counts_b, counts_a
    pairs = sum(n * counts_b[w] for w, n in counts_a.items() if w in counts_b)
    return DiffCost(len(middle_a) + len(middle_b), pairs)


def cost_bounds(words_before: int, words_after: int) -> tuple[DiffCost, DiffCost]:
    """What :func:`diff_cost` can be, known only the two texts' word counts: at least (the
    difference of the counts, no pair), at most (both counts, every word of one side paired with
    every word of the other)."""
    return (DiffCost(abs(words_before - words_after), 0),
            DiffCost(words_before + words_after, words_before * words_after))


#: One non-equal span of :func:`word_opcodes`: ``(op, i1, i2, j1, j2)`` over the whitespace words of the
#: two texts (``op``: ``replace``, ``delete`` or ``insert``; ``a[i1:i2]`` became ``b[j1:j2]``).
Opcode = tuple[str, int, int, int, int]


def word_opcodes(before: str, after: str) -> list[Opcode]:
    """The non-equal spans between the whitespace words of two texts, in order."""
    return opcodes_of(before.split(), after.split())


def opcodes_of(a: Sequence[str], b: Sequence[str], ends: tuple[int, int] | None = None) -> list[Opcode]:
    """:func:`word_opcodes` of two texts already split into words (``ends``: their :func:`common_ends`)."""
    prefix, suffix = ends or _common_ends(a, b)
    return _middle_opcodes(a[prefix:len(a) - suffix], b[prefix:len(b) - suffix], prefix)


def bounded_opcodes(a: Sequence[str], b: Sequence[str], max_words: int, max_pairs: int) -> list[Opcode] | None:
    """:func:`opcodes_of` when :func:`diff_cost_of` is within ``max_words`` and ``max_pairs``, else
    None (the common ends set aside once for both)."""
    prefix, suffix = _common_ends(a, b)
    middle_a, middle_b = a[prefix:len(a) - suffix], b[prefix:len(b) - suffix]
    if len(middle_a) + len(middle_b) > max_words:  # the cost's words, known without counting a word
        return None
    # the pairs are at most every word of one middle with every word of the other: only when that
    # bound is over the budget are the words counted (the same answer, far less work on most pairs)
    if len(middle_a) * len(middle_b) > max_pairs and _middle_cost(middle_a, middle_b).pairs > max_pairs:
        return None
    return _middle_opcodes(middle_a, middle_b, prefix)


def _middle_opcodes(middle_a: Sequence[str], middle_b: Sequence[str], prefix: int) -> list[Opcode]:
    matcher = SequenceMatcher(None, middle_a, middle_b, autojunk=False)
    return [(tag, i1 + prefix, i2 + prefix, j1 + prefix, j2 + prefix)
            for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def changes_from_opcodes(before: str, after: str, opcodes: Iterable[Opcode],
                         context: int = CONTEXT_WORDS) -> list[dict[str, Any]]:
    """:func:`word_changes` of two texts given their :func:`word_opcodes` (computed once, stored)."""
    return changes_of(before.split(), after.split(), opcodes, context)


def changes_of(a: Sequence[str], b: Sequence[str], opcodes: Iterable[Opcode],
               context: int = CONTEXT_WORDS) -> list[dict[str, Any]]:
    """:func:`changes_from_opcodes` of two texts already split into words."""
    return [{
        "op": tag,
        "from_word": i1,
        "to_word": j1,
        "removed": " ".join(a[i1:i2]),
        "added": " ".join(b[j1:j2]),
        "context_before": " ".join(a[max(0, i1 - context):i1]),
        "context_after": " ".join(a[i2:i2 + context]),
    } for tag, i1, i2, j1, j2 in opcodes]


def word_changes(before: str, after: str, context: int = CONTEXT_WORDS) -> list[dict[str, Any]]:
    return changes_from_opcodes(before, after, word_opcodes(before, after), context)


_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")
#: The units the page diff aligns: a word or a punctuation mark with the whitespace before it (far
#: fewer repeated units than bare whitespace tokens, which made ``SequenceMatcher`` quadratic).
_UNIT = re.compile(r"\s*\w+|\s*[^\w\s]|\s+")
SegmentOp = Literal["same", "del", "ins"]


@dataclass(frozen=True)
class Segment:
    op: SegmentOp
    text: str


def tokens(text: str) -> list[str]:
    """Words, runs of whitespace and single punctuation marks; joined they give the text back."""
    return _TOKEN.findall(text)


def word_segments(before: str, after: str) -> tuple[Segment, ...]:
    """The word-level edit from ``before`` to ``after`` as same/del/ins segments."""
    a, b = _UNIT.findall(before), _UNIT.findall(after)
    prefix, suffix = _common_ends(a, b)  # amendments are local: match only the middles
    middle_a, middle_b = a[prefix:len(a) - suffix], b[prefix:len(b) - suffix]
    out: list[Segment] = [Segment("same", "".join(a[:prefix]))]
    for op, i1, i2, j1, j2 in SequenceMatcher(a=middle_a, b=middle_b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(Segment("same", "".join(middle_a[i1:i2])))
            continue
        out.append(Segment("del", "".join(middle_a[i1:i2])))
        out.append(Segment("ins", "".join(middle_b[j1:j2])))
    out.append(Segment("same", "".join(a[len(a) - suffix:])))
    return tuple(_merge(out))


def _merge(segments: Iterable[Segment]) -> list[Segment]:
    merged: list[Segment] = []
    for segment in segments:
        if merged and merged[-1].op == segment.op:
            merged[-1] = Segment(segment.op, merged[-1].text + segment.text)
        elif segment.text:
            merged.append(segment)
    return merged
