"""The one small protocol every publisher adapter implements.

An adapter has two operations:

- ``enumerate(scope) -> PublisherEnumeration``: the *complete* metadata plan of one run — the
  corpus tree's :class:`corpus_tree.model.Enumeration` (works, and version records without
  events or observations) plus the manifestations each expression offers (URL, format, how to
  ask for it). An enumeration that cannot be completed is never returned: the adapter raises
  :class:`legal.errors.PublisherError` (``incomplete_enumeration``, ``enumeration_*``) naming
  the query or record at fault.
- ``fetch(manifestation) -> FetchResult``: the bytes of one manifestation with a typed
  :class:`legal.outcomes.FetchOutcome` (``ok``, ``permanent_not_found``, ``gone``,
  ``retry_exhausted``, ``publisher_metadata_only``). Bad publisher bytes (empty, oversized,
  unreadable archive) raise :class:`legal.errors.PublisherError` with the reference's body
  issue code (``body_empty``, ``body_oversized``, ``body_parser_failure``).

Adapters take an injected :class:`publishers.http.HttpClient`; they never create clients at
import time. Ingest (:mod:`publishers.ingest`) is the only place their output meets the tree.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol, runtime_checkable

from corpus_tree.model import Enumeration, VersionInput
from legal.canonical import is_sha256_hex
from legal.errors import PublisherError
from legal.ids import Publisher
from legal.outcomes import FetchOutcome

#: The text reason recorded on an expression for each non-``ok`` fetch outcome.
OUTCOME_REASONS: Mapping[FetchOutcome, str] = {
    FetchOutcome.PERMANENT_NOT_FOUND: "body_not_found",
    FetchOutcome.GONE: "body_gone",
    FetchOutcome.RETRY_EXHAUSTED: "body_retry_exhausted",
    FetchOutcome.PUBLISHER_METADATA_ONLY: "publisher_metadata_only",
}
PUBLISHER_METADATA_ONLY = "publisher_metadata_only"

#: Media type the replay publisher uses for a body it names but does not hold (see
#: ``docs/publishers.md``); adapters accept it only when configured for replay.
HELD_ELSEWHERE_MEDIA_TYPE = "application/vnd.lex-replay.held-elsewhere+json"


@dataclass(frozen=True, slots=True)
class Manifestation:
    """One way to obtain the bytes of an expression.

    ``url`` is where the adapter asks (the live publisher or the replay); ``source_uri`` is the
    official URI recorded in the observation (for Formex it is only known after the redirect).
    ``file`` is the observation file name when the listing determines it (``fr.xml``,
    ``fr.pdf-memorial/<name>.pdf``); ``None`` when the body decides it (EU primary ``.xml`` vs
    ``.html``; Formex members).
    """

    slug: str
    publisher_version_identifier: str
    valid_from: _dt.date
    language: str
    url: str
    source_uri: str
    format: str | None = None
    file: str | None = None
    accept: str | None = None
    accept_language: str | None = None
    optional: bool = False
    #: revalidation of a held body: an HTTP-date sent as ``If-Modified-Since`` (a ``304`` answer
    #: means the publisher's bytes did not change since we retrieved them)
    if_modified_since: str | None = None

    def request_headers(self) -> dict[str, str]:
        """The negotiation and conditional headers of this request."""
        headers = {"Accept": self.accept or "*/*"}
        if self.accept_language:
            headers["Accept-Language"] = self.accept_language
        if self.if_modified_since:
            headers["If-Modified-Since"] = self.if_modified_since
        return headers

    @property
    def is_primary(self) -> bool:
        return self.format is None

    @property
    def subject(self) -> str:
        """How errors name this manifestation: ``<pvid> [<language>] <format|primary>``."""
        return f"{self.publisher_version_identifier} [{self.language}] {self.format or 'primary'}"


@dataclass(frozen=True, slots=True)
class FetchedMember:
    """One evidence file of a fetched manifestation (``body`` ``None``: held elsewhere)."""

    file: str
    sha256: str
    size: int
    source_uri: str
    format: str | None
    body: bytes | None

    @property
    def held_elsewhere(self) -> bool:
        return self.body is None


@dataclass(frozen=True, slots=True)
class FetchResult:
    """Typed result of :meth:`PublisherAdapter.fetch`.

    ``body`` is the response body as served (for Formex, the zip container, which is not
    evidence); ``members`` are the files to record. ``ok`` with no members means the optional
    manifestation does not exist (e.g. no Formex for that state).
    """

    outcome: FetchOutcome
    manifestation: Manifestation
    body: bytes | None = None
    members: tuple[FetchedMember, ...] = ()
    status: int | None = None
    final_url: str | None = None
    detail: str | None = None

    @property
    def reason(self) -> str | None:
        """The text reason to record when the outcome is not ``ok``."""
        return OUTCOME_REASONS.get(self.outcome)


@dataclass(frozen=True)
class PublisherEnumeration:
    """What :meth:`PublisherAdapter.enumerate` returns: the tree input plus manifestations."""

    enumeration: Enumeration
    manifestations: Sequence[Manifestation] = ()
    notes: Sequence[str] = field(default_factory=tuple)

    def manifestations_of(self, pvid: str, language: str) -> list[Manifestation]:
        return [m for m in self.manifestations
                if m.publisher_version_identifier == pvid and m.language == language]


@runtime_checkable
class PublisherAdapter(Protocol):
    """The protocol both publisher adapters implement."""

    publisher: Publisher

    def enumerate(self, scope: object | None = None) -> PublisherEnumeration:
        """The complete enumeration of ``scope`` (adapter-specific; ``None`` = default)."""
        ...

    def fetch(self, manifestation: Manifestation) -> FetchResult:
        """The bytes of one manifestation, with a typed outcome."""
        ...


#: What a :class:`ListingAdapter` hands over for each version as it lists it: the version and the
#: manifestations listed for it, in the listing's order.
ListedSink = Callable[[VersionInput, tuple[Manifestation, ...]], None]


@runtime_checkable
class ListingAdapter(Protocol):
    """An adapter that can hand its versions over as it lists them (issue #13, ADR 0126).

    ``enumerate_into(scope, sink)`` makes every publisher request :meth:`PublisherAdapter.enumerate`
    makes, in the same order, and calls ``sink`` with each version and its manifestations in the order
    of the whole enumeration's ``versions`` (each version's manifestations those ``enumerate`` lists for
    it, in their order), as soon as the version is built; it returns the enumeration's works and notes
    with no versions and no manifestations. An error (the adapter's, or one ``sink`` raises) propagates:
    the caller discards what ``sink`` received. ``enumerate(scope)`` is the same listing held whole."""

    publisher: Publisher

    def enumerate_into(self, scope: object | None, sink: ListedSink) -> PublisherEnumeration:
        """Enumerate ``scope``, each version handed to ``sink`` as it is built (see the class)."""
        ...


def collected(adapter: ListingAdapter, scope: object | None) -> PublisherEnumeration:
    """``adapter.enumerate_into(scope, …)``'s listing held whole: its works and notes with every version
    and manifestation it handed over, in their order (what :meth:`PublisherAdapter.enumerate` returns)."""
    versions: list[VersionInput] = []
    manifestations: list[Manifestation] = []

    def keep(version: VersionInput, listed: tuple[Manifestation, ...]) -> None:
        versions.append(version)
        manifestations.extend(listed)

    listing = adapter.enumerate_into(scope, keep)
    enumeration = replace(listing.enumeration, versions=tuple(versions))
    return replace(listing, enumeration=enumeration, manifestations=tuple(manifestations))


#: Equal metadata entries of one enumeration, shared (see :func:`canonical_metadata`).
SharedEntries = dict[tuple[tuple[str, str], ...], dict[str, str]]


def canonical_metadata(entries: Sequence[Mapping[str, str]], *, subject: str,
                       cap: int = 512, share: SharedEntries | None = None) -> tuple[dict[str, str], ...]:
    """``publisher_metadata`` in canonical form: deduplicated, sorted by (kind, identifier,
    language, label, source_uri), at most ``cap`` entries (more is a typed error).

    With ``share`` (one table per enumeration), an entry equal to one met before is that earlier
    entry: the works of a corpus repeat most of their discovery metadata (a EuroVoc descriptor or a
    directory code is the same entry, with the same labels, on every work it classifies), so an
    enumeration holds each distinct entry once however many works carry it. The entries are never
    mutated (the writer copies what it records), so sharing them changes no value."""
    unique = {key: _entry(key, e, share) for key, e in ((tuple(sorted(e.items())), e) for e in entries)}
    ordered = sorted(unique.values(), key=lambda m: (m["kind"], m["identifier"], m.get("language", ""),
                                                     m["label"], m["source_uri"]))
    if len(ordered) > cap:
        raise PublisherError(f"more than {cap} publisher metadata entries", code="incomplete_enumeration",
                             subject=subject)
    return tuple(ordered)


def _entry(key: tuple[tuple[str, str], ...], entry: Mapping[str, str],
           share: SharedEntries | None) -> dict[str, str]:
    """A copy of ``entry``, or the equal entry ``share`` already holds under ``key`` (copied there
    only the first time it is met)."""
    if share is None:
        return dict(entry)
    held = share.get(key)
    if held is None:
        held = share[key] = dict(entry)
    return held


def sha256_member(m: Manifestation, file: str, body: bytes, source_uri: str | None = None) -> FetchedMember:
    """A fetched evidence file with its hash and size."""
    return FetchedMember(file=file, sha256=hashlib.sha256(body).hexdigest(), size=len(body),
                         source_uri=source_uri or m.source_uri, format=m.format, body=body)


def held_elsewhere_members(m: Manifestation, body: bytes, *, source_uri: str | None = None) -> tuple[FetchedMember, ...]:
    """Members named by a replay held-elsewhere document (bytes not served; hash and size known).

    The document is ``{"held_elsewhere": [{"file": …, "sha256": …, "size": …?}, …]}``.
    """
    try:
        entries = json.loads(body)["held_elsewhere"]
        members = tuple(
            FetchedMember(file=str(e["file"]), sha256=str(e["sha256"]), size=int(e.get("size") or 0),
                          source_uri=source_uri or m.source_uri, format=m.format, body=None)
            for e in entries
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise PublisherError(f"malformed held-elsewhere document: {exc}", code="body_parser_failure",
                             subject=m.subject) from None
    if not members or not all(is_sha256_hex(x.sha256) and x.file for x in members):
        raise PublisherError("held-elsewhere document names no valid body", code="body_parser_failure",
                             subject=m.subject)
    return members


def status_result(m: Manifestation, status: int, final_url: str) -> FetchResult | None:
    """The typed result of a non-200 final status (``None`` for 200).

    404 → ``permanent_not_found``; 410 → ``gone``; 304 (a revalidation answered "not
    modified") → ``ok`` with no member and ``status`` 304; any other status is a terminal
    :class:`legal.errors.PublisherError` (``body_http_failure``) naming the manifestation.
    """
    if status == 200:
        return None
    if status == 304 and m.if_modified_since:
        return FetchResult(FetchOutcome.OK, m, status=304, final_url=final_url, detail="not_modified")
    if status == 404:
        return FetchResult(FetchOutcome.PERMANENT_NOT_FOUND, m, status=status, final_url=final_url)
    if status == 410:
        return FetchResult(FetchOutcome.GONE, m, status=status, final_url=final_url)
    raise PublisherError(f"publisher answered HTTP {status} for {final_url}", code="body_http_failure",
                         subject=m.subject)


def require_nonempty(m: Manifestation, body: bytes) -> bytes:
    """``body`` unless it is blank (a 2xx with nothing in it is ``body_empty``, never stored)."""
    if not body or body.isspace():  # as ``not body.strip()``, without a copy of the body
        raise PublisherError("publisher served an empty body", code="body_empty", subject=m.subject)
    return body
