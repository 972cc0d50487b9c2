"""Resolve links out of provisions to works (model §6.9, extended to EU links).

- Legilux ELI (``/eli/etat/leg/loi/2006/07/31/n2/jo``, with or without host, ``//eli/…``,
  ``/etat/leg/…``): the path after ``etat/{leg,adm}``; a dated act
  (``<type>/<yyyy>/<mm>/<dd>/<n>``) keeps those five segments, other paths keep every
  segment but ``jo``/``consolide`` and language/format tails; joined with ``-``. Then the
  official ``owl:sameAs`` aliases (``legilux_same_as``: ``code-penal`` → ``loi-1879-06-18-n1``)
  canonicalise it, by exact slug or the longest alias that prefixes it followed by ``-``;
  then the longest held work slug that prefixes it.
- Legilux ELIs of EU acts (``/eli/reg_ue/2013/952/jo``) and EU ELIs
  (``http://data.europa.eu/eli/reg/2016/679/oj``) → the CELEX of the act.
- CELEX in EUR-Lex links (``uri=CELEX:32016R0679``, ``/resource/celex/32016R0679R%2802%29``);
  a consolidated CELEX (``02016R0679-20160504``) names its base act. ``uri=OJ:…`` and anything
  else stay unresolved (``None``), as does the placeholder ``???``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import unquote

from legal.errors import DerivationError

# Version of the citation resolver (href → work). Not part of the per-work cache key (cached rows
# keep citations unresolved) but of the shard and pipeline stage digests: a change here that
# resolves any link differently must bump it.
RESOLVER_VERSION = 1

LU = "lu-legilux"
EU = "eu-eurlex"
_CELEX_IN_URL = re.compile(r"(?:CELEX[:=]|/resource/celex/)([0-9A-Z][0-9A-Z()./_-]+?)(?=$|[&#?;]|:[A-Z]{2}:)", re.I)
_EU_ELI = re.compile(r"data\.europa\.eu/eli/([a-z_]+)/(\d{4})/(\d+)", re.I)
_LU_EU_ELI = re.compile(r"/eli/(reg|dir|dec)_ue/(\d{4})/(\d+)", re.I)
_EU_FORM = {"reg": "R", "dir": "L", "dec": "D"}
_LANG_TAIL = frozenset({"fr", "de", "en", "lb", "pdf", "xml", "html"})
_DATED = re.compile(r"^\d{4}$")


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
        if slug in self.aliases:
            return self.aliases[slug]
        best = max((a for a in self.aliases if slug.startswith(a + "-")), key=len, default=None)
        if best is not None:
            return self.aliases[best]
        held = max((h for h in self.held if h.startswith(f"{LU}:") and slug.startswith(h[len(LU) + 1:] + "-")),
                   key=len, default=None)
        return held


EMPTY = AliasTable()


def alias_slug(uri: str) -> str | None:
    """Slug of a ``legilux_same_as`` identifier (``…/eli/etat/leg/code/penal`` → ``code-penal``)."""
    return lu_eli_slug(uri)


def lu_eli_slug(href: str) -> str | None:
    """Work slug of a Legilux ELI path, or ``None`` when the href is not one."""
    path = href.split("?", 1)[0].split("#", 1)[0]
    idx = path.find("/eli/")
    rest = path[idx + len("/eli/"):] if idx >= 0 else (path.lstrip("/") if path.lstrip("/").startswith("etat/") else "")
    segments = [s for s in rest.split("/") if s]
    if len(segments) < 3 or segments[0] != "etat" or segments[1] not in ("leg", "adm"):
        return None
    segments = segments[2:]
    if len(segments) >= 5 and _DATED.match(segments[1]) and segments[2].isdigit() and segments[3].isdigit():
        segments = segments[:5]
    else:
        segments = [s for s in segments if s not in ("jo", "consolide")]
        while segments and segments[-1].lower() in _LANG_TAIL:
            segments.pop()
    slug = "-".join(segments).lower()
    for ch in ":?#&=":
        slug = slug.replace(ch, "_")
    return slug or None


def celex_work(celex: str) -> str | None:
    """Work id of a CELEX number; a consolidated CELEX names its base act."""
    value = unquote(celex).strip().upper()
    consolidated = re.match(r"^0(\d{4}[A-Z]\d{4})-\d{8}", value)
    if consolidated:
        value = "3" + consolidated.group(1)
    if not re.match(r"^[0-9CE][0-9A-Z()/._-]{3,60}$", value):
        return None
    return f"{EU}:{value.lower().replace('/', '-')}"


def resolve(href: str, table: AliasTable = EMPTY) -> str | None:
    """The work a link points to, or ``None`` when it cannot be resolved safely."""
    if not href or "???" in href:
        return None
    text = unquote(href)
    eu_eli = _EU_ELI.search(text) or _LU_EU_ELI.search(text)
    if eu_eli:
        form = _EU_FORM.get(eu_eli.group(1).split("_")[0].lower())
        return f"{EU}:3{eu_eli.group(2)}{form.lower()}{int(eu_eli.group(3)):04d}" if form else None
    celex = _CELEX_IN_URL.search(text)
    if celex:
        return celex_work(celex.group(1))
    slug = lu_eli_slug(text)
    if slug is None:
        return None
    return table.canonical(slug) or f"{LU}:{slug}"
