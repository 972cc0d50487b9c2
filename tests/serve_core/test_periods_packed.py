"""The packed period index (mem51, ADR 0178) answers as the objects it replaced: each work's winners on a
day (``in_force_on``), each work's states starting in a window (``changes_in_period``), the orders the
operations sort by, and every work and state made again as loaded."""

from __future__ import annotations

import bisect
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from serve.core.core import LegalCore
from serve.core.ops.inventory import slug_ranks
from serve.core.periods import ExpressionSummary, Periods, State, WorkPeriods, load_periods

# -- the reference: what the period index's objects answered before they were packed ----------


def _covers(state: State, day: str) -> bool:
    return state.valid_from <= day and (state.end_exclusive is None or day < state.end_exclusive)


def _winners(work: WorkPeriods, day: str) -> list[State]:
    i = bisect.bisect_right(work.starts, day)
    found: list[State] = []
    while i > 0:
        i -= 1
        state = work.states[i]
        if found and state.valid_from != found[0].valid_from:
            break
        if _covers(state, day):
            found.append(state)
    found.reverse()
    return found


def _winners_of_type(work: WorkPeriods, day: str, document_type: str) -> list[State]:
    covering = [s for s in work.states if s.document_type == document_type and _covers(s, day)]
    if not covering:
        return []
    start = max(s.valid_from for s in covering)
    return [s for s in covering if s.valid_from == start]


def _in_force(works: list[WorkPeriods], day: str, document_type: str | None,
              language: str | None) -> list[tuple[int, list[int]]]:
    found = []
    for w, held in enumerate(works):
        states = _winners(held, day) if not document_type else _winners_of_type(held, day, document_type)
        if states and (not language or any(e.language == language for s in states for e in s.expressions)):
            found.append((w, [s.version_rowid for s in states]))
    return found


def _changed(works: list[WorkPeriods], start: str, stop: str, document_type: str | None) -> list[tuple[int, int, int]]:
    found = []
    for w, work in enumerate(works):
        lo, hi = bisect.bisect_left(work.starts, start), bisect.bisect_right(work.starts, stop)
        if hi > lo and (not document_type or any(s.document_type == document_type for s in work.states[lo:hi])):
            found.append((w, lo, hi))
    return found


# -- random period indexes -----------------------------------------------------------------------

#: Days as the index holds them, and strings a day code must order alike all the same.
_DAY_LIST = ["1990-01-01", "2001-05-05", "2001-05-06", "2010-12-31", "2011-01-01", "2020-02-29", "2024-01-01",
             "2030-06-30", "2001-5-5", "2015"]
_DAYS = st.sampled_from(_DAY_LIST)
_TYPES = st.sampled_from([None, "REG", "DIR", "LOI", "RGD"])
_LANGUAGES = st.sampled_from(["fr", "en", "de", "lb"])
_EXPRESSIONS = st.lists(st.builds(ExpressionSummary, _LANGUAGES, st.booleans(),
                                  st.one_of(st.none(), st.text(max_size=8)),
                                  st.sampled_from([None, "akn-lu/3", "html-eu-tolerant/5"])), max_size=3)


@st.composite
def _works(draw: st.DrawFn) -> list[WorkPeriods]:
    works, version = [], 0
    for rowid in sorted(draw(st.sets(st.integers(1, 60), max_size=8))):
        states = []
        spans = draw(st.lists(st.tuples(_DAYS, st.one_of(st.none(), _DAYS)), min_size=1, max_size=6))
        for start, end in sorted(spans, key=lambda span: (span[0], span[1] or "")):
            version += 1
            states.append(State(version, start, end, f"v{version}é", draw(_TYPES), tuple(draw(_EXPRESSIONS))))
        works.append(WorkPeriods(rowid, draw(st.text(min_size=1, max_size=6)), draw(st.one_of(st.none(), st.text())),
                                 draw(_TYPES), draw(st.one_of(st.none(), _LANGUAGES)), tuple(states),
                                 tuple(s.valid_from for s in states)))
    return works


@settings(max_examples=300, deadline=None)
@given(_works(), _DAYS, _DAYS, st.one_of(st.none(), _TYPES, st.just("ORD")), st.one_of(st.none(), _LANGUAGES))
def test_the_packed_periods_answer_as_the_objects_did(works: list[WorkPeriods], day: str, other: str,
                                                      document_type: str | None, language: str | None) -> None:
    periods = Periods(works)
    assert list(periods) == works  # every work and state made again as held
    assert len(periods) == len(works)
    assert [(w, [periods.version_rowid(s) for s in states])
            for w, states in periods.in_force(day, document_type, language)] == _in_force(works, day, document_type, language)
    start, stop = sorted((day, other))
    found = [(w, lo - periods.states_of(w)[0], hi - periods.states_of(w)[0])
             for w, lo, hi in periods.changed(start, stop, document_type)]
    assert found == _changed(works, start, stop, document_type)
    for w, work in enumerate(works):
        lo, hi = periods.states_of(w)
        assert [periods.state(i) for i in range(lo, hi)] == list(work.states)
        assert tuple(periods.head(w)) == (work.work_id, work.title, work.document_type, work.primary_language)
        assert periods.rowids[w] == work.work_rowid
        for i, state in zip(range(lo, hi), work.states, strict=True):
            assert (periods.valid_from(i), periods.version_key(i)) == (state.valid_from, state.version_key)
            for primary in (work.primary_language, "fr", "en", None):
                assert periods.primary(i, primary) == state.primary(primary)
            for held in _DAY_LIST:
                assert (periods.start_codes[i] < periods.day(held)) == (state.valid_from < held)
                assert (periods.start_codes[i] == periods.day(held)) == (state.valid_from == held)
    assert sorted(range(len(works)), key=lambda w: periods.id_ranks[w]) == sorted(range(len(works)),
                                                                                  key=lambda w: works[w].work_id)


def test_the_loaded_periods_are_the_serving_states(fixture_core: LegalCore) -> None:
    """``load_periods`` packs every ``serving_states`` row, in ``(work, start, version key)`` order, and
    the slug ranks order works as their slugs."""
    for index in fixture_core.indexes.values():
        with index.session(60.0) as conn:
            periods = load_periods(conn)
            rows = list(conn.execute(
                "SELECT version_rowid, valid_from, end_exclusive, version_key, document_type, expressions "
                "FROM serving_states ORDER BY work_rowid, valid_from, version_key"))
        states = [s for w in periods for s in w.states]
        assert states
        assert [(s.version_rowid, s.valid_from, s.end_exclusive, s.version_key, s.document_type,
                 [[e.language, e.has_text, e.provisions_digest, e.profile] for e in s.expressions])
                for s in states] == [(r[0], r[1], r[2], r[3], r[4], [[str(e[0]), bool(e[1]), e[2], e[3]]
                                                                   for e in json.loads(r[5])]) for r in rows]
        slugs = index.catalogue.slug_of
        ranks = slug_ranks(index.catalogue)
        assert sorted(slugs, key=lambda r: ranks[r]) == sorted(slugs, key=lambda r: slugs[r])
