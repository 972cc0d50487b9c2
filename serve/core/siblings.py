"""The one act of a family the question means (issue #15, ADR 0162).

A *family* is a set of acts that share a subject and most of their names' words: the delegated and implementing
acts of one basic act, an act and the acts amending it, the successive Legilux regulations on one matter. A
question means one of them by its own matter ("tick sizes", « taux normal », "auctioning"), and the ranking may put
another sibling first, because the words the family shares weigh as much as the one that decides.

Here the answer's first work and the works listed with it that are its siblings (:func:`siblings`: their names share
at least :data:`LEAST_SHARED` of the shorter's subject words, and :data:`LEAST_WORDS` of them) are compared on the
question's words that tell them apart only: a word every sibling's names or act terms hold tells nothing between
them, a word only some hold does (:func:`distinctive`). Each sibling's score is the share of the question's weight
(the act terms' rarity weight, :meth:`serve.core.actterms.TermIndex.weight`) its distinctive words carry; the sibling
that alone scores best comes first when it scores at least :data:`MARGIN` more than the first work and holds at
least :data:`MORE_WORDS` more of those words (:func:`sibling_first`). A year the question names as an act's
(« Verordnung (EG) Nr. 44/2001 Änderung 2002 », "Richtlinie 2019", not "as of 2015" nor « en 2010 »:
:func:`named_years`) that the first work's names do not hold puts first the first sibling whose names hold it
(:func:`year_first`): the siblings of one family are most often told apart by their year.

Pure: the search reads the names and act terms (:func:`serve.core.ops.search.sibling_step`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from itertools import pairwise
from typing import TypeVar

from derive.index import relax, xlang
from derive.index.query import MONTH_NUMBERS
from derive.index.text import normalize
from serve.core import actterms, formnames

K = TypeVar("K")

#: The least share of the shorter set of subject words two works' names must share to be siblings …
LEAST_SHARED = 0.3
#: … and the least number of such words.
LEAST_WORDS = 2
#: The least number of the question's content words for the step (a shorter question asks the family at large).
MIN_WORDS = 3
#: How much more of the question's weight a sibling's distinctive words must carry than the first work's …
MARGIN = 0.3
#: … and how many more distinctive words it must hold.
MORE_WORDS = 2
#: The words of a title's frame, not of its subject: the months of its date, a Legilux consolidated or rectified
#: version's heading (« Version consolidée applicable au … »), the amending and repealing verbs.
FRAME_WORDS: frozenset[str] = frozenset(MONTH_NUMBERS) | frozenset(
    {"version", "consolidee", "rectifiee", "applicable", "modifie", "modifiee", "modifiant", "portant", "concernant",
     "abrogation", "abrogeant", "coordonne", "coordonnee", "texte"})


def subject_words(names: Collection[str]) -> frozenset[str]:
    """The words of a work's names that may say its subject: not an :data:`serve.core.actterms.STOP` word nor a
    :data:`FRAME_WORDS` one, three letters or more, no digit (dates and numbers are every act's). Pure."""
    folded = {actterms.folded(n) for n in names} - actterms.STOP - FRAME_WORDS
    return frozenset(w for w in folded if len(w) > 2 and not _DIGIT.search(w))


_DIGIT = re.compile(r"\d")


def siblings(a: frozenset[str], b: frozenset[str], least: float = LEAST_SHARED, words: int = LEAST_WORDS) -> bool:
    """Whether two works whose names' subject words are ``a`` and ``b`` (:func:`subject_words`) are of one family:
    they share at least ``words`` of them, and at least ``least`` of the shorter set. Pure."""
    shared = len(a & b)
    return shared >= words and shared / max(1, min(len(a), len(b))) >= least


def vocabulary(subject: Collection[str], stems: Collection[str],
               begins: Collection[str] | None = None) -> frozenset[str]:
    """What a work holds of a question's words: every form (:func:`serve.core.actterms.word_forms`) of its names'
    ``subject`` words (:func:`subject_words`) and its act terms' ``stems``; with ``begins`` (:func:`prefixes`), only the forms of the subject
    words that begin like one of the question's forms (a stem begins like its word: the others cannot meet the
    question, and stemming every word of a long title three ways is the step's largest cost). Pure."""
    out: set[str] = set(stems)
    for word in subject:
        if begins is None or word[:PREFIX] in begins:
            out |= actterms.word_forms(word)
    return frozenset(out)


#: The letters a subject word must share with one of the question's forms to be stemmed (:func:`vocabulary`).
PREFIX = 3


def prefixes(words: Iterable[str], forms: Callable[[str], frozenset[str]] = actterms.word_forms) -> frozenset[str]:
    """The first :data:`PREFIX` letters of every form of the question's ``words`` (``forms``: a word's forms,
    :func:`serve.core.actterms.word_forms` unless a translated question's :func:`translated_forms`). Pure."""
    return frozenset(f[:PREFIX] for w in words for f in forms(w))


def translated_forms(translations: Mapping[str, Sequence[str]]) -> Callable[[str], frozenset[str]]:
    """A question word's forms (:func:`serve.core.actterms.word_forms`) with those of each word of its French
    ``translations`` (a translated question's ``query_plan.translations``: word → its French terms), for a translated
    question on French-only acts: their names hold the translations, not the question's words (ADR 0174); a
    translation's :data:`serve.core.actterms.STOP` words and words of fewer than three letters left out (« sans » of
    « sans autorisation » says nothing of an act). Pure."""
    def forms(word: str) -> frozenset[str]:
        found = set(actterms.word_forms(word))
        for text in translations.get(word, ()):
            for part in text.split():
                if len(part) > 2 and part not in relax.INDEX_STOP_WORDS:
                    found |= actterms.word_forms(part)
        return frozenset(found)
    return forms


def term_forms(index: actterms.TermIndex, words: Sequence[str], works: Collection[int]) -> dict[int, frozenset[str]]:
    """Per work of ``works``, the forms of the question's ``words`` its act terms hold (a term key holding the stem:
    :meth:`serve.core.actterms.TermIndex.keys_holding`), read from the term index the act-term step holds. Pure over
    the index."""
    found: dict[int, set[str]] = {w: set() for w in works}
    for word in words:
        for form in actterms.word_forms(word):
            for key in index.keys_holding(form):
                for work in index.works_of(key):
                    if work in found:
                        found[work].add(form)
    return {w: frozenset(v) for w, v in found.items()}


def distinctive(words: Sequence[str], held: Mapping[K, frozenset[str]],
                forms_of: Callable[[str], frozenset[str]] = actterms.word_forms) -> dict[str, list[K]]:
    """Per question word (``words``: :func:`serve.core.actterms.question_words`), the family members of ``held``
    (each one's :func:`vocabulary`) holding one of its forms (``forms_of``: :func:`serve.core.actterms.word_forms`, or a
    translated question's :func:`translated_forms`), for the words some members hold and others do not (the
    words that tell them apart). Pure."""
    out: dict[str, list[K]] = {}
    for word in words:
        forms = forms_of(word)
        holders = [member for member, vocab in held.items() if not forms.isdisjoint(vocab)]
        if 0 < len(holders) < len(held):
            out[word] = holders
    return out


def sibling_first(words: Sequence[str], family: Sequence[K], held: Mapping[K, frozenset[str]],
                  weight: Callable[[str], float], margin: float = MARGIN, more: int = MORE_WORDS,
                  forms_of: Callable[[str], frozenset[str]] = actterms.word_forms) -> K | None:
    """The member of ``family`` (the first work first, then its siblings in rank order) that should come before the
    first: the one whose distinctive words (:func:`distinctive`) carry the most of the question's ``weight`` (a word's,
    summed over ``words``), alone, at least ``margin`` of the question's weight more than the first work's and at least
    ``more`` words more; ``None`` when the first keeps its place, the family has one member or the question fewer than
    :data:`MIN_WORDS` content words. Pure."""
    if len(family) < 2 or len(words) < MIN_WORDS:
        return None
    weights = {w: weight(w) for w in words}
    total = sum(weights.values())
    if total <= 0:
        return None
    score = dict.fromkeys(family, 0.0)
    count = dict.fromkeys(family, 0)
    for word, holders in distinctive(words, {m: held[m] for m in family}, forms_of).items():
        for member in holders:
            score[member] += weights[word] / total
            count[member] += 1
    first = family[0]
    best = max(family, key=lambda m: score[m])  # the first in rank order among equals
    if best == first or sum(1 for m in family if abs(score[m] - score[best]) < 1e-9) > 1:
        return None
    if score[best] - score[first] < margin - 1e-9 or count[best] - count[first] < more:
        return None
    return best


_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
#: A year after one of these words is a point in time the question asks about ("as of 2015", « en 2010 », « avant
#: 1993 », "seit 2020", "für 2024"), not an act's year.
_TIME_YEAR = re.compile(
    r"\b(?:en|in|im|as of|of|au|avant|before|apres|after|depuis|since|seit|vor|nach|bis|until|jusqu|version|stand|"
    r"year|annee|jahr|fur|for|pour)\s+(?:(?:the|l|le|das|dem|des|du|de)\s+)?(?:year\s+|annee\s+|jahr\s+)?"
    r"((?:19|20)\d\d)\b")


def named_years(normalized: str, dated: Iterable[str] = ()) -> frozenset[str]:
    """The years (1900–2099) a normalised question names as an act's: not one after a word of time
    (:data:`_TIME_YEAR`) nor one of a date the query parser read (``dated``: the dates' texts, normalised: « au 1er
    janvier 2015 » is the day a version applies). Pure."""
    years = set(_YEAR.findall(normalized)) - set(_TIME_YEAR.findall(normalized))
    for text in dated:
        years -= set(_YEAR.findall(text))
    return frozenset(years)


def year_first(years: Collection[str], family: Sequence[K], names: Mapping[K, Collection[str]]) -> K | None:
    """The first member of ``family`` (the first work first, then its siblings in rank order) whose ``names``' words
    hold one of the question's ``years`` (:func:`named_years`), when the first work's do not; ``None`` otherwise.
    Pure."""
    if not years or not family or any(y in names[family[0]] for y in years):
        return None
    return next((m for m in family[1:] if any(y in names[m] for y in years)), None)


# -- the act's form the question names; the règlement that sets a law's implementing matter (ADR 0168) ---------------

#: The words of a question naming an act's form, and the form (a key of
#: :data:`serve.core.formnames.FORM_DOCUMENT_TYPES`): siblings of one family are often of two forms (the Market Abuse
#: Directive and the Market Abuse Regulation; a law and its règlement grand-ducal), and a question naming one asks for
#: that one. « loi », "law" and « Gesetz » are left out: « loi applicable », "EU law", "the asylum law" name a subject
#: or the law a question is about as often as the form of the act it asks for.
FORM_WORDS: dict[str, str] = {
    "directive": "directive", "directives": "directive", "richtlinie": "directive", "richtlinien": "directive",
    "reglement": "regulation", "reglements": "regulation", "regulation": "regulation", "regulations": "regulation",
    "verordnung": "regulation", "verordnungen": "regulation"}


#: The words after « règlement » that make it the name of another form: a body's own rules (« règlement intérieur »,
#: « règlement d'ordre intérieur ») are neither a regulation of the EU nor a règlement grand-ducal.
OTHER_FORM_AFTER: frozenset[str] = frozenset({"interieur", "ordre"})


def form_words(query: str) -> list[str]:
    """The normalised words of ``query`` that may name an act's form (:func:`named_form` reads them): "regulation" only
    in a question told English (:func:`derive.index.xlang.query_language`; « régulation », a body's regulating, folds
    to it: « Institut luxembourgeois de régulation »), « règlement » not before a word of :data:`OTHER_FORM_AFTER`.
    Pure over the lexicons."""
    words = normalize(query).split()
    english = any(w.startswith("regulation") for w in words) and xlang.query_language(words) == "en"
    kept = []
    for i, word in enumerate(words):
        if word.startswith("regulation") and not english:
            continue
        if word.startswith("reglement") and OTHER_FORM_AFTER.intersection(words[i + 1:i + 4]):
            continue
        kept.append(word)
    return kept


def named_form(words: Iterable[str]) -> frozenset[str]:
    """The publisher document types of the one act form a normalised question's ``words`` name
    (:data:`FORM_WORDS`, :data:`serve.core.formnames.FORM_DOCUMENT_TYPES`; the words :func:`form_words` keeps); empty
    when they name none or two. Pure."""
    forms = {FORM_WORDS[w] for w in words if w in FORM_WORDS}
    if len(forms) != 1:
        return frozenset()
    return formnames.FORM_DOCUMENT_TYPES[forms.pop()]


def form_first(types: Collection[str], family: Sequence[K], document_type: Mapping[K, str | None]) -> K | None:
    """The first member of ``family`` (the first work first, then its siblings in rank order) whose document type is
    one of the form the question names (``types``: :func:`named_form`), when the first work's is not; ``None``
    otherwise. Pure."""
    if not types or not family or document_type.get(family[0]) in types:
        return None
    return next((m for m in family[1:] if document_type.get(m) in types), None)


#: The words of a question asking for the matter a law leaves to the règlement that executes it: an amount, a
#: tariff or fee, a scale, a list, a form or model, the modalities, the execution itself (French, English, German;
#: normalised). A law says who and what; its règlement grand-ducal sets these.
IMPLEMENTING_WORDS: frozenset[str] = frozenset({
    "montant", "montants", "amount", "amounts", "betrag", "betrage", "hohe",
    "tarif", "tarifs", "tariff", "tariffs", "fee", "fees", "gebuhr", "gebuhren", "frais", "kosten", "cost", "costs",
    "combien", "bareme", "baremes", "taux", "indemnite", "indemnites", "indemnity", "entschadigung",
    "liste", "listes", "list", "lists", "listen",
    "formulaire", "formulaires", "modele", "modeles", "muster",
    "modalites", "modalities", "modalitaten", "implementing", "execution", "durchfuhrung"})
#: The document types of a statute and of the règlements that execute one (Legilux).
STATUTE_TYPES: frozenset[str] = frozenset({"LOI"})
EXECUTING_TYPES: frozenset[str] = frozenset({"RGD", "RMIN"})


def asks_implementing_matter(words: Iterable[str]) -> bool:
    """Whether a normalised question's ``words`` ask for a matter a law's règlement sets
    (:data:`IMPLEMENTING_WORDS`). Pure."""
    return not IMPLEMENTING_WORDS.isdisjoint(words)


def executing_first(listed: Sequence[K], document_type: Mapping[K, str | None],
                    parent: Callable[[K], K | None]) -> K | None:
    """The first work of ``listed`` (the first work first, then the works listed with it in rank order) that is a
    règlement (:data:`EXECUTING_TYPES`) executing the first work (``parent``: :func:`serve.core.ranking.parent_act`),
    when the first is a statute (:data:`STATUTE_TYPES`); ``None`` otherwise. ``parent`` is asked of the règlements
    only. Pure over ``parent``."""
    if len(listed) < 2 or document_type.get(listed[0]) not in STATUTE_TYPES:
        return None
    return next((m for m in listed[1:] if document_type.get(m) in EXECUTING_TYPES and parent(m) == listed[0]), None)


# -- the amendment of the year a question names (ADR 0173) ------------------------------------------------------------

#: The words of a question asking for an act's change (normalised): "amendment", "update", « modification », « mise à
#: jour », « Änderung », « Aktualisierung » and their forms and compounds (:func:`asks_amendment`). A year beside one of
#: them is the year of the amending act asked for, not of the act amended.
AMENDMENT_PREFIXES: tuple[str, ...] = ("amend", "modif", "anderung", "aenderung")
AMENDMENT_WORDS: frozenset[str] = frozenset({
    "update", "updates", "updated", "updating", "aktualisierung", "aktualisierungen", "geandert", "revision",
    "revised"})


def asks_amendment(words: Sequence[str]) -> bool:
    """Whether a normalised question's ``words`` ask for a change of an act (:data:`AMENDMENT_PREFIXES`,
    :data:`AMENDMENT_WORDS`, « mise à jour »). Pure."""
    return any(w.startswith(AMENDMENT_PREFIXES) or w in AMENDMENT_WORDS for w in words) \
        or "mise a jour" in " ".join(words)


#: An EU act's number as a question writes it (``2015/61``, ``575/2013``, ``96/97/EC``): a year inside it names that
#: act, not the year of an amendment.
_NUMBER_YEARS = re.compile(r"\b\d{1,4}\s*/\s*\d{1,4}\b")


def numbered_years(query: str) -> frozenset[str]:
    """The years a raw question writes inside an act's number (:data:`_NUMBER_YEARS`). Pure."""
    return frozenset(y for found in _NUMBER_YEARS.findall(query) for y in _YEAR.findall(found.replace("/", " ")))


def named_months(words: Sequence[str], years: Collection[str]) -> frozenset[int]:
    """The months (1–12) a normalised question names right before one of the ``years`` ("December 2020", « avril
    2020 »). Pure."""
    return frozenset(MONTH_NUMBERS[w] for w, after in pairwise(words)
                     if w in MONTH_NUMBERS and after in years)


#: An act's date in its normalised official title: "… of 7 november 2012 …", « … du 7 novembre 2012 … ».
_ACT_DATE = re.compile(r"\b(?:of|du)\s+(\d{1,2})\s+([a-z]+)\s+((?:19|20)\d\d)\b")
#: A CELEX number's year (``32012r1042``).
_CELEX_YEAR = re.compile(r"^3((?:19|20)\d\d)[a-z]")


def act_date(slug: str, title: str) -> tuple[frozenset[str], int | None]:
    """An EU act's own years (its CELEX number's and its date's, which differ for an act adopted in one year and
    published the next) and its date's month, read from its ``slug`` and normalised official ``title``. Pure."""
    years: set[str] = set()
    month = None
    celex = _CELEX_YEAR.match(slug)
    if celex is not None:
        years.add(celex.group(1))
    for _day, name, year in _ACT_DATE.findall(title):
        if name in MONTH_NUMBERS:
            years.add(year)
            month = MONTH_NUMBERS[name]
            break
    return frozenset(years), month


def dated_member(years: Collection[str], months: Collection[int], pools: Sequence[Sequence[K]],
                 dates: Mapping[K, tuple[frozenset[str], int | None]], held: Mapping[K, int],
                 listed: Sequence[K] = ()) -> K | None:
    """The act of the year a question names (``years``; in ``months`` of it when it names one) among the first of
    ``pools`` holding one: the first work's own amending acts, else the other acts amending the act it amends (each
    act's ``dates``: :func:`act_date`). Several such acts: the one whose names hold the most of the question's words
    (``held``), the first ``listed`` of those on a tie, else none. Pure."""
    for pool in pools:
        dated = [m for m in pool if m in dates and not dates[m][0].isdisjoint(years)
                 and (not months or dates[m][1] in months)]
        if not dated:
            continue
        most = max(held.get(m, 0) for m in dated)
        best = [m for m in dated if held.get(m, 0) == most]
        if len(best) == 1:
            return best[0]
        return next((m for m in listed if m in best), None)
    return None
