"""The one error root of the project, with its families.

Every error the project raises on purpose is a :class:`LexError`. Each carries a stable
machine ``code`` (snake_case), a human message, and the ``subject`` it is about (a path, an
identifier, an evidence hash, a URL) so that a shell (CLI, HTTP, MCP, Dagster) can report it
without parsing prose. Shells catch ``LexError`` once, at their edge.
"""

from __future__ import annotations


class LexError(Exception):
    """Root of every error the project raises on purpose."""

    family = "lex"
    default_code = "lex_error"

    def __init__(self, message: str, *, code: str | None = None, subject: str | None = None) -> None:
        self.code = code or self.default_code
        self.subject = subject
        self.message = message
        super().__init__(f"{message} [{self.code}]" + (f" ({subject})" if subject else ""))

    def to_dict(self) -> dict[str, str]:
        out = {"family": self.family, "code": self.code, "message": self.message}
        if self.subject is not None:
            out["subject"] = self.subject
        return out


class IdentityError(LexError):
    """An identifier (publisher id, slug, version key, lex id, CELEX, ELI) is malformed."""

    family = "identity"
    default_code = "invalid_identifier"


class TemporalError(LexError):
    """A date or interval is malformed or inconsistent."""

    family = "temporal"
    default_code = "invalid_date"


class CanonicalError(LexError):
    """A value cannot be encoded as canonical JSON (e.g. a float, a lone surrogate)."""

    family = "canonical"
    default_code = "not_canonicalizable"


class IntegrityError(LexError):
    """Stored evidence or a record does not match its hash, identity or schema."""

    family = "integrity"
    default_code = "integrity_violation"


class CorpusError(LexError):
    """A corpus tree cannot be read, imported or written (bad input, bad layout)."""

    family = "corpus"
    default_code = "corpus_error"


class PublisherError(LexError):
    """A publisher answered badly, or an enumeration/fetch could not complete."""

    family = "publisher"
    default_code = "publisher_error"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        subject: str | None = None,
        retryable: bool = False,
    ) -> None:
        super().__init__(message, code=code, subject=subject)
        self.retryable = retryable

    def to_dict(self) -> dict[str, str]:
        out = super().to_dict()
        out["retryable"] = "true" if self.retryable else "false"
        return out


class DerivationError(LexError):
    """A body could not be turned into provisions safely."""

    family = "derivation"
    default_code = "derivation_error"


class IndexError_(LexError):
    """An index cannot be built, opened or verified."""

    family = "index"
    default_code = "index_error"


class ReleaseError(LexError):
    """Signing, verification, benchmark binding or promotion failed."""

    family = "release"
    default_code = "release_error"


class RequestError(LexError):
    """A caller's request (HTTP, MCP, CLI arguments, assistant plan) is invalid."""

    family = "request"
    default_code = "invalid_request"


class ConfigError(LexError):
    """Configuration is missing or inconsistent."""

    family = "config"
    default_code = "config_error"
