"""Promotion: candidate → evaluated → current with one rollback; refusals move nothing."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from legal.errors import ReleaseError
from release import current_set, ledger, signatures, verify_artifact_set
from release.keys import KeySigner, TrustStore
from release.promotion import POINTERS_NAME, ReleaseRoot, ledger_status, read_pointers
from release.report import GatePolicy, bind, build_report, sign_report
from release.signing import sign_artifact_set

from .conftest import FIXED_TIME, SignFn, write_build

GOOD = {
    "mrr": "0.81", "recall_at_10": "0.93", "ndcg_at_10": "0.77", "exact_first_accuracy": "1",
    "temporal_leakage_failures": "0", "no_hit_accuracy": "1", "latency_p95_ms": "38.5",
}


@pytest.fixture()
def root(tmp_path: Path, trust: TrustStore) -> ReleaseRoot:
    ticks = itertools.count()
    return ReleaseRoot(tmp_path / "releases", trust, actor="tests",
                       clock=lambda: f"2026-01-02T03:04:{next(ticks) % 60:02d}Z")


@pytest.fixture()
def make_set(tmp_path: Path, sign: SignFn) -> Callable[[str], Path]:
    def _make(name: str) -> Path:
        directory = write_build(tmp_path / "builds" / name, {
            "indexes/eu-eurlex.sqlite": f"index {name}".encode(),
            "eu-scope.json": b"{}",
        })
        sign(directory)
        return directory

    return _make


@pytest.fixture()
def report_file(tmp_path: Path, ed_signer: KeySigner) -> Callable[..., Path]:
    counter = itertools.count()

    def _write(set_id: str, signer: KeySigner | None = None, **metrics: str) -> Path:
        report = build_report(bind(set_id=set_id), {**GOOD, **metrics}, created_at=FIXED_TIME, runner="tests")
        path = tmp_path / "reports-in" / f"report-{next(counter)}.dsse.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(sign_report(report, [signer or ed_signer]).to_bytes())
        return path

    return _write


def snapshot(root: ReleaseRoot) -> tuple[bytes, bytes]:
    return (root.root / POINTERS_NAME).read_bytes(), (root.root / ledger.LEDGER_NAME).read_bytes()


def refused(call: Callable[..., Any], *args: Any) -> str:
    with pytest.raises(ReleaseError) as caught:
        call(*args)
    return caught.value.code


def promoted(root: ReleaseRoot, make_set: Callable[[str], Path], report_file: Callable[..., Path], name: str) -> str:
    set_id = root.candidate(make_set(name)).set_id
    root.evaluate(set_id, report_file(set_id))
    root.promote(set_id)
    return set_id


# -- the happy path ------------------------------------------------------------------------


def test_candidate_evaluate_promote(root: ReleaseRoot, make_set: Callable[[str], Path],
                                    report_file: Callable[..., Path], trust: TrustStore) -> None:
    verified = root.candidate(make_set("a"))
    set_id = verified.set_id
    assert verified.root == root.root / "sets" / set_id
    assert root.pointers().candidates == {set_id: "candidate"}
    root.evaluate(set_id, report_file(set_id))
    assert root.pointers().candidates == {set_id: "evaluated"}
    pointers = root.promote(set_id)
    assert (pointers.current, pointers.rollback, dict(pointers.candidates)) == (set_id, None, {})
    assert current_set(root.root) == root.root / "sets" / set_id
    assert verify_artifact_set(current_set(root.root), trust).set_id == set_id  # type: ignore[arg-type]
    assert [e["action"] for e in ledger.read_entries(root.ledger_path)] == ["candidate", "evaluate", "promote"]
    assert ledger_status(root.root) == {"ok": True, "entries": 3, "head": pointers.ledger_head.hash}


def test_no_current_set_before_any_promotion(tmp_path: Path) -> None:
    assert current_set(tmp_path / "nothing") is None


def test_second_promotion_keeps_exactly_one_rollback(root: ReleaseRoot, make_set: Callable[[str], Path],
                                                     report_file: Callable[..., Path]) -> None:
    a = promoted(root, make_set, report_file, "a")
    b = promoted(root, make_set, report_file, "b")
    assert (root.pointers().current, root.pointers().rollback) == (b, a)
    c = promoted(root, make_set, report_file, "c")
    assert (root.pointers().current, root.pointers().rollback) == (c, b)
    last = ledger.read_entries(root.ledger_path)[-1]
    assert last["detail"]["previous_current"] == b and last["detail"]["released_rollback"] == a


def test_rollback_restores_the_previous_identity(root: ReleaseRoot, make_set: Callable[[str], Path],
                                                 report_file: Callable[..., Path]) -> None:
    a = promoted(root, make_set, report_file, "a")
    b = promoted(root, make_set, report_file, "b")
    sets_before = sorted(p.name for p in (root.root / "sets").iterdir())
    pointers = root.rollback()
    assert (pointers.current, pointers.rollback) == (a, b)
    assert current_set(root.root) == root.root / "sets" / a
    assert sorted(p.name for p in (root.root / "sets").iterdir()) == sets_before  # nothing rebuilt
    pointers = root.rollback()  # and forward again
    assert (pointers.current, pointers.rollback) == (b, a)
    assert [e["action"] for e in ledger.read_entries(root.ledger_path)][-2:] == ["rollback", "rollback"]


def test_adding_the_same_set_twice_records_once(root: ReleaseRoot, make_set: Callable[[str], Path]) -> None:
    directory = make_set("a")
    first = root.candidate(directory).set_id
    assert root.candidate(directory).set_id == first
    assert len(ledger.read_entries(root.ledger_path)) == 1


def test_set_id_prefixes_resolve(root: ReleaseRoot, make_set: Callable[[str], Path]) -> None:
    set_id = root.candidate(make_set("a")).set_id
    assert root.resolve_set_id(set_id[:12]) == set_id
    assert refused(root.resolve_set_id, set_id[:4]) == "unknown_set"


# -- refusals move nothing -----------------------------------------------------------------


@pytest.fixture()
def started(root: ReleaseRoot, make_set: Callable[[str], Path], report_file: Callable[..., Path]) -> dict[str, str]:
    """A root with a current set (a) and an unevaluated candidate (b)."""
    a = promoted(root, make_set, report_file, "a")
    b = root.candidate(make_set("b")).set_id
    return {"a": a, "b": b}


def test_promotion_without_a_report_is_refused(root: ReleaseRoot, started: dict[str, str]) -> None:
    before = snapshot(root)
    assert refused(root.promote, started["b"]) == "no_report"
    assert snapshot(root) == before


def test_a_report_for_another_identity_is_refused(root: ReleaseRoot, started: dict[str, str],
                                                  report_file: Callable[..., Path]) -> None:
    before = snapshot(root)
    assert refused(root.evaluate, started["b"], report_file(started["a"])) == "report_for_other_identity"
    assert snapshot(root) == before
    assert refused(root.promote, started["b"]) == "no_report"
    assert snapshot(root) == before


def test_a_failing_gate_is_refused(root: ReleaseRoot, started: dict[str, str],
                                   report_file: Callable[..., Path]) -> None:
    before = snapshot(root)
    assert refused(root.evaluate, started["b"], report_file(started["b"], ndcg_at_10="0.2")) == "gate_failed"
    assert refused(root.evaluate, started["b"], report_file(started["b"], latency_p95_ms="900")) == "gate_failed"
    assert snapshot(root) == before
    assert refused(root.promote, started["b"]) == "no_report"
    assert snapshot(root) == before
    assert not root.report_path(started["b"]).exists()


def test_a_report_by_an_untrusted_key_is_refused(root: ReleaseRoot, started: dict[str, str],
                                                 report_file: Callable[..., Path], stranger: KeySigner) -> None:
    before = snapshot(root)
    assert refused(root.evaluate, started["b"], report_file(started["b"], stranger)) == "bad_report_signature"
    assert snapshot(root) == before


def test_a_missing_report_file_is_no_report(root: ReleaseRoot, started: dict[str, str], tmp_path: Path) -> None:
    before = snapshot(root)
    assert refused(root.evaluate, started["b"], tmp_path / "absent.json") == "no_report"
    assert snapshot(root) == before


def test_a_tampered_stored_report_blocks_promotion(root: ReleaseRoot, started: dict[str, str],
                                                   report_file: Callable[..., Path]) -> None:
    b = started["b"]
    root.evaluate(b, report_file(b))
    stored = root.report_path(b)
    envelope = signatures.read(stored)
    stored.write_bytes(signatures.Envelope(envelope.payload_type, envelope.payload.replace(b"0.81", b"0.91"),
                                     envelope.signatures).to_bytes())
    before = snapshot(root)
    assert refused(root.promote, b) == "bad_report_signature"
    assert snapshot(root) == before


def test_a_tampered_set_copy_blocks_promotion(root: ReleaseRoot, started: dict[str, str],
                                              report_file: Callable[..., Path]) -> None:
    b = started["b"]
    root.evaluate(b, report_file(b))
    target = root.root / "sets" / b / "eu-scope.json"
    target.chmod(0o644)
    target.write_bytes(b"[]")
    before = snapshot(root)
    assert refused(root.promote, b) == "digest_mismatch"
    assert snapshot(root) == before


def test_a_swapped_stored_report_is_for_another_identity(root: ReleaseRoot, started: dict[str, str],
                                                         report_file: Callable[..., Path]) -> None:
    b = started["b"]
    root.evaluate(b, report_file(b))
    root.report_path(b).write_bytes(root.report_path(started["a"]).read_bytes())
    before = snapshot(root)
    assert refused(root.promote, b) == "report_for_other_identity"
    assert snapshot(root) == before


def test_a_stricter_policy_at_promotion_is_gate_failed(root: ReleaseRoot, started: dict[str, str],
                                                       report_file: Callable[..., Path]) -> None:
    b = started["b"]
    root.evaluate(b, report_file(b))
    strict = replace(root, policy=GatePolicy().with_thresholds({"mrr": "0.95"}))
    before = snapshot(root)
    assert refused(strict.promote, b) == "gate_failed"
    assert snapshot(root) == before


def test_promoting_unknown_current_or_rollback_is_refused(root: ReleaseRoot, started: dict[str, str],
                                                          make_set: Callable[[str], Path],
                                                          report_file: Callable[..., Path]) -> None:
    before = snapshot(root)
    assert refused(root.promote, "f" * 64) == "unknown_set"
    assert refused(root.promote, "../../etc") == "unknown_set"
    assert refused(root.promote, started["a"]) == "already_current"
    assert snapshot(root) == before
    c = promoted(root, make_set, report_file, "c")
    assert root.pointers().rollback == started["a"] and root.pointers().current == c
    assert refused(root.promote, started["a"]) == "not_a_candidate"


def test_rollback_without_a_retained_set_is_refused(root: ReleaseRoot, make_set: Callable[[str], Path],
                                                    report_file: Callable[..., Path]) -> None:
    promoted(root, make_set, report_file, "a")
    before = snapshot(root)
    assert refused(root.rollback) == "no_rollback"
    assert snapshot(root) == before


def test_rollback_refuses_a_damaged_retained_set(root: ReleaseRoot, make_set: Callable[[str], Path],
                                                 report_file: Callable[..., Path]) -> None:
    a = promoted(root, make_set, report_file, "a")
    promoted(root, make_set, report_file, "b")
    target = root.root / "sets" / a / "indexes"
    target.chmod(0o755)
    (target / "eu-eurlex.sqlite").chmod(0o644)
    (target / "eu-eurlex.sqlite").unlink()
    before = snapshot(root)
    assert refused(root.rollback) == "missing_file"
    assert snapshot(root) == before


def test_an_unsigned_candidate_is_refused_and_leaves_no_trace(root: ReleaseRoot, tmp_path: Path) -> None:
    directory = write_build(tmp_path / "unsigned")
    assert refused(root.candidate, directory) == "unsigned"
    assert not (root.root / POINTERS_NAME).exists()
    assert [p.name for p in (root.root / "sets").iterdir()] == []


def test_candidate_files_are_read_only(root: ReleaseRoot, make_set: Callable[[str], Path]) -> None:
    verified = root.candidate(make_set("a"))
    assert (verified.root / "eu-scope.json").stat().st_mode & 0o222 == 0
    assert verified.root.stat().st_mode & 0o222 == 0


# -- the ledger and pointers ---------------------------------------------------------------


def test_editing_the_ledger_blocks_every_transition(root: ReleaseRoot, started: dict[str, str],
                                                    report_file: Callable[..., Path]) -> None:
    content = root.ledger_path.read_bytes().splitlines(keepends=True)
    entry = json.loads(content[0])
    entry["actor"] = "mallory"
    content[0] = json.dumps(entry, separators=(",", ":"), sort_keys=True).encode() + b"\n"
    root.ledger_path.write_bytes(b"".join(content))
    assert refused(root.evaluate, started["b"], report_file(started["b"])) == "ledger_corrupt"
    assert refused(root.verify_ledger) == "ledger_corrupt"
    assert ledger_status(root.root)["ok"] is False


def test_truncating_the_ledger_is_detected_via_pointers(root: ReleaseRoot, started: dict[str, str]) -> None:
    content = root.ledger_path.read_bytes().splitlines(keepends=True)
    root.ledger_path.write_bytes(b"".join(content[:-1]))
    assert refused(root.verify_ledger) == "ledger_head_mismatch"


def test_pointers_are_pretty_json_with_the_ledger_head(root: ReleaseRoot, started: dict[str, str]) -> None:
    document = json.loads((root.root / POINTERS_NAME).read_text())
    assert document["schema"] == "lex-release-pointers/1"
    assert document["current"] == started["a"]
    assert document["candidates"] == {started["b"]: "candidate"}
    assert document["ledger_head"]["seq"] == 3
    assert read_pointers(root.root).ledger_head.seq == 3


def test_corrupt_pointers_are_typed(root: ReleaseRoot, started: dict[str, str]) -> None:
    (root.root / POINTERS_NAME).write_text('{"schema": "lex-release-pointers/1", "current": "nope"}')
    assert refused(read_pointers, root.root) == "pointers_corrupt"
    (root.root / POINTERS_NAME).write_text("{")
    assert refused(current_set, root.root) == "pointers_corrupt"


def test_recover_after_an_interrupted_transition(root: ReleaseRoot, started: dict[str, str],
                                                 report_file: Callable[..., Path]) -> None:
    b = started["b"]
    root.evaluate(b, report_file(b))
    pointers_before = (root.root / POINTERS_NAME).read_bytes()
    root.promote(b)
    promoted_pointers = (root.root / POINTERS_NAME).read_bytes()
    (root.root / POINTERS_NAME).write_bytes(pointers_before)  # crash: ledger appended, rename lost
    assert refused(root.rollback) == "ledger_head_mismatch"
    recovered = root.recover()
    assert recovered.current == b
    assert (root.root / POINTERS_NAME).read_bytes() == promoted_pointers
    assert root.recover() == recovered  # idempotent


def test_a_held_lock_refuses_a_concurrent_transition(root: ReleaseRoot, started: dict[str, str]) -> None:
    with root._lock(), pytest.raises(ReleaseError) as caught:
        root.rollback()
    assert caught.value.code == "release_root_locked"


# -- the ledger is the authority (issue #16, defect 1) --------------------------------------


def _edit_pointers(root: ReleaseRoot, **changes: Any) -> None:
    path = root.root / POINTERS_NAME
    document = json.loads(path.read_text())
    document.update(changes)
    path.write_text(json.dumps(document, indent=2))


def test_editing_current_in_pointers_is_refused_everywhere(root: ReleaseRoot, make_set: Callable[[str], Path],
                                                           report_file: Callable[..., Path]) -> None:
    a = promoted(root, make_set, report_file, "a")
    promoted(root, make_set, report_file, "b")
    _edit_pointers(root, current=a)  # ledger_head left alone
    assert refused(current_set, root.root) == "pointers_mismatch"
    assert refused(root.verify_ledger) == "pointers_mismatch"
    assert refused(root.rollback) == "pointers_mismatch"
    status = ledger_status(root.root)
    assert status["ok"] is False and "pointers_mismatch" in status["error"]


def test_swapping_current_and_rollback_is_refused(root: ReleaseRoot, make_set: Callable[[str], Path],
                                                  report_file: Callable[..., Path]) -> None:
    a = promoted(root, make_set, report_file, "a")
    b = promoted(root, make_set, report_file, "b")
    _edit_pointers(root, current=a, rollback=b)
    assert refused(current_set, root.root) == "pointers_mismatch"
    assert refused(read_pointers, root.root) == "pointers_mismatch"


def test_pointers_without_a_ledger_are_refused(root: ReleaseRoot, make_set: Callable[[str], Path],
                                               report_file: Callable[..., Path]) -> None:
    a = promoted(root, make_set, report_file, "a")
    root.ledger_path.unlink()
    _edit_pointers(root, ledger_head={"seq": -1, "hash": "0" * 64}, current=a)
    assert refused(current_set, root.root) == "pointers_mismatch"


# -- promotion is monotonic (issue #16, defect 2) -------------------------------------------


def test_repromoting_an_older_released_set_is_refused(root: ReleaseRoot, make_set: Callable[[str], Path],
                                                      report_file: Callable[..., Path]) -> None:
    a = promoted(root, make_set, report_file, "a")
    promoted(root, make_set, report_file, "b")
    promoted(root, make_set, report_file, "c")  # a is no longer even the rollback
    assert root.candidate(root.root / "sets" / a).set_id == a  # the normal commands...
    root.evaluate(a, report_file(a))
    before = snapshot(root)
    assert refused(root.promote, a) == "already_released"  # ...cannot go back
    assert snapshot(root) == before


def test_promoting_a_set_built_before_the_current_one_is_refused(
        root: ReleaseRoot, tmp_path: Path, ed_signer: KeySigner, report_file: Callable[..., Path]) -> None:
    def build(name: str, created_at: str) -> str:
        directory = write_build(tmp_path / "builds" / name, {"indexes/eu-eurlex.sqlite": name.encode()})
        sign_artifact_set(directory, [ed_signer], created_by="tests", created_at=created_at)
        set_id = root.candidate(directory).set_id
        root.evaluate(set_id, report_file(set_id))
        return set_id

    new = build("new", "2026-03-01T00:00:00Z")
    old = build("old", "2026-02-01T00:00:00Z")
    root.promote(new)
    assert refused(root.promote, old) == "not_newer"
    newer = build("newer", "2026-03-02T00:00:00Z")
    assert root.promote(newer).current == newer
    promote = [e for e in ledger.read_entries(root.ledger_path) if e["action"] == "promote"][-1]
    assert promote["detail"]["built_at"] == "2026-03-02T00:00:00Z"


def test_rollback_records_its_reason_and_needs_one(root: ReleaseRoot, make_set: Callable[[str], Path],
                                                   report_file: Callable[..., Path]) -> None:
    promoted(root, make_set, report_file, "a")
    promoted(root, make_set, report_file, "b")
    assert refused(root.rollback, " ") == "rollback_reason_missing"
    root.rollback("search regression")
    assert ledger.read_entries(root.ledger_path)[-1]["detail"]["reason"] == "search regression"


# -- candidate, evaluate and promote in one hold of the lock ----------------------------------


def _ticking_root(directory: Path, trust: TrustStore) -> ReleaseRoot:
    ticks = itertools.count()
    return ReleaseRoot(directory, trust, actor="tests", clock=lambda: f"2026-01-02T03:04:{next(ticks) % 60:02d}Z")


def test_release_records_what_the_three_transitions_record(tmp_path: Path, trust: TrustStore,
                                                           make_set: Callable[[str], Path],
                                                           report_file: Callable[..., Path]) -> None:
    apart, together = _ticking_root(tmp_path / "apart", trust), _ticking_root(tmp_path / "together", trust)
    for name in ("a", "b"):  # a first promotion, then one with a current set (the rollback moves)
        build = make_set(name)
        set_id = verify_artifact_set(build, trust).set_id
        report = report_file(set_id)
        assert apart.candidate(build).set_id == set_id
        apart.evaluate(set_id, report)
        expected = apart.promote(set_id)
        verified, pointers = together.release(build, report)
        assert verified.set_id == set_id and verified.root == together.set_dir(set_id)
        assert pointers == replace(expected, ledger_head=pointers.ledger_head)
        assert snapshot(together) == snapshot(apart)  # pointers and ledger, byte for byte
        assert (together.report_path(set_id).read_bytes() == apart.report_path(set_id).read_bytes())
    assert [e["action"] for e in ledger.read_entries(together.ledger_path)] == ["candidate", "evaluate", "promote"] * 2


def test_release_reads_the_copy_once(root: ReleaseRoot, make_set: Callable[[str], Path],
                                     report_file: Callable[..., Path], trust: TrustStore,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import release.promotion as promotion

    calls: list[Path] = []
    real = verify_artifact_set

    def counted(directory: Path, *args: Any, **kwargs: Any) -> Any:
        calls.append(Path(directory))
        return real(directory, *args, **kwargs)

    monkeypatch.setattr(promotion, "verify_artifact_set", counted)
    first = promoted(root, make_set, report_file, "a")
    assert len(calls) == 3  # candidate, evaluate, promote: each reads every file
    calls.clear()
    build = make_set("b")
    set_id = real(build, trust).set_id
    _verified, pointers = root.release(build, report_file(set_id))
    assert len(calls) == 1 and calls[0].name.startswith(".incoming-")  # the copy, once
    assert (pointers.current, pointers.rollback) == (set_id, first)


def test_release_refusals_leave_what_the_three_transitions_leave(root: ReleaseRoot, started: dict[str, str],
                                                                 make_set: Callable[[str], Path],
                                                                 report_file: Callable[..., Path],
                                                                 trust: TrustStore) -> None:
    build = make_set("c")
    set_id = verify_artifact_set(build, trust).set_id
    assert refused(root.release, build, report_file(set_id, ndcg_at_10="0.2")) == "gate_failed"
    assert root.pointers().candidates == {started["b"]: "candidate", set_id: "candidate"}  # added, not evaluated
    assert not root.report_path(set_id).exists()
    before = snapshot(root)
    assert refused(root.release, build, report_file(started["a"])) == "report_for_other_identity"
    assert snapshot(root) == before
    # the current set again: not a candidate, as evaluate says
    assert refused(root.release, root.set_dir(started["a"]), report_file(started["a"])) == "not_a_candidate"
    assert snapshot(root) == before


# -- files a held set already has ----------------------------------------------------------


def test_a_file_the_current_set_holds_is_linked_and_still_verified(root: ReleaseRoot, make_set: Callable[[str], Path],
                                                                   report_file: Callable[..., Path]) -> None:
    """A file listed with the size and SHA-256 the current set lists under its name is a hard link to
    that set's frozen file, not a copy; the new set is verified as any (every byte read)."""
    a = promoted(root, make_set, report_file, "a")
    b = root.candidate(make_set("b")).set_id
    held, new = root.root / "sets" / a, root.root / "sets" / b
    assert (new / "eu-scope.json").stat().st_ino == (held / "eu-scope.json").stat().st_ino
    assert (new / "indexes/eu-eurlex.sqlite").stat().st_ino != (held / "indexes/eu-eurlex.sqlite").stat().st_ino
    assert (new / "indexes/eu-eurlex.sqlite").read_bytes() == b"index b"
    assert not (new / "eu-scope.json").stat().st_mode & 0o222  # frozen as before


def test_a_damaged_current_set_does_not_refuse_a_good_one(root: ReleaseRoot, make_set: Callable[[str], Path],
                                                          report_file: Callable[..., Path]) -> None:
    """The linked bytes are hashed like every file: when the held file was damaged since it came in,
    the copy does not verify with the link, and the set is copied in whole instead (and verifies)."""
    a = promoted(root, make_set, report_file, "a")
    damaged = root.root / "sets" / a / "eu-scope.json"
    damaged.chmod(0o644)
    damaged.write_bytes(b"[]")  # same size, other bytes
    damaged.chmod(0o444)
    b = root.candidate(make_set("b")).set_id
    copied = root.root / "sets" / b / "eu-scope.json"
    assert copied.read_bytes() == b"{}" and copied.stat().st_ino != damaged.stat().st_ino
    assert verify_artifact_set(root.root / "sets" / b, root.trust).set_id == b
    assert not [p for p in (root.root / "sets").iterdir() if p.name.startswith(".incoming")]


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the files :mod:`release.files` reads (hashes) from now on."""
    import release.files as files_module

    read: list[str] = []
    real = files_module.hash_file

    def counting(path: Path) -> tuple[int, str]:
        read.append(path.name)
        return real(path)

    monkeypatch.setattr(files_module, "hash_file", counting)
    return read


def test_a_linked_file_the_caller_vouches_for_is_not_read_again(root: ReleaseRoot, make_set: Callable[[str], Path],
                                                                report_file: Callable[..., Path],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``recorded`` (the pipeline's quick check of the held set's files), a file linked from the
    current set is not hashed again; a copied file is, and the set verifies as usual."""
    a = promoted(root, make_set, report_file, "a")
    held = root.root / "sets" / a
    listed = verify_artifact_set(held, root.trust).subjects
    records = {str(held / name): subject.sha256 for name, subject in listed.items()}
    vouching = replace(root, recorded=lambda path: records.get(str(path)))
    build = make_set("b")
    read = _reads(monkeypatch)
    b = vouching.candidate(build).set_id
    new = root.root / "sets" / b
    assert (new / "eu-scope.json").stat().st_ino == (held / "eu-scope.json").stat().st_ino  # linked
    assert "eu-scope.json" not in read and "eu-eurlex.sqlite" in read  # vouched for / copied: read
    read.clear()
    assert verify_artifact_set(new, root.trust).set_id == b and "eu-scope.json" in read  # verify reads all


def test_a_record_that_is_not_the_held_bytes_is_not_trusted(root: ReleaseRoot, make_set: Callable[[str], Path],
                                                            report_file: Callable[..., Path],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A held file damaged since it came in, its stale record still vouching for it: the copy with
    the link does not verify, as a record that is not the listed digest does not: the set is then
    copied in whole and every file read (a bad record never lets bytes in unread, nor refuses a
    good set)."""
    a = promoted(root, make_set, report_file, "a")
    held = root.root / "sets" / a
    lying = replace(root, recorded=lambda path: "0" * 64 if path.name == "eu-scope.json" else None)
    build = make_set("b")
    read = _reads(monkeypatch)
    b = lying.candidate(build).set_id
    copied = root.root / "sets" / b / "eu-scope.json"
    assert copied.read_bytes() == b"{}" and copied.stat().st_ino != (held / "eu-scope.json").stat().st_ino
    assert read.count("eu-scope.json") == 1  # the whole copy's verification read it
    assert verify_artifact_set(root.root / "sets" / b, root.trust).set_id == b
