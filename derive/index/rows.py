"""From tree records and dataset rows to index table rows (pure, deterministic).

:func:`assemble` is the whole build logic without SQLite: it validates the inputs against
each other (fail closed) and returns every table's rows in insertion order. Row ids follow
the documented order (``derive/index/schema.py``), never the input order.

Refusals (raised as :class:`legal.errors.IndexError_`): a dataset row whose text does not
hash to its ``text_sha256``; a row for a version or language the tree does not hold; a row
whose ``record_sha256`` is not the tree record's (the dataset was derived from other
records); two rows with one anchor in one expression; one expression derived by two
profiles. Whitespace-only provisions are dropped and counted, never indexed.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from derive.index import actterms
from derive.index.aliases import alias_names, lexicon_digest, own_names
from derive.index.catalogue import (
    MetadataRow,
    Name,
    dedupe,
    fts_columns,
    identifier_names,
    metadata_names,
    metadata_rows,
    title_names,
)
from derive.index.history import VersionText, build_history
from derive.index.identifiers import href_slug_candidates
from derive.index.inputs import DatasetInput, GapRow, ProvisionRow, TreeInput
from derive.index.text import anchor_article_key, fts_number, fts_text
from derive.index.textstore import pack, sampled, train
from legal.canonical import canonical_text, digest
from legal.errors import IdentityError, IndexError_, TemporalError
from legal.ids import Publisher, VersionId, celex_of_uri, parse_date
from legal.outcomes import RecordEvent, TextGap, ValidToConvention
from legal.validity import Interval, convention_of

Row = tuple[Any, ...]
_LIFECYCLE = {RecordEvent.WITHDRAWN_FROM_SOURCE.value, RecordEvent.RESIGHTED.value}


@dataclass
class IndexRows:
    """Every table's rows, in insertion order (column order as in the DDL)."""

    works: list[Row] = field(default_factory=list)
    work_names: list[Row] = field(default_factory=list)
    work_metadata: list[Row] = field(default_factory=list)
    versions: list[Row] = field(default_factory=list)
    expressions: list[Row] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)
    lexical_states: list[Row] = field(default_factory=list)
    provisions: list[Row] = field(default_factory=list)
    citations: list[Row] = field(default_factory=list)
    gaps: list[Row] = field(default_factory=list)
    provision_states: list[Row] = field(default_factory=list)
    anchor_events: list[Row] = field(default_factory=list)
    events: list[Row] = field(default_factory=list)
    observations: list[Row] = field(default_factory=list)
    work_inputs: list[Row] = field(default_factory=list)
    provision_fts: list[Row] = field(default_factory=list)
    work_fts: list[Row] = field(default_factory=list)
    excluded_empty_provisions: int = 0

    def add_text(self, sha256: str, text: str) -> None:
        self.texts.setdefault(sha256, text)

    def sink(self, table: str) -> RowSink:
        return _sink_of(self, table)

    def text_dictionary(self) -> bytes:
        """The blocks' preset dictionary (:func:`derive.index.textstore.train` on the sample)."""
        return train(text for sha, text in self.texts.items() if sampled(sha))

    def table(self, name: str) -> list[Row]:
        if name == "texts":
            return [row for _, rows in pack(self.texts.items(), self.text_dictionary()) for row in rows]
        value = getattr(self, name)
        assert isinstance(value, list)
        return value


class RowSink(Protocol):
    """Where the rows of one table go, in insertion order (a list, or a spill to disk)."""

    def append(self, row: Row, /) -> None: ...

    def extend(self, rows: Iterable[Row], /) -> None: ...

    def __len__(self) -> int: ...


class Sink(Protocol):
    """Every table's rows (:class:`IndexRows` in memory, or a streaming writer)."""

    excluded_empty_provisions: int

    def sink(self, table: str) -> RowSink: ...

    def add_text(self, sha256: str, text: str) -> None: ...


class ExpressionRows(Protocol):
    """The dataset rows of each expression, each handed out once."""

    def take(self, lex_id: str, language: str) -> list[ProvisionRow]: ...

    def first_left(self) -> tuple[str, str] | None: ...

    def peek(self, lex_id: str, language: str) -> list[ProvisionRow]:
        """The rows :meth:`take` would hand out, left in place."""
        ...


#: Row ids of versions, expressions and lexical states are ``work_rowid * WORK_SPAN + n`` (n = 1, 2, … in
#: the documented order within the work): a work's rows keep their ids when another work changes, so an
#: incremental build replaces one work's rows without renumbering the others.
WORK_SPAN = 1 << 24

#: Called once per work before it is assembled: ``(work_rowid, slug, inputs_sha256)`` → True to keep the
#: rows an earlier build wrote for it (incremental build), False to (re)build them.
KeepWork = Callable[[int, str, str], bool]
#: Called after each work: ``(works_done, works_total, text_bytes)``.
WorkDone = Callable[[int, int, int], None]


class GroupedRows:
    """:class:`ExpressionRows` over rows held in memory."""

    def __init__(self, rows: Iterable[ProvisionRow]) -> None:
        self._grouped: dict[tuple[str, str], list[ProvisionRow]] = defaultdict(list)
        for row in rows:
            self._grouped[(row.lex_id, row.language)].append(row)

    def take(self, lex_id: str, language: str) -> list[ProvisionRow]:
        return self._grouped.pop((lex_id, language), [])

    def peek(self, lex_id: str, language: str) -> list[ProvisionRow]:
        return list(self._grouped.get((lex_id, language), []))

    def first_left(self) -> tuple[str, str] | None:
        return min(self._grouped) if self._grouped else None


def _sink_of(out: IndexRows, table: str) -> RowSink:
    value = getattr(out, table)
    assert isinstance(value, list)
    return value


@dataclass
class _Context:
    publisher: Publisher
    rows_by_expression: ExpressionRows
    gaps_by_expression: dict[tuple[str, str], GapRow]
    held_slugs: set[str]
    aliases: dict[str, str]
    out: Sink
    keep: KeepWork | None = None
    context_digest: str = ""
    act_terms: actterms.ActTerms = actterms.EMPTY
    states: dict[tuple[int, str, str, str], int] = field(default_factory=dict)
    #: the canonical text of each provision path met in the current work (a path repeats in every
    #: version that keeps the provision)
    paths: dict[tuple[str, ...], str] = field(default_factory=dict)
    #: ``repr(text).encode()`` of each provision text the inputs digest spelled in the current work
    #: (a text repeats in every version that keeps its provision; :func:`_digest_expression`)
    text_reprs: dict[str, bytes] = field(default_factory=dict)
    t: dict[str, RowSink] = field(init=False)

    def __post_init__(self) -> None:
        self.t = {name: self.out.sink(name) for name in _TABLES}


_TABLES = ("works", "work_names", "work_metadata", "versions", "expressions", "lexical_states", "provisions",
           "citations", "gaps", "provision_states", "anchor_events", "events", "observations", "work_inputs",
           "provision_fts", "work_fts")


@dataclass
class _Interval:
    end_exclusive: str | None
    status: str


def _fail(message: str, subject: str | None, code: str = "inconsistent_inputs") -> IndexError_:
    return IndexError_(message, code=code, subject=subject)


def is_withdrawn(events: Sequence[Mapping[str, Any]]) -> bool:
    """The last of {withdrawn_from_source, resighted} is withdrawn_from_source."""
    last = None
    for event in events:
        if event.get("event") in _LIFECYCLE:
            last = event.get("event")
    return last == RecordEvent.WITHDRAWN_FROM_SOURCE.value


def first_observed(events: Sequence[Mapping[str, Any]]) -> str | None:
    for event in events:
        if event.get("event") == RecordEvent.FIRST_SIGHTING.value:
            return str(event.get("observed_from"))
    stamps = [str(e["observed_from"]) for e in events if e.get("observed_from")]
    return min(stamps) if stamps else None


def normalised_interval(valid_from: str, valid_to: str | None, convention: ValidToConvention) -> _Interval:
    """Half-open end of a publisher interval; an inverted interval covers no day at all."""
    start = parse_date(valid_from, what="valid_from")
    end = parse_date(valid_to, what="valid_to") if valid_to else None
    try:
        interval = Interval.from_publisher(start, end, convention)
    except TemporalError:
        return _Interval(end_exclusive=valid_from, status="inverted")
    if end is None:
        return _Interval(end_exclusive=None, status="open")
    status = "one_day" if end == start and convention is ValidToConvention.EXCLUSIVE else "closed"
    assert interval.end is not None
    return _Interval(end_exclusive=interval.end.isoformat(), status=status)


def version_key_of(record: Mapping[str, Any]) -> str:
    lex_id = str(record.get("lex_id") or "")
    try:
        return str(VersionId.parse(lex_id).key)
    except IdentityError as exc:
        raise _fail(f"version record has no v4 lex id: {exc.message}", lex_id, code="bad_version_identity") from None


def _sort_versions(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(records, key=lambda r: (str(r["valid_from"]), version_key_of(r)))


def _ordered_rows(rows: list[ProvisionRow]) -> list[ProvisionRow]:
    if rows and all(r.span_start is not None for r in rows):
        return sorted(rows, key=lambda r: (r.span_start or 0, r.span_end or 0, r.order))
    return sorted(rows, key=lambda r: r.order)


def _check_row(row: ProvisionRow, record_sha: str) -> None:
    if hashlib.sha256(row.text_md.encode("utf-8")).hexdigest() != row.text_sha256:
        raise _fail("text_md does not hash to text_sha256", row.provision_id, code="text_hash_mismatch")
    if row.record_sha256 != record_sha:
        raise _fail("dataset row names another record_sha256 than the tree record", row.provision_id,
                    code="record_hash_mismatch")


def resolve_citation(href: str, target_work: str | None, ctx: _Context) -> tuple[str | None, int, str]:
    """``(target_work_id, held_here, resolution)`` of one citation."""
    publisher = ctx.publisher.value
    if target_work:
        slug = target_work.split(":", 1)[-1]
        held = int(target_work.startswith(publisher + ":") and slug in ctx.held_slugs)
        return target_work, held, "dataset"
    for pub, slug in href_slug_candidates(href):
        if pub == publisher and slug in ctx.held_slugs:
            return f"{pub}:{slug}", 1, "href"
        if pub == publisher:
            alias = _alias_target(slug, ctx.aliases)
            if alias:
                return f"{pub}:{alias}", 1, "alias"
        if pub != publisher:
            return f"{pub}:{slug}", 0, "href"
    candidates = href_slug_candidates(href)
    if candidates:
        pub, slug = candidates[0]
        return f"{pub}:{slug}", 0, "href_unheld"
    return None, 0, "unresolved"


def _alias_target(slug: str, aliases: Mapping[str, str]) -> str | None:
    if slug in aliases:
        return aliases[slug]
    best = max((a for a in aliases if slug.startswith(a + "-")), key=len, default=None)
    return aliases[best] if best else None


def _scoped(work_rowid: int, n: int, what: str) -> int:
    if n >= WORK_SPAN:
        raise _fail(f"a work has more {what} than one work's row id range holds", str(work_rowid),
                    code="work_too_large")
    return work_rowid * WORK_SPAN + n


def _state_rowid(ctx: _Context, work_rowid: int, work_title: str, row: ProvisionRow) -> int:
    key = (work_rowid, row.language, row.anchor, row.text_sha256)
    existing = ctx.states.get(key)
    if existing is not None:
        return existing
    rowid = _scoped(work_rowid, len(ctx.states) + 1, "lexical states")
    ctx.states[key] = rowid
    ctx.t["lexical_states"].append((rowid, work_rowid, row.language, row.anchor, row.text_sha256, row.type, row.num,
                                   row.heading, anchor_article_key(row.anchor)))
    ctx.t["provision_fts"].append((rowid, work_title, fts_number(row.num, row.anchor), row.heading or "",
                                   fts_text(row.text_md)))
    return rowid


@dataclass
class _Expr:
    rowid: int
    language: str
    provisions: list[ProvisionRow]


def _expression(ctx: _Context, version_rowid: int, lex_id: str, record_sha: str, expr: Mapping[str, Any],
                expression_rowid: int, inputs: Any) -> _Expr:
    language = str(expr["language"])
    text = expr.get("text") or {}
    raw_rows = ctx.rows_by_expression.take(lex_id, language)
    if ctx.keep is None:
        _digest_expression(inputs, ctx, lex_id, language, raw_rows)
    for row in raw_rows:
        _check_row(row, record_sha)
    rows = [r for r in _ordered_rows(raw_rows) if r.text_md.strip()]
    ctx.out.excluded_empty_provisions += len(raw_rows) - len(rows)
    anchors = Counter(r.anchor for r in rows)
    duplicate = next((a for a, n in anchors.items() if n > 1), None)
    if duplicate:
        raise _fail(f"anchor {duplicate!r} occurs twice", f"{lex_id}|{language}", code="duplicate_anchor")
    profiles = sorted({r.profile for r in rows})
    if len(profiles) > 1:
        raise _fail(f"one expression derived by several profiles: {profiles}", f"{lex_id}|{language}",
                    code="mixed_profiles")
    gap = ctx.gaps_by_expression.pop((lex_id, language), None)
    if rows:
        state, gap_reason = "provisions", None
    elif gap is not None:
        state, gap_reason = str(TextGap.parse(gap.gap)), gap.reason
    elif not text.get("available"):
        state, gap_reason = TextGap.TEXT_NOT_AVAILABLE.value, text.get("reason") or "publisher_text_unavailable"
    else:
        state, gap_reason = TextGap.TEXT_NOT_AVAILABLE.value, "no_derived_provisions"
    evidence = rows[0].evidence_sha256 if rows else (gap.evidence_sha256 if gap else None)
    evidence_file = rows[0].evidence_file if rows else None
    prov_digest = digest([[r.anchor, r.text_sha256] for r in rows]) if rows else None
    ctx.t["expressions"].append((
        expression_rowid, version_rowid, language, expr.get("title"), expr.get("title_short"), expr.get("source_uri"),
        int(bool(text.get("available"))), text.get("reason"), text.get("url"), state, gap_reason,
        profiles[0] if profiles else None, evidence, evidence_file, len(rows), prov_digest,
    ))
    for seq, obs in enumerate(expr.get("observations") or []):
        ctx.t["observations"].append((
            expression_rowid, seq, obs.get("file"), obs.get("sha256"), obs.get("size"), obs.get("source_uri"),
            obs.get("retrieved_at"), obs.get("format"), int(bool(obs.get("held_elsewhere"))),
        ))
    return _Expr(rowid=expression_rowid, language=language, provisions=rows)


def _provisions(ctx: _Context, work_rowid: int, titles: Mapping[str, str], expr: _Expr) -> None:
    paths = ctx.paths
    for seq, row in enumerate(expr.provisions):
        ctx.out.add_text(row.text_sha256, row.text_md)
        state = _state_rowid(ctx, work_rowid, titles.get(row.language, ""), row)
        path = paths.get(row.path)
        if path is None:
            path = paths[row.path] = canonical_text(list(row.path))
        ctx.t["provisions"].append((
            expr.rowid, seq, row.anchor, row.type, row.num, row.heading, path,
            row.article_valid_from, row.text_sha256, state, row.span_start, row.span_end,
        ))
        for cseq, citation in enumerate(row.citations):
            target, held, how = resolve_citation(citation.href, citation.target_work, ctx)
            ctx.t["citations"].append((expr.rowid, _citation_seq(seq, cseq), row.anchor, citation.href,
                                      citation.text, target, held, how))


def _citation_seq(provision_seq: int, citation_seq: int) -> int:
    return provision_seq * 10_000 + citation_seq


def _primary_language(counts: Counter[str], title_language: str | None) -> str | None:
    if not counts:
        return title_language
    best = max(counts.values())
    tied = sorted(lang for lang, n in counts.items() if n == best)
    return title_language if title_language in tied else tied[0]


def _work_titles(versions: Sequence[dict[str, Any]], work: Mapping[str, Any], names: Sequence[Name]) -> dict[str, str]:
    """The FTS ``title`` column per language: newest short title and title, work title, short titles."""
    out: dict[str, list[str]] = defaultdict(list)
    for record in reversed(versions):
        for expr in record.get("expressions") or []:
            lang = str(expr.get("language"))
            if lang not in out:
                out[lang] = [str(v) for v in (expr.get("title_short"), expr.get("title")) if v]
    shorts = [n.value for n in names if n.kind == "publisher_short_title"]
    extra = [str(work.get("title") or ""), *shorts]
    return {lang: " \n".join(dict.fromkeys([*vals, *extra])) for lang, vals in out.items()}


def _version_row(ctx: _Context, work_rowid: int, rowid: int, record: Mapping[str, Any]) -> _Interval:
    convention = ValidToConvention(str(record.get("valid_to_convention") or convention_of(ctx.publisher).value))
    valid_from = str(record["valid_from"])
    valid_to = record.get("valid_to")
    interval = normalised_interval(valid_from, valid_to, convention)
    events = record.get("events") or []
    provenance = record.get("provenance") or {}
    ctx.t["versions"].append((
        rowid, work_rowid, record["lex_id"], version_key_of(record), record["publisher_version_identifier"],
        record.get("document_type"), valid_from, valid_to, convention.value, interval.end_exclusive, interval.status,
        record.get("valid_time_source") or "publisher", record.get("in_force_status"), record.get("publication_date"),
        int(is_withdrawn(events)), first_observed(events), record["record_sha256"],
        provenance.get("record_sha256") if isinstance(provenance, Mapping) else None,
        canonical_text(sorted(record.get("document_roles") or [])), canonical_text(record.get("raw") or {}),
    ))
    for seq, event in enumerate(events):
        ctx.t["events"].append((rowid, seq, event.get("event"), event.get("observed_from"), event.get("scope"),
                               event.get("detail")))
    return interval


def _work(ctx: _Context, work_rowid: int, work: Mapping[str, Any], records: Sequence[dict[str, Any]]) -> None:
    slug = str(work["slug"])
    ctx.states.clear()
    ctx.paths.clear()
    ctx.text_reprs.clear()
    versions = _sort_versions(records)
    inputs = _work_inputs_digest(ctx, work, versions, ctx.rows_by_expression.peek if ctx.keep else None)
    if ctx.keep is not None and ctx.keep(work_rowid, slug, inputs.hexdigest()):
        for record in versions:
            for expr in record.get("expressions") or []:
                ctx.rows_by_expression.take(str(record["lex_id"]), str(expr["language"]))
        return
    excluded_before = ctx.out.excluded_empty_provisions
    live = [r for r in versions if not is_withdrawn(r.get("events") or [])]
    names = _work_names(ctx, work, live)
    titles = _work_titles(live or versions, work, names)
    texts: dict[str, list[VersionText]] = defaultdict(list)
    text_counts: Counter[str] = Counter()
    languages: set[str] = set()
    expressions = 0
    for position, record in enumerate(versions, 1):
        version_rowid = _scoped(work_rowid, position, "versions")
        interval = _version_row(ctx, work_rowid, version_rowid, record)
        withdrawn = is_withdrawn(record.get("events") or [])
        for expr in sorted(record.get("expressions") or [], key=lambda e: str(e["language"])):
            expressions += 1
            built = _expression(ctx, version_rowid, str(record["lex_id"]), str(record["record_sha256"]), expr,
                                _scoped(work_rowid, expressions, "expressions"), inputs)
            _provisions(ctx, work_rowid, titles, built)
            languages.add(built.language)
            if built.provisions and not withdrawn:
                text_counts[built.language] += 1
                texts[built.language].append(VersionText(
                    version_rowid, str(record["valid_from"]), interval.end_exclusive,
                    tuple((p.anchor, p.text_sha256, p.article_valid_from) for p in built.provisions)))
    for language in sorted(texts):
        history = build_history(work_rowid, language, texts[language])
        ctx.t["provision_states"].extend(history.states)
        ctx.t["anchor_events"].extend(history.events)
    primary = _primary_language(text_counts, work.get("title_language"))
    ctx.t["works"].append((work_rowid, f"{ctx.publisher.value}:{slug}", slug, work["work_identifier"],
                          work.get("document_type"), work.get("title"), work.get("title_language"),
                          work.get("source_uri"), primary, canonical_text(sorted(languages))))
    dated = [(str(r["valid_from"]), m) for r in live for m in (r.get("publisher_metadata") or [])]
    metadata = metadata_rows(dated)
    for m in [*metadata, *act_term_rows(ctx.act_terms, ctx.publisher.value, slug, len(live))]:
        ctx.t["work_metadata"].append((work_rowid, m.kind, m.identifier, m.label, m.language, m.normalized,
                                      m.source_uri, m.first_valid_from, m.last_valid_from))
    for n in names:
        ctx.t["work_names"].append((work_rowid, n.kind, n.normalized, n.value, n.language))
    ctx.t["work_fts"].append((work_rowid, *fts_columns(names, metadata)))
    ctx.t["work_inputs"].append((work_rowid, slug, inputs.hexdigest(),
                                 ctx.out.excluded_empty_provisions - excluded_before, canonical_text(titles)))


def act_term_rows(terms: actterms.ActTerms, publisher: str, slug: str, live: int) -> list[MetadataRow]:
    """One work's act terms (:mod:`derive.index.actterms`) as ``work_metadata`` rows of kind ``act_term``
    (label: the normalised term; no identifier, second normalised copy nor dates: the terms are the work's,
    not a version's, and the index's bytes count), when it has ``live`` versions (none: no rows). Not in
    ``work_fts``: the metadata lane reads the publisher's labels only. Pure."""
    found = actterms.work_terms(terms, publisher, slug) if live else ()
    return [MetadataRow(actterms.KIND, "", term, language, "", None, "", "") for language, term in found]


def _work_inputs_digest(ctx: _Context, work: Mapping[str, Any], versions: Sequence[Mapping[str, Any]],
                        peek: Callable[[str, str], list[ProvisionRow]] | None) -> Any:
    """SHA-256 over everything one work's rows are built from (completed by :func:`_expression` when
    ``peek`` is None): the work and version records, the build context (held works, aliases), and per
    expression its dataset rows (without their position in the dataset files) and its gap."""
    h = hashlib.sha256(ctx.context_digest.encode())
    h.update(canonical_text([dict(work), [dict(r) for r in versions]]).encode())
    if peek is not None:
        for record in versions:
            for expr in sorted(record.get("expressions") or [], key=lambda e: str(e["language"])):
                lex_id, language = str(record["lex_id"]), str(expr["language"])
                _digest_expression(h, ctx, lex_id, language, peek(lex_id, language))
    return h


def _digest_expression(h: Any, ctx: _Context, lex_id: str, language: str, rows: Sequence[ProvisionRow]) -> None:
    """Adds ``repr((lex_id, language, gap, [each row with order=0]))`` to ``h``, UTF-8 (each row spelled
    by :func:`_repr_order_zero`, not copied with ``dataclasses.replace``). The same bytes are handed
    to ``h`` in pieces: each row's spelling around its ``text_md``, and the ``repr`` of that text
    taken once per work (``ctx.text_reprs``, keyed by the text itself: a text repeats in every
    version that keeps its provision, and ``repr`` of a long text is the costly part)."""
    gap = ctx.gaps_by_expression.get((lex_id, language))
    texts = ctx.text_reprs
    parts = [f"({lex_id!r}, {language!r}, {gap!r}, [".encode()]
    for n, row in enumerate(rows):
        head, tail = _repr_parts(row)
        text = texts.get(row.text_md)
        if text is None:
            text = texts[row.text_md] = repr(row.text_md).encode()
        parts += [b", " + head.encode() if n else head.encode(), text, tail.encode()]
    parts.append(b"])")
    h.update(b"".join(parts))


def _repr_order_zero(row: ProvisionRow) -> str:
    """``repr(dataclasses.replace(row, order=0))``, spelled out (the dataclass ``__repr__`` goes
    through a recursion guard per row and per citation; a test holds the two equal)."""
    head, tail = _repr_parts(row)
    return f"{head}{row.text_md!r}{tail}"


def _repr_parts(row: ProvisionRow) -> tuple[str, str]:
    """:func:`_repr_order_zero` of ``row`` before and after the ``repr`` of its ``text_md``."""
    r = row
    cites = ", ".join(f"CitationRow(href={c.href!r}, text={c.text!r}, target_work={c.target_work!r})"
                      for c in r.citations)
    cites = f"({cites},)" if len(r.citations) == 1 else f"({cites})"
    return (f"ProvisionRow(provision_id={r.provision_id!r}, lex_id={r.lex_id!r}, work_id={r.work_id!r}, "
            f"publisher={r.publisher!r}, version_key={r.version_key!r}, language={r.language!r}, "
            f"anchor={r.anchor!r}, type={r.type!r}, num={r.num!r}, heading={r.heading!r}, path={r.path!r}, "
            f"article_valid_from={r.article_valid_from!r}, text_md=",
            f", text_sha256={r.text_sha256!r}, "
            f"citations={cites}, profile={r.profile!r}, evidence_sha256={r.evidence_sha256!r}, "
            f"evidence_file={r.evidence_file!r}, record_sha256={r.record_sha256!r}, span_start={r.span_start!r}, "
            f"span_end={r.span_end!r}, order=0)")


def _celex(work: Mapping[str, Any], publisher: Publisher) -> str | None:
    if publisher is not Publisher.EURLEX:
        return None
    try:
        return celex_of_uri(str(work["work_identifier"]))
    except IdentityError:
        return None


def _work_names(ctx: _Context, work: Mapping[str, Any], live: Sequence[Mapping[str, Any]]) -> list[Name]:
    expressions = [e for r in live for e in (r.get("expressions") or [])]
    metadata = [m for r in live for m in (r.get("publisher_metadata") or [])]
    names = [
        *identifier_names(work, ctx.publisher.value, _celex(work, ctx.publisher)),
        *title_names(expressions, work.get("title"), work.get("title_language")),
        # a publisher short title naming another act (an amending act's ``CRD``) is not this work's
        *own_names(metadata_names(metadata), expressions),
        # --- search: alias lexicon (derive/index/aliases.py) ---
        *alias_names(work, ctx.publisher.value, expressions),
        # --- end search ---
    ]
    return dedupe(names)


def work_aliases(records: Iterable[Mapping[str, Any]]) -> list[str]:
    """The ``legilux_same_as`` alias slugs one work's version records name (in their order)."""
    names = metadata_names(m for r in records for m in (r.get("publisher_metadata") or []))
    return [name.value for name in names if name.kind == "alias"]


def _aliases(works: Iterable[Mapping[str, Any]], aliases_of: Callable[[str], Sequence[str]]) -> dict[str, str]:
    """``legilux_same_as`` alias slug → held slug; one alias naming two works is refused."""
    out: dict[str, str] = {}
    for work in works:
        slug = str(work["slug"])
        for value in aliases_of(slug):
            if out.get(value, slug) != slug:
                raise _fail(f"alias {value!r} names two works", value, code="alias_collision")
            out[value] = slug
    return out


def _gaps(gaps: Sequence[GapRow]) -> dict[tuple[str, str], GapRow]:
    out: dict[tuple[str, str], GapRow] = {}
    for gap in gaps:
        TextGap.parse(gap.gap)
        out[(gap.lex_id, gap.language)] = gap
    return out


@dataclass(frozen=True)
class BuildContext:
    """What every work's rows depend on besides its own records and rows: the held works, the
    alias table, and their digest (part of every work's inputs digest)."""

    held: frozenset[str]
    aliases: dict[str, str]
    digest: str
    #: the act terms of the build (:mod:`derive.index.actterms`; none: :data:`~derive.index.actterms.EMPTY`)
    act_terms: actterms.ActTerms = actterms.EMPTY


def build_context(publisher: Publisher, works: Sequence[Mapping[str, Any]],
                  versions: Callable[[str], Sequence[Mapping[str, Any]]], *,
                  aliases_of: Callable[[str], Sequence[str]] | None = None) -> BuildContext:
    """The :class:`BuildContext` of one publisher's works (reads every work's version records, or
    takes each work's :func:`work_aliases` from ``aliases_of`` when given)."""
    held = {str(w["slug"]) for w in works}
    aliases = _aliases(works, aliases_of or (lambda slug: work_aliases(versions(slug))))
    terms = actterms.load()
    # search: the reviewed alias lexicon is a build input, and the act terms when there are any (none: the
    # digest, and so every work's inputs digest, is what it was before them)
    context = digest([publisher.value, sorted(held), sorted(aliases.items()), lexicon_digest(),
                      *([terms.digest] if terms.by_work else [])])
    return BuildContext(frozenset(held), aliases, context, terms)


def assemble_into(out: Sink, publisher: Publisher, works: Sequence[Mapping[str, Any]],
                  versions: Callable[[str], Sequence[dict[str, Any]]], rows: ExpressionRows,
                  gaps: Sequence[GapRow], *, keep: KeepWork | None = None, done: WorkDone | None = None,
                  context: BuildContext | None = None) -> None:
    """Write every table's rows for one publisher into ``out``, one work at a time.

    ``works`` are the publisher's works, ``versions(slug)`` a work's version records (read when
    the work is reached), ``rows`` the publisher's dataset rows and ``gaps`` its gaps. With ``keep``
    (incremental build) a work whose inputs digest ``keep`` accepts is skipped: its rows are already
    in ``out``'s target. ``done`` is told after every work (progress). ``context``: the
    :func:`build_context` of these works when the caller already has it.
    """
    built = context if context is not None else build_context(publisher, works, versions)
    held, aliases, context_digest = set(built.held), built.aliases, built.digest
    ctx = _Context(publisher=publisher, rows_by_expression=rows, gaps_by_expression=_gaps(gaps),
                   held_slugs=held, aliases=aliases, out=out, keep=keep, context_digest=context_digest,
                   act_terms=built.act_terms)
    ordered = sorted(works, key=lambda w: str(w["slug"]))
    for work_rowid, work in enumerate(ordered, 1):
        before = getattr(out, "text_bytes", 0)
        _work(ctx, work_rowid, work, versions(str(work["slug"])))
        if done is not None:
            done(work_rowid, len(ordered), getattr(out, "text_bytes", 0) - before)
    left = rows.first_left()
    if left is not None:
        lex_id, language = left
        raise _fail("dataset rows for an expression the tree does not hold", f"{lex_id}|{language}",
                    code="orphan_dataset_rows")
    unique = {(g.lex_id, g.language, g.gap): g for g in sorted(gaps, key=lambda g: (g.lex_id, g.language, g.gap,
                                                                                       g.reason or ""))}
    ctx.t["gaps"].extend((g.lex_id, g.language, g.gap, g.reason, g.evidence_sha256) for _, g in sorted(unique.items()))


def assemble(publisher: Publisher, tree: TreeInput, dataset: DatasetInput) -> IndexRows:
    """Every table's rows for one publisher, in memory (see the module docstring for the refusals)."""
    data = dataset.for_publisher(publisher.value)
    tree = tree.for_publisher(publisher.value)
    out = IndexRows()
    assemble_into(out, publisher, tree.works, lambda slug: tree.versions.get(slug, ()), GroupedRows(data.rows),
                  data.gaps)
    return out


def check_timestamp(text: str) -> str:
    """``built_at`` must be a UTC ``YYYY-MM-DDTHH:MM:SSZ`` instant."""
    try:
        _dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        raise _fail(f"built_at {text!r} is not YYYY-MM-DDTHH:MM:SSZ", text, code="bad_built_at") from None
    return text
