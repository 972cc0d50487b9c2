"""The per-article dataset built from real corpus trees (docs/contracts.md §2)."""

from __future__ import annotations

import json

import pyarrow.parquet as pq

from derive.parquet import VALIDITY_COLUMNS, plain_batch
from derive.rows import COLUMNS
from legal.canonical import canonical_bytes
from tests.derive.conftest import read_jsonl

GDPR_CONSOLIDATED = "eu-eurlex:32016r0679:2016-05-04--af3e8edcc8aeb9b8c10e891880377cb0b363a8fa7005a1b45557d21afa592de5"


def test_clean_runs_report_no_errors(eu_dataset, lu_dataset):
    for out, report in (eu_dataset, lu_dataset):
        assert report.errors == []
        assert (out / "errors.jsonl").read_bytes() == b""
        assert json.loads((out / "summary.json").read_bytes())["errors"] == 0


def test_rows_have_exactly_the_contract_columns_and_canonical_lines(eu_dataset):
    out, _ = eu_dataset
    lines = (out / "provisions.jsonl").read_bytes().splitlines()
    rows = [json.loads(line) for line in lines]
    assert all(tuple(sorted(r)) == tuple(sorted(COLUMNS)) for r in rows)
    assert all(canonical_bytes(r) == line for r, line in zip(rows, lines, strict=True))
    keys = [(r["work_id"], r["version_key"], r["language"], r["span"]["start"]) for r in rows]
    assert keys == sorted(keys)


def test_gdpr_2016_05_04_en_and_fr_rows(eu_dataset, golden):
    out, _ = eu_dataset
    rows = [r for r in read_jsonl(out / "provisions.jsonl") if r["lex_id"] == GDPR_CONSOLIDATED]
    expected = golden("gdpr-art_6-2016-05-04.json")
    for lang in ("en", "fr"):
        mine = [r for r in rows if r["language"] == lang]
        assert [r["anchor"] for r in mine] == [f"art_{n}" for n in range(1, 100)]
        art6 = next(r for r in mine if r["anchor"] == "art_6")
        assert art6["provision_id"] == f"{GDPR_CONSOLIDATED}#art_6"
        assert art6["text_sha256"] == expected[lang]["text_sha256"]
        assert art6["profile"] == "xhtml-eu/4"  # the original has a primary body without Formex (§6.2)
        assert art6["evidence_file"] == f"{lang}.html"
        assert art6["valid_to_convention"] == "inclusive" and art6["valid_to"] is None
        assert art6["record_sha256"] and art6["evidence_sha256"]


def test_parquet_matches_jsonl_and_has_no_timestamps(eu_dataset):
    out, _ = eu_dataset
    table = pq.read_table(out / "provisions.parquet")
    assert [c for c in table.column_names if c not in VALIDITY_COLUMNS] == list(COLUMNS)
    assert plain_batch(table) == read_jsonl(out / "provisions.jsonl")
    meta = pq.read_metadata(out / "provisions.parquet")
    keys = set(meta.metadata or {})
    assert all(k == b"ARROW:schema" or k.startswith(b"lex:") for k in keys)  # no pandas block, no writer clock
    assert str(meta.created_by).startswith("parquet-cpp-arrow")


def test_crr_formex_versions_and_article_92_states(eu_dataset, reference):
    out, _ = eu_dataset
    history = json.loads((out / "history/eu-eurlex/32013r0575.json").read_bytes())
    states = history["anchors_by_language"]["en"]["art_92"]
    assert history["profiles"] == ["fmx4-eu/4"]
    assert [(s["valid_from"], s["text_sha256"][:8]) for s in states] == [
        ("2013-06-28", "e83414e2"), ("2019-12-25", "e83414e2"), ("2021-06-29", "750e3bdb")]
    # versions without bytes in this store break runs: 2013-06-28 ends the day before 2015-01-18
    assert states[0]["valid_to"] == "2015-01-17"
    # the reference's 2019-12-25 and 2020-06-27 boundaries are rendering/profile artefacts: the publisher's
    # Formex wording of Article 92 is identical in 2013-06-28, 2019-12-25 and 2020-06-27; the CRR2 change
    # (leverage ratio, 32019R0876) at 2021-06-29 is a boundary in both.
    excerpt = reference("excerpts/32013r0575-art_92-history.json")
    boundaries = {s["valid_from"] for s in excerpt["states"]}
    assert "2021-06-29" in boundaries and "2019-12-25" in boundaries and "2020-06-27" in boundaries
    rows = [r for r in read_jsonl(out / "provisions.jsonl")
            if r["work_id"] == "eu-eurlex:32013r0575" and r["anchor"] == "art_92"]
    assert sorted(r["valid_from"] for r in rows) == ["2013-06-28", "2019-12-25", "2020-06-27", "2021-06-29"]
    on_2020_03_01 = next(r for r in rows if r["valid_from"] == "2019-12-25")
    assert "4,5 %" in on_2020_03_01["text_md"] and "8 %" in on_2020_03_01["text_md"]


def test_constitution_2023_three_languages(lu_dataset):
    out, _ = lu_dataset
    rows = [r for r in read_jsonl(out / "provisions.jsonl")
            if r["work_id"] == "lu-legilux:constitution-1868-10-17-n1" and r["valid_from"] == "2023-07-01"]
    firsts = {lang: next(r["anchor"] for r in rows if r["language"] == lang) for lang in ("fr", "de", "lb")}
    assert firsts == {"fr": "art_1er", "de": "art_1", "lb": "art_1"}
    assert all(r["valid_to_convention"] == "exclusive" for r in rows)
    fr = next(r for r in rows if r["anchor"] == "art_1er")
    assert fr["article_valid_from"] == "2023-07-01" and fr["profile"] == "akn-lu/3"


def _gaps(out):
    return read_jsonl(out / "gaps.jsonl")


def test_gap_text_not_available_carries_the_publisher_reason(lu_dataset):
    out, report = lu_dataset
    gaps = _gaps(out)
    fetched = [g for g in gaps if g["work_id"] == "lu-legilux:agc-2024-09-04-b3521"]
    assert fetched and fetched[0]["gap"] == "text_not_available" and fetched[0]["reason"] == "not-fetched"
    assert report.gaps["text_withheld"] > 0
    assert all(g["reason"].startswith("publisher text gate pending") for g in gaps if g["gap"] == "text_withheld")


def test_gap_for_bodies_held_elsewhere(lu_dataset):
    out, _ = lu_dataset
    held = [g for g in _gaps(out) if "held elsewhere" in g["reason"]]
    assert held and all(g["gap"] == "text_not_available" for g in held)


def test_gap_unsupported_manifestation_names_the_evidence(eu_dataset, lu_dataset):
    eu_gaps = [g for g in _gaps(eu_dataset[0]) if g["gap"] == "unsupported_manifestation"]
    lu_gaps = [g for g in _gaps(lu_dataset[0]) if g["gap"] == "unsupported_manifestation"]
    assert {g["work_id"] for g in eu_gaps} == {"eu-eurlex:12010e113"}
    assert any("Mémorial" in g["reason"] for g in lu_gaps)
    assert all(len(g["evidence_sha256"]) == 64 for g in eu_gaps + lu_gaps)


def test_versions_without_any_expression_are_gaps(eu_dataset):
    gaps = [g for g in _gaps(eu_dataset[0]) if g["language"] is None]
    assert {g["work_id"] for g in gaps} >= {"eu-eurlex:32015l2302", "eu-eurlex:32004r0139"}


def test_empty_provisions_are_kept_and_counted(lu_dataset):
    out, report = lu_dataset
    rows = read_jsonl(out / "provisions.jsonl")
    empty = [r for r in rows if not r["text_md"].strip()]
    assert len(empty) == report.empty_provisions > 0
    assert all(r["text_sha256"] == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" for r in empty)


def test_citations_resolved_in_rows(lu_dataset):
    rows = read_jsonl(lu_dataset[0] / "provisions.jsonl")
    cites = [c for r in rows for c in r["citations"]]
    assert any(c["target_work"] == "lu-legilux:conv-1993-12-13-n7" for c in cites)
    assert any(c["target_work"] is None for c in cites)
