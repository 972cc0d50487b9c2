"""Provision-by-provision comparison of two versions for the web diff page.

Pure functions over the ``provisions`` lists the legal core returns: provisions are matched
by anchor, equal texts are recognised by ``text_sha256`` first, and changed texts get a word
level diff (bounded: past :data:`MAX_WORDS` words the two texts are shown side by side
instead). The templates escape every segment; nothing here produces markup.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

MAX_WORDS = 6000
_TOKEN = re.compile(r"\s+|[^\s]+")

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
    """Words and the whitespace between them, so joining the tokens gives the text back."""
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


def _ordered_anchors(left: Sequence[Mapping[str, Any]], right: Sequence[Mapping[str, Any]]) -> list[str]:
    """Anchors in the later version's order, with anchors only in the earlier one slotted in."""
    order: list[str] = [str(p.get("anchor")) for p in right]
    seen = set(order)
    position = 0
    for provision in left:
        anchor = str(provision.get("anchor"))
        if anchor in seen:
            position = order.index(anchor) + 1
            continue
        order.insert(position, anchor)
        seen.add(anchor)
        position += 1
    return order


def compare(left: Sequence[Mapping[str, Any]], right: Sequence[Mapping[str, Any]]) -> list[Row]:
    """Rows for every anchor of either version, in document order."""
    before = {str(p.get("anchor")): p for p in left}
    after = {str(p.get("anchor")): p for p in right}
    return [_row(anchor, before.get(anchor), after.get(anchor)) for anchor in _ordered_anchors(left, right)]


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
