"""The step preload: the multiprocess executor forks its steps from a forkserver that preloaded
:data:`pipelines.preload.STEP_PRELOAD`, and every name on that list is a module that imports (a
Dagster upgrade that moves one fails here rather than silently costing every step its import)."""

from __future__ import annotations

import importlib

import dagster as dg

from pipelines.definitions import build_definitions
from pipelines.preload import STEP_PRELOAD


def test_the_multiprocess_executor_preloads_the_step_modules() -> None:
    defs: dg.Definitions = build_definitions("multiprocess")
    config = dict(defs.resolve_job_def("evidence").executor_def.apply_config_mapping({}).value["config"])
    assert config["start_method"] == {"forkserver": {"preload_modules": STEP_PRELOAD}}


def test_every_preloaded_name_imports() -> None:
    for name in STEP_PRELOAD:
        assert importlib.import_module(name).__name__ == name
