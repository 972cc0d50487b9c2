"""Issue #15, forty-fifth session (terms45): the act terms' loader (``derive.index.actterms``).

The reviewed act terms are package data, one JSON object a line; the loader refuses a malformed line with
``act_terms_invalid`` naming the file and the line, keeps terms normalised, drops those the rules drop, adds up
two lines of one work, and reads an absent or empty directory as no terms. Pure checks on a small directory
made here (never the packaged data).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from derive.index import actterms
from derive.index.rows import act_term_rows
from legal.errors import IndexError_
from tests.index.pipeline import FixtureBuild


def _write(directory: Path, name: str, lines: list[object]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_text("\n".join(x if isinstance(x, str) else json.dumps(x, ensure_ascii=False)
                                            for x in lines) + "\n", encoding="utf-8")


def test_terms_are_read_normalised_and_two_lines_of_one_work_add_up(tmp_path: Path) -> None:
    _write(tmp_path, "lu1.jsonl", [
        {"work": "lu-legilux:loi-2015-12-03-n1", "fr": ["Œuvre orpheline", "auteur introuvable"], "en": ["orphan work"]},
        {"work": "eu-eurlex:32019l0790", "skip": "amending only"},
    ])
    _write(tmp_path, "lu2.jsonl", [
        "",
        {"work": "lu-legilux:loi-2015-12-03-n1", "de": ["verwaiste Werke"], "fr": ["auteur introuvable"], "it": ["x"]},
    ])
    terms = actterms.load(tmp_path)
    assert terms.files == 2 and terms.skipped == 1 and terms.dropped == 0
    assert terms.of("lu-legilux:loi-2015-12-03-n1") == (
        ("fr", "œuvre orpheline"), ("fr", "auteur introuvable"), ("en", "orphan work"), ("de", "verwaiste werke"))
    assert terms.of("eu-eurlex:32019l0790") == ()  # skipped: no terms
    assert actterms.work_terms(terms, "lu-legilux", "loi-2015-12-03-n1")[0] == ("fr", "œuvre orpheline")
    assert terms.not_held("lu-legilux", ["loi-2015-12-03-n1"]) == 0
    assert terms.not_held("lu-legilux", ["loi-1999-01-01-n1"]) == 1


def test_a_term_the_rules_drop_is_counted(tmp_path: Path) -> None:
    _write(tmp_path, "a.jsonl", [{"work": "lu-legilux:a", "fr": ["!!", "un deux trois quatre cinq six sept", "bail"]}])
    terms = actterms.load(tmp_path)
    assert terms.of("lu-legilux:a") == (("fr", "bail"),)
    assert terms.dropped == 2


@pytest.mark.parametrize(("line", "why"), [
    ("{not json", "not JSON"),
    ("[1, 2]", "not a JSON object"),
    (json.dumps({"fr": ["bail"]}), "work must be publisher:slug"),
    (json.dumps({"work": "loi-2015", "fr": ["bail"]}), "work must be publisher:slug"),
    (json.dumps({"work": "lu-legilux:a", "fr": "bail"}), "fr must be a list of strings"),
    (json.dumps({"work": "lu-legilux:a", "en": ["lease", 3]}), "en must be a list of strings"),
])
def test_a_malformed_line_is_refused_naming_file_and_line(tmp_path: Path, line: str, why: str) -> None:
    _write(tmp_path, "eu2.jsonl", [{"work": "eu-eurlex:a", "en": ["lease"]}, line])
    with pytest.raises(IndexError_) as raised:
        actterms.load(tmp_path)
    assert raised.value.code == "act_terms_invalid"
    assert raised.value.subject == "eu2.jsonl:2"
    assert why in raised.value.message


def test_no_directory_or_no_file_means_no_terms(tmp_path: Path) -> None:
    assert actterms.load(tmp_path / "absent").by_work == {}
    (tmp_path / "README.md").write_text("no data\n")
    empty = actterms.load(tmp_path)
    assert empty.by_work == {} and empty.digest == actterms.EMPTY.digest


def test_a_changed_file_changes_the_digest(tmp_path: Path) -> None:
    _write(tmp_path, "a.jsonl", [{"work": "lu-legilux:a", "fr": ["bail"]}])
    before = actterms.load(tmp_path).digest
    _write(tmp_path, "a.jsonl", [{"work": "lu-legilux:a", "fr": ["bail", "loyer"]}])
    assert actterms.load(tmp_path).digest != before


def test_the_build_rows_of_a_work_are_metadata_rows_of_kind_act_term(tmp_path: Path) -> None:
    _write(tmp_path, "a.jsonl", [{"work": "lu-legilux:a", "fr": ["bail à loyer"], "en": ["lease"]}])
    terms = actterms.load(tmp_path)
    rows = act_term_rows(terms, "lu-legilux", "a", 2)
    assert [(r.kind, r.identifier, r.label, r.language, r.normalized, r.first_valid_from) for r in rows] == [
        ("act_term", "", "bail a loyer", "fr", "", ""), ("act_term", "", "lease", "en", "", "")]
    assert act_term_rows(terms, "lu-legilux", "a", 0) == []  # no live version: no rows
    assert act_term_rows(terms, "lu-legilux", "b", 1) == []


def test_act_terms_are_left_out_of_work_fts_whichever_rows_are_passed() -> None:
    # an incremental build deletes a work's contentless work_fts entry with the values its rows give, act
    # terms included; the inserted entry never held them, so the labels column must leave them out both times
    # (else FTS5's delete breaks the index: "database disk image is malformed")
    from derive.index.catalogue import MetadataRow, fts_columns

    eurovoc = MetadataRow("eurovoc", "c_1", "consumer protection", "en", "consumer protection", None, "", "")
    terms = act_term_rows(actterms.parse([("t.jsonl", json.dumps(
        {"work": "eu-eurlex:32019l0771", "en": ["faulty goods", "refund"]}))]), "eu-eurlex", "32019l0771", 1)
    assert terms and all(t.kind == actterms.KIND for t in terms)
    assert fts_columns([], [eurovoc, *terms]) == fts_columns([], [eurovoc])

def test_an_incremental_build_over_act_terms_gives_the_full_build_content(fixture_indexes: FixtureBuild,
                                                                         tmp_path: Path) -> None:
    # an incremental build deletes each changed work's rows, its work_fts row with the values it was inserted
    # with: the act terms are in work_metadata but never in work_fts (FTS5 refused a delete that named them:
    # "database disk image is malformed")
    from corpus_tree import CorpusTree
    from derive.index.build import build_from_paths
    from derive.index.verify import verify_index
    from legal.ids import Publisher
    from tests.index.pipeline import BUILT_AT

    def build(terms: Path, out: Path, previous: Path | None = None) -> Any:
        token = actterms.DIRECTORY.set(terms)
        try:
            return build_from_paths(Publisher.LEGILUX, CorpusTree.open(fixture_indexes.trees["lu"]),
                                    fixture_indexes.datasets["lu"], out, built_at=BUILT_AT, previous=previous)
        finally:
            actterms.DIRECTORY.reset(token)

    _write(tmp_path / "t1", "a.jsonl", [{"work": "lu-legilux:loi-2011-04-08-n2", "en": ["consumer code"]}])
    _write(tmp_path / "t2", "a.jsonl", [{"work": "lu-legilux:loi-2011-04-08-n2", "en": ["consumer code", "refund"]},
                                        {"work": "lu-legilux:loi-2009-02-06-n3", "de": ["Schulpflicht"]}])
    build(tmp_path / "t1", tmp_path / "first")
    incremental = build(tmp_path / "t2", tmp_path / "first", previous=tmp_path / "first")
    full = build(tmp_path / "t2", tmp_path / "full")
    assert incremental.metrics["mode"] == "incremental"
    assert incremental.metrics["act_terms_works"] == 2
    assert incremental.stamp == full.stamp  # the same content digest
    assert verify_index(incremental.index_path).ok
    conn = sqlite3.connect(incremental.index_path)
    try:
        assert conn.execute("SELECT label FROM work_metadata WHERE kind = 'act_term' ORDER BY label").fetchall() == [
            ("consumer code",), ("refund",), ("schulpflicht",)]
    finally:
        conn.close()
