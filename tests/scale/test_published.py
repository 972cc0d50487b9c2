"""Replication of a published corpus directory in its own layout (bench/scale/published.py).

Real fixture works (the subset of test_replicate.py), N = 3: the replicated directory imports (every
record's ``record_sha256`` verifies with the published recipe, every directory is its version's key),
into the works and versions the tree replicator makes of the same works, and the XML bodies of
replicas 1 and 2 are new bodies in the evidence store.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bench.scale.published import replicate_published
from bench.scale.replicate import slug_of
from corpus_tree import CorpusTree
from corpus_tree.importer import import_published
from legal.ids import Publisher

from .test_replicate import EU_WORKS, LU_WORKS

CASES = [(Publisher.LEGILUX, "lex-corpus-lu-legilux", LU_WORKS), (Publisher.EURLEX, "lex-corpus-eu-eurlex", EU_WORKS)]


def _subset(fixtures_dir: Path, corpus: str, works: list[str], dest: Path) -> Path:
    dest.mkdir(parents=True)
    shutil.copyfile(fixtures_dir / corpus / "manifest.json", dest / "manifest.json")
    for slug in works:
        shutil.copytree(fixtures_dir / corpus / "works" / slug, dest / "works" / slug)
    return dest


@pytest.mark.parametrize(("publisher", "corpus", "works"), CASES, ids=["lu", "eu"])
def test_a_replicated_published_corpus_imports_as_n_renamed_copies(
        fixtures_dir: Path, tmp_path: Path, publisher: Publisher, corpus: str, works: list[str]) -> None:
    src = _subset(fixtures_dir, corpus, works, tmp_path / "src")
    one = import_published(src, tmp_path / "one", durable=False)
    counts = replicate_published(src, tmp_path / "three", 3)
    three = import_published(tmp_path / "three", tmp_path / "tree", durable=False)
    assert (three.works, three.records_verified) == (3 * one.works, 3 * one.records_verified)
    assert counts["works"] == three.works and counts["versions"] == three.records_verified
    tree = CorpusTree.open(tmp_path / "tree")
    slugs = {w.slug for w in tree.works()}
    assert len(slugs) == 3 * len(works) and set(works) <= slugs
    for work in tree.works():
        assert work.slug == slug_of(publisher, work.work_identifier)
    # replicas 1 and 2 hold their own XML bodies (base bytes + marker), PDFs are shared
    assert one.bodies_added < three.bodies_added <= one.bodies_added + counts["bodies_written"]
    assert three.bodies_held_elsewhere == 3 * one.bodies_held_elsewhere
    again = import_published(tmp_path / "three", tmp_path / "tree", durable=False)
    assert again.records_written == 0 and again.records_unchanged == three.records_verified
