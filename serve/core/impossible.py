"""Citations no act can bear (issue #15, neg35; docs/search.md "A citation no act can bear"). Pure:
reads the question's words only; the corpus test (the year the indexes were built) is
:func:`serve.core.ops.search.impossible_citation_not_held`.

A question citing an act by a date no calendar holds (« loi du 31 février 2010 », « loi du 32 mars
2001 », "Gesetz vom 29. Februar 2011" — 2011 is no leap year) or by a number of a year still to come
(« Règlement (UE) 2031/999 », "Verordnung (EU) Nr. 4321/2099", ``CELEX 32031R0999``) cites an act that
does not exist: no held act is it, and the acts whose texts hold its other words are not the act asked
for. The shapes:

- a date, day then month (« 31 février 2010 », "29. Februar 2011", "30th of February 2016") or, in
  English, month then day ("February 30, 2016"), with French, English or German month names, whose day
  is not in that month of that year (day 0, day 32, 31 April, 29 February of a common year), in a
  question holding a word for an act (:data:`ACT_WORDS`): a date alone ("31 avril") may be a typo of
  anything else;
- an EU act number ``A/B`` of which no part can be a year up to the indexes' build year: a part of
  four digits is a year when it is 1950 or later, one of two digits is a year of the old numbering
  (« 95/46 »), three digits are never a year; a part is a year *to come* when it is of four digits,
  1950 or later and after the build year. ``2031/999`` and ``4321/2099`` are such numbers;
  ``2031/2001`` (number 2031 of 2001) and ``2019/9999`` (a number too high, perhaps, but of a past
  year: the corpus cannot tell) are not;
- a CELEX number of a sector-3 act (``3YYYY[LRD]NNNN``) whose year is after the build year.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass

from derive.index.query import MONTH_NUMBERS as MONTHS
from derive.index.text import normalize

#: Words for an act or a citation's form (normalised; FR, EN, DE): a date no calendar holds is a
#: citation only beside one of them.
ACT_WORDS = frozenset({
    "loi", "lois", "reglement", "reglements", "arrete", "arretes", "decret", "ordonnance", "directive",
    "decision", "code", "rgd", "agd", "law", "laws", "act", "regulation", "regulations", "decree", "order",
    "statute", "gesetz", "gesetzes", "verordnung", "richtlinie", "beschluss", "erlass", "grossherzogliche",
    "grossherzoglichen",
})
_DAY = r"(\d{1,2}|1er)(?:st|nd|rd|th|er)?"
_MONTH = "(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + ")"
_YEAR = r"((?:1[89]|20)\d\d)"
#: « 31 février 2010 », "29 februar 2011", "30th of february 2016" (normalised: no dots or commas).
_DAY_MONTH = re.compile(rf"\b{_DAY} (?:of )?{_MONTH} {_YEAR}\b")
#: "february 30 2016" (English order).
_MONTH_DAY = re.compile(rf"\b{_MONTH} {_DAY} {_YEAR}\b")
#: An EU act number as the user writes it (``2031/999``, ``4321/2099``, ``95/46/EC``).
_NUMBER = re.compile(r"(?<![\w/])(\d{1,4})/(\d{1,4})(?:/[A-Za-z]{2,4})?(?![\w/])")
#: A CELEX number of a sector-3 act (``32031R0999``).
_CELEX = re.compile(r"(?<![\w])3(\d{4})[LRD]\d{4}(?![\w])", re.IGNORECASE)
#: The first year of a four-digit part read as a year (older acts are numbered by two digits).
FIRST_YEAR = 1950


@dataclass(frozen=True)
class ImpossibleCitation:
    """What the question cites that no act can bear: ``kind`` (``date`` or ``number``) and the text."""
    kind: str
    text: str


def _impossible_day(day: str, month: int, year: int) -> bool:
    number = 1 if day == "1er" else int(day)
    return not 1 <= number <= calendar.monthrange(year, month)[1]


def impossible_date(query: str) -> str | None:
    """The first date the question cites beside an act word that no calendar holds, normalised."""
    text = normalize(query)
    if not ACT_WORDS & set(text.split()):
        return None
    for m in _DAY_MONTH.finditer(text):
        if _impossible_day(m.group(1), MONTHS[m.group(2)], int(m.group(3))):
            return m.group()
    for m in _MONTH_DAY.finditer(text):
        if _impossible_day(m.group(2), MONTHS[m.group(1)], int(m.group(3))):
            return m.group()
    return None


def _year_part(part: str, last_year: int) -> str:
    """``past`` (may be a year up to ``last_year``), ``future`` (a year after it) or ``none``."""
    if len(part) == 2:
        return "past"
    if len(part) == 4 and int(part) >= FIRST_YEAR:
        return "past" if int(part) <= last_year else "future"
    return "none"


def future_number(query: str, last_year: int) -> str | None:
    """The first act number or CELEX the question cites whose year can only be after ``last_year``."""
    for m in _NUMBER.finditer(query):
        parts = [_year_part(m.group(1), last_year), _year_part(m.group(2), last_year)]
        if "future" in parts and "past" not in parts:
            return m.group()
    for m in _CELEX.finditer(query):
        if int(m.group(1)) > last_year:
            return m.group()
    return None


def impossible_citation(query: str, last_year: int) -> ImpossibleCitation | None:
    """A citation of the question no act can bear (see the module docstring), or ``None``."""
    date = impossible_date(query)
    if date is not None:
        return ImpossibleCitation("date", date)
    number = future_number(query, last_year)
    return ImpossibleCitation("number", number) if number is not None else None
