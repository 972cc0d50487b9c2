"""``bench.ingest_holders``: an allocation's holder is its innermost project frame, and growth is per replica."""

from __future__ import annotations

import tracemalloc

from bench.ingest_holders import growth, holder_of, holders


def test_the_holder_is_the_innermost_frame_in_the_project() -> None:
    frames = [("/usr/lib/python3.11/json/decoder.py", 353), ("/repo/corpus_tree/records.py", 640),
              ("/repo/publishers/ingest.py", 200), ("/repo/bench/ingest_memory.py", 118)]
    assert holder_of(frames) == "corpus_tree/records.py:640"


def test_a_module_of_a_subpackage_is_its_own_holder() -> None:
    frames = [("/usr/lib/python3.11/json/decoder.py", 353), ("/repo/publishers/http/sparql.py", 135),
              ("/repo/publishers/legilux/adapter.py", 122), ("/repo/publishers/ingest.py", 203)]
    assert holder_of(frames) == "publishers/http/sparql.py:135"


def test_an_allocation_outside_the_project_is_named_by_its_innermost_frame() -> None:
    assert holder_of([("<frozen importlib._bootstrap>", 241), ("/usr/lib/python3.11/x.py", 3)]) == \
        "~<frozen importlib._bootstrap>:241"
    assert holder_of([]) == "~<unknown>"


def test_holders_sum_the_sizes_of_one_holder_and_resolve_a_shared_traceback_once() -> None:
    shared = (("/repo/publishers/ingest.py", 10), ("/repo/bench/x.py", 1))
    traces = [(0, 100, shared, 2), (0, 50, shared, 2), (0, 7, (("/lib/zlib.py", 4),), 1)]
    assert holders(traces) == {"publishers/ingest.py:10": 150, "~zlib.py:4": 7}


def test_growth_is_per_replica_and_largest_first() -> None:
    small = {"a": 2**20, "b": 3 * 2**20}
    large = {"a": 13 * 2**20, "b": 3 * 2**20, "c": 6 * 2**20}
    assert growth(small, large, 12) == [("a", 1.0), ("c", 0.5), ("b", 0.0)]


def test_a_real_snapshot_names_this_test_as_the_holder_of_its_list() -> None:
    """The raw traces of a real ``tracemalloc`` snapshot (the most recent frame first) name the
    innermost frame: this test's line (a test module is not in the project's packages: ``~``)."""
    tracemalloc.start(5)
    try:
        block = [bytearray(4096) for _ in range(64)]  # noqa: F841  (held while the snapshot is taken)
        snapshot = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    held = holders(snapshot.traces._traces)
    assert any(k.startswith("~test_ingest_holders.py:") for k, v in held.items() if v >= 64 * 4096)
