"""Promotion: candidate → evaluated → current, with exactly one rollback kept.

A release root holds::

    <root>/sets/<set_id>/              immutable, read-only copies of verified artifact sets
    <root>/reports/<set_id>.dsse.json  the signed benchmark report that evaluated a set
    <root>/pointers.json               {current, rollback, candidates, ledger_head}
    <root>/ledger.jsonl                hash-chained record of every transition

Rules:

- ``candidate`` copies a directory in, verifies the copy, and freezes it under its set id (a file
  the current or rollback set holds with the listed size and SHA-256 is linked, not copied; the
  copy is verified whole either way).
- ``evaluate`` needs a report signed by a pinned root, bound to this set's identity, whose
  gates pass under the operator's policy; the report is kept beside the set.
- ``promote`` needs an evaluated candidate; it re-verifies the set and its report, then the
  previous current becomes the one rollback (the older rollback is no longer pointed to).
- ``rollback`` swaps current and rollback after re-verifying the retained set and its own
  report; nothing is rebuilt; the operator's reason is recorded.

**The ledger is the authority.** ``pointers.json`` is a cache of the ledger's last entry:
every reader (:func:`ledger_pointers`, hence :func:`current_set`, ``status``, ``ledger
verify``, the server's mount and every transition) checks that its ``ledger_head`` is the
last entry and that its state is that entry's state, and refuses otherwise
(``ledger_head_mismatch``, ``pointers_mismatch``). Editing ``current`` (or swapping current
and rollback) in ``pointers.json`` therefore serves nothing.

**Promotion is monotonic.** A set's *build sequence* is the ``created_at`` instant of its
signed statement (UTC, to the second; recorded in the ledger as ``built_at``). ``promote``
refuses a set built before the current one (``not_newer``) and any set that has already been
current (``already_released``); going back is only ``rollback``, to the one retained set.

A refused transition changes nothing: checks run before the ledger line is appended and
``pointers.json`` is rewritten (temp file, fsync, rename). Transitions hold an exclusive
lock on ``<root>/.lock``.
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import shutil
import stat
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NoReturn

from legal.canonical import is_sha256_hex, pretty_bytes, sha256_hex
from legal.errors import LexError, ReleaseError
from legal.fs import fsync_dir
from release import ledger
from release.codes import Reason, refuse
from release.files import atomic_write
from release.keys import TrustStore
from release.ledger import EMPTY_HEAD, LedgerHead
from release.report import GatePolicy, VerifiedReport, check_binding, verify_report
from release.signatures import open_statement
from release.signing import utc_now
from release.statement import ENVELOPE_NAME, parse_statement
from release.verify import VerifiedSet, reverify_artifact_set, verify_artifact_set
from release.verify import verified as verified_set

SETS_DIR = "sets"
REPORTS_DIR = "reports"
POINTERS_NAME = "pointers.json"
LOCK_NAME = ".lock"
POINTERS_SCHEMA = "lex-release-pointers/1"
CANDIDATE = "candidate"
EVALUATED = "evaluated"


# -- pointers ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pointers:
    """Which set is current, which is the rollback, which are candidates (and their state)."""

    current: str | None = None
    rollback: str | None = None
    candidates: Mapping[str, str] = field(default_factory=dict)
    ledger_head: LedgerHead = EMPTY_HEAD

    def state(self) -> dict[str, Any]:
        return {"current": self.current, "rollback": self.rollback, "candidates": dict(sorted(self.candidates.items()))}

    def to_json(self) -> dict[str, Any]:
        return {"schema": POINTERS_SCHEMA, **self.state(), "ledger_head": self.ledger_head.to_json()}

    @classmethod
    def from_state(cls, state: object, head: LedgerHead) -> Pointers:
        if not isinstance(state, dict):
            refuse(Reason.POINTERS_CORRUPT, "pointer state must be an object")
        current, rollback, candidates = state.get("current"), state.get("rollback"), state.get("candidates")
        for value in (current, rollback):
            if value is not None and not (isinstance(value, str) and is_sha256_hex(value)):
                refuse(Reason.POINTERS_CORRUPT, "current/rollback must be a set id or null")
        if not isinstance(candidates, dict) or not all(
            is_sha256_hex(k) and v in (CANDIDATE, EVALUATED) for k, v in candidates.items()
        ):
            refuse(Reason.POINTERS_CORRUPT, "candidates must map set ids to candidate|evaluated")
        return cls(current, rollback, dict(candidates), head)


def read_pointers_file(root: Path) -> Pointers:
    """``pointers.json`` as written, *not* checked against the ledger (recovery only)."""
    path = Path(root) / POINTERS_NAME
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return Pointers()
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        refuse(Reason.POINTERS_CORRUPT, "pointers.json is not JSON", str(path))
    if not isinstance(document, dict) or document.get("schema") != POINTERS_SCHEMA:
        refuse(Reason.POINTERS_CORRUPT, f"pointers.json schema must be {POINTERS_SCHEMA}", str(path))
    return Pointers.from_state(document, LedgerHead.from_json(document.get("ledger_head")))


def write_pointers(root: Path, pointers: Pointers) -> None:
    atomic_write(Path(root) / POINTERS_NAME, pretty_bytes(pointers.to_json()))


def check_against_ledger(pointers: Pointers, entries: list[dict[str, Any]]) -> Pointers:
    """``pointers`` when they are exactly the ledger's last entry (head and state), else refuse."""
    last = entries[-1] if entries else None
    head = LedgerHead(last["seq"], last["hash"]) if last is not None else EMPTY_HEAD
    if head != pointers.ledger_head:
        refuse(Reason.LEDGER_HEAD_MISMATCH,
               f"ledger head is seq {head.seq}, pointers.json records seq {pointers.ledger_head.seq}", head.hash[:16])
    expected = Pointers.from_state(last["state"], head) if last is not None else Pointers()
    if expected.state() != pointers.state():
        refuse(Reason.POINTERS_MISMATCH, "pointers.json disagrees with the ledger's last entry (edited?)",
               f"ledger current {expected.current}")
    return pointers


def ledger_pointers(root: Path) -> Pointers:
    """The pointers of a release root, verified against its whole ledger (the authority)."""
    root = Path(root)
    return check_against_ledger(read_pointers_file(root), ledger.read_entries(root / ledger.LEDGER_NAME))


def verified_entries(root: Path) -> list[dict[str, Any]]:
    """Every ledger entry of a release root, after the whole chain was verified and
    ``pointers.json`` (head and state) was checked against its last entry."""
    root = Path(root)
    entries = ledger.read_entries(root / ledger.LEDGER_NAME)
    check_against_ledger(read_pointers_file(root), entries)
    return entries


def read_pointers(root: Path) -> Pointers:
    """The pointers of a release root (empty when it has none yet), checked against the ledger."""
    return ledger_pointers(root)


def current_set(root: Path) -> Path | None:
    """The directory of the current artifact set, or None. The pointers are checked against the
    ledger first (a hand-edited ``pointers.json`` is refused); verify the set before mounting."""
    pointers = ledger_pointers(Path(root))
    return Path(root) / SETS_DIR / pointers.current if pointers.current else None


def ledger_state(root: Path) -> Pointers:
    """What the ledger says (its last entry's state), whatever ``pointers.json`` holds."""
    entries = ledger.read_entries(Path(root) / ledger.LEDGER_NAME)
    if not entries:
        return Pointers()
    last = entries[-1]
    return Pointers.from_state(last["state"], LedgerHead(last["seq"], last["hash"]))


def ledger_status(root: Path) -> dict[str, Any]:
    """``{ok, entries, head}`` or ``{ok: false, entries, error}`` for ``lex release status``."""
    path = Path(root) / ledger.LEDGER_NAME
    try:
        pointers = ledger_pointers(root)
    except ReleaseError as exc:
        lines = path.read_bytes().count(b"\n") if path.exists() else 0
        return {"ok": False, "entries": lines, "error": f"{exc.code}: {exc.message}"}
    return {"ok": True, "entries": pointers.ledger_head.seq + 1, "head": pointers.ledger_head.hash}


# -- the release root ----------------------------------------------------------------------


@dataclass(frozen=True)
class ReleaseRoot:
    """Transitions over one release root, verified against pinned trust roots."""

    root: Path
    trust: TrustStore
    actor: str = "unknown"
    clock: Callable[[], str] = utc_now
    policy: GatePolicy = field(default_factory=GatePolicy)
    workers: int | None = None
    #: the SHA-256 the caller recorded for a file of a held set while it is unchanged since it was
    #: verified (``None``: no record, or the file changed): a file of an incoming set linked to
    #: that held file is then not read again by the copy's verification (:meth:`_import`). The
    #: pipeline's release stage passes its stage state's quick check
    #: (:meth:`pipelines.state.StageState.recorded_sha256`); with none, every byte is read.
    recorded: Callable[[Path], str | None] | None = None

    # paths

    def set_dir(self, set_id: str) -> Path:
        if not is_sha256_hex(set_id):
            refuse(Reason.UNKNOWN_SET, "a set id is 64 lower-case hex characters", set_id[:80])
        return self.root / SETS_DIR / set_id

    def report_path(self, set_id: str) -> Path:
        self.set_dir(set_id)
        return self.root / REPORTS_DIR / f"{set_id}.dsse.json"

    @property
    def ledger_path(self) -> Path:
        return self.root / ledger.LEDGER_NAME

    # reads

    def pointers(self) -> Pointers:
        """The pointers, verified against the ledger (the authority)."""
        return ledger_pointers(self.root)

    def resolve_set_id(self, text: str) -> str:
        """A full set id from a full id or a unique prefix (8+ characters) of a known set."""
        if is_sha256_hex(text):
            return text
        pointers = self.pointers()
        known = {x for x in (pointers.current, pointers.rollback, *pointers.candidates) if x}
        matches = [k for k in known if len(text) >= 8 and k.startswith(text)]
        if len(matches) != 1:
            refuse(Reason.UNKNOWN_SET, "give a full set id or a unique 8+ character prefix of a known set", text[:80])
        return matches[0]

    def verify_ledger(self) -> LedgerHead:
        """The whole chain, and ``pointers.json`` (head and state) against its last entry."""
        return self.pointers().ledger_head

    # transitions

    def candidate(self, directory: Path) -> VerifiedSet:
        """Copy ``directory`` in, verify the copy, freeze it; record it as a candidate."""
        with self._transition() as before:
            verified = self._import(Path(directory), before)
            set_id = verified.set_id
            if set_id == before.current or set_id == before.rollback or set_id in before.candidates:
                return verified
            after = replace(before, candidates={**before.candidates, set_id: CANDIDATE})
            self._commit(before, after, "candidate", set_id, {"files": len(verified.subjects)})
            return verified

    def evaluate(self, set_id: str, report: Path) -> VerifiedReport:
        """Bind a signed benchmark report to a candidate; its gates must pass."""
        with self._transition() as before:
            if set_id not in before.candidates:
                self._refuse_not_candidate(before, set_id)
            verified = self._verify_set(set_id)
            data = _read_report(Path(report))
            checked = verify_report(data, self.trust, expected=verified, policy=self.policy)
            self._store_report(set_id, data)
            after = replace(before, candidates={**before.candidates, set_id: EVALUATED})
            self._commit(before, after, "evaluate", set_id, _report_detail(checked, data))
            return checked

    def promote(self, set_id: str) -> Pointers:
        """Make an evaluated candidate current; the previous current becomes the rollback."""
        with self._transition() as before:
            if set_id == before.current:
                refuse(Reason.ALREADY_CURRENT, "this set is already current", set_id)
            if set_id not in before.candidates:
                self._refuse_not_candidate(before, set_id)
            if before.candidates[set_id] != EVALUATED or not self.report_path(set_id).is_file():
                refuse(Reason.NO_REPORT, "promotion needs a signed benchmark report (lex release evaluate)", set_id)
            return self._promote_verified(before, set_id, self._verify_set(set_id))

    def release(self, directory: Path, report: Path) -> tuple[VerifiedSet, Pointers]:
        """:meth:`candidate`, :meth:`evaluate` and :meth:`promote` of ``directory`` with ``report``,
        in one hold of the lock: the same checks, refusals and three ledger entries, but the copy
        is read and verified once. Apart, each transition verifies every file of the set again,
        because the set may have been touched between two transitions run by different hands
        at different times; here no other transition can run in between (the lock), and the
        copy was verified and frozen by this very call a moment before, so a second and third
        read of every byte would check the same bytes the first read did. A refusal after the
        candidate entry leaves the set a candidate (or evaluated), as the three calls would.
        Returns the verified copy and the pointers after the promotion."""
        with self._transition() as before:
            verified = self._import(Path(directory), before)
            set_id = verified.set_id
            state = before
            if not (set_id == before.current or set_id == before.rollback or set_id in before.candidates):
                state = self._commit(before, replace(before, candidates={**before.candidates, set_id: CANDIDATE}),
                                     "candidate", set_id, {"files": len(verified.subjects)})
            # evaluate
            if set_id not in state.candidates:
                self._refuse_not_candidate(state, set_id)
            data = _read_report(Path(report))
            checked = verify_report(data, self.trust, expected=verified, policy=self.policy)
            self._store_report(set_id, data)
            state = self._commit(state, replace(state, candidates={**state.candidates, set_id: EVALUATED}),
                                 "evaluate", set_id, _report_detail(checked, data))
            return verified, self._promote_verified(state, set_id, verified)

    def _promote_verified(self, before: Pointers, set_id: str, verified: VerifiedSet) -> Pointers:
        """The promotion of an evaluated candidate whose copy was just verified (``verified``):
        build order, the stored report against that copy, then the ledger entry."""
        built_at = self._check_monotonic(before, verified)
        checked = verify_report(self.report_path(set_id), self.trust, expected=verified, policy=self.policy)
        candidates = {k: v for k, v in before.candidates.items() if k != set_id}
        after = replace(before, current=set_id, rollback=before.current, candidates=candidates)
        detail = {"previous_current": before.current, "released_rollback": before.rollback,
                  "report_payload_sha256": checked.payload_sha256, "built_at": built_at}
        return self._commit(before, after, "promote", set_id, detail)

    def rollback(self, reason: str = "unspecified") -> Pointers:
        """Swap current and rollback, after re-verifying the retained set and its report.
        The only way back to an older set; ``reason`` is recorded in the ledger."""
        if not isinstance(reason, str) or not reason.strip():
            refuse(Reason.ROLLBACK_REASON_MISSING, "a rollback needs a reason (recorded in the ledger)")
        with self._transition() as before:
            target = before.rollback
            if target is None:
                refuse(Reason.NO_ROLLBACK, "there is no retained rollback set")
            verified = self._verify_set(target)
            checked = self._verify_retained_report(target, verified)
            after = replace(before, current=target, rollback=before.current)
            detail = {"previous_current": before.current, "report_payload_sha256": checked.payload_sha256,
                      "reason": reason.strip()[:500]}
            return self._commit(before, after, "rollback", target, detail)

    def recover(self) -> Pointers:
        """After a crash between the ledger append and the pointer rename, re-apply the last
        ledger entry to ``pointers.json``. Refuses unless the ledger is exactly one entry ahead."""
        with self._lock():
            before = read_pointers_file(self.root)
            entries = ledger.read_entries(self.ledger_path)
            last = entries[-1] if entries else None
            if last is None or (last["seq"], last["prev"]) != (before.ledger_head.seq + 1, before.ledger_head.hash):
                return check_against_ledger(before, entries)
            after = Pointers.from_state(last["state"], LedgerHead(last["seq"], last["hash"]))
            write_pointers(self.root, after)
            return after

    # internals

    @contextmanager
    def _lock(self) -> Iterator[None]:
        self.root.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.root / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                refuse(Reason.RELEASE_ROOT_LOCKED, "another release operation holds the lock", str(self.root))
            yield
        finally:
            os.close(fd)

    @contextmanager
    def _transition(self) -> Iterator[Pointers]:
        with self._lock():
            yield ledger_pointers(self.root)

    def _check_monotonic(self, before: Pointers, candidate: VerifiedSet) -> str:
        """Refuse a set that was current before, or was built before the current set; return its
        build instant (the signed statement's ``created_at``)."""
        built_at = build_instant(candidate)
        for entry in ledger.read_entries(self.ledger_path):
            if entry["state"].get("current") == candidate.set_id:
                refuse(Reason.ALREADY_RELEASED,
                       "this set has been current before; going back is `lex release rollback`", candidate.set_id)
        if before.current is not None:
            current_built = build_instant(self._verify_statement(before.current))
            if built_at < current_built:
                refuse(Reason.NOT_NEWER, f"this set was built at {built_at}, before the current set "
                                         f"({current_built}); promotion only moves forward", candidate.set_id)
        return built_at

    def _verify_statement(self, set_id: str) -> VerifiedSet:
        """The signed statement of a set in the root (signature only, not every file)."""
        directory = self.set_dir(set_id)
        opened = open_statement(directory / ENVELOPE_NAME, self.trust)
        return verified_set(directory, parse_statement(opened.payload), opened.key_ids)

    def _commit(
        self, before: Pointers, after: Pointers, action: str, set_id: str, detail: Mapping[str, Any]
    ) -> Pointers:
        entry = ledger.append(self.ledger_path, head=before.ledger_head, action=action, set_id=set_id,
                              state=after.state(), actor=self.actor, at=self.clock(), detail=detail)
        committed = replace(after, ledger_head=LedgerHead(entry["seq"], entry["hash"]))
        write_pointers(self.root, committed)
        return committed

    def _refuse_not_candidate(self, pointers: Pointers, set_id: str) -> NoReturn:
        if set_id == pointers.current or set_id == pointers.rollback:
            refuse(Reason.NOT_A_CANDIDATE, "set is current or the rollback, not a candidate", set_id)
        if self.set_dir(set_id).is_dir():
            refuse(Reason.NOT_A_CANDIDATE, "set is known but no longer a candidate; add it again", set_id)
        refuse(Reason.UNKNOWN_SET, "no such set in this release root", set_id)

    def _verify_set(self, set_id: str) -> VerifiedSet:
        directory = self.set_dir(set_id)
        if not directory.is_dir():
            refuse(Reason.UNKNOWN_SET, "set directory is missing from the release root", set_id)
        verified = verify_artifact_set(directory, self.trust, workers=self.workers)
        if verified.set_id != set_id:
            refuse(Reason.SET_ID_MISMATCH, "set directory holds another set", set_id)
        return verified

    def _verify_retained_report(self, set_id: str, verified: VerifiedSet) -> VerifiedReport:
        """Rollback re-checks the retained set's own report: signature, binding, passed.
        It does not re-apply today's thresholds (a stricter policy must not block rollback)."""
        path = self.report_path(set_id)
        if not path.is_file():
            refuse(Reason.NO_REPORT, "the retained set has no stored report", set_id)
        checked = verify_report(path, self.trust)
        check_binding(checked.report, verified)
        if checked.report["passed"] is not True:
            refuse(Reason.GATE_FAILED, "the retained set's report did not pass", set_id)
        return checked

    def _store_report(self, set_id: str, data: bytes) -> None:
        path = self.report_path(set_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, data)

    def _held_files(self, directory: Path, before: Pointers) -> dict[str, Path]:
        """``name → file`` of the files ``directory``'s signed statement lists with the size and
        SHA-256 that the current or rollback set's signed statement lists under the same name: the
        bytes a set of this root already holds (frozen, verified when it came in). Nothing when a
        statement does not open; the copy's verification (:meth:`_import`) reads every byte anyway."""
        try:
            wanted = parse_statement(open_statement(directory / ENVELOPE_NAME, self.trust).payload).subjects
        except LexError:
            return {}
        out: dict[str, Path] = {}
        for set_id in (before.current, before.rollback):
            held = self.root / SETS_DIR / set_id if set_id and is_sha256_hex(set_id) else None
            if held is None or not held.is_dir():
                continue
            try:
                listed = parse_statement(open_statement(held / ENVELOPE_NAME, self.trust).payload).subjects
            except LexError:
                continue
            for name, subject in wanted.items():
                have = listed.get(name)
                if name not in out and have is not None and (have.size, have.sha256) == (subject.size, subject.sha256):
                    out[name] = held / name
        return out

    def _import(self, directory: Path, before: Pointers) -> VerifiedSet:
        """Copy ``directory`` in, verify the copy (every file read and hashed against the signed
        statement), freeze it under its set id. A file whose listed size and SHA-256 are those of the
        same file of the current or rollback set is a hard link to that set's frozen file instead of
        a copy (:meth:`_held_files`; a copy when the link fails); it is read and hashed as every file,
        unless :attr:`recorded` vouches for the held file (the digest its caller recorded when that
        set was verified, the file unchanged since: :func:`release.verify.reverify_artifact_set`).
        A copy with links that does not verify (a held set damaged since it came in, or a record
        that is not its bytes) is made again with every file copied and read, so a damaged held set
        never refuses a good one."""
        held = self._held_files(directory, before)
        if held:
            try:
                return self._import_copy(directory, held)
            except ReleaseError:
                pass
        return self._import_copy(directory, {})

    def _import_copy(self, directory: Path, held: Mapping[str, Path]) -> VerifiedSet:
        sets = self.root / SETS_DIR
        sets.mkdir(parents=True, exist_ok=True)
        incoming = sets / f".incoming-{secrets.token_hex(8)}"
        linked: dict[str, Path] = {}

        def copy(source: str, target: str) -> object:
            name = Path(target).relative_to(incoming).as_posix()
            found = held.get(name)
            if found is not None:
                try:
                    os.link(found, target, follow_symlinks=False)
                    linked[name] = found
                    return target
                except OSError:
                    pass
            return shutil.copy2(source, target)

        try:
            shutil.copytree(directory, incoming, symlinks=True, copy_function=copy)
            vouched = {name: sha for name, found in linked.items()
                       if self.recorded is not None and (sha := self.recorded(found)) is not None}
            verified = (reverify_artifact_set(incoming, self.trust, vouched, workers=self.workers) if vouched
                        else verify_artifact_set(incoming, self.trust, workers=self.workers))
            target = sets / verified.set_id
            if target.is_dir():
                return self._verify_set(verified.set_id)
            _freeze(incoming)
            os.rename(incoming, target)
            fsync_dir(sets)
            return replace(verified, root=target)
        finally:
            if incoming.exists():
                _thaw(incoming)
                shutil.rmtree(incoming)


def build_instant(verified: VerifiedSet) -> str:
    """A set's build sequence: its signed statement's ``created_at`` (``YYYY-MM-DDTHH:MM:SSZ``)."""
    created = verified.predicate.get("created_at")
    if not (isinstance(created, str) and len(created) == 20 and created.endswith("Z")):
        refuse(Reason.MALFORMED_STATEMENT, "the statement has no created_at instant (YYYY-MM-DDTHH:MM:SSZ)",
               verified.set_id)
    return created


def _read_report(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        refuse(Reason.NO_REPORT, "no benchmark report at this path", str(path))
    except OSError as exc:
        refuse(Reason.NO_REPORT, f"cannot read the benchmark report: {exc.strerror}", str(path))


def _report_detail(checked: VerifiedReport, data: bytes) -> dict[str, Any]:
    return {
        "report_sha256": sha256_hex(data),
        "report_payload_sha256": checked.payload_sha256,
        "report_key_ids": list(checked.key_ids),
        "gates": [dict(g) for g in checked.gates],
    }


def _freeze(directory: Path) -> None:
    """Make a copied set read-only: files 0444, directories 0555 (deepest first)."""
    for current, dirs, files in os.walk(directory, topdown=False):
        for name in files:
            os.chmod(os.path.join(current, name), stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
        for name in dirs:
            os.chmod(os.path.join(current, name), 0o555)
    os.chmod(directory, 0o555)


def _thaw(directory: Path) -> None:
    os.chmod(directory, 0o755)
    for current, dirs, _files in os.walk(directory):
        for name in dirs:
            os.chmod(os.path.join(current, name), 0o755)
