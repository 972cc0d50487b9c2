"""Fixtures for the derive tests: real publisher bodies read by path, imported trees, a dataset.

Bodies are read directly from ``../shared/fixtures`` (never copied). The trees and the dataset
are built once per session under pytest's temporary directory.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from corpus_tree import CorpusTree
from corpus_tree.importer import import_published
from derive.dataset import BuildReport, build_dataset

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
def eu_tree(tmp_path_factory: pytest.TempPathFactory, fixtures_dir: Path) -> CorpusTree:
    root = tmp_path_factory.mktemp("trees") / "eu"
    import_published(fixtures_dir / "lex-corpus-eu-eurlex", root, durable=False)
    return CorpusTree.open(root)


@pytest.fixture(scope="session")
def lu_tree(tmp_path_factory: pytest.TempPathFactory, fixtures_dir: Path) -> CorpusTree:
    root = tmp_path_factory.mktemp("trees") / "lu"
    import_published(fixtures_dir / "lex-corpus-lu-legilux", root, durable=False)
    return CorpusTree.open(root)


@pytest.fixture(scope="session")
def eu_dataset(tmp_path_factory: pytest.TempPathFactory, eu_tree: CorpusTree) -> tuple[Path, BuildReport]:
    out = tmp_path_factory.mktemp("datasets") / "eu"
    return out, build_dataset(eu_tree, out)


@pytest.fixture(scope="session")
def lu_dataset(tmp_path_factory: pytest.TempPathFactory, lu_tree: CorpusTree) -> tuple[Path, BuildReport]:
    out = tmp_path_factory.mktemp("datasets") / "lu"
    return out, build_dataset(lu_tree, out)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines() if line]
