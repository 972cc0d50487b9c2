"""The publisher registry: each publisher's facts, declared once.

A publisher is known to the project only through its :class:`PublisherFacts` — id,
jurisdiction, ``valid_to`` convention, timeline semantics, display names, derivation profile
ids and identifier rules. Code never branches on *which* publisher it holds; it asks the
registry for the fact. An id nobody registered is refused with
``IdentityError(code="unknown_publisher")`` — never treated as EUR-Lex (or anything) by default.

The two built-in publishers (:data:`LEGILUX`, :data:`EURLEX`) are plain constants; they enter
the registry on its first use (:func:`registry`), in that order, so importing this module has
no side effect. A new publisher calls :func:`register` (see ``docs/adding-a-publisher.md``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from legal import identifiers as grammar
from legal.errors import IdentityError
from legal.outcomes import TimelineSemantics, ValidToConvention

RecoverIdentifier = Callable[[Mapping[str, Any], str], str]


def _no_recovery(record: Mapping[str, Any], subject: str) -> str:
    raise IdentityError("cannot recover the publisher version identifier: this publisher has no recovery rule",
                        code="unrecoverable_version_identifier", subject=subject)


def _no_urls(url: str) -> list[str]:
    return []


@dataclass(frozen=True, slots=True)
class IdentifierRules:
    """How a publisher's own identifiers become work slugs (functions of :mod:`legal.identifiers`).

    - ``work_slug``: publisher work identifier (ELI work URI, CELEX URI) → slug;
    - ``url_slugs``: any URL or ELI path → candidate slugs, most specific first (``[]``: not ours);
    - ``recover_version_identifier``: a ``lex-corpus/3`` record without
      ``publisher_version_identifier`` → that identifier (or ``unrecoverable_version_identifier``);
    - ``aliases``: whether official alias slugs (``code-penal``) canonicalise citation targets.
    """

    work_slug: Callable[[str], str]
    url_slugs: Callable[[str], list[str]] = _no_urls
    recover_version_identifier: RecoverIdentifier = _no_recovery
    aliases: bool = False


@dataclass(frozen=True, slots=True)
class PublisherFacts:
    """Everything the project knows about one publisher that is not code in its own folder."""

    id: str  # ``<jurisdiction>-<publisher>`` lower-case (``lu-legilux``)
    jurisdiction: str  # ``LU``, ``EU``
    valid_to_convention: ValidToConvention
    timeline_semantics: TimelineSemantics
    name: str  # display name (web pages)
    authority: str  # publishing authority (index stamp default when the manifest names none)
    identifiers: IdentifierRules
    #: extraction profile families (``derive.profiles``; the version is the profile module's own)
    #: this publisher's bodies may be derived with
    profiles: tuple[str, ...] = ()
    #: words that name this publisher's jurisdiction in a reader's question (assistant scope)
    scope_words: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        parts = self.id.split("-")
        if self.id != self.id.lower() or len(parts) != 2 or any(not p.isalnum() for p in parts):
            raise IdentityError(f"publisher id must be '<jur>-<pub>' lower-case: {self.id!r}",
                                code="invalid_publisher_id", subject=self.id)
        if parts[0].upper() != self.jurisdiction:
            raise IdentityError(f"publisher id {self.id!r} does not start with its jurisdiction {self.jurisdiction!r}",
                                code="invalid_publisher_id", subject=self.id)


LEGILUX = PublisherFacts(
    id="lu-legilux",
    jurisdiction="LU",
    valid_to_convention=ValidToConvention.EXCLUSIVE,
    timeline_semantics=TimelineSemantics.PUBLISHER_APPLICABILITY,
    name="Legilux (Luxembourg)",
    authority="Service central de législation (Legilux)",
    identifiers=IdentifierRules(work_slug=grammar.legilux_work_slug, url_slugs=grammar.legilux_url_slugs,
                                recover_version_identifier=grammar.recover_legilux_identifier, aliases=True),
    profiles=("akn-lu", "akn-lu-document", "pdf-lu", "pdf-memorial-lu"),
    scope_words=("luxembourg", "luxembourgish", "luxembourgeois", "luxembourgeoises", "lu", "legilux"),
)

EURLEX = PublisherFacts(
    id="eu-eurlex",
    jurisdiction="EU",
    valid_to_convention=ValidToConvention.INCLUSIVE,
    timeline_semantics=TimelineSemantics.OFFICIAL_CONSOLIDATION_STATE,
    name="EUR-Lex (European Union)",
    authority="Publications Office of the EU (EUR-Lex / Cellar)",
    identifiers=IdentifierRules(work_slug=grammar.eurlex_work_slug, url_slugs=grammar.eurlex_url_slugs,
                                recover_version_identifier=grammar.recover_eurlex_identifier),
    profiles=("fmx4-eu", "xhtml-eu", "html-eu-tolerant"),
    scope_words=("eu", "european", "europeen", "europeennes", "ue", "eur lex", "eurlex"),
)

BUILT_IN: tuple[PublisherFacts, ...] = (LEGILUX, EURLEX)


@dataclass
class Registry:
    """Publisher id → facts, in registration order."""

    _facts: dict[str, PublisherFacts] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def register(self, facts: PublisherFacts) -> PublisherFacts:
        """Add ``facts``; registering the same facts again is a no-op, different facts are refused."""
        with self._lock:
            held = self._facts.get(facts.id)
            if held is not None and held != facts:
                raise IdentityError(f"publisher {facts.id!r} is already registered with other facts",
                                    code="publisher_already_registered", subject=facts.id)
            self._facts[facts.id] = facts
        return facts

    def unregister(self, publisher_id: str) -> None:
        """Remove a publisher (tests of a toy publisher); built-ins cannot be removed."""
        if publisher_id in {f.id for f in BUILT_IN}:
            raise IdentityError(f"built-in publisher {publisher_id!r} cannot be unregistered",
                                code="publisher_built_in", subject=publisher_id)
        with self._lock:
            self._facts.pop(publisher_id, None)

    def find(self, publisher_id: str) -> PublisherFacts | None:
        return self._facts.get(str(publisher_id).strip().lower())

    def get(self, publisher_id: str) -> PublisherFacts:
        """The facts of ``publisher_id`` (case-insensitive), or ``unknown_publisher``."""
        found = self.find(publisher_id) if isinstance(publisher_id, str) else None
        if found is None:
            raise IdentityError(f"unknown publisher id {publisher_id!r}", code="unknown_publisher",
                                subject=str(publisher_id))
        return found

    def all(self) -> tuple[PublisherFacts, ...]:
        return tuple(self._facts.values())

    def ids(self) -> tuple[str, ...]:
        return tuple(self._facts)

    def __iter__(self) -> Iterator[PublisherFacts]:
        return iter(self.all())


_REGISTRY: Registry | None = None
_INIT = threading.Lock()


def registry() -> Registry:
    """The process registry; the built-in publishers are registered on first use."""
    global _REGISTRY
    if _REGISTRY is None:
        with _INIT:
            if _REGISTRY is None:
                fresh = Registry()
                for facts in BUILT_IN:
                    fresh.register(facts)
                _REGISTRY = fresh
    return _REGISTRY


def register(facts: PublisherFacts) -> PublisherFacts:
    return registry().register(facts)


def get(publisher_id: str) -> PublisherFacts:
    return registry().get(publisher_id)


def all() -> tuple[PublisherFacts, ...]:
    return registry().all()


class FactView(Mapping[str, str]):
    """A live read-only ``publisher id → one fact`` mapping over the registry (for templates)."""

    def __init__(self, fact: Callable[[PublisherFacts], str]) -> None:
        self._fact = fact

    def __getitem__(self, publisher_id: str) -> str:
        found = registry().find(publisher_id) if isinstance(publisher_id, str) else None
        if found is None:
            raise KeyError(publisher_id)
        return self._fact(found)

    def __iter__(self) -> Iterator[str]:
        return iter(registry().ids())

    def __len__(self) -> int:
        return len(registry().ids())


#: ``publisher id → display name`` and ``publisher id → timeline semantics`` for every registered publisher.
DISPLAY_NAMES: Mapping[str, str] = FactView(lambda f: f.name)
TIMELINE_SEMANTICS: Mapping[str, str] = FactView(lambda f: f.timeline_semantics.value)
