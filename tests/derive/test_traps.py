"""The remaining naive-parser traps of corpus.md §6, each on a real fixture."""

from __future__ import annotations

import json

from derive.dispatch import derive_body
from derive.profiles import akn_lu, fmx4_eu
from tests.derive.conftest import read_jsonl


def test_trap_1_interval_conventions_stay_verbatim_per_publisher(lu_dataset, eu_dataset):
    lu = {r["valid_to_convention"] for r in read_jsonl(lu_dataset[0] / "provisions.jsonl")}
    eu = {r["valid_to_convention"] for r in read_jsonl(eu_dataset[0] / "provisions.jsonl")}
    assert lu == {"exclusive"} and eu == {"inclusive"}


def test_trap_2_inverted_publisher_interval_is_kept_verbatim(lu_dataset):
    rows = [r for r in read_jsonl(lu_dataset[0] / "provisions.jsonl") if r["work_id"] == "lu-legilux:loi-1979-12-20-n2"]
    inverted = {(r["valid_from"], r["valid_to"]) for r in rows if r["valid_to"] and r["valid_to"] < r["valid_from"]}
    assert inverted == {("2004-06-12", "2004-06-11")}


def test_trap_3_same_day_twin_is_kept_apart_and_out_of_history(lu_dataset):
    out, _ = lu_dataset
    history = json.loads((out / "history/lu-legilux/loi-2011-04-08-n2.json").read_bytes())
    same_day = [v for v in history["versions"] if v["valid_from"] == "2024-09-10"]
    assert len(same_day) == 1 and same_day[0]["languages"] == ["fr"]  # the withdrawn --02 twin is not history
    gaps = [g for g in read_jsonl(out / "gaps.jsonl")
            if g["work_id"] == "lu-legilux:loi-2011-04-08-n2" and "2024-09-10--" in g["lex_id"]]
    assert gaps and all(g["gap"] in ("text_withheld", "text_not_available") for g in gaps)


def test_trap_9_date_suffixed_reminted_ids_are_kept(lu_body):
    result = akn_lu.extract(lu_body("constitution-1868-10-17-n1/2020-05-19/fr.xml"), language="fr")
    assert any(p.anchor.endswith("_20200519") for p in result.provisions)


def test_trap_9_article_without_id_gets_a_positional_anchor(lu_body):
    body = lu_body("rgd-2001-10-18-n3/2026-02-24/fr.xml").replace(b'<article id="art_2">', b"<article>")
    result = akn_lu.extract(body, language="fr")
    assert [p.anchor for p in result.provisions] == ["art_1er", "article_2"]


def test_trap_11_number_formats_fold_to_plain_text(lu_body, formex_main):
    covid = akn_lu.extract(lu_body("rgd-2020-06-20-a537/2022-06-30/fr.xml"), language="fr")
    assert next(p for p in covid.provisions if p.anchor == "art_2bis").num == "Art. 2bis."  # <i>bis</i>
    fr = fmx4_eu.extract(formex_main("32016r0679", "2016-05-04", "fr"), language="fr")
    assert all("\u00a0" not in (p.num or "") and "\u202f" not in (p.num or "") for p in fr.provisions)
    assert fr.provisions[2].num == "Article 3"


def test_trap_22_crlf_bytes_hash_differently_but_read_the_same(lu_body):
    body = lu_body("a-1938-01-14-n1/1955-06-21/fr.xml")
    assert b"\r\n" in body
    crlf, lf = derive_body(body, language="fr"), derive_body(body.replace(b"\r\n", b"\n"), language="fr")
    assert crlf.evidence_sha256 != lf.evidence_sha256
    assert crlf.fingerprint == lf.fingerprint
