"""The one Dagster ``Definitions`` of the project.

Load it with ``dagster dev -m pipelines.definitions`` (or ``workspace.yaml``). The environment
(sample / replay / published / live) comes from :class:`pipelines.settings.LexSettings`, read
from ``LEX_*`` variables. Execution: the multiprocess executor bounded to the machine's cores
by default; ``LEX_EXECUTOR=k8s|celery|in_process`` selects another (see ``deploy/``).
``LEX_AUTOMATION=off|nightly|fanout|eager`` selects which schedules and sensors start switched on
(see :mod:`pipelines.operations` and ``docs/pipeline.md``).

Jobs (one partitions definition each, inferred from the selected assets):

- ``evidence`` (per publisher): corpus tree → provisions (its shards brought up to date in-step and
  recorded as ``provision_shards`` materialisations) → index;
- ``ingest`` (per publisher), ``derive_shards`` (per publisher × shard), ``index`` (per
  publisher: merge + index): the same chain fanned out over machines;
- ``release`` (unpartitioned): the signed artifact set.
"""

from __future__ import annotations

import os

import dagster as dg

from legal.errors import ConfigError
from pipelines.assets import (
    artifact_set,
    corpus_tree,
    empty_provisions_not_increasing,
    provision_shards,
    provisions,
    search_index,
)
from pipelines.executors import executor_from_env
from pipelines.operations import (
    AUTOMATIONS,
    automation_sensor,
    evidence_schedule,
    failure_sensor,
    fanout_sensors,
    release_schedule,
)
from pipelines.settings import LexSettings, settings_from_env

EVIDENCE_ASSETS = [corpus_tree, provisions, search_index]

evidence_job = dg.define_asset_job(
    "evidence", selection=dg.AssetSelection.assets(*EVIDENCE_ASSETS),
    description="corpus tree → provisions (shards derived in-step) → search index, one run per publisher",
)
ingest_job = dg.define_asset_job(
    "ingest", selection=dg.AssetSelection.assets(corpus_tree),
    description="fan-out step 1: the publisher's corpus tree",
)
derive_shards_job = dg.define_asset_job(
    "derive_shards", selection=dg.AssetSelection.assets(provision_shards),
    description="fan-out step 2: one shard of one publisher's works derived (one run per publisher|shard)",
)
index_job = dg.define_asset_job(
    "index", selection=dg.AssetSelection.assets(provisions, search_index),
    description="fan-out step 3: merge the publisher's shards, then its search index",
)
release_job = dg.define_asset_job(
    "release", selection=dg.AssetSelection.assets(artifact_set),
    description="benchmark, sign, verify and promote the artifact set built from both publishers",
)
JOBS = [evidence_job, ingest_job, derive_shards_job, index_job, release_job]


def build_definitions(executor: str | None = None, settings: LexSettings | None = None,
                      automation: str | None = None) -> dg.Definitions:
    """The project's definitions, with the executor named (or ``LEX_EXECUTOR``), the settings
    given (or read from ``LEX_*``) and the automation named (or ``LEX_AUTOMATION``)."""
    mode = automation or os.environ.get("LEX_AUTOMATION", "off")
    if mode not in AUTOMATIONS:
        raise ConfigError(f"unknown automation {mode!r} ({' | '.join(AUTOMATIONS)})",
                          code="unknown_automation", subject=mode)
    nightly, fanout, eager = mode == "nightly", mode == "fanout", mode == "eager"
    return dg.Definitions(
        assets=[corpus_tree, provision_shards, provisions, search_index, artifact_set],
        asset_checks=[empty_provisions_not_increasing],
        jobs=JOBS,
        schedules=[evidence_schedule(evidence_job, on=nightly),
                   evidence_schedule(ingest_job, name="nightly_ingest", on=fanout),
                   release_schedule(release_job, on=nightly or fanout)],
        sensors=[failure_sensor(on=nightly or fanout or eager), automation_sensor(on=eager),
                 *fanout_sensors(ingest_job, derive_shards_job, index_job, on=fanout)],
        resources={"lex": settings if settings is not None else settings_from_env()},
        executor=executor_from_env(executor or os.environ.get("LEX_EXECUTOR", "multiprocess")),
    )


defs = build_definitions()
