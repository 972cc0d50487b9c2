"""The release ledger: an append-only, hash-chained JSONL file of every transition.

Each line is the canonical JSON of one entry::

    {"seq": n, "prev": "<hash of line n-1, or 64 zeros>", "hash": "<sha256>",
     "action": "candidate|evaluate|promote|rollback", "set_id": "<hex>",
     "state": {"current": ..., "rollback": ..., "candidates": {...}},   # after the transition
     "actor": "...", "at": "YYYY-MM-DDTHH:MM:SSZ", "detail": {...}}

``hash`` is the SHA-256 of the canonical JSON of the entry without ``hash``. Verification
re-derives every hash and link: an edited line breaks its own hash (or, re-hashed, the next
line's ``prev``); a deleted or reordered line breaks ``seq``/``prev``. Truncation of the tail
is caught by comparing with the head recorded in ``pointers.json`` (:func:`verify_ledger`
with ``expected_head``). Lines must be byte-exact canonical JSON, so even whitespace edits show.
"""

from __future__ import annotations

import hmac
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from legal.canonical import canonical_bytes, digest
from legal.errors import ReleaseError
from release.codes import Reason, refuse
from release.statement import decode_canonical

LEDGER_NAME = "ledger.jsonl"
GENESIS = "0" * 64
_FIELDS = frozenset({"seq", "prev", "hash", "action", "set_id", "state", "actor", "at", "detail"})


@dataclass(frozen=True)
class LedgerHead:
    """The last entry's ``seq`` and ``hash`` (``seq`` −1 and the genesis hash when empty)."""

    seq: int
    hash: str

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "hash": self.hash}

    @classmethod
    def from_json(cls, value: object) -> LedgerHead:
        if not (isinstance(value, dict) and isinstance(value.get("seq"), int) and isinstance(value.get("hash"), str)):
            refuse(Reason.POINTERS_CORRUPT, "ledger_head must be {seq, hash}")
        return cls(value["seq"], value["hash"])


EMPTY_HEAD = LedgerHead(-1, GENESIS)


def entry_hash(entry: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON of ``entry`` without its ``hash`` member."""
    return digest({k: v for k, v in entry.items() if k != "hash"})


def read_entries(path: Path) -> list[dict[str, Any]]:
    """Every entry, verified link by link; refuse at the first bad line."""
    if not path.exists():
        return []
    entries: list[dict[str, Any]] = []
    prev = GENESIS
    with open(path, "rb") as handle:
        for number, line in enumerate(handle):
            entry = _parse_line(line, number)
            _check_link(entry, number, prev)
            prev = entry["hash"]
            entries.append(entry)
    return entries


def _parse_line(line: bytes, number: int) -> dict[str, Any]:
    if not line.endswith(b"\n"):
        refuse(Reason.LEDGER_CORRUPT, "ledger line is not terminated (torn write?)", f"line {number + 1}")
    try:
        entry = decode_canonical(line[:-1], Reason.LEDGER_CORRUPT)
    except ReleaseError as exc:
        refuse(Reason.LEDGER_CORRUPT, exc.message, f"line {number + 1}")
    if set(entry) != _FIELDS:
        refuse(Reason.LEDGER_CORRUPT, "ledger entry has unexpected members", f"line {number + 1}")
    return entry


def _check_link(entry: Mapping[str, Any], number: int, prev: str) -> None:
    where = f"line {number + 1}"
    if not hmac.compare_digest(str(entry["hash"]), entry_hash(entry)):
        refuse(Reason.LEDGER_CORRUPT, "ledger entry does not match its hash (edited)", where)
    if entry["seq"] != number or entry["prev"] != prev:
        refuse(Reason.LEDGER_BROKEN_CHAIN, "ledger chain broken (line deleted, inserted or reordered)", where)


def verify_ledger(path: Path, expected_head: LedgerHead | None = None) -> LedgerHead:
    """Verify the whole chain; with ``expected_head``, also that nothing was cut off the end."""
    entries = read_entries(path)
    head = LedgerHead(entries[-1]["seq"], entries[-1]["hash"]) if entries else EMPTY_HEAD
    if expected_head is not None and head != expected_head:
        refuse(Reason.LEDGER_HEAD_MISMATCH,
               f"ledger head is seq {head.seq}, pointers.json records seq {expected_head.seq}", head.hash[:16])
    return head


def append(
    path: Path,
    *,
    head: LedgerHead,
    action: str,
    set_id: str | None,
    state: Mapping[str, Any],
    actor: str,
    at: str,
    detail: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Append one entry after ``head`` (which the caller verified) and ``fsync`` it."""
    entry: dict[str, Any] = {
        "seq": head.seq + 1,
        "prev": head.hash,
        "action": action,
        "set_id": set_id,
        "state": dict(state),
        "actor": actor,
        "at": at,
        "detail": dict(detail or {}),
    }
    entry["hash"] = entry_hash(entry)
    with open(path, "ab") as handle:
        handle.write(canonical_bytes(entry) + b"\n")
        handle.flush()
        os.fsync(handle.fileno())
    return entry


def render(entry: Mapping[str, Any]) -> str:
    """One human line for ``lex release status``."""
    return json.dumps({k: entry[k] for k in ("seq", "action", "set_id", "actor", "at")}, ensure_ascii=False)
