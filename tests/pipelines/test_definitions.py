"""The definitions load and validate (default, k8s and celery executors), the asset graph matches
its golden snapshot, and the schedules and sensors ask for what they should."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest

from legal.errors import ConfigError
from pipelines.definitions import build_definitions
from pipelines.settings import PUBLISHERS, SHARDS
from tests.pipelines.conftest import ROOT
from tests.pipelines.graph_snapshot import GOLDEN, render

JOB_NAMES = {"evidence", "ingest", "derive_shards", "index", "release"}


def _validate(defs: dg.Definitions) -> None:
    """What ``dagster definitions validate`` does, in process."""
    dg.Definitions.validate_loadable(defs)
    names = {job.name for job in defs.resolve_all_job_defs()}
    assert names >= JOB_NAMES


def test_module_definitions_load_and_validate() -> None:
    from pipelines.definitions import defs

    _validate(defs)
    assert defs.resolve_job_def("evidence").partitions_def is not None


@pytest.mark.parametrize("executor", ["multiprocess", "in_process", "k8s", "celery"])
def test_definitions_load_with_each_executor(executor: str) -> None:
    """k8s and celery need no cluster to load: only their executor config is checked."""
    defs = build_definitions(executor)
    _validate(defs)
    job = defs.resolve_job_def("evidence")
    expected = {"multiprocess": "multiprocess", "in_process": "in_process", "k8s": "k8s", "celery": "celery"}
    assert expected[executor] in job.executor_def.name


def test_unknown_executor_and_automation_are_refused() -> None:
    with pytest.raises(ConfigError):
        build_definitions("spark")
    with pytest.raises(ConfigError):
        build_definitions("in_process", automation="always")


def _executor_config(defs: dg.Definitions) -> dict[str, object]:
    return dict(defs.resolve_job_def("evidence").executor_def.apply_config_mapping({}).value["config"])


def test_celery_broker_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEX_CELERY_BROKER", "pyamqp://guest@127.0.0.1//")
    config = _executor_config(build_definitions("celery"))
    assert config["broker"] == config["backend"] == "pyamqp://guest@127.0.0.1//"


def test_k8s_step_concurrency_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEX_MAX_CONCURRENT", "3")
    assert _executor_config(build_definitions("k8s"))["max_concurrent"] == 3
    assert _executor_config(build_definitions("multiprocess"))["max_concurrent"] == 3


def test_dagster_cli_validates_the_workspace(tmp_path: Path) -> None:
    """The real ``dagster definitions validate`` over ``workspace.yaml``, once."""
    env = {**os.environ, "DAGSTER_HOME": str(tmp_path), "DAGSTER_DISABLE_TELEMETRY": "1"}
    (tmp_path / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    dagster = os.path.join(os.path.dirname(sys.executable), "dagster")
    done = subprocess.run([dagster, "definitions", "validate", "-w", "workspace.yaml"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Validation successful" in done.stdout + done.stderr


def test_asset_graph_matches_golden() -> None:
    """Regenerate with ``python scripts/regen_golden_pipelines.py`` after an intended change."""
    assert render(build_definitions("in_process", automation="off")) == GOLDEN.read_text()


def test_shards_are_bounded_static_partitions() -> None:
    defs = build_definitions("in_process")
    shards = defs.resolve_job_def("derive_shards").partitions_def
    assert shards is not None
    keys = shards.get_partition_keys()
    assert len(keys) == len(PUBLISHERS) * SHARDS
    assert sorted(keys) == sorted(f"{p}|{i}" for p in PUBLISHERS for i in range(SHARDS))


def _tick(defs: dg.Definitions, name: str) -> list[dg.RunRequest]:
    when = dt.datetime(2026, 11, 30, 3, 0, tzinfo=dt.UTC)
    schedule = defs.resolve_schedule_def(name)
    with dg.build_schedule_context(scheduled_execution_time=when,
                                   repository_def=defs.get_repository_def()) as context:
        data = schedule.evaluate_tick(context)
    return list(data.run_requests or [])


@pytest.mark.parametrize("schedule", ["nightly_evidence", "nightly_ingest"])
def test_nightly_schedule_requests_one_run_per_publisher(schedule: str) -> None:
    requests = _tick(build_definitions("in_process"), schedule)
    assert [r.partition_key for r in requests] == list(PUBLISHERS)
    assert [r.run_key for r in requests] == [f"{p}:2026-11-30" for p in PUBLISHERS]


def test_release_schedule_requests_one_unpartitioned_run() -> None:
    requests = _tick(build_definitions("in_process"), "nightly_release")
    assert len(requests) == 1 and requests[0].partition_key is None


@pytest.mark.parametrize(("automation", "running"), [
    ("off", set()),
    ("nightly", {"nightly_evidence", "nightly_release", "notify_on_run_failure"}),
    ("fanout", {"nightly_ingest", "nightly_release", "notify_on_run_failure", "shards_after_ingest",
                "index_after_shards"}),
    ("eager", {"lex_automation", "notify_on_run_failure"}),
])
def test_automation_mode_decides_what_starts_running(automation: str, running: set[str]) -> None:
    defs = build_definitions("in_process", automation=automation)
    on = {s.name for s in defs.schedules or [] if s.default_status == dg.DefaultScheduleStatus.RUNNING}
    on |= {s.name for s in defs.sensors or [] if s.default_status == dg.DefaultSensorStatus.RUNNING}
    assert on == running
