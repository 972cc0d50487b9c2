"""JSON shapes of versions, expressions and provisions (pure functions over store values)."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from typing import Any

from legal.outcomes import Outcome, TextGap
from serve.core.mount import MountedIndex
from serve.core.store import Expression, Provision, Version, Work

TEXT_UNAVAILABLE_NOTE = ("The publisher record is held, but no safely derived provision text is available for it; "
                         "read the official text at source_uri.")
TEXT_WITHHELD_NOTE = "The publisher's text gate is not open for this corpus; read the official text at source_uri."


def last_day(end_exclusive: str | None) -> str | None:
    if end_exclusive is None:
        return None
    return (_dt.date.fromisoformat(end_exclusive) - _dt.timedelta(days=1)).isoformat()


def interval(version: Version) -> dict[str, Any]:
    """The publisher's bounds verbatim, and the normalised half-open view."""
    return {
        "valid_from": version.valid_from,
        "valid_to": version.valid_to,
        "valid_to_convention": version.valid_to_convention,
        "end_exclusive": version.end_exclusive,
        "last_day": None if version.interval_status == "inverted" else last_day(version.end_exclusive),
        "interval_status": version.interval_status,
    }


def version_doc(work: Work, version: Version, expression: Expression | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "work": work.work_id,
        "lex_id": version.lex_id,
        "version_key": version.version_key,
        "publisher_version_identifier": version.publisher_version_identifier,
        "document_type": version.document_type or work.document_type,
        **interval(version),
        "valid_time_source": version.valid_time_source,
        "in_force_status": version.in_force_status,
        "publication_date": version.publication_date,
        "withdrawn": version.withdrawn,
        "record_sha256": version.record_sha256,
        "title": work.title,
    }
    if expression is not None:
        out.update(expression_doc(expression))
        out["title"] = expression.title_short or expression.title or work.title
    return out


def expression_doc(expression: Expression) -> dict[str, Any]:
    return {
        "language": expression.language,
        "expression_title": expression.title,
        "source_uri": expression.source_uri or expression.text_url,
        "text_state": expression.text_state,
        "text_reason": expression.gap_reason,
        "extraction_profile": expression.profile,
        "evidence_sha256": expression.evidence_sha256,
        "evidence_file": expression.evidence_file,
        "provisions": expression.provision_count,
    }


def version_choice(work: Work, version: Version, expressions: Sequence[Expression]) -> dict[str, Any]:
    """A compact version entry for choice lists (ambiguity, timelines)."""
    return {
        "lex_id": version.lex_id,
        "version_key": version.version_key,
        "publisher_version_identifier": version.publisher_version_identifier,
        "document_type": version.document_type or work.document_type,
        **interval(version),
        "withdrawn": version.withdrawn,
        "languages": [e.language for e in expressions],
        "text_languages": [e.language for e in expressions if e.has_text],
        "title": next((e.title_short or e.title for e in expressions if e.title_short or e.title), work.title),
    }


def provision_doc(version: Version, provision: Provision, text: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "anchor": provision.anchor,
        "provision_id": f"{version.lex_id}#{provision.anchor}",
        "type": provision.type,
        "num": provision.num,
        "heading": provision.heading,
        "path": list(provision.path),
        "article_valid_from": provision.article_valid_from,
        "text_sha256": provision.text_sha256,
    }
    if text is not None:
        out["text"] = text
    return out


def text_outcome(index: MountedIndex, expression: Expression | None) -> tuple[Outcome, str] | None:
    """``None`` when the expression's text may be served, else the outcome and its reason."""
    if expression is None:
        return Outcome.TEXT_NOT_AVAILABLE, "no expression in the requested language"
    if expression.text_state == TextGap.TEXT_WITHHELD.value or (expression.has_text and not index.text_public):
        return Outcome.TEXT_WITHHELD, expression.gap_reason or TEXT_WITHHELD_NOTE
    if not expression.has_text:
        reason = expression.gap_reason or expression.text_reason or expression.text_state
        return Outcome.TEXT_NOT_AVAILABLE, reason
    return None


def choose_expression(expressions: Sequence[Expression], language: str | None,
                      primary: str | None) -> Expression | None:
    """The requested language only; otherwise the primary language, then any with text, then any."""
    if language is not None:
        return next((e for e in expressions if e.language == language), None)
    ranked = sorted(expressions, key=lambda e: (not e.has_text, e.language != primary, e.language))
    return ranked[0] if ranked else None
