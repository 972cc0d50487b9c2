"""A two-worker server over the real core whose ``diff`` is deliberately slow (for ``test_workers``).

``python -m tests.serve.workers_app INDEX_DIR`` serves INDEX_DIR (unsigned) with
:func:`serve.app.run_workers` on a loopback port, prints its URL, and makes every ``diff`` run an
endless SQLite statement that the core's deadline (1.5 s) interrupts — as
``tests/serve_core/test_served_concurrency.py`` does in one process.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from serve.admission import AdmissionLimits
from serve.app import AppSettings, create_app, new_state, run_workers
from serve.core.ops import diff as diff_op
from serve.mount import MountConfig

SLOW = ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
        "SELECT COUNT(*) FROM (SELECT i FROM n LIMIT 500000000)")
DEADLINE = 1.5


def _slow_changes(conn: Any, *_: Any, **__: Any) -> dict[str, Any]:
    conn.execute(SLOW).fetchone()
    raise AssertionError("the deadline should have interrupted the statement")


def _short_deadline(core: Any, _directory: Path) -> None:
    core.deadline_seconds = DEADLINE


def main(index_dir: str) -> int:
    diff_op.provision_changes = _slow_changes  # type: ignore[assignment]
    limits = AdmissionLimits(client_per_minute=0, global_per_minute=0)
    settings = AppSettings(limits=limits, deadline=10.0)

    def make_app(_worker: int) -> Any:
        state = new_state(MountConfig(index_dir=Path(index_dir), unsigned_dev=True), limits,
                          mount_hooks=(_short_deadline,))
        return create_app(state, settings)

    return run_workers(make_app, workers=2, host="127.0.0.1", port=0,
                       announce=lambda url: print(url, flush=True), log_level="error")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
