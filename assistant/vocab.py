"""Closed vocabularies of the assistant: effects, result classes, outcomes, evidence kinds.

Everything that crosses a boundary of the assistant is named from one of these sets; a value
outside them is refused (fail closed). Legal statuses reported by the core are mapped to the
nine application legal outcomes by :func:`legal_outcome_for_status`.
"""

from __future__ import annotations

from enum import StrEnum

from legal.errors import IntegrityError


class Effect(StrEnum):
    """What an operation may render: one card slot each (``gap`` is the application slot)."""

    PROVISION = "provision"
    DIFF = "diff"
    HISTORY = "history"
    TIMELINE = "timeline"
    RANKING = "ranking"
    IN_FORCE = "in_force"
    CITED_BY = "cited_by"
    COVERAGE = "coverage"
    VERIFICATION = "verification"
    WORKSPACE = "workspace"
    GAP = "gap"


class ResultClass(StrEnum):
    """The kind of answer a legal operation gives."""

    SEARCH = "search"
    EXACT_TEXT = "exact_text"
    COMPARISON = "comparison"
    TIMELINE = "timeline"
    RANKING = "ranking"
    INVENTORY = "inventory"
    VERIFICATION = "verification"


class Disposition(StrEnum):
    """Application actions that are not legal operations."""

    CLARIFICATION = "clarification"
    GAP = "gap"
    LEGAL_BOUNDARY = "legal_boundary"


class LegalOutcome(StrEnum):
    """The nine closed legal outcomes of one planned operation."""

    NOT_EVALUATED = "not_evaluated"
    SUCCEEDED = "succeeded"
    SUCCEEDED_EMPTY = "succeeded_empty"
    NEEDS_CLARIFICATION = "needs_clarification"
    NOT_AVAILABLE = "not_available"
    NOT_COMPARABLE = "not_comparable"
    NOT_FOUND = "not_found"
    INVALID_REQUEST = "invalid_request"
    LEGAL_BOUNDARY = "legal_boundary"


class TransportOutcome(StrEnum):
    """The five closed transport outcomes; never mapped to a legal result."""

    COMPLETED = "completed"
    CANCELLED = "cancelled"
    TIMED_OUT = "timed_out"
    UPSTREAM_FAILED = "upstream_failed"
    OVER_QUOTA = "over_quota"


class EvidenceKind(StrEnum):
    """Seven evidence kinds; ``pointer`` (a search hit) can never support a claim."""

    POINTER = "pointer"
    LEGAL_TEXT = "legal_text"
    TIMELINE = "timeline"
    CHANGE = "change"
    RANKING = "ranking"
    COVERAGE = "coverage"
    PROVENANCE = "provenance"


CLAIM_KINDS = frozenset(k for k in EvidenceKind if k is not EvidenceKind.POINTER)


class ContextDisposition(StrEnum):
    """What a turn does to the conversation's subject context."""

    PRESERVE = "preserve"
    REPLACE = "replace"
    CLEAR = "clear"


# Core statuses (MCP names and the project's ``legal.outcomes.Outcome`` names) → outcome.
_STATUS_OUTCOME: dict[str, LegalOutcome] = {
    "ok": LegalOutcome.SUCCEEDED,
    "succeeded": LegalOutcome.SUCCEEDED,
    "no_result": LegalOutcome.SUCCEEDED_EMPTY,
    "empty": LegalOutcome.SUCCEEDED_EMPTY,
    "no_changes_in_period": LegalOutcome.SUCCEEDED_EMPTY,
    "profiles_differ": LegalOutcome.NOT_COMPARABLE,
    "not_comparable": LegalOutcome.NOT_COMPARABLE,
    "ambiguous_version": LegalOutcome.NEEDS_CLARIFICATION,
    "unknown_work": LegalOutcome.NOT_FOUND,
    "unknown_anchor": LegalOutcome.NOT_FOUND,
    "unknown_publisher": LegalOutcome.NOT_FOUND,
    "no_version_for_date": LegalOutcome.NOT_AVAILABLE,
    "not_yet_known": LegalOutcome.NOT_AVAILABLE,
    "anchor_not_in_version": LegalOutcome.NOT_AVAILABLE,
    "no_provision_history": LegalOutcome.NOT_AVAILABLE,
    "text_not_available": LegalOutcome.NOT_AVAILABLE,
    "text_withheld": LegalOutcome.NOT_AVAILABLE,
    "no_corpus_mounted": LegalOutcome.NOT_AVAILABLE,
    "retrieval_mode_unavailable": LegalOutcome.NOT_AVAILABLE,
    "invalid_request": LegalOutcome.INVALID_REQUEST,
}

# Dominance when one payload carries several publisher envelopes.
_DOMINANCE = (
    LegalOutcome.INVALID_REQUEST,
    LegalOutcome.NEEDS_CLARIFICATION,
    LegalOutcome.NOT_AVAILABLE,
    LegalOutcome.NOT_COMPARABLE,
    LegalOutcome.NOT_FOUND,
    LegalOutcome.SUCCEEDED,
    LegalOutcome.SUCCEEDED_EMPTY,
)

KNOWN_STATUSES = frozenset(_STATUS_OUTCOME)


class UnknownStatusError(IntegrityError):
    """The core reported a status outside the closed vocabulary (fail closed)."""

    default_code = "unknown_status"


def legal_outcome_for_status(status: str) -> LegalOutcome:
    """The legal outcome of one core status; an unknown status raises."""
    try:
        return _STATUS_OUTCOME[status]
    except KeyError:
        raise UnknownStatusError(f"core status {status!r} is not in the closed vocabulary",
                                 subject=status) from None


def dominant_outcome(statuses: list[str]) -> LegalOutcome:
    """The dominant outcome of several envelope statuses; no envelope at all is empty."""
    if not statuses:
        return LegalOutcome.SUCCEEDED_EMPTY
    outcomes = {legal_outcome_for_status(s) for s in statuses}
    return next(o for o in _DOMINANCE if o in outcomes)
