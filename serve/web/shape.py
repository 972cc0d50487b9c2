"""Reading the legal core's answers for the pages: statuses, documents, choices, permalinks.

The pages never invent legal facts: they only pick fields out of the enveloped answers and
build permalinks of the form ``/{publisher}/{work}/{date or version key}#{anchor}`` and
``/{publisher}/{work}/diff/{A}/{B}``.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from legal.errors import IdentityError
from legal.ids import Publisher, VersionKey, WorkSlug, parse_date

PUBLISHERS = tuple(p.value for p in Publisher)


@dataclass(frozen=True)
class Point:
    """A point on a work's timeline as written in a URL: a bare date or an exact version key."""

    date: str
    version_key: str | None = None

    @property
    def text(self) -> str:
        return self.version_key or self.date

    @property
    def is_exact(self) -> bool:
        return self.version_key is not None


def parse_point(text: str) -> Point | None:
    """A date (``YYYY-MM-DD``) or a v4 version key; anything else is ``None``."""
    if VersionKey.looks_like(text):
        try:
            key = VersionKey.parse(text)
        except IdentityError:
            return None
        return Point(key.valid_from.isoformat(), str(key))
    try:
        return Point(parse_date(text).isoformat())
    except IdentityError:
        return None


def valid_work(publisher: str, slug: str) -> bool:
    if publisher not in PUBLISHERS:
        return False
    try:
        WorkSlug(slug)
    except IdentityError:
        return False
    return True


def split_work(work: str) -> tuple[str, str]:
    """``publisher:slug`` (a version lex id's key is dropped)."""
    parts = work.split(":")
    return (parts[0], parts[1]) if len(parts) >= 2 else ("", work)


def work_url(publisher: str, slug: str) -> str:
    return f"/{quote(publisher)}/{quote(slug)}"


def point_url(publisher: str, slug: str, point: str, anchor: str | None = None) -> str:
    url = f"{work_url(publisher, slug)}/{quote(point)}"
    return f"{url}#{quote(anchor)}" if anchor else url


def diff_url(publisher: str, slug: str, a: str, b: str) -> str:
    return f"{work_url(publisher, slug)}/diff/{quote(a)}/{quote(b)}"


def provenance_url(publisher: str, slug: str, version_key: str) -> str:
    return f"{work_url(publisher, slug)}/{quote(version_key)}/provenance"


def first(answer: Any) -> Mapping[str, Any]:
    """The answer object (the first element when the core answered a list)."""
    if isinstance(answer, Mapping):
        return answer
    if isinstance(answer, Sequence) and answer and isinstance(answer[0], Mapping):
        return answer[0]
    return {}


def sections(answer: Any) -> list[Mapping[str, Any]]:
    """The publisher-scoped sections of an answer that fans out over the mounted publishers."""
    body = first(answer)
    nested = body.get("publishers")
    if isinstance(nested, list):
        return [item for item in nested if isinstance(item, Mapping)]
    if isinstance(answer, Sequence) and not isinstance(answer, (str, bytes)):
        return [item for item in answer if isinstance(item, Mapping)]
    return [body] if body else []


def outcome_of(answer: Any) -> str:
    """The closed outcome of an answer (``succeeded``, ``ambiguous_version``, ``no_corpus_mounted``…)."""
    body = first(answer)
    return str(body.get("outcome") or body.get("status") or "")


def mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def items(value: Any) -> list[Mapping[str, Any]]:
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def version_link(publisher: str, slug: str, doc: Mapping[str, Any]) -> dict[str, Any]:
    """One exact version as a link target (for choice lists and timelines)."""
    key = str(doc.get("version_key") or "")
    return {
        "version_key": key,
        "valid_from": doc.get("valid_from"),
        "valid_to": doc.get("valid_to"),
        "title": doc.get("title"),
        "language": doc.get("language"),
        "text_available": has_text(doc),
        "withdrawn": doc.get("withdrawn"),
        "url": point_url(publisher, slug, key) if key else None,
        "provenance_url": provenance_url(publisher, slug, key) if key else None,
    }


def has_text(doc: Mapping[str, Any]) -> bool:
    """Whether a version entry says the publisher's text is served for it."""
    if "text_available" in doc:
        return bool(doc["text_available"])
    if "text_languages" in doc:
        return bool(doc["text_languages"])
    return doc.get("text_state") == "provisions"


def choices_of(answer: Mapping[str, Any], *names: str) -> list[Mapping[str, Any]]:
    """The version choices an ``ambiguous_version`` answer offers."""
    for name in names:
        found = items(answer.get(name))
        if found:
            return found
    return []


def is_future(date: str, built_at: str | None) -> bool:
    try:
        return bool(built_at) and _dt.date.fromisoformat(date) > _dt.date.fromisoformat(str(built_at)[:10])
    except ValueError:
        return False
