"""Legal-core test fixtures: the core mounted over the hand-made and the real fixture indexes
(``handmade_dir`` and ``fixture_indexes`` are session builds of :mod:`tests.fixture_builds`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from serve.core import LegalCore
from tests.index.pipeline import FixtureBuild


@pytest.fixture(scope="session")
def handmade_core(handmade_dir: Path) -> LegalCore:
    return LegalCore.mount(handmade_dir, {"set_id": "handmade-set"})


@pytest.fixture(scope="session")
def fixture_core(fixture_indexes: FixtureBuild) -> LegalCore:
    return LegalCore.mount(fixture_indexes.index_dir, {"set_id": "fixture-set"})


@pytest.fixture
def without_act_terms(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search without the act terms' fusion (ADR 0141): for the tests of another rule, whose fixture
    questions the reviewed act terms (package data, in the fixture build) would otherwise also answer."""
    from serve.core.ops import search

    monkeypatch.setattr(search, "ACT_TERMS", False)
