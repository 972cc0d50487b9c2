"""Operations: schedules, sensors, freshness checks and the run-failure notification hook.

- ``nightly_evidence`` (03:00 UTC) runs corpus → provisions → index for each publisher (one run
  per publisher; the shards are derived in-step): the single-node automation;
  ``nightly_release`` (05:00 UTC) runs the benchmark report and the signed artifact set.
- Fan-out (several machines): ``nightly_ingest`` (03:00 UTC) runs the ``ingest`` job per
  publisher; ``shards_after_ingest`` requests the ``derive_shards`` run of every
  ``publisher|shard`` partition of a successful ingest run (tagged ``lex/fanout=<ingest run>``);
  ``index_after_shards`` requests the ``index`` run (merge + search index) of that publisher
  once every shard of the batch has succeeded.
- Declarative (``eager``): the assets' automation conditions (``assets.py``: the trees on a
  03:00 UTC cron, datasets and indexes eagerly after their tree, the set on a 05:00 UTC cron),
  evaluated by the ``lex_automation`` sensor; Dagster then decides from the data and code versions
  which partitions are stale.
- ``LEX_AUTOMATION`` picks what is switched on by default: ``off`` (default: everything stopped,
  start it in the UI), ``nightly``, ``fanout`` or ``eager``; the failure sensor is on in all three.
- Freshness: a ``FreshnessPolicy`` on the corpus tree asset (26 hours; see ``assets.py``).
- Failure notification: ``LEX_NOTIFY_URL`` (an HTTP endpoint receiving a JSON POST) and/or
  ``LEX_NOTIFY_COMMAND`` (a command receiving the JSON on standard input). Unset: log only.
"""

import json
import os
import shlex
import subprocess
from collections.abc import Mapping
from typing import Any

import dagster as dg
from dagster import RunFailureSensorContext, ScheduleEvaluationContext

from pipelines.settings import PUBLISHERS, SHARDS

#: Tag carried by the runs of one fan-out batch: the run id of the ingest run that started it.
FANOUT_TAG = "lex/fanout"
AUTOMATIONS = ("off", "nightly", "fanout", "eager")


def failure_payload(run_id: str, job_name: str, message: str) -> dict[str, Any]:
    return {"event": "run_failed", "run_id": run_id, "job": job_name, "message": message[:2000]}


def notify(payload: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> list[str]:
    """Deliver ``payload`` through the configured hooks; returns what was done (for logs/tests)."""
    env = os.environ if environ is None else environ
    done: list[str] = []
    body = json.dumps(payload, sort_keys=True).encode()
    url = env.get("LEX_NOTIFY_URL", "")
    if url:
        import httpx

        httpx.post(url, content=body, headers={"content-type": "application/json"}, timeout=10.0)
        done.append(f"posted to {url}")
    command = env.get("LEX_NOTIFY_COMMAND", "")
    if command:
        subprocess.run(shlex.split(command), input=body, check=False, timeout=30)
        done.append(f"ran {shlex.split(command)[0]}")
    return done


def _status(on: bool) -> Any:
    return dg.DefaultSensorStatus.RUNNING if on else dg.DefaultSensorStatus.STOPPED


def _schedule_status(on: bool) -> Any:
    return dg.DefaultScheduleStatus.RUNNING if on else dg.DefaultScheduleStatus.STOPPED


def failure_sensor(on: bool = False) -> dg.SensorDefinition:
    @dg.run_failure_sensor(name="notify_on_run_failure", minimum_interval_seconds=60, default_status=_status(on))
    def notify_on_run_failure(context: RunFailureSensorContext) -> None:
        run = context.dagster_run
        payload = failure_payload(run.run_id, run.job_name, context.failure_event.message or "")
        for line in notify(payload) or ["no notification hook configured (LEX_NOTIFY_URL / LEX_NOTIFY_COMMAND)"]:
            context.log.info(line)

    return notify_on_run_failure


notify_on_run_failure = failure_sensor()


def automation_sensor(on: bool = False) -> dg.AutomationConditionSensorDefinition:
    """The sensor that evaluates the assets' automation conditions (``LEX_AUTOMATION=eager``)."""
    return dg.AutomationConditionSensorDefinition("lex_automation", target=dg.AssetSelection.all(),
                                                  default_status=_status(on), minimum_interval_seconds=60)


def evidence_schedule(job: Any, name: str = "nightly_evidence", on: bool = False) -> dg.ScheduleDefinition:
    """03:00 UTC: one run of ``job`` per publisher partition."""
    @dg.schedule(job=job, cron_schedule="0 3 * * *", execution_timezone="UTC", name=name,
                 default_status=_schedule_status(on))
    def nightly(context: ScheduleEvaluationContext) -> list[dg.RunRequest]:
        day = context.scheduled_execution_time.date().isoformat()
        return [dg.RunRequest(partition_key=p, run_key=f"{p}:{day}") for p in PUBLISHERS]

    return nightly


def release_schedule(job: Any, on: bool = False) -> dg.ScheduleDefinition:
    return dg.ScheduleDefinition(name="nightly_release", job=job, cron_schedule="0 5 * * *",
                                 execution_timezone="UTC", default_status=_schedule_status(on))


def shard_requests(batch: str, publisher: str, shards: int = SHARDS) -> list[dg.RunRequest]:
    """One ``derive_shards`` run per shard of ``publisher``, all tagged with the batch."""
    return [dg.RunRequest(partition_key=dg.MultiPartitionKey({"publisher": publisher, "shard": str(i)}),
                          run_key=f"{batch}:shard-{i}", tags={FANOUT_TAG: batch})
            for i in range(shards)]


def index_request(instance: dg.DagsterInstance, run: dg.DagsterRun, shards: int = SHARDS) -> Any:
    """The ``index`` run of the publisher of ``run`` (a ``derive_shards`` run) once every shard
    of its batch has succeeded; otherwise a skip reason."""
    batch = run.tags.get(FANOUT_TAG)
    if not batch:
        return dg.SkipReason(f"run {run.run_id} is not part of a fan-out batch")
    done = instance.get_runs(filters=dg.RunsFilter(job_name=run.job_name, tags={FANOUT_TAG: batch},
                                                   statuses=[dg.DagsterRunStatus.SUCCESS]))
    partitions = {r.tags.get("dagster/partition", "") for r in done}
    publisher = str(run.tags.get("dagster/partition", "")).split("|", 1)[0]
    if len(partitions) < shards:
        return dg.SkipReason(f"{len(partitions)}/{shards} shards of {publisher} done (batch {batch})")
    return dg.RunRequest(partition_key=publisher, run_key=f"{batch}:index", tags={FANOUT_TAG: batch})


def fanout_sensors(ingest_job: Any, derive_shards_job: Any, index_job: Any, on: bool = False) -> list[dg.SensorDefinition]:
    """``shards_after_ingest`` and ``index_after_shards``: ingest → shards → merge + index."""
    success = dg.DagsterRunStatus.SUCCESS

    @dg.run_status_sensor(run_status=success, name="shards_after_ingest", monitored_jobs=[ingest_job],
                          request_job=derive_shards_job, minimum_interval_seconds=30, default_status=_status(on))
    def shards_after_ingest(context: dg.RunStatusSensorContext) -> Any:
        run = context.dagster_run
        publisher = run.tags.get("dagster/partition")
        if not publisher:
            return dg.SkipReason(f"ingest run {run.run_id} has no publisher partition")
        return shard_requests(run.run_id, publisher)

    @dg.run_status_sensor(run_status=success, name="index_after_shards", monitored_jobs=[derive_shards_job],
                          request_job=index_job, minimum_interval_seconds=30, default_status=_status(on))
    def index_after_shards(context: dg.RunStatusSensorContext) -> Any:
        return index_request(context.instance, context.dagster_run)

    return [shards_after_ingest, index_after_shards]

