"""The fixture corpora imported once per session for the scale tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.scale.corpus import prepare_base


@pytest.fixture(scope="session")
def scale_base(fixtures_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("scale-base")
    prepare_base(fixtures_dir, base)
    return base
