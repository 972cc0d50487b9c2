"""The Legilux adapter: JOLux over SPARQL for the plan, the filestore for the bytes.

Enumeration (all before any body request, reference model §5.2):

1. the consolidation catalogue (paged, cap 20,000 rows) → versions and expressions;
2. the XML/PDF manifestations (paged) keyed by consolidation and expression language;
   both paged queries are checked against the publisher's own ``COUNT`` of the same pattern
   (``*_count.rq``), with overlapping pages and a duplicate check
   (:meth:`publishers.http.SparqlClient.select_pages`);
3. per batch of 8 works: subjects (levels 1 and 2) and ``owl:sameAs`` aliases → official
   discovery metadata copied onto every version of the work.

The catalogue's states, the manifestation index and the works' metadata are held on disk as the
pages are read (:mod:`publishers.legilux.listing_spill`), and the versions are built from them and
handed over one at a time (:meth:`LegiluxAdapter.enumerate_into`, ADR 0129).

Bodies: the XML (Akoma Ntoso) when listed, stored as ``<lang>.xml``; a PDF only when no XML
exists (never for the RECUEIL / CODE_RECUEIL shelves), stored as ``<lang>.pdf/<name>`` or
``<lang>.pdf-memorial/<name>`` (a whole Mémorial issue). No redirects are followed.

Configuration takes the base URLs: the live defaults are the public endpoint and filestore;
the replay publisher is selected by passing its URLs (see :func:`LegiluxConfig.for_replay`).
"""

from __future__ import annotations

import dataclasses
import itertools
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from corpus_tree.model import Enumeration, ExpressionInput, WorkInput
from legal.errors import PublisherError
from legal.ids import Publisher
from legal.outcomes import FetchOutcome
from publishers.http import (
    BodyOversized,
    HttpClient,
    HttpPolicy,
    Paging,
    RetryExhausted,
    Row,
    SparqlClient,
    iri,
    load_query,
)
from publishers.http.client import MIB
from publishers.legilux import records
from publishers.legilux.listing_spill import (
    CatalogueSpill,
    FileIndex,
    PageSpill,
    WorkTable,
    grouped_by_slug,
    open_spill,
    spill_error,
)
from publishers.legilux.records import Consolidation
from publishers.legilux.vocab import (
    LIVE_ENDPOINT,
    PDF_SKIPPED_TYPES,
    PUBLIC_FILESTORE,
    USER_FORMAT_PDF,
    USER_FORMAT_XML,
    last_segment,
    official_file_uri,
)
from publishers.protocol import (
    HELD_ELSEWHERE_MEDIA_TYPE,
    PUBLISHER_METADATA_ONLY,
    FetchResult,
    ListedSink,
    Manifestation,
    PublisherEnumeration,
    canonical_metadata,
    collected,
    held_elsewhere_members,
    require_nonempty,
    sha256_member,
    status_result,
)

_QUERIES = "publishers.legilux"


@dataclass(frozen=True)
class LegiluxConfig:
    """Where and how much: endpoint, filestore base, paging caps, body caps, timeouts."""

    endpoint: str = LIVE_ENDPOINT
    filestore_base: str = PUBLIC_FILESTORE
    catalogue: Paging = field(default_factory=lambda: Paging(page_size=5000, max_rows=20000))
    manifestations: Paging = field(default_factory=lambda: Paging(page_size=5000, max_rows=50000))
    metadata_batch: int = 8
    subject_rows_per_work: int = 1024
    same_as_rows_per_work: int = 512
    sparql_timeout: float = 120.0
    body_timeout: float = 180.0
    xml_max_bytes: int = 32 * MIB
    pdf_max_bytes: int = 25 * MIB
    accept_held_elsewhere: bool = False

    @classmethod
    def for_replay(cls, base_url: str, **overrides: object) -> LegiluxConfig:
        """The configuration that talks to a replay publisher at ``base_url``."""
        base = base_url.rstrip("/")
        values: dict[str, object] = {"endpoint": f"{base}/sparqlendpoint", "filestore_base": f"{base}/filestore/",
                                     "accept_held_elsewhere": True}
        values.update(overrides)
        return dataclasses.replace(cls(), **values)  # type: ignore[arg-type]


def legilux_policy(**overrides: object) -> HttpPolicy:
    """The Legilux HTTP policy: no redirects (the filestore URLs are final)."""
    values: dict[str, object] = {"max_redirects": 0, "allowed_hosts": ()}
    values.update(overrides)
    return HttpPolicy(**values)  # type: ignore[arg-type]


class LegiluxAdapter:
    """Legilux (``lu-legilux``) behind :class:`publishers.protocol.PublisherAdapter`."""

    publisher = Publisher.LEGILUX

    def __init__(self, http: HttpClient, config: LegiluxConfig | None = None) -> None:
        self.http = http
        self.config = config or LegiluxConfig()
        self.sparql = SparqlClient(http, self.config.endpoint, timeout=self.config.sparql_timeout, pace="sparql")

    # -- enumeration ---------------------------------------------------------------------------

    def enumerate(self, scope: object | None = None) -> PublisherEnumeration:
        """The whole consolidation catalogue (``scope`` must be ``None``: Legilux has one scope): the
        listing of :meth:`enumerate_into` collected (:func:`publishers.protocol.collected`)."""
        return collected(self, scope)

    def enumerate_into(self, scope: object | None, sink: ListedSink) -> PublisherEnumeration:
        """The whole catalogue, each version handed to ``sink`` with its manifestations as it is built
        (:class:`publishers.protocol.ListingAdapter`, issue #13, ADR 0129): the same requests in the same
        order as ever (the catalogue, the manifestations, the works' metadata in batches), the catalogue's
        states, the manifestation index and the works' metadata held on disk as they are read
        (:mod:`publishers.legilux.listing_spill`), then the versions built from them in (slug, date, URI)
        order. Returns the works (sorted by slug) and no version."""
        if scope is not None:
            raise PublisherError("Legilux enumerates its whole consolidation catalogue; scope must be None",
                                 code="invalid_scope")
        spill = open_spill()
        try:
            works = WorkTable(spill)
            catalogue = CatalogueSpill(spill, works)
            self._spill_pages("catalogue.rq", self.config.catalogue, "Legilux catalogue", catalogue)
            files = FileIndex(spill)
            self._spill_pages("manifestations.rq", self.config.manifestations, "Legilux manifestations", files)
            self._metadata(works)
            _require_unique_slugs(works.by_slug())
            work_inputs = self._versions(catalogue, files, works, sink)
        except sqlite3.Error as exc:
            raise spill_error(exc) from exc
        finally:
            spill.close()
        enumeration = Enumeration(publisher=self.publisher, complete=True, works=tuple(work_inputs), versions=())
        return PublisherEnumeration(enumeration=enumeration, manifestations=())

    def _pages(self, name: str, paging: Paging, subject: str, earlier: Callable[[], Iterable[Row]]) -> Iterator[list[Row]]:
        """Each page of a paged query, checked against the publisher's own ``COUNT`` of its rows once
        the last is read (``earlier``: the rows already taken, for the duplicate check)."""
        template = load_query(_QUERIES, name)
        expected = self.sparql.count(load_query(_QUERIES, name.replace(".rq", "_count.rq")).template,
                                     subject=f"{subject} (COUNT)")
        return self.sparql.select_pages(
            lambda limit, offset: template.substitute(limit=limit, offset=offset), paging, subject=subject,
            expected=expected, earlier=earlier)

    def _spill_pages(self, name: str, paging: Paging, subject: str, target: PageSpill) -> None:
        """Every page of a paged query written to ``target`` as it is read (the catalogue's states, the
        manifestation index: no row is held, the duplicate check reads the rows already taken back from
        ``target``); its first error raised by ``target.end()`` once the paging has proved itself.
        ``target``'s rows file is closed either way."""
        try:
            for page in self._pages(name, paging, subject, target.rows):
                target.add_page(page)
                del page
            target.end()
        finally:
            target.close()

    def _metadata(self, works: WorkTable) -> None:
        """Each work's subjects and aliases, asked for in batches of works in URI order, written to
        ``works`` as raw entries (made canonical at the work's first version, as before)."""
        size = self.config.metadata_batch
        uris = works.uris()
        while batch := list(itertools.islice(uris, size)):
            values = " ".join(iri(w) for w in batch)
            subjects = self._capped("subjects.rq", values, len(batch) * self.config.subject_rows_per_work,
                                    f"Legilux subjects of {batch[0]} (+{len(batch) - 1})")
            aliases = self._capped("same_as.rq", values, len(batch) * self.config.same_as_rows_per_work,
                                   f"Legilux sameAs of {batch[0]} (+{len(batch) - 1})")
            for mapping in (records.subject_metadata(subjects), records.same_as_metadata(aliases)):
                for work, entries in mapping.items():
                    works.extend_metadata(work, entries)
            del subjects, aliases

    def _capped(self, name: str, values: str, cap: int, subject: str) -> list[Row]:
        query = load_query(_QUERIES, name).substitute(works=values, limit=cap + 1)
        return self.sparql.select_capped(query, cap, subject=subject)

    def _versions(self, catalogue: CatalogueSpill, files: FileIndex, works: WorkTable,
                  sink: ListedSink) -> list[WorkInput]:
        """Each work's record and each version with its manifestations, handed to ``sink``, in the
        states' (slug, date, URI) order; the works, sorted by slug."""
        work_inputs: list[WorkInput] = []
        for states in grouped_by_slug(catalogue.states()):
            work = states[0].work
            work_inputs.append(records.work_input(work, states))
            entries: tuple[dict[str, str], ...] | None = None  # made at the work's first version, once (ADR 0083)
            for c in states:
                expressions = []
                found: list[Manifestation] = []
                for e in c.expressions:
                    listed = self._manifestations_of(c, e, files)
                    found.extend(listed)
                    expressions.append(ExpressionInput(
                        language=e.language, source_uri=e.source_uri, title=e.title, title_short=e.title_short,
                        text_reason=None if listed else PUBLISHER_METADATA_ONLY))
                if entries is None:
                    entries = canonical_metadata(works.metadata(work), subject=work)
                sink(records.version_input(c, expressions=expressions, publisher_metadata=entries), tuple(found))
                del expressions, found
            del states, entries
        return work_inputs

    def _manifestations_of(self, c: Consolidation, e: records.Expression, files: FileIndex) -> list[Manifestation]:
        if e.uri is None:
            return []
        listed = files.get(c.uri, last_segment(e.uri))
        xml = sorted(f for fmt, f in listed if fmt == USER_FORMAT_XML)
        pdf = sorted(f for fmt, f in listed if fmt == USER_FORMAT_PDF)
        base = Manifestation(slug=c.slug, publisher_version_identifier=c.uri, valid_from=c.valid_from,
                             language=e.language, url="", source_uri=e.source_uri)
        if xml:
            official = official_file_uri(xml[0], subject=c.uri)
            return [dataclasses.replace(base, url=self._fetch_url(official), file=f"{e.language}.xml")]
        if not pdf or (c.document_type or "").upper() in PDF_SKIPPED_TYPES:
            return []
        out = []
        for file_uri in pdf:
            official = official_file_uri(file_uri, subject=c.uri)
            fmt = "pdf-memorial" if "/memorial/" in official else "pdf"
            out.append(dataclasses.replace(base, url=self._fetch_url(official), source_uri=official, format=fmt,
                                           file=f"{e.language}.{fmt}/{last_segment(official)}"))
        return out

    def _fetch_url(self, official: str) -> str:
        return self.config.filestore_base + official[len(PUBLIC_FILESTORE):]

    # -- bodies ----------------------------------------------------------------------------------

    def fetch(self, manifestation: Manifestation) -> FetchResult:
        """GET one filestore file (XML cap 32 MiB; PDF cap 25 MiB, larger PDFs stay record-only)."""
        m = manifestation
        cap = self.config.pdf_max_bytes if m.format else self.config.xml_max_bytes
        try:
            headers = {"If-Modified-Since": m.if_modified_since} if m.if_modified_since else None
            response = self.http.get(m.url, headers=headers, timeout=self.config.body_timeout, max_bytes=cap,
                                     pace="body")
        except RetryExhausted as exc:
            return FetchResult(FetchOutcome.RETRY_EXHAUSTED, m, status=exc.last_status, detail=exc.message)
        except BodyOversized as exc:
            if m.format:
                return FetchResult(FetchOutcome.PUBLISHER_METADATA_ONLY, m, detail=exc.message)
            raise PublisherError(exc.message, code="body_oversized", subject=m.subject) from exc
        except PublisherError as exc:
            raise PublisherError(exc.message, code=exc.code, subject=m.subject) from exc
        failed = status_result(m, response.status, response.url)
        if failed is not None:
            return failed
        if self.config.accept_held_elsewhere and response.content_type == HELD_ELSEWHERE_MEDIA_TYPE:
            members = held_elsewhere_members(m, response.body)
            return FetchResult(FetchOutcome.OK, m, members=members, status=200, final_url=response.url)
        body = require_nonempty(m, response.body)
        if m.format and not body.startswith(b"%PDF"):
            raise PublisherError("PDF manifestation does not start with %PDF", code="body_parser_failure",
                                 subject=m.subject)
        assert m.file is not None
        member = sha256_member(m, m.file, body)
        return FetchResult(FetchOutcome.OK, m, body=body, members=(member,), status=200, final_url=response.url)


def _require_unique_slugs(works: Iterable[tuple[str, str]]) -> None:
    """``works`` as ``(slug, work URI)`` sorted by slug then URI: two works of one slug are refused, naming
    the smallest such slug's two smallest URIs (as the works sorted by URI, then stably by slug, gave)."""
    last: tuple[str, str] | None = None
    for slug, work in works:
        if last is not None and last[0] == slug:
            raise PublisherError(f"two works map to slug {slug!r}: {last[1]} and {work}",
                                 code="enumeration_parser_failure", subject=work)
        last = (slug, work)
