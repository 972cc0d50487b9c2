"""The act of the year a question names (issue #15, ADR 0174).

Legilux identifies every act by its form and day (``rgd-2024-11-07-a452``), and a lawyer asks for an act by its
year and its subject as often as by its title: "2024 amendment on temporary cash advances for paying State
expenditure", « Änderung 2023 der Regelung über die Fächer … im Musikunterricht », "1954 general revision of the
salaries and pensions of municipal officials". French questions that cite an act by form and day or by « loi de
1968 » are read as such (:func:`serve.core.ops.search.dated_references`, :func:`serve.core.ops.search.typed_references`);
a question naming a year beside plain subject words — the usual shape of an English or German question on a
French-only act — named no act, and the keyword search ranked the act the year's act amends, or a sibling of another
year, first.

Here a question naming one year as an act's (:func:`act_year`: not a point in time, « en 2010 », "as of 2015",
« Fassung 2008 », nor the second year of a span, nor an EU act number's) and, right before it, maybe a month
(:func:`named_month`: "February 2026", « vom April 2020 ») is read against the acts of that year (and month): each
act's names are read for the question's word groups (:class:`WordGroup`: a word with its French translations, any
form; a phrase holds when all its words do), and the one act that alone holds the most of them
(:func:`dated_first`: at least :data:`MIN_HELD` and :data:`MIN_SHARE` of the groups), ties broken by its citing one
of the answer's first works as the act it amends or executes, then by its being of their family
(:func:`serve.core.siblings.siblings`), is the act the question means. A question asking for an EU form
(:func:`asks_eu_form`: a directive, « …richtlinie ») is about the Union's act of that year and is left alone.

Pure: the search reads the names and puts the act first (:func:`serve.core.ops.search.dated_step`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from derive.index import analysis, relax
from derive.index.query import MONTH_NUMBERS
from serve.core import actterms, siblings

K = TypeVar("K")

#: The least number of the question's word groups the act's names must hold …
MIN_HELD = 2
#: … and the least share of them.
MIN_SHARE = 0.5

#: A year after one of these words is not an act's either, beside :data:`serve.core.siblings._TIME_YEAR`'s: the
#: version a German question asks for (« Fassung 2008 ») and the second year of a span ("between 2017 and 2019",
#: « entre 2017 et 2019 », "from 2012 to 2016", « bis 2020 »).
_SPAN_YEAR = re.compile(r"\b(?:fassung|entre|between|zwischen|et|and|und|to|a|bis)\s+((?:19|20)\d\d)\b")
#: A year inside an EU act's number ("Regulation 2022/612", « 2015/1513 »): the number's, not an act's year.
_NUMBER_YEAR = re.compile(r"(?:19|20)\d\d\s*/\s*\d|\d\s*/\s*(?:19|20)\d\d")
_MONTH_YEAR = re.compile(r"\b(" + "|".join(sorted(MONTH_NUMBERS, key=len, reverse=True)) + r")\s+((?:19|20)\d\d)\b")


def act_year(raw: str, normalized: str, dated: Iterable[str] = ()) -> str | None:
    """The one year a question names as an act's: :func:`serve.core.siblings.named_years` of its ``normalized`` words
    (the query parser's ``dated`` texts left out) less a year after a word of :data:`_SPAN_YEAR`; ``None`` when it
    names none or several, or when a year is part of an act number in the ``raw`` question. Pure."""
    if _NUMBER_YEAR.search(raw):
        return None
    years = set(siblings.named_years(normalized, dated)) - set(_SPAN_YEAR.findall(normalized))
    return years.pop() if len(years) == 1 else None


def named_month(normalized: str, year: str) -> int | None:
    """The month a normalised question names right before ``year`` ("February 2026", « vom April 2020 », « décembre
    2022 »), or ``None``. Pure."""
    for month, named in _MONTH_YEAR.findall(normalized):
        if named == year:
            return MONTH_NUMBERS[month]
    return None


#: The act forms only EUR-Lex holds, and the ending of a German compound naming one (« Änderungsrichtlinie »,
#: « Geldwäscherichtlinie »).
EU_FORM_WORDS = frozenset({"directive", "directives", "richtlinie", "richtlinien"})
EU_FORM_ENDINGS = ("richtlinie", "richtlinien")


def asks_eu_form(words: Collection[str], luxembourg_words: Collection[str]) -> bool:
    """Whether a question's normalised ``words`` name a form only EUR-Lex holds (:data:`EU_FORM_WORDS`, a compound
    ending in one) and no word asking for Luxembourg's own law (``luxembourg_words``). Pure."""
    named = any(w in EU_FORM_WORDS or w.endswith(EU_FORM_ENDINGS) for w in words)
    return named and not any(w in luxembourg_words for w in words)


@dataclass(frozen=True)
class WordGroup:
    """One word of the question and what it may be in an act's names: each alternative (the word, each of its
    translations) as the forms of each of its words (:func:`serve.core.actterms.word_forms`)."""

    word: str
    alternatives: tuple[tuple[frozenset[str], ...], ...]

    def held(self, forms: Collection[str]) -> bool:
        """Whether a name's word ``forms`` (:func:`name_forms`) hold one alternative whole. Pure."""
        return any(all(not f.isdisjoint(forms) for f in alternative) for alternative in self.alternatives)


def word_group(word: str, translations: Iterable[str] = ()) -> WordGroup:
    """The :class:`WordGroup` of a question ``word`` and its French ``translations`` (a phrase: every word of three
    letters or more but its stop words, as :func:`name_forms` reads names: « administration de la navigation
    aérienne »). Pure."""
    alternatives = dict.fromkeys(
        tuple(actterms.word_forms(w) for w in kept)
        for text in (word, *translations)
        for kept in [[w for w in text.split() if len(w) > 2 and w not in relax.INDEX_STOP_WORDS] or text.split()]
        if kept)
    return WordGroup(word, tuple(alternatives))


#: The shortest stem a name's stem meets a question's by beginning it (:func:`name_forms`): « modifiant » (``modifi``)
#: and "amendment" translated « modification » (``modif``), « coordination » and « coordonné ».
PREFIX_LEAST = 5


def wanted_forms(groups: Iterable[WordGroup]) -> frozenset[str]:
    """Every form of every word of the ``groups``' alternatives: what :func:`name_forms` keeps. Pure."""
    return frozenset(f for g in groups for alternative in g.alternatives for forms in alternative for f in forms)


def name_forms(words: Iterable[str], wanted: Collection[str]) -> frozenset[str]:
    """The forms of an act's name ``words`` that a question's groups may meet, among its ``wanted`` forms
    (:func:`wanted_forms`): each word of three letters or more (the frame words too: « modifiant » says what an
    amending act is), in the singular, its French stem and that stem's root (:func:`serve.core.actterms.root`) — as a
    question's French translation is read — and a wanted form of at least :data:`PREFIX_LEAST` letters that such a
    stem begins or that begins it (a verb and its noun whose stems Snowball leaves apart: « modifiant » and
    « modification »). Pure."""
    beginnings: dict[str, list[str]] = {}
    for form in wanted:
        if len(form) >= PREFIX_LEAST:
            beginnings.setdefault(form[:PREFIX_LEAST], []).append(form)
    found: set[str] = set()
    for word in words:
        if len(word) < 3 or not word.isalpha():
            continue
        if word in wanted:
            found.add(word)
            continue
        single = actterms.singular(word)
        stem = analysis.stem_word(single, "fr")
        forms = {word, single} if stem is None else {word, single, stem, actterms.root(stem)}
        found.update(f for f in forms if f in wanted)
        for form in forms:
            found.update(w for w in beginnings.get(form[:PREFIX_LEAST], ()) if form.startswith(w) or w.startswith(form))
    return frozenset(found)


def dated_first(candidates: Sequence[K], held: Callable[[K], int], groups: int | Callable[[K], int],
                ties: Sequence[Callable[[K], bool]] = (), least: int = MIN_HELD, share: float = MIN_SHARE) -> K | None:
    """The one candidate act whose names hold the most of a question's word groups (``held``), at least ``least`` and
    ``share`` of its ``groups`` (their number, or each act's: a word counted only where held); between acts holding
    as many, the first tie-break of ``ties`` that one of them alone passes decides (each asked only of the acts still
    tied). ``None`` when no act holds enough or the tie stays. Pure over the callbacks."""
    if not candidates:
        return None
    total = groups if callable(groups) else (lambda _: groups)
    counts = {c: held(c) for c in candidates}
    most = max(counts.values())
    if most < least:
        return None
    tied = [c for c in candidates if counts[c] == most and total(c) > 0 and most / total(c) >= share - 1e-9]
    if not tied:
        return None
    for tie in ties:
        if len(tied) == 1:
            break
        passing = [c for c in tied if tie(c)]
        if passing:
            tied = passing
    return tied[0] if len(tied) == 1 else None


#: The French month names of a Legilux act's day as its title writes them, normalised (« 22 août 2003 »).
FRENCH_MONTHS = ("janvier", "fevrier", "mars", "avril", "mai", "juin", "juillet", "aout", "septembre", "octobre",
                 "novembre", "decembre")
#: The forms of Legilux identifiers (their first part) and how a title cites an act of that form, normalised.
CITED_FORMS = {"loi": "loi", "rgd": "reglement grand ducal", "agd": "arrete grand ducal",
               "rmin": "reglement ministeriel", "amin": "arrete ministeriel"}


def day_citation(slug: str) -> re.Pattern[str] | None:
    """How a Legilux title cites the act of identifier ``slug`` by its form and day, normalised (``rgd-2003-08-22-n7``
    → « règlement grand-ducal (modifié) du 22 août 2003 », the first of a month « 1er »), or ``None`` for an identifier
    of another form or holding no day. Pure."""
    parts = slug.split("-")
    if len(parts) < 4 or parts[0] not in CITED_FORMS or not all(p.isdigit() for p in parts[1:4]) \
            or not 1 <= int(parts[2]) <= 12:
        return None
    day = int(parts[3])
    return re.compile(rf"\b{CITED_FORMS[parts[0]]}(?: modifiee?)? du {'1er' if day == 1 else day} "
                      rf"{FRENCH_MONTHS[int(parts[2]) - 1]} {parts[1]}\b")


def cites_day(titles: Iterable[str], citations: Iterable[re.Pattern[str]]) -> bool:
    """Whether one of an act's normalised ``titles`` cites an act by its form and day (``citations``:
    :func:`day_citation` of other acts than itself: « … portant modification du règlement grand-ducal du 22 août
    2003 … », « … portant exécution de l'article 3 de la loi du 3 avril 2020 … »): the act amends or executes the act
    cited. Pure."""
    found = list(citations)
    return any(c.search(t) for t in titles for c in found)


def same_day_works(by_year: Mapping[str, Sequence[K]], year: str, month: int | None,
                   month_of: Callable[[K], int | None]) -> list[K]:
    """The works of ``year`` (``by_year``: works by ``<form>-<year>``, every form), of ``month`` when the question
    names one (``month_of`` reads a work's month). Pure."""
    works = [w for key, found in by_year.items() if key.endswith(f"-{year}") for w in found]
    return [w for w in works if month is None or month_of(w) == month]
