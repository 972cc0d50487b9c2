"""Build real indexes from ``../shared/fixtures``: import → derive dataset → index (once per session).

The shared fixtures are read in place (never copied into the repository). Trees, datasets and
indexes go under pytest's temporary directory.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

BUILT_AT = "2026-08-22T00:00:00Z"
SOURCES = (("eu", "lex-corpus-eu-eurlex"), ("lu", "lex-corpus-lu-legilux"))


@dataclass(frozen=True)
class FixtureBuild:
    root: Path
    trees: dict[str, Path]
    datasets: dict[str, Path]
    index_dir: Path

    def vocabulary(self, publisher: str) -> set[str]:
        """Every term of the built index of ``publisher`` (its ``vocabulary`` table)."""
        import sqlite3

        conn = sqlite3.connect(self.index_dir / f"{publisher}.sqlite")
        try:
            return {str(r[0]) for r in conn.execute("SELECT term FROM vocabulary")}
        finally:
            conn.close()


_CACHE: dict[Path, FixtureBuild] = {}


def build_indexes(trees: dict[str, Path], datasets: dict[str, Path], out: Path) -> None:
    from corpus_tree import CorpusTree
    from derive.index.build import build_from_paths
    from legal.ids import Publisher

    for name, publisher in (("eu", Publisher.EURLEX), ("lu", Publisher.LEGILUX)):
        build_from_paths(publisher, CorpusTree.open(trees[name]), datasets[name], out, built_at=BUILT_AT)


def fixture_build(fixtures_dir: Path, factory: pytest.TempPathFactory) -> FixtureBuild:
    """The session's fixture indexes (built on first use)."""
    if fixtures_dir in _CACHE:
        return _CACHE[fixtures_dir]
    from corpus_tree import CorpusTree, importer
    from derive import dataset

    root = factory.mktemp("fixture-index")
    trees, datasets = {}, {}
    for name, folder in SOURCES:
        trees[name] = root / f"tree-{name}"
        importer.import_published(fixtures_dir / folder, trees[name], durable=False)
        datasets[name] = root / f"dataset-{name}"
        dataset.build_dataset(CorpusTree.open(trees[name]), datasets[name])
    build_indexes(trees, datasets, root / "index")
    _CACHE[fixtures_dir] = FixtureBuild(root, trees, datasets, root / "index")
    return _CACHE[fixtures_dir]
