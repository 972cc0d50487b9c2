"""The catalogue of works: names (identity) and official metadata (weak discovery).

Kinds of ``work_names`` (exact-match identity, compared on :func:`~derive.index.text.normalize`):

- ``official_identifier``: the slug, the work lex id, the publisher work URI and, for EUR-Lex,
  the CELEX number;
- ``official_title``: every expression ``title``/``title_short`` of a held (non-withdrawn)
  version, plus the Legilux title with its consolidation banner removed;
- ``publisher_short_title``: each comma or semicolon segment of a publisher short title (``gdpr``, ``crr``;
  ``Law Enforcement Directive; LED``) that names the work itself (:func:`derive.index.aliases.own_names`);
- ``alias``: the slug form of each ``legilux_same_as`` URI (``code-penal``), used to resolve
  citations and identifiers.

``work_metadata`` keeps EuroVoc labels, directory codes and Legilux subjects. They are never
identity: a query that meets them yields a *weak* hit whose match reason names the metadata
row (kind, identifier, label).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from derive.index import actterms
from derive.index.identifiers import lu_slug_candidates
from derive.index.text import normalize

_BANNER = re.compile(r"^\s*version\s+\w+\s+applicable\s+au\s+\d{2}/\d{2}/\d{4}\s*:\s*(.+)$", re.IGNORECASE)
NAME_KINDS = ("official_identifier", "official_title", "publisher_short_title", "alias")
IDENTITY_METADATA = {"publisher_short_title", "legilux_same_as"}
MAX_SHORT_TITLE_SEGMENTS = 16


@dataclass(frozen=True, order=True)
class Name:
    kind: str
    normalized: str
    value: str
    language: str


@dataclass(frozen=True)
class MetadataRow:
    kind: str
    identifier: str
    label: str
    language: str
    normalized: str
    source_uri: str | None
    first_valid_from: str
    last_valid_from: str


def strip_banner(title: str) -> str | None:
    """``Version consolidée applicable au 01/01/2024 : Code civil`` → ``Code civil``."""
    match = _BANNER.match(title)
    return match.group(1).strip() if match else None


def short_title_segments(label: str) -> list[str]:
    segments = [s.strip() for s in re.split(r"[,;]", label)]
    return [s for s in segments if 0 < len(s) <= 256][:MAX_SHORT_TITLE_SEGMENTS]


def _name(kind: str, value: str, language: str | None) -> Name | None:
    normalized = normalize(value)
    if not normalized:
        return None
    return Name(kind=kind, normalized=normalized, value=value.strip(), language=language or "")


def identifier_names(work: Mapping[str, Any], publisher: str, celex: str | None) -> list[Name]:
    values = [str(work["slug"]), f"{publisher}:{work['slug']}", str(work["work_identifier"])]
    if celex:
        values.append(celex)
    return [n for n in (_name("official_identifier", v, None) for v in values) if n]


def title_names(expressions: Iterable[Mapping[str, Any]], work_title: str | None,
                title_language: str | None) -> list[Name]:
    out: list[Name | None] = []
    if work_title:
        out.append(_name("official_title", work_title, title_language))
    for expr in expressions:
        language = str(expr.get("language") or "")
        for key in ("title", "title_short"):
            value = expr.get(key)
            if isinstance(value, str) and value.strip():
                out.append(_name("official_title", value, language))
                bare = strip_banner(value)
                if bare:
                    out.append(_name("official_title", bare, language))
    return [n for n in out if n]


def alias_slug(uri: str) -> str | None:
    candidates = lu_slug_candidates(uri)
    return candidates[0] if candidates else None


def metadata_names(metadata: Iterable[Mapping[str, Any]]) -> list[Name]:
    out: list[Name | None] = []
    for item in metadata:
        kind = item.get("kind")
        if kind == "publisher_short_title":
            for segment in short_title_segments(str(item.get("label") or "")):
                out.append(_name("publisher_short_title", segment, item.get("language")))
        elif kind == "legilux_same_as":
            slug = alias_slug(str(item.get("identifier") or ""))
            if slug:
                out.append(Name("alias", slug, slug, ""))
    return [n for n in out if n]


def metadata_rows(dated: Sequence[tuple[str, Mapping[str, Any]]]) -> list[MetadataRow]:
    """Discovery metadata aggregated over versions: ``(valid_from, item)`` → first/last dates."""
    seen: dict[tuple[str, str, str, str], list[Any]] = {}
    for valid_from, item in dated:
        kind = str(item.get("kind") or "")
        if not kind or kind in IDENTITY_METADATA:
            continue
        label = str(item.get("label") or "").strip()
        identifier = str(item.get("identifier") or "").strip()
        if not label or not identifier:
            continue
        key = (kind, identifier, label, str(item.get("language") or ""))
        entry = seen.setdefault(key, [valid_from, valid_from, item.get("source_uri")])
        entry[0] = min(entry[0], valid_from)
        entry[1] = max(entry[1], valid_from)
    rows = [
        MetadataRow(kind=k[0], identifier=k[1], label=k[2], language=k[3], normalized=normalize(k[2]),
                    source_uri=v[2] if isinstance(v[2], str) else None, first_valid_from=v[0],
                    last_valid_from=v[1])
        for k, v in seen.items()
    ]
    return sorted(rows, key=lambda r: (r.kind, r.identifier, r.label, r.language))


def dedupe(names: Iterable[Name]) -> list[Name]:
    return sorted(set(names))


def fts_columns(names: Sequence[Name], metadata: Sequence[MetadataRow]) -> tuple[str, str, str, str, str]:
    """``work_fts`` column values: identifiers, titles, short titles, aliases, metadata labels (the
    publisher's: the act terms, kind :data:`derive.index.actterms.KIND`, are never in ``work_fts``, so the
    values a work's rows were inserted with and those an incremental build deletes them with agree)."""

    def join(kind: str) -> str:
        return "\n".join(sorted({n.value for n in names if n.kind == kind}))

    labels = "\n".join(sorted({m.label for m in metadata if m.kind != actterms.KIND}))
    return join("official_identifier"), join("official_title"), join("publisher_short_title"), join("alias"), labels
