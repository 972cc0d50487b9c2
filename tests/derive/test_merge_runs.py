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
