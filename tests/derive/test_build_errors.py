"""Per-version errors: typed, naming the evidence hash; nothing written for that version."""

from __future__ import annotations

import datetime as _dt

from corpus_tree import (
    CorpusTree,
    Enumeration,
    ExpressionInput,
    ObservationInput,
    VersionInput,
    WorkInput,
)
from corpus_tree.writer import apply_enumeration
from derive.dataset import build_dataset
from legal.canonical import sha256_hex
from legal.ids import Publisher
from tests.derive.conftest import read_jsonl

NOW = _dt.datetime(2026, 11, 30, tzinfo=_dt.UTC)
BASE = "http://data.legilux.public.lu/eli/etat/leg/rgd/2001/10/18/n3"


def small_tree(tmp_path, bodies: dict[str, bytes]) -> CorpusTree:
    """A one-work Legilux tree with one ``fr.xml`` body per date (written by the corpus writer)."""
    tree = CorpusTree.create(tmp_path / "tree")
    versions = []
    for date, body in sorted(bodies.items()):
        obs = ObservationInput(file="fr.xml", sha256=sha256_hex(body), source_uri=f"{BASE}/consolide/{date}/fr",
                               retrieved_at=NOW)
        versions.append(VersionInput(
            slug="rgd-2001-10-18-n3", publisher_version_identifier=f"{BASE}/consolide/{date.replace('-', '')}",
            work_identifier=BASE, valid_from=_dt.date.fromisoformat(date),
            expressions=(ExpressionInput(language="fr", observations=(obs,)),)))
    work = WorkInput(slug="rgd-2001-10-18-n3", work_identifier=BASE)
    enum = Enumeration(publisher=Publisher.LEGILUX, complete=True, works=(work,), versions=tuple(versions))
    apply_enumeration(tree, enum, {sha256_hex(b): b for b in bodies.values()}, NOW, durable=False)
    return tree


def test_malformed_body_is_reported_and_the_rest_continues(tmp_path, lu_body):
    good = lu_body("rgd-2001-10-18-n3/2026-02-24/fr.xml")
    bad = good[: len(good) // 3]
    tree = small_tree(tmp_path, {"2025-02-22": bad, "2026-02-24": good})
    report = build_dataset(tree, tmp_path / "out")
    (error,) = report.errors
    assert error["code"] == "malformed_xml" and error["family"] == "derivation"
    assert error["evidence_sha256"] == sha256_hex(bad) and error["subject"] == sha256_hex(bad)
    rows = read_jsonl(tmp_path / "out" / "provisions.jsonl")
    assert rows and {r["valid_from"] for r in rows} == {"2026-02-24"}  # nothing for the refused version
    assert read_jsonl(tmp_path / "out" / "errors.jsonl") == [error]
    gaps = read_jsonl(tmp_path / "out" / "gaps.jsonl")
    assert all(g["lex_id"] != error["lex_id"] for g in gaps)
