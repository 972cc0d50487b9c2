"""The runs of one work's rows in a shard's Parquet batch (``derive.dataset._runs``): the merge and
the copy of a rebuilt shard's unchanged works hand out rows a work at a time by these runs."""

from __future__ import annotations

import itertools

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.dataset import _runs
from legal.errors import DerivationError


def _naive(values: list[str]) -> list[tuple[str, int, int]]:
    found, at = [], 0
    for value, group in itertools.groupby(values):
        n = len(list(group))
        found.append((value, at, at + n))
        at += n
    return found


@settings(deadline=None)
@given(st.lists(st.sampled_from(["lu-legilux:a", "lu-legilux:b", "eu-eurlex:c", "é"]), max_size=60))
def test_runs_are_the_groups_of_equal_neighbours(values: list[str]) -> None:
    assert list(_runs(pa.array(values, pa.string()))) == _naive(values)


def test_a_row_without_a_work_is_refused() -> None:
    with pytest.raises(DerivationError):
        list(_runs(pa.array(["lu-legilux:a", None], pa.string())))


def test_the_work_facts_kept_in_process_follow_every_work_record_file(tmp_path, lu_tree) -> None:
    """``shard_inputs`` asks every work record's digest once per shard; the facts are kept while
    every work record file keeps its size, time and inode — a rewritten, removed or added work
    record is read again."""
    import json
    import os
    import shutil

    from corpus_tree.records import render
    from derive.dataset import _work_facts, shard_inputs
    from tests.fixture_builds import copy_tree

    tree = copy_tree(lu_tree, tmp_path / "tree")
    root = tree.root
    before = [shard_inputs(tree, (i, 2)) for i in range(2)]
    assert _work_facts(tree) is _work_facts(tree)  # kept
    slug = tree.slugs()[0]
    record = root / "works" / slug / "meta.json"
    value = json.loads(record.read_bytes())
    value["title"] = f"{value.get('title') or ''} (changed)"
    tmp = record.with_suffix(".tmp")
    tmp.write_bytes(render(value))  # another file, another title: another digest
    os.replace(tmp, record)
    changed = [shard_inputs(tree, (i, 2)) for i in range(2)]
    assert changed != before
    import derive.dataset as dataset

    dataset._WORK_FACTS.clear()  # nothing kept: every work record parsed
    assert changed == [shard_inputs(tree, (i, 2)) for i in range(2)]
    shutil.rmtree(root / "works" / slug)
    assert len(_work_facts(tree)) == len(tree.slugs())
