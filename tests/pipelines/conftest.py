"""Pipeline test helpers: running the project's jobs in process and reading what they reported.

The jobs are the real ones of :func:`pipelines.definitions.build_definitions` (in-process
executor, settings pointing at a temporary work directory, the bundled sample corpus served by
the replay publisher on 127.0.0.1). One full single-node run (``baseline``) is made once per
session and copied by the tests that need a populated work directory.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "1")

import dagster as dg

from pipelines.definitions import build_definitions
from pipelines.settings import PUBLISHERS, LexSettings

ROOT = Path(__file__).resolve().parents[2]
BUILT_AT = "2026-11-30"  # fixed: the same inputs give byte-identical indexes on every run


@dataclass
class Outcome:
    """What one job run reported."""

    success: bool
    run_id: str
    metadata: dict[str, dict[str, Any]] = field(default_factory=dict)  # "asset[partition]" → values
    checks: dict[str, bool] = field(default_factory=dict)  # "asset:check" → passed (one run, one partition)
    data_versions: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    result: Any = None

    def meta(self, asset: str, partition: str | None = None) -> dict[str, Any]:
        return self.metadata[_label(asset, partition)]


def _label(asset: str, partition: str | None) -> str:
    return f"{asset}[{partition}]" if partition else asset


def run_job(defs: dg.Definitions, name: str, instance: dg.DagsterInstance, partition: str | None = None,
            tags: dict[str, str] | None = None) -> Outcome:
    started = time.monotonic()
    result = defs.resolve_job_def(name).execute_in_process(
        partition_key=partition, instance=instance, tags=tags, raise_on_error=False)
    outcome = Outcome(success=result.success, run_id=result.run_id, seconds=time.monotonic() - started,
                      result=result)
    for event in result.get_asset_materialization_events():
        mat = event.event_specific_data.materialization
        label = _label(mat.asset_key.to_user_string(), mat.partition)
        outcome.metadata[label] = {k: v.value for k, v in mat.metadata.items()}
        outcome.data_versions[label] = mat.tags.get("dagster/data_version", "") if mat.tags else ""
    for evaluation in result.get_asset_check_evaluations():
        outcome.checks[f"{evaluation.asset_key.to_user_string()}:{evaluation.check_name}"] = evaluation.passed
    return outcome


@dataclass
class FullRun:
    """One nightly round on a single node: ``evidence`` per publisher, then ``release``."""

    evidence: dict[str, Outcome]
    release: Outcome
    seconds: float

    def outcomes(self) -> list[Outcome]:
        return [*self.evidence.values(), self.release]


def full_run(defs: dg.Definitions, instance: dg.DagsterInstance) -> FullRun:
    started = time.monotonic()
    evidence = {p: run_job(defs, "evidence", instance, p) for p in PUBLISHERS}
    release = run_job(defs, "release", instance)
    return FullRun(evidence, release, time.monotonic() - started)


def settings(workdir: Path) -> LexSettings:
    return LexSettings(workdir=str(workdir), source="sample", built_at=BUILT_AT)


def definitions(workdir: Path) -> dg.Definitions:
    return build_definitions("in_process", settings=settings(workdir))


@pytest.fixture(scope="session")
def dagster_instance(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dg.DagsterInstance]:
    """A SQLite Dagster instance in a temporary directory (run history across the session)."""
    with dg.DagsterInstance.local_temp(str(tmp_path_factory.mktemp("dagster_home"))) as instance:
        yield instance


@dataclass
class Baseline:
    workdir: Path
    first: FullRun
    second: FullRun


@pytest.fixture(scope="session")
def baseline(tmp_path_factory: pytest.TempPathFactory, dagster_instance: dg.DagsterInstance) -> Baseline:
    """Two full rounds over the sample into a fresh work directory (the second changes nothing)."""
    workdir = tmp_path_factory.mktemp("baseline") / "work"
    defs = definitions(workdir)
    first = full_run(defs, dagster_instance)
    second = full_run(defs, dagster_instance)
    return Baseline(workdir, first, second)


def copy_workdir(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest, symlinks=True)
    return dest


def lex_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run the ``lex`` command line (``python -m cli``) and return what it did."""
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=cwd or ROOT, capture_output=True,
                          text=True, timeout=180, check=False)
