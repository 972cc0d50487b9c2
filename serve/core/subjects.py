"""The acts a question names by subject: EuroVoc concepts whose whole label the question holds.

EUR-Lex records carry EuroVoc descriptors with their preferred and alternative labels in
English and French (``work_metadata`` kinds ``eurovoc`` and ``eurovoc_alt_label``). A question
that says a concept's whole label — every content word of "comparative advertising", "diesel
fuel", "public limited company", in any inflection (Snowball stems) — is on that concept's
subject, and the few acts the publisher indexed under it are acts about the question, even when
their titles hold none of its words. This is the publisher's own subject indexing, read from the
mounted index (no index change); it is never identity (it names no act by itself) and never a
filter: :func:`serve.core.ops.search._keep_on_subject` uses it as subject evidence beside the
acts' names, so the any-word relaxation's hits on such an act are kept instead of being
withheld as ``off_subject``.

The law's own name for a subject is also the reviewed lexicon's legal term for an everyday word
(:func:`legal_terms`: "group lawsuit" → "representative action"); a phrase of two content words or
more names the subject of a question no lane answered (:func:`serve.core.ops.search._reach_legal_terms`).

A word no provision holds ("musiciens": the acts say « artistes interprètes ») may still be one of
EuroVoc's one-word labels — a descriptor or a non-preferred "used for" term of one — that at most
:data:`WORD_LABEL_MAX_WORKS` works carry (:meth:`SubjectLabels.word_works`): those works are about it
(:func:`serve.core.ops.search._reach_word_labels`, which also asks their text for the question's
other words). Such labels are never subject evidence for words the texts hold: many are everyday
words ("goods", "consumer") that one or two acts happen to carry.

Only specific concepts count: a label of at least :data:`SUBJECT_MIN_WORDS` content words (a
one-word label — "product", "obligation", "loi" — is in almost every question), carried by at
most :data:`SUBJECT_MAX_WORKS` works (a concept that labels a hundred acts says nothing about
which one answers).
"""

from __future__ import annotations

import sqlite3
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field

from derive.index import analysis, relax
from derive.index.text import normalize

#: The metadata kinds whose labels are subject labels (the concept's own labels; never the broader
#: concept, domain or directory heading, which label hundreds of acts).
SUBJECT_KINDS = ("eurovoc", "eurovoc_alt_label")
#: A subject label has at least this many content words.
SUBJECT_MIN_WORDS = 2
#: A subject label is carried by at most this many works.
SUBJECT_MAX_WORKS = 10
#: A one-word label names a question's unknown word's subject when at most this many works carry it
#: (:meth:`SubjectLabels.word_works`): EuroVoc's own "used for" terms of a narrow descriptor
#: ("musician" under *artistic profession*, "disinfectant" under *biocide*).
WORD_LABEL_MAX_WORKS = 3
#: A legal term of the reviewed lexicon names a subject when it has at least this many content words
#: (:func:`legal_terms`).
LEGAL_TERM_MIN_WORDS = 2


def content_words(normalized: str) -> list[str]:
    """The content words of a normalised phrase: stop words and one-letter words left out."""
    return [w for w in normalized.split() if len(w) > 1 and not relax.index_stop_word(w)]


def legal_terms(synonyms: Mapping[str, Sequence[str]]) -> list[str]:
    """The legal terms the reviewed lexicon gives for a question's everyday words
    (``Plan.synonyms``: everyday word → the acts' terms for it) that are phrases of at least
    :data:`LEGAL_TERM_MIN_WORDS` content words, normalised, each once, in the lexicon's order:
    "group lawsuit" → "representative action", "hacked" → "personal data breach". Such a term is
    the name the law gives the question's subject (each entry names the act whose own wording
    holds it); a one-word term ("charges", "frais") names none. Pure."""
    found: list[str] = []
    for terms in synonyms.values():
        for term in terms:
            phrase = normalize(term)
            if len(content_words(phrase)) >= LEGAL_TERM_MIN_WORDS and phrase not in found:
                found.append(phrase)
    return found


def label_key(normalized: str, language: str) -> tuple[str, ...]:
    """The content words of a normalised label as stems of its language (sorted, each once):
    stop words and one-letter words left out; a word with no stem stands as written."""
    words = set(content_words(normalized))
    return tuple(sorted({analysis.stem_word(w, language) or w for w in words}))


def query_stems(words: Iterable[str]) -> frozenset[str]:
    """Every form a label word may take to match one of the question's normalised ``words``:
    the word itself and its Snowball stem in each language of the labels. A phrase term (a synonym's
    or a translation's: "paid holiday" → "paid annual leave") counts as its words, so the labels
    "paid leave" and "annual leave" are said by it."""
    held: set[str] = set()
    for word in (w for term in words for w in term.split()):
        held.add(word)
        for language in ("en", "fr"):
            stem = analysis.stem_word(word, language)
            if stem is not None:
                held.add(stem)
    return frozenset(held)


@dataclass(frozen=True)
class SubjectLabels:
    """The specific subject labels of one index: label key → the works that carry it."""

    works: Mapping[tuple[str, ...], frozenset[int]]
    #: One label as the publisher wrote it per key (the first read), to say which one matched.
    labels: Mapping[tuple[str, ...], str]
    #: The one-word labels carried by at most :data:`WORD_LABEL_MAX_WORKS` works: stem → works, label.
    words: Mapping[str, tuple[frozenset[int], str]] = dataclass_field(default_factory=dict)
    #: The label keys in :attr:`works`'s order, and by first word the positions of those it begins
    #: (built here): :meth:`matched` reads only the keys a question's word begins, not every key —
    #: reading every key and its works each question wrote to every page holding them in a served
    #: worker (reference counts), a copy of those pages in each worker instead of one they share.
    order: tuple[tuple[str, ...], ...] = dataclass_field(init=False, repr=False, compare=False)
    by_first: Mapping[str, tuple[int, ...]] = dataclass_field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        order = tuple(self.works)
        by_first: dict[str, list[int]] = {}
        for position, key in enumerate(order):
            by_first.setdefault(key[0], []).append(position)
        object.__setattr__(self, "order", order)
        object.__setattr__(self, "by_first", {word: tuple(at) for word, at in by_first.items()})

    def matched(self, words: Iterable[str]) -> list[tuple[int, str]]:
        """The works whose subject label the question's ``words`` hold wholly, with that label:
        the works matched by the most labels first (then by row id), each once."""
        held = query_stems(words)
        found: dict[int, list[tuple[str, ...]]] = {}
        for position in sorted(p for word in held for p in self.by_first.get(word, ())):
            key = self.order[position]
            if all(w in held for w in key[1:]):
                for work in self.works[key]:
                    found.setdefault(work, []).append(key)
        ordered = sorted(found.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        return [(work, self.labels[max(keys, key=len)]) for work, keys in ordered]

    def word_works(self, word: str) -> tuple[frozenset[int], str] | None:
        """The works a one-word label ``word`` says (in any inflection: its EN/FR Snowball stems) and
        that label, or ``None`` when no narrow one-word label is the word."""
        for form in sorted(query_stems([word])):
            if form in self.words:
                return self.words[form]
        return None

    def named_by(self, words: Iterable[str]) -> frozenset[int]:
        """The works whose subject label the question's ``words`` hold wholly."""
        return frozenset(work for work, _ in self.matched(words))


def subject_labels(rows: Iterable[tuple[int, str, str]]) -> SubjectLabels:
    """The specific subject labels among ``(work_rowid, label, language)`` rows."""
    works: dict[tuple[str, ...], set[int]] = {}
    labels: dict[tuple[str, ...], str] = {}
    single: dict[tuple[str, ...], set[int]] = {}
    keys: dict[tuple[str, str], tuple[str, ...]] = {}  # a label labels many works: keyed once
    for work, label, language in rows:
        key = keys.get((label, language))
        if key is None:
            key = keys[(label, language)] = label_key(normalize(label), language)
        if len(key) >= SUBJECT_MIN_WORDS:
            works.setdefault(key, set()).add(work)
            labels.setdefault(key, label)
        elif len(key) == 1:
            single.setdefault(key, set()).add(work)
            labels.setdefault(key, label)
    kept = {k: frozenset(v) for k, v in works.items() if len(v) <= SUBJECT_MAX_WORKS}
    narrow = {k[0]: (frozenset(v), labels[k]) for k, v in single.items() if len(v) <= WORD_LABEL_MAX_WORKS}
    return SubjectLabels(kept, {k: labels[k] for k in kept}, narrow)


_LABELS: weakref.WeakKeyDictionary[object, SubjectLabels] = weakref.WeakKeyDictionary()


def labels_of(conn: sqlite3.Connection, index: object | None) -> SubjectLabels:
    """The subject labels of the index ``conn`` reads, remembered per mounted ``index`` (an
    immutable file); read from ``work_metadata`` (one pass; an index without EuroVoc rows, as
    Legilux's, has none)."""
    if index is not None and index in _LABELS:
        return _LABELS[index]
    labels = subject_labels(
        (int(w), str(n), str(lang))
        for w, n, lang in conn.execute(
            "SELECT r.work_rowid, t.label, t.language FROM work_metadata_rows r "
            "JOIN metadata_terms t ON t.term_rowid = r.term_rowid "
            f"WHERE t.kind IN ({','.join('?' * len(SUBJECT_KINDS))})",
            SUBJECT_KINDS,
        )
    )
    if index is not None:
        _LABELS[index] = labels
    return labels


def subject_matches(
    conn: sqlite3.Connection, index: object | None, groups: Sequence[Sequence[str]]
) -> list[tuple[int, str]]:
    """:meth:`SubjectLabels.matched` for the words of a question's term ``groups``."""
    return labels_of(conn, index).matched(w for g in groups for w in g)


def subject_works(
    conn: sqlite3.Connection, index: object | None, groups: Sequence[Sequence[str]]
) -> frozenset[int]:
    """The works a question names by subject: every word of its term ``groups`` (each word with
    its held forms) may say a label word."""
    return labels_of(conn, index).named_by(w for g in groups for w in g)
