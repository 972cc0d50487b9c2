"""Concurrent reads, deadlines that stop SQLite work, and bounded diffs.

- a deliberately slow statement on one index holds one pooled connection only: calls on the same
  and on the other index answer meanwhile, within :data:`BUDGET` seconds;
- a statement past its deadline is interrupted by the progress handler (counted in
  ``MountedIndex.interrupts``) and its connection goes back to the pool, free for the next call;
- the largest diff of the fixtures is bounded: with tiny budgets it answers ``diff_truncated``
  listing exactly what was elided, with the same summary and changes as the unbounded answer;
- the stored word counts, byte lengths and common ends only spare work: a diff that reads every
  text and prices every pair exactly answers the same, whatever the budgets.
"""

from __future__ import annotations

import itertools
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from legal.outcomes import DiffElision
from serve.core import DeadlineExceeded, LegalCore
from serve.core.mount import call_deadline, check_deadline
from serve.core.ops import diff as diff_op
from tests.index.pipeline import FixtureBuild

#: Seconds a call may take while another one is stuck (a shared 2-CPU box under load included).
BUDGET = 0.5
SLOW = ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
        "SELECT COUNT(*) FROM (SELECT i FROM n LIMIT 500000000)")


@pytest.fixture(autouse=True)
def _no_remembered_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests bound, price and count the reads of pairs worked out afresh (some with
    ``stored_pairs`` replaced): nothing remembered from another answer (``diff_op.PAIRS``)."""
    monkeypatch.setattr(diff_op, "PAIRS", diff_op.PairCache(0))


@pytest.fixture()
def core(handmade_dir: Path) -> Any:
    with LegalCore.mount(handmade_dir, {"set_id": "concurrency"}) as mounted:
        yield mounted


def _slow(core: LegalCore, publisher: str, seconds: float, outcome: list[str]) -> None:
    try:
        with core.indexes[publisher].session(seconds) as conn:
            conn.execute(SLOW).fetchone()
        outcome.append("finished")
    except DeadlineExceeded:
        outcome.append("deadline")


def test_a_slow_statement_does_not_delay_the_same_or_the_other_index(core: LegalCore) -> None:
    outcome: list[str] = []
    worker = threading.Thread(target=_slow, args=(core, "eu-eurlex", 3.0, outcome))
    worker.start()
    time.sleep(0.1)  # the slow statement now holds one connection of eu-eurlex
    try:
        for name, args in (("as_of", {"work": "eu-eurlex:32099r0001", "date": "2021-06-01"}),
                           ("timeline", {"work": "lu-legilux:loi-2099-01-01-n1"}),
                           ("coverage", {}), ("in_force_on", {"date": "2022-06-01"})):
            started = time.monotonic()
            answer = core.call(name, args)
            assert time.monotonic() - started < BUDGET, name
            assert answer["outcome"] in {"succeeded", "unknown_work"}
        assert worker.is_alive(), "the slow statement should still be running"
    finally:
        worker.join()
    assert outcome == ["deadline"]


def test_a_deadline_interrupts_the_statement_and_frees_its_connection(core: LegalCore) -> None:
    index = core.indexes["eu-eurlex"]
    before = index.interrupts
    started = time.monotonic()
    with pytest.raises(DeadlineExceeded), index.session(0.2) as conn:
        conn.execute(SLOW).fetchone()
    assert time.monotonic() - started < 0.2 + BUDGET
    assert index.interrupts > before  # the progress handler fired
    assert index.idle_connections == index.connections  # the connection is back in the pool
    with index.session(1.0) as conn:  # and usable
        assert conn.execute("SELECT COUNT(*) FROM versions").fetchone()[0] > 0


def test_the_call_deadline_bounds_every_session_of_a_call(core: LegalCore) -> None:
    index = core.indexes["lu-legilux"]
    started = time.monotonic()
    with call_deadline(0.1), pytest.raises(DeadlineExceeded) as raised, index.session(30.0) as conn:
        conn.execute(SLOW).fetchone()  # the session's own 30 s never come: the call's 0.1 s bound it
    assert time.monotonic() - started < 0.1 + BUDGET
    assert "30.000 s" not in str(raised.value)  # the error names the deadline that applied, not the session's own
    assert index.idle_connections == index.connections
    with call_deadline(0.0), pytest.raises(DeadlineExceeded):
        check_deadline()  # what CPU-bound loops of an operation call between statements


def test_connections_are_pooled_not_locked(core: LegalCore) -> None:
    index = core.indexes["eu-eurlex"]
    with index.session(1.0) as first, index.session(1.0) as second:
        assert first is not second
        assert index.idle_connections == 0
    assert index.connections == 2 and index.idle_connections == 2


def _text_states(core: LegalCore) -> dict[str, list[tuple[str, str]]]:
    """Per EU work, its live states with text in the primary language: (valid_from, provisions digest)."""
    index = core.indexes["eu-eurlex"]
    out: dict[str, list[tuple[str, str]]] = {}
    with index.session(10.0) as conn:
        for work, start, digest, count in conn.execute(
                "SELECT w.work_id, v.valid_from, e.provisions_digest, e.provision_count FROM versions v "
                "JOIN works w USING (work_rowid) JOIN expressions e USING (version_rowid) "
                "WHERE v.withdrawn = 0 AND e.language = w.primary_language AND e.text_state = 'provisions' "
                "ORDER BY w.work_id, v.valid_from"):
            out.setdefault(work, []).append((start, digest, count))
    return out


def _largest_diff(core: LegalCore) -> dict[str, Any]:
    states = _text_states(core)
    work = max((w for w in states if len(states[w]) > 1), key=lambda w: sum(s[2] for s in states[w]))
    return {"work": work, "from_date": states[work][0][0], "to_date": states[work][-1][0], "limit": 2000}


def test_the_largest_diff_is_bounded_and_says_what_it_elided(fixture_indexes: FixtureBuild,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # the unbounded reference answer may take seconds on a loaded machine: a core with a long deadline
    with LegalCore.mount(fixture_indexes.index_dir, {"set_id": "unbounded"}, deadline_seconds=120.0) as fixture_core:
        args = _largest_diff(fixture_core)
        monkeypatch.setattr(diff_op, "TEXT_BUDGET", 10**9)
        monkeypatch.setattr(diff_op, "WORD_BUDGET", 10**9)
        monkeypatch.setattr(diff_op, "MATCH_BUDGET", 10**12)
        full = fixture_core.call("diff", args)
        assert full["outcome"] == "succeeded" and "diff_truncated" not in full
        monkeypatch.setattr(diff_op, "WORD_BUDGET", 0)
        monkeypatch.setattr(diff_op, "TEXT_BUDGET", 100)
        monkeypatch.setattr(diff_op, "stored_pairs", lambda *_: {})  # nothing precomputed either
        bounded = fixture_core.call("diff", args)
        assert bounded["outcome"] == "succeeded"
        assert bounded["summary"] == full["summary"]
        assert [c["anchor"] for c in bounded["changes"]] == [c["anchor"] for c in full["changes"]]
        report = bounded["diff_truncated"]
        elided = {(e["anchor"], e["part"]) for e in report["elided"]}
        assert report["elided_count"] == len(report["elided"]) > 0
        assert set(report["reasons"]) <= {r.value for r in DiffElision}
        for change in bounded["changes"]:
            part = "words" if change["change"] == "changed" else "text"
            if (change["anchor"], part) in elided:
                assert change[part] is None
            else:
                assert change[part] == next(c for c in full["changes"] if c["anchor"] == change["anchor"])[part]


def test_consecutive_states_use_the_precomputed_word_diffs(fixture_core: LegalCore,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(diff_op, "WORD_BUDGET", 0)  # any pair computed on the fly would be elided
    with fixture_core.indexes["eu-eurlex"].session(10.0) as conn:
        assert conn.execute("SELECT COUNT(*) FROM word_diffs").fetchone()[0] > 0
    compared = 0
    for work, states in _text_states(fixture_core).items():
        for (a, digest_a, _), (b, digest_b, _) in itertools.pairwise(states):
            if digest_a == digest_b:
                continue
            answer = fixture_core.call("diff", {"work": work, "from_date": a, "to_date": b, "limit": 2000})
            if answer["outcome"] != "succeeded":
                continue  # another profile on one side: not_comparable, no word diff
            elided = answer.get("diff_truncated", {}).get("elided", [])
            assert not [e for e in elided if e["part"] == "words"], (work, a, b)
            compared += answer["summary"]["changed"]
    assert compared > 0


def test_the_default_budgets_bound_the_cpu_of_the_largest_diff(fixture_core: LegalCore,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(diff_op, "stored_pairs", lambda *_: {})  # every pair on the fly
    args = _largest_diff(fixture_core)
    started = time.thread_time()
    answer = fixture_core.call("diff", args)
    spent = time.thread_time() - started
    assert answer["outcome"] == "succeeded"
    assert spent < 0.5, f"{spent:.3f} s of CPU"  # 12,000 words / 150,000 matches: tens of ms
    computed = [c for c in answer["changes"] if c["change"] == "changed" and c["words"] is not None]
    elided = answer["diff_truncated"]["elided"]
    assert computed and elided and all(e["reason"] == "word_budget" for e in elided if e["part"] == "words")


@pytest.mark.parametrize(("words", "characters"), [(0, 100), (40, 2_000), (400, 20_000), (4_000, 400_000)])
def test_pricing_a_pair_by_its_stored_word_counts_changes_no_answer(fixture_core: LegalCore,
                                                                    monkeypatch: pytest.MonkeyPatch,
                                                                    words: int, characters: int) -> None:
    """The bounds decide only what reading would decide (same elisions, same reasons, same spans),
    and read fewer texts."""
    monkeypatch.setattr(diff_op, "stored_pairs", lambda *_: {})  # every pair priced against the budget
    monkeypatch.setattr(diff_op, "WORD_BUDGET", words)
    monkeypatch.setattr(diff_op, "MATCH_BUDGET", words * 10)
    monkeypatch.setattr(diff_op, "TEXT_BUDGET", characters)
    read: list[int] = []
    real = diff_op.read_located

    def counting(conn: Any, located: dict[str, Any], raws: dict[int, bytes] | None = None) -> dict[str, str]:
        read.append(len(located))
        return real(conn, located, raws)

    monkeypatch.setattr(diff_op, "read_located", counting)
    args = _largest_diff(fixture_core)
    priced = fixture_core.call("diff", args)
    read_priced, read[:] = sum(read), []
    monkeypatch.setattr(diff_op, "_certain_elision", lambda *_: None)  # every pair priced exactly
    monkeypatch.setattr(diff_op, "_certainly_too_long", lambda *_: False)
    unread = fixture_core.call("diff", args)
    assert priced["outcome"] == "succeeded"
    assert priced == unread
    assert read_priced <= sum(read)
    if words == 40:  # some pairs certainly over what is left: elided without reading their texts
        assert read_priced < sum(read)
