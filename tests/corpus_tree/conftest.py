"""Helpers for the corpus_tree tests: byte snapshots of trees, imported fixture trees."""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from corpus_tree.importer import ImportReport, import_published


def snapshot(root: Path) -> dict[str, str]:
    """Every entry under ``root``: files by SHA-256 of their bytes, directories as ``<dir>``."""
    out: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            out[rel] = "<symlink>"
        elif path.is_dir():
            out[rel] = "<dir>"
        else:
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@pytest.fixture(scope="session")
def imported(tmp_path_factory: pytest.TempPathFactory, lu_fixture: Path,
             eu_fixture: Path) -> tuple[Path, ImportReport, ImportReport]:
    """Both fixture corpora imported into one tree, with the two import reports."""
    root = tmp_path_factory.mktemp("imported") / "tree"
    lu = import_published(lu_fixture, root)
    eu = import_published(eu_fixture, root)
    return root, lu, eu


@pytest.fixture(scope="session")
def imported_tree(imported: tuple[Path, ImportReport, ImportReport]) -> Path:
    """The tree of :func:`imported` (session-wide; never modify it)."""
    return imported[0]


SMALL_EU = ("32016r0679", "32016r0679r(02)", "32022r0827")
SMALL_LU = ("a-1938-01-14-n1", "loi-2000-08-08-n4", "agd-1965-06-25-n1")


def copy_source(fixture: Path, dest: Path, slugs: tuple[str, ...]) -> Path:
    """A published tree holding only ``slugs`` of ``fixture`` (real bytes, copied to ``dest``)."""
    (dest / "works").mkdir(parents=True)
    shutil.copyfile(fixture / "manifest.json", dest / "manifest.json")
    for slug in slugs:
        shutil.copytree(fixture / "works" / slug, dest / "works" / slug)
    return dest


@pytest.fixture(scope="session")
def small_tree(tmp_path_factory: pytest.TempPathFactory, lu_fixture: Path, eu_fixture: Path) -> Path:
    """A few real works of both publishers imported into one tree (session-wide; never modify it)."""
    base = tmp_path_factory.mktemp("small")
    root = base / "tree"
    import_published(copy_source(lu_fixture, base / "lu", SMALL_LU), root, durable=False)
    import_published(copy_source(eu_fixture, base / "eu", SMALL_EU), root, durable=False)
    return root


@pytest.fixture
def tree_copy(small_tree: Path, tmp_path: Path) -> Path:
    """A private copy of :func:`small_tree` that a test may tamper with."""
    dest = tmp_path / "tree"
    shutil.copytree(small_tree, dest, symlinks=True)
    return dest


@pytest.fixture
def full_tree_copy(imported_tree: Path, tmp_path: Path) -> Path:
    """A private copy of :func:`imported_tree` (both whole fixture corpora)."""
    dest = tmp_path / "full-tree"
    shutil.copytree(imported_tree, dest, symlinks=True)
    return dest


@pytest.fixture
def mini_source(tmp_path: Path, eu_fixture: Path) -> Callable[..., Path]:
    """A small published tree built from real EU fixture works (copied into tmp_path)."""

    def build(*slugs: str, fixture: Path | None = None) -> Path:
        return copy_source(fixture or eu_fixture, tmp_path / f"src-{len(list(tmp_path.iterdir()))}", slugs)

    return build
