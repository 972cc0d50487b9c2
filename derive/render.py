"""Freeze drafts into provisions and render the profile's Markdown document (model §6.4).

For each provision, container headings are emitted when the path changes
(``#`` × min(2 + depth, 5) + label), then::

    \\n<a id="<anchor>"></a>\\n\\n### <title>\\n\\n<body>\\n

The title is the anchor when there is neither num nor heading; Legilux profiles join num
and heading with a space, EU profiles with `` — ``. Spans are code-point offsets into this
document such that ``document[start:end] == text_md``. Duplicate anchors in one document
become ``<anchor>__2``, ``__3``… with a note.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from derive.model import (
    Citation,
    DerivedFrom,
    Draft,
    ExtractionResult,
    Gap,
    Provision,
    Span,
    text_sha256,
)
from legal.errors import IdentityError
from legal.ids import parse_compact_date, parse_date

# Version of the shared rendering (titles, headings, anchors, spans, text hashes). It is part of
# every derive cache key: a change here that changes any provision or document must bump it.
RENDER_VERSION = 2  # 2: article dates normalised to ISO (the publisher writes 20220101 as well)


def iso_date(value: str | None) -> str | None:
    """A publisher's article date as ``YYYY-MM-DD``: ISO kept, compact ``YYYYMMDD`` rewritten; a
    value that is no calendar date (``20142209``) is not a date and gives ``None`` (the evidence
    keeps the publisher's bytes)."""
    if not value:
        return None
    return _iso_date(value)


@functools.lru_cache(maxsize=4096)
def _iso_date(value: str) -> str | None:
    """:func:`iso_date` of a non-empty value, kept per value: a document repeats a few dates on
    thousands of provisions."""
    text = value.strip()
    try:
        if len(text) == 8 and text.isdigit():
            return parse_compact_date(text).isoformat()
        return parse_date(text[:10]).isoformat() if len(text) >= 10 else None
    except IdentityError:
        return None


@dataclass(frozen=True, slots=True)
class Context:
    """Per-run inputs of a profile besides the bytes."""

    profile: str
    language: str
    evidence_sha256: str
    title_joiner: str = " — "


def dedupe_citations(citations: Sequence[Citation]) -> tuple[Citation, ...]:
    if not citations:
        return ()
    seen: set[tuple[str, str]] = set()
    out = []
    for c in citations:
        key = (c.href, c.text)
        if key not in seen:
            seen.add(key)
            out.append(c)
    return tuple(out)


def unique_anchors(drafts: Sequence[Draft]) -> tuple[list[str], list[str]]:
    """Anchors with ``__n`` suffixes for repeats, and one note per repeated anchor."""
    counts: dict[str, int] = {}
    anchors = []
    for d in drafts:
        counts[d.anchor] = counts.get(d.anchor, 0) + 1
        anchors.append(d.anchor if counts[d.anchor] == 1 else f"{d.anchor}__{counts[d.anchor]}")
    notes = [f"duplicate anchor {a!r} x{n} in one document; repeats suffixed __2.." for a, n in counts.items() if n > 1]
    return anchors, notes


def _title(d: Draft, anchor: str, joiner: str) -> str:
    parts = [x for x in (d.num, d.heading) if x]
    return joiner.join(parts) if parts else anchor


def _container_lines(prev: tuple[str, ...], path: tuple[str, ...]) -> list[str]:
    if path == prev:  # the same containers as the provision before: no heading
        return []
    common = 0
    while common < min(len(prev), len(path)) and prev[common] == path[common]:
        common += 1
    return [f"\n{'#' * min(2 + depth, 5)} {label}\n" for depth, label in enumerate(path) if depth >= common]


def finish(ctx: Context, drafts: Sequence[Draft], notes: Sequence[str] = (), gap: Gap | None = None,
           prefix: str = "") -> ExtractionResult:
    """Render the document and freeze the drafts into provisions with spans and hashes."""
    anchors, dup_notes = unique_anchors(drafts)
    parts: list[str] = [prefix]
    length = len(prefix)
    prev: tuple[str, ...] = ()
    provisions = []
    for d, anchor in zip(drafts, anchors, strict=True):
        for line in _container_lines(prev, d.path):
            parts.append(line)
            length += len(line)
        prev = d.path
        head = f'\n<a id="{anchor}"></a>\n\n### {_title(d, anchor, ctx.title_joiner)}\n\n'
        parts.append(head)
        start = length + len(head)
        parts.append(d.body + "\n")
        length = start + len(d.body) + 1
        provisions.append(Provision(
            anchor=anchor, type=d.type, num=d.num, heading=d.heading, path=d.path,
            text_md=d.body, text_sha256=text_sha256(d.body), citations=dedupe_citations(d.citations),
            article_valid_from=iso_date(d.article_valid_from), eli=d.eli, language=ctx.language,
            profile=ctx.profile,
            derived_from=DerivedFrom(ctx.evidence_sha256, Span(start, start + len(d.body)), d.pages),
            index_terms=d.index_terms, figures=tuple(d.figures),
        ))
    return ExtractionResult(
        profile=ctx.profile, evidence_sha256=ctx.evidence_sha256, language=ctx.language,
        provisions=tuple(provisions), notes=tuple(notes) + tuple(dup_notes), gap=gap,
        document_md="".join(parts),
    )
