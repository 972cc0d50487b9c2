"""Legal-core test fixtures: hand-made indexes (fast) and the real fixture indexes (built once)."""

from __future__ import annotations

from pathlib import Path

import pytest

from serve.core import LegalCore
from tests.index.handmade import build_handmade
from tests.index.pipeline import FixtureBuild, fixture_build


@pytest.fixture(scope="session")
def handmade_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("handmade-index")
    build_handmade(out)
    return out


@pytest.fixture(scope="session")
def fixture_indexes(fixtures_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> FixtureBuild:
    return fixture_build(fixtures_dir, tmp_path_factory)


@pytest.fixture(scope="session")
def handmade_core(handmade_dir: Path) -> LegalCore:
    return LegalCore.mount(handmade_dir, {"set_id": "handmade-set"})


@pytest.fixture(scope="session")
def fixture_core(fixture_indexes: FixtureBuild) -> LegalCore:
    return LegalCore.mount(fixture_indexes.index_dir, {"set_id": "fixture-set"})
