"""The shapes the demonstration corpus is written from: texts, works, versions, bodies.

Everything here is plain frozen data. The body renderers (:mod:`.akn`, :mod:`.eurlex`,
:mod:`.pdf`) turn texts into publisher-shaped bytes; :mod:`.records` turns works and
versions into ``lex-corpus/4`` records.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Ref:
    """A link in running text: an AKN ``<ref href>`` or an XHTML ``<a href>``."""

    href: str
    text: str


Inline = str | Ref
"""A run of text: plain characters or a link."""


@dataclass(frozen=True)
class Block:
    """One alinea (LU) or paragraph (EU): an optional number, running text, list items."""

    text: tuple[Inline, ...]
    num: str | None = None
    items: tuple[tuple[Inline, ...], ...] = ()


@dataclass(frozen=True)
class Article:
    """One article, as the publisher numbers it.

    ``eid`` is the publisher anchor (``art_1er``, ``art_l_111-2``, ``art_3``). ``since`` is the
    per-article applicability date Legilux publishes (``scl:jolux dateApplicability``).
    ``changed_by`` names what gave the article its current wording: a Legilux passive
    modification number, or the CELEX of an EU modifying act (``▼M1`` markers).
    """

    eid: str
    num: str
    blocks: tuple[Block, ...]
    heading: str | None = None
    since: str = ""
    changed_by: int | str | None = None
    index_terms: tuple[str, ...] = ()


@dataclass(frozen=True)
class Division:
    """A structural container: ``book``/``title``/``chapter``/``section`` (AKN) or a CONVEX chapter."""

    kind: str
    eid: str
    num: str
    heading: str
    children: tuple[Node, ...]


Node = Article | Division


def articles(nodes: tuple[Node, ...]) -> list[Article]:
    """Every article under ``nodes``, in document order."""
    out: list[Article] = []
    for node in nodes:
        if isinstance(node, Article):
            out.append(node)
        else:
            out.extend(articles(node.children))
    return out


@dataclass(frozen=True)
class Body:
    """One file served by the publisher: its name beside the record, bytes and origin."""

    file: str
    data: bytes
    source_uri: str
    retrieved_at: str
    format: str | None = None

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


@dataclass(frozen=True)
class Expression:
    """One language of a version. No bodies means text not available, for ``text_reason``."""

    language: str
    source_uri: str
    title: str | None = None
    title_short: str | None = None
    bodies: tuple[Body, ...] = ()
    text_reason: str | None = None


@dataclass(frozen=True)
class Event:
    """One transaction-time event of a version record (append-only)."""

    event: str
    observed_from: str
    scope: str | None = None
    detail: str | None = None


@dataclass(frozen=True)
class Metadata:
    """One ``publisher_metadata`` entry (EuroVoc concept, short title, Legilux alias, ...)."""

    kind: str
    identifier: str
    label: str
    source_uri: str
    language: str | None = None

    def sort_key(self) -> tuple[str, str, str, str, str]:
        return (self.kind, self.identifier, self.language or "", self.label, self.source_uri)


@dataclass(frozen=True)
class Version:
    """One dated state of a work, keyed by its publisher version identifier."""

    pvid: str
    valid_from: str
    expressions: tuple[Expression, ...]
    demonstrates: str
    document_type: str | None = None
    in_force_status: str | None = None
    publication_date: str | None = None
    events: tuple[Event, ...] = ()
    relations: tuple[tuple[str, str], ...] = ()
    raw: tuple[tuple[str, str], ...] = ()
    publisher_metadata: tuple[Metadata, ...] = ()
    document_roles: tuple[str, ...] = ()


@dataclass(frozen=True)
class Work:
    """One demonstration work with all its versions, in publisher order (by date)."""

    publisher: str
    work_identifier: str
    document_type: str
    title: str
    source_uri: str
    versions: tuple[Version, ...]
    summary: str
    title_language: str | None = None


def det_uuid(*parts: str) -> str:
    """A fixed UUID-shaped id derived from ``parts`` (publisher markup carries random ones)."""
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()
    return f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"


FIRST_RUN = "2026-09-01T04:00:00Z"
"""Transaction time of the first (simulated) ingest that saw the sample."""

SECOND_RUN = "2026-09-08T04:00:00Z"
"""Transaction time of the second ingest: new states, a closed interval, a late expression."""
