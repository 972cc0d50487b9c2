"""The word diff answers the same whichever ``SequenceMatcher`` runs it (``cydifflib`` or ``difflib``).

``derive.index.worddiff`` uses the compiled port when it is installed; these tests compare it with the
standard library on every pair of successive wordings of the fixture indexes (the pairs the index
precomputes), on every pair of wordings of one anchor, and on generated repetitive texts.
"""

from __future__ import annotations

import difflib
import random
import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.index import worddiff
from derive.index.read import open_readonly
from derive.index.textstore import read_text
from derive.index.worddiff import common_ends
from tests.index.pipeline import FixtureBuild

cydifflib = pytest.importorskip("cydifflib")


def _with(engine: Any, before: str, after: str) -> tuple[list[dict[str, Any]], tuple[worddiff.Segment, ...]]:
    saved = worddiff.SequenceMatcher
    worddiff.SequenceMatcher = engine
    try:
        return worddiff.word_changes(before, after), worddiff.word_segments(before, after)
    finally:
        worddiff.SequenceMatcher = saved


def _pairs(conn: sqlite3.Connection) -> Iterator[tuple[str, str]]:
    """Every two different wordings one anchor of one work and language has had (both orders)."""
    rows = conn.execute(
        "SELECT DISTINCT a.text_sha256, b.text_sha256 FROM provisions a "
        "JOIN expressions ea ON ea.expression_rowid = a.expression_rowid "
        "JOIN versions va ON va.version_rowid = ea.version_rowid "
        "JOIN provisions b ON b.anchor = a.anchor AND b.text_sha256 != a.text_sha256 "
        "JOIN expressions eb ON eb.expression_rowid = b.expression_rowid AND eb.language = ea.language "
        "JOIN versions vb ON vb.version_rowid = eb.version_rowid AND vb.work_rowid = va.work_rowid "
        "ORDER BY 1, 2").fetchall()
    texts: dict[str, str] = {}
    for before, after in rows:
        for sha in (before, after):
            if sha not in texts:
                texts[sha] = read_text(conn, sha)
        yield texts[before], texts[after]


def test_both_engines_agree_on_every_pair_of_wordings_of_the_fixtures(fixture_indexes: FixtureBuild) -> None:
    assert worddiff.SequenceMatcher is cydifflib.SequenceMatcher  # installed: the index and the core use it
    compared = 0
    for path in sorted(fixture_indexes.index_dir.glob("*.sqlite")):
        conn = open_readonly(path)
        try:
            for before, after in _pairs(conn):
                cost = worddiff.diff_cost(before, after)
                if cost.words > 20_000 or cost.pairs > 2_000_000:  # the pure-Python side would take seconds
                    continue
                assert _with(cydifflib.SequenceMatcher, before, after) == _with(difflib.SequenceMatcher, before, after)
                compared += 1
        finally:
            conn.close()
    assert compared > 100


repetitive = st.lists(st.sampled_from(["1", "2", "0,5", "EUR", "|", "a)", "b)", "le", "la", "\n", "taux"]),
                      max_size=120).map(" ".join)


@given(before=repetitive, after=repetitive)
@settings(max_examples=300, deadline=None)
def test_both_engines_agree_on_repetitive_texts(before: str, after: str) -> None:
    assert _with(cydifflib.SequenceMatcher, before, after) == _with(difflib.SequenceMatcher, before, after)


def _word_by_word(a: list[str], b: list[str]) -> tuple[int, int]:
    prefix, limit = 0, min(len(a), len(b))
    while prefix < limit and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and a[-1 - suffix] == b[-1 - suffix]:
        suffix += 1
    return prefix, suffix


def test_common_ends_compared_in_runs_are_those_word_by_word() -> None:
    rng = random.Random(14)
    for _ in range(3_000):
        a = [rng.choice("abc") for _ in range(rng.randrange(0, 160))]
        b = list(a)
        for _ in range(rng.randrange(0, 4)):
            i = rng.randrange(0, len(b) + 1)
            edit = rng.randrange(3)
            if edit == 0:
                b.insert(i, rng.choice("abcd"))
            elif b:
                if edit == 1:
                    del b[min(i, len(b) - 1)]
                else:
                    b[min(i, len(b) - 1)] = rng.choice("abcd")
        assert common_ends(a, b) == _word_by_word(a, b) == common_ends(tuple(a), tuple(b))
        assert common_ends(b, a) == _word_by_word(b, a)


def test_word_count_is_the_number_of_split_words_for_every_code_point() -> None:
    """``word_count`` (counted in mapped bytes where it can) equals ``len(text.split())``: every code
    point (lone surrogates too) at both ends of an ASCII word, and between two non-ASCII ones."""
    for code in range(0x110000):
        c = chr(code)
        for text in (f"{c}a{c}", f"é{c}\U0001f600"):  # the ASCII path and the other
            assert worddiff.word_count(text) == len(text.split()), (hex(code), text)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(list(" \t\n\x0b\x0c\r\x1c\x1f\x85\xa0\u2000\u2028\u3000ab\u00e9\u2019\ud800"
                                          "\U0001f600")), max_size=40))
def test_word_count_equals_split_on_mixed_texts(text: str) -> None:
    assert worddiff.word_count(text) == len(text.split())
    if "\ud800" not in text:  # the caller's UTF-8 bytes (a text store's) count the same
        assert worddiff.word_count(text, text.encode("utf-8")) == len(text.split())


def _reference_bounded(a: list[str], b: list[str], max_words: int, max_pairs: int) -> list[worddiff.Opcode] | None:
    """The bound as first written: the middle words counted on every pair."""
    ends = common_ends(a, b)
    cost = worddiff.diff_cost_of(a, b, ends)
    if cost.words > max_words or cost.pairs > max_pairs:
        return None
    return worddiff.opcodes_of(a, b, ends)


def test_bounded_opcodes_refuses_and_answers_as_counting_every_pair() -> None:
    """The product of the middles' lengths is tried before the words are counted: the same pairs are
    refused and the same opcodes given, on budgets around each pair's cost."""
    rng = random.Random(13)
    for _ in range(600):
        vocabulary = [f"w{i}" for i in range(rng.randint(1, 8))]
        a = [rng.choice(vocabulary) for _ in range(rng.randint(0, 30))]
        b = list(a)
        for _ in range(rng.randint(0, 6)):
            at = rng.randint(0, len(b))
            b[at:at + rng.randint(0, 3)] = [rng.choice(vocabulary) for _ in range(rng.randint(0, 3))]
        cost = worddiff.diff_cost_of(a, b)
        prefix, suffix = common_ends(a, b)
        product = (len(a) - prefix - suffix) * (len(b) - prefix - suffix)
        for max_words in (cost.words - 1, cost.words, 10_000):
            for max_pairs in {0, cost.pairs - 1, cost.pairs, cost.pairs + 1, product - 1, product, 10_000}:
                assert worddiff.bounded_opcodes(a, b, max_words, max_pairs) == \
                    _reference_bounded(a, b, max_words, max_pairs)
