"""Fixtures of the CLI tests: the work directory of ``make demo``, built once per session.

``demo_workdir`` runs the project's real Dagster jobs (``evidence`` per publisher, then
``release``) over the bundled sample corpus into a temporary ``var/demo``-shaped directory:
``trees/``, ``derived/``, ``indexes/``, ``release/`` and ``keys/`` exactly as ``make demo``
leaves them. Tests copy it before changing anything.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

BUILT_AT = "2026-11-30"


@pytest.fixture(scope="session")
def demo_workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "1")
    import dagster as dg

    from pipelines.definitions import build_definitions
    from pipelines.settings import PUBLISHERS, LexSettings

    workdir = tmp_path_factory.mktemp("demo") / "demo"
    defs = build_definitions("in_process", settings=LexSettings(workdir=str(workdir), source="sample",
                                                                 built_at=BUILT_AT))
    with dg.DagsterInstance.local_temp(str(tmp_path_factory.mktemp("dagster_home"))) as instance:
        for name, partition in [*(("evidence", p) for p in PUBLISHERS), ("release", None)]:
            result = defs.resolve_job_def(name).execute_in_process(partition_key=partition, instance=instance,
                                                                     raise_on_error=False)
            assert result.success, f"demo job {name}[{partition}] failed"
    return workdir
