"""Weaker forms of a keyword query for ``search``: light stemming and relaxation, always reported.

Query-side text analysis, kept next to the index's own normalisation (:mod:`derive.index.text`)
so that build and query analyse words alike; the serving core calls it.

The keyword lane asks FTS5 for the provisions holding *every* query word. Two fallbacks widen
that question; each runs only when the strict question is not enough, and each is reported in
the answer so that a reader can tell a weaker match from a direct one:

- **Light stemming / bounded prefix matching** (French and English; when exact hits are few):
  a word of at least :data:`STEM_MIN_WORD` letters that is not a stop word also matches the
  words the index holds that start with its *light stem* (the word without one inflectional or
  common derivational ending, :data:`SUFFIXES`, longest first, at least
  :data:`STEM_MIN_LENGTH` letters left) and extend it by at most :data:`STEM_MAX_ENDING`
  letters (the common French and English endings: ``-s -e -es -ee -ees -er -ed -ent -ing``),
  or that extend the word itself by at most :data:`WORD_MAX_ENDING` (its plural and feminine):
  its inflections, not its whole prefix family. ``entree`` (stem ``entre``) → ``entrer``,
  ``entrees``, never ``entreprise`` nor the stop word ``entre``; ``interdiction``
  (``interdi``) → ``interdictions``, ``interdit``, ``interdites``; ``mutuelles`` → ``mutuelle``,
  never ``mutuellement``. The bound is one of length, not of meaning: a short false friend can
  pass (``entrepot``), which is why stems are a reported fallback only. At most
  :data:`STEM_MAX_VARIANTS` variants per word, closest in length first. Listed in
  ``query_expansions`` as ``entree -> entrer``; hits carry the match reason ``stem``. A word
  already replaced by fuzzy expansion (a typo) is not stemmed as well.
- **Relaxation** (when the strict query, with any expansion, finds no provision in any
  publisher): first the French, English and German stop words, the words that only frame a
  comparison or a question asked in plain words (:data:`RELAXABLE_WORDS`: ``versus``,
  ``comparer``, the elided ``l'``, ``combien``, ``peut``, ``must``, ``darf``…; the measure word
  of a two-word frame, "how *fast*", leaves the search words before: :func:`frame_pair_words`) and bare
  years (``2015``: the compared dates of a comparison, not words of the provision) are dropped
  and every remaining word is still required (reason ``stop_words_dropped``, hits
  ``relaxed``); if that finds nothing either, the remaining words are OR-ed and BM25 ranks the
  provisions (reason ``any_term``, hits ``any_term``), but a provision must still hold a
  strict majority of them (:func:`quorum`): a single shared word is a coincidence, not an
  answer, and a question about a subject the corpus does not hold stays empty. Reported as
  ``query_relaxed: {from, to, reason, dropped, min_terms}``. Relaxation is withheld, and
  ``relaxation_withheld`` says why, when a content word (not a question-frame word: a law does
  not say ``combien``) is in no provision of the index or when
  the caller's filters, not the words, emptied the answer
  (the search operation decides, see ``relaxation_withheld`` in the serving core). A question
  searched through the cross-language lexicon drops, with its stop words, the words nothing
  translates (:func:`untranslated_fillers`: "Krankschreibung dem Arbeitgeber *vorlegen*") when
  enough translated words are left, so that such a word neither withholds the relaxation
  (``unknown_terms``) nor carries the any-word quorum.

A stop word of one language that is a content word of another (:data:`CONTENT_ELSEWHERE`: « l'*Our* »,
« sans *but* lucratif », "can my *son* inherit", "dog *fur*") is a stop word only of a question in a
language that lists it: the planner decides it once per question (:func:`content_stop_words`), and a
planned word it kept is searched, weighed and required like any other (:func:`relaxable_term`).

The reviewed synonym file (:func:`synonyms`, :func:`with_synonyms`) matches a question's words as
written, then by their Snowball stems in the entry's language: "Hinweisgebern" takes the entry
"Hinweisgeber".

Nothing here reads an index: the functions turn normalised terms into FTS5 term groups
(:func:`derive.index.text.fts_query`), and :func:`describe` renders a group list for the report.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from derive.index.query import STOP_WORDS as QUERY_STOP_WORDS
from derive.index.text import normalize

#: Languages whose endings :data:`SUFFIXES` knows.
STEM_LANGUAGES = frozenset({"fr", "en"})
STEM_MIN_WORD = 6
STEM_MIN_LENGTH = 5
#: At most this many words are stemmed per query (as for fuzzy expansion).
STEM_MAX_WORDS = 8
#: A variant extends the stem by at most this many letters (an inflection, not a derivation) …
STEM_MAX_ENDING = 3
#: … or the word itself by at most this many (``-s``, ``-e``, ``-es``).
WORD_MAX_ENDING = 2
STEM_MAX_VARIANTS = 6

#: French and English endings (accents folded), longest first: plurals, feminines, participles,
#: infinitives, and the noun endings that hang on a verb stem (``-ction``, ``-ation``, ``-ement``).
SUFFIXES: tuple[str, ...] = tuple(sorted({
    "issements", "issement", "ations", "ctions", "itions", "ements", "ation", "ction", "ition", "ement", "ments",
    "ances", "ences", "ment", "ance", "ence", "ings", "ions", "ites", "ing", "ion", "ite", "ees", "ers", "ee", "er",
    "es", "ed", "s", "e",
}, key=lambda s: (-len(s), s)))

_FR = (
    "a au aux avec c ce ceci cela celle celles celui ces cet cette ceux d dans de des donc dont du elle elles en "
    "entre et eux il ils j je l la le les leur leurs lui m ma mais me mes n ne ni nos notre nous on ou par pas "
    "pour qu que quel quelle quelles quels qui quoi s sa se ses si son sont sur t ta te tes toi ton tu un une vos "
    "votre vous y est"
)
_EN = (
    "a about an and are as at be been being between but by can could did do does for from had has have he her his "
    "how i if in into is it its me my of on or our she so than that the their them then there these they this "
    "those to us was we were what when where which while who whom why with would you your"
)
_DE = (
    "aber als am an auch auf aus bei bis da das dass daß dem den der des die dies diese dieser dieses durch ein "
    "eine einem einen einer eines er es fur gegen hat haben ich ihr ihre im in ins ist mit nach noch ob oder ohne "
    "sich sie sind so uber um und uns unter vom von vor war waren was wie wir wird werden zu zum zur zwischen"
)
#: Words that only frame a comparison question ("X versus Y", "comparer … et …").
_FRAME = (
    "compare compared compares comparing comparison comparer comparez comparaison versus vs vergleich vergleiche "
    "vergleichen difference differences unterschied unterschiede"
)
#: Words that only frame a question asked in plain words (accents folded): interrogatives, modal
#: verbs and the asker's own pronouns — "combien de semaines …", "peut-on …", "faut-il …", "can I …",
#: "must a …", "wie lange darf ich …". A law does not say "combien" (no Legilux provision holds it),
#: so such a word must neither count as the question's subject (``unknown_terms``) nor be required
#: once the words are relaxed. Only words that never name a legal subject: ``long``, ``lange``,
#: ``will`` (a last will) and ``get`` stay search words. The verb ``devenir`` / ``become`` frames
#: "conditions pour devenir avocat" and is rarer than the subject words, so required it carried
#: the any-word quorum's rarity share. The time and distribution words ``avant``, ``après``,
#: ``pendant``, ``chaque`` are frame words, and since the twenty-second session so are their English and
#: German counterparts (``before after during each every``, ``während bevor nachdem jede jeder jedes
#: jeden``): "approval of farm tractors *before* they can be sold" required "before" of every provision.
_QUESTION = (
    "combien comment pourquoi quand faut peut peuvent peux puis dois doit doivent voudrais mon apres avant "
    "pendant chaque devenir si beaucoup "
    "much many must should may might shall whether someone somebody become got before after during each every "
    "wann warum wieso weshalb welche welcher welches welchen wer wo darf durfen kann konnen muss mussen "
    "soll sollen mein meine meinen meiner meinem ich hoch sein am wahrend bevor nachdem jede jeder jedes jeden"
)
#: Two-word question frames whose second word asks for a measure (a time, a speed, a count) or an
#: outcome, not a subject: "combien de temps", "how long", "how fast", "what happens", "wie lange".
#: Alone such a word can name a subject ("temps de travail", "long-term", "lange Zeit" stays a
#: search word); after its interrogative no law says it, so required it found the provisions that
#: happen to hold it, and in the any-word quorum its rarity in law outweighed the subject words
#: (:func:`frame_pair_words`). A unit ("combien de *semaines*") is no such word: the answer states
#: it ("vingt semaines"). Query-side only.
_FRAME_PAIRS = (
    "combien:temps "
    "how:long,fast,soon,quickly,often,happens,happen "
    "what:happens,happen "
    "wie:lange,schnell,oft,viel,viele"
)
FRAME_PAIRS: Mapping[str, frozenset[str]] = MappingProxyType(
    {first: frozenset(rest.split(",")) for first, rest in (pair.split(":") for pair in _FRAME_PAIRS.split())})
#: Words a frame pair may have between its two words ("combien *de* temps").
_FRAME_LINKS = frozenset({"de", "d"})
#: Subject pronouns of an inverted question ("peut-on", "faut-il", "dois-je", "kann ich"): frame words
#: too when the question holds a question-frame word (:func:`serve.core.searchplan.without_question_frame`).
QUESTION_PRONOUNS: frozenset[str] = frozenset(
    ["il", "elle", "on", "je", "ils", "elles", "nous", "vous", "tu", "ich", "wir"])
#: Each language's own stop words (accents folded): what a question's words are told apart by
#: (:func:`derive.index.xlang.query_language`) and what a translated question leaves out.
STOP_WORDS_BY_LANGUAGE: Mapping[str, frozenset[str]] = MappingProxyType(
    {"fr": frozenset(_FR.split()), "en": frozenset(_EN.split()), "de": frozenset(_DE.split())})
STOP_WORDS: frozenset[str] = frozenset().union(*STOP_WORDS_BY_LANGUAGE.values())
#: Question-frame words (:data:`_QUESTION`).
QUESTION_WORDS: frozenset[str] = frozenset(_QUESTION.split())
_YEAR = re.compile(r"^(?:1[89]|2[01])\d\d$")
#: Words a relaxed query drops: stop words (fr, en, de), comparison frame words and question-frame words.
RELAXABLE_WORDS: frozenset[str] = STOP_WORDS | frozenset(_FRAME.split()) | QUESTION_WORDS


#: The index build's non-expandable words (:func:`derive.index.analysis.expandable`): stop words
#: and comparison frame words, without :data:`QUESTION_WORDS`, which are query-side only: the word
#: forms and ranked windows an index holds do not change with them (no rebuild).
INDEX_STOP_WORDS: frozenset[str] = STOP_WORDS | frozenset(_FRAME.split())


def index_stop_word(word: str) -> bool:
    """A word the index build gives no Snowball forms: a stop word, a comparison frame word or a bare year."""
    return word in INDEX_STOP_WORDS or bool(_YEAR.match(word))


def frame_pair_words(tokens: Sequence[str]) -> set[str]:
    """The measure words of a question's two-word frames (:data:`FRAME_PAIRS`) among its normalised
    ``tokens`` (stop words included): "combien de *temps*", "how *fast*", "what *happens*",
    "wie *lange*". Pure."""
    out: set[str] = set()
    for i, token in enumerate(tokens):
        second = FRAME_PAIRS.get(token)
        j = i + 1
        if second is None:
            continue
        if j < len(tokens) and tokens[j] in _FRAME_LINKS:
            j += 1
        if j < len(tokens) and tokens[j] in second:
            out.add(tokens[j])
    return out


#: Interrogatives that ask *what* a thing is made of ("what must … contain", « que doit contenir … »,
#: "welche Angaben muss … enthalten"): with one of them, a question's last word that is a verb of
#: containing (:data:`CONTENT_VERBS`) is a frame word (:func:`frame_end_words`).
_CONTENT_INTERROGATIVES = "what which quelles quelle quels quel que qu quoi was welche welcher welches welchen"
CONTENT_INTERROGATIVES = frozenset(_CONTENT_INTERROGATIVES.split())
#: Verbs of containing (accents folded) that end a question asking for the content of a document,
#: a policy, an agreement: "what must a market making agreement contain", "what information must
#: the benchmark statement include", "what must the policy cover". The act answers with its list
#: ("shall include at least the following", « comporte », "shall state", "enthält"), in whatever verb:
#: the question's verb is how it is asked, not what it is about (concepteu34, issue #15).
_CONTENT_VERBS = (
    "contain contains include includes cover covers comprise comprises "
    "contenir contient contiennent comprendre comprend comprennent comporter comporte comportent "
    "inclure inclut incluent couvrir couvre couvrent "
    "enthalten enthalt umfassen umfasst beinhalten beinhaltet"
)
CONTENT_VERBS = frozenset(_CONTENT_VERBS.split())


def frame_end_words(tokens: Sequence[str]) -> set[str]:
    """The verb of containing (:data:`CONTENT_VERBS`) that ends a question asking what something
    contains (an interrogative of :data:`CONTENT_INTERROGATIVES` among its normalised ``tokens``):
    "what must a market making agreement *contain*", "what information must the statement
    *include*". Such a verb frames the question; required, it found the provisions that happen to
    hold it (the parent regulation's article that says "shall contain", an annex) before the act
    whose list answers. Only the last word: a verb of containing inside the question ("rules that
    cover bicycles") or without the interrogative ("the annex shall contain") stays. Pure."""
    words = [t for t in tokens if t]
    if len(words) < 3 or words[-1] not in CONTENT_VERBS:
        return set()
    return {words[-1]} if any(t in CONTENT_INTERROGATIVES for t in words[:-1]) else set()


def relaxable(word: str) -> bool:
    """A word a relaxed query drops: a stop word, a comparison or question frame word, or a bare year.
    For a word of a question's text whose language is not decided (the words of a name, a form's
    subject); a planned search word is judged by :func:`relaxable_term`."""
    return word in RELAXABLE_WORDS or bool(_YEAR.match(word))


#: Stop words of one language that are content words of another (accents folded), with the
#: languages they name a thing in (issue #15, ADR 0054): « l'Our » (a river, « Parc naturel de l'Our »)
#: is English "our"; « but » (a purpose: « association sans but lucratif ») is English "but"; English
#: "son" is a French possessive; English "fur" is German "für". Each is held by the provisions of the
#: full corpora in its content sense (docs/search.md). Measured and left out (ADR 0054): « an » (a
#: year, « par an »: an English and German article), "war", "die" and "dies" (German stop words) each
#: moved a judged case down ("war" measured again beside the routing of metadata-only sections, ADR
#: 0059: no case up, one answer emptied); "hat" is held by German texts only. A word of
#: the stop list of its *own* language that is a noun too (German « Waren », goods; French « maïs »)
#: is not here: the language does not tell those apart.
_CONTENT_ELSEWHERE = "our:fr but:fr son:en fur:en"
CONTENT_ELSEWHERE: Mapping[str, frozenset[str]] = MappingProxyType(
    {word: frozenset(langs.split(",")) for word, langs in (pair.split(":") for pair in _CONTENT_ELSEWHERE.split())})
#: Elided French words: the word after « l' », « d' », « qu' » is French ("l'Our").
ELISIONS = frozenset({"l", "d", "qu"})


def content_stop_words(tokens: Sequence[str], languages: Collection[str]) -> frozenset[str]:
    """The words of :data:`CONTENT_ELSEWHERE` among a question's normalised ``tokens`` (stop words
    included) that it uses as content words: the question is in a language the word names a thing
    in and whose stop list does not hold it (``languages``: the languages the question can be in —
    told by its other words, else the caller's language filter), or the word follows a French
    elision (« l'Our »). With no language told, a word no query stop list of
    :mod:`derive.index.query` holds ("associations sans but lucratif") is content as well: before
    the languages were told apart it was a search word already. A colliding word not returned is a
    stop word of the question: the planner leaves it out of the search words. Pure."""
    out: set[str] = set()
    for i, word in enumerate(tokens):
        content = CONTENT_ELSEWHERE.get(word)
        if content is None:
            continue
        told = {"fr"} if i and tokens[i - 1] in ELISIONS else set(languages)
        if not told:
            if word not in QUERY_STOP_WORDS:
                out.add(word)
        elif told & content and not any(word in STOP_WORDS_BY_LANGUAGE.get(lang, ()) for lang in told):
            out.add(word)
    return frozenset(out)


def relaxable_term(term: str) -> bool:
    """Whether a relaxed query drops a planned search word (:func:`relaxable`), except a word of
    :data:`CONTENT_ELSEWHERE`: the planner keeps such a word only where it is a content word of the
    question (:func:`content_stop_words`), so it is searched, weighed and required like any other."""
    return term not in CONTENT_ELSEWHERE and relaxable(term)


def quorum(terms: int) -> int:
    """Words a provision must hold in an any-term query: a strict majority."""
    return terms // 2 + 1


#: A French verb made on an ``-ion`` noun ("démissionne", "sanctionner", "mentionnés"): its stem is
#: the noun's, so that the verb of a question reaches the noun of the text (:func:`light_stem`).
_ION_VERB = re.compile(r"(?<=ion)n(?:e|es|er|ent|ee|ees|ez|ons|ait|aient)$")


def light_stem(word: str) -> str | None:
    """The light stem of a normalised French or English word, or ``None`` (too short, a stop
    word, not alphabetic, or no known ending leaves enough letters). A French verb on an ``-ion``
    noun stems to the noun (:data:`_ION_VERB`): "demissionne" → "demission", whose family holds
    "demission", "demissions", "demissionner" (the light stem "demissionn" missed the noun)."""
    if len(word) < STEM_MIN_WORD or not word.isalpha() or relaxable(word):
        return None
    verb = _ION_VERB.search(word)
    if verb is not None and verb.start() >= STEM_MIN_LENGTH:
        return word[: verb.start()]
    for suffix in SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= STEM_MIN_LENGTH:
            return word[: -len(suffix)]
    return None


def stems(terms: Sequence[str], language: str | None) -> dict[str, str]:
    """``term → light stem`` for the words that light stemming applies to (none outside fr/en)."""
    if language is not None and language not in STEM_LANGUAGES:
        return {}
    out: dict[str, str] = {}
    for term in terms:
        stem = light_stem(term) if " " not in term else None
        if stem is not None and len(out) < STEM_MAX_WORDS:
            out[term] = stem
    return out


#: The shortest English adverb in ``-ily`` whose adjective in ``-y`` is searched with it
#: (:func:`adverb_adjective`): "temporarily", not "family".
ADVERB_MIN_LETTERS = 7


def adverb_adjective(term: str) -> str | None:
    """The adjective an English adverb in ``-ily`` is made on ("temporarily" → "temporary",
    "necessarily" → "necessary", "voluntarily" → "voluntary"), or ``None``. Snowball stems the
    adverb to ``temporarili`` and the adjective to ``temporari``, so neither is a form of the other
    (:func:`derive.index.analysis.word_forms`) and light stemming's prefix never meets the ``y``:
    "before *temporarily* banning the marketing of crypto-assets" never met the articles on
    *temporary* intervention (issue #15, concept35). Pure."""
    if len(term) < ADVERB_MIN_LETTERS or not term.endswith("ily") or " " in term:
        return None
    return term[:-3] + "y"


def variants(term: str, stem: str, held: Sequence[tuple[str, int]]) -> list[str]:
    """The inflections of ``term`` among ``held`` (index words starting with ``stem``, with their
    document counts): at most :data:`STEM_MAX_ENDING` letters past the stem or
    :data:`WORD_MAX_ENDING` past the word, no stop word, not the term itself; closest in length
    to the term first, then the most frequent."""
    def inflection(word: str) -> bool:
        return ((word.startswith(term) and len(word) - len(term) <= WORD_MAX_ENDING)
                or (word.startswith(stem) and len(word) - len(stem) <= STEM_MAX_ENDING))

    eligible = [(abs(len(word) - len(term)), -docs, word) for word, docs in held
                if word != term and not relaxable(word) and inflection(word)]
    return [word for _, _, word in sorted(eligible)[:STEM_MAX_VARIANTS]]


def with_variants(groups: Sequence[Sequence[str]], terms: Sequence[str],
                  found: dict[str, list[str]]) -> list[list[str]]:
    """Each term's group with its variants added as alternatives."""
    return [[*group, *(v for v in found.get(term, []) if v not in group)]
            for term, group in zip(terms, groups, strict=True)]


def expansion_labels(found: dict[str, list[str]]) -> list[str]:
    return [f"{term} -> {variant}" for term, words in found.items() for variant in words]


@dataclass(frozen=True)
class Relaxation:
    """One weaker form of the query: term groups, AND or OR, and why."""

    groups: list[list[str]]
    any_of: bool
    reason: str  # stop_words_dropped | any_term
    dropped: tuple[str, ...]
    min_terms: int

    @property
    def match_reason(self) -> str:
        return "any_term" if self.any_of else "relaxed"

    def report(self, strict: Sequence[Sequence[str]]) -> dict[str, Any]:
        return {"from": describe(strict), "to": describe(self.groups, any_of=self.any_of), "reason": self.reason,
                "dropped": list(self.dropped), "min_terms": self.min_terms}


def relaxations(terms: Sequence[str], groups: Sequence[Sequence[str]],
                fillers: Collection[str] = ()) -> Iterator[Relaxation]:
    """The weaker forms to try, in order, for ``terms`` (with their expansion ``groups``); the
    ``fillers`` (words the caller found to frame the question only, :func:`untranslated_fillers`)
    are dropped with the stop words."""
    kept = [list(g) for t, g in zip(terms, groups, strict=True) if not relaxable_term(t) and t not in fillers]
    dropped = tuple(t for t in terms if relaxable_term(t) or t in fillers)
    if dropped and kept:
        yield Relaxation(kept, False, "stop_words_dropped", dropped, len(kept))
    if quorum(len(kept)) < len(kept):
        yield Relaxation(kept, True, "any_term", dropped, quorum(len(kept)))


#: A translated question's relaxation drops its untranslated words that the text does not hold only
#: when at least this many content words are left …
FILLER_MIN_KEPT = 2


def untranslated_fillers(terms: Sequence[str], unknown: Sequence[str], translated: Collection[str],
                         framing: Collection[str] = ()) -> list[str]:
    """The words of a question asked in a language the index holds no text in (its ``terms``; the
    ``translated`` ones were given French terms by the lexicon or the synonym file) that its
    relaxation drops like stop words: the single words nothing translates, when the translated
    content words are at least :data:`FILLER_MIN_KEPT` and at least as many as they are, and when
    every ``unknown`` word (held by no provision, which withheld the relaxation) is one of them.
    The verbs and particles of a German or English question that the lexicon lacks ("Krankschreibung
    dem Arbeitgeber *vorlegen*", "Gewährleistung *beim* Kauf", "Höchstdauer *pro Tag*") say how it
    is asked, the translated words what it is about: required, such a word found no provision
    (``unknown_terms``) or, held by a few German states or English texts only, it carried the
    any-word quorum's IDF share alone. Otherwise none — and none when every translated word left
    says no subject (``framing``: an act form, the country's name — "*Luxemburger Gesetz* über den
    Lawinenwarndienst"): the untranslated word is then what the question is about, and no held text
    holds it ("Luxembourg *law* on mutual societies" keeps ``societies`` and drops ``mutual``). Pure."""
    fillers = [t for t in terms if " " not in t and t not in translated and not relaxable_term(t)]
    left = [t for t in terms if t in translated and not relaxable_term(t)]
    if not fillers or len(left) < FILLER_MIN_KEPT or len(fillers) > len(left) \
            or any(t not in fillers for t in unknown) or all(t in framing for t in left):
        return []
    return fillers


#: The fewest letters of a word :func:`unheld_fillers` counts as kept: a numeral or a two-letter token ("Hartz
#: *IV* Arbeitslosengeld") says no subject.
KEPT_MIN_LETTERS = 3


def unheld_fillers(terms: Sequence[str], unknown: Sequence[str], translated: Collection[str],
                   framing: Collection[str] = (), cognate: Collection[str] = ()) -> list[str]:
    """The words of a translated question that its relaxation drops when :func:`untranslated_fillers`
    drops none because its untranslated words outnumber its translated ones: the ``unknown`` words
    alone (single words nothing translates and no provision holds). They are dropped when the
    question's other content words of at least :data:`KEPT_MIN_LETTERS` letters — the translated ones
    and the untranslated words the index holds as they are written (names, international and
    French-spelt words: « armée », « mission », « EUTM ») — are at least :data:`FILLER_MIN_KEPT` and
    at least as many as they are, and at least one translated word of them says a subject (not
    ``framing``). A word the text holds is searchable, so it is a kept word, not a filler; only a word
    nothing holds cannot be searched ("Beteiligung der luxemburgischen Armee an der Mission EUTM in
    *Mosambik*"). None otherwise: every unknown word must be an untranslated single word, and a
    question whose translated words only frame it ("*Gesetz* über den Lawinenwarndienst") keeps its
    unknown word, which is what it is about. A word searched through its French ``cognate`` spellings
    only is never a kept word (as for :func:`untranslated_fillers`, a question no text answers in its
    own words is not made answerable by them: "Genehmigung *Identität* Einhornställe"). Pure."""
    if not unknown or any(" " in t or t in translated or relaxable_term(t) for t in unknown):
        return []
    kept = [t for t in terms if not relaxable_term(t) and t not in unknown and t not in cognate and t.isalpha()
            and len(t) >= KEPT_MIN_LETTERS]
    if len(kept) < FILLER_MIN_KEPT or len(unknown) > len(kept) \
            or not any(t in translated and t not in framing for t in kept):
        return []
    return [t for t in terms if t in unknown]


def describe(groups: Sequence[Sequence[str]], *, any_of: bool = False) -> str:
    """A readable form of term groups: ``a AND (b OR c)``."""
    parts = []
    for group in groups:
        words = list(group)
        parts.append(words[0] if len(words) == 1 else "(" + " OR ".join(words) + ")")
    return (" OR " if any_of else " AND ").join(parts)


#: The reviewed file of everyday words and the legal terms the acts use for them (FR/EN/DE), each
#: entry with its source (the act whose wording holds the term): ``synonyms.json``.
SYNONYMS_PATH = Path(__file__).with_name("synonyms.json")


@functools.cache
def synonyms() -> tuple[tuple[tuple[str, ...], str, tuple[str, ...]], ...]:
    """``(everyday words, everyday phrase, legal terms)`` of :data:`SYNONYMS_PATH`, normalised: the
    words without the query's stop words (as a query's terms are), the phrase as written (searched
    as a phrase), the legal terms as phrases. Longest first."""
    data = json.loads(SYNONYMS_PATH.read_text(encoding="utf-8"))
    found: dict[tuple[str, ...], tuple[str, list[str]]] = {}
    for entry in data["entries"]:
        phrase = normalize(str(entry["word"]))
        words = tuple(w for w in phrase.split() if w not in QUERY_STOP_WORDS)
        if words:
            _, terms = found.setdefault(words, (phrase, []))
            terms += [t for t in (normalize(str(v)) for v in entry["terms"]) if t and t not in terms]
    return tuple(sorted(((k, p, tuple(v)) for k, (p, v) in found.items()), key=lambda e: (-len(e[0]), e[0])))


@functools.cache
def synonym_runs() -> Mapping[tuple[str, ...], tuple[str, tuple[str, ...]]]:
    """:func:`synonyms` by its everyday words: ``words -> (phrase, legal terms)`` (each run of words is
    one entry's), so that :func:`with_synonyms` looks a run up instead of scanning the table at each
    word: the longest run of words at a position that is an entry's is the first entry of the
    table (longest first) that matches there."""
    return MappingProxyType({words: (phrase, legal) for words, phrase, legal in synonyms()})


#: A Snowball stemmer: ``(folded word, language) -> stem`` or ``None`` (too short, no stemmer), as
#: :func:`derive.index.analysis.stem_word` (passed in: the analysis module imports this one).
Stem = Callable[[str, str], str | None]


@functools.cache
def synonym_languages() -> Mapping[tuple[str, ...], frozenset[str]]:
    """The languages of the entries of :func:`synonyms`, per everyday word run (its ``language``)."""
    data = json.loads(SYNONYMS_PATH.read_text(encoding="utf-8"))
    found: dict[tuple[str, ...], set[str]] = {}
    for entry in data["entries"]:
        words = tuple(w for w in normalize(str(entry["word"])).split() if w not in QUERY_STOP_WORDS)
        if words and entry.get("language"):
            found.setdefault(words, set()).add(str(entry["language"]))
    return MappingProxyType({k: frozenset(v) for k, v in found.items()})


def stem_key(words: Sequence[str], language: str, stem: Stem) -> tuple[str, ...]:
    """A run of words as their Snowball stems in ``language`` (a word too short to stem stays as it is)."""
    return tuple(s if (s := stem(w, language)) is not None else w for w in words)


@functools.cache
def stemmed_synonyms(stem: Stem) -> Mapping[tuple[str, tuple[str, ...]], int]:
    """``(language, stems of the everyday words) -> position in synonyms()``, each entry under its
    own language's stemmer; on a clash the longer (earlier) entry keeps the key."""
    languages = synonym_languages()
    out: dict[tuple[str, tuple[str, ...]], int] = {}
    for k, (words, _, _) in enumerate(synonyms()):
        for language in sorted(languages.get(words, ())):
            out.setdefault((language, stem_key(words, language, stem)), k)
    return MappingProxyType(out)


def _stem_match(terms: Sequence[str], stem: Stem, language: str | None,
                longest: int) -> tuple[int, tuple[tuple[str, ...], str, tuple[str, ...]]] | None:
    """The longest run at the start of ``terms`` whose stems are those of an entry's words (in the
    entry's language, and the question's when it is told): its length and the entry."""
    table = stemmed_synonyms(stem)
    entries = synonyms()
    for size in range(min(longest, len(terms)), 0, -1):
        run = terms[:size]
        if any(" " in t for t in run):
            continue
        for lang in (language,) if language is not None else ("de", "en", "fr"):
            k = table.get((lang, stem_key(run, lang, stem)))
            if k is not None:
                return size, entries[k]
    return None


def with_synonyms(terms: Sequence[str], stem: Stem | None = None,
                  language: str | None = None) -> tuple[list[str], dict[str, list[str]]]:
    """A query's terms with each everyday word or run of words of :func:`synonyms` as one term (a
    run becomes its phrase: "arret maladie", "aide medicale a mourir"), and the legal terms each
    such term is OR-ed with (``{"arret maladie": ["incapacite de travail"]}``). The everyday words
    stay: a synonym widens a word's group, it never replaces the word nor filters.

    With a Snowball ``stem`` (:func:`derive.index.analysis.stem_word`), a word or run that matches
    no entry as written matches one whose words have the same stems in the entry's language (the
    question's ``language`` when it is told): "Hinweisgebern" the entry "Hinweisgeber",
    "Insidergeschäften" "Insidergeschäfte", "licenciée" "licencier". The question's own words stay
    the term (searched as written, a run as its phrase)."""
    runs = synonym_runs()
    longest = max(map(len, runs), default=0)
    out: list[str] = []
    found: dict[str, list[str]] = {}
    i = 0
    while i < len(terms):
        for size in range(min(longest, len(terms) - i), 0, -1):
            entry = runs.get(tuple(terms[i:i + size]))
            if entry is not None:
                phrase, legal = entry
                term = phrase if size > 1 else terms[i]
                out.append(term)
                found[term] = [t for t in legal if t != term]
                i += size
                break
        else:
            matched = _stem_match(terms[i:], stem, language, longest) if stem is not None else None
            if matched is None:
                out.append(terms[i])
                i += 1
                continue
            size, (_, _, legal) = matched
            term = " ".join(terms[i:i + size])
            out.append(term)
            found[term] = [t for t in legal if t != term]
            i += size
    return out, found
