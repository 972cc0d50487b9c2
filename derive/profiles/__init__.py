"""Extraction profiles: immutable, versioned, pure ``bytes → ExtractionResult`` functions.

A profile id (``akn-lu/1``) names one frozen behaviour; a change to a profile's output is a
new id, never an edit. :data:`PROFILES` maps every runnable id to its function.
"""

from __future__ import annotations

from collections.abc import Callable

from derive.model import ExtractionResult

Profile = Callable[..., ExtractionResult]


def registry() -> dict[str, Profile]:
    """Every runnable profile id → its extraction function (imported lazily)."""
    from derive.profiles import akn_lu, fmx4_eu, html_eu, pdf_lu, pdf_memorial_lu, xhtml_eu

    return {
        akn_lu.PROFILE: akn_lu.extract,
        akn_lu.DOCUMENT_PROFILE: akn_lu.extract_document,
        fmx4_eu.PROFILE: fmx4_eu.extract,
        xhtml_eu.PROFILE: xhtml_eu.extract,
        html_eu.PROFILE: html_eu.extract,
        pdf_lu.PROFILE: pdf_lu.extract,
        pdf_memorial_lu.PROFILE: pdf_memorial_lu.extract,
    }
