"""Identifiers, parsed once into types that round-trip through ``str``.

Forms (see docs/identifiers.md):

- publisher id: any id registered in :mod:`legal.publishers` (``lu-legilux``, ``eu-eurlex``)
- work slug: the publisher's rule (:mod:`legal.identifiers`): LU from the ELI work URI (drop
  ``etat/leg`` or ``etat/adm``, join with ``-``, ``: ? # & =`` → ``_``); EU from the CELEX
  number (lower-cased, ``/`` → ``-``; a consolidated number names its base act)
- version key (v4): ``<valid_from>--<sha256 hex of the full publisher version identifier>``
- work lex id ``<publisher>:<slug>``; version lex id ``<publisher>:<slug>:<version key>``
- provision id ``<version lex id>#<anchor>``

Every parser raises :class:`legal.errors.IdentityError` naming the offending text.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from legal import identifiers as grammar
from legal.errors import IdentityError

if TYPE_CHECKING:
    from legal.publishers import PublisherFacts


class _PublisherType(type):
    """Iterating ``Publisher`` lists every registered publisher, in registration order."""

    def __iter__(cls) -> Iterator[Publisher]:
        from legal.publishers import registry

        return iter(tuple(Publisher.parse(f.id) for f in registry().all()))


class Publisher(str, metaclass=_PublisherType):
    """A registered publisher id (``lu-legilux``); its facts come from :mod:`legal.publishers`.

    Not a closed enum: any publisher registered there parses, anything else is
    ``IdentityError(code="unknown_publisher")``. Parsed values are interned, so ``is`` holds
    between two parses of one id. ``Publisher.LEGILUX`` / ``Publisher.EURLEX`` name the
    built-ins; nothing may branch on them to pick behaviour — ask :attr:`facts`.
    """

    __slots__ = ()
    LEGILUX: ClassVar[Publisher]
    EURLEX: ClassVar[Publisher]
    _interned: ClassVar[dict[str, Publisher]] = {}

    def __new__(cls, text: str) -> Publisher:
        from legal.publishers import registry

        if not isinstance(text, str):
            raise IdentityError(f"unknown publisher id {text!r}", code="unknown_publisher", subject=str(text))
        key = text.strip().lower()
        registry().get(key)
        held = cls._interned.get(key)
        if held is None:
            held = cls._interned.setdefault(key, str.__new__(cls, key))
        return held

    @classmethod
    def parse(cls, text: str) -> Publisher:
        return text if isinstance(text, Publisher) else cls(text)

    @property
    def value(self) -> str:
        return str.__str__(self)

    @property
    def facts(self) -> PublisherFacts:
        from legal.publishers import registry

        return registry().get(self.value)

    @property
    def jurisdiction(self) -> str:
        return self.facts.jurisdiction

    def __str__(self) -> str:
        return self.value

    def __repr__(self) -> str:
        return f"Publisher({self.value!r})"

    def __reduce__(self) -> tuple[type[Publisher], tuple[str]]:
        return (Publisher, (self.value,))


def _declare(publisher_id: str) -> Publisher:
    """A built-in constant, interned without touching the registry (no import-time registration)."""
    return Publisher._interned.setdefault(publisher_id, str.__new__(Publisher, publisher_id))


Publisher.LEGILUX = _declare("lu-legilux")
Publisher.EURLEX = _declare("eu-eurlex")


_SLUG = re.compile(r"^[a-z0-9][a-z0-9_().-]{0,199}$")
#: A provision anchor is the publisher's own id (``art_1er``, ``anx_I``, ``art_34_le_comité_des_élèves``,
#: ``pt_(a)``): any characters but whitespace, controls and the URL/fragment delimiters
#: ``# / ? % " < > \``, 1..512 of them. Spelled out (no ``\s``/``\w``) so that JSON Schema's
#: ECMA-262 engine and Python's read the published pattern alike.
ANCHOR_PATTERN = (r'^[^\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000'
                  r'\x00-\x08\x0e-\x1b\x7f#/?%"<>\\]{1,512}$')
_ANCHOR = re.compile(ANCHOR_PATTERN)
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def _check_slug(text: str) -> str:
    if not _SLUG.match(text) or ".." in text:
        raise IdentityError(f"invalid work slug {text!r}", code="invalid_slug", subject=text)
    return text


@dataclass(frozen=True, order=True, slots=True)
class WorkSlug:
    """A work's directory name and the last segment of its work lex id."""

    value: str

    def __post_init__(self) -> None:
        _check_slug(self.value)

    @classmethod
    def parse(cls, text: str) -> WorkSlug:
        return cls(text)

    @classmethod
    def from_eli(cls, work_uri: str) -> WorkSlug:
        """Slug of a Legilux work from its ELI (see :func:`legal.identifiers.legilux_work_slug`)."""
        return cls(grammar.legilux_work_slug(work_uri))

    @classmethod
    def from_celex(cls, celex: str) -> WorkSlug:
        """Slug of an EUR-Lex work from its CELEX number (a consolidated number names its base act)."""
        return cls(grammar.celex_to_slug(grammar.check_celex(celex)))

    @classmethod
    def of_work(cls, publisher: Publisher | str, work_identifier: str) -> WorkSlug:
        """Slug of a work from its publisher work identifier, by that publisher's rule."""
        return cls(Publisher.parse(publisher).facts.identifiers.work_slug(work_identifier))

    def __str__(self) -> str:
        return self.value


def parse_date(text: str, *, what: str = "date") -> _dt.date:
    """A strict ISO ``YYYY-MM-DD`` date (``20142209`` and ``2014-22-09`` are refused)."""
    if not isinstance(text, str) or len(text) != 10 or text[4] != "-" or text[7] != "-":
        raise IdentityError(f"invalid {what} {text!r} (expected YYYY-MM-DD)", code="invalid_date", subject=str(text))
    try:
        return _dt.date.fromisoformat(text)
    except ValueError:
        raise IdentityError(f"invalid {what} {text!r}", code="invalid_date", subject=text) from None


def parse_compact_date(text: str) -> _dt.date:
    """A publisher ``YYYYMMDD`` date (Legilux consolidation suffixes). ``20142209`` is refused."""
    if len(text) != 8 or not text.isdigit():
        raise IdentityError(f"invalid compact date {text!r}", code="invalid_date", subject=text)
    return parse_date(f"{text[:4]}-{text[4:6]}-{text[6:]}")


@dataclass(frozen=True, order=True, slots=True)
class VersionKey:
    """``<valid_from>--<sha256 hex of the publisher version identifier>`` (76 characters)."""

    valid_from: _dt.date
    pvid_sha256: str

    def __post_init__(self) -> None:
        if not _HEX64.match(self.pvid_sha256):
            raise IdentityError("version key hash must be 64 lower-case hex", code="invalid_version_key",
                                subject=self.pvid_sha256)

    @classmethod
    def create(cls, valid_from: _dt.date, publisher_version_identifier: str) -> VersionKey:
        if not publisher_version_identifier or not publisher_version_identifier.strip():
            raise IdentityError("empty publisher version identifier", code="invalid_version_identifier")
        digest = hashlib.sha256(publisher_version_identifier.encode("utf-8")).hexdigest()
        return cls(valid_from, digest)

    @classmethod
    def parse(cls, text: str) -> VersionKey:
        if len(text) != 76 or text[10:12] != "--":
            raise IdentityError(f"invalid version key {text!r}", code="invalid_version_key", subject=text)
        return cls(parse_date(text[:10], what="version key date"), text[12:])

    @staticmethod
    def looks_like(text: str) -> bool:
        return len(text) == 76 and text[10:12] == "--" and bool(_HEX64.match(text[12:]))

    def __str__(self) -> str:
        return f"{self.valid_from.isoformat()}--{self.pvid_sha256}"


@dataclass(frozen=True, order=True, slots=True)
class WorkId:
    """``<publisher>:<slug>``."""

    publisher: Publisher
    slug: WorkSlug

    @classmethod
    def parse(cls, text: str) -> WorkId:
        parts = text.split(":")
        if len(parts) != 2:
            raise IdentityError(f"invalid work lex id {text!r}", code="invalid_work_id", subject=text)
        return cls(Publisher.parse(parts[0]), WorkSlug(parts[1]))

    def version(self, key: VersionKey) -> VersionId:
        return VersionId(self, key)

    def __str__(self) -> str:
        return f"{self.publisher.value}:{self.slug.value}"


@dataclass(frozen=True, order=True, slots=True)
class VersionId:
    """``<publisher>:<slug>:<version key>``."""

    work: WorkId
    key: VersionKey

    @classmethod
    def parse(cls, text: str) -> VersionId:
        parts = text.split(":")
        if len(parts) != 3:
            raise IdentityError(f"invalid version lex id {text!r}", code="invalid_version_id", subject=text)
        return cls(WorkId(Publisher.parse(parts[0]), WorkSlug(parts[1])), VersionKey.parse(parts[2]))

    def provision(self, anchor: str) -> ProvisionId:
        return ProvisionId(self, anchor)

    def __str__(self) -> str:
        return f"{self.work}:{self.key}"


def check_anchor(anchor: str) -> str:
    if not _ANCHOR.match(anchor):
        raise IdentityError(f"invalid provision anchor {anchor!r}", code="invalid_anchor", subject=anchor)
    return anchor


@dataclass(frozen=True, order=True, slots=True)
class ProvisionId:
    """``<version lex id>#<anchor>``; the anchor is the publisher's own (``art_1er``, ``anx_I``)."""

    version: VersionId
    anchor: str

    def __post_init__(self) -> None:
        check_anchor(self.anchor)

    @classmethod
    def parse(cls, text: str) -> ProvisionId:
        head, sep, anchor = text.partition("#")
        if not sep:
            raise IdentityError(f"invalid provision id {text!r}", code="invalid_provision_id", subject=text)
        return cls(VersionId.parse(head), anchor)

    def __str__(self) -> str:
        return f"{self.version}#{self.anchor}"


celex_of_uri = grammar.celex_of_uri
