"""The hash-chained ledger: any edited, deleted, inserted or reordered line is detected."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from legal.canonical import canonical_bytes
from legal.errors import ReleaseError
from release import ledger
from release.ledger import EMPTY_HEAD, GENESIS, LedgerHead, entry_hash

from .conftest import FIXED_TIME

N = 6


def make_ledger(path: Path, count: int = N) -> LedgerHead:
    head = EMPTY_HEAD
    for i in range(count):
        entry = ledger.append(path, head=head, action="promote", set_id=f"{i:064x}",
                              state={"current": f"{i:064x}", "rollback": None, "candidates": {}},
                              actor="tests", at=FIXED_TIME, detail={"i": i})
        head = LedgerHead(entry["seq"], entry["hash"])
    return head


def lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def code_of(path: Path, head: LedgerHead | None = None) -> str:
    with pytest.raises(ReleaseError) as caught:
        ledger.verify_ledger(path, head)
    return caught.value.code


def test_a_fresh_ledger_verifies(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    head = make_ledger(path)
    assert ledger.verify_ledger(path, head) == head
    entries = ledger.read_entries(path)
    assert [e["seq"] for e in entries] == list(range(N))
    assert entries[0]["prev"] == GENESIS
    assert all(e["prev"] == p["hash"] for p, e in itertools.pairwise(entries))
    assert all(line == canonical_bytes(json.loads(line)) + b"\n" for line in lines(path))


def test_an_empty_ledger_has_the_empty_head(tmp_path: Path) -> None:
    assert ledger.verify_ledger(tmp_path / "absent.jsonl", EMPTY_HEAD) == EMPTY_HEAD


@pytest.mark.parametrize("index", range(N))
@pytest.mark.parametrize("field", ["actor", "set_id", "at", "action"])
def test_editing_any_line_is_detected(tmp_path: Path, index: int, field: str) -> None:
    path = tmp_path / "ledger.jsonl"
    head = make_ledger(path)
    content = lines(path)
    entry = json.loads(content[index])
    entry[field] = "mallory"
    content[index] = canonical_bytes(entry) + b"\n"
    path.write_bytes(b"".join(content))
    assert code_of(path, head) == "ledger_corrupt"


@pytest.mark.parametrize("index", range(N))
def test_editing_and_rehashing_any_line_is_detected(tmp_path: Path, index: int) -> None:
    path = tmp_path / "ledger.jsonl"
    head = make_ledger(path)
    content = lines(path)
    entry = json.loads(content[index])
    entry["actor"] = "mallory"
    entry["hash"] = entry_hash(entry)
    content[index] = canonical_bytes(entry) + b"\n"
    path.write_bytes(b"".join(content))
    # the next line's prev no longer matches; for the last line, pointers.json's head does not
    assert code_of(path, head) in {"ledger_broken_chain", "ledger_head_mismatch"}
    if index < N - 1:
        assert code_of(path) == "ledger_broken_chain"


@pytest.mark.parametrize("index", range(N))
def test_deleting_any_line_is_detected(tmp_path: Path, index: int) -> None:
    path = tmp_path / "ledger.jsonl"
    head = make_ledger(path)
    content = lines(path)
    del content[index]
    path.write_bytes(b"".join(content))
    assert code_of(path, head) in {"ledger_broken_chain", "ledger_head_mismatch"}


@pytest.mark.parametrize("index", range(N - 1))
def test_swapping_adjacent_lines_is_detected(tmp_path: Path, index: int) -> None:
    path = tmp_path / "ledger.jsonl"
    head = make_ledger(path)
    content = lines(path)
    content[index], content[index + 1] = content[index + 1], content[index]
    path.write_bytes(b"".join(content))
    assert code_of(path, head) == "ledger_broken_chain"


def test_a_duplicated_line_is_detected(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    head = make_ledger(path)
    content = lines(path)
    path.write_bytes(b"".join([*content[:3], content[2], *content[3:]]))
    assert code_of(path, head) == "ledger_broken_chain"


def test_whitespace_edits_are_detected(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    head = make_ledger(path)
    content = lines(path)
    content[2] = json.dumps(json.loads(content[2])).encode() + b"\n"
    path.write_bytes(b"".join(content))
    assert code_of(path, head) == "ledger_corrupt"


def test_a_torn_last_line_is_detected(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    head = make_ledger(path)
    path.write_bytes(path.read_bytes()[:-20])
    assert code_of(path, head) == "ledger_corrupt"


def test_a_single_flipped_byte_anywhere_is_detected(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    head = make_ledger(path, 3)
    original = path.read_bytes()
    for position in range(0, len(original), 7):
        data = bytearray(original)
        data[position] ^= 0x01
        path.write_bytes(bytes(data))
        with pytest.raises(ReleaseError):
            ledger.verify_ledger(path, head)
