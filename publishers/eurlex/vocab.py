"""EUR-Lex / Cellar constants and the pure helpers that shape EU records.

CELEX-derived facts (reference model §1.3, §5.3): the slug, the document type fallback, the
hierarchy, the binding status, the official display title, the EUR-Lex expression URL.
"""

from __future__ import annotations

import datetime as _dt
import re
from urllib.parse import quote

from legal.identifiers import CELEX_RESOURCE

#: The Cellar CELEX resource prefix of publisher identifiers (the one grammar's, :mod:`legal.identifiers`).
CELEX_BASE = CELEX_RESOURCE
CDM = "http://publications.europa.eu/ontology/cdm#"
CELLAR_BASE = "http://publications.europa.eu/resource/cellar/"
LANGUAGE_BASE = "http://publications.europa.eu/resource/authority/language/"
RESOURCE_TYPE_BASE = "http://publications.europa.eu/resource/authority/resource-type/"
EUROVOC_GRAPH = "http://eurovoc.europa.eu/100141"
SHORT_TITLE_PREDICATE = CDM + "expression_title_short"

LIVE_ENDPOINT = "https://publications.europa.eu/webapi/rdf/sparql"
LIVE_CELLAR = "https://publications.europa.eu/"
OFFICIAL_CELLAR = "https://publications.europa.eu/"
EURLEX_TXT = "https://eur-lex.europa.eu/legal-content/{lang}/TXT/?uri=CELEX:{celex}"
#: Hosts a Cellar redirect may lead to (the publisher's own).
PUBLISHER_HOSTS = ("europa.eu", ".europa.eu")

#: Our language tags ↔ EU authority codes (Cellar content negotiation uses the 3-letter code).
LANGUAGES = {"en": "ENG", "fr": "FRA"}
AUTHORITY_LANGUAGES = {v: k for k, v in LANGUAGES.items()}

XHTML_ACCEPT = "application/xhtml+xml, text/html"
FORMEX_ACCEPT = "application/zip;mtype=fmx4"

_PRIMARY_CELEX = re.compile(r"^3\d{4}[RLD]")


def celex_uri(celex: str) -> str:
    """The Cellar CELEX resource URI (raw, not escaped: this is the publisher identifier)."""
    return CELEX_BASE + celex


def escaped(celex: str) -> str:
    return quote(celex, safe="")


def expression_url(celex: str, language: str) -> str:
    """The official EUR-Lex page of one expression (``source_uri`` of EU expressions)."""
    return EURLEX_TXT.format(lang=language.upper(), celex=escaped(celex))


def last_segment(uri: str) -> str:
    return uri.rstrip("/").rsplit("/", 1)[-1]


def document_type_from_celex(celex: str) -> str:
    """Fallback type when Cellar gives no resource type (reference model §1.1)."""
    if celex.startswith("1"):
        return "CHARTER" if "P" in celex[1:].upper() else "TREATY"
    match = _PRIMARY_CELEX.match(celex.upper())
    if match:
        return {"R": "REG", "L": "DIR", "D": "DEC"}[celex.upper()[5]]
    return "OTHER"


def legal_form_family(celex: str) -> str:
    """The admission family of a CELEX (REG/DIR/DEC/TREATY/CHARTER/OTHER)."""
    return document_type_from_celex(celex)


def hierarchy(celex: str) -> str:
    return "primary_eu_law" if celex.startswith("1") else "secondary_eu_law"


def binding_status(in_force: str | None) -> str:
    value = (in_force or "").strip().lower()
    if value in ("true", "1"):
        return "in_force"
    if value in ("false", "0"):
        return "not_in_force"
    return "unknown"


def official_display_title(title: str | None, fallback: str) -> str:
    """Text before " of the European Parliament", else the first 90 characters + "…"."""
    if not title:
        return fallback
    idx = title.find(" of the European Parliament")
    if idx > 0:
        return title[:idx]
    return title[:90] + "…" if len(title) > 90 else title


def roles(document_type: str, *, amends: bool, corrects: bool, consolidated: bool) -> tuple[str, ...]:
    """The closed set of document roles (sorted)."""
    out = set()
    upper = document_type.upper()
    if upper.endswith("_DEL"):
        out.add("delegated")
    if upper.endswith("_IMPL"):
        out.add("implementing")
    if "CORR" in upper or corrects:
        out.add("corrigendum")
    if amends:
        out.add("amending")
    if consolidated:
        out.add("consolidated")
    return tuple(sorted(out))


def day_before(day: _dt.date) -> _dt.date:
    return day - _dt.timedelta(days=1)


