"""Pure mapping of Legilux SPARQL rows to typed tree inputs (no network here).

- catalogue rows → one :class:`Consolidation` per ``?c`` (the publisher version identifier),
  with its expressions deduplicated by language (no expression → a synthetic ``fr`` one whose
  source is the consolidation page);
- consolidations → :class:`corpus_tree.model.VersionInput` and, per work,
  :class:`corpus_tree.model.WorkInput` (dominant document type; title from the newest state,
  dominant language first, ``titleShort`` before ``title``; ``source_uri`` of the last state);
- subject and ``owl:sameAs`` rows → ``publisher_metadata`` entries.

Every inconsistency (two different values for a single-valued property, a missing or
malformed date, an unknown language, a URI that is not a Legilux ELI) is a
:class:`legal.errors.PublisherError` naming the consolidation or work at fault.
"""

from __future__ import annotations

import datetime as _dt
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from corpus_tree.model import ExpressionInput, VersionInput, WorkInput
from legal.errors import IdentityError, PublisherError
from legal.ids import WorkSlug, parse_date
from publishers.http import Row
from publishers.legilux.vocab import (
    EU_COUNTRY_SCHEME,
    GENERIC_SUBJECT_SCHEME,
    SUBJECT_SCHEMES,
    language_of,
    last_segment,
    public_uri,
)

_T = TypeVar("_T")
_SINGLE = ("work", "type", "from", "to", "status", "pub")


@dataclass(slots=True)
class Expression:
    """One JOLux expression of a consolidation (slots: a catalogue holds thousands while it is read)."""

    uri: str | None
    language: str
    source_uri: str
    title: str | None = None
    title_short: str | None = None


@dataclass(slots=True)
class Consolidation:
    """One ``jolux:Consolidation``: a dated state of a work (a Lex version; slots, as :class:`Expression`)."""

    uri: str
    work: str
    slug: str
    valid_from: _dt.date
    valid_to: _dt.date | None
    document_type: str | None
    in_force_status: str | None
    publication_date: _dt.date | None
    expressions: list[Expression] = field(default_factory=list)


def bad_data(message: str, subject: str) -> PublisherError:
    return PublisherError(message, code="enumeration_parser_failure", subject=subject)


#: equal values of one catalogue held once (issue #13): its states are held whole until the versions are made
Shared = dict[object, Any]


def _shared(value: _T, share: Shared) -> _T:
    """``value``, or the equal one ``share`` already holds (an immutable value: a date, a string)."""
    held: _T = share.setdefault(value, value)
    return held


def _date(value: str | None, what: str, subject: str, share: Shared | None = None) -> _dt.date | None:
    if value is None:
        return None
    try:
        date = parse_date(value.strip(), what=what)
        return date if share is None else _shared(date, share)
    except IdentityError:
        raise bad_data(f"{what} {value!r} is not a YYYY-MM-DD date", subject) from None


def _single(rows: Sequence[Row], name: str, subject: str) -> str | None:
    values = {row[name] for row in rows if name in row}
    if len(values) > 1:
        raise bad_data(f"conflicting values for {name}: {sorted(values)}", subject)
    return next(iter(values), None)


def group_catalogue(rows: Iterable[Row]) -> dict[str, list[Row]]:
    """Catalogue rows grouped by consolidation URI (``?c``), in URI order."""
    groups: dict[str, list[Row]] = {}
    for row in rows:
        if "c" not in row:
            raise bad_data("catalogue row without ?c", "catalogue")
        groups.setdefault(row["c"], []).append(row)
    return dict(sorted(groups.items()))


def consolidation(uri: str, rows: Sequence[Row], share: Shared | None = None) -> Consolidation:
    """One consolidation from its catalogue rows. ``share``: the equal values of the catalogue's other
    consolidations (its dates, types, statuses, a slug per work) held once, not one copy per state — a
    full corpus's states hold ≈ 2.6 MB less per replica at the enumeration's end (issue #13, ing38);
    the states are equal either way."""
    share = {} if share is None else share
    values = {name: _single(rows, name, uri) for name in _SINGLE}
    work = values["work"]
    if work is None:
        raise bad_data("consolidation has no jolux:isMemberOf work", uri)
    valid_from = _date(values["from"], "dateApplicability", uri, share)
    if valid_from is None:
        raise bad_data("consolidation has no jolux:dateApplicability", uri)
    slug = share.get(("slug", work))
    if slug is None:
        try:
            slug = share[("slug", work)] = WorkSlug.from_eli(work).value
        except IdentityError as exc:
            raise bad_data(exc.message, uri) from None
    return Consolidation(
        uri=uri, work=work, slug=slug, valid_from=valid_from,
        valid_to=_date(values["to"], "dateEndApplicability", uri, share),
        document_type=_shared(last_segment(values["type"]), share) if values["type"] else None,
        in_force_status=_shared(last_segment(values["status"]), share) if values["status"] else None,
        publication_date=_date(values["pub"], "publicationDate", uri, share),
        expressions=_expressions(uri, rows),
    )


def _expressions(uri: str, rows: Sequence[Row]) -> list[Expression]:
    by_uri: dict[str, list[Row]] = {}
    for row in rows:
        if "expr" in row:
            by_uri.setdefault(row["expr"], []).append(row)
    out: dict[str, Expression] = {}
    for expr_uri, expr_rows in sorted(by_uri.items()):
        subject = f"{uri} expression {expr_uri}"
        language = language_of(_single(expr_rows, "lang", subject), subject=uri)
        if language in out:
            continue  # deduplicated by language; the first expression URI wins
        out[language] = Expression(expr_uri, language, public_uri(expr_uri),
                                   _single(expr_rows, "title", subject), _single(expr_rows, "titleShort", subject))
    if not out:
        return [Expression(None, "fr", public_uri(uri))]
    return [out[lang] for lang in sorted(out)]


def consolidations(rows: Iterable[Row]) -> list[Consolidation]:
    """Every consolidation of the catalogue, sorted by (work slug, valid_from, URI)."""
    share: Shared = {}
    found = [consolidation(uri, group, share) for uri, group in group_catalogue(rows).items()]
    return sorted(found, key=lambda c: (c.slug, c.valid_from, c.uri))


def version_input(c: Consolidation, *, expressions: Sequence[ExpressionInput],
                  publisher_metadata: Sequence[Mapping[str, str]] = ()) -> VersionInput:
    return VersionInput(
        slug=c.slug, publisher_version_identifier=c.uri, work_identifier=c.work, valid_from=c.valid_from,
        valid_to=c.valid_to, document_type=c.document_type, in_force_status=c.in_force_status,
        publication_date=c.publication_date, expressions=tuple(expressions), relations=(), raw={},
        publisher_metadata=tuple(publisher_metadata), document_roles=(),
    )


def dominant(values: Iterable[str]) -> str | None:
    """The most frequent value; ties broken by ordinal order (deterministic)."""
    counts = Counter(values)
    if not counts:
        return None
    return min(counts, key=lambda v: (-counts[v], v))


def work_input(work: str, states: Sequence[Consolidation]) -> WorkInput:
    """The work record of one Legilux work from its consolidations."""
    ordered = sorted(states, key=lambda c: (c.valid_from, c.uri))
    language_counts = Counter(e.language for c in ordered for e in c.expressions)
    return WorkInput(
        slug=ordered[0].slug, work_identifier=work,
        document_type=dominant(c.document_type for c in ordered if c.document_type),
        title=_title_hint(ordered, language_counts),
        source_uri=ordered[-1].expressions[0].source_uri if ordered[-1].expressions else None,
    )


def _title_hint(ordered: Sequence[Consolidation], language_counts: Mapping[str, int]) -> str | None:
    for c in reversed(ordered):
        for e in sorted(c.expressions, key=lambda e: (-language_counts[e.language], e.language)):
            for candidate in (e.title_short, e.title):
                if candidate and candidate.strip():
                    return candidate
    return None


# -- official discovery metadata ---------------------------------------------------------------


def subject_metadata(rows: Iterable[Row]) -> dict[str, list[dict[str, str]]]:
    """``legilux_subject_level{1,2}_<scheme>`` entries per work from subject rows."""
    grouped: dict[tuple[str, str, str], list[Row]] = {}
    for row in rows:
        try:
            key = (row["work"], row["level"], row["concept"])
        except KeyError as exc:
            raise bad_data(f"subject row without ?{exc.args[0]}", "subjects") from None
        grouped.setdefault(key, []).append(row)
    out: dict[str, list[dict[str, str]]] = {}
    for (work, level, concept), group in sorted(grouped.items()):
        subject = f"{work} subject {concept}"
        labels = {r["label"] for r in group if "label" in r}
        schemes = {_scheme_kind(r["scheme"]) for r in group if "scheme" in r} - {None}
        if len(labels) != 1:
            raise bad_data(f"subject concept needs exactly one French label, got {len(labels)}", subject)
        if len(schemes) != 1:
            raise bad_data(f"subject concept needs exactly one specific scheme, got {len(schemes)}", subject)
        if level not in ("1", "2"):
            raise bad_data(f"unknown subject level {level!r}", subject)
        kind = f"legilux_subject_level{level}_{schemes.pop()}"
        out.setdefault(work, []).append({"kind": kind, "identifier": concept, "language": "fr",
                                         "label": labels.pop(), "source_uri": concept})
    return out


def _scheme_kind(scheme: str) -> str | None:
    if scheme.rstrip("/") in (GENERIC_SUBJECT_SCHEME,):
        return None
    if scheme.rstrip("/") == EU_COUNTRY_SCHEME:
        return "country"
    return SUBJECT_SCHEMES.get(last_segment(scheme))


def same_as_metadata(rows: Iterable[Row]) -> dict[str, list[dict[str, str]]]:
    """``legilux_same_as`` entries per work (label = alias path after ``/eli/etat/leg/``)."""
    out: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        work, alias = row.get("work"), row.get("identifier")
        if work is None or alias is None:
            raise bad_data("sameAs row without ?work or ?identifier", "same_as")
        marker = "/eli/etat/leg/"
        idx = alias.find(marker)
        label = alias[idx + len(marker):].strip("/").replace("/", "-") if idx >= 0 else alias
        out.setdefault(work, []).append({"kind": "legilux_same_as", "identifier": alias, "label": label,
                                         "source_uri": alias})
    return out
