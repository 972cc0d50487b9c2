"""A cross-language term lexicon (EN→FR, DE→FR) for questions asked in a language the searched text is not in.

Legilux holds its law in French only; an English or German question ("minimum wage Luxembourg",
"Kündigungsfrist Arbeitsvertrag") stops at words no Luxembourg text holds. The EUR-Lex works hold
parallel English and French expressions of the same work with the same anchors: an aligned legal
corpus inside the project's own data. Three data files, all read here:

- ``xlang_mined.json`` — **mined** by ``scripts/mine_xlang.py`` from the provisions of the same EU work
  and anchor in English and French (and the German and French texts of the Luxembourg Constitution,
  the one Legilux act held in German), plus the EuroVoc concepts' aligned English and French labels.
  A word pair is kept only when it is strong, frequent and one-to-one (:func:`mine`): Dice
  association of the two words' Snowball stems over the aligned provisions at least
  :data:`MIN_DICE`, at least :data:`MIN_ALIGNED` aligned provisions holding both, each the other's
  best partner. Each entry carries its provenance: how many aligned provisions hold the pair and an
  example (work and anchor). The file also lists the English words the French side holds as they are
  (``shared``: "minimum", "transport") and the English words that are never in French text
  (``foreign``), so a question's language can be told. The script's output is committed and
  reviewed (ADR 0021).
- ``xlang_reviewed.json`` — **reviewed** entries for what the corpus cannot give (German compounds →
  French legal terms, "Arbeitsvertrag" → "contrat de travail"), each with a source: the act and
  article whose French wording holds the term.
- ``xlang_dict.json`` — the **dictionary** tier, the lowest (ADR 0123): German words selected by
  ``scripts/dict_xlang.py`` from FreeDict's German–French dictionary (CC-BY-SA 3.0, FreeDict
  contributors; the file names its package and version), each French term held by the corpus's French
  text ("Tierärztin" « vétérinaire », "Schalldämpfer" « silencieux »). Asked only for a word nothing
  above reaches — no entry, no compound cut, no held cognate — and only for its terms the searched text
  holds; like a cognate it adds terms and never counts as a translated word (:data:`UNCOUNTED`), and it
  is never evidence of a question's language. Held packed (:class:`Dictionary`).

Applied at query time by the planner (:func:`serve.core.searchplan.build_plan` through
:func:`translate`) only when the question's language (:func:`query_language`) is not a language the
searched index holds text in: an English question on Legilux, a German one on either publisher. The
translations are OR-alternatives of the question's word (never a filter, never a replacement, never
choosing an act) and are reported (``query_plan.translations``), so a user sees why a French act
answered. A term of several words the planner holds as one (a quoted phrase, a synonym run) is given
its phrase entry (:func:`joined_phrase`); the question's frame words nothing translates ("rules",
"welche": :data:`FRAME_FILLERS`) leave its search words and are reported (``fillers``). Nothing here reads an index: a German or English learned word the lexicon lacks ("Identität",
"geologische", "army") is given the French cognates (:func:`cognates`) that the caller's ``held`` says the
searched index holds; they add terms only and never count as translated words.
"""

from __future__ import annotations

import array
import bisect
import functools
import json
import math
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from derive.index import analysis, relax
from derive.index.schema import VOCABULARY_MIN_LENGTH
from derive.index.text import normalize

SCHEMA = "lex-xlang-lexicon/1"
MINED_PATH = Path(__file__).with_name("xlang_mined.json")
REVIEWED_PATH = Path(__file__).with_name("xlang_reviewed.json")
#: The dictionary tier (FreeDict, ``scripts/dict_xlang.py``): the lowest, for words no entry above translates.
DICTIONARY_PATH = Path(__file__).with_name("xlang_dict.json")
DICTIONARY_SCHEMA = "lex-xlang-dictionary/1"
#: Source languages the lexicon translates from, into French.
SOURCES = ("en", "de")
#: A mined pair needs this many aligned provisions holding both words …
MIN_ALIGNED = 5
#: … and this Dice association (2·both / (source + target)).
MIN_DICE = 0.4
#: An aligned provision with more distinct words than this on a side is left out (a long article
#: pairs every word with every other: noise, and quadratic to count).
MAX_WORDS = 80
#: A word present in the aligned French text of at least this share of the provisions whose source
#: text holds it is *shared* (the same word in both languages: "minimum", "transport").
SHARED_SHARE = 0.5
#: A word in at least this many source provisions and in at most :data:`FOREIGN_SHARE` of their
#: aligned French texts is *foreign-only*: no French text holds it.
FOREIGN_MIN = 5
FOREIGN_SHARE = 0.02
#: At most this many French forms per translated stem (its most frequent surface forms).
MAX_TARGET_FORMS = 2
#: A French stem may be the partner of a source stem that is not its best one when the Dice is at
#: least this share of its best partner's.
NEAR_BEST = 0.8
#: A source form is listed when at least this share of the aligned provisions holding it hold the
#: French stem too.
FORM_SHARE = 0.4
MIN_WORD = 3
#: A pair's aligned provisions must come from at least this many works. The same list in the
#: annex of one act ("crisps, puffs, savoury snacks" → "chips"; "Syria, Yemen"; "clays, limestone"
#: → "cokéfiable") pairs every item with every other, and each consolidated state of the act
#: repeats the evidence: one work's words are a list, not a translation.
MIN_WORKS = 2
#: Negating prefixes: a source form ``un``/``in``/``non`` + a word of the source text of at least
#: :data:`NEGATED_MIN` letters ("unmanned", "unfunded", "inaccessible") keeps its pair only when
#: the French term is negated too (:data:`FRENCH_NEGATIONS`) or the positive word does not carry it:
#: otherwise the pair is the positive word's partner ("unmanned aircraft" → "aéronef sans équipage"
#: gave "unmanned" → "équipage", and "manned" is "avec équipage"). A negated word French says in a
#: word of its own keeps it ("invalidity" → "nullité", "unaware" → "ignorer": "validity" is seldom
#: beside "nullité", "aware" beside "ignorer").
NEGATING_PREFIXES = ("non", "un", "in")
NEGATED_MIN = 5
FRENCH_NEGATIONS = ("in", "im", "il", "ir", "non", "de", "dis", "mal")

_STOPS = relax.STOP_WORDS_BY_LANGUAGE
#: What normalisation leaves of a language's clitics as a word of its own: the English possessive
#: ("Luxembourg's National Research Fund" → "luxembourg s national …"). Left out of a translated
#: question as its stop words are (:func:`translate`); no French text holds it as a word.
CLITICS: dict[str, frozenset[str]] = {"en": frozenset({"s"})}


#: Closed-class words of a language (prepositions, determiners and quantifiers, pronouns, negation,
#: conjunctions, adverbs of degree and time) that are neither the planner's stop words
#: (:data:`derive.index.relax.STOP_WORDS_BY_LANGUAGE`) nor its question-frame words and that no French
#: text holds: the mining lists most of them as ``foreign``, so one of them, untranslated, left a
#: whole English question untranslated ("which trades can be learned *through* apprenticeship",
#: "free lawyer for people who *cannot* afford one", "moving to *another* town"), and when it did
#: not, it stayed a required word no French provision holds. Left out of a translated question as
#: its stop words are (:func:`translation_stops`), and only there: a question searched in its own
#: language keeps them (lu49a). A word of the class that the lexicon translates ("without" « sans »,
#: "against" « contre », "since" « depuis ») keeps its translation (the lexicon is asked first), and
#: words that name a thing ("will", a testament; "last", "own" as verbs; "self" in "self-employed")
#: are not in it.
_EN_FUNCTION = (
    "another such some any all both either neither most few fewer none "
    "through throughout under within towards toward upon above below over across along beyond behind "
    "beside besides onto per "
    "not cannot cant dont doesnt isnt arent wont only still even here once further already yet ever never "
    "always just too rather quite however therefore thus although though whereas nor "
    "whose whoever whatever whichever anyone anybody anything everyone everybody everything something "
    "nothing nobody ones him am gets done")
TRANSLATION_FUNCTION_WORDS: dict[str, frozenset[str]] = {"en": frozenset(_EN_FUNCTION.split())}


@functools.cache
def translation_stops(language: str) -> frozenset[str]:
    """The words :func:`translate` leaves out of a ``language`` question as stop words: the language's
    stop words, :data:`CLITICS` and :data:`TRANSLATION_FUNCTION_WORDS`. Pure."""
    return _STOPS.get(language, frozenset()) | CLITICS.get(language, frozenset()) \
        | TRANSLATION_FUNCTION_WORDS.get(language, frozenset())


#: Stop words of one language only: evidence of a question's language.
EXCLUSIVE_STOPS: dict[str, frozenset[str]] = {
    lang: words - frozenset().union(*(w for other, w in _STOPS.items() if other != lang))
    for lang, words in _STOPS.items()}


def words_of(text: str, language: str) -> list[str]:
    """The content words of a text as the index holds them: normalised, alphabetic, at least
    :data:`MIN_WORD` letters, not a stop word of ``language`` nor a relaxable word."""
    stops = _STOPS.get(language, frozenset())
    return [w for w in normalize(text).split()
            if len(w) >= MIN_WORD and w.isalpha() and w not in stops and not relax.relaxable(w)]


def fold(word: str) -> str:
    """A normalised word with German ``ß`` written ``ss``, as a keyboard without it writes it
    ("Straße" / "Strasse", "großherzogliche" / "grossherzogliche"): the lexicon's entries and the
    question's words meet on this form (the normaliser keeps ``ß``, as the index's tokenizer does).
    Pure."""
    return word.replace("ß", "ss")


#: German umlauts as a keyboard without them writes them ("Auszaehlung", "Gebuehren", "aerztliche"), after a
#: letter that makes no diphthong with the ``e``'s vowel: never the ``ue`` of "Steuer", "neue", "Bauer", "Quelle".
_UMLAUT_SPELLT = re.compile(r"(?<=[^aeiq])([aou])e|^([aou])e")
#: The German plural and genitive ``s`` the Snowball stemmer leaves on a word: after a vowel or a letter it never
#: strips an ``s`` after ("LKWs", "Büros", "Risikos"), or on a word too short to stem ("Rats"); never after
#: ``e``, ``i`` or ``s`` ("hohes", "Preis" keep it: an ``-es`` is the stemmer's, an ``-is`` seldom a plural).
_PLURAL_S = re.compile(r"(?<=[^eis])s$")
#: The fewest letters a word keeps without its ``s`` (:func:`german_spellings`).
GERMAN_ENDING_MIN = 3


def unspelt_umlauts(word: str) -> str:
    """A normalised German word with its umlauts written ``ae``/``oe``/``ue`` as the normaliser writes an umlaut
    ("auszaehlung" → "auszahlung"; "steuer", "neue", "quelle" as they are: ``_UMLAUT_SPELLT``). Pure."""
    return _UMLAUT_SPELLT.sub(lambda m: m.group(1) or m.group(2), word)


def german_spellings(word: str) -> tuple[str, ...]:
    """The other spellings under which a normalised German word may be a lexicon entry, tried when its own
    form and stem are not: its umlauts written ``ae``/``oe``/``ue`` read as the normaliser writes an umlaut
    ("auszaehlung" → "auszahlung", "gebuehren" → "gebuhren"), then the word without the plural or genitive
    ``s`` the stemmer leaves on it (``_PLURAL_S``, at least :data:`GERMAN_ENDING_MIN` letters left: "lkws" →
    "lkw", "rats" → "rat"), also with its umlauts so read. Candidates only: :meth:`Lexicon.lookup` takes the
    first that is an entry as written. Pure."""
    unspelt = unspelt_umlauts(word)
    out = [unspelt] if unspelt != word else []
    out += [base[:-1] for base in dict.fromkeys((word, unspelt))
            if _PLURAL_S.search(base) and len(base) > GERMAN_ENDING_MIN]
    return tuple(dict.fromkeys(out))


def key_of(word: str, language: str, *, cached: bool = True) -> str:
    """The lexicon key of a normalised word: its Snowball stem in ``language``, or the word itself
    (too short to stem). ``cached=False`` when a table is built (:func:`lexicon`: its thousands of
    words not left in the query stemmer's cache, :func:`derive.index.analysis.stem_word`)."""
    return analysis.stem_word(word, language, cached=cached) or word


@dataclass(frozen=True)
class Pair:
    """One mined word pair with its evidence."""

    source: str  # source-language stem
    forms: tuple[str, ...]  # the source forms seen, most frequent first
    targets: tuple[str, ...]  # the French forms, most frequent first
    aligned: int  # aligned provisions holding both
    dice: float
    llr: float
    example: str  # work#anchor of one aligned provision holding both

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "forms": list(self.forms), "targets": list(self.targets),
                "aligned": self.aligned, "dice": round(self.dice, 3), "llr": round(self.llr, 1),
                "example": self.example}


def _llr(k11: int, k12: int, k21: int, k22: int) -> float:
    """Dunning's log-likelihood ratio of a 2×2 contingency table."""
    def h(*ks: int) -> float:
        total = sum(ks)
        return sum(k * math.log(k / total) for k in ks if k)
    return 2 * (h(k11, k12, k21, k22) - h(k11 + k12, k21 + k22) - h(k11 + k21, k12 + k22))


@dataclass
class Mined:
    """What :func:`mine` found: one-to-one pairs, and the source words shared with or foreign to French."""

    pairs: list[Pair]
    shared: list[str]
    foreign: list[str]
    provisions: int


def mine(aligned: Iterable[tuple[str, str, str]], source: str, *, min_aligned: int = MIN_ALIGNED,
         min_dice: float = MIN_DICE, max_words: int = MAX_WORDS, min_works: int = MIN_WORKS) -> Mined:
    """Word pairs of ``source`` → French from aligned provisions ``(example, source text, French
    text)``: counted on Snowball stems, kept when the French stem is the source stem's best partner
    by Dice and the source stem is the French stem's best or nearly (:data:`NEAR_BEST`), the Dice is
    at least ``min_dice`` and at least ``min_aligned`` provisions of at least ``min_works`` works hold
    both. A provision's texts are counted once however many states repeat them (``example`` is
    ``work#anchor``). Of a pair, the forms listed on either side are those that carry it
    (:data:`FORM_SHARE`); a French form that the source text holds as often (an untranslated
    English word, "securities") is never a target; a negated source form needs a negated French
    term unless its positive word does not carry the pair (:data:`NEGATING_PREFIXES`). Pure."""
    src_df: Counter[str] = Counter()
    fr_df: Counter[str] = Counter()
    both: Counter[tuple[str, str]] = Counter()
    example: dict[tuple[str, str], str] = {}
    src_forms: dict[str, Counter[str]] = {}
    fr_forms: dict[str, Counter[str]] = {}
    same: Counter[str] = Counter()  # source surface word also in the aligned French text
    seen: Counter[str] = Counter()  # source surface word, provisions
    provisions = 0
    fr_seen: Counter[str] = Counter()  # French surface word, provisions
    # (source words, French words, French stems, source stems) per provision
    kept_sets: list[tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str]]] = []
    works: dict[tuple[str, str], set[str]] = {}  # pair → the works whose provisions hold it
    counted: set[tuple[str, str, str]] = set()
    for where, src_text, fr_text in aligned:
        anchor_key = (where, src_text, fr_text)
        if anchor_key in counted:
            continue  # the same provision repeated by another state of the work: no new evidence
        counted.add(anchor_key)
        work = where.split("#", 1)[0]
        # sorted, never a set's order: ties between partners are broken the same way on every run
        src_words = sorted(set(words_of(src_text, source)))
        fr_set = set(words_of(fr_text, "fr"))
        fr_words = sorted(fr_set)
        for w in src_words:
            seen[w] += 1
            same[w] += w in fr_set
        fr_seen.update(fr_words)
        src = sorted({key_of(w, source) for w in src_words})
        fr = sorted({key_of(w, "fr") for w in fr_words})
        for w in src_words:
            src_forms.setdefault(key_of(w, source), Counter())[w] += 1
        for w in fr_words:
            fr_forms.setdefault(key_of(w, "fr"), Counter())[w] += 1
        if not src or not fr or len(src) > max_words or len(fr) > max_words:
            continue
        provisions += 1
        kept_sets.append((frozenset(src_words), frozenset(fr_words), frozenset(fr), frozenset(src)))
        src_df.update(src)
        fr_df.update(fr)
        for s in src:
            for f in fr:
                both[(s, f)] += 1
                if (s, f) not in example:
                    example[(s, f)] = where
                    works[(s, f)] = {work}
                elif len(works[(s, f)]) < min_works:
                    works[(s, f)].add(work)
    dice = {p: 2 * n / (src_df[p[0]] + fr_df[p[1]]) for p, n in both.items()
            if n >= min_aligned and len(works[p]) >= min_works}
    best_src: dict[str, tuple[float, str]] = {}
    best_fr: dict[str, tuple[float, str]] = {}
    for (s, f), d in dice.items():
        if d > best_src.get(s, (0.0, ""))[0]:
            best_src[s] = (d, f)
        if d > best_fr.get(f, (0.0, ""))[0]:
            best_fr[f] = (d, s)
    # each source stem's best partner, when it is the French stem's best partner too or nearly as
    # strong (NEAR_BEST of the best: "right" and "law" both give "droit")
    chosen = {s: f for s, (d, f) in best_src.items() if d >= min_dice and d >= NEAR_BEST * best_fr[f][0]}
    # which forms of a stem carry the pair: a form is kept when at least FORM_SHARE of the aligned
    # provisions holding it hold the French stem too ("parent" → "mère" in "parent undertaking",
    # never "parental")
    form_seen: Counter[str] = Counter()
    form_both: Counter[str] = Counter()
    # a French form carries its pair when the provisions holding it hold a source partner of its stem
    target_seen: Counter[str] = Counter()
    target_both: Counter[str] = Counter()
    partners: dict[str, set[str]] = {}
    for s, f in chosen.items():
        partners.setdefault(f, set()).add(s)
    # the positive word of each negated form of a chosen stem ("employment" of "unemployment"), with
    # the French stem its negated form pairs with: does the positive word carry that French stem too?
    positive = {rest: chosen[s] for s in chosen for w in src_forms[s] if (rest := _positive(w, seen)) is not None}
    positive_seen: Counter[str] = Counter()
    positive_both: Counter[str] = Counter()
    for held_words, held_fr_words, held_fr, held_src in kept_sets:
        for w in held_words:
            partner = chosen.get(key_of(w, source))
            if partner is not None:
                form_seen[w] += 1
                form_both[w] += partner in held_fr
            if w in positive:
                positive_seen[w] += 1
                positive_both[w] += positive[w] in held_fr
        for w in held_fr_words:
            stem = key_of(w, "fr")
            if stem in partners:
                target_seen[w] += 1
                target_both[w] += bool(partners[stem] & held_src)
    pairs = []
    for s, f in sorted(chosen.items()):
        n = both[(s, f)]
        d = dice[(s, f)]
        llr = _llr(n, src_df[s] - n, fr_df[f] - n, provisions - src_df[s] - fr_df[f] + n)
        forms = tuple(w for w, _ in src_forms[s].most_common()
                      if form_seen[w] >= 2 and form_both[w] >= FORM_SHARE * form_seen[w]
                      and same[w] < SHARED_SHARE * max(seen[w], 1))
        targets = tuple(w for w, _ in fr_forms[f].most_common()
                        if target_both[w] >= FORM_SHARE * max(target_seen[w], 1) and seen[w] < fr_seen[w]
                        )[:MAX_TARGET_FORMS]
        forms = tuple(w for w in forms if not _negation_lost(w, targets, seen, positive_seen, positive_both))
        if not forms or not targets or set(forms) & set(targets) or len(forms[0]) < 4 or len(targets[0]) < 4:
            continue  # the same word in both languages (shared), an acronym, or no form carries it
        pairs.append(Pair(s, forms, targets, n, d, llr, example[(s, f)]))
    shared = sorted(w for w, n in seen.items() if n >= FOREIGN_MIN and same[w] >= SHARED_SHARE * n)
    foreign = sorted(w for w, n in seen.items() if n >= FOREIGN_MIN and same[w] <= FOREIGN_SHARE * n)
    return Mined(pairs, shared, foreign, provisions)


def _positive(form: str, seen: Counter[str]) -> str | None:
    """The positive word of a negated source form ("unmanned" → "manned": a negating prefix and a
    word of the source text of at least :data:`NEGATED_MIN` letters), or ``None``."""
    for prefix in NEGATING_PREFIXES:
        rest = form[len(prefix):]
        if form.startswith(prefix) and len(rest) >= NEGATED_MIN and seen[rest] > 0:
            return rest
    return None


def _negation_lost(form: str, targets: Sequence[str], seen: Counter[str], positive_seen: Counter[str],
                   positive_both: Counter[str]) -> bool:
    """Whether a source form is a negated word ("unmanned": ``un`` + "manned", a word of the source
    text) whose French targets are not negated while its positive word carries the same French stem
    (:data:`FORM_SHARE` of the aligned provisions holding "manned" hold "équipage"): the pair then
    translates the positive word. A positive word that does not carry it ("validity" is seldom beside
    "nullité") leaves the negated word its own pair ("invalidity" → "nullité")."""
    rest = _positive(form, seen)
    if rest is None or any(t.startswith(FRENCH_NEGATIONS) for t in targets):
        return False
    return positive_both[rest] >= FORM_SHARE * max(positive_seen[rest], 1)


def label_pairs(labels: Iterable[tuple[str, str, str, str]]) -> list[dict[str, Any]]:
    """Phrase entries from aligned concept labels ``(identifier, kind, English label, French
    label)`` (EuroVoc): a label of two or three words whose French differs from the English."""
    out: dict[str, dict[str, Any]] = {}
    for ident, kind, en, fr in labels:
        src, tgt = normalize(en), normalize(fr)
        if not src or not tgt or src == tgt or not 2 <= len(src.split()) <= 3 or len(tgt.split()) > 5:
            continue
        entry = out.setdefault(src, {"source": src, "targets": [], "provenance": f"{kind} {ident}"})
        if tgt not in entry["targets"]:
            entry["targets"].append(tgt)
    return [out[k] for k in sorted(out)]


@dataclass(frozen=True)
class Lexicon:
    """The lexicon of one source language, as the planner reads it. Held compactly, one copy per
    serving process (docs/search.md, "The lexicon's form in memory"): equal strings and equal term
    tuples are one object, a stem with one form maps to the form itself, and :attr:`origin` lists
    only the entries whose origin is not :attr:`default_origin`."""

    words: dict[str, tuple[str, ...]]  # source word form → French terms
    #: source stem → its forms in ``words``: the form itself when it is the only one, else a tuple
    stems: dict[str, str | tuple[str, ...]]
    phrases: dict[tuple[str, ...], tuple[str, ...]]  # source phrase words → French terms
    shared: frozenset[str]  # source words French holds as they are
    foreign: frozenset[str]  # source words no French text holds
    french: frozenset[str]  # the French words the lexicon's targets are made of
    phrase_words: frozenset[str]  # the source words of its phrase entries
    #: where an entry comes from (``mined`` / ``reviewed`` / ``eurovoc``), by form or phrase, when it
    #: is not :attr:`default_origin` (read through :meth:`origin_of`)
    origin: dict[str, str]
    #: the most words of a phrase entry (read by :func:`translate` at every question)
    longest: int = 0
    #: the origin of every entry :attr:`origin` does not list (the most common one)
    default_origin: str = ""

    def origin_of(self, name: str, default: str) -> str:
        """Where the entry of a form or a phrase (its words joined by a space) comes from, or
        ``default`` when the lexicon has no such entry."""
        found = self.origin.get(name)
        if found is not None:
            return found
        if self.default_origin and (name in self.words or tuple(name.split(" ")) in self.phrases):
            return self.default_origin
        return default

    def lookup(self, word: str, language: str) -> tuple[str, ...] | None:
        """The French terms of a source word: its own entry, or that of a form of the same stem
        it inflects (at most two letters apart: "wages" → "wage", never "parental" → "parent"). A
        sibling's pair may be wrong ("customs" takes "customer"'s « client »); it only widens the word's
        OR group, while a refused pair can leave the word untranslated and the question unanswered
        ("controllers" → « contrôles »: ADR 0053, ADR 0061 addendum)."""
        word = fold(word)
        found = self.words.get(word)
        if found is not None:
            return found
        forms = self.stems.get(key_of(word, language), ())
        for form in (forms,) if isinstance(forms, str) else forms:
            if abs(len(form) - len(word)) <= 2 and analysis.inflection(word, form):
                return self.words[form]
        for other in german_spellings(word) if language == "de" else ():
            found = self.words.get(other)
            if found is not None:
                return found
        return None


@dataclass(frozen=True)
class Dictionary:
    """The dictionary tier of one source language (``xlang_dict.json``, selected from FreeDict by
    ``scripts/dict_xlang.py``), held packed: one UTF-8 byte string of lines ``stem<TAB>word<TAB>term…``
    sorted by the word's stem (:func:`key_of`), and the offset of each line; a look-up is a binary
    search on the stem. A dictionary of tens of thousands of words costs its text's bytes and four
    per line, not a dictionary entry, two strings and a tuple per word (docs/search.md, "The
    lexicon's form in memory"). The lowest tier: asked only for a word that the lexicon does not
    translate, no compound cut reaches and no held cognate spells (:func:`translate`); never evidence of
    a question's language."""

    text: bytes
    starts: array.array[int]

    def __len__(self) -> int:
        return len(self.starts)

    def _line(self, i: int) -> list[str]:
        end = self.text.index(b"\n", self.starts[i])
        return self.text[self.starts[i]:end].decode("utf-8").split("\t")

    def _stem(self, i: int) -> bytes:
        return self.text[self.starts[i]:self.text.index(b"\t", self.starts[i])]

    def entries(self) -> Iterator[tuple[str, tuple[str, ...]]]:
        """Every ``(word, French terms)``, in the order of their stems."""
        for i in range(len(self.starts)):
            _, word, *terms = self._line(i)
            yield word, tuple(terms)

    def lookup(self, word: str, language: str) -> tuple[str, ...] | None:
        """The French terms of a source word, or of a word of its stem it inflects, at most two letters
        apart (as :meth:`Lexicon.lookup`: "Kündigungen" takes "Kündigung"'s), its own entry first."""
        word = fold(word)
        stem = key_of(word, language).encode("utf-8")
        i = bisect.bisect_left(range(len(self.starts)), stem, key=self._stem)
        siblings = []
        while i < len(self.starts) and self._stem(i) == stem:
            _, form, *terms = self._line(i)
            if form == word:
                return tuple(terms)
            if abs(len(form) - len(word)) <= 2 and analysis.inflection(word, form):
                siblings.append(tuple(terms))
            i += 1
        return siblings[0] if siblings else None


def _read(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}


def rejected(language: str) -> dict[str, str]:
    """The mined pairs the review rejected (``rejected`` of the reviewed file), by source stem: the
    wrong pairs no mining rule removes as a class, each with the reason and its evidence. The mining
    script leaves them out of the mined file and records them under ``not_used``."""
    return {str(e["source"]): str(e["reason"]) for e in _read(REVIEWED_PATH).get("rejected", [])
            if e.get("language") == language}


@functools.cache
def lexicon(language: str) -> Lexicon:
    """The lexicon of ``language`` (``en``/``de``) → French: reviewed and mined entries merged
    (reviewed first), normalised. An absent file gives no entries. Built once per process in its
    compact form (:class:`Lexicon`; its stems through a stemmer that remembers nothing,
    :func:`derive.index.analysis.stem_word` with ``cached=False``)."""
    mined = _read(MINED_PATH).get("languages", {}).get(language, {})
    reviewed = [e for e in _read(REVIEWED_PATH).get("entries", []) if e.get("language") == language]
    stops = _STOPS.get(language, frozenset())
    words: dict[str, list[str]] = {}
    stems: dict[str, list[str]] = {}
    phrases: dict[tuple[str, ...], list[str]] = {}
    origin: dict[str, str] = {}
    # one object per distinct string or tuple of the lexicon (a pair's targets are normalised again
    # for each of its forms; a French word is a target word and a word of the French set)
    canon: dict[Any, Any] = {}
    one = canon.setdefault
    for before in SOURCES[:SOURCES.index(language)] if language in SOURCES else ():
        # the French terms and words of the lexicons built before this one: shared with them
        built = lexicon(before)
        for terms in (*built.words.values(), *built.phrases.values()):
            one(terms, terms)
            for term in terms:
                one(term, term)
        for word in built.french:
            one(word, word)

    def add(source: str, targets: Iterable[str], how: str) -> None:
        parts = tuple(one(f, f) for w in normalize(source).split() if w not in stops for f in (fold(w),))
        found = [one(t, t) for t in (normalize(v) for v in targets) if t]
        if not parts or not found:
            return
        if len(parts) == 1:
            into = words.setdefault(parts[0], [])
            stem = key_of(parts[0], language, cached=False)
            forms = stems.setdefault(one(stem, stem), [])
            forms += [] if parts[0] in forms else [parts[0]]
        else:
            into = phrases.setdefault(parts, [])
        into += [t for t in found if t not in into]
        name = " ".join(parts)
        origin[name] = how if origin.get(name, how) == how else f"{origin[name]}+{how}"

    for entry in reviewed:
        add(str(entry["word"]), entry["terms"], "reviewed")
    for entry in mined.get("pairs", []):
        for form in entry["forms"]:
            add(str(form), entry["targets"], "mined")
    for entry in mined.get("phrases", []):
        add(str(entry["source"]), entry["targets"], "eurovoc")
    # a frozenset made from a dict is sized for its entries at once (one made from a list grows by
    # fours and can end at twice the table: 0.5 MB for the English ``foreign`` words, 0.26 so made)
    french = dict.fromkeys(one(w, w) for terms in [*words.values(), *phrases.values()] for t in terms
                           for w in t.split())
    common = Counter(origin.values()).most_common(1)
    default = common[0][0] if common else ""
    return Lexicon({k: one(tuple(v), tuple(v)) for k, v in words.items()},
                   {k: v[0] if len(v) == 1 else tuple(v) for k, v in stems.items()},
                   {k: one(tuple(v), tuple(v)) for k, v in phrases.items()},
                   frozenset(dict.fromkeys(one(w, w) for w in mined.get("shared", []))),
                   frozenset(dict.fromkeys(one(w, w) for w in mined.get("foreign", []))), frozenset(french),
                   frozenset(dict.fromkeys(w for p in phrases for w in p)),
                   {k: v for k, v in origin.items() if v != default}, max((len(p) for p in phrases), default=0),
                   default)


def packed(entries: Iterable[tuple[str, Sequence[str]]], language: str) -> Dictionary:
    """A :class:`Dictionary` of ``(source word, French terms)`` pairs of ``language``: each word folded
    (:func:`fold`) and keyed by its stem (through a stemmer that remembers nothing). Pure."""
    lines = sorted(f"{key_of(w, language, cached=False)}\t{w}\t" + "\t".join(terms) + "\n"
                   for word, terms in entries for w in (fold(word),))
    starts = array.array("I")
    offset = 0
    for line in lines:
        starts.append(offset)
        offset += len(line.encode("utf-8"))
    return Dictionary("".join(lines).encode("utf-8"), starts)


@functools.cache
def dictionary(language: str) -> Dictionary:
    """The dictionary tier of ``language`` (``en``/``de``) → French, built once per process in its
    packed form (:func:`packed`). An absent file or language gives no entries (the committed file
    holds German only: ADR 0123)."""
    entries = _read(DICTIONARY_PATH).get("languages", {}).get(language, {}).get("entries", [])
    return packed(((str(e["word"]), [str(t) for t in e["terms"]]) for e in entries), language)


#: The ``source`` of a dictionary translation in ``Translation.used`` (``query_plan.translations``).
DICTIONARY = "dictionary"
#: The sources whose translations add terms only and never count as a translated word (:func:`translate`,
#: and the relaxation's fillers, ``serve.core.ops.search.translated_fillers``): a cognate, and a
#: dictionary sense, which may be another sense than the question's ("permit" « permettre »).
UNCOUNTED = frozenset({"cognate", DICTIONARY})
#: The ``source`` of a German compound cut into parts the lower tiers reach (:func:`reached_parts`), before
#: its parts ("compound parts steuer+gutschrift"); its uncounted parts are named in ``UNCOUNTED`` by word.
COMPOUND_REACHED = "compound parts"


#: A question's words that nothing translates and no French text holds leave its search words only
#: when at least this many of its words are translated …
MIN_TRANSLATED = 2
#: … and at least this many times as many as they are ("häusliche Gewalt Wegweisung aus der
#: Wohnung": three translated, "wegweisung" left out). With fewer, the question is searched as it is
#: ("space elevator construction permit": one word translated, so no act on "espace" answers it).
UNTRANSLATED_SHARE = 3
#: English and German words that only frame a question about the law ("rules for …", "which
#: provisions …", "welche Vorschriften …", "law about …"): they name no subject, so when nothing
#: translates them (a frame word with a lexicon entry, "law" → "loi", "Gesetz" → "loi", stays a
#: search word) they leave the search words of a translated question (``Translation.fillers``)
#: instead of being required in French text that cannot hold them, or of making the question
#: untranslatable (an English ``foreign`` word: "rules"). Only when at least two other words are left.
FRAME_FILLERS: dict[str, frozenset[str]] = {
    "en": frozenset({
        "rule", "rules", "regarding", "governing", "govern", "governs", "laid", "lays", "set", "sets", "setting",
        "out", "down", "up", "which", "what", "whose", "any", "need", "needed", "needs", "allowed", "required",
        "get", "getting", "obtaining", "luxembourgish", "piece",
        # light verbs (twenty-fifth session): neither stop nor question-frame words of the planner
        # (``relax._QUESTION`` holds the modals), they were required words no French text holds ("give": a
        # mined ``foreign`` word left "how much notice do I have to give" untranslated); "will" (a
        # testament) and "let" (a flat) name things and stay
        "give", "giving", "like", "come", "go", "make",
    }),
    "de": frozenset({
        "welche", "welcher", "welches", "welchen", "gibt", "gelten", "gilt", "geltende",
        "vorschriften", "regeln", "regelungen", "bestimmungen", "rechtliche", "rechtlichen", "rahmen", "betreffend",
        "bezuglich", "luxemburgisches", "luxemburgische", "luxemburgischen", "luxemburgischer",
        # pronouns, light verbs, conjunctions and quantity words (twenty-fifth session): neither stop nor
        # question-frame words of the planner (``relax._QUESTION`` holds the modals), they were required
        # German words no French text holds
        "wenn", "man", "mich", "mir", "nur", "wieder", "seine", "seinen", "seiner", "ihrem", "ihren",
        "eigene", "eigenen", "jemand", "brauche", "brauchen", "machen", "bekommt", "bekommen", "gehen",
        "viele", "viel", "lange", "beim", "weil",
    }),
}
#: German linking elements between a compound's parts ("Jahr·es·urlaub", "Verzug·s·zinsen",
#: "Straße·n·verkehr"), tried longest first; none at all is tried last.
COMPOUND_LINKS = ("es", "en", "s", "n", "e")
#: A compound's part has at least this many letters.
COMPOUND_MIN_PART = 3


#: The heads of a German compound that names an act by its form ("Spielzeugrichtlinie"): such a
#: compound is a name, read by the act-name checks (``serve.core.formnames``), not evidence of the
#: question's language (:func:`german_compound`).
ACT_FORM_HEADS = frozenset({"richtlinie", "verordnung", "gesetz", "beschluss"})


def german_compound(word: str) -> bool:
    """Whether a word is a German compound the lexicon cuts into words it knows (:func:`compound_parts`:
    "elektrofahrzeugen" → "elektro" + "fahrzeugen"), other than an act's name by its form
    (:data:`ACT_FORM_HEADS`): evidence that a question is German. Pure."""
    parts = compound_parts(word, "de")
    return parts is not None and parts[-1] not in ACT_FORM_HEADS


@functools.lru_cache(maxsize=4096)
def compound_parts(word: str, language: str) -> tuple[str, ...] | None:
    """A German compound the lexicon does not hold as a word, as parts it does hold: the longest head
    the lexicon knows, and a modifier it knows (or that is itself such a compound), a linking
    element between them left out — "verzugszinsen" → ("verzug", "zinsen") when both are entries.
    ``None`` for another language, a word the lexicon holds, or one it cannot cut whole. Pure."""
    if language != "de" or len(word) < 2 * COMPOUND_MIN_PART:
        return None
    lex = lexicon(language)
    if lex.lookup(word, language) is not None:
        return None
    for modifier, head in _known_head_cuts(word, language, COMPOUND_MIN_PART):
        if lex.lookup(modifier, language) is not None:
            return (modifier, head)
        inner = compound_parts(modifier, language)
        if inner is not None:
            return (*inner, head)
    return None


def _known_head_cuts(word: str, language: str, shortest: int) -> Iterator[tuple[str, str]]:
    """``(modifier, head)`` for each cut of a compound whose head the lexicon knows, the longest head
    first, and for each linking element the modifier ends with (:data:`COMPOUND_LINKS`, left out),
    then none; a modifier shorter than ``shortest`` letters is not one. Pure."""
    lex = lexicon(language)
    for cut in range(shortest, len(word) - COMPOUND_MIN_PART + 1):
        head = word[cut:]
        if lex.lookup(head, language) is None:
            continue
        for modifier in _unlinked(word[:cut], shortest):
            yield modifier, head


def _unlinked(left: str, shortest: int) -> Iterator[str]:
    """The modifiers a compound's part before its head (``left``) may be: without each linking element it
    ends with (:data:`COMPOUND_LINKS`), then as it is; none shorter than ``shortest`` letters. Pure."""
    for link in (*COMPOUND_LINKS, ""):
        if link and not left.endswith(link):
            continue
        modifier = left[:len(left) - len(link)]
        if len(modifier) >= shortest:
            yield modifier


#: German endings of learned words and the French endings of the same word ("Identität" →
#: "identité", "geologische" → "géologique", "Diskriminierung" → "discrimination", "Politik" →
#: "politique"), on normalised (accent-folded) words, the longest ending first. A candidate is a
#: translation only when the searched index holds it as a word (:func:`cognates`, ``held``): a
#: rule proposes, the French text decides.
COGNATE_ENDINGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # a learned noun in -orium (lu49b): "Observatorium" → "observatoire", "Laboratorium" → "laboratoire",
    # "Moratorium" → "moratoire", "Territorium" → "territoire"
    ("orien", ("oires",)), ("orium", ("oire",)),
    ("isierungen", ("isations",)), ("isierung", ("isation",)), ("ierungen", ("ations",)), ("ierung", ("ation",)),
    ("itaten", ("ites",)), ("itat", ("ite", "ites")),
    ("ischen", ("iques", "ique")), ("ischer", ("ique",)), ("isches", ("ique",)), ("ische", ("ique", "iques")),
    ("isch", ("ique",)), ("ismus", ("isme",)), ("ionen", ("ions",)), ("ion", ("ion",)),
    # participles of the learned -ieren verbs, and adjectives in -al / -ell (xlu33): "qualifizierte" →
    # "qualifiée", "korrelierte" → "corrélée", "regionalen" → "régionales", "formelle" → "formelle";
    # a noun in -at / -ate: "Zertifikate" → "certificats", "Mandat" → "mandat"
    ("ifizierten", ("ifies", "ifiees")), ("ifizierte", ("ifiee", "ifie", "ifiees", "ifies")),
    ("ifiziert", ("ifie",)), ("ierten", ("es", "ees")), ("ierte", ("ee", "e", "ees", "es")), ("iert", ("e",)),
    ("alen", ("ales", "aux")), ("ale", ("ale", "al")), ("aler", ("al",)), ("ales", ("al",)),
    ("ellen", ("elles", "els")), ("elle", ("elle", "el")), ("eller", ("el",)),
    ("aten", ("ats",)), ("ate", ("ats",)), ("at", ("at",)),
    ("iken", ("iques",)), ("ik", ("ique", "iques")), ("uren", ("ures",)), ("ur", ("ure",)),
    ("enzen", ("ences",)), ("enz", ("ence",)), ("anzen", ("ances",)), ("anz", ("ance",)),
    ("oren", ("eurs",)), ("or", ("eur",)), ("ien", ("ies",)), ("ie", ("ie",)),
    # a person of a trade or school in -ist (de37): "Journalist" → "journaliste", "Optometristen" →
    # "optométristes", "Spezialisten" → "spécialistes"
    ("isten", ("istes",)), ("ist", ("iste",)),
    # a noun or adjective in -ar / -är (lu48b): "Notar" → "notaire", "Honorare" → "honoraires", "Formular" →
    # "formulaire", "konsular" → "consulaire", "Sekretär" → "secrétaire" (the umlaut folded)
    ("aren", ("aires",)), ("are", ("aires", "aire")), ("ar", ("aire",)),
)
#: English endings of learned words and the French endings of the same word ("army" → "armée",
#: "strategic" → "stratégique", "electricity" → "électricité"), on normalised words, the longest ending
#: first. Asked only for an English word the lexicon has no entry for (the mined pairs cover the common
#: legal words; this is for the rarer ones, "army" in "recruitment of volunteer soldiers in the
#: Luxembourg army"); as for German, a candidate the searched text does not hold is never proposed.
ENGLISH_COGNATE_ENDINGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("izations", ("isations",)), ("ization", ("isation",)), ("ities", ("ites",)), ("ity", ("ite", "ites")),
    ("ical", ("ique",)), ("ics", ("iques", "ique")), ("ic", ("ique", "iques")),
    ("isms", ("ismes",)), ("ism", ("isme",)), ("ists", ("istes",)), ("ist", ("iste",)),
    ("ives", ("ifs", "ives")), ("ive", ("if", "ive")), ("ous", ("eux", "euse")),
    ("aries", ("aires",)), ("ary", ("aire",)), ("ories", ("oires",)), ("ory", ("oire",)),
    ("ors", ("eurs",)), ("or", ("eur",)), ("ized", ("ise", "ises")), ("ize", ("iser",)),
    # a trade or science's person in -ian, a participle in -ied (xlu33): "technician" → "technicien",
    # "modified" → "modifié"
    ("ians", ("iens",)), ("ian", ("ien",)), ("ied", ("ie", "iee", "ies", "iees")),
    ("ies", ("ies", "ees")), ("y", ("ie", "ee")),
)
#: The ending rules of each language :func:`cognates` proposes French spellings for.
COGNATE_RULES: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "de": COGNATE_ENDINGS, "en": ENGLISH_COGNATE_ENDINGS}
#: A cognate's stem (the word without its ending) has at least this many letters.
COGNATE_MIN_STEM = 3


def _french_spelling(stem: str) -> str:
    """A German stem as French spells it: ``kk`` → ``cc``, ``k`` before ``a o u l r t`` and ``z``
    before ``e i y`` → ``c`` ("Kommission", "Konkurrenz", "sozial", "Konzession", "Zertifikat"). Pure."""
    return re.sub(r"z(?=[eiy])", "c", re.sub(r"k(?=[aoulrt])", "c", stem.replace("kk", "cc")))


def cognates(word: str, language: str) -> tuple[str, ...]:
    """The French words a German or English learned word may be (normalised): its ending replaced
    by the French one (:data:`COGNATE_ENDINGS`, :data:`ENGLISH_COGNATE_ENDINGS`), German ``k`` before
    ``a o u l r t`` read as ``c`` and ``z`` before ``i`` as ``c`` ("Kommission", "Konkurrenz",
    "sozial"). Candidates only, the word itself never: which of them is French is for the searched
    text to say. Empty for another language or a word with no such ending. Pure."""
    rules = COGNATE_RULES.get(language)
    if rules is None or not word.isalpha():
        return ()
    for ending, french in rules:
        stem = word[:-len(ending)]
        if word.endswith(ending) and len(stem) >= COGNATE_MIN_STEM:
            # German spelling read on the whole French word: the stem's last letter before the French
            # ending ("Zertifik·ate" → "certificats")
            spelt = [_french_spelling(stem + f) if language == "de" else stem + f for f in french]
            return tuple(c for c in dict.fromkeys([*spelt, *(stem + f for f in french)]) if c != word)
    return ()


#: The fewest letters of a compound's part spelt as a French word (:func:`reached_parts`): "statut", "pension",
#: "garantie" — never "rat" (« conseil »), "art" (« sorte »), which German and French spell alike in other senses.
FRENCH_PART_MIN = 5


#: German modifiers that are no word of their own but say one thing before any head (lu49b): a bound ("Mindest·lohn",
#: "Höchst·betrag") or a special kind ("Sonder·ausbildung"), with the French words the acts say it by. They reach a
#: compound's modifier only (:func:`part_terms`, from :func:`reached_parts`) and never count as a translated word
#: (:data:`UNCOUNTED`, as a cognate): an entry of their own made questions translatable whose subject was the head
#: nothing translates ("Mindestalter für den Kauf von Energydrinks", a judged negative: ADR 0157).
GERMAN_PREFIX_TERMS: dict[str, tuple[str, ...]] = {
    "mindest": ("minimum", "minimal", "minimale", "minimaux", "minimales", "minima"),
    "hochst": ("maximum", "maximal", "maximale", "maximaux", "maximales", "maxima"),
    "sonder": ("special", "speciale", "speciaux", "speciales", "extraordinaire"),
}


def prefix_terms(part: str, held: Callable[[str], bool]) -> tuple[str, ...]:
    """The French words of a German modifier of :data:`GERMAN_PREFIX_TERMS` that the searched text holds (empty
    for any other part). Pure (``held`` aside)."""
    return tuple(t for t in GERMAN_PREFIX_TERMS.get(part, ()) if held(t))


def part_terms(part: str, language: str, held: Callable[[str], bool]) -> tuple[tuple[str, ...], bool] | None:
    """The French terms of one part of a German compound and whether they count as a translated word:
    the lexicon's entry (counted), else the part's held :func:`cognates` ("Kontroll·zonen" « contrôle »),
    or the part itself when French text holds it as it is spelt and the lexicon knows it as French
    ("statut", "pension", "garantie": at least :data:`FRENCH_PART_MIN` letters) — those never count
    (:data:`UNCOUNTED`). Never the :func:`dictionary` tier: its senses of a compound's fragment are
    another word's ("Leih·mutterschaft" « prêter », "Leit·programm" « chef », "Hilfs·lehrer" « secours »),
    and a compound so cut answered judged negatives ("Weihnachts·markt" « noël » + « marché »).
    ``None`` when nothing reaches it. Pure (``held`` aside)."""
    found = lexicon(language).lookup(part, language)
    if found is not None:
        return found, True
    bound = prefix_terms(part, held) if language == "de" else ()
    if bound:
        return bound, False
    similar = tuple(c for c in cognates(part, language) if held(c))
    if similar:
        return similar, False
    if len(part) >= FRENCH_PART_MIN and (part in lexicon(language).french or part in lexicon("en").french) \
            and held(part):
        return (), False
    return None


def reached_parts(word: str, language: str, held: Callable[[str], bool]
                  ) -> tuple[tuple[str, tuple[str, ...], bool], ...] | None:
    """A German compound that neither :func:`compound_parts` nor :func:`learned_compound` cuts, as parts
    when :func:`part_terms` reaches each of them (the lexicon, a held cognate, a French spelling): the
    longest head first, the modifier (a linking element left out) of at least :data:`COMPOUND_MIN_PART`
    letters, itself a part or a compound cut so (:func:`compound_parts`, or this) — "Beamten·pension"
    (« fonctionnaires », « pension » as French spells it), "Hochwasser·risiko·management". Each part is
    searched with its terms, as :func:`compound_parts`' are: the compound names one thing by all of them.
    Returns ``((part, terms, counted), …)``; ``None`` for another language or no such cut. At most one
    ``held`` look-up per cognate and French spelling of each cut tried. Pure (``held`` aside)."""
    if language != "de" or not word.isalpha() or len(word) < 2 * COMPOUND_MIN_PART:
        return None
    lex = lexicon(language)
    for cut in range(COMPOUND_MIN_PART, len(word) - COMPOUND_MIN_PART + 1):
        head = word[cut:]
        if head in ACT_FORM_HEADS:
            continue
        head_terms = part_terms(head, language, held)
        if head_terms is None:
            continue
        for modifier in _unlinked(word[:cut], COMPOUND_MIN_PART):
            modifier_terms = part_terms(modifier, language, held)
            if modifier_terms is not None:
                return (modifier, *modifier_terms), (head, *head_terms)
            inner = compound_parts(modifier, language)
            if inner is not None:
                return (*((p, lex.lookup(p, language) or (), True) for p in inner), (head, *head_terms))
            deeper = reached_parts(modifier, language, held)
            if deeper is not None:
                return (*deeper, (head, *head_terms))
    return None


#: The fewest letters of a compound's modifier read as a learned word (:func:`learned_compound`).
LEARNED_MODIFIER_MIN = 5


def learned_compound(word: str, language: str, held: Callable[[str], bool]
                     ) -> tuple[str, str, tuple[str, ...]] | None:
    """A German compound :func:`compound_parts` cannot cut because its modifier is a learned word the
    lexicon lacks: the longest head the lexicon knows, and a modifier (a linking element left out)
    of at least :data:`LEARNED_MODIFIER_MIN` letters that the searched text holds as French —
    through its :func:`cognates` ("Ethik·kommission" → « éthique » + « commission »,
    "Dokumentation·s·pflichten") or as it is spelt, a French word of the lexicon's terms
    ("Pension·s·kassen" → « pension » + « caisse »). Returns ``(modifier, head, the modifier's held
    cognates)``; ``None`` for another language or when no cut holds. As for :func:`cognates`, a rule
    proposes and the French text (``held``) decides. One ``held`` look-up per cognate candidate of each cut
    whose head the lexicon knows (at most 4 for a word of the readable files' German questions)."""
    if language != "de" or len(word) < LEARNED_MODIFIER_MIN + COMPOUND_MIN_PART:
        return None
    lex = lexicon(language)
    for modifier, head in _known_head_cuts(word, language, LEARNED_MODIFIER_MIN):
        if not modifier.isalpha():
            continue
        similar = tuple(c for c in cognates(modifier, language) if held(c))
        if similar or (modifier in lex.french and held(modifier)):
            return modifier, head, similar
    return None


def query_language(words: Sequence[str]) -> str | None:
    """The language of a question's normalised words, when it is told: the most evidence among
    French, English and German — stop words of one language only, words only the English or
    German lexicon knows (a German compound it cuts into words it knows, :func:`german_compound`, among
    them), and words the mined English pairs' French is made of for French; a word French holds
    as it is, or one that is on both sides ("minimum", "location"), counts for none. ``None`` on no evidence or a tie."""
    score: Counter[str] = Counter()
    for w in words:
        for lang, stops in EXCLUSIVE_STOPS.items():
            if w in stops:
                score[lang] += 1
        if any(w in lexicon(lang).shared for lang in SOURCES):
            continue  # the same word in French: no evidence
        # French evidence is the French of the mined English pairs only: the miner puts a word spelt
        # alike on both sides of the aligned texts among the ``shared`` words, while the German
        # lexicon's French terms are written by a reviewer and include words English spells alike
        # ("classes", "education", "institutions"), which would tell an English question as French
        # (ADR 0061 addendum)
        french = w in lexicon("en").french
        sources = [lang for lang in SOURCES if (lex := lexicon(lang)).lookup(w, lang) is not None
                   or w in lex.foreign or w in lex.phrase_words]
        if not sources and not french and german_compound(w):
            sources = ["de"]  # a German compound of words the lexicon knows ("Elektrofahrzeugen")
        if french != bool(sources):  # a word of both sides ("minimum", "location") tells nothing
            for lang in sources or ["fr"]:
                score[lang] += 1
    if not score:
        return None
    (first, n), *rest = score.most_common()
    return None if rest and rest[0][1] == n else first


@dataclass
class Translation:
    """A question's terms with its foreign words' French terms (OR-alternatives) and what was used."""

    terms: list[str]
    alternatives: dict[str, list[str]]
    #: ``{"from": word, "to": [French terms], "source": mined | reviewed | eurovoc}`` per word or phrase.
    used: list[dict[str, Any]]
    #: Source-language stop words left out (only when at least two other words are left): a content
    #: word is never left out, translated or not.
    dropped: list[str]
    #: The content words nothing translates and French text does not hold as they are, when they
    #: are too many to leave out (:data:`UNTRANSLATED_SHARE`): then nothing is translated.
    missing: list[str] = field(default_factory=list)
    #: The content words nothing translates and French text does not hold, left out of the search
    #: words because the question has at least :data:`MIN_TRANSLATED` translated words and at least
    #: :data:`UNTRANSLATED_SHARE` times as many as these.
    untranslated: list[str] = field(default_factory=list)
    #: The question's frame words (:data:`FRAME_FILLERS`) nothing translates, left out of its search words.
    fillers: list[str] = field(default_factory=list)


def joined_phrase(term: str, language: str) -> tuple[str, ...] | None:
    """The French terms of a term of several words that the planner holds as one (a quoted phrase,
    ``"anti-money-laundering"`` → "anti money laundering", or a run of the synonym file): the
    lexicon's phrase entry of its words, else the entry of its words written as one word (a German
    compound quoted with a hyphen: "Geldwäsche-Richtlinie" as "Geldwäscherichtlinie"). ``None`` for
    a single word or a term the lexicon does not hold. Two dictionary look-ups. Pure."""
    parts = tuple(fold(w) for w in term.split())
    if len(parts) < 2:
        return None
    lex = lexicon(language)
    return lex.phrases.get(parts) or lex.words.get("".join(parts))


def translated_words(term: str) -> int:
    """How many of a question's words a translated term stands for: a phrase entry of the lexicon ("liability
    insurance" « assurance responsabilité civile ») or of the synonym file counts as its words, a word as one.
    The lexicon's phrase run must not leave a question fewer translated words than the lexicon would have
    translated one by one ("liability" and "insurance" each have entries): before, it counted once, and a
    question whose words nothing translates were otherwise outnumbered (:data:`UNTRANSLATED_SHARE`) was left
    untranslated whole because the lexicon knew its two words as a phrase (lu49a). Pure."""
    return len(term.split())


def shared_unreviewed(word: str, language: str) -> bool:
    """Whether a question's word is one French text holds as it is (the mining's ``shared`` list) and
    the reviewed file gives no entry of its own: then it is searched as it is, untranslated. A
    reviewed entry of the word's own form outranks the mining's count ("dog" « chien »: the aligned
    texts' French holds "dog" in a few lists of goods, so the mining calls it shared, and the
    reviewer's entry was never asked; "hunter" « chasseur », "tourism" « tourisme »); a sibling
    form's entry does not (lu49a). Pure."""
    lex = lexicon(language)
    if word not in lex.shared:
        return False
    return not (fold(word) in lex.words and "reviewed" in lex.origin_of(fold(word), ""))


def vocabulary_word(word: str) -> bool:
    """Whether an index's vocabulary would hold ``word`` (:data:`derive.index.schema.VOCABULARY_MIN_LENGTH`
    letters or more, letters only): the only words a ``held`` look-up can tell of ("uni", « de » it cannot). Pure."""
    return len(word) >= VOCABULARY_MIN_LENGTH and word.isalpha()


def translate(terms: Sequence[str], language: str, covered: Collection[str] = (),
              held: Callable[[str], bool] | None = None) -> Translation:
    """``terms`` of a ``language`` (en/de) question, for a French-only text: each run of words that
    is a phrase entry becomes one term (its phrase), each word with an entry keeps its word and gains
    the French terms as alternatives, and the source language's stop words are left out when at
    least two other words remain. A question is translated whole or not at all: when a word known
    to be absent from French text (``foreign``) is not translated (nor ``covered``: a term the
    synonym file already maps to French terms), nothing is translated (``missing``): half a
    question in French is another question ("space elevator construction permit" would be answered
    by the acts on "espace" and "permis"). A German or English word with neither an entry nor parts gains
    the :func:`cognates` the searched text holds (``held``: whether the index holds a French word;
    none asked without it) as alternatives: they add terms to search and never count as a
    translated word, so they never leave out a word nothing translates — a question no text
    answers in its own words is not made answerable by them. A word none of these reaches (nor a
    frame word) gains the :func:`dictionary` tier's terms that the searched text holds (all when no
    ``held`` is given), the same way: alternatives only, reported with ``source: dictionary``. Pure
    (``held`` and the dictionary file aside)."""
    lex = lexicon(language)
    stops = translation_stops(language)
    out: list[str] = []
    alternatives: dict[str, list[str]] = {}
    used: list[dict[str, Any]] = []
    stops_found: list[str] = []
    cognate: set[str] = set()
    longest = lex.longest
    i = 0
    while i < len(terms):
        for size in range(min(longest, len(terms) - i), 1, -1):
            words = tuple(fold(t) for t in terms[i:i + size])
            if words in lex.phrases:
                term = " ".join(words)
                alternatives[term] = [t for t in lex.phrases[words] if t != term]
                used.append({"from": term, "to": alternatives[term], "source": lex.origin_of(term, "")})
                out.append(term)
                i += size
                break
        else:
            word = terms[i]
            i += 1
            french = lex.lookup(word, language) if " " not in word and not shared_unreviewed(word, language) \
                else joined_phrase(word, language)
            # a word the synonym file covers keeps its own legal terms: never cut into parts
            # ("Steuererklärung" is « déclaration d'impôt », not « fiscales » + « déclaration »)
            parts = compound_parts(word, language) if not french and " " not in word and word not in covered \
                else None
            learned = learned_compound(word, language, held) \
                if held is not None and not french and not parts and " " not in word and word not in covered \
                and word not in stops else None
            similar = [c for c in cognates(word, language) if held(c)] \
                if held is not None and not french and not parts and not learned and word not in stops else []
            # the dictionary tier, the lowest: a word that neither the lexicon, a compound cut nor a held
            # cognate reaches (a frame word stays one); of its terms, those the searched text holds
            lowest = not french and not parts and not learned and not similar and " " not in word \
                and word not in covered and word not in stops and word not in lex.shared \
                and fold(word) not in FRAME_FILLERS.get(language, ())
            listed = [t for t in dictionary(language).lookup(word, language) or ()
                      if t != word and (held is None or all(held(w) for w in t.split() if vocabulary_word(w)))] \
                if lowest else []
            # the lowest of all: a German compound whose parts the lower tiers reach, searched as its parts
            reached = reached_parts(fold(word), language, held) \
                if held is not None and lowest and not listed and word not in lex.french else None
            if french:
                alternatives[word] = [t for t in french if t != word]
                used.append({"from": word, "to": alternatives[word], "source": lex.origin_of(word, "mined")})
            elif parts:  # a German compound: searched as its parts, each with its French terms
                for part in parts:
                    alternatives[part] = [t for t in lex.lookup(part, language) or () if t != part]
                    out.append(part)
                used.append({"from": word, "to": [t for part in parts for t in alternatives[part]],
                             "source": "compound " + "+".join(parts)})
                continue
            elif learned:  # a learned modifier the text holds as French, a head the lexicon knows
                modifier, head, held_cognates = learned
                alternatives[modifier] = list(held_cognates)
                alternatives[head] = [t for t in lex.lookup(head, language) or () if t != head]
                cognate.add(modifier)  # its cognates never count as a translated word
                out += [modifier, head]
                used.append({"from": word, "to": [*held_cognates, *alternatives[head]],
                             "source": f"compound {modifier}+{head} (learned modifier)"})
                continue
            elif similar:  # alternatives only: never a translated word (see the docstring)
                alternatives[word] = similar
                cognate.add(word)
                used.append({"from": word, "to": similar, "source": "cognate"})
            elif listed:  # a dictionary translation: alternatives only, as a cognate's (UNCOUNTED)
                alternatives[word] = listed
                cognate.add(word)
                used.append({"from": word, "to": alternatives[word], "source": DICTIONARY})
            elif reached:  # parts the lower tiers reach: each searched with its terms, as compound parts are
                used.append({"from": word, "to": [t for _, terms_of, _ in reached for t in terms_of],
                             "source": f"{COMPOUND_REACHED} " + "+".join(part for part, _, _ in reached)})
                for part, terms_of, counted in reached:
                    alternatives[part] = [t for t in terms_of if t != part]
                    if not counted:  # a cognate or French-spelt part never counts, here nor in the relaxation
                        cognate.add(part)
                        if alternatives[part]:
                            used.append({"from": part, "to": alternatives[part], "source": "cognate"})
                    out.append(part)
                continue
            elif word in stops:
                stops_found.append(word)
            out.append(word)
    # a phrase of the synonym file (``covered``: "smoking ban", "hausliche gewalt") counts as its words
    # translated: the run it took from the lexicon must not leave the question fewer translated words
    # than the lexicon would have translated one by one (a single covered word still counts for none)
    fillers = [t for t in out if fold(t) in FRAME_FILLERS.get(language, ()) and t not in alternatives
               and t not in covered]
    if fillers and len(out) - len(fillers) - len(stops_found) >= 2:
        out = [t for t in out if t not in fillers]  # frame words: no subject to search for
    else:
        fillers = []
    translated = sum(translated_words(t) for t in out
                     if t not in cognate and (alternatives.get(t) or (t in covered and " " in t)))
    absent = [t for t in out if t not in alternatives and t not in covered and t not in stops_found
              and not_french(t, language)]
    if absent and translated >= MIN_TRANSLATED and len(absent) * UNTRANSLATED_SHARE <= translated:
        # a few words nothing translates, no French text holds, among several translated: required,
        # they would leave the question unanswered; left out, it is still the question
        out = [t for t in out if t not in absent]
    else:
        missing = [t for t in absent if t in lex.foreign]
        if missing:  # translated in part, the question would be another one: searched as it is
            return Translation(list(terms), {}, [], [], missing)  # fillers and all
        absent = []
    kept = [t for t in out if t not in stops_found]
    dropped = stops_found if len(kept) >= 2 else []
    return Translation([t for t in out if t not in dropped], alternatives, used, dropped, untranslated=absent,
                       fillers=fillers)


def not_french(word: str, language: str) -> bool:
    """Whether a question's word that the lexicon does not translate is one no French text holds:
    an English word of the ``foreign`` list; a German word that is not a word French holds as it is
    (the lexicon has no aligned German text to tell: a word of letters the lexicon does not know
    as French). Pure."""
    lex = lexicon(language)
    if language == "en":
        return word in lex.foreign
    return language == "de" and word.isalpha() and " " not in word and word not in lex.shared \
        and word not in lex.french and word not in lexicon("en").french
