"""Parse a free-text legal query into typed parts: identifiers, an article, dates, terms.

Query-side text analysis, beside the index's normalisation (the serving core and the assistant use it).

Pure and index-free: the legal core matches the parts against a mounted catalogue.

- **Identifiers**: :func:`legal.identifiers.scan_identifiers` (the one grammar): lex ids
  (``eu-eurlex:32016r0679[:<version key>][#art_6]``), version keys, ELI URLs (Legilux and EU),
  EUR-Lex URLs carrying a CELEX, CELEX numbers (``32016R0679``, ``CELEX:02016R0679-20160504``,
  ``12012E/TXT``), Legilux slugs (``loi-2009-02-06-n3``).
- **Article**: ``Article 6``, ``art. 1er``, ``Art. 42ter``, ``article L. 111-1``, ``Artikel 5`` → an
  :func:`~derive.index.text.article_key` (``1er`` ↔ ``1``; ``42`` never ↔ ``42ter``).
- **Dates**: ISO ``2021-01-01``, ``1er janvier 2021``, ``1 January 2021``, ``January 1, 2021``,
  ``1. Januar 2021``, ``01/01/2021`` (day first). Reported, never silently applied as a filter. The
  words that frame a date as the question's time just before it (« version applicable au », "as of",
  « in der Fassung vom », « Stand ») go with it: they are no words of the act.
- **Terms**: what is left, normalised, without conversational stop words; ``"quoted text"``
  stays one phrase.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

from derive.index.text import article_key, fold, normalize
from legal.identifiers import Identifier, scan_identifiers

MAX_QUERY_CHARS = 1000

_LATIN = r"bis|ter|quater|quinquies|sexies|septies|octies|nonies|decies"
#: "article", "articles", "art." and the German "Artikel", "Artikeln" (de36: « Abweichung von Artikel L.551-2 »
#: was read as the words "artikel", "l", "551", "2" that no French text holds together); the German word only
#: after a citing word (:data:`GERMAN_CITING_WORDS`)
_ARTICLE = re.compile(
    r"\b(?:articles?|artikeln?|art)\b\.?\s*"
    r"((?:[a-z]\.?\s?)?\d+(?:\s?(?:" + _LATIN + r")(?![a-z])|(?:er|re)(?![a-z])|[a-z](?![a-z]))?(?:[-.]\d+)*)"
)
#: The month of each folded month name of the three languages (FR, EN, DE), read by the dates of a
#: question here and by :mod:`serve.core.impossible`.
MONTH_NUMBERS: dict[str, int] = {
    "janvier": 1, "fevrier": 2, "mars": 3, "avril": 4, "mai": 5, "juin": 6, "juillet": 7, "aout": 8,
    "septembre": 9, "octobre": 10, "novembre": 11, "decembre": 12,
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
    "september": 9, "october": 10, "november": 11, "december": 12,
    "januar": 1, "janner": 1, "februar": 2, "marz": 3, "maerz": 3, "juni": 6, "juli": 7, "oktober": 10,
    "dezember": 12,
}
_MONTH_NAMES = "|".join(sorted(MONTH_NUMBERS, key=len, reverse=True))
#: The folded month names of the three languages (a month before a year is a time, :func:`serve.core.searchplan.time_years`).
MONTHS = frozenset(MONTH_NUMBERS)
_ISO_DATE = re.compile(r"(?<![\d-])(\d{4})-(\d{2})-(\d{2})(?![\d-])")
_DMY_WORDS = re.compile(r"\b(\d{1,2})(?:er|re|st|nd|rd|th|\.)?\s+(" + _MONTH_NAMES + r")\s+(\d{4})\b")
_MDY_WORDS = re.compile(r"\b(" + _MONTH_NAMES + r")\s+(\d{1,2}),?\s+(\d{4})\b")
_DMY_NUM = re.compile(r"(?<![\d/.])(\d{1,2})[/.](\d{1,2})[/.](\d{4})(?![\d/.])")
_PHRASE = re.compile(r'"([^"]+)"')
#: The words that frame a date as the question's time, just before it (folded): « version applicable
#: au », « dans sa version en vigueur le », "as of", "in force on", « in der Fassung vom », « Stand »; and
#: the words that bound the question's time by it: « avant le », "before", « jusqu'au », « vor dem ».
#: They belong to the date, not to the act's words.
_TIME_FRAME = re.compile(
    r"(?:\b(?:(?:dans sa|in (?:its|der|the)) )?(?:version|fassung)(?: (?:consolidee|consolidated|coordonnee))?"
    r"(?: (?:applicable|en vigueur|in force|valable|geltenden?|gultig))?(?: (?:au|le|du|on|at|of|vom|am))?"
    r"|\bas (?:of|at|in force on)|\b(?:en vigueur|applicable|in force|valid|valable|gultig|in kraft) (?:au|le|on|at|am|ab)"
    r"|\bstand(?: (?:vom|am))?|\ba la date du"
    r"|\b(?:avant|apres|before|after|until|till|since|depuis|jusqu.a|jusqu.au|vor|nach|seit|bis|prior to|entre"
    r"|between|zwischen|from|a partir du|ab)"
    r"(?: (?:le|la|the|dem|zum|l.))?)[\s,:]+$")

STOP_WORDS = frozenset(["a", "about", "according", "an", "and", "are", "as", "at", "au", "aux", "be", "between", "by", "ce", "ces", "comment", "compare", "concerning", "dans", "de", "des", "did", "do", "does", "du", "en", "est", "et", "for", "from", "how", "i", "in", "into", "is", "it", "its", "la", "le", "les", "me", "my", "of", "on", "or", "par", "please", "pour", "que", "quel", "quelle", "quelles", "quels", "qui", "quoi", "regarding", "say", "says", "show", "sur", "tell", "than", "that", "the", "their", "them", "this", "to", "un", "une", "was", "what", "whats", "when", "where", "which", "who", "why", "with"])


@dataclass(frozen=True)
class ArticleRef:
    text: str
    key: str


@dataclass(frozen=True)
class DateMention:
    text: str
    date: str


@dataclass(frozen=True)
class ParsedQuery:
    raw: str
    identifiers: tuple[Identifier, ...] = ()
    article: ArticleRef | None = None
    dates: tuple[DateMention, ...] = ()
    phrases: tuple[str, ...] = ()
    residual: str = ""
    stripped: bool = False
    spans: tuple[tuple[int, int], ...] = field(default=(), repr=False)

    def residual_tokens(self) -> list[str]:
        """Normalised residual tokens without stop words (phrases excluded)."""
        return [t for t in normalize(_PHRASE.sub(" ", self.residual)).split() if t not in STOP_WORDS]

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("spans")
        out["terms"] = self.residual_tokens()
        return out


def _iso(year: int, month: int, day: int) -> str | None:
    try:
        return _dt.date(year, month, day).isoformat()
    except ValueError:
        return None


def _free(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    return all(end <= s or start >= e for s, e in spans)


def _dates(folded: str, spans: list[tuple[int, int]]) -> list[DateMention]:
    found: list[tuple[int, DateMention]] = []
    patterns: list[tuple[re.Pattern[str], Any]] = [
        (_ISO_DATE, lambda m: _iso(int(m[1]), int(m[2]), int(m[3]))),
        (_DMY_WORDS, lambda m: _iso(int(m[3]), MONTH_NUMBERS[m[2]], int(m[1]))),
        (_MDY_WORDS, lambda m: _iso(int(m[3]), MONTH_NUMBERS[m[1]], int(m[2]))),
        (_DMY_NUM, lambda m: _iso(int(m[3]), int(m[2]), int(m[1]))),
    ]
    for pattern, convert in patterns:
        for m in pattern.finditer(folded):
            iso = convert(m)
            if iso and _free(spans, *m.span()):
                frame = _TIME_FRAME.search(folded, 0, m.start())
                start = frame.start() if frame is not None and _free(spans, frame.start(), m.start()) else m.start()
                spans.append((start, m.end()))
                found.append((m.start(), DateMention(m.group(), iso)))
    return [d for _, d in sorted(found, key=lambda x: x[0])]


#: The German words after which « Artikel » names the article an asked act's title cites (« Abweichung von
#: Artikel L.551-2 », « zur Durchführung von Artikel 5 »), at most :data:`GERMAN_CITING_REACH` words back.
#: Elsewhere the German word stays words of the question, as before (de36: « Muster des Quittungsheftes nach
#: Artikel 30-1 des Gesetzes … » asks an act made under the article, which its number alone does not find).
GERMAN_CITING_WORDS = frozenset({"abweichung", "abweichungen", "abweichend", "durchfuhrung", "ausfuhrung"})
GERMAN_CITING_REACH = 4


def _cited_in_german(folded: str, start: int) -> bool:
    return any(w in GERMAN_CITING_WORDS for w in normalize(folded[:start]).split()[-GERMAN_CITING_REACH:])


def _article(folded: str, spans: list[tuple[int, int]]) -> ArticleRef | None:
    for m in _ARTICLE.finditer(folded):
        if m.group().startswith("artikel") and not _cited_in_german(folded, m.start()):
            continue
        if _free(spans, *m.span()):
            key = article_key(m.group(1))
            if key:
                spans.append(m.span())
                return ArticleRef(m.group().strip(), key)
    return None


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    chars = list(text)
    for start, end in spans:
        for i in range(start, min(end, len(chars))):
            chars[i] = " "
    return re.sub(r"\s+", " ", "".join(chars)).strip()


def parse_query(text: str) -> ParsedQuery:
    """Split ``text`` into identifiers, one article reference, dates, phrases and residual text."""
    raw = text.strip()[:MAX_QUERY_CHARS]
    folded = fold(raw)  # same length as raw for Latin text: spans found on it apply to raw
    if len(folded) != len(raw):
        folded = raw.lower()
    spans: list[tuple[int, int]] = []
    identifiers = scan_identifiers(raw, spans)
    dates = _dates(folded, spans)
    article = _article(folded, spans)
    phrases = tuple(p.strip() for p in _PHRASE.findall(_blank(raw, spans)) if p.strip())
    residual = _blank(raw, spans)
    return ParsedQuery(raw=raw, identifiers=tuple(identifiers), article=article, dates=tuple(dates), phrases=phrases,
                       residual=residual, stripped=bool(spans), spans=tuple(spans))


def ngrams(tokens: list[str], longest: int) -> Iterator[tuple[int, int, str]]:
    """Every ``(start, end, phrase)`` of 1..``longest`` consecutive tokens, longest first."""
    for size in range(min(longest, len(tokens)), 0, -1):
        for start in range(0, len(tokens) - size + 1):
            yield start, start + size, " ".join(tokens[start:start + size])
