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


def test_a_step_building_a_table_imports_no_pandas_after_the_preload() -> None:
    """pyarrow imports pandas (and its bridge to it) the first time an array is built from a Python
    list; a step forked after the preload must find them imported (fails while they are not on
    :data:`STEP_PRELOAD`: each step that writes a table would import them again)."""
    import subprocess
    import sys

    script = (
        "import importlib, sys\n"
        "from pipelines.preload import STEP_PRELOAD\n"
        "for name in STEP_PRELOAD:\n"
        "    importlib.import_module(name)\n"
        "before = set(sys.modules)\n"
        "import pyarrow as pa\n"
        "pa.table({'a': [1, 2], 'b': ['x', None]})\n"
        "print(sorted(m for m in set(sys.modules) - before if m.split('.')[0] == 'pandas'))\n"
    )
    found = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "[]", found.stdout[:300]
