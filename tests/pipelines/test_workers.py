"""How many derivation processes a step uses: the publishers' ``evidence`` runs share the cores
(a backfill runs them side by side), the shard partitions of the fan-out share them likewise."""

from __future__ import annotations

import pytest

from pipelines import derive_stage
from pipelines.settings import PUBLISHERS, SHARDS


@pytest.mark.parametrize(("cores", "partition", "shard"), [(1, 1, 1), (2, 1, 1), (4, 2, 1), (8, 4, 2)])
def test_the_cores_are_shared_among_the_runs_side_by_side(monkeypatch: pytest.MonkeyPatch, cores: int,
                                                          partition: int, shard: int) -> None:
    monkeypatch.delenv("LEX_DERIVE_WORKERS", raising=False)
    monkeypatch.setattr("os.cpu_count", lambda: cores)
    assert len(PUBLISHERS) == 2 and SHARDS == 4
    assert derive_stage.stage_workers() == cores
    assert derive_stage.partition_workers() == partition
    assert derive_stage.shard_workers(SHARDS) == shard


def test_lex_derive_workers_overrides_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEX_DERIVE_WORKERS", "6")
    assert derive_stage.partition_workers() == 3
