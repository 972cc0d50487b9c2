"""The static word table (:mod:`derive.vectors.static`) and its title lane (:mod:`hybrid.static_titles`).

The vocabulary and frequencies come from the real fixture indexes' work titles and headings
(``LEX_FIXTURES``); the words' raw vectors from the deterministic fake encoder (no model).
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest

from derive.index.read import open_readonly
from derive.vectors import static
from derive.vectors.build import work_titles
from hybrid.static_titles import StaticTitleLane
from legal.errors import IndexError_
from tests.hybrid.fakes import FakeEncoder
from tests.index.pipeline import FixtureBuild

EU = "eu-eurlex"


def _titles(build: FixtureBuild) -> list[tuple[int, str, str]]:
    with closing(open_readonly(build.index_dir / f"{EU}.sqlite")) as conn:
        return work_titles(conn)


def _headings(build: FixtureBuild) -> list[str]:
    with closing(sqlite3.connect(f"file:{build.index_dir / f'{EU}.sqlite'}?mode=ro", uri=True)) as conn:
        return sorted({str(h) for (h,) in conn.execute("SELECT DISTINCT heading FROM lexical_states "
                                                       "WHERE heading IS NOT NULL")})


@pytest.fixture(scope="module")
def table(fixture_indexes: FixtureBuild) -> static.StaticTable:
    corpus = [t for _, _, t in _titles(fixture_indexes)] + _headings(fixture_indexes)
    counts = static.frequencies(corpus)
    vocabulary = sorted(counts)
    raw = static.embed_words(FakeEncoder(), vocabulary)
    return static.distil(raw, vocabulary, counts, dims=16)


def test_words_are_lower_cased_letter_runs_of_two_or_more() -> None:
    assert static.words("Règlement (UE) 2016/679 — données à caractère personnel") == [
        "règlement", "ue", "données", "caractère", "personnel"]


def test_the_table_is_deterministic_and_pinned_by_digest(table: static.StaticTable, fixture_indexes: FixtureBuild,
                                                         tmp_path: Path) -> None:
    corpus = [t for _, _, t in _titles(fixture_indexes)] + _headings(fixture_indexes)
    counts = static.frequencies(corpus)
    again = static.distil(static.embed_words(FakeEncoder(), sorted(counts)), sorted(counts), counts, dims=16)
    first = static.save_table(table, tmp_path / "a" / "words")
    second = static.save_table(again, tmp_path / "b" / "words")
    assert first == second  # same inputs, same bytes: the PCA's signs are fixed
    assert (tmp_path / "a" / "words.json").read_bytes() == (tmp_path / "b" / "words.json").read_bytes()
    loaded = static.load_table(tmp_path / "a" / "words", expected_sha256=first)
    assert loaded.vocabulary == table.vocabulary
    assert np.array_equal(loaded.vectors, table.vectors) and np.array_equal(loaded.weights, table.weights)


def test_a_table_whose_bytes_differ_from_its_pin_is_refused(table: static.StaticTable, tmp_path: Path) -> None:
    stem = tmp_path / "words-a1e-3.v2"  # a dot in the name is part of the stem
    digest = static.save_table(table, stem)
    assert (tmp_path / "words-a1e-3.v2.npy").is_file() and (tmp_path / "words-a1e-3.v2.json").is_file()
    with pytest.raises(IndexError_) as wrong_pin:
        static.load_table(stem, expected_sha256="0" * 64)
    assert wrong_pin.value.code == "static_table_mismatch"
    data = bytearray((tmp_path / "words-a1e-3.v2.npy").read_bytes())
    data[-1] ^= 1
    (tmp_path / "words-a1e-3.v2.npy").write_bytes(bytes(data))
    with pytest.raises(IndexError_) as tampered:
        static.load_table(stem)
    assert tampered.value.code == "static_table_mismatch" and f"pinned {digest}" in str(tampered.value)


def test_frequent_words_weigh_less(table: static.StaticTable, fixture_indexes: FixtureBuild) -> None:
    corpus = [t for _, _, t in _titles(fixture_indexes)] + _headings(fixture_indexes)
    counts = static.frequencies(corpus)
    common = max(counts, key=lambda w: (counts[w], w))
    rare = min(counts, key=lambda w: (counts[w], w))
    index = {w: i for i, w in enumerate(table.vocabulary)}
    assert table.weights[index[common]] < table.weights[index[rare]] <= 1.0


def test_an_unknown_word_borrows_the_vector_of_the_word_sharing_its_longest_prefix(table: static.StaticTable) -> None:
    known = next(w for w in table.vocabulary if len(w) >= 8)
    assert table.lookup(known + "xyz") == table.lookup(known)  # an inflected form of a known word
    assert table.lookup(known[:static.PREFIX_MIN - 1] + "qqqqq") is None  # sharing too few letters
    assert table.lookup("zzzzzzzzzz") is None
    assert not table.encode("1234 — zzzzzzzzzz").any()  # no known word: a zero vector, never an error
    vector = table.encode(known)
    assert vector.shape == (16,) and abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5


def test_the_title_lane_finds_a_work_by_its_own_title(table: static.StaticTable, fixture_indexes: FixtureBuild) -> None:
    titles = _titles(fixture_indexes)
    lane = StaticTitleLane(table, titles)
    assert len(lane.work_ids) == len({w for w, _, _ in titles})
    counts: dict[str, int] = {}
    for _, _, title in titles:
        counts[title] = counts.get(title, 0) + 1
    work, _, title = next(t for t in titles if counts[t[2]] == 1 and len(static.words(t[2])) >= 4)
    scores = lane.work_scores(lane.encode(title))
    assert int(lane.work_ids[int(np.argmax(scores))]) == work
    assert not lane.work_scores(lane.encode("zzzzzzzzzz")).any()
