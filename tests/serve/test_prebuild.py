"""The supervisor's prebuilt core (``serve.app.prebuild_core``) and a worker's adoption of it.

Under ``lex serve --workers N`` the supervisor verifies, mounts and warms the set once before
forking and closes its connections; a worker's first mount adopts that core only when its own
verification names the same set and each index file is still the one it was built from, and
builds its own otherwise. The fork itself is exercised by ``test_workers``; here one process plays
both parts (what a worker inherits is what the supervisor left)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from legal.errors import IndexError_
from serve import app as serve_app
from serve.app import adopt_prebuilt, new_state, prebuild_core
from serve.core.core import LegalCore
from serve.mount import MountConfig
from tests.index.handmade import build_handmade
from tests.serve.conftest import NO_RATE

CALLS = (("search", {"query": "article"}), ("as_of", {"work": "eu-eurlex:32099r0001", "date": "2099-06-01"}),
         ("timeline", {"work": "eu-eurlex:32099r0001"}), ("in_force_on", {"date": "2099-06-01"}))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("handmade") / "indexes"
    build_handmade(directory)
    return directory


@pytest.fixture
def index_dir(tmp_path: Path, built: Path) -> Iterator[Path]:
    directory = tmp_path / "set"
    shutil.copytree(built, directory)
    yield directory
    serve_app._PREBUILT.clear()


def _answers(core: object) -> list[object]:
    assert isinstance(core, LegalCore)
    return [core.call(name, args) for name, args in CALLS]


def test_a_worker_adopts_the_prebuilt_core_once(index_dir: Path) -> None:
    config = MountConfig(index_dir=index_dir, unsigned_dev=True)
    prebuilt = prebuild_core(new_state(config, NO_RATE))
    assert prebuilt is not None
    for index in prebuilt.core.indexes.values():  # the supervisor's connections are closed before the fork
        with pytest.raises(IndexError_), index.session(1.0):
            pass
    expected = _answers(LegalCore.mount(index_dir, prebuilt.artifact.to_dict()))

    state = new_state(config, NO_RATE)
    mounted = state.mount()
    assert mounted.status == "mounted" and mounted.core is prebuilt.core  # the same tables, reopened
    assert _answers(mounted.core) == expected

    again = new_state(config, NO_RATE).mount()  # adopted at most once per process: this one builds its own
    assert again.status == "mounted" and again.core is not prebuilt.core
    assert _answers(again.core) == expected


def test_a_changed_index_file_is_built_again(index_dir: Path) -> None:
    config = MountConfig(index_dir=index_dir, unsigned_dev=True)
    prebuilt = prebuild_core(new_state(config, NO_RATE))
    assert prebuilt is not None
    expected = _answers(LegalCore.mount(index_dir, prebuilt.artifact.to_dict()))
    changed = index_dir / "eu-eurlex.sqlite"
    stat = changed.stat()
    os.utime(changed, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # same listing, another file

    mounted = new_state(config, NO_RATE).mount()
    assert mounted.status == "mounted" and mounted.core is not prebuilt.core
    assert _answers(mounted.core) == expected
    for index in prebuilt.core.indexes.values():  # nothing of the prebuilt core was left open
        with pytest.raises(IndexError_), index.session(1.0):
            pass


def test_another_set_is_not_adopted(index_dir: Path, tmp_path: Path) -> None:
    config = MountConfig(index_dir=index_dir, unsigned_dev=True)
    prebuilt = prebuild_core(new_state(config, NO_RATE))
    assert prebuilt is not None
    other = tmp_path / "other"
    shutil.copytree(index_dir, other)
    assert adopt_prebuilt(other, prebuilt.artifact, prebuilt.required) is None
    assert not serve_app._PREBUILT  # a refused adoption is not tried again


def test_a_set_the_supervisor_refuses_is_left_to_the_workers(tmp_path: Path) -> None:
    config = MountConfig(index_dir=tmp_path / "missing", unsigned_dev=True)
    assert prebuild_core(new_state(config, NO_RATE)) is None
    assert new_state(config, NO_RATE).mount().status == "refused"
