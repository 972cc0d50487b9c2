"""The acts a question names by the words people use for their subject: the act terms (issue #15).

The index holds, per act, reviewed terms in French, English and German (``work_metadata`` kind
``act_term``, :mod:`derive.index.actterms`): « auteur introuvable » for the law on orphan works,
"beneficial owner register" for the Luxembourg law on the register of beneficial owners,
« Spielzeugsicherheit » for the toy-safety law. This module reads them once per mounted index
(:func:`terms_of`, held compact: :class:`SortedStrings`) and says which acts a question's words cover (:meth:`TermIndex.covered`):

- a term is keyed by the Snowball stems of its content words in its own language; a question's word
  is any of its forms (itself and its English, French and German stems), so a term is *said* by a
  question when each of its words is one of the question's forms, in any order and any language —
  an English question reaches a French-only Legilux act through its ``en`` terms, with no translation;
- a word of the question is *covered* for a work when a term of that work the question says holds it;
- a work's **coverage** is the share of the question's content words it covers, each weighed by its
  rarity among the act terms (``log((N + 1) / (df + 0.5))``, ``df`` the works whose terms hold a form of
  it, ``N`` the works with terms): a word every act's terms hold ("protection") weighs little, a word
  no term holds weighs most and covers nothing (a question on an unknown subject covers little).

Pure over the terms once read; the search decides what a coverage is worth
(:func:`serve.core.ops.search.act_term_step`).
"""

from __future__ import annotations

import functools
import math
import sqlite3
import weakref
import zlib
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from derive.index import analysis, relax, xlang
from derive.index.actterms import KIND as KIND  # the index rows' kind, re-exported for the search
from derive.index.text import normalize
from serve.core import ranking

K = TypeVar("K")

#: Words that say nothing of an act's subject, left out of terms and questions alike: stop, frame and
#: question words of the three languages (:data:`derive.index.relax.RELAXABLE_WORDS`), act forms
#: (:data:`serve.core.ranking.FORM_WORDS`), the own country's name and the Union's.
STOP: frozenset[str] = frozenset(relax.RELAXABLE_WORDS | relax.INDEX_STOP_WORDS | ranking.FORM_WORDS
                                 | ranking.OWN_COUNTRY_WORDS | ranking.OWN_COUNTRY_ADJECTIVES
                                 | {"eu", "ue", "european", "europeen", "europeenne", "europeens", "europeennes",
                                    "europaische", "europaischen", "europaischer", "union"})


_LIGATURES = str.maketrans({"œ": "oe", "æ": "ae", "ß": "ss"})


def folded(word: str) -> str:
    """A normalised word with its ligatures and « ß » spelled out (« œuvre » → ``oeuvre``, « Straße » →
    ``strasse``): reviewers and askers write them either way, the normaliser keeps them. Pure."""
    return word.translate(_LIGATURES)


def question_words(query: str) -> list[str]:
    """A question's content words (normalised, :func:`folded`, each once, in its order): no :data:`STOP`
    word, no one-letter word, no number. Pure."""
    return list(dict.fromkeys(folded(w) for w in normalize(query).split()
                              if len(w) > 1 and w not in STOP and not any(ch.isdigit() for ch in w)))


#: The least weighed share of a question's content words an act's terms must cover to be ranked by them.
MIN_COVERAGE = 0.15
#: … and the least number of its words they must cover (a question of fewer content words is not ranked by
#: them: one word, however rare among the terms, is a keyword search's question).
MIN_WORDS = 2
#: How many of the best-covered acts are ranked by their terms.
DEPTH = 5
#: The share of its rarity weight a question word counts for in an act's coverage when a term of the act holding it
#: is only partly said (:func:`partly_covered`): « chômage partiel » half says the term « indemnité de chômage
#: partiel », "compensation when a wolf kills sheep" says two words of "compensation for wolf damage".
PARTIAL_SHARE = 0.75
#: … and the least share of such a term's words the question must say (half of a two- or four-word term, two words of
#: three); a one-word term is said or not.
PARTIAL_LEAST = 0.5
#: A match covering one word of a question (of :data:`MIN_WORDS` or more) still ranks when a term of the act holding
#: it is said whole and that word is rare among the terms: held by the terms of at most this many acts ("wolf",
#: « protêt », "blockchain", « Sportlycée »; :func:`rare_word`).
RARE_WORKS = 10
#: The rank constant of the reciprocal-rank fusion (:func:`fused`).
RANK_CONSTANT = 1.0
#: The weight of the act terms' ranking beside the keyword ranking's (1) in :func:`fused`.
WEIGHT = 0.5
#: … for an act of a section searched through the cross-language lexicon (an English or German question on
#: French-only law: the terms' ``en`` and ``de`` words are the one bridge that needs no translation).
CROSS_WEIGHT = 0.8


def interleaved(sections: Sequence[Sequence[K]]) -> list[K]:
    """The works of ranked ``sections`` taken in turn (the first of each, then the second …), each once:
    the order in which a reader of the answer meets them. Pure."""
    out: dict[K, None] = {}
    for i in range(max((len(s) for s in sections), default=0)):
        for section in sections:
            if i < len(section):
                out.setdefault(section[i], None)
    return list(out)


def ranked(matches: Iterable[Match[K]], words: Sequence[str],
           rare: Callable[[Match[K]], bool] | None = None) -> list[Match[K]]:
    """The matches the terms rank: coverage at least :data:`MIN_COVERAGE`, at least :data:`MIN_WORDS` of the
    question's words covered, or one word the ``rare`` predicate admits (:func:`rare_word`); none for a question of
    fewer content ``words``; best coverage first, at most :data:`DEPTH`. Pure."""
    if len(words) < MIN_WORDS:
        return []
    kept = [m for m in matches if m.coverage >= MIN_COVERAGE
            and (len(m.words) >= MIN_WORDS or (rare is not None and rare(m)))]
    return sorted(kept, key=lambda m: (-m.coverage, -len(m.terms), str(m.work)))[:DEPTH]


def fused(listed: Sequence[K], matched: Sequence[K], constant: float = RANK_CONSTANT,
          weight: float | Sequence[float] = WEIGHT, ranks: Sequence[int] | None = None) -> list[K]:
    """Reciprocal-rank fusion of the keyword ranking ``listed`` and the act terms' ranking ``matched``: a
    work's score is ``1 / (constant + rank)`` in the first plus ``weight / (constant + rank)`` in the second
    (rank from 1; nothing where it is not listed; ``weight`` one for all or one per matched work); best score first, ties in ``listed``'s order then
    ``matched``'s. With the defaults, an act the terms rank first and the keywords do not list comes after the
    keywords' third (``0.5 / 2`` ties its ``1 / 4``); one they list third to tenth comes second (``1 / 11 + 0.25``
    is above the second's ``1 / 3``; listed third, ``1 / 4 + 0.25`` ties the first and follows it). ``ranks``, when
    given, are the matched works' ranks in the second ranking (from 1; :func:`shared_ranks`: acts the terms cannot
    tell apart share one). Pure."""
    score: dict[K, float] = {}
    for rank, work in enumerate(listed, 1):
        score[work] = score.get(work, 0.0) + 1.0 / (constant + rank)
    weights = [weight] * len(matched) if isinstance(weight, int | float) else list(weight)
    places = list(ranks) if ranks is not None else list(range(1, len(matched) + 1))
    for rank, work, each in zip(places, matched, weights, strict=True):
        score[work] = score.get(work, 0.0) + each / (constant + rank)
    order = {work: i for i, work in enumerate([*listed, *(w for w in matched if w not in set(listed))])}
    return sorted(score, key=lambda w: (-score[w], order[w]))


#: How close two coverages must be for the terms to rank the two acts alike (:func:`shared_ranks`, :func:`tied`).
TIE = 1e-9


def shared_ranks(coverages: Sequence[float], joinable: Sequence[bool] | None = None) -> list[int]:
    """The ranks (from 1) of matches ordered by ``coverages`` (best first), a match covering as much of the question as
    the one before it sharing that one's rank (when ``joinable`` says it may, if given): ``[0.7, 0.7, 0.5]`` →
    ``[1, 1, 3]``. The terms' order between acts of one coverage is their tie-break (more terms said, then the row
    id), not a reading of the question. Pure."""
    out: list[int] = []
    for i, coverage in enumerate(coverages):
        joined = i > 0 and coverages[i - 1] - coverage <= TIE and (joinable is None or joinable[i])
        out.append(out[-1] if joined else i + 1)
    return out


def tied(best: Match[K], others: Iterable[Match[K]]) -> bool:
    """Whether another match (``others``; ``best`` itself left out) covers as much of the question as ``best``. Pure."""
    return any(m is not best and best.coverage - m.coverage <= TIE for m in others)


#: The shortest word :func:`singular` reads a plural ending off ("news", « pays », « fils » are shorter and stay).
SINGULAR_LEAST = 5


def singular(word: str) -> str:
    """A folded word without the plural ending Snowball leaves on it: a final ``s`` (not ``ss``) and the French
    ``aux`` of a word in ``al`` (« aides » → ``aide``, « revenus » → ``revenu``, « communaux » → ``communal``, "benefits" →
    ``benefit``), for a word of at least :data:`SINGULAR_LEAST` letters; any other word as it is. The Snowball stems
    drop such endings only from words whose stem keeps four letters (« aides » has no stem, ``aid`` is too short) and
    never after a ``u`` in French (« revenus » stays ``revenus``): a term and a question that say one word in the
    singular and in the plural would not meet. The same rule on both sides (:func:`term_key`, :func:`word_forms`);
    two words it makes one (« cours », « cour ») share their terms. Pure."""
    if len(word) < SINGULAR_LEAST or not word.isalpha():
        return word
    if word.endswith("aux") and len(word) > SINGULAR_LEAST:
        return word[:-3] + "al"
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


#: French derivational endings left on a Snowball stem, and what each becomes, so that a verb, its agent noun and its
#: action noun meet (:func:`root`): the agent noun in « -eur » (« chasseur », « assureur », « acheteur ») and the
#: action noun in « -age » (« étiquetage », « abattage ») lose their ending; the verbs in « -uire » and « -rire » take
#: their nouns' « -uct » and « -ript » (« construire » / « construction », « inscrire » / « inscription »); « -aminer »
#: and « -amen » meet (« réexaminer » / « réexamen »), a participle in « -u » its verb (« abattu », « délégué »),
#: « -icat » its noun in « -ication » (« certificat » / « certification »). Read in order, the first ending that fits only.
DERIVATIONS: tuple[tuple[str, str], ...] = (
    ("eur", ""), ("ag", ""), ("uir", "uct"), ("rir", "ript"), ("amin", "am"), ("amen", "am"), ("icat", ""), ("u", ""))
#: The shortest root :func:`root` leaves (« chass », « assur », « deleg »): a shorter one is no word's own.
ROOT_LEAST = 5


def root(form: str) -> str:
    """A French stem (or word) without its derivational ending (:data:`DERIVATIONS`): « chasseur » → ``chass`` (the
    stem of « chasse », « chasser »), ``etiquetag`` → ``etiquet``, ``inscrir`` → ``inscript``; a form no ending fits,
    or whose root would be shorter than :data:`ROOT_LEAST`, as it is. The same rule on the stems of a term's French
    words (:func:`term_key`) and on the French stems of a question's word (:func:`word_forms`). Pure."""
    for ending, becomes in DERIVATIONS:
        if form.endswith(ending):
            found = form[:len(form) - len(ending)] + becomes
            return found if len(found) >= ROOT_LEAST else form
    return form


def term_key(normalized: str, language: str, stop: frozenset[str]) -> tuple[str, ...]:
    """The content words of a normalised term (:func:`folded`) as stems of its language (sorted, each
    once), each read in the singular first (:func:`singular`), a French stem without its derivational ending
    (:func:`root`): words of ``stop`` and one-letter words left out; a word with no stem stands as written (in the
    singular). Pure."""
    words = {singular(folded(w)) for w in normalized.split() if len(w) > 1 and w not in stop}
    # stemmed once per mounted index: not kept in the query stemmer's cache (analysis.stem_word)
    stems = {(root(stem) if language == "fr" else stem) if (stem := analysis.stem_word(w, language, cached=False))
             else w for w in words}
    return tuple(sorted(stems))


@functools.lru_cache(maxsize=4096)
def word_forms(word: str) -> frozenset[str]:
    """A question word, the word in the singular (:func:`singular`) and their English, French and German Snowball
    stems, and its German umlauts typed with an ``e`` read as umlauts (:func:`derive.index.xlang.unspelt_umlauts`); for a
    German compound the
    cross-language lexicon cuts into words it knows (:func:`derive.index.xlang.compound_parts`), its head
    too, with its stem (« Kinderspielzeug » says "Spielzeug"). Pure; remembered for the last 4,096 words (a question's
    words are read by :meth:`TermIndex.covered`, :func:`partly_covered` and :func:`rare_word`, over each index)."""
    forms = {word}
    parts = xlang.compound_parts(word, "de")
    heads = parts[-1:] if parts else []
    # a German word's umlauts typed "ae"/"oe"/"ue" ("Gebuehren") meet the terms' "gebühren" as the normaliser writes it
    unspelt = xlang.unspelt_umlauts(word)
    for form in dict.fromkeys((word, singular(word), *heads, *(singular(p) for p in heads), unspelt)):
        forms.add(form)
        for language in ("en", "fr", "de"):
            stem = analysis.stem_word(form, language)
            if stem is not None:
                forms.add(stem)
            if stem is not None and language == "fr":
                forms.add(root(stem))
    return frozenset(forms)


#: Whether a German verb may be read as its noun in « -ung » (:func:`verb_noun`; read by
#: :func:`serve.core.ops.search.noun_words` for an answer the keywords left empty; issue #15, zh51).
VERB_NOUNS = True
#: The fewest letters of a verb :func:`verb_noun` reads.
VERB_NOUN_LEAST = 6


def verb_noun(word: str) -> str | None:
    """The German action noun in « -ung » of a question word read as a German infinitive (:data:`VERB_NOUN_LEAST` letters
    or more): "melden" → ``meldung``, "ändern" → ``anderung``, "regeln" → ``regelung``. The German Snowball stems leave
    the ending on the noun (``meldung``) and take it off the verb (``meld``): a question asking whether a doctor must
    *melden* measles and the act whose German terms say *Meldung* would not meet. The noun is a form the terms hold
    or not (a word that is no verb makes a noun no term holds). Not a form of :func:`word_forms`: read everywhere, it
    took "zahlen" for the terms' *Zahlung* and "melden" for the whistle-blowers' *Meldung* in answers the keywords had
    right. ``None`` with
    :data:`VERB_NOUNS` off or for a word not so ended. Pure."""
    if not VERB_NOUNS or len(word) < VERB_NOUN_LEAST or not word.isalpha():
        return None
    if word.endswith(("ern", "eln")):
        return word[:-1] + "ung"
    if word.endswith("en") and not word.endswith("ungen"):
        return word[:-2] + "ung"
    return None


@dataclass(frozen=True)
class Match(Generic[K]):
    """A work the question's words cover through its terms."""

    work: K
    #: the weighed share of the question's content words covered (0..1)
    coverage: float
    #: the question's words covered, in the question's order
    words: tuple[str, ...]
    #: the term keys said (their stems joined by a space), longest first
    terms: tuple[str, ...]


class SortedStrings:
    """Sorted strings held as one string and an array of offsets, not one object per string: a mounted index's
    thousands of term keys and stems cost a few objects, and a served worker's lookups write no reference count
    into the pages the supervisor built them in (they stay shared after the fork). A string is found through an
    open-addressing table of positions (CRC-32 of its UTF-8 bytes: the same in every process)."""

    __slots__ = ("_blob", "_mask", "_starts", "_table")

    def __init__(self, items: Iterable[str]) -> None:
        values = sorted(items)
        starts = array("I", [0])
        for value in values:
            starts.append(starts[-1] + len(value))
        self._blob = "".join(values)
        self._starts = starts
        size = 1 << max(3, (2 * len(values)).bit_length())
        self._mask = size - 1
        self._table = array("i", [-1]) * size
        for i, value in enumerate(values):
            slot = zlib.crc32(value.encode()) & self._mask
            while self._table[slot] >= 0:
                slot = (slot + 1) & self._mask
            self._table[slot] = i

    def __len__(self) -> int:
        return len(self._starts) - 1

    def __getitem__(self, i: int) -> str:
        return self._blob[self._starts[i]:self._starts[i + 1]]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SortedStrings) and (self._blob, self._starts) == (other._blob, other._starts)

    __hash__ = None  # type: ignore[assignment]

    def find(self, value: str) -> int:
        """The position of ``value``, or -1."""
        starts, table, mask = self._starts, self._table, self._mask
        slot = zlib.crc32(value.encode()) & mask
        while (i := table[slot]) >= 0:
            if starts[i + 1] - starts[i] == len(value) and self._blob[starts[i]:starts[i + 1]] == value:
                return i
            slot = (slot + 1) & mask
        return -1


@dataclass(frozen=True, eq=False)
class TermIndex:
    """The act terms of one index, compact (built once per mounted index, read by every question and shared by
    the served workers: a handful of objects, none per key): the distinct term keys (their stems joined by a
    space, sorted: the keys a question's word begins are one range) and each key's works (one array, sliced by
    offsets); the distinct stems, how many works' terms hold each and which keys hold each (at any place: the
    keys a question may say only in part, :func:`partly_covered`)."""

    keys: SortedStrings
    key_starts: array[int]
    key_works: array[int]
    stems: SortedStrings
    stem_df: array[int]
    stem_starts: array[int]
    stem_keys: array[int]
    key_sizes: array[int]
    first_starts: array[int]
    first_ends: array[int]
    total: int

    def df(self, form: str) -> int:
        """How many works' terms hold the stem ``form``."""
        i = self.stems.find(form)
        return self.stem_df[i] if i >= 0 else 0

    def beginning(self, stem: str) -> range:
        """The positions of the keys whose first stem is ``stem`` (contiguous: the keys are sorted)."""
        i = self.stems.find(stem)
        return range(self.first_starts[i], self.first_ends[i]) if i >= 0 else range(0)

    def keys_holding(self, stem: str) -> list[int]:
        """The positions of the keys that hold the stem ``stem`` (at any place)."""
        i = self.stems.find(stem)
        return self.stem_keys[self.stem_starts[i]:self.stem_starts[i + 1]].tolist() if i >= 0 else []

    def works_of(self, key: int) -> list[int]:
        """The works whose terms hold the key at position ``key``."""
        return self.key_works[self.key_starts[key]:self.key_starts[key + 1]].tolist()

    def weight(self, forms: Iterable[str]) -> float:
        """The rarity weight of a question word of ``forms`` (see the module docstring)."""
        df = max((self.df(f) for f in forms), default=0)
        return math.log((self.total + 1) / (df + 0.5))

    def covered(self, words: Sequence[str]) -> list[Match[int]]:
        """The works whose terms the question's content ``words`` (normalised, each once) say, best
        coverage first (then more terms, then the work key), each once; a match's ``terms`` are the keys
        said (stems)."""
        if not words or not len(self.keys):
            return []
        forms = {w: word_forms(w) for w in words}
        held = frozenset(f for fs in forms.values() for f in fs)
        weights = {w: self.weight(fs) for w, fs in forms.items()}
        total = sum(weights.values())
        found: dict[int, tuple[set[str], list[str]]] = {}
        for position in sorted({i for f in held for i in self.beginning(f)}):
            key = self.keys[position]
            stems = key.split(" ")
            if not all(s in held for s in stems):
                continue
            said = {w for w, fs in forms.items() if not fs.isdisjoint(stems)}
            for work in self.works_of(position):
                entry = found.setdefault(work, (set(), []))
                entry[0].update(said)
                entry[1].append(key)
        # the weights summed in the question's order, never a set's: the float sum's last bits, and so the ties
        # between acts covering the same words, would follow the hash seed (ADR 0153)
        out = [Match(work, sum(weights[w] for w in weights if w in said) / total if total > 0 else 0.0,
                     tuple(w for w in words if w in said), tuple(sorted(set(terms), key=lambda t: (-len(t), t))))
               for work, (said, terms) in found.items()]
        return sorted(out, key=lambda m: (-m.coverage, -len(m.terms), str(m.work)))


def partly_covered(index: TermIndex, words: Sequence[str], share: float | None = None,
                   least: float | None = None) -> list[Match[int]]:
    """:meth:`TermIndex.covered`, with the question's words a term of the act says only in part (at least ``least``
    of its words, not all: « chômage partiel » for « indemnité de chômage partiel ») counted at ``share`` of their
    weight when no term of the act the question says whole holds them (``share`` and ``least`` default to
    :data:`PARTIAL_SHARE` and :data:`PARTIAL_LEAST`). An act only partly said is matched with those
    partly said keys as its ``terms``; one said whole keeps its whole terms (the ties among full matches are broken
    as before). Best coverage first. Pure over the index."""
    share = PARTIAL_SHARE if share is None else share
    least = PARTIAL_LEAST if least is None else least
    full = index.covered(words)
    if not words or share <= 0:
        return full
    forms = {w: word_forms(w) for w in words}
    held = frozenset(f for fs in forms.values() for f in fs)
    weights = {w: index.weight(fs) for w, fs in forms.items()}
    total = sum(weights.values())
    if total <= 0:
        return full
    part: dict[int, tuple[set[str], list[str]]] = {}
    # how many of each key's stems the question says (a form is one stem string: distinct forms, distinct stems),
    # counted over the keys' positions before any key is read
    said_count = Counter(k for f in held for k in index.keys_holding(f))
    sizes = index.key_sizes
    for position in sorted(k for k, n in said_count.items() if sizes[k] >= 2 and least * sizes[k] <= n < sizes[k]):
        key = index.keys[position]
        stems = key.split(" ")
        said = {w for w, fs in forms.items() if not fs.isdisjoint(stems)}
        for work in index.works_of(position):
            entry = part.setdefault(work, (set(), []))
            entry[0].update(said)
            entry[1].append(key)
    whole = {m.work: m for m in full}
    out = [m for m in full if m.work not in part]
    for work, (said, keys) in part.items():
        match = whole.get(work)
        fully = set(match.words) if match is not None else set()
        partly = said - fully
        if match is not None and not partly:
            out.append(match)
            continue
        # in the question's order, as in TermIndex.covered (ADR 0153)
        coverage = (match.coverage if match is not None else 0.0) + share * sum(weights[w] for w in weights if w in partly) / total
        terms = match.terms if match is not None else tuple(sorted(set(keys), key=lambda t: (-len(t), t)))
        out.append(Match(work, coverage, tuple(w for w in words if w in fully or w in partly), terms))
    return sorted(out, key=lambda m: (-m.coverage, -len(m.terms), str(m.work)))


def rare_word(index: TermIndex, words: Sequence[str]) -> Callable[[Match[int]], bool]:
    """Whether a match of ``index`` for the question's ``words`` covers one word only, said whole (its first term's
    every stem is among the question's forms: not a term said in part, :func:`partly_covered`) and rare among the
    terms (at most :data:`RARE_WORKS` acts' terms hold a form of it). Pure over the index."""
    held = frozenset(f for w in words for f in word_forms(w))
    least = math.log((index.total + 1) / (RARE_WORKS + 0.5))

    def rare(match: Match[int]) -> bool:
        return (len(match.words) == 1 and said_whole(match, held)
                and index.weight(word_forms(match.words[0])) >= least)
    return rare


def matches(index: TermIndex, words: Sequence[str]) -> list[Match[int]]:
    """The acts ``index``'s terms rank for the question's ``words``: the terms said whole or in part
    (:func:`partly_covered`) or one rare word said whole (:func:`rare_word`), best first (:func:`ranked`). Pure over
    the index."""
    return ranked(partly_covered(index, words), words, rare_word(index, words))

def said_whole(match: Match[K], held: frozenset[str]) -> bool:
    """Whether the question (its words' forms ``held``) says a term of the ``match`` whole — not only in part
    (:func:`partly_covered` gives an act said only in part its partly said terms). Pure."""
    return bool(match.terms) and all(s in held for s in match.terms[0].split(" "))


def firm(match: Match[K], words: Sequence[str]) -> bool:
    """Whether a ranked ``match`` is firm evidence: a term of the act said whole and at least :data:`MIN_WORDS` of the
    question's ``words`` covered (whole or in part) — not an act said only in part, nor one rare word
    (:func:`rare_word`). Only a firm match brings an act into a section the keywords left empty
    (:func:`serve.core.ops.search.act_term_step`). Pure."""
    return len(match.words) >= MIN_WORDS and said_whole(match, frozenset(f for w in words for f in word_forms(w)))


def covers_words(match: Match[K], words: Iterable[str]) -> bool:
    """Whether the ``match`` covers each of ``words`` (the same word, or one of its forms: :func:`word_forms`) —
    the words of the question no index holds, which are what the question is about when the terms leave them
    out. Pure."""
    covered = frozenset(f for w in match.words for f in word_forms(w))
    return all(not word_forms(folded(w)).isdisjoint(covered) for n in words for w in normalize(n).split())


def term_index(rows: Iterable[tuple[int, str, str]], stop: frozenset[str] = STOP) -> TermIndex:
    """The :class:`TermIndex` of ``(work, normalised term, language)`` rows. Pure."""
    by_key: dict[str, dict[int, None]] = {}
    for work, term, language in rows:
        found = term_key(normalize(term), language, stop)
        if found:
            by_key.setdefault(" ".join(found), {})[work] = None
    keys = SortedStrings(by_key)
    key_starts, key_works = array("I", [0]), array("q")
    stem_works: dict[str, set[int]] = {}
    stem_positions: dict[str, list[int]] = {}
    for position in range(len(keys)):
        key = keys[position]
        held = by_key[key]
        key_works.extend(held)
        key_starts.append(len(key_works))
        for stem in dict.fromkeys(key.split(" ")):
            stem_works.setdefault(stem, set()).update(held)
            stem_positions.setdefault(stem, []).append(position)
    stems = SortedStrings(stem_works)
    stem_df, stem_starts, stem_keys = array("I"), array("I", [0]), array("I")
    for i in range(len(stems)):
        stem_df.append(len(stem_works[stems[i]]))
        stem_keys.extend(stem_positions[stems[i]])
        stem_starts.append(len(stem_keys))
    key_sizes = array("B", (min(keys[i].count(" ") + 1, 255) for i in range(len(keys))))
    first_starts, first_ends = array("I", [0]) * len(stems), array("I", [0]) * len(stems)
    for position in range(len(keys)):
        first = stems.find(keys[position].split(" ", 1)[0])
        if first_ends[first] == 0:
            first_starts[first] = position
        first_ends[first] = position + 1
    return TermIndex(keys, key_starts, key_works, stems, stem_df, stem_starts, stem_keys, key_sizes, first_starts,
                     first_ends, len({w for ws in by_key.values() for w in ws}))


def said_terms(conn: sqlite3.Connection, work: int, keys: Sequence[str], stop: frozenset[str] = STOP) -> list[str]:
    """The act terms of ``work`` (as the index holds them) whose keys are among ``keys`` (a match's), in the
    keys' order: what an answer shows of why the act came."""
    found: dict[str, str] = {}
    for term, language in conn.execute(
            "SELECT t.label, t.language FROM work_metadata_rows r JOIN metadata_terms t ON t.term_rowid = r.term_rowid "
            "WHERE r.work_rowid = ? AND t.kind = ? ORDER BY t.language, t.label", (work, KIND)):
        found.setdefault(" ".join(term_key(normalize(str(term)), str(language), stop)), str(term))
    return [found[k] for k in keys if k in found]


_TERMS: weakref.WeakKeyDictionary[object, TermIndex] = weakref.WeakKeyDictionary()


def terms_of(conn: sqlite3.Connection, index: object | None, stop: frozenset[str] = STOP) -> TermIndex:
    """The act terms of the index ``conn`` reads, remembered per mounted ``index`` (an immutable file);
    none for an index built without them."""
    if index is not None and index in _TERMS:
        return _TERMS[index]
    found = term_index(
        ((int(w), str(t), str(lang)) for w, t, lang in conn.execute(
            "SELECT r.work_rowid, t.label, t.language FROM metadata_terms t "
            "JOIN work_metadata_rows r ON r.term_rowid = t.term_rowid WHERE t.kind = ?", (KIND,))),
        stop)
    if index is not None:
        _TERMS[index] = found
    return found
