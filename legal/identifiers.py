"""The one identifier grammar: publisher URLs, ELI, CELEX and lex ids in text → work slugs.

Every other package asks this module; none keeps its own regular expressions for these forms
(see ``docs/identifiers.md`` and ADR 0007). All functions are pure and return *candidates*:
a slug is only an identity once a corpus or an index holds it.

- **Legilux ELI** (``http://data.legilux.public.lu/eli/etat/leg/loi/2020/06/04/a476/jo``, any
  host under ``legilux.public.lu`` or ``legilux.lu`` — the bodies link ``legilux.public.lu``,
  ``www.legilux.lu``, ``eli.legilux.lu`` — or a host-less ``/eli/etat/…`` path): the work is the path after ``etat/{leg,adm}``. A dated act
  (``<type>/<yyyy>/<mm>/<dd>/<n>``) is exactly those five segments — ``/jo``, ``/consolide/…``,
  ``/fr`` and article paths name manifestations or parts of that work, never another work.
  Other paths (``code/civil/20240910/fr``) lose their language/format and ``jo`` tails and
  everything from ``consolide``; their candidates are every prefix of two or more segments,
  longest first (``code-civil-20240910``, ``code-civil``). Joined with ``-``; ``: ? # & =`` → ``_``.
- **EU ELI** (``http://data.europa.eu/eli/reg/2016/679/oj``, ``eur-lex.europa.eu/eli/…``, and
  Legilux's ``/eli/reg_ue/2013/952/jo``) → the CELEX of the act (``reg*`` R, ``dir*`` L, ``dec*`` D).
- **CELEX** (``32016R0679``, corrigenda ``32016R0679R(02)``, treaties ``12012E/TXT``,
  consolidated ``02016R0679-20160504`` and ``02016R0679-20160504R(01)``): the work slug is the
  CELEX lower-cased with ``/`` → ``-``; a consolidated number names its base act (``32016r0679``).
- **lex ids** ``<publisher>:<slug>[:<version key>][#<anchor>]`` for any *registered* publisher.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from legal.errors import IdentityError

#: The built-in publishers whose identifier forms this grammar spells (facts: :mod:`legal.publishers`).
LEGILUX_ID = "lu-legilux"
EURLEX_ID = "eu-eurlex"
LU_DATA = "http://data.legilux.public.lu/"
LU_WEB = "https://legilux.public.lu/"
CELEX_RESOURCE = "http://publications.europa.eu/resource/celex/"

# --- Legilux ELI ---------------------------------------------------------------------------

_LU_HOST = re.compile(r"^https?://(?:[a-z0-9-]+\.)*legilux\.(?:public\.)?lu(?=/)", re.IGNORECASE)
_ANY_HOST = re.compile(r"^[a-z][a-z0-9+.-]*://[^/]*", re.IGNORECASE)
_LU_TAILS = frozenset({"fr", "de", "en", "lb", "jo", "pdf", "html", "xml"})
_YEAR = re.compile(r"^\d{4}$")
_TWO_DIGITS = re.compile(r"^\d{2}$")
_LU_SLUG_REPLACE = str.maketrans({":": "_", "?": "_", "#": "_", "&": "_", "=": "_"})


def _eli_path(url: str, hosts: re.Pattern[str]) -> str | None:
    """The path after ``/eli/`` of ``url`` when it has one of ``hosts`` or no host at all."""
    text = url.strip()
    host = hosts.match(text)
    if host:
        text = text[host.end():]
    elif _ANY_HOST.match(text):
        return None
    text = text.split("?", 1)[0].split("#", 1)[0]
    stripped = text.lstrip("/")
    if stripped.startswith("filestore/eli/"):  # Legilux's file store serves the same ELI paths
        stripped = stripped[len("filestore/"):]
    if stripped.startswith("eli/"):
        return stripped[len("eli/"):]
    if stripped.startswith("etat/"):
        return stripped
    return None


def lu_eli_segments(url: str) -> list[str] | None:
    """Segments after ``etat/{leg,adm}`` of a Legilux ELI URL or path, or ``None``."""
    path = _eli_path(url, _LU_HOST)
    if path is None:
        return None
    segments = [s for s in unquote(path).split("/") if s]
    if len(segments) < 3 or segments[0] != "etat" or segments[1] not in ("leg", "adm"):
        return None
    return segments[2:]


def _is_dated(segments: list[str]) -> bool:
    return (len(segments) >= 5 and bool(_YEAR.match(segments[1])) and bool(_TWO_DIGITS.match(segments[2]))
            and bool(_TWO_DIGITS.match(segments[3])))


def _lu_join(segments: list[str]) -> str:
    return "-".join(segments).translate(_LU_SLUG_REPLACE).lower()


def lu_slug_candidates(url: str) -> list[str]:
    """Work slugs a Legilux ELI may name, most specific first (``[]`` when it is not one).

    ``…/eli/etat/leg/loi/2020/06/04/a476/jo`` → ``loi-2020-06-04-a476``;
    ``…/eli/etat/leg/code/consommation/20240910/fr`` → ``code-consommation-20240910``,
    ``code-consommation``; ``…/loi/2011/04/08/n2/consolide/20240910`` → ``loi-2011-04-08-n2``.
    """
    segments = lu_eli_segments(url)
    if not segments:
        return []
    if _is_dated(segments):
        return [_lu_join(segments[:5])]
    if "consolide" in segments:
        segments = segments[: segments.index("consolide")]
    while segments and segments[-1].lower() in _LU_TAILS:
        segments.pop()
    segments = [s for s in segments if s.lower() != "jo"]
    if len(segments) == 1:
        return [_lu_join(segments)]
    out: list[str] = []
    for end in range(len(segments), 1, -1):
        slug = _lu_join(segments[:end])
        if slug not in out:
            out.append(slug)
    return out


def lu_eli_slug(url: str) -> str | None:
    """The most specific work slug of a Legilux ELI, or ``None``."""
    found = lu_slug_candidates(url)
    return found[0] if found else None


# --- EU ELI and CELEX ----------------------------------------------------------------------

_EU_HOST = re.compile(r"^https?://(?:data\.europa\.eu|(?:www\.)?eur-lex\.europa\.eu)(?=/)", re.IGNORECASE)
_EU_ELI_PATH = re.compile(r"^([a-z_]+)/(\d{4})/(\d+)(?:[/(]|$)", re.IGNORECASE)
_LU_EU_ELI_PATH = re.compile(r"^((?:reg|dir|dec)_ue)/(\d{4})/(\d+)(?:[/(]|$)", re.IGNORECASE)
_EU_HOST_ANYWHERE = re.compile(r"^https?://(?:[a-z0-9-]+\.)*(?:eur-lex|publications)\.europa\.eu/", re.IGNORECASE)
_EU_FORM = {"reg": "R", "dir": "L", "dec": "D"}

#: A CELEX number: sector, year, type, number, an optional corrigendum ``R(nn)``, and for a
#: consolidated text (sector 0) ``-YYYYMMDD`` with an optional corrigendum of its own.
CELEX_TOKEN = (r"[0-9CE]\d{4}[A-Z]{1,2}\d{1,4}(?:R\(\d{2}\))?(?:-\d{8}(?:R\(\d{2}\))?)?"
               r"|1\d{4}[A-Z]/TXT")
_CELEX_FULL = re.compile(rf"^(?:{CELEX_TOKEN})$", re.IGNORECASE)
_CELEX_LOOSE = re.compile(r"^[0-9CE][0-9A-Z()/._-]{3,60}$", re.IGNORECASE)
_CELEX_IN_TEXT = re.compile(rf"(?<![0-9A-Za-z])(?:celex[:\s]*)?({CELEX_TOKEN})(?![0-9A-Za-z(])", re.IGNORECASE)
_CELEX_MARKER = re.compile(rf"(?:celex[:=]|/resource/celex/)({CELEX_TOKEN})(?![0-9A-Za-z(])", re.IGNORECASE)
_CONSOLIDATED = re.compile(r"^0(\d{4}[A-Z]{1,2}\d{1,4})-\d{8}(?:R\(\d{2}\))?$", re.IGNORECASE)


def eu_eli_celex(url: str) -> str | None:
    """The CELEX of an EU ELI (``…/eli/reg/2016/679/oj`` → ``32016R0679``), also Legilux's
    ``/eli/reg_ue/…`` form; ``None`` for anything else (``/eli/treaty/…``)."""
    path = _eli_path(url, _EU_HOST)
    if path is None:
        lu_path = _eli_path(url, _LU_HOST)
        match = _LU_EU_ELI_PATH.match(lu_path) if lu_path is not None else None
    else:
        match = _EU_ELI_PATH.match(path)
    if not match:
        return None
    form = _EU_FORM.get(match.group(1).split("_")[0].lower())
    if form is None:
        return None
    return f"3{match.group(2)}{form}{int(match.group(3)):04d}"


def is_celex(text: str) -> bool:
    """Whether ``text`` is exactly one CELEX number of the grammar."""
    return bool(_CELEX_FULL.match(text.strip()))


def check_celex(celex: str) -> str:
    """``celex`` when it has the shape of a publisher CELEX number, else :class:`IdentityError`."""
    text = celex.strip()
    if not _CELEX_LOOSE.match(text):
        raise IdentityError(f"invalid CELEX number {celex!r}", code="invalid_celex", subject=celex)
    return text


def celex_to_slug(celex: str) -> str:
    """The EUR-Lex work slug of a CELEX number; consolidated numbers name their base act.

    ``32016R0679`` → ``32016r0679``; ``02016R0679-20160504`` and ``02016R0679-20160504R(01)``
    → ``32016r0679``; ``12012E/TXT`` → ``12012e-txt``; ``32016R0679R(02)`` → ``32016r0679r(02)``.
    """
    text = celex.strip()
    consolidated = _CONSOLIDATED.match(text)
    if consolidated:
        text = "3" + consolidated.group(1)
    return text.lower().replace("/", "-")


def celex_numbers(text: str) -> list[tuple[int, int, str]]:
    """CELEX numbers in free text as ``(start, end, celex)`` spans (``CELEX:`` prefix allowed)."""
    return [(m.start(), m.end(), m.group(1).upper()) for m in _CELEX_IN_TEXT.finditer(text)]


def celex_in_url(url: str) -> str | None:
    """The CELEX a URL carries after ``CELEX:``/``CELEX=``/``/resource/celex/`` (URL-decoded)."""
    match = _CELEX_MARKER.search(unquote(url))
    return match.group(1).upper() if match else None


def celex_of_uri(uri: str) -> str:
    """The CELEX number at the end of a Cellar ``resource/celex/<CELEX>`` URI."""
    marker = "/resource/celex/"
    idx = uri.find(marker)
    if idx < 0:
        raise IdentityError(f"not a CELEX resource URI: {uri!r}", code="invalid_celex", subject=uri)
    celex = uri[idx + len(marker):]
    if not _CELEX_LOOSE.match(celex):
        raise IdentityError(f"invalid CELEX in URI {uri!r}", code="invalid_celex", subject=uri)
    return celex


# --- Publisher URLs → (publisher, slug) ----------------------------------------------------


def url_candidates(url: str) -> list[tuple[str, str]]:
    """``(publisher id, slug)`` readings of a URL or ELI path, most specific first.

    Each registered publisher's :attr:`legal.publishers.IdentifierRules.url_slugs` is asked in
    registration order. The built-in rules never both answer: an EU ELI, even on a Legilux
    host (``/eli/reg_ue/…``), is EUR-Lex's.
    """
    from legal.publishers import registry

    out: list[tuple[str, str]] = []
    for facts in registry().all():
        out.extend((facts.id, slug) for slug in facts.identifiers.url_slugs(url))
    return out


# --- Per-publisher rules used by the built-in publishers -----------------------------------


def legilux_url_slugs(url: str) -> list[str]:
    return [] if eu_eli_celex(url) is not None else lu_slug_candidates(url)


def eurlex_url_slugs(url: str) -> list[str]:
    celex = eu_eli_celex(url) or celex_in_url(url)
    if celex is None and _EU_HOST_ANYWHERE.search(url):
        found = celex_numbers(unquote(url))
        celex = found[0][2] if found else None
    return [celex_to_slug(celex)] if celex else []


def legilux_work_slug(work_identifier: str) -> str:
    """Slug of a Legilux work from its ELI work URI (data, web or www host)."""
    segments = lu_eli_segments(work_identifier)
    slug = lu_eli_slug(work_identifier) if segments else None
    if not slug:
        raise IdentityError(f"not a Legilux ELI work URI: {work_identifier!r}", code="invalid_eli",
                            subject=work_identifier)
    return slug


def eurlex_work_slug(work_identifier: str) -> str:
    """Slug of an EUR-Lex work from its CELEX number or ``resource/celex/`` URI."""
    text = work_identifier.strip()
    celex = celex_of_uri(text) if "/resource/celex/" in text else check_celex(text)
    return celex_to_slug(celex)


def recover_legilux_identifier(record: Mapping[str, Any], subject: str) -> str:
    """The ``jolux:Consolidation`` URI of a ``lex-corpus/3`` Legilux record.

    From each expression's ``source_uri`` (else ``text.url``): drop a trailing ``/<language>``
    and rewrite ``https://legilux.public.lu/`` to ``http://data.legilux.public.lu/``. All
    expressions must agree; otherwise the identity cannot be recovered.
    """
    found: set[str] = set()
    expressions = record.get("expressions")
    for expr in expressions if isinstance(expressions, list) else []:
        if not isinstance(expr, Mapping):
            continue
        text = expr.get("text")
        uri = expr.get("source_uri") or (text.get("url") if isinstance(text, Mapping) else None)
        if not isinstance(uri, str) or not uri.startswith(LU_WEB + "eli/"):
            continue
        lang = expr.get("language")
        if isinstance(lang, str) and lang and uri.endswith("/" + lang):
            uri = uri[: -len(lang) - 1]
        found.add(LU_DATA + uri[len(LU_WEB):])
    if len(found) != 1:
        detail = "no official expression URI" if not found else f"conflicting URIs {sorted(found)}"
        raise IdentityError(f"cannot recover the publisher version identifier: {detail}",
                            code="unrecoverable_version_identifier", subject=subject)
    return found.pop()


def recover_eurlex_identifier(record: Mapping[str, Any], subject: str) -> str:
    """``http://publications.europa.eu/resource/celex/<raw.celex>`` of an EUR-Lex record."""
    raw = record.get("raw")
    celex = raw.get("celex") if isinstance(raw, Mapping) else None
    if not isinstance(celex, str) or not celex.strip():
        raise IdentityError("cannot recover the publisher version identifier: no raw.celex",
                            code="unrecoverable_version_identifier", subject=subject)
    return CELEX_RESOURCE + celex


# --- lex ids, version keys and slugs in free text ------------------------------------------

_PUBLISHER_TOKEN = r"[a-z]{2,3}-[a-z][a-z0-9]*"
_LEX_ID_IN_TEXT = re.compile(
    rf"(?<![\w-])({_PUBLISHER_TOKEN}):([a-z0-9](?:[a-z0-9_().-]*[a-z0-9)])?)"
    r"(?::(\d{4}-\d{2}-\d{2}--[0-9a-f]{64}))?(?:#([A-Za-z0-9][A-Za-z0-9_.-]*))?(?![\w(])",
    re.IGNORECASE,
)
VERSION_KEY_IN_TEXT = re.compile(r"(?<![\w-])\d{4}-\d{2}-\d{2}--[0-9a-f]{64}(?![\w-])")
LU_SLUG_IN_TEXT = re.compile(
    r"(?<![\w-])((?:[a-z]{1,12}-\d{4}-\d{2}-\d{2}-[a-z]{0,2}\d+)|(?:code|recueil)-[a-z][a-z_]*)(?![\w-])",
    re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class LexIdMention:
    """A lex id found in text: its span, publisher, slug, optional version key and anchor."""

    start: int
    end: int
    text: str
    publisher: str
    slug: str
    version_key: str | None
    anchor: str | None

    @property
    def work(self) -> str:
        return f"{self.publisher}:{self.slug}"


def lex_ids_in_text(text: str) -> list[LexIdMention]:
    """Lex ids of *registered* publishers in free text (``eu-eurlex:32016r0679#art_6``)."""
    from legal.publishers import registry

    known = registry()
    out: list[LexIdMention] = []
    for m in _LEX_ID_IN_TEXT.finditer(text):
        publisher = m.group(1).lower()
        if known.find(publisher) is None:
            continue
        out.append(LexIdMention(m.start(), m.end(), m.group(), publisher, m.group(2).lower(), m.group(3),
                                m.group(4)))
    return out


# --- Citation hrefs ------------------------------------------------------------------------

AliasLookup = Callable[[str], str | None]


def href_work(href: str, canonical: AliasLookup | None = None) -> str | None:
    """The work lex id a citation ``href`` names, or ``None`` when it cannot be resolved safely.

    ``canonical`` maps a Legilux slug to the work id its official alias names (derive's alias
    table); without one the slug stands.
    """
    if not href or "???" in href:
        return None
    found = url_candidates(href)
    if not found:
        return None
    publisher, slug = found[0]
    from legal.publishers import registry

    if registry().get(publisher).identifiers.aliases and canonical is not None:
        return canonical(slug) or f"{publisher}:{slug}"
    return f"{publisher}:{slug}"


# --- Identifiers in a reader's text (query parser, assistant) ------------------------------

URL_IN_TEXT = re.compile(r"https?://[^\s\"'<>]+", re.IGNORECASE)


def clean_url(url: str) -> str:
    """A URL found in prose without its trailing punctuation; a ``)`` stays when it closes a
    ``(`` of the URL itself (``…CELEX:32016R0679R(02)``)."""
    text = url.rstrip(".,;:")
    while text.endswith(")") and text.count(")") > text.count("("):
        text = text[:-1].rstrip(".,;:")
    return text


@dataclass(frozen=True)
class Identifier:
    """One identifier found in text, with the work slugs it may name (most specific first)."""

    kind: str  # lex_id | version_key | eli | url | celex | slug
    text: str
    publisher: str | None
    slugs: tuple[str, ...]
    version_key: str | None = None
    anchor: str | None = None

    @property
    def works(self) -> tuple[str, ...]:
        """``<publisher>:<slug>`` of every candidate (empty for a bare version key)."""
        return tuple(f"{self.publisher}:{s}" for s in self.slugs) if self.publisher else ()


def url_identifier(url: str) -> Identifier | None:
    """The identifier a publisher URL carries (ELI, or a EUR-Lex URL with a CELEX), else ``None``."""
    clean = clean_url(url)
    found = url_candidates(clean)
    if not found:
        return None
    publisher = found[0][0]
    kind = "eli" if lu_eli_segments(clean) is not None or eu_eli_celex(clean) is not None else "url"
    return Identifier(kind, clean, publisher, tuple(s for p, s in found if p == publisher))


def _free(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    return all(end <= s or start >= e for s, e in spans)


def scan_identifiers(text: str, spans: list[tuple[int, int]]) -> list[Identifier]:
    """Identifiers in ``text`` in a fixed order — URLs, lex ids, version keys, CELEX numbers,
    Legilux slugs — each claiming its span (appended to ``spans``) so that none is read twice."""
    out: list[Identifier] = []
    for m in URL_IN_TEXT.finditer(text):
        ident = url_identifier(m.group())
        spans.append(m.span())
        if ident:
            out.append(ident)
    for lex in lex_ids_in_text(text):
        if _free(spans, lex.start, lex.end):
            spans.append((lex.start, lex.end))
            out.append(Identifier("lex_id", lex.text, lex.publisher, (lex.slug,), lex.version_key, lex.anchor))
    for m in VERSION_KEY_IN_TEXT.finditer(text):
        if _free(spans, *m.span()):
            spans.append(m.span())
            out.append(Identifier("version_key", m.group(), None, (), m.group()))
    for start, end, celex in celex_numbers(text):
        if _free(spans, start, end):
            spans.append((start, end))
            out.append(Identifier("celex", text[start:end], EURLEX_ID, (celex_to_slug(celex),)))
    for m in LU_SLUG_IN_TEXT.finditer(text):
        if _free(spans, *m.span()):
            spans.append(m.span())
            out.append(Identifier("slug", m.group(), LEGILUX_ID, (m.group().lower(),)))
    return out
