"""``lex release history``: which signed set was current at an instant (the ledger as transaction time).

A release root goes through promote A, promote B, rollback (A again), promote C at controlled
instants; the answer is checked at every boundary and in between, through the pure function
and the command line. A property test checks :func:`current_at` against replaying the ledger.
"""

from __future__ import annotations

import datetime as _dt
import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cli.main import main
from legal.canonical import canonical_bytes
from legal.errors import ReleaseError
from release import ledger
from release.history import current_at, parse_instant, transitions
from release.keys import KeySigner, TrustStore
from release.ledger import EMPTY_HEAD, LedgerHead
from release.promotion import POINTERS_NAME, ReleaseRoot, verified_entries
from release.report import bind, build_report, sign_report

from .conftest import FIXED_TIME, SignFn, write_build

GOOD = {
    "mrr": "0.81", "recall_at_10": "0.93", "ndcg_at_10": "0.77", "exact_first_accuracy": "1",
    "temporal_leakage_failures": "0", "no_hit_accuracy": "1", "latency_p95_ms": "38.5",
}

PROMOTE_A = "2026-01-01T10:00:00Z"
PROMOTE_B = "2026-01-03T12:00:00Z"
ROLLBACK = "2026-01-05T08:00:00Z"
PROMOTE_C = "2026-01-07T00:00:00Z"


class Clock:
    """The release root's clock, set by the test before each transition."""

    def __init__(self) -> None:
        self.now = "2026-01-01T00:00:00Z"

    def __call__(self) -> str:
        return self.now


@pytest.fixture()
def released(tmp_path: Path, trust: TrustStore, sign: SignFn, ed_signer: KeySigner) -> tuple[Path, dict[str, str]]:
    """A release root: A promoted, B promoted, rolled back to A, C promoted (at the instants above)."""
    clock = Clock()
    root = ReleaseRoot(tmp_path / "releases", trust, actor="tests", clock=clock)
    reports = itertools.count()

    def promote(name: str, candidate_at: str, promote_at: str) -> str:
        directory = write_build(tmp_path / "builds" / name, {"indexes/eu-eurlex.sqlite": f"index {name}".encode()})
        sign(directory)
        clock.now = candidate_at
        set_id = root.candidate(directory).set_id
        report = build_report(bind(set_id=set_id), GOOD, created_at=FIXED_TIME, runner="tests")
        path = tmp_path / "reports-in" / f"{next(reports)}.dsse.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(sign_report(report, [ed_signer]).to_bytes())
        root.evaluate(set_id, path)
        clock.now = promote_at
        root.promote(set_id)
        return set_id

    a = promote("a", "2026-01-01T09:00:00Z", PROMOTE_A)
    b = promote("b", "2026-01-02T09:00:00Z", PROMOTE_B)
    clock.now = ROLLBACK
    root.rollback("search regression in b")
    c = promote("c", "2026-01-06T09:00:00Z", PROMOTE_C)
    return root.root, {"a": a, "b": b, "c": c}


def answer(root: Path, text: str) -> Any:
    return current_at(verified_entries(root), parse_instant(text))


# -- the pure function at every boundary and in between -----------------------------------


@pytest.mark.parametrize(("instant", "name", "since", "until", "action"), [
    ("2026-01-01T10:00:00Z", "a", PROMOTE_A, PROMOTE_B, "promote"),       # the promotion's own instant
    ("2026-01-01", "a", PROMOTE_A, PROMOTE_B, "promote"),                 # a date: the end of that day
    ("2026-01-03T11:59:59Z", "a", PROMOTE_A, PROMOTE_B, "promote"),       # one second before B
    ("2026-01-03T12:00:00Z", "b", PROMOTE_B, ROLLBACK, "promote"),
    ("2026-01-04", "b", PROMOTE_B, ROLLBACK, "promote"),
    ("2026-01-05T07:59:59Z", "b", PROMOTE_B, ROLLBACK, "promote"),
    ("2026-01-05T08:00:00Z", "a", ROLLBACK, PROMOTE_C, "rollback"),       # a again, since the rollback
    ("2026-01-06T09:00:00Z", "a", ROLLBACK, PROMOTE_C, "rollback"),       # C's candidate entry changes nothing
    ("2026-01-06", "a", ROLLBACK, PROMOTE_C, "rollback"),
    ("2026-01-06T23:59:59Z", "a", ROLLBACK, PROMOTE_C, "rollback"),
    ("2026-01-07T00:00:00Z", "c", PROMOTE_C, None, "promote"),
    ("2030-01-01", "c", PROMOTE_C, None, "promote"),
])
def test_the_set_current_at_an_instant(released: tuple[Path, dict[str, str]], instant: str, name: str,
                                       since: str, until: str | None, action: str) -> None:
    root, ids = released
    got = answer(root, instant)
    assert got.set_id == ids[name]
    assert (got.since, got.until) == (since, until)
    assert got.entry is not None and (got.entry.action, got.entry.current, got.entry.at) == (action, ids[name], since)
    assert got.first_promotion == PROMOTE_A


def test_the_rollback_set_at_an_instant(released: tuple[Path, dict[str, str]]) -> None:
    root, ids = released
    assert answer(root, "2026-01-02").rollback is None
    assert answer(root, "2026-01-04").rollback == ids["a"]
    assert answer(root, "2026-01-06").rollback == ids["b"]
    assert answer(root, "2026-01-08").rollback == ids["a"]


@pytest.mark.parametrize("instant", ["2025-12-31", "2026-01-01T09:59:59Z", "2026-01-01T09:30:00Z"])
def test_before_the_first_promotion_no_set_was_current(released: tuple[Path, dict[str, str]], instant: str) -> None:
    root, _ = released
    got = answer(root, instant)
    assert got.none_current and got.entry is None and got.since is None
    assert got.first_promotion == PROMOTE_A


def test_an_empty_ledger_never_had_a_current_set() -> None:
    got = current_at([], parse_instant("2026-01-01"))
    assert got.none_current and got.first_promotion is None


def test_the_transitions(released: tuple[Path, dict[str, str]]) -> None:
    root, ids = released
    steps = transitions(verified_entries(root))
    assert [t.action for t in steps] == ["candidate", "evaluate", "promote"] * 2 + ["rollback"] + \
        ["candidate", "evaluate", "promote"]
    assert [t.seq for t in steps] == list(range(10))
    assert [(t.current, t.rollback) for t in steps if t.action in ("promote", "rollback")] == [
        (ids["a"], None), (ids["b"], ids["a"]), (ids["a"], ids["b"]), (ids["c"], ids["a"])]


@pytest.mark.parametrize(("text", "expected"), [
    ("2026-01-02", "2026-01-02T23:59:59Z"),
    ("2026-01-02T03:04:05Z", "2026-01-02T03:04:05Z"),
    ("2024-02-29", "2024-02-29T23:59:59Z"),
])
def test_instants(text: str, expected: str) -> None:
    assert parse_instant(text) == _dt.datetime.strptime(expected, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=_dt.UTC)


@pytest.mark.parametrize("text", ["2026-13-01", "2025-02-29", "2026-01-02T03:04:05", "2026-01-02T03:04:05+01:00",
                                  "2026-01-02T03:04:05.5Z", "yesterday", "", "2026-1-2", "20260102"])
def test_a_malformed_instant_is_refused(text: str) -> None:
    with pytest.raises(ReleaseError) as caught:
        parse_instant(text)
    assert caught.value.code == "invalid_instant"


def _entries(ats: list[str]) -> list[dict[str, Any]]:
    return [{"seq": i, "at": at, "action": "promote", "set_id": f"{i:064x}", "actor": "t", "hash": "h",
             "state": {"current": f"{i:064x}", "rollback": None, "candidates": {}}} for i, at in enumerate(ats)]


def test_a_ledger_whose_instants_go_back_is_refused() -> None:
    with pytest.raises(ReleaseError) as caught:
        current_at(_entries(["2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z", "2026-01-02T12:00:00Z"]),
                   parse_instant("2026-01-05"))
    assert (caught.value.code, caught.value.subject) == ("ledger_time_disorder", "line 3")
    with pytest.raises(ReleaseError) as caught:
        transitions(_entries(["2026-01-02T00:00:00Z", "2 January 2026"]))
    assert (caught.value.code, caught.value.subject) == ("ledger_time_disorder", "line 2")


# -- the ledger is verified first ----------------------------------------------------------


def _edit_line(root: Path, index: int, **changes: Any) -> None:
    path = root / ledger.LEDGER_NAME
    lines = path.read_bytes().splitlines(keepends=True)
    entry = json.loads(lines[index])
    entry.update(changes)
    lines[index] = canonical_bytes(entry) + b"\n"
    path.write_bytes(b"".join(lines))


def test_an_edited_ledger_is_refused_naming_the_line(released: tuple[Path, dict[str, str]]) -> None:
    root, _ = released
    _edit_line(root, 4, at="2026-01-02T00:00:00Z")
    with pytest.raises(ReleaseError) as caught:
        verified_entries(root)
    assert (caught.value.code, caught.value.subject) == ("ledger_corrupt", "line 5")


def test_a_truncated_ledger_is_refused(released: tuple[Path, dict[str, str]]) -> None:
    root, _ = released
    path = root / ledger.LEDGER_NAME
    path.write_bytes(b"".join(path.read_bytes().splitlines(keepends=True)[:-1]))
    with pytest.raises(ReleaseError) as caught:
        verified_entries(root)
    assert caught.value.code == "ledger_head_mismatch"


def test_edited_pointers_are_refused(released: tuple[Path, dict[str, str]]) -> None:
    root, ids = released
    pointers = json.loads((root / POINTERS_NAME).read_text())
    pointers["current"] = ids["b"]
    (root / POINTERS_NAME).write_text(json.dumps(pointers))
    with pytest.raises(ReleaseError) as caught:
        verified_entries(root)
    assert caught.value.code == "pointers_mismatch"


# -- the command line ----------------------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_history_lists_the_transitions(released: tuple[Path, dict[str, str]],
                                       capsys: pytest.CaptureFixture[str]) -> None:
    root, ids = released
    code, out, _ = run(capsys, "release", "history", root)
    assert code == 0
    lines = out.splitlines()
    assert lines[-1] == "10 transitions"
    assert lines[6].split()[:3] == ["6", ROLLBACK, "rollback"] and f"current {ids['a'][:12]}" in lines[6]
    code, out, _ = run(capsys, "release", "history", root, "--json")
    document = json.loads(out)
    assert code == 0 and document["entries"] == 10
    assert document["transitions"][9] | {"hash": None} == {
        "seq": 9, "at": PROMOTE_C, "action": "promote", "set_id": ids["c"], "actor": "tests", "current": ids["c"],
        "rollback": ids["a"], "hash": None}


def test_history_at_an_instant(released: tuple[Path, dict[str, str]], capsys: pytest.CaptureFixture[str]) -> None:
    root, ids = released
    code, out, _ = run(capsys, "release", "history", root, "--at", "2026-01-04", "--json")
    assert code == 0
    document = json.loads(out)
    assert {k: document[k] for k in ("at", "current", "since", "until", "rollback", "first_promotion")} == {
        "at": "2026-01-04T23:59:59Z", "current": ids["b"], "since": PROMOTE_B, "until": ROLLBACK,
        "rollback": ids["a"], "first_promotion": PROMOTE_A}
    assert document["entry"]["seq"] == 5 and document["entry"]["action"] == "promote"
    code, out, _ = run(capsys, "release", "history", root, "--at", "2026-01-06")
    assert code == 0
    assert out.splitlines()[1] == f"current   {ids['a']}"
    assert out.splitlines()[2].startswith(f"since     {ROLLBACK}  (ledger seq 6: rollback by tests)")
    assert out.splitlines()[3] == f"until     {PROMOTE_C}"


def test_history_before_the_first_promotion_exits_3(released: tuple[Path, dict[str, str]],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    root, _ = released
    code, out, err = run(capsys, "release", "history", root, "--at", "2025-12-31")
    assert code == 3 and not err
    assert out.strip() == f"no set was current at 2025-12-31T23:59:59Z (the first promotion was at {PROMOTE_A})"
    code, out, _ = run(capsys, "release", "history", root, "--at", "2025-12-31", "--json")
    assert code == 3
    assert json.loads(out) | {"entry": None} == {
        "at": "2025-12-31T23:59:59Z", "current": None, "since": None, "until": None, "rollback": None,
        "entry": None, "first_promotion": PROMOTE_A}


def test_history_errors_are_typed(released: tuple[Path, dict[str, str]], capsys: pytest.CaptureFixture[str]) -> None:
    root, _ = released
    code, out, err = run(capsys, "release", "history", root, "--at", "2026-01-04T12:00:00+01:00", "--json")
    assert code == 2 and not out
    assert json.loads(err)["error"]["code"] == "invalid_instant"
    _edit_line(root, 2, actor="mallory")
    code, out, err = run(capsys, "release", "history", root, "--json")
    assert code == 2 and not out
    assert json.loads(err)["error"] == {"family": "release", "code": "ledger_corrupt",
                                        "message": "ledger entry does not match its hash (edited)",
                                        "subject": "line 3"}
    code, _, err = run(capsys, "release", "history", root, "--at", "2026-01-04")
    assert code == 2 and "[release/ledger_corrupt] (line 3)" in err


# -- property: the answer is the replayed ledger's -----------------------------------------

T0 = _dt.datetime(2026, 1, 1, tzinfo=_dt.UTC)


def _stamp(moment: _dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


@st.composite
def ledgers(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A ledger's entries: candidates, promotions of new sets and rollbacks, at non-decreasing instants
    (several in one second allowed); built through :func:`release.ledger.append` semantics."""
    ops = draw(st.lists(st.tuples(st.sampled_from(["candidate", "promote", "rollback"]),
                                  st.integers(min_value=0, max_value=3)), max_size=25))
    moment, current, rollback, made = T0, None, None, 0
    entries: list[dict[str, Any]] = []
    for op, step in ops:
        moment += _dt.timedelta(seconds=step)
        if op == "promote":
            made += 1
            current, rollback = f"{made:064x}", current
        elif op == "rollback":
            if rollback is None:
                continue
            current, rollback = rollback, current
        entries.append({"seq": len(entries), "at": _stamp(moment), "action": op, "set_id": current, "actor": "p",
                        "hash": f"{len(entries):064x}",
                        "state": {"current": current, "rollback": rollback, "candidates": {}}})
    return entries


def replay(entries: list[dict[str, Any]], instant: _dt.datetime) -> tuple[str | None, str | None]:
    """Apply every entry at or before ``instant``, in order; the pointers then."""
    state: dict[str, Any] = {"current": None, "rollback": None}
    for entry in entries:
        if _dt.datetime.strptime(entry["at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=_dt.UTC) <= instant:
            state = entry["state"]
    return state["current"], state["rollback"]


@settings(max_examples=300, deadline=None)
@given(ledgers(), st.integers(min_value=-2, max_value=80))
def test_current_at_agrees_with_replaying_the_ledger(entries: list[dict[str, Any]], offset: int) -> None:
    instant = T0 + _dt.timedelta(seconds=offset)
    got = current_at(entries, instant)
    current, rollback = replay(entries, instant)
    assert (got.set_id, got.rollback) == (current, rollback)
    if current is None:
        assert got.entry is None and got.since is None and got.until is None
        return
    assert got.entry is not None and got.since is not None
    since = parse_instant(got.since)
    assert since <= instant and replay(entries, since)[0] == current
    # it was another set (or none) just before its making entry, and the same set throughout [since, instant]
    before = [e for e in entries if e["seq"] < got.entry.seq]
    assert (before[-1]["state"]["current"] if before else None) != current
    assert all(e["state"]["current"] == current for e in entries if got.entry.seq <= e["seq"] and
               parse_instant(e["at"]) <= instant)
    if got.until is None:
        assert all(e["state"]["current"] == current for e in entries if e["seq"] >= got.entry.seq)
    else:
        until = parse_instant(got.until)
        assert instant < until
        assert replay(entries, until)[0] != current or any(
            e["state"]["current"] != current for e in entries if parse_instant(e["at"]) == until)
        assert all(e["state"]["current"] == current for e in entries if e["seq"] >= got.entry.seq and
                   parse_instant(e["at"]) < until)


def test_the_ledger_append_path_agrees(tmp_path: Path) -> None:
    """A real hash-chained ledger (appended, verified) answers like its entries do."""
    path = tmp_path / ledger.LEDGER_NAME
    head: LedgerHead = EMPTY_HEAD
    for i, at in enumerate(["2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"]):
        entry = ledger.append(path, head=head, action="promote", set_id=f"{i:064x}",
                              state={"current": f"{i:064x}", "rollback": None, "candidates": {}}, actor="t", at=at)
        head = LedgerHead(entry["seq"], entry["hash"])
    entries = ledger.read_entries(path)
    assert current_at(entries, parse_instant("2026-01-01")).set_id == f"{0:064x}"
    assert current_at(entries, parse_instant("2026-01-02")).until is None

