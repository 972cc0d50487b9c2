"""Word-level differences between two provision texts (``difflib`` over whitespace words).

Only the non-equal spans are returned, each with the word offsets on both sides and a few
words of context, so a reader can place every change without receiving both texts twice.
"""

from __future__ import annotations

from difflib import SequenceMatcher
from typing import Any

CONTEXT_WORDS = 4


def word_changes(before: str, after: str, context: int = CONTEXT_WORDS) -> list[dict[str, Any]]:
    a, b = before.split(), after.split()
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    out: list[dict[str, Any]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
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
