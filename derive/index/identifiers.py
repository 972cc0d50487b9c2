"""Publisher identifiers found in text: ELI URLs, CELEX numbers, lex ids → work slugs.

Used at build time to resolve citation ``href`` values to cited works, and at query time to
recognise identifiers typed by a user. Every function is pure and returns candidates; the
caller decides which candidate is held (a slug is only an identity once the index holds it).
"""

from __future__ import annotations

import re
from urllib.parse import unquote

_LU_ELI = re.compile(
    r"^https?://(?:data\.|www\.)?legilux\.public\.lu/eli/etat/(?:leg|adm)/([^?#\s]+)", re.IGNORECASE
)
_EU_ELI = re.compile(
    r"^https?://(?:data\.europa\.eu|eur-lex\.europa\.eu)/eli/([a-z_]+)/(\d{4})/(\d+)(?:/|$)", re.IGNORECASE
)
_CELEX_IN_TEXT = re.compile(
    r"(?<![0-9A-Za-z])(?:celex[:\s]*)?"
    r"([0-9]\d{4}[A-Z]{1,2}\d{1,4}(?:R\(\d{2}\))?(?:-\d{8})?|1\d{4}[A-Z]/TXT)"
    r"(?![0-9A-Za-z])",
    re.IGNORECASE,
)
_LANG_TAIL = {"fr", "de", "en", "lb", "jo", "pdf", "html", "xml"}
_DATE8 = re.compile(r"^\d{8}$")
_LU_SLUG_REPLACE = str.maketrans({":": "_", "?": "_", "#": "_", "&": "_", "=": "_"})
_EU_ELI_TYPES = {
    "reg": "R", "reg_impl": "R", "reg_del": "R", "reg_ue": "R",
    "dir": "L", "dir_impl": "L", "dir_del": "L", "dir_ue": "L",
    "dec": "D", "dec_impl": "D", "dec_del": "D", "dec_ue": "D",
}


def lu_slug_candidates(url: str) -> list[str]:
    """Work slugs a Legilux ELI URL may name, most specific first.

    ``…/eli/etat/leg/loi/2020/06/04/a476/jo`` → ``loi-2020-06-04-a476``;
    ``…/eli/etat/leg/code/consommation/20240910/fr`` → ``code-consommation-20240910``,
    ``code-consommation``; ``…/loi/2011/04/08/n2/consolide/20240910`` → ``loi-2011-04-08-n2``.
    """
    match = _LU_ELI.match(url.strip())
    if not match:
        return []
    segments = [s for s in unquote(match.group(1)).split("/") if s]
    while segments and segments[-1].lower() in _LANG_TAIL:
        segments.pop()
    if "consolide" in segments:
        segments = segments[: segments.index("consolide")]
    out: list[str] = []
    for end in range(len(segments), 1, -1):
        slug = "-".join(segments[:end]).translate(_LU_SLUG_REPLACE).lower()
        if slug not in out:
            out.append(slug)
    return out


def eu_eli_celex(url: str) -> str | None:
    """The CELEX of an EU ELI URL (``…/eli/reg/2016/679/oj`` → ``32016R0679``)."""
    match = _EU_ELI.match(url.strip())
    if not match:
        return None
    kind = _EU_ELI_TYPES.get(match.group(1).lower())
    if kind is None:
        return None
    return f"3{match.group(2)}{kind}{int(match.group(3)):04d}"


def celex_to_slug(celex: str) -> str:
    """The EUR-Lex work slug of a CELEX number; consolidated numbers map to their base act.

    ``32016R0679`` → ``32016r0679``; ``02016R0679-20160504`` → ``32016r0679``;
    ``12012E/TXT`` → ``12012e-txt``.
    """
    text = celex.strip()
    if "-" in text and text[0] == "0" and _DATE8.match(text.rsplit("-", 1)[1]):
        text = "3" + text[1:].rsplit("-", 1)[0]
    return text.lower().replace("/", "-")


def celex_numbers(text: str) -> list[tuple[int, int, str]]:
    """CELEX numbers in free text as ``(start, end, celex)`` spans (``CELEX:`` prefix allowed)."""
    return [(m.start(), m.end(), m.group(1).upper()) for m in _CELEX_IN_TEXT.finditer(text)]


def href_slug_candidates(href: str) -> list[tuple[str, str]]:
    """``(publisher, slug)`` candidates named by a citation ``href``, most specific first."""
    lu = lu_slug_candidates(href)
    if lu:
        return [("lu-legilux", slug) for slug in lu]
    celex = eu_eli_celex(href)
    if celex:
        return [("eu-eurlex", celex_to_slug(celex))]
    if "eur-lex.europa.eu" in href.lower() or "publications.europa.eu" in href.lower():
        found = celex_numbers(unquote(href))
        if found:
            return [("eu-eurlex", celex_to_slug(found[0][2]))]
    return []
