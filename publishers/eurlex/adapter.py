"""The EUR-Lex adapter: Cellar SPARQL (CDM) for the plan, Cellar content negotiation for bytes.

Enumeration (all before any body request, reference model §5.3): the reviewed scope's seeds
plus one level of relations; then, per batch of 16 works, work metadata, roles, consolidated
versions and official discovery metadata (directory codes, EuroVoc); versions are built by
:mod:`publishers.eurlex.records`. The consolidated versions of each batch are checked against
the publisher's own ``COUNT`` of them (``consolidations_count.rq``). The enumeration is
*scoped* (:attr:`corpus_tree.model.Enumeration.scoped`): versions of works the scope does not
select are never withdrawn by it. The ingest takes the versions as each batch is built
(:meth:`EurlexAdapter.enumerate_into`, ADR 0126) and spills them at once; ``enumerate`` holds them whole.

Bodies: the primary XHTML by ``GET <cellar>/resource/celex/<CELEX>`` with ``Accept:
application/xhtml+xml, text/html`` and ``Accept-Language: eng|fra``; for published
consolidations also Formex 4 with ``Accept: application/zip;mtype=fmx4`` (optional: 404/406
mean "no Formex"). Redirects are followed only to the publisher's own hosts (policy
allow-list; the replay host in replay mode). Recorded URIs are always the official ones.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from corpus_tree.model import Enumeration, VersionInput, WorkInput
from legal.errors import PublisherError
from legal.ids import Publisher, celex_of_uri
from legal.outcomes import FetchOutcome
from publishers.eurlex import formex, records, vocab
from publishers.eurlex.scope import PREDICATES, EurlexScope
from publishers.http import (
    BodyOversized,
    HttpClient,
    HttpPolicy,
    RetryExhausted,
    Row,
    SparqlClient,
    iri,
    literal,
    load_query,
)
from publishers.http.client import MIB, HttpResponse
from publishers.protocol import (
    HELD_ELSEWHERE_MEDIA_TYPE,
    FetchResult,
    ListedSink,
    Manifestation,
    PublisherEnumeration,
    SharedEntries,
    collected,
    held_elsewhere_members,
    require_nonempty,
    sha256_member,
    status_result,
)

_QUERIES = "publishers.eurlex"
#: a BOM, then ASCII whitespace (what ``bytes.lstrip`` strips), then ``<?xml``
_XML_DECLARATION = re.compile(rb"(?:\xef\xbb\xbf)?[ \t\n\r\x0b\x0c]*<\?xml")


@dataclass(frozen=True)
class EurlexConfig:
    """Where and how much: SPARQL endpoint, Cellar base, batch sizes, caps, timeouts."""

    endpoint: str = vocab.LIVE_ENDPOINT
    cellar_base: str = vocab.LIVE_CELLAR
    official_cellar: str = vocab.OFFICIAL_CELLAR
    batch: int = 16
    rows_per_work: int = 512
    relation_chunk: int = 50
    sparql_timeout: float = 180.0
    body_timeout: float = 180.0
    body_max_bytes: int = 32 * MIB
    formex: formex.FormexLimits = field(default_factory=formex.FormexLimits)
    fetch_formex: bool = True
    accept_held_elsewhere: bool = False

    @classmethod
    def for_replay(cls, base_url: str, **overrides: object) -> EurlexConfig:
        base = base_url.rstrip("/")
        values: dict[str, object] = {"endpoint": f"{base}/webapi/rdf/sparql", "cellar_base": f"{base}/",
                                     "accept_held_elsewhere": True}
        values.update(overrides)
        return dataclasses.replace(cls(), **values)  # type: ignore[arg-type]


def eurlex_policy(**overrides: object) -> HttpPolicy:
    """The EUR-Lex HTTP policy: redirects (≤6) only to ``europa.eu`` hosts, ``http`` upgraded."""
    values: dict[str, object] = {"allowed_hosts": vocab.PUBLISHER_HOSTS, "upgrade_http": True, "max_redirects": 6}
    values.update(overrides)
    return HttpPolicy(**values)  # type: ignore[arg-type]


class EurlexAdapter:
    """EUR-Lex (``eu-eurlex``) behind :class:`publishers.protocol.PublisherAdapter`."""

    publisher = Publisher.EURLEX

    def __init__(self, http: HttpClient, config: EurlexConfig | None = None) -> None:
        self.http = http
        self.config = config or EurlexConfig()
        self.sparql = SparqlClient(http, self.config.endpoint, timeout=self.config.sparql_timeout, pace="cellar")

    # -- enumeration ---------------------------------------------------------------------------

    def enumerate(self, scope: object | None = None) -> PublisherEnumeration:
        """Every version of the works in ``scope`` (default: the bundled reviewed scope), held whole:
        :meth:`enumerate_into`'s listing collected (:func:`publishers.protocol.collected`)."""
        return collected(self, scope)

    def enumerate_into(self, scope: object | None, sink: ListedSink) -> PublisherEnumeration:
        """Every version of the works in ``scope`` handed to ``sink`` with its manifestations as soon as
        its batch of works is built (:class:`publishers.protocol.ListingAdapter`, ADR 0126): nothing
        per version is held from one batch to the next. Returns the works (sorted by slug) and the
        notes, with no versions and no manifestations."""
        chosen = scope if isinstance(scope, EurlexScope) else EurlexScope.load() if scope is None else None
        if chosen is None:
            raise PublisherError("EUR-Lex scope must be an EurlexScope", code="invalid_scope")
        selected = self._select(chosen)
        works: list[WorkInput] = []
        share: SharedEntries = {}  # equal metadata entries of different works held once
        for start in range(0, len(selected), self.config.batch):
            for work, built in self._batch(selected[start:start + self.config.batch], chosen, share):
                works.append(work)
                while built:  # each version handed over, then freed
                    version = built.pop(0)
                    sink(version, tuple(self._manifestations_of(version)))
                    del version
        enumeration = Enumeration(publisher=self.publisher, complete=True,
                                  works=tuple(sorted(works, key=lambda w: w.slug)), versions=(), scoped=True)
        notes = (f"scope {chosen.scope_id} sha256={chosen.sha256}",) if chosen.sha256 else ()
        return PublisherEnumeration(enumeration=enumeration, manifestations=(), notes=notes)

    def _select(self, scope: EurlexScope) -> list[str]:
        for celex in scope.seeds:
            if not _admitted(celex, scope):
                raise PublisherError(f"seed {celex} is outside the admitted CELEX families and legal forms",
                                     code="invalid_scope", subject=vocab.celex_uri(celex))
        selected = set(scope.seeds)
        if scope.relations.depth >= 1:
            selected |= self._related(scope)
        if len(selected) > scope.relations.max_works:
            raise PublisherError(f"scope selects {len(selected)} works, more than {scope.relations.max_works}",
                                 code="incomplete_enumeration", subject=scope.scope_id)
        return sorted(selected)

    def _related(self, scope: EurlexScope) -> set[str]:
        out: set[str] = set()
        predicates = " ".join(iri(PREDICATES[p]) for p in scope.relations.predicates)
        per_seed = scope.relations.max_related_per_seed
        chunk = self.config.relation_chunk
        for start in range(0, len(scope.seeds), chunk):
            seeds = scope.seeds[start:start + chunk]
            values = " ".join(f"({literal(c)} {iri(vocab.celex_uri(c))})" for c in seeds)
            query = load_query(_QUERIES, "relations.rq").substitute(
                seeds=values, predicates=predicates, limit=len(seeds) * per_seed + 1)
            rows = self.sparql.select_capped(query, len(seeds) * per_seed, subject=f"relations of {seeds[0]}")
            out |= _admitted_relations(rows, scope)
        return out

    def _batch(self, batch: Sequence[str], scope: EurlexScope,
               share: SharedEntries | None = None) -> Iterable[tuple[WorkInput, list[VersionInput]]]:
        aliases = " ".join(iri(vocab.celex_uri(c)) for c in batch)
        cap = len(batch) * self.config.rows_per_work
        label = f"{batch[0]} (+{len(batch) - 1})"
        rows = {name: _by_alias(self._capped(f"{name}.rq", aliases, cap, f"{name} of {label}"))
                for name in ("work", "roles", "consolidations", "metadata")}
        self._check_count("consolidations", aliases, [r for rs in rows["consolidations"].values() for r in rs], label)
        for celex in batch:
            alias = vocab.celex_uri(celex)
            base = records.work_meta(celex, rows["work"].get(alias, []),
                                     (r["role"] for r in rows["roles"].get(alias, []) if "role" in r))
            states = records.states_of(base, records.consolidated_states(rows["consolidations"].get(alias, [])),
                                       include_unamended=scope.include_unamended,
                                       include_original_state=scope.include_original)
            metadata = records.metadata_entries(rows["metadata"].get(alias, []), alias)
            built = records.versions(base, states, scope.languages, metadata, share)
            yield records.work_input(base, built), built

    def _check_count(self, name: str, aliases: str, rows: Sequence[Row], label: str) -> None:
        """The rows of ``name`` (the versions of a batch) must be distinct and exactly the
        publisher's own ``COUNT`` of that pattern: a truncated or lossy answer would otherwise
        withdraw versions."""
        subject = f"{name} of {label}"
        seen: set[tuple[tuple[str, str], ...]] = set()
        for row in rows:
            key = tuple(sorted(row.items()))
            if key in seen:
                raise PublisherError(f"{subject}: the publisher returned a row twice: {row!r}", code="duplicate_rows",
                                     subject=subject, retryable=True)
            seen.add(key)
        query = load_query(_QUERIES, f"{name}_count.rq").substitute(aliases=aliases)
        expected = self.sparql.count(query, subject=f"{subject} (COUNT)")
        if len(rows) != expected:
            raise PublisherError(f"{subject}: {len(rows)} rows returned but the publisher counts {expected}",
                                 code="incomplete_enumeration", subject=subject, retryable=True)

    def _capped(self, name: str, aliases: str, cap: int, subject: str) -> list[Row]:
        query = load_query(_QUERIES, name).substitute(aliases=aliases, limit=cap + 1)
        return self.sparql.select_capped(query, cap, subject=subject)

    def _manifestations_of(self, version: VersionInput) -> list[Manifestation]:
        celex = celex_of_uri(version.publisher_version_identifier)
        url = f"{self.config.cellar_base}resource/celex/{vocab.escaped(celex)}"
        published = version.raw.get("consolidation_status") == "published"
        out = []
        for e in version.expressions:
            base = Manifestation(slug=version.slug, publisher_version_identifier=version.publisher_version_identifier,
                                 valid_from=version.valid_from, language=e.language, url=url,
                                 source_uri=e.source_uri or url, accept=vocab.XHTML_ACCEPT,
                                 accept_language=vocab.LANGUAGES[e.language].lower())
            out.append(base)
            if published and self.config.fetch_formex:
                out.append(dataclasses.replace(base, format="fmx4", accept=vocab.FORMEX_ACCEPT, optional=True))
        return out

    # -- bodies ----------------------------------------------------------------------------------

    def fetch(self, manifestation: Manifestation) -> FetchResult:
        m = manifestation
        headers = m.request_headers()
        cap = self.config.formex.archive if m.format else self.config.body_max_bytes
        try:
            response = self.http.get(m.url, headers=headers, timeout=self.config.body_timeout, max_bytes=cap,
                                     pace="cellar")
        except RetryExhausted as exc:
            return FetchResult(FetchOutcome.RETRY_EXHAUSTED, m, status=exc.last_status, detail=exc.message)
        except BodyOversized as exc:
            if m.optional:
                return FetchResult(FetchOutcome.OK, m, detail=f"Formex not kept: {exc.message}")
            raise PublisherError(exc.message, code="body_oversized", subject=m.subject) from exc
        except PublisherError as exc:
            raise PublisherError(exc.message, code=exc.code, subject=m.subject) from exc
        return self._result(m, response)

    def _result(self, m: Manifestation, response: HttpResponse) -> FetchResult:
        official = self._official(response.url)
        if m.optional and response.status in (404, 406):
            return FetchResult(FetchOutcome.OK, m, status=response.status, final_url=official,
                               detail="no Formex manifestation")
        if not m.optional and response.status == 406:
            return FetchResult(FetchOutcome.PERMANENT_NOT_FOUND, m, status=406, final_url=official)
        failed = status_result(m, response.status, official)
        if failed is not None:
            return failed
        if self.config.accept_held_elsewhere and response.content_type == HELD_ELSEWHERE_MEDIA_TYPE:
            source = official if m.format else None
            members = held_elsewhere_members(m, response.body, source_uri=source)
            return FetchResult(FetchOutcome.OK, m, members=members, status=200, final_url=official)
        if m.format == "fmx4":
            return self._formex(m, response, official)
        body = require_nonempty(m, response.body)
        member = sha256_member(m, f"{m.language}.{primary_extension(body)}", body)
        return FetchResult(FetchOutcome.OK, m, body=body, members=(member,), status=200, final_url=official)

    def _formex(self, m: Manifestation, response: HttpResponse, official: str) -> FetchResult:
        if response.content_type != "application/zip":
            return FetchResult(FetchOutcome.OK, m, status=200, final_url=official,
                               detail=f"Formex request answered {response.content_type or 'no type'}, not a zip")
        members = formex.unpack(response.body, subject=m.subject, limits=self.config.formex)
        if not formex.identity_ok(members, m.valid_from):
            return FetchResult(FetchOutcome.OK, m, body=response.body, status=200, final_url=official,
                               detail="Formex identity guard failed (START.DATE); discarded as non-evidence")
        out = tuple(sha256_member(m, f"{m.language}.fmx4/{name}", content, source_uri=official)
                    for name, content in members)
        return FetchResult(FetchOutcome.OK, m, body=response.body, members=out, status=200, final_url=official)

    def _official(self, url: str) -> str:
        """A fetched URL as the official publisher URL (replay or mirror base → Cellar)."""
        base = self.config.cellar_base
        if base != self.config.official_cellar and url.startswith(base):
            return self.config.official_cellar + url[len(base):]
        return url


def primary_extension(body: bytes) -> str:
    """``xml`` if the body (after a BOM and leading whitespace) starts with ``<?xml``, else ``html``
    (matched in place: no copy of the body, issue #13)."""
    return "xml" if _XML_DECLARATION.match(body) else "html"


def _admitted(celex: str, scope: EurlexScope) -> bool:
    return celex[:1] in ("1", "3") and vocab.legal_form_family(celex) in scope.legal_forms


def _admitted_relations(rows: Iterable[Row], scope: EurlexScope) -> set[str]:
    per_seed: dict[str, set[str]] = {}
    predicate_names = {v: k for k, v in PREDICATES.items()}
    for row in rows:
        seed, celex, direction = row.get("seed", ""), row.get("celex", ""), row.get("dir", "")
        name = predicate_names.get(row.get("pred", ""), "")
        if not _admitted(celex, scope) or celex == seed:
            continue
        if name == "based_on" and direction == "in" and (seed.startswith("1") or not _is_act(celex)):
            continue
        per_seed.setdefault(seed, set()).add(celex)
    for seed, related in per_seed.items():
        if len(related) > scope.relations.max_related_per_seed:
            raise PublisherError(f"seed {seed} has {len(related)} related works, more than "
                                 f"{scope.relations.max_related_per_seed}", code="incomplete_enumeration",
                                 subject=vocab.celex_uri(seed))
    return {c for related in per_seed.values() for c in related}


def _is_act(celex: str) -> bool:
    """3YYYY[RL]: a regulation or directive (inbound legal-basis edges are limited to these)."""
    return len(celex) > 5 and celex[0] == "3" and celex[1:5].isdigit() and celex[5].upper() in "RL"


def _by_alias(rows: Iterable[Row]) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = {}
    for row in rows:
        out.setdefault(row.get("alias", ""), []).append(row)
    return out
