"""The closed vocabularies. Anything not listed here is refused (fail closed)."""

from __future__ import annotations

from enum import StrEnum


class _Closed(StrEnum):
    @classmethod
    def parse(cls, text: str) -> _Closed:
        from legal.errors import IdentityError

        try:
            return cls(text)
        except ValueError:
            raise IdentityError(f"{text!r} is not a {cls.__name__}", code="not_in_vocabulary", subject=text) from None

    def __str__(self) -> str:
        return str(self.value)


class Outcome(_Closed):
    """Closed outcomes of the legal operations."""

    SUCCEEDED = "succeeded"
    EMPTY = "empty"
    NO_CHANGES_IN_PERIOD = "no_changes_in_period"
    NOT_COMPARABLE = "not_comparable"
    UNKNOWN_WORK = "unknown_work"
    UNKNOWN_ANCHOR = "unknown_anchor"
    UNKNOWN_PUBLISHER = "unknown_publisher"
    NO_VERSION_FOR_DATE = "no_version_for_date"
    NOT_YET_KNOWN = "not_yet_known"  # known_on before anything about the work was held
    AMBIGUOUS_VERSION = "ambiguous_version"
    ANCHOR_NOT_IN_VERSION = "anchor_not_in_version"
    NO_PROVISION_HISTORY = "no_provision_history"
    TEXT_NOT_AVAILABLE = "text_not_available"
    TEXT_WITHHELD = "text_withheld"
    NO_CORPUS_MOUNTED = "no_corpus_mounted"
    RETRIEVAL_MODE_UNAVAILABLE = "retrieval_mode_unavailable"
    INVALID_REQUEST = "invalid_request"


class RecordEvent(_Closed):
    """Append-only events of a version record (transaction time)."""

    FIRST_SIGHTING = "first_sighting"
    METADATA_REVISED = "metadata_revised"
    EXPRESSION_ADDED = "expression_added"
    INTERVAL_CLOSED = "interval_closed"
    VALIDITY_REVISED = "validity_revised"
    WITHDRAWN_FROM_SOURCE = "withdrawn_from_source"
    RESIGHTED = "resighted"


class FetchOutcome(_Closed):
    """Typed result of fetching one manifestation."""

    OK = "ok"
    PERMANENT_NOT_FOUND = "permanent_not_found"
    GONE = "gone"
    RETRY_EXHAUSTED = "retry_exhausted"
    PUBLISHER_METADATA_ONLY = "publisher_metadata_only"


class TextGap(_Closed):
    """Why a version/language has no derived text."""

    TEXT_NOT_AVAILABLE = "text_not_available"
    TEXT_WITHHELD = "text_withheld"
    UNSUPPORTED_MANIFESTATION = "unsupported_manifestation"


class TimelineSemantics(_Closed):
    """What a publisher's valid time means."""

    PUBLISHER_APPLICABILITY = "publisher_applicability"  # Legilux
    OFFICIAL_CONSOLIDATION_STATE = "official_consolidation_state"  # EUR-Lex


class ValidToConvention(_Closed):
    """How a publisher's ``valid_to`` relates to the next state's ``valid_from``."""

    EXCLUSIVE = "exclusive"  # Legilux: end == next start
    INCLUSIVE = "inclusive"  # EUR-Lex: end == next start - 1 day


class DiffElision(_Closed):
    """Why a ``diff`` answer left out part of a change (listed in its ``diff_truncated`` field).

    A bounded answer, never an outcome: the changes and the summary stay complete, only the
    word spans or the full text of the listed provisions are withheld.
    """

    WORD_BUDGET = "word_budget"  # the answer's budget of words to compare was spent
    PROVISION_TOO_LARGE = "provision_too_large"  # this one pair of wordings exceeds the per-pair bound
    TEXT_BUDGET = "text_budget"  # the answer's budget of returned characters was spent
