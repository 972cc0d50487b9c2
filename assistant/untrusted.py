"""Untrusted text: quoted or pasted passages and injected instructions are data, never a request.

:func:`own_words` blanks (position for position, so spans stay valid) every passage the reader
did not write as their own request: text in quotation marks (``"…"``, ``“…”``, ``«…»``, ``„…“``,
long ``'…'``), block-quoted lines (``> …``), a paragraph pasted after a line ending with a
colon, and an injected instruction clause ("ignore previous instructions …", "ignore les
instructions …", "ignoriere alle Anweisungen …") up to the end of its sentence. Only what is
left may set the subject, the dates or the operations of a turn.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_QUOTES = (
    re.compile(r'"[^"\n]*"'),
    re.compile(r"\u201c[^\u201d]*\u201d"),
    re.compile(r"\u201e[^\u201c\u201d]*[\u201c\u201d]"),
    re.compile(r"\u00ab[^\u00bb]*\u00bb"),
    re.compile(r"(?<![\w])'[^'\n]{12,}'(?![\w])"),
    re.compile(r"\u2018[^\u2019]{12,}\u2019"),
    re.compile(r"```.*?```", re.DOTALL),
)
_BLOCK_QUOTE = re.compile(r"(?m)^\s*>.*$")
_PASTED = re.compile(r":[ \t]*\n(.+)", re.DOTALL)
_INJECTION = re.compile(
    r"(?i)(?:\b(?:ignore|disregard|forget|override)\b[^.;!?\n]{0,40}\b(?:previous|prior|above|earlier|all|"
    r"your|system)\b[^.;!?\n]{0,20}\b(?:instructions?|rules?|prompts?|messages?|constraints?)\b"
    r"|\bignore[sz]?\b[^.;!?\n]{0,30}\b(?:les|tes|vos)\s+(?:instructions|consignes|regles|règles)\b"
    r"|\boublie[sz]?\b[^.;!?\n]{0,30}\b(?:instructions|consignes|r[eè]gles)\b"
    r"|\b(?:ignoriere|vergiss|missachte)\b[^.;!?\n]{0,40}\b(?:anweisungen|regeln|vorgaben)\b"
    r"|\b(?:you are now|tu es maintenant|du bist jetzt)\b|\bsystem prompt\b|\bnew instructions?\b)"
)
_SENTENCE_END = re.compile(r"[.!?\n]")


@dataclass(frozen=True)
class OwnWords:
    """The reader's own request (blanked where untrusted) and what was set aside."""

    text: str
    quoted: tuple[str, ...] = ()
    injected: bool = False

    @property
    def changed(self) -> bool:
        return bool(self.quoted) or self.injected


def _blank(chars: list[str], start: int, end: int) -> None:
    for i in range(start, end):
        if chars[i] != "\n":
            chars[i] = " "


def own_words(question: str) -> OwnWords:
    """``question`` with every untrusted passage blanked (same length, same positions)."""
    chars = list(question)
    quoted: list[str] = []
    for pattern in (*_QUOTES, _BLOCK_QUOTE):
        for m in pattern.finditer(question):
            if m.group(0).strip():
                quoted.append(m.group(0).strip())
                _blank(chars, m.start(), m.end())
    pasted = _PASTED.search(question)
    if pasted:
        quoted.append(pasted.group(1).strip()[:200])
        _blank(chars, pasted.start(1), pasted.end(1))
    injected = False
    text = "".join(chars)
    for m in _INJECTION.finditer(text):
        injected = True
        end_match = _SENTENCE_END.search(text, m.end())
        end = end_match.start() if end_match else len(text)
        # "…, then X" after the injected clause is still part of the injection.
        _blank(chars, m.start(), end)
    return OwnWords("".join(chars), tuple(quoted), injected)
