"""Provision-by-provision comparison of two versions for the web diff page.

The legal core's ``diff`` says which provisions were added, removed or changed (by anchor and
text hash); this module turns each change into a row with the full texts and, for a changed
provision, a word-level diff (:func:`derive.index.worddiff.word_segments`; bounded: past :data:`MAX_WORDS` words the two texts are shown
side by side instead). The
templates escape every segment; nothing here produces markup.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from derive.index.worddiff import Segment, tokens, word_segments

MAX_WORDS = 6000
#: Tokens one page may hand to the word diff in all; past it, further changed rows are shown side
#: by side (``too_long``) like a single row past :data:`MAX_WORDS`.
PAGE_WORDS = 10_000

RowState = Literal["same", "changed", "added", "removed"]


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


def _at_least(text: str, cap: int | None = None) -> int:
    """A lower bound of ``len(tokens(text))`` at a fraction of its cost: every whitespace-separated
    chunk holds at least one word or punctuation token, and whitespace runs separate the chunks.
    With ``cap``, at most ``cap + 1`` chunks are counted (``str.split``'s ``maxsplit``): the bound is
    then exact up to ``2 * cap - 1`` and above it otherwise."""
    chunks = len(text.split()) if cap is None else len(text.split(None, cap))
    return 2 * chunks - 1 if chunks else (1 if text else 0)


def _certainly_over(old_text: str, new_text: str, limit: int) -> bool:
    """Whether ``_at_least(old_text) + _at_least(new_text) > limit``, counting no more chunks of a
    text than the answer needs: a text of more than ``cap = (limit + 1) // 2`` chunks is over on its
    own (``2 * (cap + 1) - 1 > limit``), so each count stops there (once a page's allowance is spent,
    a row costs one split of at most one chunk, not of its whole texts)."""
    cap = max(0, (limit + 1) // 2)
    first = _at_least(old_text, cap)
    return first > limit or first + _at_least(new_text, cap) > limit


def _row(anchor: str, old: Mapping[str, Any] | None, new: Mapping[str, Any] | None,
         allowance: list[int] | None = None) -> Row:
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
    limit = MAX_WORDS if allowance is None else min(MAX_WORDS, allowance[0])
    if _certainly_over(old_text, new_text, limit):  # decided without the tokens
        return Row(anchor, label, "changed", before=old_text, after=new_text, too_long=True)
    size = len(tokens(old_text)) + len(tokens(new_text))
    if size > limit:
        return Row(anchor, label, "changed", before=old_text, after=new_text, too_long=True)
    if allowance is not None:
        allowance[0] -= size
    return Row(anchor, label, "changed", segments=word_segments(old_text, new_text), before=old_text, after=new_text)


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


def rows_of(changes: Iterable[Mapping[str, Any]], before: Mapping[str, str], after: Mapping[str, str],
            budget: int | None = None) -> list[Row]:
    """The rows of a page, the word diffs bounded by ``budget`` tokens in all (default
    :data:`PAGE_WORDS`; CPU-bound: shells run it in a worker thread, never on the event loop)."""
    allowance = [PAGE_WORDS if budget is None else budget]
    return [row_of(change, before, after, allowance) for change in changes]


def hashes_of(changes: Iterable[Mapping[str, Any]]) -> list[str]:
    """The text hashes of the changed provisions' two wordings (``from_text_sha256``,
    ``to_text_sha256`` of each ``changed`` entry), each once, in order."""
    out: dict[str, None] = {}
    for change in changes:
        if change.get("change") == "changed":
            for key in ("from_text_sha256", "to_text_sha256"):
                sha = change.get(key)
                if isinstance(sha, str) and sha:
                    out[sha] = None
    return list(out)


def texts_by_anchor(changes: Iterable[Mapping[str, Any]], stored: Mapping[str, str], key: str) -> dict[str, str]:
    """``anchor -> text`` of the changed provisions' wordings named by ``key`` (``from_text_sha256``
    or ``to_text_sha256``) among the ``stored`` texts (a hash not stored: no entry, as an anchor
    ``as_of`` did not return)."""
    out: dict[str, str] = {}
    for change in changes:
        sha = change.get(key)
        if change.get("change") == "changed" and isinstance(sha, str) and sha in stored:
            out[str(change.get("anchor"))] = stored[sha]
    return out


def rows_by_hash(changes: Sequence[Mapping[str, Any]], read: Callable[[Sequence[str]], Mapping[str, str]],
                 sides: tuple[bool, bool] = (True, True), budget: int | None = None) -> list[Row]:
    """:func:`rows_of` with the changed provisions' texts read by their hashes (``read``: the
    stored texts among some hashes), in one read; ``sides``: whether the earlier / later version
    can hold texts (a version without a key or date gives none, as on the ``as_of`` path)."""
    stored = read(hashes_of(changes))
    before = texts_by_anchor(changes, stored, "from_text_sha256") if sides[0] else {}
    after = texts_by_anchor(changes, stored, "to_text_sha256") if sides[1] else {}
    return rows_of(changes, before, after, budget)


def row_of(change: Mapping[str, Any], before: Mapping[str, str], after: Mapping[str, str],
           allowance: list[int] | None = None) -> Row:
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
    return _row(anchor, old, new, allowance)
