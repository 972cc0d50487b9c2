"""Provision-by-provision comparison of two versions for the web diff page.

The legal core's ``diff`` says which provisions were added, removed or changed (by anchor and
text hash); this module turns each change into a row with the full texts and, for a changed
provision, a word-level diff (bounded: past :data:`MAX_WORDS` words the two texts are shown
side by side instead). The
templates escape every segment; nothing here produces markup.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

MAX_WORDS = 6000
_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")

RowState = Literal["same", "changed", "added", "removed"]
SegmentOp = Literal["same", "del", "ins"]


@dataclass(frozen=True)
class Segment:
    op: SegmentOp
    text: str


@dataclass(frozen=True)
class Row:
    """One anchor in the comparison."""

    anchor: str
    label: str
    state: RowState
    segments: tuple[Segment, ...] = ()
    before: str = ""
    after: str = ""
    too_long: bool = False
    notes: tuple[str, ...] = field(default_factory=tuple)


def tokens(text: str) -> list[str]:
    """Words, runs of whitespace and single punctuation marks; joined they give the text back."""
    return _TOKEN.findall(text)


def word_diff(before: str, after: str) -> tuple[Segment, ...]:
    """The word-level edit from ``before`` to ``after`` as same/del/ins segments."""
    a, b = tokens(before), tokens(after)
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    out: list[Segment] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out.append(Segment("same", "".join(a[i1:i2])))
            continue
        if i2 > i1:
            out.append(Segment("del", "".join(a[i1:i2])))
        if j2 > j1:
            out.append(Segment("ins", "".join(b[j1:j2])))
    return tuple(_merge(out))


def _merge(segments: Iterable[Segment]) -> list[Segment]:
    merged: list[Segment] = []
    for segment in segments:
        if merged and merged[-1].op == segment.op:
            merged[-1] = Segment(segment.op, merged[-1].text + segment.text)
        elif segment.text:
            merged.append(segment)
    return merged


def label_of(provision: Mapping[str, Any]) -> str:
    num = str(provision.get("num") or "").strip()
    heading = str(provision.get("heading") or "").strip()
    anchor = str(provision.get("anchor") or "")
    if num and heading:
        return f"{num} — {heading}"
    return num or heading or anchor


def _text(provision: Mapping[str, Any]) -> str:
    value = provision.get("text")
    return value if isinstance(value, str) else ""


def _row(anchor: str, old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> Row:
    if old is None and new is not None:
        return Row(anchor, label_of(new), "added", after=_text(new))
    if new is None and old is not None:
        return Row(anchor, label_of(old), "removed", before=_text(old))
    assert old is not None and new is not None
    label = label_of(new)
    old_text, new_text = _text(old), _text(new)
    same_hash = old.get("text_sha256") and old.get("text_sha256") == new.get("text_sha256")
    if same_hash or old_text == new_text:
        return Row(anchor, label, "same", after=new_text)
    if len(tokens(old_text)) + len(tokens(new_text)) > MAX_WORDS:
        return Row(anchor, label, "changed", before=old_text, after=new_text, too_long=True)
    return Row(anchor, label, "changed", segments=word_diff(old_text, new_text), before=old_text, after=new_text)


def summary(rows: Iterable[Row]) -> dict[str, int]:
    counts = {"same": 0, "changed": 0, "added": 0, "removed": 0}
    for row in rows:
        counts[row.state] += 1
    return counts


def summary_of(answer: Mapping[str, Any], rows: Iterable[Row]) -> dict[str, int]:
    """The counts of the core's ``summary`` (``unchanged`` shown as ``same``), else of ``rows``."""
    given = answer.get("summary")
    if not isinstance(given, Mapping):
        return summary(rows)
    return {"same": int(given.get("unchanged") or 0), "changed": int(given.get("changed") or 0),
            "added": int(given.get("added") or 0), "removed": int(given.get("removed") or 0)}


def row_of(change: Mapping[str, Any], before: Mapping[str, str], after: Mapping[str, str]) -> Row:
    """A row from one entry of the core's ``changes`` and the texts of changed provisions."""
    anchor = str(change.get("anchor") or "")
    kind = change.get("change")
    if kind == "added":
        return Row(anchor, label_of(change), "added", after=_text(change))
    if kind == "removed":
        return Row(anchor, label_of(change), "removed", before=_text(change))
    old = {"anchor": anchor, "text": before.get(anchor, ""), "text_sha256": change.get("from_text_sha256")}
    new = {"anchor": anchor, "num": change.get("num"), "heading": change.get("heading"),
           "text": after.get(anchor, ""), "text_sha256": change.get("to_text_sha256")}
    return _row(anchor, old, new)
