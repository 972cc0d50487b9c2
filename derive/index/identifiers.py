"""Publisher identifiers found in text, for the index: re-exported from :mod:`legal.identifiers`.

The grammar lives in ``legal`` (one copy, see ``docs/identifiers.md``); this module only keeps
the names the index build and the serving side already import.
"""

from __future__ import annotations

from legal.identifiers import (
    celex_numbers,
    celex_to_slug,
    eu_eli_celex,
    lu_slug_candidates,
    url_candidates,
)

__all__ = ["celex_numbers", "celex_to_slug", "eu_eli_celex", "href_slug_candidates", "lu_slug_candidates"]


def href_slug_candidates(href: str) -> list[tuple[str, str]]:
    """``(publisher, slug)`` candidates named by a citation ``href``, most specific first."""
    return url_candidates(href)
