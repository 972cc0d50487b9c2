"""Input shapes of the writer: one publisher's enumeration, as a publisher adapter builds it.

These are plain frozen dataclasses with no behaviour beyond light validation, so that an
adapter (``publishers/``) can build them from SPARQL rows without knowing anything about
the tree on disk. The writer (:func:`corpus_tree.writer.apply_enumeration`) turns them into
hashed version records, appending events (transaction time) itself: inputs never carry
events.

Dates are :class:`datetime.date` (valid time, as the publisher gave it); retrieval times are
timezone-aware :class:`datetime.datetime` (transaction time, UTC on disk).

Example::

    from corpus_tree import Enumeration, WorkInput, VersionInput, ExpressionInput, ObservationInput

    work = WorkInput(slug="32016r0679", work_identifier="http://publications.europa.eu/resource/celex/32016R0679",
                     document_type="REG", title="Regulation (EU) 2016/679", title_language="en")
    obs = ObservationInput(file="en.html", sha256=body_sha, source_uri=page_url, retrieved_at=now)
    version = VersionInput(
        slug="32016r0679",
        publisher_version_identifier="http://publications.europa.eu/resource/celex/02016R0679-20160504",
        work_identifier=work.work_identifier, valid_from=date(2016, 5, 4),
        expressions=(ExpressionInput(language="en", source_uri=page_url, observations=(obs,)),),
    )
    enumeration = Enumeration(publisher=Publisher.EURLEX, complete=True, works=(work,), versions=(version,))
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from legal.ids import Publisher

#: ``text.reason`` written for an expression that has no observation yet.
DEFAULT_TEXT_REASON = "not-fetched"


@dataclass(frozen=True)
class ObservationInput:
    """One manifestation (file) of an expression as fetched from the publisher.

    ``file`` is the publisher's file name relative to the version (``fr.xml``,
    ``en.fmx4/CL2016R0679EN0000020.0001.xml``, ``fr.pdf-memorial/<name>.pdf``); ``sha256`` is
    the hash of the verbatim bytes, which the caller passes to the writer in ``bodies`` unless
    the store already holds them or ``held_elsewhere`` is true (the record names the body but
    its bytes are kept in another store).
    """

    file: str
    sha256: str
    source_uri: str
    retrieved_at: _dt.datetime
    format: str | None = None
    size: int | None = None
    held_elsewhere: bool = False


@dataclass(frozen=True)
class ExpressionInput:
    """A version in one language. ``valid_from``/``valid_to`` default to the version's.

    ``text_reason`` is used only while the expression has no observation (e.g.
    ``publisher_metadata_only``, ``body_not_found``); ``text_url`` defaults to ``source_uri``.
    """

    language: str
    source_uri: str | None = None
    title: str | None = None
    title_short: str | None = None
    valid_from: _dt.date | None = None
    valid_to: _dt.date | None = None
    observations: Sequence[ObservationInput] = ()
    text_reason: str | None = None
    text_url: str | None = None


@dataclass(frozen=True)
class VersionInput:
    """One publisher-identified dated state of a work (a Lex "version").

    ``publisher_version_identifier`` is the full, verbatim publisher identifier (Legilux: the
    ``jolux:Consolidation`` URI; EUR-Lex: the consolidated CELEX resource URI, or the work URI
    for the original act); with ``valid_from`` it determines the v4 version key.
    """

    slug: str
    publisher_version_identifier: str
    work_identifier: str
    valid_from: _dt.date
    valid_to: _dt.date | None = None
    document_type: str | None = None
    in_force_status: str | None = None
    publication_date: _dt.date | None = None
    valid_time_source: str = "publisher"
    expressions: Sequence[ExpressionInput] = ()
    relations: Sequence[Mapping[str, str]] = ()
    raw: Mapping[str, str] = field(default_factory=dict)
    publisher_metadata: Sequence[Mapping[str, str]] = ()
    document_roles: Sequence[str] = ()


@dataclass(frozen=True)
class WorkInput:
    """A work (the instrument across its life): ``works/<slug>/meta.json``."""

    slug: str
    work_identifier: str
    document_type: str | None = None
    title: str | None = None
    title_language: str | None = None
    source_uri: str | None = None


@dataclass(frozen=True)
class Enumeration:
    """One publisher's enumeration, as a single run of an adapter produced it.

    ``complete`` must be true for the writer to apply it: only a complete enumeration can
    withdraw records that are absent from it. Every version's ``slug`` must name a work of
    ``works``. A ``scoped`` enumeration covers only its ``works`` (e.g. a EUR-Lex scope): it
    withdraws absent versions of those works only, never versions of works outside it.
    """

    publisher: Publisher
    complete: bool
    works: Sequence[WorkInput] = ()
    versions: Sequence[VersionInput] = ()
    scoped: bool = False
