"""Executor selection: one machine by default, an existing distributed engine beyond it.

- ``multiprocess`` (default): Dagster's multiprocess executor, ``max_concurrent`` = the
  machine's cores (``LEX_MAX_CONCURRENT`` overrides); every step is forked from a forkserver that
  preloaded :data:`pipelines.preload.STEP_PRELOAD` (Dagster, the definitions, the SQLite
  instance's modules), so a step does not import them again;
- ``in_process``: tests and the demo;
- ``k8s``: ``dagster_k8s.k8s_job_executor`` (one Kubernetes Job per step; see ``deploy/k8s``);
- ``celery``: ``dagster_celery.celery_executor`` (steps on Celery workers; see ``deploy/celery``).
"""

from __future__ import annotations

import os
from typing import Any

import dagster as dg

from legal.errors import ConfigError
from pipelines.preload import STEP_PRELOAD


def executor_from_env(name: str) -> Any:
    if name == "multiprocess":
        cores = int(os.environ.get("LEX_MAX_CONCURRENT", "0")) or (os.cpu_count() or 1)
        return dg.multiprocess_executor.configured(
            {"max_concurrent": cores, "start_method": {"forkserver": {"preload_modules": list(STEP_PRELOAD)}}})
    if name == "in_process":
        return dg.in_process_executor
    if name == "k8s":
        from dagster_k8s import k8s_job_executor

        return k8s_job_executor.configured({"max_concurrent": int(os.environ.get("LEX_MAX_CONCURRENT", "8"))})
    if name == "celery":
        from dagster_celery import celery_executor

        broker = os.environ.get("LEX_CELERY_BROKER", "redis://localhost:6379/0")
        return celery_executor.configured({"broker": broker, "backend": os.environ.get("LEX_CELERY_BACKEND", broker)})
    raise ConfigError(f"unknown executor {name!r} (multiprocess | in_process | k8s | celery)",
                      code="unknown_executor", subject=name)
