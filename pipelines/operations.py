"""Operations: schedules, freshness checks and the run-failure notification hook.

- ``nightly_evidence`` (03:00 UTC) runs corpus → provisions → index for each publisher;
  ``nightly_release`` (05:00 UTC) runs the benchmark report and the signed artifact set.
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
from dagster import AssetExecutionContext, RunFailureSensorContext, ScheduleEvaluationContext

from pipelines.settings import PUBLISHERS


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


@dg.run_failure_sensor(name="notify_on_run_failure", minimum_interval_seconds=60)
def notify_on_run_failure(context: RunFailureSensorContext) -> None:
    run = context.dagster_run
    payload = failure_payload(run.run_id, run.job_name, context.failure_event.message or "")
    for line in notify(payload) or ["no notification hook configured (LEX_NOTIFY_URL / LEX_NOTIFY_COMMAND)"]:
        context.log.info(line)


def evidence_schedule(job: dg.JobDefinition) -> dg.ScheduleDefinition:
    @dg.schedule(job=job, cron_schedule="0 3 * * *", execution_timezone="UTC", name="nightly_evidence")
    def nightly(context: ScheduleEvaluationContext) -> list[dg.RunRequest]:
        day = context.scheduled_execution_time.date().isoformat()
        return [dg.RunRequest(partition_key=p, run_key=f"{p}:{day}") for p in PUBLISHERS]

    return nightly


def release_schedule(job: dg.JobDefinition) -> dg.ScheduleDefinition:
    return dg.ScheduleDefinition(name="nightly_release", job=job, cron_schedule="0 5 * * *",
                                 execution_timezone="UTC")

