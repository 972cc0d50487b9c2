"""The records a profile produces: provisions, citations, notes and typed gaps.

A profile is a pure function ``bytes → ExtractionResult``. The result is frozen and carries
everything needed to reproduce a dataset row except the record-level coordinates (lex id,
version key, valid time), which the dataset builder adds from the version record.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace

from legal.outcomes import TextGap


def text_sha256(text_md: str) -> str:
    """SHA-256 of ``text_md`` exactly as stored (UTF-8)."""
    return hashlib.sha256(text_md.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Span:
    """A half-open code-point span ``[start, end)`` in the profile's rendered Markdown document."""

    start: int
    end: int

    def to_dict(self) -> dict[str, int]:
        return {"start": self.start, "end": self.end}


@dataclass(frozen=True, slots=True)
class DerivedFrom:
    """The hash-chain link: which evidence bytes, and where in the rendering."""

    evidence_sha256: str
    span: Span | None = None
    pages: tuple[int, int] | None = None  # 1-based first/last PDF page (pdf profiles only)


@dataclass(frozen=True, slots=True)
class Citation:
    """A link out of a provision, as the publisher marked it; ``target_work`` once resolved."""

    href: str
    text: str
    target_work: str | None = None

    def to_dict(self) -> dict[str, str | None]:
        return {"href": self.href, "text": self.text, "target_work": self.target_work}


@dataclass(frozen=True, slots=True)
class Figure:
    """An image the publisher placed in a provision, as a typed placeholder (never as text).

    ``text_md`` carries only the marker :meth:`marker` where the image stood. For an inline
    ``data:`` URI the bytes stay in the evidence (they are inside the publisher body):
    ``media_type``, ``size`` and ``sha256`` describe the *decoded* bytes. For an image the
    publisher links (``src`` a URL or a file name) ``src`` is kept, with the media type its name
    implies (and, for a file the expression holds, its size and SHA-256).
    """

    n: int
    media_type: str | None
    size: int | None = None
    sha256: str | None = None
    src: str | None = None

    def marker(self) -> str:
        """``[figure 1: image/png, 48213 bytes]``; ``[figure 2: image/jpeg, linked]`` for an image
        known only by its link. Never the link itself: Cellar names an image after the
        consolidation (``…-20040501.ENG.xhtml.r1.jpg``), which would change the text of every
        version with no change of wording."""
        kind = self.media_type or "unknown type"
        if self.size is not None:
            return f"[figure {self.n}: {kind}, {self.size} bytes]"
        return f"[figure {self.n}: {kind}, {'linked' if self.src is not None else 'undecodable'}]"

    def to_dict(self) -> dict[str, str | int | None]:
        return {"n": self.n, "media_type": self.media_type, "size": self.size, "sha256": self.sha256,
                "src": self.src}


@dataclass(frozen=True, slots=True)
class Provision:
    """One article/annex/document state as one profile read it from one body."""

    anchor: str
    type: str
    num: str | None
    heading: str | None
    path: tuple[str, ...]
    text_md: str
    text_sha256: str
    citations: tuple[Citation, ...]
    article_valid_from: str | None
    eli: str | None
    language: str
    profile: str
    derived_from: DerivedFrom
    index_terms: tuple[str, ...] = ()
    figures: tuple[Figure, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not self.text_md.strip()

    @property
    def label(self) -> str | None:
        """The publisher's own display label: ``num`` as printed (``Article premier``,
        ``Art. 1er.``), else an annex's title (``ANNEX I``); ``None`` for a document. The
        anchor (``art_1``) is the stable key, this is what a reader sees."""
        if self.num:
            return self.num
        return self.heading if self.type == "annex" else None


@dataclass(frozen=True, slots=True)
class Gap:
    """Why a body yields no text, as a closed :class:`TextGap` plus the reason in words."""

    gap: TextGap
    reason: str


@dataclass(frozen=True, slots=True)
class ExtractionResult:
    """What one profile made of one body."""

    profile: str
    evidence_sha256: str
    language: str
    provisions: tuple[Provision, ...] = ()
    notes: tuple[str, ...] = ()
    gap: Gap | None = None
    document_md: str = ""

    @property
    def empty_provisions(self) -> int:
        return sum(1 for p in self.provisions if p.is_empty)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.provisions)

    def with_notes(self, *notes: str) -> ExtractionResult:
        return replace(self, notes=self.notes + tuple(notes))


def fingerprint(provisions: tuple[Provision, ...] | list[Provision]) -> str:
    """Frozen-output fingerprint: ``sha256("|".join(anchor + ":" + text_sha256))``."""
    joined = "|".join(f"{p.anchor}:{p.text_sha256}" for p in provisions)
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()


@dataclass(slots=True)
class Draft:
    """A provision while a profile is building it (mutable; frozen by :mod:`derive.render`)."""

    anchor: str
    type: str
    num: str | None
    heading: str | None
    path: tuple[str, ...]
    body: str
    citations: list[Citation] = field(default_factory=list)
    article_valid_from: str | None = None
    eli: str | None = None
    index_terms: tuple[str, ...] = ()
    pages: tuple[int, int] | None = None
    figures: list[Figure] = field(default_factory=list)
