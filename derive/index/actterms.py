"""The act terms: reviewed words people use when asking about an act's subject (issue #15).

A lawyer asks « utiliser une œuvre dont l'auteur est introuvable »; the act says « œuvres
orphelines ». For every act of both corpora, reviewers wrote from the act's titles and headings the
words a question about its subject uses, in French, English and German: the **act terms**. They are
package data, ``derive/index/act_terms/*.jsonl`` (:data:`ACT_TERMS_DIR`; its ``README.md`` gives the
format), one JSON object a line::

    {"work": "lu-legilux:loi-2015-12-03-n1", "fr": ["œuvre orpheline", …], "en": […], "de": […]}
    {"work": "eu-eurlex:32019l0790", "skip": "amending only"}

This module reads them (:func:`load`, pure over the files' bytes) and gives the index build one
work's terms (:func:`work_terms`); the build stores them as ``work_metadata`` rows of kind
:data:`KIND` (label: the normalised term; its language; no identifier nor second normalised
copy), which no reader of the publisher's metadata takes for its own (``work_fts`` does not hold
them; the metadata lane leaves the kind out). The search reads them once per mounted index (:mod:`serve.core.actterms`).

Rules (the data are the reviewers'; what the code does with a term is one of these):

- a line that is not a JSON object, has no ``work`` of the form ``publisher:slug``, or gives a
  language a value that is not a list of strings is refused: :class:`legal.errors.IndexError_` code
  ``act_terms_invalid`` naming the file and the line (the whole build stops: the file is reviewed data);
- a line with ``skip`` (the reviewers' mark for an act with no subject of its own: amending only, a
  nomination) gives no terms; so does a language other than :data:`LANGUAGES`;
- a term is kept in its normalised form (:func:`derive.index.text.normalize`: lower case, accents and
  punctuation as the index folds them); a term that normalises to nothing or to more than
  :data:`MAX_WORDS` words is dropped (counted in :attr:`ActTerms.dropped`);
- two lines of one work (two reviewers) add up; a term repeated in one language is kept once;
- a work the publisher does not hold is ignored (the build counts it, as for the reviewed aliases).

An absent or empty directory means no terms: the build and the search then behave as before.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from derive.index.text import normalize
from legal.errors import IndexError_

#: The packaged act terms (the reviewed ``*.jsonl`` files and their README).
ACT_TERMS_DIR = Path(__file__).with_name("act_terms")
#: The directory the index build reads (``lex index build --act-terms DIR`` sets it for one build).
DIRECTORY: ContextVar[Path] = ContextVar("act_terms_directory", default=ACT_TERMS_DIR)
#: The ``work_metadata`` kind (and identifier) of an act term row.
KIND = "act_term"
#: The languages of the terms.
LANGUAGES = ("fr", "en", "de")
#: A term of more words than this is no term a question says (dropped).
MAX_WORDS = 6
#: A term longer than this many characters is dropped too.
MAX_CHARS = 80


@dataclass(frozen=True)
class ActTerms:
    """Every act's terms of one directory: ``lex work id → ((language, normalised term), …)``."""

    by_work: Mapping[str, tuple[tuple[str, str], ...]]
    #: SHA-256 over the files' names and bytes (a build input: a changed file rebuilds every work).
    digest: str
    files: int = 0
    #: lines marked ``skip`` (no terms).
    skipped: int = 0
    #: terms dropped by the rules (empty, too long).
    dropped: int = 0

    def of(self, work_id: str) -> tuple[tuple[str, str], ...]:
        """The terms of one work (``publisher:slug``), none when it has none."""
        return self.by_work.get(work_id, ())

    def not_held(self, publisher: str, held: Iterable[str]) -> int:
        """How many works of ``publisher`` with terms are not among the ``held`` slugs."""
        slugs = set(held)
        prefix = f"{publisher}:"
        return sum(1 for w in self.by_work if w.startswith(prefix) and w[len(prefix):] not in slugs)


EMPTY = ActTerms({}, hashlib.sha256(b"").hexdigest())


def _invalid(name: str, line: int, why: str) -> IndexError_:
    return IndexError_(f"act terms {name} line {line}: {why}", code="act_terms_invalid", subject=f"{name}:{line}")


def parse_line(text: str, name: str, line: int) -> tuple[str, dict[str, list[str]] | None]:
    """One line of an act-terms file: its work and its raw terms per language (``None``: a ``skip``
    line). Raises ``act_terms_invalid`` naming ``name`` and ``line`` for a malformed line. Pure."""
    try:
        item = json.loads(text)
    except json.JSONDecodeError as error:
        raise _invalid(name, line, f"not JSON ({error.msg})") from None
    if not isinstance(item, dict):
        raise _invalid(name, line, "not a JSON object")
    work = item.get("work")
    if not isinstance(work, str) or work.count(":") != 1 or not all(work.split(":")):
        raise _invalid(name, line, "work must be publisher:slug")
    if "skip" in item:
        return work, None
    terms: dict[str, list[str]] = {}
    for language, values in item.items():
        if language == "work":
            continue
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise _invalid(name, line, f"{language} must be a list of strings")
        terms[language] = values
    return work, terms


def kept_term(value: str) -> str | None:
    """A term's normalised form, or ``None`` when the rules drop it (empty, more than
    :data:`MAX_WORDS` words or :data:`MAX_CHARS` characters). Pure."""
    normalized = normalize(value)
    if not normalized or len(normalized) > MAX_CHARS or len(normalized.split()) > MAX_WORDS:
        return None
    return normalized


def parse(files: Iterable[tuple[str, str]]) -> ActTerms:
    """The act terms of ``(file name, text)`` pairs (see the module docstring for the rules). Pure."""
    collected: dict[str, dict[tuple[str, str], None]] = {}
    h = hashlib.sha256()
    count = skipped = dropped = 0
    for name, text in files:
        count += 1
        h.update(f"{name}\0{len(text)}\0".encode())
        h.update(text.encode())
        for number, raw in enumerate(text.splitlines(), 1):
            if not raw.strip():
                continue
            work, terms = parse_line(raw, name, number)
            if terms is None:
                skipped += 1
                continue
            held = collected.setdefault(work, {})
            for language in LANGUAGES:
                for value in terms.get(language, ()):
                    term = kept_term(value)
                    if term is None:
                        dropped += 1
                    else:
                        held.setdefault((language, term), None)
    by_work = {work: tuple(terms) for work, terms in sorted(collected.items()) if terms}
    return ActTerms(by_work, h.hexdigest(), count, skipped, dropped)


def files_of(directory: Path) -> list[tuple[str, str]]:
    """The ``*.jsonl`` files of ``directory`` as ``(name, text)``, by name (none when it is absent)."""
    if not directory.is_dir():
        return []
    return [(p.name, p.read_text(encoding="utf-8")) for p in sorted(directory.glob("*.jsonl")) if p.is_file()]


@functools.lru_cache(maxsize=4)
def _load(directory: Path, stamp: tuple[tuple[str, int, int], ...]) -> ActTerms:
    del stamp  # the cache key: the files' names, sizes and times
    return parse(files_of(directory))


def load(directory: Path | None = None) -> ActTerms:
    """The act terms of ``directory`` (default: :data:`DIRECTORY`'s value), read once per state of
    its files."""
    path = directory if directory is not None else DIRECTORY.get()
    stats = [(p.name, p.stat()) for p in sorted(path.glob("*.jsonl"))] if path.is_dir() else []
    stamp = tuple((name, st.st_size, st.st_mtime_ns) for name, st in stats)
    return _load(path, stamp)


def work_terms(terms: ActTerms, publisher: str, slug: str) -> tuple[tuple[str, str], ...]:
    """``((language, normalised term), …)`` of one held work (none when the files give it none)."""
    return terms.of(f"{publisher}:{slug}")
