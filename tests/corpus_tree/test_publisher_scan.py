"""The ingest's read of the tree (issue #13, mem25, ADR 0048): one publisher's versions as
summaries, every other version only as its manifest rows (``ManifestFold``), on real fixture trees."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from corpus_tree import CorpusTree
from corpus_tree.manifest import ManifestFold, build_manifest, manifest_of
from corpus_tree.records import (
    Expression,
    Observation,
    TextStatus,
    VersionSummary,
    pack_expressions,
    summary_of,
    unpack_expressions,
)
from legal.canonical import digest
from legal.errors import LexError
from legal.ids import Publisher

LU, EU = Publisher.LEGILUX, Publisher.EURLEX


def test_fold_rows_digest_as_the_records_json_arrays(tree_copy: Path) -> None:
    """The fold holds its rows as tuples (issue #13, memc26); ``records_digest`` is still the digest
    of ``[lex_work_id, digest]`` and ``[lex_id, record_sha256]`` JSON arrays, read here from the files."""
    tree = CorpusTree.open(tree_copy)
    works = sorted([w.lex_work_id, w.digest()] for w in tree.works())
    rows = []
    for path in sorted(tree_copy.glob("works/*/versions/*/meta.json")):
        record = json.loads(path.read_bytes())
        rows.append([record["lex_id"], record["record_sha256"]])
    fold = ManifestFold()
    for w in tree.works():
        fold.add_work(w)
    for v in tree.iter_versions():
        fold.add_version(v)
    assert rows and manifest_of(fold)["records_digest"] == digest({"works": works, "versions": sorted(rows)})


def test_folds_split_anyhow_give_the_manifest_of_the_whole_tree(tree_copy: Path) -> None:
    """``manifest_of`` several folds (one publisher's versions split across two of them, works in a
    third) is ``build_manifest`` of everything, and the tree's own manifest."""
    tree = CorpusTree.open(tree_copy)
    works, versions = list(tree.works()), list(tree.iter_versions())
    assert {v.publisher for v in versions} == {LU, EU}
    folds = ManifestFold(), ManifestFold(), ManifestFold()
    for i, v in enumerate(versions):
        folds[i % 2].add_version(v)
    for w in works:
        folds[2].add_work(w)
    whole = build_manifest(works, versions)
    assert manifest_of(*folds) == whole == tree.manifest()
    assert manifest_of(folds[2], folds[1], folds[0]) == whole
    held = {o.sha256 for v in versions for e in v.expressions for o in e.observations if not o.held_elsewhere}
    assert whole["counts"]["distinct_bodies_held"] == len(held) > 0  # the union over publishers
    for key in ("works", "versions", "observations", "bodies_held"):
        assert whole["counts"][key] == sum(p["counts"][key] for p in whole["publishers"].values()) > 0
    assert whole["valid_from_earliest"] == min(v.valid_from for v in versions)
    assert whole["valid_from_latest"] == max(v.valid_from for v in versions)


def test_one_publishers_summaries_and_the_others_fold(tree_copy: Path) -> None:
    """``publisher_summaries(P)``: P's summaries (those ``version_summaries`` gives, by lex id, in
    order) and a fold of the other versions; with P's summaries and the works, the tree's manifest."""
    tree = CorpusTree.open(tree_copy)
    records = list(tree.iter_versions())
    works = list(tree.works())
    for publisher in (LU, EU):
        own, others = tree.publisher_summaries(publisher)
        assert list(own.values()) == [summary_of(r) for r in records if r.publisher is publisher]
        assert list(own) == [r.lex_id for r in records if r.publisher is publisher]
        assert set(others.parts) == {p.value for p in (LU, EU) if p is not publisher}
        fold = ManifestFold()
        for s in own.values():
            fold.add_version(s)
        for w in works:
            fold.add_work(w)
        assert manifest_of(others, fold) == tree.manifest()


def test_the_others_fold_is_kept_while_their_files_are_unchanged(tree_copy: Path) -> None:
    """Inside ``caching`` no summary of another publisher's version is kept, and the fold is
    reused by a second call only while every other publisher's file (and each of P's) is the file
    it was: a changed file state of another publisher's record, or a new record, folds again."""
    tree = CorpusTree.open(tree_copy)
    with tree.caching():
        own, others = tree.publisher_summaries(EU)
        assert tree._summaries is not None
        made = tree._summaries.rows()
        assert {p for _, _, p, _ in made.values()} == {EU}  # LU's are folded, not kept
        again, same = tree.publisher_summaries(EU)
        # the summaries spilled once are reused (the same places in the block's spill), not read again
        assert same is others and again == own and list(again.items()) == list(own.items())
        assert tree._summaries.rows() == made  # not summarised again
        lu = next(v for v in tree.iter_versions(verify=False) if v.publisher is LU)
        path = tree.root / str(lu.path)
        st = path.stat()
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1))  # same bytes, another file state
        _, refolded = tree.publisher_summaries(EU)
        assert refolded is not others and manifest_of(refolded) == manifest_of(others)
        assert tree.publisher_summaries(EU)[1] is refolded
        eu = next(iter(own.values()))
        eu_path = tree.root / str(eu.path)
        st = eu_path.stat()
        os.utime(eu_path, ns=(st.st_atime_ns, st.st_mtime_ns + 1))  # one of P's own files
        fresh_own, third = tree.publisher_summaries(EU)
        assert third is not refolded and fresh_own[eu.lex_id] == eu
        assert tree._summaries.rows()[str(eu.path)][3] != made[str(eu.path)][3]  # summarised again


def test_a_record_of_another_publisher_under_a_lex_id_of_this_one_is_refused(tree_copy: Path) -> None:
    tree = CorpusTree.open(tree_copy)
    lu = next(v for v in tree.iter_versions(verify=False) if v.publisher is LU)
    path = tree.root / str(lu.path)
    path.write_bytes(path.read_bytes().replace(b'"publisher": "lu-legilux"', b'"publisher": "eu-eurlex"', 1))
    assert tree.read_version(str(lu.path)).publisher is EU
    with pytest.raises(LexError) as refused:
        tree.publisher_summaries(LU)
    assert refused.value.code == "identity_mismatch" and refused.value.subject == lu.path
    assert all(type(s) is VersionSummary for s in tree.publisher_summaries(EU)[0].values())


def test_packed_expressions_are_the_expressions_field_for_field(full_tree_copy: Path) -> None:
    """A summary's packed expressions unpack to values equal to the record's, field for field, on every
    record of both fixture corpora, and to odd values too (a lone surrogate, no title, a size of 0)."""
    tree = CorpusTree.open(full_tree_copy)
    n = 0
    for record in tree.iter_versions(verify=False):
        summary = summary_of(record)
        assert summary.expressions == record.expressions
        n += sum(len(e.observations) for e in record.expressions)
    assert n > 1000
    odd = (Expression("fr", "2020-01-01", None, "Loi \ud800 «é»", None, None,
                      (Observation("a/b.pdf", "0" * 64, "https://x/é", "2026-01-01T00:00:00Z", "pdf", 0, True, None),
                       Observation("b", "1" * 64, "u", "t", None, None, False, "2026")),
                      TextStatus(False, "held elsewhere", None), "publisher"),
           Expression("de", "2020-01-02", "2021-01-01", None, "kurz", "u", (), TextStatus(True, None, "v"), None))
    back = unpack_expressions(pack_expressions(odd))
    assert back == odd and [type(o.size) for o in back[0].observations] == [int, type(None)]
    assert pack_expressions(odd) == pack_expressions(back)
