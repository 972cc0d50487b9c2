"""An unmounted core is freed by reference counting alone.

A served worker freezes its heap after a mount (``serve.mount.settle_heap``), and a frozen cycle
is never collected; so nothing of a mounted index may stay alive through a cycle or a
process-wide cache once the core is dropped: not its pooled readers (a connection's progress
handler refers to its reader weakly, the reader not to the index) and not the text-block cache
(``derive.index.textstore.BLOCKS`` keeps a weak reference to the served connection)."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest

from derive.index import textstore
from serve.core.core import LegalCore
from tests.index.handmade import build_handmade


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("handmade") / "indexes"
    build_handmade(directory)
    return directory


def _use(core: LegalCore) -> None:
    """Calls that open readers, load the memoised tables and fill the text-block cache."""
    assert core.call("search", {"query": "article"})["outcome"] == "succeeded"
    assert core.call("as_of", {"work": "eu-eurlex:32099r0001", "date": "2099-06-01"})["outcome"] == "succeeded"
    for index in core.indexes.values():
        index.warm()
        with index.session(5.0) as conn:
            shas = [str(sha) for (sha,) in conn.execute("SELECT lower(hex(text_sha256)) FROM texts LIMIT 5")]
            assert textstore.read_texts(conn, shas)


def test_a_dropped_core_frees_its_indexes_without_the_collector(index_dir: Path) -> None:
    core = LegalCore.mount(index_dir)
    _use(core)
    assert textstore.BLOCKS._blocks  # the cache holds blocks of these connections
    indexes = [weakref.ref(index) for index in core.indexes.values()]
    readers = [weakref.ref(reader) for index in core.indexes.values() for reader in index._opened]
    gc.collect()
    gc.disable()
    try:
        del core
        assert all(ref() is None for ref in indexes)
        assert all(ref() is None for ref in readers)
    finally:
        gc.enable()


def test_a_frozen_core_is_freed_once_dropped(index_dir: Path) -> None:
    """As in a worker: mount, use, freeze; dropping the core frees it (nothing waits for a
    collection that a frozen cycle would never get)."""
    core = LegalCore.mount(index_dir)
    _use(core)
    indexes = [weakref.ref(index) for index in core.indexes.values()]
    gc.collect()
    gc.freeze()
    try:
        del core
        gc.collect()
        assert all(ref() is None for ref in indexes)
    finally:
        gc.unfreeze()


def test_the_text_block_cache_tells_a_new_connection_from_a_dropped_one(index_dir: Path) -> None:
    """The cache keys blocks by the connection's ``id``: a later connection that gets the same
    ``id`` reads its own blocks, never the dropped one's."""
    core = LegalCore.mount(index_dir)
    index = core.indexes["eu-eurlex"]
    with index.session(5.0) as conn:
        shas = [str(sha) for (sha,) in conn.execute("SELECT lower(hex(text_sha256)) FROM texts LIMIT 5")]
        first = textstore.read_texts(conn, shas)
    core.close()
    del core, index, conn
    for _ in range(20):  # ids are reused quickly; whichever connection gets one, the texts are its own
        again = LegalCore.mount(index_dir)
        with again.indexes["eu-eurlex"].session(5.0) as conn:
            assert textstore.read_texts(conn, shas) == first
        again.close()
        del again, conn
