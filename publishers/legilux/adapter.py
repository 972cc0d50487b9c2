"""The Legilux adapter: JOLux over SPARQL for the plan, the filestore for the bytes.

Enumeration (all before any body request, reference model §5.2):

1. the consolidation catalogue (paged, cap 20,000 rows) → versions and expressions;
2. the XML/PDF manifestations (paged) keyed by consolidation and expression language;
   both paged queries are checked against the publisher's own ``COUNT`` of the same pattern
   (``*_count.rq``), with overlapping pages and a duplicate check
   (:meth:`publishers.http.SparqlClient.select_paged`);
3. per batch of 8 works: subjects (levels 1 and 2) and ``owl:sameAs`` aliases → official
   discovery metadata copied onto every version of the work.

Bodies: the XML (Akoma Ntoso) when listed, stored as ``<lang>.xml``; a PDF only when no XML
exists (never for the RECUEIL / CODE_RECUEIL shelves), stored as ``<lang>.pdf/<name>`` or
``<lang>.pdf-memorial/<name>`` (a whole Mémorial issue). No redirects are followed.

Configuration takes the base URLs: the live defaults are the public endpoint and filestore;
the replay publisher is selected by passing its URLs (see :func:`LegiluxConfig.for_replay`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from corpus_tree.model import Enumeration, ExpressionInput, VersionInput, WorkInput
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
    Manifestation,
    PublisherEnumeration,
    SharedEntries,
    canonical_metadata,
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
        """The whole consolidation catalogue (``scope`` must be ``None``: Legilux has one scope)."""
        if scope is not None:
            raise PublisherError("Legilux enumerates its whole consolidation catalogue; scope must be None",
                                 code="invalid_scope")
        states = records.consolidations(self._paged("catalogue.rq", self.config.catalogue, "Legilux catalogue"))
        files = self._manifestation_index()
        works = sorted({c.work for c in states})
        metadata = self._metadata(works)
        by_work: dict[str, list[Consolidation]] = {}
        for c in states:
            by_work.setdefault(c.work, []).append(c)
        work_inputs = tuple(records.work_input(w, by_work[w]) for w in works)
        work_inputs = tuple(sorted(work_inputs, key=lambda w: w.slug))
        del by_work
        _require_unique_slugs(work_inputs)
        # the catalogue's states and the file index are consumed as the versions are built (issue #13,
        # ADR 0083): the listing is made in the memory they free, not on top of them
        versions, manifestations = self._versions(states, files, metadata)
        enumeration = Enumeration(publisher=self.publisher, complete=True, works=work_inputs,
                                  versions=tuple(versions))
        return PublisherEnumeration(enumeration=enumeration, manifestations=tuple(manifestations))

    def _paged(self, name: str, paging: Paging, subject: str) -> list[Row]:
        """All rows of a paged query, checked against the publisher's own ``COUNT`` of them."""
        template = load_query(_QUERIES, name)
        expected = self.sparql.count(load_query(_QUERIES, name.replace(".rq", "_count.rq")).template,
                                     subject=f"{subject} (COUNT)")
        return self.sparql.select_paged(
            lambda limit, offset: template.substitute(limit=limit, offset=offset), paging, subject=subject,
            expected=expected)

    def _manifestation_index(self) -> dict[tuple[str, str], list[tuple[str, str]]]:
        rows = self._paged("manifestations.rq", self.config.manifestations, "Legilux manifestations")
        index: dict[tuple[str, str], list[tuple[str, str]]] = {}
        rows.reverse()
        while rows:  # each row freed once indexed (issue #13)
            row = rows.pop()
            try:
                key = (row["c"], last_segment(row["expr"]))
                index.setdefault(key, []).append((row["fmt"], row["file"]))
            except KeyError as exc:
                raise records.bad_data(f"manifestation row without ?{exc.args[0]}", "Legilux manifestations") from None
        return index

    def _metadata(self, works: Sequence[str]) -> dict[str, list[dict[str, str]]]:
        out: dict[str, list[dict[str, str]]] = {}
        size = self.config.metadata_batch
        for start in range(0, len(works), size):
            batch = works[start:start + size]
            values = " ".join(iri(w) for w in batch)
            subjects = self._capped("subjects.rq", values, len(batch) * self.config.subject_rows_per_work,
                                    f"Legilux subjects of {batch[0]} (+{len(batch) - 1})")
            aliases = self._capped("same_as.rq", values, len(batch) * self.config.same_as_rows_per_work,
                                   f"Legilux sameAs of {batch[0]} (+{len(batch) - 1})")
            for mapping in (records.subject_metadata(subjects), records.same_as_metadata(aliases)):
                for work, entries in mapping.items():
                    out.setdefault(work, []).extend(entries)
        return out

    def _capped(self, name: str, values: str, cap: int, subject: str) -> list[Row]:
        query = load_query(_QUERIES, name).substitute(works=values, limit=cap + 1)
        return self.sparql.select_capped(query, cap, subject=subject)

    def _versions(self, states: list[Consolidation], files: dict[tuple[str, str], list[tuple[str, str]]],
                  metadata: Mapping[str, list[dict[str, str]]]) -> tuple[list[VersionInput], list[Manifestation]]:
        """The versions and their manifestations, in ``states``' order; ``states`` (emptied) and
        ``files`` (each entry removed once used) are consumed."""
        versions: list[VersionInput] = []
        manifestations: list[Manifestation] = []
        share: SharedEntries = {}  # equal entries of different works held once
        per_work: dict[str, tuple[dict[str, str], ...]] = {}  # one tuple for all the versions of a work
        states.reverse()
        while states:
            c = states.pop()
            expressions = []
            for e in c.expressions:
                found = self._manifestations_of(c, e, files)
                manifestations.extend(found)
                expressions.append(ExpressionInput(
                    language=e.language, source_uri=e.source_uri, title=e.title, title_short=e.title_short,
                    text_reason=None if found else PUBLISHER_METADATA_ONLY))
            for e in c.expressions:  # no other consolidation reads them (the index is keyed by this one's URI)
                if e.uri is not None:
                    files.pop((c.uri, last_segment(e.uri)), None)
            entries = per_work.get(c.work)
            if entries is None:
                entries = per_work[c.work] = canonical_metadata(metadata.get(c.work, []), subject=c.work,
                                                                share=share)
            versions.append(records.version_input(c, expressions=expressions, publisher_metadata=entries))
        return versions, manifestations

    def _manifestations_of(self, c: Consolidation, e: records.Expression,
                           files: dict[tuple[str, str], list[tuple[str, str]]]) -> list[Manifestation]:
        if e.uri is None:
            return []
        listed = files.get((c.uri, last_segment(e.uri)), [])
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


def _require_unique_slugs(works: Sequence[WorkInput]) -> None:
    seen: dict[str, str] = {}
    for w in works:
        other = seen.setdefault(w.slug, w.work_identifier)
        if other != w.work_identifier:
            raise PublisherError(f"two works map to slug {w.slug!r}: {other} and {w.work_identifier}",
                                 code="enumeration_parser_failure", subject=w.work_identifier)
