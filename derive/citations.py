"""Resolve links out of provisions to works (model §6.9, extended to EU links).

The identifier grammar is :mod:`legal.identifiers` (``href_work``): Legilux ELIs (with or
without host, ``/jo``, ``consolide`` and language tails), Legilux ELIs of EU acts
(``/eli/reg_ue/2013/952/jo``), EU ELIs and CELEX in EUR-Lex links (a consolidated CELEX names
its base act); ``uri=OJ:…``, other hosts and the placeholder ``???`` stay unresolved (``None``).
This module adds what only derivation knows: the official ``owl:sameAs`` aliases
(``legilux_same_as``: ``code-penal`` → ``loi-1879-06-18-n1``) and the held works, which
canonicalise a Legilux slug by exact alias, the longest alias that prefixes it followed by
``-``, then the longest held work slug that prefixes it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import unquote

from legal import identifiers
from legal.errors import DerivationError
from legal.publishers import EURLEX, LEGILUX

# Version of the citation resolver (href → work). Not part of the per-work cache key (cached rows
# keep citations unresolved) but of the shard and pipeline stage digests: a change here that
# resolves any link differently must bump it.
RESOLVER_VERSION = 2

LU = LEGILUX.id
EU = EURLEX.id


@dataclass(frozen=True)
class AliasTable:
    """Official alias slug → work id (``code-penal`` → ``lu-legilux:loi-1879-06-18-n1``)."""

    aliases: Mapping[str, str] = field(default_factory=dict)
    held: frozenset[str] = frozenset()

    @classmethod
    def build(cls, pairs: Iterable[tuple[str, str]], held: Iterable[str] = ()) -> AliasTable:
        """From ``(alias slug, work id)`` pairs; one alias naming two works is an error."""
        table: dict[str, str] = {}
        for alias, work in pairs:
            if table.get(alias, work) != work:
                raise DerivationError(f"alias {alias!r} names both {table[alias]} and {work}",
                                      code="alias_collision", subject=alias)
            table[alias] = work
        return cls(table, frozenset(held))

    def canonical(self, slug: str) -> str | None:
        """The exact alias, else the longest alias that prefixes ``slug`` followed by ``-``, else
        the longest held Legilux work slug that does. The candidates are the prefixes of ``slug``
        cut before each ``-``, tried longest first (looked up, not searched for)."""
        if slug in self.aliases:
            return self.aliases[slug]
        cuts = [i for i in range(len(slug) - 1, -1, -1) if slug[i] == "-"]
        for i in cuts:
            if slug[:i] in self.aliases:
                return self.aliases[slug[:i]]
        for i in cuts:
            work = f"{LU}:{slug[:i]}"
            if work in self.held:
                return work
        return None


EMPTY = AliasTable()


def alias_slug(uri: str) -> str | None:
    """Slug of a ``legilux_same_as`` identifier (``…/eli/etat/leg/code/penal`` → ``code-penal``)."""
    return lu_eli_slug(uri)


def lu_eli_slug(href: str) -> str | None:
    """Work slug of a Legilux ELI path, or ``None`` when the href is not one."""
    return identifiers.lu_eli_slug(href)


def celex_work(celex: str) -> str | None:
    """Work id of a CELEX number; a consolidated CELEX names its base act."""
    value = unquote(celex).strip()
    if not identifiers.is_celex(value):
        return None
    return f"{EU}:{identifiers.celex_to_slug(value)}"


def resolve(href: str, table: AliasTable = EMPTY) -> str | None:
    """The work a link points to, or ``None`` when it cannot be resolved safely."""
    return identifiers.href_work(href, table.canonical)
