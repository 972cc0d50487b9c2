"""The act of the year a plain-word question names (issue #15, ADR 0175).

A question often says an act's year beside its matter, in its own words and not as a citation: « régime des
indemnités des employés de l'État fixé en 1974 », « modification en 2024 de la nomenclature des établissements
classés », "1954 general revision of the salaries and pensions of municipal officials", « Gesetz von 1862 zur
Revision der Verordnung über das Notariat ». The keyword ranking weighs the year as one word among others (a title
holding the year of an act it cites says it as well), and the act of that year is listed below an act of another
year on the same matter: a later act that amends or replaces it, an earlier one it amends. The sibling step's year
rule (:func:`serve.core.siblings.year_first`) reads only a family by names, and reads no year after « en », "in"
or "of", which in a plain-word question name the act's year as often as a point in time.

Here the year is read in the question (:func:`asked_year`: exactly one year from 1800 to 2099, not one after a word
that makes it a point in time, :data:`TIME_BEFORE`, nor one of a date the query parser read), and an act's own year
is its Legilux slug's (``loi-1974-...``: :func:`slug_year`). The first act of the section listed of that year goes
first when the first act is not of it and the act's title says at least as many of the question's words as the
first act's (:func:`dated_first`): an act of the year whose title says less of the question is an act of another
matter the same year.

Pure: the search reads the titles (:func:`serve.core.ops.search.year_step`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TypeVar

K = TypeVar("K")

_YEAR = re.compile(r"\b(?:18|19|20)\d\d\b")
#: A year after one of these words (normalised) is a point in time the question asks about (« avant 1993 »,
#: « depuis 2020 », "as of 2015", « applicable au 1er janvier 2018 », "seit 2020"), not an act's year. « en »,
#: "in", "of", « pour » are left out: « fixé en 1974 », "the 1954 revision", « loi de 1999 » say the act's year.
TIME_BEFORE = re.compile(
    r"\b(?:as of|au|avant|before|apres|after|depuis|since|seit|vor|nach|bis|until|jusqu|version|stand|entre|between|"
    r"zwischen|valable|valid|gultig|applicable)\s+(?:(?:the|l|le|la|das|dem|der|des|du|de|a|en)\s+)?"
    r"(?:year\s+|annee\s+|jahr\s+)?((?:18|19|20)\d\d)\b")


def asked_year(normalized: str, dated: Iterable[str] = ()) -> str | None:
    """The one year (1800–2099) a normalised question names as an act's: none after a word of time
    (:data:`TIME_BEFORE`), none of a date the query parser read (``dated``: the dates' texts, normalised); ``None``
    when the question names none or two. Pure."""
    years = set(_YEAR.findall(normalized)) - set(TIME_BEFORE.findall(normalized))
    for text in dated:
        years -= set(_YEAR.findall(text))
    return years.pop() if len(years) == 1 else None


_SLUG_YEAR = re.compile(r"[a-z]+-((?:1[89]|20)\d\d)-\d\d-\d\d\b")


def slug_year(slug: str) -> str | None:
    """A Legilux slug's year (``loi-1974-12-20-n1`` → ``1974``; ``recueil-…`` and other undated slugs: ``None``).
    Pure."""
    found = _SLUG_YEAR.match(slug)
    return found.group(1) if found else None


def dated_first(year: str, listed: Sequence[K], year_of: Mapping[K, str | None], said: Mapping[K, int]) -> K | None:
    """The first of ``listed`` (the section's works in rank order, the first work first) whose year (``year_of``) is
    the question's ``year``, when the first work's is not and that act's title says at least as many of the
    question's words (``said``) as the first work's; ``None`` otherwise (the first act of the year saying fewer stops
    the search: it is an act of another matter). Pure."""
    if len(listed) < 2 or year_of.get(listed[0]) == year:
        return None
    found = next((w for w in listed[1:] if year_of.get(w) == year), None)
    if found is None or said.get(found, 0) < said.get(listed[0], 0):
        return None
    return found
