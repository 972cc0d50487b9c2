"""A work's rows are encoded and cached a version at a time (issue #13, derive peak RSS): the
streamed rows are the rows a whole-work sort gives, a derived block holds none of them, and a
cache entry written as the rows come reads back the same (and a damaged one is a miss)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from derive import rows as R
from derive.cache import WorkCache, route_profiles
from derive.dataset import derive_work, load_versions

WORKS = [("lu", "constitution-1868-10-17-n1"), ("eu", "32015l2302")]
PUBLISHERS = {"lu": "lu-legilux", "eu": "eu-eurlex"}


@pytest.mark.parametrize(("publisher", "slug"), WORKS)
def test_rows_streamed_a_version_at_a_time_are_the_sorted_rows(imported_trees, publisher, slug):
    tree = imported_trees[publisher]
    versions = load_versions(tree, slug)
    assert len(versions) > 1
    work_id = f"{PUBLISHERS[publisher]}:{slug}"
    whole = derive_work(work_id, versions, tree.evidence)
    parts: list[list[dict[str, Any]]] = []
    streamed = derive_work(work_id, versions, tree.evidence, rows_out=lambda rows: parts.append(list(rows)))
    assert streamed.rows == [] and whole.rows
    assert [r for part in parts for r in part] == whole.rows == sorted(whole.rows, key=R.row_order)
    assert all(len({r["version_key"] for r in part}) <= 1 for part in parts)  # one version per call
    assert len(parts) == len({str(v.version_key) for v in versions})
    whole_entry, streamed_entry = whole.to_entry(), streamed.to_entry()
    whole_entry.pop("rows"), streamed_entry.pop("rows")
    assert streamed_entry == whole_entry  # lex ids, gaps, errors, history, events: same order
    assert streamed.lex_ids == [v.lex_id for v in versions]


def _rows(n: int) -> list[dict[str, Any]]:
    return [{"work_id": "eu-eurlex:x", "n": i, "text": f"ligne {i}\n\u2028é"} for i in range(n)]


def test_a_streamed_entry_reads_back_in_chunks(tmp_path):
    store, table = WorkCache(tmp_path), route_profiles()
    writer = store.writer("eu-eurlex:x", "d" * 64, table)
    writer.rows(_rows(3))
    writer.rows(_rows(4)[3:])
    writer.finish({"routes": ["html"], "lex_ids": ["a"], "rows": ["ignored"]})
    path = store.path("eu-eurlex:x", "d" * 64)
    assert json.loads(path.read_bytes())["rows"] == _rows(4)  # still one JSON object
    cached = store.open("eu-eurlex:x", "d" * 64, table)
    assert cached is not None and "rows" not in cached.entry and cached.entry["lex_ids"] == ["a"]
    assert list(cached.rows(3)) == [_rows(3), _rows(4)[3:]]
    assert store.get("eu-eurlex:x", "d" * 64, table)["rows"] == _rows(4)
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left


def test_an_empty_and_a_compact_entry_are_read(tmp_path):
    store, table = WorkCache(tmp_path), route_profiles()
    store.put("eu-eurlex:x", "d" * 64, {"routes": [], "rows": []}, table)
    assert list(store.open("eu-eurlex:x", "d" * 64, table).rows()) == []
    store.put("eu-eurlex:x", "e" * 64, {"routes": ["html"], "rows": _rows(5)}, table)
    path = store.path("eu-eurlex:x", "e" * 64)
    whole = json.loads(path.read_bytes())
    path.write_bytes(json.dumps(whole).encode())  # an entry written whole, on one line
    assert [r for rows in store.open("eu-eurlex:x", "e" * 64, table).rows(2) for r in rows] == _rows(5)


@pytest.mark.parametrize("damage", ["truncate", "drop_row", "bad_row"])
def test_a_damaged_entry_is_a_miss(tmp_path, damage):
    store, table = WorkCache(tmp_path), route_profiles()
    store.put("eu-eurlex:x", "d" * 64, {"routes": ["html"], "rows": _rows(4)}, table)
    path: Path = store.path("eu-eurlex:x", "d" * 64)
    lines = path.read_bytes().splitlines(keepends=True)
    if damage == "truncate":
        lines = lines[:-1]
    elif damage == "drop_row":
        del lines[2]
    else:
        lines[2] = b"garbage\n"
    path.write_bytes(b"".join(lines))
    assert store.open("eu-eurlex:x", "d" * 64, table) is None
    assert store.get("eu-eurlex:x", "d" * 64, table) is None


def test_an_interrupted_writer_leaves_nothing(tmp_path):
    store, table = WorkCache(tmp_path), route_profiles()
    writer = store.writer("eu-eurlex:x", "d" * 64, table)
    writer.rows(_rows(2))
    writer.abort()
    assert list(store.path("eu-eurlex:x", "d" * 64).parent.iterdir()) == []


def test_a_written_block_is_released_before_the_next_work_is_derived(imported_trees, tmp_path, monkeypatch):
    """``build_dataset`` lets each work's encoded block go once it is written, before the next work is
    derived (issue #13, ver34): otherwise two large works in a row are held at once."""
    import gc
    import weakref

    import derive.dataset as dataset_module

    real = dataset_module.work_blocks
    held: list[str] = []

    def watched(*args: Any, **kwargs: Any) -> Any:
        previous: weakref.ref[Any] | None = None
        for result in real(*args, **kwargs):
            gc.collect()
            if previous is not None and previous() is not None:
                held.append(result[0])
            previous = weakref.ref(result[1])
            yield result
            del result

    monkeypatch.setattr(dataset_module, "work_blocks", watched)
    report = dataset_module.build_dataset(imported_trees["lu"], tmp_path / "dataset", use_cache=False)
    assert report.works > 1
    assert held == []
