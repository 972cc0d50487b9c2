"""Legilux constants: JOLux vocabulary, hosts, languages, and the official URL rewrites.

Official URIs recorded in the tree always use the robots-permitted public host
``https://legilux.public.lu/`` (reference D44): expression pages ``…/eli/…/fr`` and filestore
files ``…/filestore/…``. The data host ``data.legilux.public.lu`` is used only for SPARQL.
"""

from __future__ import annotations

import re

from legal.errors import PublisherError

JOLUX = "http://data.legilux.public.lu/resource/ontology/jolux#"
AUTHORITY = "http://data.legilux.public.lu/resource/authority/"
USER_FORMAT_XML = AUTHORITY + "user-format/xml"
USER_FORMAT_PDF = AUTHORITY + "user-format/pdf"
LANGUAGE_BASE = AUTHORITY + "language/"
SUBJECT_SCHEME_BASE = AUTHORITY
GENERIC_SUBJECT_SCHEME = AUTHORITY + "legal-subject"
EU_COUNTRY_SCHEME = "http://publications.europa.eu/resource/authority/country"

LIVE_ENDPOINT = "https://data.legilux.public.lu/sparqlendpoint"
PUBLIC_BASE = "https://legilux.public.lu/"
PUBLIC_FILESTORE = PUBLIC_BASE + "filestore/"

#: JOLux language authority codes → our language tags.
LANGUAGES = {"FRA": "fr", "DEU": "de", "ENG": "en", "LTZ": "lb"}
#: Subject scheme (last path segment) → publisher_metadata kind suffix.
SUBJECT_SCHEMES = {
    "legal-subject-theme": "theme",
    "legal-subject-organisation": "organisation",
    "legal-subject-place": "place",
    "legal-subject-legal-resource": "legal_resource",
    "legal-subject-country": "country",
}
#: Document types whose PDFs are thematic shelves (tens of MB), never fetched as text.
PDF_SKIPPED_TYPES = frozenset({"RECUEIL", "CODE_RECUEIL"})

_DATA_HOST = re.compile(r"^https?://data\.legilux\.public\.lu/")
_ANY_HOST_FILESTORE = re.compile(r"^https?://(data\.)?legilux\.public\.lu/filestore/")


def last_segment(uri: str) -> str:
    """The last non-empty path segment of a URI (``…/resource-type/LOI`` → ``LOI``)."""
    return uri.rstrip("/").rsplit("/", 1)[-1]


def public_uri(uri: str) -> str:
    """A data-host URI on the public host (``http://data.legilux…/eli/x`` → ``https://legilux…/eli/x``)."""
    return _DATA_HOST.sub(PUBLIC_BASE, uri)


def official_file_uri(file_uri: str, *, subject: str) -> str:
    """A filestore URL on the public host; anything else is refused as bad publisher data."""
    if not _ANY_HOST_FILESTORE.match(file_uri):
        raise PublisherError(f"manifestation file is not on the Legilux filestore: {file_uri}",
                             code="enumeration_parser_failure", subject=subject)
    return _ANY_HOST_FILESTORE.sub(PUBLIC_FILESTORE, file_uri)


def language_of(uri: str | None, *, subject: str) -> str:
    """Our language tag for a JOLux language URI (missing → ``fr``; unknown → typed error)."""
    if uri is None:
        return "fr"
    code = last_segment(uri).upper()
    if code not in LANGUAGES:
        raise PublisherError(f"unknown expression language {uri!r}", code="unknown_language", subject=subject)
    return LANGUAGES[code]
