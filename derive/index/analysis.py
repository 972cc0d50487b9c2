"""Language analysis shared by the index builder and the query side: Snowball stems.

The index's FTS5 tokenizer (``unicode61 remove_diacritics 2``) folds case and accents but does
not stem, so ``platform`` never meets ``platforms``. Stemming is added beside it, not inside it:

- at build time every word of ``vocabulary`` (letters only, 4+ characters) is stemmed with the
  Snowball stemmers of English, French and German (PyStemmer, the maintained C implementation
  of snowballstem.org) and written to ``term_stems(language, stem, term, docs)``
  (:func:`term_stem_rows`);
- at query time a query word is stemmed the same way and every held word with the same stem that
  is an inflection of it is added to its FTS5 term group as an alternative (:func:`word_forms`);
  the build precomputes the ranked window of a frequent word with those same forms
  (:mod:`derive.index.serving`). This is a stemmed column
  in effect (the match is the union of the word forms of one stem) without re-tokenising the
  provision text, and the index keeps its exact-word ranking: BM25 still scores the forms found.

Words are stemmed in their folded form (the form the index holds), so the French ``données`` is
stemmed as ``donnees``. Stems are only ever an OR-alternative of the word typed: a word is never
replaced by its stem.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Iterable, Iterator

import Stemmer

from derive.index import relax

#: Languages with a Snowball stemmer, ISO 639-1 → Snowball algorithm name.
SNOWBALL: dict[str, str] = {"en": "english", "fr": "french", "de": "german"}
#: Words shorter than this are not stemmed (``data`` → ``data``, ``lois`` stays ``lois``).
MIN_STEM_WORD = 4
#: A stem shorter than this is too general to expand (``don``, ``org``).
MIN_STEM = 4
#: Held word forms added per query word from its Snowball stem (most frequent first).
MAX_FORMS = 8


@functools.lru_cache(maxsize=8)
def _stemmer(language: str) -> Stemmer.Stemmer:
    stemmer = Stemmer.Stemmer(SNOWBALL[language])
    stemmer.maxCacheSize = 20000
    return stemmer


def stem_word(word: str, language: str, *, cached: bool = True) -> str | None:
    """The Snowball stem of a folded word, or ``None`` (no stemmer, too short, not alphabetic,
    or a stem shorter than :data:`MIN_STEM`). ``cached=False`` stems through a stemmer that remembers
    nothing: for a table built once per process from thousands of words (the cross-language lexicon,
    :func:`derive.index.xlang.lexicon`), which would otherwise stay in the query stemmer's cache of every
    serving process (1.5 MB for the two lexicons; the table keeps the stems it needs). The same stem
    either way."""
    if language not in SNOWBALL or len(word) < MIN_STEM_WORD or not word.isalpha():
        return None
    stem = str((_stemmer if cached else _stemmer_without_cache)(language).stemWord(word))
    return stem if len(stem) >= MIN_STEM else None


@functools.lru_cache(maxsize=8)
def _stemmer_without_cache(language: str) -> Stemmer.Stemmer:
    return Stemmer.Stemmer(SNOWBALL[language], 0)


def languages_for(language: str | None) -> tuple[str, ...]:
    """The stemming languages of a query: its ``language`` filter, or every one."""
    if language is None:
        return tuple(SNOWBALL)
    return (language,) if language in SNOWBALL else ()


def term_stem_rows(words: Iterable[tuple[str, int]]) -> Iterator[tuple[str, str, str, int]]:
    """``(language, stem, term, docs)`` for every vocabulary word and stemming language; a word
    whose stem is itself is written too (it is its stem's most common form, often)."""
    for term, docs in words:
        for language in SNOWBALL:
            stem = stem_word(term, language)
            if stem is not None:
                yield language, stem, term, docs


def expandable(term: str) -> bool:
    """Whether a query word gets its Snowball forms: one word, not a stop / frame word or a year."""
    return " " not in term and not relax.index_stop_word(term)


def word_forms(conn: sqlite3.Connection, term: str, language: str | None) -> list[str]:
    """The held word forms sharing ``term``'s Snowball stem (``term_stems``), most frequent first,
    at most :data:`MAX_FORMS`: in the ``language`` filter's language, or in EN, FR and DE.

    A form, not the bare stem of a longer word (``journaliste`` never widens to ``journal``), and
    an inflection: the shorter word, less its last letter, begins the longer one, which is at most
    3 letters longer (``authority`` meets ``authorities``, never ``authorized``, which Porter2 also
    stems to ``author``). The query side (``serve.core.ops.search``) and the build's precomputed
    ranked windows (:mod:`derive.index.serving`) use this one function, so their FTS5 matches are
    the same strings. An index built before ``term_stems`` raises ``sqlite3.OperationalError``.
    """
    found: dict[str, int] = {}
    for lang in languages_for(language):
        stem = stem_word(term, lang)
        if stem is None:
            continue
        rows = conn.execute("SELECT term, docs FROM term_stems WHERE language = ? AND stem = ? "
                            "ORDER BY docs DESC LIMIT ?", (lang, stem, 2 * MAX_FORMS)).fetchall()
        for word, docs in rows:
            if word != term and not relax.index_stop_word(str(word)) and inflection(term, str(word)):
                found[str(word)] = max(found.get(str(word), 0), int(docs))
    return sorted(found, key=lambda w: (-found[w], w))[:MAX_FORMS]


def inflection(term: str, word: str) -> bool:
    """Whether two words of one stem are inflections of each other (see :func:`word_forms`)."""
    short, long = sorted((term, word), key=len)
    return len(long) - len(short) <= 3 and long.startswith(short[:-1])
