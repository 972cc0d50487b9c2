"""The period index of one mounted index, held in memory: every live state of every work.

Loaded once per mounted index from the build's ``serving_states`` table (a few thousand rows for
the full corpora) and shared, read-only, by all threads; held packed in arrays and buffers
(:class:`Periods`). ``in_force_on`` and ``changes_in_period`` answer from it with bisection over
each work's ordered starts, and read the full ``versions``/``expressions`` rows only for the page
they return.
"""

from __future__ import annotations

import bisect
import json
import sqlite3
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import groupby, islice
from typing import Any, NamedTuple, cast


@dataclass(frozen=True, slots=True)
class ExpressionSummary:
    language: str
    has_text: bool
    provisions_digest: str | None
    profile: str | None


@dataclass(frozen=True, slots=True)
class State:
    version_rowid: int
    valid_from: str
    end_exclusive: str | None
    version_key: str
    document_type: str | None
    expressions: tuple[ExpressionSummary, ...]

    def primary(self, primary_language: str | None) -> tuple[str | None, str | None]:
        """Digest and profile of the expression ``choose_expression(…, None, primary)`` picks, when
        it holds text."""
        if not self.expressions:
            return None, None
        chosen = min(self.expressions, key=lambda e: (not e.has_text, e.language != primary_language, e.language))
        return (chosen.provisions_digest, chosen.profile) if chosen.has_text else (None, None)


@dataclass(frozen=True, slots=True)
class WorkPeriods:
    work_rowid: int
    work_id: str
    title: str | None
    document_type: str | None
    primary_language: str | None
    #: Live states in ``(valid_from, version_key)`` order, and their starts.
    states: tuple[State, ...]
    starts: tuple[str, ...]


class WorkHead(NamedTuple):
    """What a page shows of a work beside its states."""

    work_id: str
    title: str | None
    document_type: str | None
    primary_language: str | None


#: The code of an open end (``end_exclusive`` None): after every day's code.
_OPEN = 2**31 - 1


class _Strings:
    """Strings (or None) held as one UTF-8 buffer and its offsets: no object per string until one is
    asked for. Filled by :meth:`add`."""

    __slots__ = ("_data", "_none", "_offsets")

    def __init__(self) -> None:
        self._data = bytearray()
        self._offsets = array("i", [0])
        self._none = bytearray()

    def add(self, value: str | None) -> None:
        if value is not None:
            self._data += value.encode("utf-8", "surrogatepass")
        self._offsets.append(len(self._data))
        self._none.append(value is None)

    def __len__(self) -> int:
        return len(self._none)

    def __getitem__(self, i: int) -> str | None:
        if self._none[i]:
            return None
        return self._data[self._offsets[i]:self._offsets[i + 1]].decode("utf-8", "surrogatepass")


class _Codes:
    """Distinct small-set values (a language, a document type, a profile, a set of languages) and
    their codes, while packing; :attr:`values` once packed."""

    def __init__(self) -> None:
        self._code: dict[object, int] = {}

    def __call__(self, value: object) -> int:
        return self._code.setdefault(value, len(self._code))

    @property
    def values(self) -> tuple[Any, ...]:
        return tuple(self._code)


class Periods:
    """Every live state of every work, packed (mem51): a column per field — the days as codes that
    keep their order (:meth:`day`), the small sets of values as codes into one tuple, the long strings
    as one buffer each — so that ``in_force_on`` and ``changes_in_period`` scan every work without
    touching a Python object the builder made before the fork (a read writes an object's reference
    count, and a served worker then copies its page; ADR 0178). A work (:class:`WorkPeriods`) or a
    state (:class:`State`) is made only for the page an answer shows."""

    __slots__ = (
        "_by_id",
        "_days",
        "_digest",
        "_end",
        "_first",
        "_first_expression",
        "_has_text",
        "_key",
        "_language",
        "_languages",
        "_primary",
        "_profile",
        "_rowid",
        "_start",
        "_title",
        "_type",
        "_values",
        "_version",
        "_work_id",
        "_work_type",
    )

    def __init__(self, works: Iterable[WorkPeriods]) -> None:
        """Packs ``works`` one at a time (no more of their objects alive at once than one work's)."""
        codes, days = _Codes(), _Codes()
        self._rowid, self._first = array("q"), array("i", [0])
        self._work_id, self._title = _Strings(), _Strings()
        self._work_type, self._primary = array("i"), array("i")
        self._start, self._end, self._version = array("i"), array("i"), array("q")
        self._key, self._type, self._languages = _Strings(), array("i"), array("i")
        self._first_expression, self._language, self._profile = array("i", [0]), array("i"), array("i")
        has_text, self._digest = bytearray(), _Strings()
        for work in works:
            self._rowid.append(work.work_rowid)
            self._first.append(self._first[-1] + len(work.states))
            self._work_id.add(work.work_id)
            self._title.add(work.title)
            self._work_type.append(codes(work.document_type))
            self._primary.append(codes(work.primary_language))
            for state in work.states:
                self._start.append(days(state.valid_from))
                self._end.append(-1 if state.end_exclusive is None else days(state.end_exclusive))
                self._version.append(state.version_rowid)
                self._key.add(state.version_key)
                self._type.append(codes(state.document_type))
                self._languages.append(codes(frozenset(e.language for e in state.expressions)))
                self._first_expression.append(self._first_expression[-1] + len(state.expressions))
                for e in state.expressions:
                    self._language.append(codes(e.language))
                    has_text.append(bool(e.has_text))
                    self._digest.add(e.provisions_digest)
                    self._profile.append(codes(e.profile))
        self._has_text = bytes(has_text)
        self._values = codes.values
        # the days in order, and each held day's code 2i + 1 (:meth:`day`)
        seen = days.values
        self._days = tuple(sorted(seen))
        place = array("i", bytes(4 * len(seen)))
        for i, day in enumerate(self._days):
            place[days(day)] = 2 * i + 1
        for column in (self._start, self._end):
            for i, held in enumerate(column):
                column[i] = _OPEN if held < 0 else place[held]
        self._by_id = array("i", bytes(4 * len(self._rowid)))
        for rank, w in enumerate(sorted(range(len(self._rowid)), key=self._work_id.__getitem__)):  # type: ignore[arg-type]
            self._by_id[w] = rank

    def __len__(self) -> int:
        return len(self._rowid)

    def __iter__(self) -> Iterator[WorkPeriods]:
        return (self.work(i) for i in range(len(self._rowid)))

    # -- the questions the operations ask ---------------------------------------------------------

    def day(self, day: str) -> int:
        """``day``'s code: for every held day ``d``, ``day < d``, ``==`` or ``>`` exactly as the codes
        compare (a held day is ``2i + 1``, ``i`` its place among the held days; another day the ``2i``
        just before the first held day after it)."""
        i = bisect.bisect_left(self._days, day)
        return 2 * i + 1 if i < len(self._days) and self._days[i] == day else 2 * i

    def _code_of(self, value: object) -> int:
        """The code of ``value`` among the held values (-1: not held)."""
        for code, held in enumerate(self._values):
            if type(held) is type(value) and held == value:
                return code
        return -1

    def in_force(self, day: str, document_type: str | None = None,
                 language: str | None = None) -> list[tuple[int, list[int]]]:
        """Each work with live states covering ``day``, and its winners among them: the covering states
        with the latest start (several: same-day states), found walking back from the last state
        starting by ``day`` until the start changes; given ``document_type``, the latest covering states
        of that type. Given ``language``, only works whose winners have an expression in it.
        ``(work, states)``: positions, in work order."""
        d = self.day(day)
        start, end, first = self._start, self._end, self._first
        wanted = self._code_of(document_type) if document_type else -1
        spoken = {code for code, value in enumerate(self._values)
                  if isinstance(value, frozenset) and language in value} if language else None
        found: list[tuple[int, list[int]]] = []
        for w in range(len(first) - 1):
            lo, hi = first[w], first[w + 1]
            if document_type:
                winners = self._winners_of_type(lo, hi, d, wanted)
            else:
                winners = []
                i = bisect.bisect_right(start, d, lo, hi)
                while i > lo:
                    i -= 1
                    if winners and start[i] != start[winners[0]]:
                        break
                    if d < end[i]:
                        winners.append(i)
                winners.reverse()
            if winners and (spoken is None or any(self._languages[s] in spoken for s in winners)):
                found.append((w, winners))
        return found

    def _winners_of_type(self, lo: int, hi: int, d: int, wanted: int) -> list[int]:
        covering = [i for i in range(lo, hi)
                    if self._type[i] == wanted and self._start[i] <= d < self._end[i]]
        if not covering:
            return []
        latest = max(self._start[i] for i in covering)
        return [i for i in covering if self._start[i] == latest]

    def changed(self, start: str, stop: str, document_type: str | None = None) -> list[tuple[int, int, int]]:
        """Each work with states starting in ``[start, stop]`` (of ``document_type``, when given):
        ``(work, lo, hi)``, its states ``lo`` to ``hi - 1`` (positions over every work's states)."""
        a, b = self.day(start), self.day(stop)
        starts, first = self._start, self._first
        wanted = self._code_of(document_type) if document_type else -1
        found: list[tuple[int, int, int]] = []
        left, right = bisect.bisect_left, bisect.bisect_right
        bound = 0
        for w, end in enumerate(islice(first, 1, None)):
            lo = left(starts, a, bound, end)
            if lo < end and starts[lo] <= b:  # a state starts in the window
                hi = right(starts, b, lo, end)
                if not document_type or any(self._type[i] == wanted for i in range(lo, hi)):
                    found.append((w, lo, hi))
            bound = end
        return found

    # -- what a page shows ----------------------------------------------------------------------

    @property
    def rowids(self) -> array[int]:
        """Each work's rowid, by position."""
        return self._rowid

    @property
    def id_ranks(self) -> array[int]:
        """Each work's place in work-id order, by position."""
        return self._by_id

    @property
    def start_codes(self) -> array[int]:
        """Each state's start as a day code (:meth:`day`), by position."""
        return self._start

    def head(self, work: int) -> WorkHead:
        values = self._values
        return WorkHead(cast(str, self._work_id[work]), self._title[work], values[self._work_type[work]],
                        values[self._primary[work]])

    def states_of(self, work: int) -> tuple[int, int]:
        """``lo, hi``: the positions of ``work``'s states."""
        return self._first[work], self._first[work + 1]

    def version_rowid(self, state: int) -> int:
        return self._version[state]

    def valid_from(self, state: int) -> str:
        return cast(str, self._days[self._start[state] // 2])

    def version_key(self, state: int) -> str:
        return cast(str, self._key[state])

    def primary(self, state: int, primary_language: str | None) -> tuple[str | None, str | None]:
        """:meth:`State.primary` of ``state``, without making its expressions."""
        lo, hi = self._first_expression[state], self._first_expression[state + 1]
        if lo == hi:
            return None, None
        values, language, has_text = self._values, self._language, self._has_text
        chosen = min(range(lo, hi), key=lambda e: (not has_text[e], values[language[e]] != primary_language,
                                                   values[language[e]]))
        return (self._digest[chosen], values[self._profile[chosen]]) if has_text[chosen] else (None, None)

    def state(self, i: int) -> State:
        values, lo, hi = self._values, self._first_expression[i], self._first_expression[i + 1]
        expressions = tuple(ExpressionSummary(values[self._language[e]], bool(self._has_text[e]), self._digest[e],
                                              values[self._profile[e]]) for e in range(lo, hi))
        end = self._end[i]
        return State(self._version[i], self._days[self._start[i] // 2], None if end == _OPEN else self._days[end // 2],
                     cast(str, self._key[i]), values[self._type[i]], expressions)

    def work(self, w: int) -> WorkPeriods:
        head = self.head(w)
        states = tuple(self.state(i) for i in range(self._first[w], self._first[w + 1]))
        return WorkPeriods(self._rowid[w], head.work_id, head.title, head.document_type, head.primary_language,
                           states, tuple(s.valid_from for s in states))


def load_periods(conn: sqlite3.Connection) -> Periods:
    """The period index of the index ``conn`` reads (``serving_states`` of the held works), packed
    (:class:`Periods`): each work's states are made, packed and dropped in turn."""
    return Periods(_read_works(conn))


def _read_works(conn: sqlite3.Connection) -> Iterator[WorkPeriods]:
    cursor = conn.cursor()
    cursor.row_factory = None
    rows = cursor.execute(
        "SELECT s.work_rowid, w.work_id, w.title, w.document_type, w.primary_language, s.version_rowid, "
        "s.valid_from, s.end_exclusive, s.version_key, s.document_type, s.expressions "
        "FROM serving_states s JOIN works w ON w.work_rowid = s.work_rowid "
        "ORDER BY s.work_rowid, s.valid_from, s.version_key")
    for (rowid, work_id, title, document_type, primary), held in groupby(rows, key=lambda r: r[:5]):
        states = tuple(State(vid, start, end, key, doc_type,
                             tuple(ExpressionSummary(str(e[0]), bool(e[1]), e[2], e[3]) for e in json.loads(summary)))
                       for *_, vid, start, end, key, doc_type, summary in held)
        yield WorkPeriods(rowid, work_id, title, document_type, primary, states, tuple(s.valid_from for s in states))
