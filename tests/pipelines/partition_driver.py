"""Run one publisher's ``evidence`` run in this process, started at the same moment as the other
publisher's run in another process (the concurrency test, ``test_partitions_side_by_side.py``).

    python -m tests.pipelines.partition_driver WORKDIR PUBLISHER BARRIER_DIR

The Dagster instance is ``DAGSTER_HOME``'s (opened by the test before both drivers start, as a
deployment's daemon has it open before a backfill launches runs). Each driver builds the
definitions and opens the instance, writes ``BARRIER_DIR/<publisher>`` and waits until every
publisher's file is there, so that both runs start together; then it runs its partition with the
in-process executor and prints one JSON line ``{"success", "run_id", "checks"}``. Exits 1 if the
run failed or a check did not pass, 3 if the other driver never came.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "1")

import dagster as dg

from pipelines.settings import PUBLISHERS
from tests.pipelines.conftest import definitions, run_job


def main(argv: list[str]) -> int:
    workdir, publisher, barrier = Path(argv[0]), argv[1], Path(argv[2])
    defs = definitions(workdir)
    instance = dg.DagsterInstance.get()
    (barrier / publisher).write_text(str(os.getpid()))
    deadline = time.monotonic() + 300
    while not all((barrier / p).exists() for p in PUBLISHERS):
        if time.monotonic() > deadline:
            return 3
        time.sleep(0.05)
    outcome = run_job(defs, "evidence", instance, publisher)
    print(json.dumps({"success": outcome.success, "run_id": outcome.run_id, "checks": outcome.checks}))
    return 0 if outcome.success and all(outcome.checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
