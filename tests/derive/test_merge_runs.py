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


def test_a_held_tree_gives_the_facts_digests_and_inputs_computed_without_it(tmp_path, lu_tree) -> None:
    """Inside ``tree_held`` a stage's asks of every shard (the work facts, the build's tree digest,
    each shard's inputs) are answered once per tree and held, with the values computed without the
    block; nothing is held after it, and a block inside another leaves the outer one's values."""
    import derive.dataset as dataset
    from derive.dataset import (
        DEFAULT_LIMITS,
        _tree_digest,
        _work_facts,
        alias_table,
        shard_inputs,
        tree_held,
    )
    from tests.fixture_builds import copy_tree

    tree = copy_tree(lu_tree, tmp_path / "tree")
    aliases = alias_table(tree)
    plain = ([shard_inputs(tree, (i, 3), aliases=aliases) for i in range(3)],
             _tree_digest(tree, aliases, DEFAULT_LIMITS, 3), list(_work_facts(tree)))
    calls = {"state": 0}
    stat_sweep = dataset._work_records_state

    def counted(t):
        calls["state"] += 1
        return stat_sweep(t)

    dataset._work_records_state = counted
    try:
        with tree_held(tree):
            held = ([shard_inputs(tree, (i, 3), aliases=aliases) for i in range(3)],
                    _tree_digest(tree, aliases, DEFAULT_LIMITS, 3), list(_work_facts(tree)))
            with tree_held(tree):
                assert shard_inputs(tree, (0, 3), aliases=aliases) == plain[0][0]
            again = ([shard_inputs(tree, (i, 3), aliases=aliases) for i in range(3)],
                     _tree_digest(tree, aliases, DEFAULT_LIMITS, 3), list(_work_facts(tree)))
            assert calls["state"] == 1  # the work records stat'ed once for the whole block
            other = alias_table(tree)  # another table object: its own entry, the same value
            assert shard_inputs(tree, (1, 3), aliases=other) == plain[0][1]
        assert held == plain == again
        assert dataset._HELD == {}
        _work_facts(tree)
        assert calls["state"] == 2  # outside the block: checked against the files again
    finally:
        dataset._work_records_state = stat_sweep
