"""The content digest's batch renderer gives exactly the bytes of the one canonical encoder.

``lines_bytes`` writes a batch of plain rows with the C ``json`` encoder and falls back to
``row_bytes`` (through ``legal.canonical``) for anything else; these properties hold it to
``row_bytes`` byte for byte, refusals included, on the values where the two could differ: lone
surrogates, control characters, non-BMP characters, quotes and backslashes, integers on both sides
of the IEEE-754 safe range, blobs, floats and booleans.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.index.digest import (
    WORK_KEYS,
    content_digest,
    lines_bytes,
    row_bytes,
    sealed_digest,
    stored_work_digests,
)
from derive.index.read import open_readonly
from derive.index.schema import DIGEST_ORDER
from derive.index.verify import verify_index
from legal.errors import LexError
from tests.index.pipeline import FixtureBuild

SAFE = 2**53 - 1
_SPECIAL = ["\ud800", "\udbff", "\udc00", "\udfff", "\x00", "\x01", "\x1f", "\x7f", "\x80", "\u2028", "\u2029",
            "\ufeff", "\U0001f600", "\U0010ffff", '"', "\\", "/", "\b", "\f", "\n", "\r", "\t", "é"]
_SURROGATES: tuple[Literal["Cs"]] = ("Cs",)
chars = st.one_of(st.characters(exclude_categories=()), st.sampled_from(_SPECIAL))
strings = st.text(chars, max_size=12)
plain_strings = st.text(st.one_of(st.characters(exclude_categories=_SURROGATES),
                                  st.sampled_from([c for c in _SPECIAL if not "\ud800" <= c[0] <= "\udfff"])),
                        max_size=12)
integers = st.one_of(st.integers(), st.sampled_from([SAFE, SAFE + 1, -SAFE, -SAFE - 1, 10**15 - 1, 10**15, 0, -1,
                                                     2**63 - 1, -(2**63)]))
plain_values = st.one_of(st.none(), st.integers(min_value=-SAFE, max_value=SAFE), plain_strings)
any_values = st.one_of(st.none(), integers, strings, st.binary(max_size=6), st.booleans(),
                       st.floats(allow_nan=True), plain_values)


def _reference(rows: Sequence[Sequence[object]]) -> bytes | tuple[type[Exception], str]:
    try:
        return b"".join(row_bytes(row) + b"\n" for row in rows)
    except LexError as exc:
        return type(exc), exc.code


def _batch(rows: Sequence[Sequence[object]]) -> bytes | tuple[type[Exception], str]:
    try:
        return lines_bytes(rows)
    except LexError as exc:
        return type(exc), exc.code


@settings(max_examples=400)
@given(st.lists(st.lists(any_values, max_size=6), max_size=6))
def test_a_batch_renders_as_row_bytes_or_is_refused_the_same_way(rows: list[list[object]]) -> None:
    assert _batch(rows) == _reference(rows)


@settings(max_examples=300)
@given(st.lists(st.tuples(plain_values, plain_values, plain_values), min_size=1, max_size=8))
def test_plain_rows_are_rfc8785_lines(rows: list[tuple[object, ...]]) -> None:
    values: list[Any] = [list(row) for row in rows]
    assert lines_bytes(rows) == b"".join(rfc8785.dumps(value) + b"\n" for value in values)


@pytest.mark.parametrize("value", [SAFE + 1, -SAFE - 1, 2**63 - 1, 1.5, True, "\ud800", "a\udfffb"])
def test_one_value_the_fast_path_cannot_render_sends_the_batch_to_the_exact_path(value: object) -> None:
    rows: list[tuple[object, ...]] = [(1, "a", None)] * 3 + [(2, value, None)]
    assert _batch(rows) == _reference(rows)
    assert isinstance(_batch(rows), tuple)  # refused, by the canonical encoder's rules


def test_blobs_are_rendered_as_lowercase_hex_like_row_bytes() -> None:
    rows = [("x", b"\x00\xff"), ("y", b"")]
    assert lines_bytes(rows) == b'["x","00ff"]\n["y",""]\n' == _reference(rows)


def test_boundary_integers_render_as_digits() -> None:
    rows = [(SAFE, -SAFE, 10**15, 0)]
    assert lines_bytes(rows) == f"[{SAFE},{-SAFE},{10**15},0]\n".encode()


def _row_by_row(path: Path) -> str:
    """The format 7 definition (docs/index.md §3.6), written out row by row through ``row_bytes``."""
    conn = open_readonly(path)
    per: dict[int, dict[str, Any]] = {}
    for table, order in DIGEST_ORDER:
        if table in ("texts", "gaps"):
            continue
        column, scoped = WORK_KEYS[table]
        for row in conn.execute(f"SELECT {column}, * FROM {table} ORDER BY {order}"):
            work = int(row[0]) // (1 << 24) if scoped else int(row[0])
            per.setdefault(work, {}).setdefault(table, hashlib.sha256()).update(row_bytes(row[1:]) + b"\n")
    empty = hashlib.sha256(b"").hexdigest()
    h = hashlib.sha256(b"lex-index-content/7\n#works\n")
    for work, tables in sorted(per.items()):
        folded = "".join(f"{t} {tables[t].hexdigest() if t in tables else empty}\n"
                         for t, _ in DIGEST_ORDER if t not in ("texts", "gaps"))
        h.update(f"{work} {hashlib.sha256(folded.encode()).hexdigest()}\n".encode())
    h.update(b"#texts\n")
    for sha, words, length in conn.execute("SELECT text_sha256, words, length FROM texts ORDER BY text_sha256"):
        h.update(row_bytes([bytes(sha).hex(), words, length]) + b"\n")
    h.update(b"#gaps\n")
    for row in conn.execute(f"SELECT * FROM gaps ORDER BY {dict(DIGEST_ORDER)['gaps']}"):
        h.update(row_bytes(row) + b"\n")
    conn.close()
    return h.hexdigest()


def test_content_digest_equals_the_row_by_row_definition(fixture_indexes: FixtureBuild) -> None:
    for name in ("eu-eurlex.sqlite", "lu-legilux.sqlite"):
        path = fixture_indexes.index_dir / name
        conn = open_readonly(path)
        try:
            digest = content_digest(conn)
            stored = stored_work_digests(conn)
            stamped = dict(conn.execute("SELECT k, v FROM stamp").fetchall())["content_digest"]
        finally:
            conn.close()
        assert digest == _row_by_row(path) == stamped
        assert stored and len(stored) == len(set(stored))


def test_a_work_digest_that_is_not_its_rows_digest_is_a_problem(handmade_dir: Path, tmp_path: Path) -> None:
    for name in ("eu-eurlex.sqlite", "eu-eurlex.stamp.json"):
        shutil.copy(handmade_dir / name, tmp_path / name)
    copy = tmp_path / "eu-eurlex.sqlite"
    assert verify_index(copy).ok
    conn = sqlite3.connect(copy)
    conn.execute("UPDATE work_digests SET sha256 = ? WHERE work_rowid = (SELECT MIN(work_rowid) FROM work_digests)",
                 ("0" * 64,))
    conn.commit()
    conn.close()
    problems = verify_index(copy).problems
    assert any("work digests differ from their rows" in p for p in problems)


def test_an_incremental_seal_digests_only_the_works_it_is_given(fixture_indexes: FixtureBuild, tmp_path: Path) -> None:
    copy = tmp_path / "lu-legilux.sqlite"
    shutil.copy(fixture_indexes.index_dir / "lu-legilux.sqlite", copy)
    conn = sqlite3.connect(copy, isolation_level=None)
    try:
        full = content_digest(conn)
        first, second = sorted(stored_work_digests(conn))[:2]
        conn.execute("UPDATE work_digests SET sha256 = ? WHERE work_rowid IN (?, ?)", ("0" * 64, first, second))
        # the works named are digested again from their rows; the others are taken as stored
        assert sealed_digest(conn, [first]) != full
        assert stored_work_digests(conn)[first] != "0" * 64
        assert sealed_digest(conn, [second]) == full
        assert sealed_digest(conn) == full == content_digest(conn)
        conn.execute("DELETE FROM work_digests WHERE work_rowid = ?", (first,))
        assert sealed_digest(conn, []) == full  # a work without a stored digest: every work digested again
        assert first in stored_work_digests(conn)
    finally:
        conn.close()


def test_verify_with_the_builds_digest_takes_it_and_still_checks_the_rest(handmade_dir: Path, tmp_path: Path) -> None:
    path = handmade_dir / "eu-eurlex.sqlite"
    stamp = verify_index(path).stamp
    assert verify_index(path, sealed_digest=stamp["content_digest"]).ok
    wrong = verify_index(path, sealed_digest="0" * 64).problems
    assert any("content digest" in p for p in wrong)
    alone = tmp_path / "alone" / "eu-eurlex.sqlite"  # the build's digest is tied to the file by the stamp file
    alone.parent.mkdir()
    shutil.copy(path, alone)
    assert verify_index(alone).ok
    assert any("stamp.json is missing" in p for p in verify_index(alone, sealed_digest=stamp["content_digest"]).problems)


def test_verify_with_the_builds_digest_still_hashes_every_text(handmade_dir: Path, tmp_path: Path) -> None:
    for name in ("eu-eurlex.sqlite", "eu-eurlex.stamp.json"):
        shutil.copy(handmade_dir / name, tmp_path / name)
    copy = tmp_path / "eu-eurlex.sqlite"
    sealed = verify_index(copy).stamp["content_digest"]
    conn = sqlite3.connect(copy)
    block, start, length = conn.execute("SELECT block_rowid, start, length FROM texts "
                                        "ORDER BY text_sha256 LIMIT 1").fetchone()
    raw = bytearray(zlib.decompress(conn.execute("SELECT body FROM text_blocks WHERE block_rowid = ?",
                                                 (block,)).fetchone()[0]))
    raw[start:start + length] = b"t" * length
    conn.execute("UPDATE text_blocks SET body = ? WHERE block_rowid = ?", (zlib.compress(bytes(raw)), block))
    conn.commit()
    conn.close()
    problems = verify_index(copy, sealed_digest=sealed).problems
    assert any("does not hash" in p for p in problems)  # the text check is independent of the digest
    assert any("names another index file" in p for p in problems)  # and the file is not the one built
