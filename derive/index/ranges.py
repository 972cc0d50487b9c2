"""A dataset's ``provisions.jsonl`` read by byte ranges, without a row parsed to find them.

The derive stage writes one canonical JSON object per line (keys sorted, no spaces), each work's
lines together. One pass over the file's bytes (:func:`jsonl_ranges`) finds:

- per work, its :class:`Range` (first line's position among the rows, byte offsets, SHA-256 of the
  lines): what an incremental build's per-work keys hash and what it reads of a changed work;
- per expression ``(lex_id, language)``, its :class:`Run` of consecutive lines: what a full build
  reads when it reaches that expression (:class:`RangeRows`), instead of loading every row into a
  scratch table first.

A canonical line's last ``"work_id":"``, ``"lex_id":"`` and ``"language":"`` are its own members (no
nested object after them holds such a key; a string value holds ``\\"``, never ``"``). A file whose
lines do not all read that way (a blank line, a member missing, a value with an escape, a work's
lines apart) has no ranges: the build reads it row by row as before.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path
from typing import Any

from derive.index.inputs import ProvisionRow, loads_line, provision_row
from legal.errors import IndexError_

_WORK_ID = b'"work_id":"'
_LEX_ID = b'"lex_id":"'
_LANGUAGE = b'"language":"'

Key = tuple[str, str]


@dataclass(frozen=True)
class Range:
    """One work's lines in a dataset's ``provisions.jsonl``: the first line's position among the
    rows (0-based) and line number, byte offsets, and the SHA-256 of the lines' bytes."""

    position: int
    line: int
    start: int
    end: int
    sha256: str


@dataclass(frozen=True)
class Run:
    """Consecutive lines of one expression: the first line's position among the rows (0-based) and
    line number, and byte offsets."""

    position: int
    line: int
    start: int
    end: int


@dataclass(frozen=True)
class JsonlRanges:
    """What :func:`jsonl_ranges` found: each work's :class:`Range`, and each expression's runs in
    file order (None when some line's expression could not be read from its bytes)."""

    works: dict[str, Range]
    runs: dict[Key, list[Run]] | None


def _member(raw: bytes, marker: bytes) -> str | None:
    """The string value of a line's last ``marker`` member, or None (absent, or escaped)."""
    at = raw.rfind(marker)
    if at < 0:
        return None
    start = at + len(marker)
    end = raw.find(b'"', start)
    if end < 0:
        return None
    value = raw[start:end]
    if b"\\" in value:
        return None
    return value.decode("utf-8", "replace")


def jsonl_ranges(path: Path, *, with_runs: bool = True, hashed: bool = True) -> JsonlRanges | None:
    """The :class:`JsonlRanges` of a ``provisions.jsonl``, reading bytes only; None when a work's
    lines are not contiguous, a line is blank or names no work (then the rows are read the ordinary
    way). Without ``with_runs`` only the works' ranges are found (``runs`` is None; each line's
    expression is not read): what an incremental build needs, which reads only changed works' rows.
    Without ``hashed`` the lines are not hashed (each range's ``sha256`` is empty): what a caller
    that takes the works' digests from elsewhere needs (:func:`derive.index.build.recorded_ranges`)."""
    works: dict[str, Range] = {}
    runs: dict[Key, list[Run]] | None = defaultdict(list) if with_runs else None
    current: str | None = None
    expression: Key | None = None
    position = line = start = offset = count = 0
    run_position = run_line = run_start = 0
    h = hashlib.sha256()
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            at = raw.rfind(_WORK_ID)
            if at < 0:
                return None
            work = raw[at + len(_WORK_ID):raw.find(b'"', at + len(_WORK_ID))].decode("utf-8", "replace")
            if work != current:
                if current is not None:
                    works[current] = Range(position, line, start, offset, h.hexdigest() if hashed else "")
                if work in works:
                    return None
                current, position, line, start, h = work, count, number, offset, hashlib.sha256()
            if runs is not None:
                lex_id, language = _member(raw, _LEX_ID), _member(raw, _LANGUAGE)
                key = None if lex_id is None or language is None else (lex_id, language)
                if key != expression or count == position:
                    if expression is not None:
                        runs[expression].append(Run(run_position, run_line, run_start, offset))
                    expression, run_position, run_line, run_start = key, count, number, offset
                if key is None:
                    runs = None
            if hashed:
                h.update(raw)
            offset += len(raw)
            count += 1
    if current is not None:
        works[current] = Range(position, line, start, offset, h.hexdigest() if hashed else "")
    if runs is not None and expression is not None:
        runs[expression].append(Run(run_position, run_line, run_start, offset))
    return JsonlRanges(works, None if runs is None else dict(runs))


def range_values(path: Path, found: Range | Run) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(where, value)`` of the rows of one :class:`Range` or :class:`Run`, as
    :func:`derive.index.inputs.dataset_row_values` gives them."""
    with path.open("rb") as handle:
        handle.seek(found.start)
        data = handle.read(found.end - found.start)
    for number, line in enumerate(data.splitlines(), found.line):
        value = loads_line(line)
        if not isinstance(value, dict):
            raise IndexError_("dataset line is not an object", code="bad_dataset_row",
                              subject=f"{path.name}:{number}")
        yield f"{path.name}:{number}", value


_ORDER = attrgetter("order")


class RangeRows:
    """A :class:`derive.index.rows.ExpressionRows` reading each expression's rows from its runs when
    the build reaches it (validated as :class:`derive.index.spill.SpilledRows` validates them, with
    the same positions): one expression's rows in memory at a time, none copied to a scratch table.

    A row whose expression is not the one its line's bytes named (a line not in canonical form) is
    kept until its expression is asked for, and every run is then read at once; should such a row
    belong to an expression already handed out, the build is refused rather than answer
    differently from a build that read every row first."""

    def __init__(self, path: Path, runs: Mapping[Key, Sequence[Run]], publisher: str) -> None:
        self._path = path
        self._unread: dict[Key, list[Run]] = {key: list(found) for key, found in runs.items()}
        self._publisher = publisher
        self._pending: dict[Key, list[ProvisionRow]] = defaultdict(list)
        self._taken: set[Key] = set()
        self._mixed = False

    def _parse(self, key: Key) -> None:
        for run in self._unread.pop(key, ()):
            for offset, (where, value) in enumerate(range_values(self._path, run)):
                row = provision_row(value, run.position + offset, where)
                if row.publisher != self._publisher:
                    continue
                got = (row.lex_id, row.language)
                if got != key:
                    self._mixed = True
                self._pending[got].append(row)

    def _read(self, key: Key) -> None:
        self._parse(key)
        if self._mixed:
            self._read_all()

    def _read_all(self) -> None:
        while self._unread:
            self._parse(next(iter(self._unread)))
        self._check()

    def _check(self) -> None:
        handed = sorted(k for k, rows in self._pending.items() if rows and k in self._taken)
        if handed:
            lex_id, language = handed[0]
            raise IndexError_("dataset rows of one expression lie apart on lines not in canonical form",
                              code="bad_dataset_row", subject=f"{lex_id}|{language}")

    def take(self, lex_id: str, language: str) -> list[ProvisionRow]:
        key = (lex_id, language)
        self._read(key)
        self._taken.add(key)
        rows = self._pending.pop(key, [])
        rows.sort(key=_ORDER)
        return rows

    def peek(self, lex_id: str, language: str) -> list[ProvisionRow]:
        key = (lex_id, language)
        self._read(key)
        return sorted(self._pending.get(key, []), key=_ORDER)

    def first_left(self) -> tuple[str, str] | None:
        self._read_all()
        left = [key for key, rows in self._pending.items() if rows]
        return min(left) if left else None
