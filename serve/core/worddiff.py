"""Word-level differences between two provision texts (``difflib`` over whitespace words).

Only the non-equal spans are returned, each with the word offsets on both sides and a few
words of context, so a reader can place every change without receiving both texts twice.
The common leading and trailing words are set aside before ``SequenceMatcher`` runs (amendments
are usually local), which keeps long articles cheap without changing the result's meaning.
"""

from __future__ import annotations

from difflib import SequenceMatcher
from typing import Any

CONTEXT_WORDS = 4


def _common_ends(a: list[str], b: list[str]) -> tuple[int, int]:
    prefix = 0
    limit = min(len(a), len(b))
    while prefix < limit and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and a[-1 - suffix] == b[-1 - suffix]:
        suffix += 1
    return prefix, suffix


def word_changes(before: str, after: str, context: int = CONTEXT_WORDS) -> list[dict[str, Any]]:
    a, b = before.split(), after.split()
    prefix, suffix = _common_ends(a, b)
    middle_a, middle_b = a[prefix:len(a) - suffix], b[prefix:len(b) - suffix]
    matcher = SequenceMatcher(None, middle_a, middle_b, autojunk=False)
    out: list[dict[str, Any]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        i1, i2, j1, j2 = i1 + prefix, i2 + prefix, j1 + prefix, j2 + prefix
        out.append({
            "op": tag,
            "from_word": i1,
            "to_word": j1,
            "removed": " ".join(a[i1:i2]),
            "added": " ".join(b[j1:j2]),
            "context_before": " ".join(a[max(0, i1 - context):i1]),
            "context_after": " ".join(a[i2:i2 + context]),
        })
    return out
