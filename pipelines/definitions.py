"""The one Dagster ``Definitions`` of the project.

Load it with ``dagster dev -m pipelines.definitions`` (or ``workspace.yaml``). The environment
(sample / replay / fixtures / live) comes from :class:`pipelines.settings.LexSettings`, read
from ``LEX_*`` variables. Execution: the multiprocess executor bounded to the machine's cores
by default; ``LEX_EXECUTOR=k8s|celery|in_process`` selects another (see ``deploy/``).
"""

from __future__ import annotations

import os

import dagster as dg

from pipelines.assets import (
    artifact_set,
    corpus_tree,
    empty_provisions_not_increasing,
    provisions,
    search_index,
)
from pipelines.executors import executor_from_env
from pipelines.operations import evidence_schedule, notify_on_run_failure, release_schedule
from pipelines.settings import settings_from_env

EVIDENCE_ASSETS = [corpus_tree, provisions, search_index]

evidence_job = dg.define_asset_job(
    "evidence", selection=dg.AssetSelection.assets(*EVIDENCE_ASSETS),
    partitions_def=corpus_tree.partitions_def,
    description="corpus tree → provisions → search index, one run per publisher partition",
)
release_job = dg.define_asset_job(
    "release", selection=dg.AssetSelection.assets(artifact_set),
    description="benchmark, sign, verify and promote the artifact set built from both publishers",
)


def build_definitions(executor: str | None = None) -> dg.Definitions:
    """The project's definitions, with the executor named (or ``LEX_EXECUTOR``)."""
    return dg.Definitions(
        assets=[*EVIDENCE_ASSETS, artifact_set],
        asset_checks=[empty_provisions_not_increasing],
        jobs=[evidence_job, release_job],
        schedules=[evidence_schedule(evidence_job), release_schedule(release_job)],
        sensors=[notify_on_run_failure],
        resources={"lex": settings_from_env()},
        executor=executor_from_env(executor or os.environ.get("LEX_EXECUTOR", "multiprocess")),
    )


defs = build_definitions()
