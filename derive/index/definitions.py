"""A vocabulary bridge drawn from the acts' own definitions: the words a definition is made of → the term it defines.

A plain-word question says what a thing is ("a person buying for private purposes", « le transport
du corps d'une personne décédée »); an act names it with its own term ("consumer", « transport
funèbre »), and says so in a definition: "'consumer' means any natural person who … is acting for
purposes which are outside his trade", « on entend par « logement abordable » : … ». The defining
words are the question's words; the defined term is the act's. ``definitions_mined.json`` holds the
definitions of every act of the full build (mined by ``scripts/mine_definitions.py``, :func:`mine`),
each with its provenance (the work and anchor of one provision that holds it, and how many works
define the term), and :func:`bridge` reads it at query time:

- a question's content words are matched, by their Snowball stems, against each definition's body
  (its first :data:`MAX_BODY_WORDS` content words);
- a definition is taken when at least :data:`MIN_OVERLAP` of the question's words are in its body,
  the rarest-body evidence (the sum of the matched stems' inverse definition frequency) is at least
  :data:`MIN_SCORE`, and the question does not already hold the defined term;
- the defined term is then an OR-alternative of each matched word (never a filter, never a
  replacement, never choosing an act), as a synonym is, and it is reported.

Only the best-scoring definition is taken (ties to the one whose term more works define), and only in
the question's own language (an English definition for an English question): the term must be a word
of the text searched. Nothing here reads an index. Pure, apart from reading the data file once.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from derive.index import analysis, relax
from derive.index.text import normalize

SCHEMA = "lex-definitions-bridge/1"
MINED_PATH = Path(__file__).with_name("definitions_mined.json")
#: The languages definitions are mined in (the text languages of the two publishers).
LANGUAGES = ("en", "fr")
#: A defined term has at most this many words, and each of its words at least :data:`MIN_WORD` letters but one.
MAX_TERM_WORDS = 4
MIN_WORD = 3
#: A definition's body is read up to this many content words: the genus and the first differentia,
#: not the enumerations that follow.
MAX_BODY_WORDS = 25
#: A body shorter than this (in content words) is a reference ("as defined in Article 2"), not a definition.
MIN_BODY_WORDS = 4
#: A question's words in a definition's body, at least.
MIN_OVERLAP = 2
#: A body stem counts as evidence only when at most this share of the language's definitions hold it
#: ("person", "member", "state", « autre », « travail » are in hundreds: they tell no definition apart).
MAX_STEM_SHARE = 0.01
#: The matched words' evidence (sum of ln(definitions / definitions whose body holds the stem)), at least.
MIN_SCORE = 12.0
#: A definition whose body refers to another act's definition defines nothing here.
_REFERENCE = re.compile(r"^(?:\W*)(?:as defined|has the meaning|within the meaning|tel(?:le)?s? que d[ée]fini|"
                        r"au sens|the same meaning|le m[êe]me sens|ceux? vis[ée]s?|that defined|ceux? d[ée]fini)",
                        re.IGNORECASE)
#: Stems of the words that refer to another text ("Article 3 of Regulation …", « au sens de l'article … »):
#: never evidence of what a definition means, and left out of its body.
REFERENCE_STEMS = frozenset({
    "articl", "point", "paragraph", "subparagraph", "annex", "sens", "defin", "regul", "regl", "reglement",
    "direct", "decis", "titl", "titr", "chapt", "chapitr", "section", "alinea", "letter", "lettr", "pursuant",
    "accord", "conform", "vis", "mention", "referr", "refer", "laid", "down", "set", "out", "meaning", "mean",
    "deleg", "implement", "execu", "present", "presen", "loi", "law", "act", "code", "modifi", "amend", "provid",
    "prevus", "prev", "under", "within", "purpos", "fin",
})
_QUOTE_OPEN = "‘'\"“«"
_QUOTE_CLOSE = "’'\"”»"
#: English: "'term' means …"; French: « terme » : …, « terme » désigne / signifie …
_PATTERNS: dict[str, re.Pattern[str]] = {
    "en": re.compile(rf"[{_QUOTE_OPEN}]([^{_QUOTE_CLOSE}\n]{{2,80}})[{_QUOTE_CLOSE}]\s+(?:means|shall mean)\s+"
                     r"([^;\n]{10,600})"),
    "fr": re.compile(rf"[{_QUOTE_OPEN}]\s*([^{_QUOTE_CLOSE}\n]{{2,80}}?)\s*[{_QUOTE_CLOSE}]\s*"
                     r"(?::|,?\s*(?:désigne|signifie|s'entend de|s’entend de))\s*([^;\n]{10,600})"),
}


@dataclass(frozen=True)
class Definition:
    """One mined definition: the defined term, its body's content stems and its provenance."""

    language: str
    term: str  # normalised
    body: tuple[str, ...]  # Snowball stems of the body's content words, in order, distinct
    example: str  # work#anchor of one provision holding it
    works: int  # how many works define the term (in this language)

    def to_dict(self) -> dict[str, Any]:
        return {"language": self.language, "term": self.term, "body": list(self.body), "example": self.example,
                "works": self.works}


def content_stems(text: str, language: str) -> list[str]:
    """The Snowball stems of a text's content words, in order, each once: normalised, alphabetic, at
    least :data:`MIN_WORD` letters, not a stop word (of any language) nor a relaxable word. Pure."""
    out: dict[str, None] = {}
    for w in normalize(text).split():
        if len(w) >= MIN_WORD and w.isalpha() and w not in relax.STOP_WORDS and not relax.relaxable(w):
            out.setdefault(analysis.stem_word(w, language) or w, None)
    return list(out)


def extract(text: str, language: str) -> list[tuple[str, list[str]]]:
    """The definitions a provision's text holds, as ``(normalised term, body stems)``: the term
    quoted before "means" (English) or before a colon, « désigne », « signifie » (French), of at
    most :data:`MAX_TERM_WORDS` words; its body up to the next semicolon or line, read for at most
    :data:`MAX_BODY_WORDS` content words. A body that refers to another definition, or too short
    (:data:`MIN_BODY_WORDS`), is left out. Pure."""
    pattern = _PATTERNS.get(language)
    if pattern is None:
        return []
    found = []
    for m in pattern.finditer(text):
        term = normalize(m.group(1))
        words = term.split()
        if not words or len(words) > MAX_TERM_WORDS or any(not w.isalpha() for w in words) \
                or sum(len(w) < MIN_WORD for w in words) > 1:
            continue
        raw = m.group(2)
        if _REFERENCE.match(raw):
            continue
        own = set(content_stems(term, language))
        body = [s for s in content_stems(raw, language) if s not in own and s not in REFERENCE_STEMS][:MAX_BODY_WORDS]
        if len(body) >= MIN_BODY_WORDS:
            found.append((term, body))
    return found


def mine(provisions: Iterable[tuple[str, str, str]]) -> list[Definition]:
    """The definitions of provisions ``(work#anchor, language, text)``: one entry per language, term
    and body (the same definition repeated by other states, anchors or works counted once, its
    first place kept as the example), each with the number of works that define the term in that
    language. Sorted by language, term and body. Pure."""
    first: dict[tuple[str, str, tuple[str, ...]], str] = {}
    works: dict[tuple[str, str], set[str]] = {}
    for where, language, text in provisions:
        for term, body in extract(text, language):
            key = (language, term, tuple(body))
            first.setdefault(key, where)
            works.setdefault((language, term), set()).add(where.split("#", 1)[0])
    return [Definition(lang, term, body, where, len(works[(lang, term)]))
            for (lang, term, body), where in sorted(first.items())]


@dataclass(frozen=True)
class Bridge:
    """The mined definitions of one language, as :func:`bridge` reads them."""

    definitions: tuple[Definition, ...]
    #: body stem → the indexes of the definitions whose body holds it
    postings: dict[str, tuple[int, ...]]
    #: body stem → its inverse definition frequency, ln(definitions / definitions holding it), for the
    #: stems held by at most :data:`MAX_STEM_SHARE` of the definitions (the others are no evidence)
    weight: dict[str, float]


@functools.cache
def load(language: str) -> Bridge:
    """The bridge of ``language`` from the mined file (none when the file is absent)."""
    data: dict[str, Any] = json.loads(MINED_PATH.read_text(encoding="utf-8")) if MINED_PATH.exists() else {}
    defs = tuple(Definition(str(e["language"]), str(e["term"]), tuple(e["body"]), str(e["example"]), int(e["works"]))
                 for e in data.get("definitions", []) if e.get("language") == language)
    postings: dict[str, list[int]] = {}
    for i, d in enumerate(defs):
        for stem in d.body:
            postings.setdefault(stem, []).append(i)
    n = max(len(defs), 1)
    return Bridge(defs, {s: tuple(v) for s, v in postings.items()},
                  {s: math.log(n / len(v)) for s, v in postings.items() if len(v) <= MAX_STEM_SHARE * n})


@dataclass(frozen=True)
class Found:
    """What :func:`bridge` took: the defined term, the question's words it is OR-ed with, the evidence."""

    term: str
    words: tuple[str, ...]
    score: float
    example: str

    def report(self) -> dict[str, Any]:
        return {"term": self.term, "from": list(self.words), "score": round(self.score, 1), "source": self.example}


def bridge(terms: Sequence[str], language: str | None) -> Found | None:
    """The defined term a question's ``terms`` (normalised, the planner's search words) describe in
    ``language`` (the question's, :data:`LANGUAGES`), or ``None``: the best definition whose body
    holds at least :data:`MIN_OVERLAP` of the question's single words (by Snowball stem) with an
    evidence of at least :data:`MIN_SCORE`, when the question does not hold the term already. Pure
    (the data file aside)."""
    if language not in LANGUAGES:
        return None
    data = load(language)
    stems: dict[str, str] = {}
    for t in terms:
        if " " not in t and len(t) >= MIN_WORD and t.isalpha() and t not in relax.STOP_WORDS:
            stems.setdefault(analysis.stem_word(t, language) or t, t)
    hits: Counter[int] = Counter()
    for stem in stems:
        if stem not in data.weight:
            continue  # a common word: no evidence
        for i in data.postings.get(stem, ()):
            hits[i] += 1
    held = set(stems)
    best: tuple[float, int, int] | None = None  # (score, works, -index): the highest wins
    for i, n in hits.items():
        if n < MIN_OVERLAP:
            continue
        d = data.definitions[i]
        if set(content_stems(d.term, language)) <= held or d.term in terms:
            continue  # the question names the term already
        score = sum(data.weight.get(s, 0.0) for s in d.body if s in stems)
        if score >= MIN_SCORE and (best is None or (score, d.works, -i) > best):
            best = (score, d.works, -i)
    if best is None:
        return None
    d = data.definitions[-best[2]]
    return Found(d.term, tuple(stems[s] for s in d.body if s in stems and s in data.weight), best[0], d.example)
