"""Regenerate ``tests/golden/pipelines/asset_graph.json`` from ``pipelines.definitions``.

Run after an intended change to the asset graph (assets, deps, partitions, checks, jobs,
schedules, sensors): ``python scripts/regen_golden_pipelines.py``, then review the diff. The
snapshot is taken with ``LEX_AUTOMATION=off`` (every schedule and sensor stopped by default),
whatever the environment says.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "1")
    from pipelines.definitions import build_definitions
    from tests.pipelines.graph_snapshot import GOLDEN, render

    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_text(render(build_definitions("in_process", automation="off")))
    print(f"wrote {GOLDEN.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
