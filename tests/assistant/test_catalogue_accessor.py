"""The assistant reads the works catalogue through the core's public ``catalogue_entries()``."""

from __future__ import annotations

from pathlib import Path

from assistant.build import catalogue_of
from assistant.core_port import KIND_FROM_CATALOGUE, MountedCatalogue
from assistant.subjects import WorkName
from serve.core import LegalCore
from serve.core.mount import CATALOGUE_KINDS
from tests.index.handmade import build_handmade


class _NoInternals:
    """A core exposing only the public accessor (no ``indexes``)."""

    def __init__(self, core: LegalCore) -> None:
        self.catalogue_entries = core.catalogue_entries


def test_subject_catalogue_comes_from_the_public_accessor(tmp_path: Path) -> None:
    build_handmade(tmp_path)
    with LegalCore.mount(tmp_path) as core:
        source = catalogue_of(_NoInternals(core))
        names = set(source.names())
        assert WorkName("eu-eurlex:32099r0001", "short_title", "thing regulation", "Thing Regulation") in names
        assert WorkName("eu-eurlex:32099r0001", "identifier", "32099r0001", "32099r0001") in names
        assert {n.kind for n in names} <= {"identifier", "title", "short_title", "alias"}
        assert source.title("lu-legilux:loi-2099-01-01-n1") == "Code des choses"
        assert names == set(MountedCatalogue(core.indexes).names())  # the older mapping form agrees
    assert set(KIND_FROM_CATALOGUE) == set(CATALOGUE_KINDS)
