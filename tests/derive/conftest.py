"""Fixtures for the derive tests: real publisher bodies read by path, imported trees, a dataset.

Bodies are read directly from ``../shared/fixtures`` (never copied). The trees and the datasets
are the session-wide ones of :mod:`tests.fixture_builds` (imported and built once per session).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from corpus_tree import CorpusTree
from derive.dataset import BuildReport
from tests.fixture_builds import FixtureDatasets, ImportedTrees

_ROOT = sys.modules.get("tests.conftest")
if not (hasattr(_ROOT, "imported_trees") or "tests.fixture_builds" in getattr(_ROOT, "pytest_plugins", ())):
    # Until tests/conftest.py registers tests.fixture_builds for the whole suite, its session
    # fixtures are registered here (only then: a second registration would build them twice).
    from tests.fixture_builds import fixture_dataset, imported_trees  # noqa: F401

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "derive"


def _one(paths: list[Path], pattern: str) -> Path:
    if len(paths) != 1:
        raise AssertionError(f"{pattern!r} matched {len(paths)} fixture files")
    return paths[0]


@pytest.fixture(scope="session")
def lu_body(fixtures_dir: Path) -> Callable[[str], bytes]:
    """Bytes of a Legilux fixture body, e.g. ``lu_body("constitution-1868-10-17-n1/2023-07-01/fr.xml")``."""
    def read(rel: str) -> bytes:
        slug, version, name = rel.split("/", 2)
        base = fixtures_dir / "lex-corpus-lu-legilux" / "works" / slug / "versions"
        return _one(sorted(base.glob(f"{version}/{name}")), rel).read_bytes()
    return read


@pytest.fixture(scope="session")
def eu_body(fixtures_dir: Path) -> Callable[[str], bytes]:
    """Bytes of an EUR-Lex fixture body; the version is a date prefix of the v4 key."""
    def read(rel: str) -> bytes:
        slug, version, name = rel.split("/", 2)
        base = fixtures_dir / "lex-corpus-eu-eurlex" / "works" / slug / "versions"
        return _one(sorted(base.glob(f"{version}--*/{name}")), rel).read_bytes()
    return read


@pytest.fixture(scope="session")
def formex_main(fixtures_dir: Path) -> Callable[[str, str, str], bytes]:
    """The Formex main member of ``<slug>/<date>/<lang>``."""
    def read(slug: str, date: str, lang: str) -> bytes:
        base = fixtures_dir / "lex-corpus-eu-eurlex" / "works" / slug / "versions"
        members = [p for p in base.glob(f"{date}--*/{lang}.fmx4/*.xml") if not p.name.endswith(".doc.xml")]
        return _one(members, f"{slug}/{date}/{lang}.fmx4").read_bytes()
    return read


@pytest.fixture(scope="session")
def reference(fixtures_dir: Path) -> Callable[[str], Any]:
    """A JSON file of the reference's derived records (``lex-articles/<rel>``)."""
    def read(rel: str) -> Any:
        return json.loads((fixtures_dir / "lex-articles" / rel).read_bytes())
    return read


@pytest.fixture(scope="session")
def golden() -> Callable[[str], Any]:
    def read(name: str) -> Any:
        return json.loads((GOLDEN / name).read_bytes())
    return read


@pytest.fixture(scope="session")
def eu_tree(imported_trees: ImportedTrees) -> CorpusTree:
    return imported_trees["eu"]


@pytest.fixture(scope="session")
def lu_tree(imported_trees: ImportedTrees) -> CorpusTree:
    return imported_trees["lu"]


@pytest.fixture(scope="session")
def eu_dataset(fixture_dataset: FixtureDatasets) -> tuple[Path, BuildReport]:
    return fixture_dataset["eu"]


@pytest.fixture(scope="session")
def lu_dataset(fixture_dataset: FixtureDatasets) -> tuple[Path, BuildReport]:
    return fixture_dataset["lu"]


@pytest.fixture(scope="session")
def transaction_tree(imported_trees: ImportedTrees, tmp_path_factory: pytest.TempPathFactory) -> CorpusTree:
    """A tree whose version of 2019-03-14 of Regulation 2019/401 was withdrawn and resighted
    (:mod:`tests.derive.transaction_tree`; read-only)."""
    from tests.derive.transaction_tree import build_transaction_tree

    return build_transaction_tree(imported_trees["eu"], tmp_path_factory.mktemp("transaction") / "tree")


@pytest.fixture(scope="session")
def transaction_dataset(transaction_tree: CorpusTree, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The dataset of :func:`transaction_tree` (read-only)."""
    from derive.dataset import build_dataset

    out = tmp_path_factory.mktemp("transaction-dataset") / "eu-eurlex"
    build_dataset(transaction_tree, out, use_cache=False)
    return out


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines() if line]
