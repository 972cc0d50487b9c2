"""Per-work tables held as one string and two arrays, not as one object per work (issue #14, worker memory).

A table a mounted index builds before ``lex serve --workers N`` forks (:func:`serve.core.mount.warm_index`) is
shared copy-on-write by the workers only while they write to none of its pages. A dict of one Python object per
work is written to by every lookup: reading an entry increments the reference count of the value (and of the
key's ``int``, compared when its hash matches), iterating a tuple increments each string it holds. Over a few
thousand requests each worker so copied nearly every page of the name words and the title subjects (ADR 0165).

:class:`StringColumn` holds one string per key: each key's position in an array indexed by the key, the strings
joined into one ``str`` and sliced by an ``array('I')`` of offsets. A lookup reads the arrays' buffers
and makes the value it returns; it writes nothing the builder made. :class:`WordSets` and :class:`SubjectTable`
are the two tables the search reads through it (:func:`serve.core.ops.search.name_words`,
:func:`serve.core.ops.search.works_title_subjects`): mappings of the same values as the dicts they replace.
"""

from __future__ import annotations

import types
from array import array
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from typing import TypeVar, cast

#: Between the words of one value: no normalised word or title subject word holds a control character.
WORD_SEP = "\x1f"
#: Between the fields of one value (:class:`SubjectTable`: the shortest subject, then language and subject).
FIELD_SEP = "\x1e"

#: Values :class:`WordSets` and :class:`SubjectTable` keep once made (the last ones, all forgotten when full):
#: a question reads the name words of ≈ 100 works and the title subjects of ≈ 50, mostly its own hits again
#: and again. What a builder made before forking is at most that many objects a worker may write to.
MADE_SETS = 256
MADE_SUBJECTS = 256

_NO_LANGUAGES: Mapping[str, Collection[str]] = types.MappingProxyType({})


class StringColumn:
    """One string per key (a small non-negative ``int``: a SQLite row id), held as one joined string, its
    offsets, and each key's position in an array indexed by the key. Immutable."""

    __slots__ = ("_at", "_blob", "_keys", "_starts")

    def __init__(self, items: Iterable[tuple[int, str]]) -> None:
        keys, starts, parts = array("q"), array("I", [0]), []
        for key, value in sorted(items):
            if key < 0 or (keys and keys[-1] == key):
                raise ValueError(f"key {key} is negative or given twice")
            keys.append(key)
            parts.append(value)
            starts.append(starts[-1] + len(value))
        self._at = array("i", [-1]) * ((keys[-1] + 1) if keys else 0)
        for position, key in enumerate(keys):
            self._at[key] = position
        self._keys, self._starts, self._blob = keys, starts, "".join(parts)

    def __len__(self) -> int:
        return len(self._keys)

    def position(self, key: object) -> int:
        """Where ``key`` is, or -1."""
        at = self._at
        return at[key] if isinstance(key, int) and 0 <= key < len(at) else -1

    def get(self, key: object) -> str | None:
        """The string of ``key``, or ``None``."""
        at = self._at
        if not isinstance(key, int) or not 0 <= key < len(at) or (i := at[key]) < 0:
            return None
        return self._blob[self._starts[i]:self._starts[i + 1]]

    def keys(self) -> Iterator[int]:
        """The keys, in order."""
        return iter(self._keys)


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split(WORD_SEP)) if text else ()


def _joined(words: Collection[str]) -> str:
    if any(not w or WORD_SEP in w or FIELD_SEP in w for w in words):
        raise ValueError(f"a word holds a separator or is empty: {sorted(words)!r}")
    return WORD_SEP.join(words)


class WordSets(Mapping[int, frozenset[str]]):
    """Each work's set of words (a work's name words), held in a :class:`StringColumn` (its words sorted,
    joined); a lookup makes the set it returns (keeping the last :data:`MADE_SETS`)."""

    __slots__ = ("_column", "_made")

    def __init__(self, items: Iterable[tuple[int, Collection[str]]]) -> None:
        self._column = StringColumn((key, _joined(sorted(words))) for key, words in items)
        self._made: dict[int, frozenset[str]] = {}

    def get(self, key: int, default: object = None) -> frozenset[str] | object:  # type: ignore[override]
        found = self._made.get(key)
        if found is None:
            text = self._column.get(key)
            if text is None:
                return default
            found = frozenset(text.split(WORD_SEP)) if text else frozenset()
            if len(self._made) >= MADE_SETS:
                self._made = {}
            self._made[key] = found
        return found

    def __getitem__(self, key: int) -> frozenset[str]:
        found = self.get(key)
        if found is None:
            raise KeyError(key)
        return cast(frozenset[str], found)

    def __contains__(self, key: object) -> bool:
        return self._column.position(key) >= 0

    def __iter__(self) -> Iterator[int]:
        return self._column.keys()

    def __len__(self) -> int:
        return len(self._column)


_S = TypeVar("_S")


class SubjectTable(Mapping[int, _S]):
    """Each work's title subjects as the serving table keeps them (``serve.core.ops.search._interned``: the
    shortest subject and some languages' subjects, each a sorted tuple of distinct words; no language held is
    an empty mapping), held in a :class:`StringColumn`; a lookup makes the value it returns with ``make``
    (:class:`serve.core.ranking.TitleSubjects`)."""

    __slots__ = ("_column", "_made", "_make")

    def __init__(self, items: Iterable[tuple[int, tuple[Collection[str], Mapping[str, Collection[str]]]]],
                 make: Callable[[Collection[str], Mapping[str, Collection[str]]], _S]) -> None:
        self._column = StringColumn((key, self._encoded(value)) for key, value in items)
        self._make = make
        self._made: dict[int, _S] = {}

    @staticmethod
    def _encoded(value: tuple[Collection[str], Mapping[str, Collection[str]]]) -> str:
        shortest, by_language = value
        fields = [_joined(shortest)]
        for language, words in by_language.items():
            if not language or FIELD_SEP in language or WORD_SEP in language:
                raise ValueError(f"a language holds a separator or is empty: {language!r}")
            fields += [language, _joined(words)]
        return FIELD_SEP.join(fields)

    def get(self, key: int, default: object = None) -> _S | object:  # type: ignore[override]
        found = self._made.get(key)
        if found is None:
            text = self._column.get(key)
            if text is None:
                return default
            fields = text.split(FIELD_SEP)
            languages = ({fields[i]: _words(fields[i + 1]) for i in range(1, len(fields), 2)} if len(fields) > 1
                         else _NO_LANGUAGES)
            found = self._make(_words(fields[0]), languages)
            if len(self._made) >= MADE_SUBJECTS:
                self._made = {}
            self._made[key] = found
        return found

    def __getitem__(self, key: int) -> _S:
        found = self.get(key)
        if found is None:
            raise KeyError(key)
        return cast(_S, found)

    def __contains__(self, key: object) -> bool:
        return self._column.position(key) >= 0

    def __iter__(self) -> Iterator[int]:
        return self._column.keys()

    def __len__(self) -> int:
        return len(self._column)
