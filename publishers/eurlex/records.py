"""Pure mapping of Cellar SPARQL rows to typed tree inputs for one EU work (no network).

Version construction (reference model §5.3):

- consolidated states sorted by (date, CELEX); each state's ``valid_to`` is the day before
  the next *distinct later* date (same-date siblings skipped); the last state is open;
- the original official expression (identifier = the work URI, date = the work's document
  date) is inserted first when there is no consolidation (``include_unamended``) or when it
  is strictly earlier than the first one; Lex never manufactures a consolidation;
- expressions for the scope languages present, titles in the same language only (a state
  without its own title borrows the base work's title *in that language*, never another);
  ``title_short`` is the official display title; ``source_uri`` the EUR-Lex page.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from corpus_tree.model import ExpressionInput, VersionInput, WorkInput
from legal.errors import IdentityError, PublisherError
from legal.ids import WorkSlug, parse_date
from publishers.eurlex import vocab
from publishers.http import Row
from publishers.protocol import SharedEntries, canonical_metadata


def bad_data(message: str, subject: str) -> PublisherError:
    return PublisherError(message, code="enumeration_parser_failure", subject=subject)


def _date(value: str | None, what: str, subject: str) -> _dt.date | None:
    if value is None:
        return None
    text = value.strip()
    if len(text) > 10 and text[10] in "TZ+":
        text = text[:10]  # xsd:dateTime or a date with a timezone: the calendar day is the date
    try:
        return parse_date(text, what=what)
    except IdentityError:
        raise bad_data(f"{what} {value!r} is not a YYYY-MM-DD date", subject) from None


def _single(rows: Iterable[Row], name: str, subject: str) -> str | None:
    values = {row[name] for row in rows if name in row}
    if len(values) > 1:
        raise bad_data(f"conflicting values for {name}: {sorted(values)}", subject)
    return next(iter(values), None)


def _language(uri: str, subject: str) -> str:
    code = vocab.last_segment(uri).upper()
    if code not in vocab.AUTHORITY_LANGUAGES:
        raise PublisherError(f"unknown expression language {uri!r}", code="unknown_language", subject=subject)
    return vocab.AUTHORITY_LANGUAGES[code]


@dataclass
class WorkMeta:
    """What Cellar says about a base work."""

    celex: str
    date: _dt.date
    in_force: str | None
    document_type: str
    languages: tuple[str, ...] = ()
    titles: dict[str, str] = field(default_factory=dict)
    short_titles: dict[str, str] = field(default_factory=dict)
    amends: bool = False
    corrects: bool = False

    @property
    def uri(self) -> str:
        return vocab.celex_uri(self.celex)


@dataclass
class State:
    """One dated state: a consolidation, or the original official expression."""

    celex: str
    date: _dt.date
    consolidated: bool
    languages: tuple[str, ...]
    titles: dict[str, str] = field(default_factory=dict)

    @property
    def identifier(self) -> str:
        return vocab.celex_uri(self.celex)


def work_meta(celex: str, rows: Sequence[Row], roles: Iterable[str]) -> WorkMeta:
    """The base work's metadata from its ``work.rq`` rows and ``roles.rq`` flags."""
    subject = vocab.celex_uri(celex)
    if not rows:
        raise PublisherError("Cellar returned no metadata for the work", code="publisher_metadata_unavailable",
                             subject=subject)
    date = _date(_single(rows, "date", subject), "work_date_document", subject) or _date(
        _single(rows, "legacyDate", subject), "date_creation_legacy", subject)
    if date is None:
        raise bad_data("work has neither work_date_document nor date_creation_legacy", subject)
    rtype = _single(rows, "type", subject)
    meta = WorkMeta(celex=celex, date=date, in_force=_single(rows, "inForce", subject),
                    document_type=vocab.last_segment(rtype) if rtype else vocab.document_type_from_celex(celex))
    languages = []
    for lang_uri, lang_rows in _group(rows, "lang").items():
        language = _language(lang_uri, subject)
        languages.append(language)
        title = _single(lang_rows, "title", f"{subject} [{language}]")
        short = _single(lang_rows, "titleShort", f"{subject} [{language}]")
        if title is not None:
            meta.titles[language] = title
        if short is not None and short.strip():
            meta.short_titles[language] = short
    meta.languages = tuple(sorted(set(languages)))
    flags = set(roles)
    meta.amends, meta.corrects = "amends" in flags, "corrects" in flags
    return meta


def _group(rows: Iterable[Row], name: str) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = {}
    for row in rows:
        if name in row:
            out.setdefault(row[name], []).append(row)
    return dict(sorted(out.items()))


def consolidated_states(rows: Sequence[Row]) -> list[State]:
    """Consolidated states from ``consolidations.rq`` rows, sorted by (date, CELEX)."""
    states = []
    for celex, group in _group(rows, "celex").items():
        subject = vocab.celex_uri(celex)
        date = _date(_single(group, "date", subject), "act_consolidated_date", subject)
        if date is None:
            raise bad_data("consolidated act has no act_consolidated_date", subject)
        languages, titles = [], {}
        for lang_uri, lang_rows in _group(group, "lang").items():
            language = _language(lang_uri, subject)
            languages.append(language)
            title = _single(lang_rows, "title", f"{subject} [{language}]")
            if title is not None:
                titles[language] = title
        states.append(State(celex, date, True, tuple(sorted(set(languages))), titles))
    return sorted(states, key=lambda s: (s.date, s.celex))


def include_original(original: _dt.date, consolidations: Sequence[_dt.date]) -> bool:
    """The reference ``ShouldIncludeOriginalState``: no consolidation, or strictly earlier."""
    return not consolidations or original < min(consolidations)


def states_of(base: WorkMeta, consolidations: Sequence[State], *, include_unamended: bool = True,
              include_original_state: bool = True) -> list[State]:
    states = list(consolidations)
    dates = [s.date for s in consolidations]
    if include_original_state and include_original(base.date, dates) and (dates or include_unamended):
        states.insert(0, State(base.celex, base.date, False, base.languages, dict(base.titles)))
    return states


def valid_to_of(states: Sequence[State]) -> list[_dt.date | None]:
    """Inclusive ends: the day before the next distinct later date; the last state open."""
    dates = sorted({s.date for s in states})
    out: list[_dt.date | None] = []
    for s in states:
        later = [d for d in dates if d > s.date]
        out.append(vocab.day_before(later[0]) if later else None)
    return out


def versions(base: WorkMeta, states: Sequence[State], languages: Sequence[str],
             metadata: Sequence[Mapping[str, str]], share: SharedEntries | None = None) -> list[VersionInput]:
    """The version inputs of one work (one ``publisher_metadata`` tuple for all of them; with
    ``share``, its entries are those of the enumeration's other works when equal)."""
    slug = WorkSlug.from_celex(base.celex).value
    entries = canonical_metadata([*metadata, *short_title_metadata(base)], subject=base.uri, share=share)
    out = []
    for state, valid_to in zip(states, valid_to_of(states), strict=True):
        out.append(VersionInput(
            slug=slug, publisher_version_identifier=state.identifier, work_identifier=base.uri,
            valid_from=state.date, valid_to=valid_to, document_type=base.document_type,
            in_force_status=base.in_force, publication_date=state.date,
            expressions=tuple(_expression(state, base, lang) for lang in languages if lang in state.languages),
            relations=({"type": "consolidates", "target": base.uri},) if state.consolidated else (),
            raw=raw_of(base, state), publisher_metadata=entries,
            document_roles=vocab.roles(base.document_type, amends=base.amends, corrects=base.corrects,
                                       consolidated=state.consolidated),
        ))
    return out


def _expression(state: State, base: WorkMeta, language: str) -> ExpressionInput:
    title = state.titles.get(language) or base.titles.get(language)
    return ExpressionInput(language=language, source_uri=vocab.expression_url(state.celex, language),
                           title=title, title_short=vocab.official_display_title(title, state.celex))


def raw_of(base: WorkMeta, state: State) -> dict[str, str]:
    return {
        "celex": state.celex,
        "legal_form": base.document_type,
        "hierarchy": vocab.hierarchy(base.celex),
        "binding_status": vocab.binding_status(base.in_force),
        "consolidation_status": "published" if state.consolidated else "original_official_expression",
    }


def short_title_metadata(base: WorkMeta) -> list[dict[str, str]]:
    """``publisher_short_title`` entries: the raw comma list of ``cdm:expression_title_short``."""
    out = []
    for language, label in sorted(base.short_titles.items()):
        segments = label.split(",")
        if not 1 <= len(segments) <= 16 or any(len(s.strip()) > 256 for s in segments):
            raise bad_data(f"short title list out of bounds ({len(segments)} segments)", base.uri)
        out.append({"kind": "publisher_short_title", "identifier": vocab.SHORT_TITLE_PREDICATE,
                    "language": language, "label": label,
                    "source_uri": vocab.expression_url(base.celex, language)})
    return out


def metadata_entries(rows: Iterable[Row], subject: str) -> list[dict[str, str]]:
    """Directory and EuroVoc entries from ``metadata.rq`` rows."""
    out = []
    for row in rows:
        try:
            out.append({"kind": row["kind"], "identifier": row["id"], "language": row["labelLang"],
                        "label": row["label"], "source_uri": row["id"]})
        except KeyError as exc:
            raise bad_data(f"metadata row without ?{exc.args[0]}", subject) from None
    return out


def work_input(base: WorkMeta, built: Sequence[VersionInput]) -> WorkInput:
    """The work record: display title from the base work (EN, else FR), the last state's page."""
    hint_source = base.titles.get("en") or base.titles.get("fr")
    title = vocab.official_display_title(hint_source, base.celex)
    matching = [lang for lang, t in sorted(base.titles.items())
                if title in (t, vocab.official_display_title(t, base.celex))]
    last = built[-1] if built else None
    source = last.expressions[0].source_uri if last and last.expressions else None
    return WorkInput(slug=WorkSlug.from_celex(base.celex).value, work_identifier=base.uri,
                     document_type=base.document_type, title=title,
                     title_language=matching[0] if len(matching) == 1 else None, source_uri=source)
