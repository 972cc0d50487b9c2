"""Shared test fixtures: paths to the real publisher fixtures (used by path, never copied), and the
Hypothesis profile every property test runs under."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

pytest_plugins = ["tests.fixture_builds"]

ROOT = Path(__file__).resolve().parents[1]
SHARED_FIXTURES = Path(os.environ.get("LEX_FIXTURES", ROOT.parent / "shared" / "fixtures")).resolve()


def pytest_configure(config: pytest.Config) -> None:
    """Property tests judge results, never time: Hypothesis' per-example deadline (200 ms by
    default) is off, so a loaded host cannot fail a correct example (a timed test in disguise)."""
    settings.register_profile("lex", deadline=None)
    settings.load_profile("lex")


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    if not SHARED_FIXTURES.is_dir():
        pytest.fail(f"real fixtures not found at {SHARED_FIXTURES} (set LEX_FIXTURES)")
    return SHARED_FIXTURES


@pytest.fixture(scope="session")
def lu_fixture(fixtures_dir: Path) -> Path:
    return fixtures_dir / "lex-corpus-lu-legilux"


@pytest.fixture(scope="session")
def eu_fixture(fixtures_dir: Path) -> Path:
    return fixtures_dir / "lex-corpus-eu-eurlex"
