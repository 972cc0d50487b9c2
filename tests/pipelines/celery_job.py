"""A two-step job on the Celery executor, for the serverless local Celery test: the broker and the
result backend are SQLite files (``LEX_CELERY_BROKER`` = ``sqla+sqlite:///…``,
``LEX_CELERY_BACKEND`` = ``db+sqlite:///…``), through the project's own executor selection."""

from __future__ import annotations

import os

import dagster as dg

from pipelines.executors import executor_from_env


@dg.op
def worker_pid() -> int:
    return os.getpid()


@dg.op
def same_worker_family(pid: int) -> int:
    return pid


def celery_job() -> dg.JobDefinition:
    @dg.job(executor_def=executor_from_env("celery"))
    def local_celery() -> None:
        same_worker_family(worker_pid())

    return local_celery
