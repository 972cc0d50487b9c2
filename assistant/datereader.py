"""The multilingual date reader: every date the reader's own words state, with its span.

A small hand-written grammar (ADR 0012) over the accent-folded turn — folding keeps every
character position, so each mention carries the exact span of the reader's words:

- days: ISO ``2020-01-01``; numeric ``01/01/2020``, ``1.1.2020``; written FR/EN/DE forms with
  ordinals (``1er janvier 2020``, ``1. Januar 2020``, ``January 1st, 2020``, ``1 Jan 2020``);
- months (``March 2019``, ``mars 2019``, ``März 2019``) and bare years, both windows;
- relative expressions resolved from the request date only: ``today``/``aujourd'hui``/``heute``,
  ``yesterday``, ``last year``/``l'année dernière``/``letztes Jahr``, ``this year``, ``last
  month``, ``last week``, ``N years ago``/``il y a N ans``/``vor N Jahren``, ``the last N
  years``, and ``N years earlier/later`` anchored on the previous stated day;
- ``since X``/``depuis X``/``seit X`` turns X into a window ending on the request date.

A date inside an identifier (``loi-2017-03-01-n901``, a version key, ``2016/679``) is no
mention at all; a date that cites an act (``loi du 12 mars 2004``, ``Regulation (EU)
2016/679 of 27 April 2016``, ``Gesetz vom …``) is a *citation*, never an instant. An
impossible day (``2020-02-30``) is an ``invalid`` mention, which the assistant answers with a
clarification. Nothing here reads a clock: ``today`` is always passed in.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Kind = Literal["day", "month", "year", "window", "invalid", "unanchored"]
Role = Literal["instant", "citation"]

MONTH_WORDS: dict[str, int] = {}
for _month_number, _names in enumerate((
    "janvier january januar janner jan janv",
    "fevrier february februar feb fev fevr",
    "mars march marz maerz mar",
    "avril april apr avr",
    "mai may",
    "juin june juni jun",
    "juillet july juli jul juil",
    "aout august aug",
    "septembre september sep sept",
    "octobre october oktober oct okt",
    "novembre november nov",
    "decembre december dezember dec dez",
), start=1):
    for _name in _names.split():
        MONTH_WORDS[_name] = _month_number

_MONTH = r"(?P<month>" + "|".join(sorted(MONTH_WORDS, key=len, reverse=True)) + r")\.?"
_ORD = r"(?:er|re|eme|st|nd|rd|th|\.)?"
_NOT_IDENT_L = r"(?<![\w/.:@#-])"
_NOT_IDENT_R = r"(?![\w/@-]|\.\d)"
_YEAR = r"(?P<year>\d{4})"

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("iso", re.compile(_NOT_IDENT_L + r"(?P<year>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})" + _NOT_IDENT_R)),
    ("numeric", re.compile(_NOT_IDENT_L + r"(?P<d>\d{1,2})(?P<sep>[/.-])(?P<m>\d{1,2})(?P=sep)"
                           r"(?P<year>\d{4})" + _NOT_IDENT_R)),
    ("dmy", re.compile(r"(?<![\w/])(?P<d>\d{1,2})" + _ORD + r"\s*(?:de\s+|of\s+)?" + _MONTH
                       + r",?\s+" + _YEAR + r"(?![\w/])")),
    ("mdy", re.compile(r"(?<![\w/])" + _MONTH + r"\s+(?P<d>\d{1,2})" + _ORD + r",?\s+" + _YEAR
                       + r"(?![\w/])")),
    ("my", re.compile(r"(?<![\w/])" + _MONTH + r"\s+(?:de\s+|of\s+)?" + _YEAR + r"(?![\w/])")),
    ("year", re.compile(_NOT_IDENT_L + r"(?P<year>(?:1[89]|20)\d{2})(?![\w/]|-\w|\.\d)")),
)

_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "a": 1, "un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4,
    "cinq": 5, "sept": 7, "huit": 8, "neuf": 9, "dix": 10, "ein": 1, "einem": 1, "eins": 1,
    "zwei": 2, "drei": 3, "vier": 4, "funf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9,
    "zehn": 10, "zwei ": 2,
}
_N = r"(?P<n>\d{1,2}|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")"
_YEARS = r"(?:years?|ans?|annees?|jahre[n]?|jahr)"
_MONTHS = r"(?:months?|mois|monate[n]?|monat)"
_DAYS = r"(?:days?|jours?|tage[n]?|tag)"
_UNIT = r"(?P<unit>" + _YEARS + "|" + _MONTHS + "|" + _DAYS + ")"

_SHIFT = re.compile(r"\b" + _N + r"\s+" + _UNIT + r"\s+(?P<dir>earlier|before|later|after|plus\s+tot|"
                    r"plus\s+tard|auparavant|avant|apres|fruher|zuvor|vorher|spater|danach)\b")
_RELATIVE: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("last_n", re.compile(r"\b(?:(?:in\s+|over\s+|during\s+)?the\s+(?:last|past)\s+" + _N + r"\s+" + _UNIT + r")\b")),
    ("last_n", re.compile(r"\b(?:(?:au\s+cours\s+des\s+|pendant\s+les\s+|les\s+|des\s+)" + _N + r"\s+"
                          r"(?:derniers?|dernieres?)\s+" + _UNIT + r")\b")),
    ("last_n", re.compile(r"\b(?:(?:in\s+den\s+)?letzten\s+" + _N + r"\s+" + _UNIT + r")\b")),
    ("ago", re.compile(r"\b" + _N + r"\s+" + _UNIT + r"\s+ago\b")),
    ("ago", re.compile(r"\bil\s+y\s+a\s+" + _N + r"\s+" + _UNIT + r"\b")),
    ("ago", re.compile(r"\bvor\s+" + _N + r"\s+" + _UNIT + r"\b")),
    ("shift", _SHIFT),
    ("last_year", re.compile(r"\b(?:last\s+year|the\s+previous\s+year|the\s+past\s+year|l\s*'?\s*annee\s+"
                             r"(?:derniere|passee|precedente)|l\s*'?\s*an\s+(?:dernier|passe)|"
                             r"(?:im\s+)?(?:letzten|vergangenen|letztes|vergangenes|vorigen|voriges)\s+jahr|"
                             r"im\s+vorjahr|vorjahr)\b")),
    ("this_year", re.compile(r"\b(?:this\s+year|so\s+far\s+this\s+year|cette\s+annee|(?:in\s+)?diesem\s+jahr|"
                             r"dieses\s+jahr|l\s*'?\s*annee\s+en\s+cours)\b")),
    ("last_month", re.compile(r"\b(?:last\s+month|the\s+previous\s+month|le\s+mois\s+(?:dernier|passe)|"
                              r"(?:im\s+)?(?:letzten|vergangenen|vorigen)\s+monat)\b")),
    ("this_month", re.compile(r"\b(?:this\s+month|ce\s+mois[\s-]+ci|(?:in\s+)?diesem\s+monat)\b")),
    ("last_week", re.compile(r"\b(?:last\s+week|la\s+semaine\s+(?:derniere|passee)|"
                             r"(?:in\s+der\s+)?(?:letzte|letzten|vergangene|vergangenen|vorige|vorigen)\s+woche)\b")),
    ("yesterday", re.compile(r"\b(?:yesterday|gestern)\b")),
    ("hier", re.compile(r"\bhier\b")),
    ("today", re.compile(r"\b(?:today|aujourd\s*'?\s*hui|heute|currently|at\s+present|actuellement|"
                         r"a\s+ce\s+jour|derzeit|aktuell|gegenwartig|as\s+of\s+now|right\s+now)\b")),
)

# An act named by its date: "loi du", "Regulation (EU) 2016/679 of", "Gesetz vom", "law of".
_CITATION_TAIL = re.compile(
    r"(?:\b(?:loi|lois|reglement|reglements|arrete|arretes|decret|directive|directives|regulation|"
    r"regulations|law|laws|act|acts|statute|decision|gesetz|gesetzes|verordnung|richtlinie|beschluss|"
    r"council|parliament|commission|conseil|parlement|grand-ducal|grand\s+ducal|ministeriel|modifiee|"
    r"modifie|amended|coordonne|coordonnee|convention|traite|treaty|accord|agreement)|"
    r"\d{1,4}/\d{1,4}(?:/[a-z]{2,4})?|\([a-z]{2,5}\)|\bn[o°]\s*\d+)"
    r"\s*,?\s+(?:du|of|vom|des|de|from|dated|en\s+date\s+du)\s+(?:the\s+)?$")
_SINCE_TAIL = re.compile(r"\b(?:since|depuis|seit|from|a\s+partir\s+du|a\s+partir\s+de|ab)\s+(?:le\s+|dem\s+|the\s+)?$")
_GERMAN_WORDS = re.compile(r"\b(?:der|die|das|ist|und|was|welche|nicht|galt|gilt|steht|zeige|wie)\b")


def fold_keep(text: str) -> str:
    """Lower-case, accents removed, one character per character (spans stay valid)."""
    out = []
    for ch in text:
        base = unicodedata.normalize("NFKD", ch)[:1] or ch
        low = base.lower()
        out.append(low if len(low) == 1 else base)
    return "".join(out).replace("\u2019", "'")


@dataclass(frozen=True)
class DateMention:
    """One date the turn states: its span, what it means, and whether it cites an act."""

    start: int
    end: int
    text: str
    kind: Kind
    first: dt.date | None
    last: dt.date | None
    role: Role = "instant"
    relative: bool = False

    @property
    def is_day(self) -> bool:
        return self.kind == "day"

    @property
    def is_window(self) -> bool:
        return self.kind in ("month", "year", "window")

    def describe(self) -> str:
        """``"last year" = 2025-01-01..2025-12-31`` style (for disclosures and traces)."""
        if self.first is None or self.last is None:
            return f'"{self.text}"'
        if self.first == self.last:
            return f'"{self.text}" = {self.first.isoformat()}'
        return f'"{self.text}" = {self.first.isoformat()}..{self.last.isoformat()}'


def _day(year: int, month: int, day: int) -> dt.date | None:
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def _month_window(year: int, month: int) -> tuple[dt.date, dt.date]:
    return dt.date(year, month, 1), dt.date(year, month, calendar.monthrange(year, month)[1])


def _shift(day: dt.date, years: int = 0, months: int = 0, days: int = 0) -> dt.date:
    total = day.year * 12 + (day.month - 1) + years * 12 + months
    year, month = divmod(total, 12)
    month += 1
    last = calendar.monthrange(year, month)[1]
    return dt.date(year, month, min(day.day, last)) + dt.timedelta(days=days)


def _number(raw: str) -> int:
    return int(raw) if raw.isdigit() else _NUMBER_WORDS.get(raw.strip(), 1)


def _unit_shift(unit: str, n: int) -> dict[str, int]:
    if re.fullmatch(_YEARS, unit):
        return {"years": n}
    if re.fullmatch(_MONTHS, unit):
        return {"months": n}
    return {"days": n}


class _Taken:
    def __init__(self, size: int) -> None:
        self.mask = [False] * size

    def free(self, start: int, end: int) -> bool:
        return not any(self.mask[start:end])

    def take(self, start: int, end: int) -> None:
        for i in range(start, end):
            self.mask[i] = True


def _absolute(folded: str, raw: str, taken: _Taken) -> list[DateMention]:
    out: list[DateMention] = []
    for name, pattern in _PATTERNS:
        for m in pattern.finditer(folded):
            start, end = m.span()
            if not taken.free(start, end):
                continue
            text = raw[start:end]
            groups = m.groupdict()
            year = int(groups["year"])
            if name == "year":
                if not 1800 <= year <= 2099:
                    continue
                mention = DateMention(start, end, text, "year", dt.date(year, 1, 1), dt.date(year, 12, 31))
            elif name == "my":
                month = MONTH_WORDS[groups["month"]]
                first, last = _month_window(year, month)
                mention = DateMention(start, end, text, "month", first, last)
            else:
                month = int(groups["m"]) if "m" in groups and groups.get("m") else MONTH_WORDS[groups["month"]]
                day_number = int(groups["d"])
                if name == "numeric" and groups.get("sep") == "-" and year < 1800:
                    continue
                day = _day(year, month, day_number)
                mention = (DateMention(start, end, text, "day", day, day) if day is not None
                           else DateMention(start, end, text, "invalid", None, None))
            taken.take(start, end)
            out.append(mention)
    return out


def _relative(folded: str, raw: str, today: dt.date, taken: _Taken) -> list[DateMention]:
    out: list[DateMention] = []
    german = bool(_GERMAN_WORDS.search(folded))
    for name, pattern in _RELATIVE:
        for m in pattern.finditer(folded):
            start, end = m.span()
            if not taken.free(start, end) or (name == "hier" and german):
                continue
            text = raw[start:end]
            groups = m.groupdict()
            first: dt.date | None
            last: dt.date | None
            kind: Kind = "window"
            if name == "last_n":
                n = _number(groups["n"])
                first, last = _shift(today, **{k: -v for k, v in _unit_shift(groups["unit"], n).items()}), today
            elif name == "ago":
                n = _number(groups["n"])
                day = _shift(today, **{k: -v for k, v in _unit_shift(groups["unit"], n).items()})
                first = last = day
                kind = "day"
            elif name == "shift":
                first = last = None
                kind = "unanchored"
            elif name == "last_year":
                first, last = dt.date(today.year - 1, 1, 1), dt.date(today.year - 1, 12, 31)
            elif name == "this_year":
                first, last = dt.date(today.year, 1, 1), today
            elif name == "last_month":
                previous = today.replace(day=1) - dt.timedelta(days=1)
                first, last = _month_window(previous.year, previous.month)
            elif name == "this_month":
                first, last = today.replace(day=1), today
            elif name == "last_week":
                monday = today - dt.timedelta(days=today.weekday() + 7)
                first, last = monday, monday + dt.timedelta(days=6)
            elif name in ("yesterday", "hier"):
                first = last = today - dt.timedelta(days=1)
                kind = "day"
            else:
                first = last = today
                kind = "day"
            taken.take(start, end)
            out.append(DateMention(start, end, text, kind, first, last, relative=True))
    return out


def _anchor_shifts(mentions: list[DateMention], folded: str) -> list[DateMention]:
    """``N years earlier`` resolves from the closest earlier stated day, else stays unanchored."""
    out: list[DateMention] = []
    for mention in mentions:
        if mention.kind != "unanchored":
            out.append(mention)
            continue
        m = _SHIFT.match(folded, mention.start)
        anchor = next((p for p in reversed(out) if p.is_day and p.role == "instant" and p.first), None)
        if m is None or anchor is None or anchor.first is None:
            out.append(mention)
            continue
        n = _number(m.group("n"))
        backwards = m.group("dir").split()[0] in ("earlier", "before", "plus", "auparavant", "avant",
                                                  "fruher", "zuvor", "vorher")
        if m.group("dir") == "plus tard":
            backwards = False
        sign = -1 if backwards else 1
        day = _shift(anchor.first, **{k: sign * v for k, v in _unit_shift(m.group("unit"), n).items()})
        out.append(DateMention(mention.start, mention.end, mention.text, "day", day, day, relative=True))
    return out


def read_dates(text: str, today: dt.date) -> list[DateMention]:
    """Every date mention of ``text`` in reading order, relative ones resolved from ``today``."""
    folded = fold_keep(text)
    taken = _Taken(len(folded))
    mentions = _relative(folded, text, today, taken) + _absolute(folded, text, taken)
    mentions.sort(key=lambda m: m.start)
    marked: list[DateMention] = []
    for mention in mentions:
        before = folded[max(0, mention.start - 80):mention.start]
        if not mention.relative and _CITATION_TAIL.search(before):
            mention = DateMention(mention.start, mention.end, mention.text, mention.kind, mention.first,
                                  mention.last, "citation")
        elif (mention.first is not None and mention.kind in ("day", "month", "year")
              and _SINCE_TAIL.search(before) and not _has_until(folded, mention.end)):
            mention = DateMention(mention.start, mention.end, mention.text, "window", mention.first,
                                  max(today, mention.first), relative=True)
        marked.append(mention)
    return _anchor_shifts(marked, folded)


def _has_until(folded: str, end: int) -> bool:
    return bool(re.match(r"\s*(?:to|until|till|jusqu|au|a|bis|and|et|und)\b", folded[end:end + 12]))


def instants(mentions: Sequence[DateMention]) -> list[DateMention]:
    """The mentions that may carry an instant or a window (citations never do)."""
    return [m for m in mentions if m.role == "instant"]
