"""``--workers N``: derivation parallel over works gives the same bytes as one process."""

from __future__ import annotations

from pathlib import Path

import pytest

from derive.dataset import build_dataset
from derive.verify import compare_dirs, verify_dataset


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("which", ["eu", "lu"])
def test_two_workers_write_the_same_bytes_as_one(which, imported_trees, tmp_path):
    tree = imported_trees[which]
    ticks: list[str] = []
    one = build_dataset(tree, tmp_path / "one", use_cache=False, workers=1)
    two = build_dataset(tree, tmp_path / "two", cache=tmp_path / "cache", workers=2, progress=ticks.append)
    assert _files(tmp_path / "one") == _files(tmp_path / "two")
    assert one.to_dict() == two.to_dict() and two.works_derived == two.works
    assert sorted(ticks) == sorted(set(ticks)) and len(ticks) == one.versions  # progress per version
    again = build_dataset(tree, tmp_path / "two", cache=tmp_path / "cache", workers=2)
    assert again.works_reused == again.works and _files(tmp_path / "one") == _files(tmp_path / "two")
    assert compare_dirs(tmp_path / "one", tmp_path / "two").ok


def test_verify_with_workers(imported_trees, tmp_path):
    tree = imported_trees["eu"]
    build_dataset(tree, tmp_path / "ds", use_cache=False, workers=1)
    assert verify_dataset(tmp_path / "ds", tree, workers=2).ok
    (tmp_path / "ds" / "gaps.jsonl").write_bytes(b"{}\n")
    report = verify_dataset(tmp_path / "ds", tree, workers=2)
    assert report.mismatched == ["gaps.jsonl"]


def test_bodies_are_derived_with_fastbins_off(imported_trees, tmp_path, monkeypatch):
    """A one-process build derives every body with glibc's fastbins off and gives the default back
    after; a worker process turns them off when it starts (legal.heap.set_fastbins)."""
    from derive import dataset
    from legal import heap

    state: dict[str, int | None] = {"mxfast": None}
    seen: set[int | None] = set()

    def mallopt(param: int, value: int) -> int:
        if param == heap.M_MXFAST:
            state["mxfast"] = value
        return 1

    monkeypatch.setattr(heap, "_mallopt", lambda: mallopt)
    derive_body = dataset.derive_body

    def watched(*args, **kwargs):
        seen.add(state["mxfast"])
        return derive_body(*args, **kwargs)

    monkeypatch.setattr(dataset, "derive_body", watched)
    tree = imported_trees["lu"]
    build_dataset(tree, tmp_path / "one", use_cache=False, workers=1)
    assert seen == {0} and state["mxfast"] == heap.DEFAULT_MXFAST

    state["mxfast"] = None
    monkeypatch.setattr(dataset, "_WORKER", None)
    dataset._worker_init(str(tree.root), str(tree.evidence.root), dataset.alias_table(tree), dataset.DEFAULT_LIMITS,
                         None, str(tmp_path / "spool"))
    assert state["mxfast"] == 0
