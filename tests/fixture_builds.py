"""Session-wide builds of the real fixture corpora, shared by every test package.

Importing both publisher fixtures into corpus trees and deriving their datasets is the slow
part of many tests; these fixtures do each once per session, under pytest's temporary
directory (the shared fixtures are read in place, never copied into the repository):

- ``imported_trees`` — :class:`ImportedTrees`: ``imported_trees["eu"]`` / ``["lu"]`` is the
  opened :class:`corpus_tree.CorpusTree`; ``imported_trees.paths`` maps ``"eu"``/``"lu"`` to the
  tree roots (one tree per publisher);
- ``fixture_dataset`` — :class:`FixtureDatasets`: ``fixture_dataset["eu"]`` is
  ``(dataset_dir, BuildReport)`` of a from-scratch :func:`derive.dataset.build_dataset` of that
  tree; ``fixture_dataset.paths`` maps ``"eu"``/``"lu"`` to the dataset directories;
- ``known_build`` — :class:`tests.serve_core.known_tree.KnownBuild`: a Legilux tree written by
  the writer on successive days (sighting, withdrawal, resighting, validity revision, later
  language, changed body) and its index, for the ``known_on`` tests;
- ``fixture_indexes`` — :class:`tests.index.pipeline.FixtureBuild`: trees, datasets and the
  indexes of both fixture corpora (:func:`tests.index.pipeline.fixture_build`);
- ``handmade_dir`` — the hand-made indexes of :mod:`tests.index.handmade` (fast, small).

Both are **read-only**: a test that changes a tree or a dataset works on a copy
(:func:`copy_tree`, ``shutil.copytree``). Registered for the whole suite by
``pytest_plugins = ["tests.fixture_builds"]`` in ``tests/conftest.py``.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from corpus_tree import CorpusTree
from derive.dataset import BuildReport
from tests.index.handmade import build_handmade
from tests.index.pipeline import FixtureBuild, fixture_build
from tests.serve_core.known_tree import KnownBuild, build_known_tree

__all__ = ["SOURCES", "FixtureDatasets", "ImportedTrees", "copy_tree", "fixture_dataset", "fixture_indexes",
           "handmade_dir", "imported_trees", "known_build"]

SOURCES: Mapping[str, str] = {"eu": "lex-corpus-eu-eurlex", "lu": "lex-corpus-lu-legilux"}


@dataclass(frozen=True)
class ImportedTrees:
    """Both fixture corpora, each imported into its own tree (never modify them)."""

    root: Path
    paths: Mapping[str, Path]

    def __getitem__(self, name: str) -> CorpusTree:
        return CorpusTree.open(self.paths[name])


@dataclass(frozen=True)
class FixtureDatasets:
    """The dataset of each fixture tree, built once (never modify them)."""

    paths: Mapping[str, Path]
    reports: Mapping[str, BuildReport]

    def __getitem__(self, name: str) -> tuple[Path, BuildReport]:
        return self.paths[name], self.reports[name]


def copy_tree(tree: CorpusTree, dest: Path) -> CorpusTree:
    """A private copy of a fixture tree (records and evidence) that a test may change."""
    shutil.copytree(tree.root, dest, symlinks=True)
    return CorpusTree.open(dest)


@pytest.fixture(scope="session")
def imported_trees(tmp_path_factory: pytest.TempPathFactory, fixtures_dir: Path) -> ImportedTrees:
    from corpus_tree.importer import import_published

    root = tmp_path_factory.mktemp("fixture-trees")
    paths = {}
    for name, folder in SOURCES.items():
        paths[name] = root / name
        import_published(fixtures_dir / folder, paths[name], durable=False)
    return ImportedTrees(root, paths)


@pytest.fixture(scope="session")
def fixture_dataset(tmp_path_factory: pytest.TempPathFactory, imported_trees: ImportedTrees) -> FixtureDatasets:
    from derive.dataset import build_dataset

    root = tmp_path_factory.mktemp("fixture-datasets")
    paths, reports = {}, {}
    for name in SOURCES:
        paths[name] = root / name
        reports[name] = build_dataset(imported_trees[name], paths[name], use_cache=False)
    return FixtureDatasets(paths, reports)


@pytest.fixture(scope="session")
def known_build(tmp_path_factory: pytest.TempPathFactory, fixtures_dir: Path) -> KnownBuild:
    return build_known_tree(fixtures_dir, tmp_path_factory.mktemp("known-on"))


@pytest.fixture(scope="session")
def fixture_indexes(fixtures_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> FixtureBuild:
    return fixture_build(fixtures_dir, tmp_path_factory)


@pytest.fixture(scope="session")
def handmade_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("handmade-index")
    build_handmade(out)
    return out
