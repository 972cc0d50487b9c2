"""What a step process's parent imports once, so that each step process forked from it starts
without importing it again (names only: this module imports nothing).

The multiprocess executor (:mod:`pipelines.executors`) forks every step from a forkserver that
preloaded :data:`STEP_PRELOAD`; ``make bench-full`` forks its stage processes from a server that
preloaded the same list. It holds Dagster, the project's definitions (and through them the
pipeline and derive modules), and the modules Dagster's SQLite instance imports when a step opens
it — SQLAlchemy, Alembic, the run, event-log and schedule storages — which would otherwise cost
each step about a CPU-second; and pandas with pyarrow's bridge to it (``pyarrow.pandas_compat``),
which pyarrow imports the first time a step builds an array from a Python list (``pa.array``,
``pa.table``: every step that writes or reads a dataset or an index table), about 0.4 CPU-s per
such step, paid again by each step process. A step that builds no table (``corpus_tree``) maps
pandas' 33 MB without using it; the steps that do would map them anyway, so no step's peak
grows. Not preloaded, measured: the release step's legal core
(``serve.core``, 0.3 CPU-s to import) — every step process would map its 10 MB, and the largest
step's peak RSS is within 1 % of the 1 GB target; and ``upath``'s path classes, which opening the
instance imports (no difference in a step's start-up CPU in paired runs). A module that cannot be imported (another instance configuration,
a Dagster version without it) is skipped by the forkserver; the step then imports what it needs.
"""

from __future__ import annotations

STEP_PRELOAD: list[str] = [
    "dagster", "pipelines.definitions",
    "sqlalchemy", "alembic", "fsspec", "upath", "dotenv",
    "dagster._core.instance.factory", "dagster._core.storage.root", "dagster._core.storage.sqlite_storage",
    "dagster._core.storage.runs.sqlite.sqlite_run_storage",
    "dagster._core.storage.event_log.sqlite.sqlite_event_log",
    "dagster._core.storage.event_log.sqlite.consolidated_sqlite_event_log",
    "dagster._core.storage.schedules.sqlite.sqlite_schedule_storage",
    "dagster._core.storage.local_compute_log_manager", "dagster._core.storage.migration.utils",
    "dagster._core.run_coordinator", "dagster._core.launcher", "dagster._core.remote_representation",
    "dagster._core.execution.backfill", "dagster._core.secrets.loader",
    "dagster._core.definitions.repository_definition.repository_data_builder",
    "pandas", "pyarrow.pandas_compat",
]
