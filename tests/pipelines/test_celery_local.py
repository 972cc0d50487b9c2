"""Celery without a server: the broker and the result backend are SQLite files.

Kombu's SQLAlchemy transport (``sqla+sqlite:///broker.sqlite``) and Celery's database result
backend (``db+sqlite:///results.sqlite``) need nothing but the files, so one machine can run the
``celery`` executor with local workers (``deploy/README.md``, ``docs/pipeline.md`` §5). The test
starts a real ``dagster-celery`` worker on such a broker and runs a two-step job through it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest

from tests.pipelines.celery_job import celery_job
from tests.pipelines.conftest import ROOT


@pytest.mark.timeout(600)
def test_celery_runs_steps_with_sqlite_broker_and_backend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "dagster_home"
    home.mkdir()
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    broker, backend = f"sqla+sqlite:///{tmp_path / 'broker.sqlite'}", f"db+sqlite:///{tmp_path / 'results.sqlite'}"
    config = tmp_path / "celery.yaml"
    config.write_text(f"execution:\n  config:\n    broker: '{broker}'\n    backend: '{backend}'\n"
                      "    config_source:\n      worker_prefetch_multiplier: 1\n")
    env = {**os.environ, "DAGSTER_HOME": str(home), "LEX_CELERY_BROKER": broker, "LEX_CELERY_BACKEND": backend,
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYTHONPATH": str(ROOT), "DAGSTER_DISABLE_TELEMETRY": "1"}
    for key in ("DAGSTER_HOME", "LEX_CELERY_BROKER", "LEX_CELERY_BACKEND"):
        monkeypatch.setenv(key, env[key])
    # the instance's SQLite storage is created (and its schema stamped) here, before a worker opens
    # it: two processes creating it at once race on the schema version table
    dg.DagsterInstance.get().dispose()
    worker = subprocess.Popen(
        [str(Path(sys.executable).parent / "dagster-celery"), "worker", "start", "-A", "dagster_celery.app",
         "-y", str(config), "-q", "dagster", "--", "--concurrency", "1", "--pool", "solo"],
        cwd=ROOT, env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        with dg.DagsterInstance.get() as instance, dg.execute_job(dg.reconstructable(celery_job),
                                                                   instance=instance) as result:
            assert result.success
            worker_pids = {result.output_for_node("worker_pid"), result.output_for_node("same_worker_family")}
            assert os.getpid() not in worker_pids  # the steps ran in the worker, not in this process
    finally:
        os.killpg(worker.pid, signal.SIGTERM)  # the worker we started, and the celery process it started
        worker.wait(timeout=60)
