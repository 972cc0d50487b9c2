"""Served: a pathological request stops at its deadline and delays nobody.

The app runs on loopback over the hand-made indexes; ``diff`` is made deliberately slow (an
endless SQLite statement). While it runs, ``/healthz`` answers within 50 ms and calls on the same
and the other publisher answer within the budget; the slow call ends at the core's deadline with
504 ``deadline_exceeded``, its statement interrupted and its connection back in the pool.
"""

from __future__ import annotations

import statistics
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from serve.admission import AdmissionLimits
from serve.app import AppSettings, create_app
from serve.app import new_state as new_serve_state
from serve.core.ops import diff as diff_op
from serve.mount import MountConfig
from tests.serve.server import running

HEALTHZ_BUDGET = 0.05
CALL_BUDGET = 0.5
SLOW = ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
        "SELECT COUNT(*) FROM (SELECT i FROM n LIMIT 500000000)")


def _slow_changes(conn: Any, *_: Any, **__: Any) -> dict[str, Any]:
    conn.execute(SLOW).fetchone()
    raise AssertionError("the deadline should have interrupted the statement")


def test_a_pathological_request_delays_neither_healthz_nor_other_calls(
        handmade_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(diff_op, "provision_changes", _slow_changes)
    state = new_serve_state(MountConfig(index_dir=handmade_dir, unsigned_dev=True))
    state.mount()
    core: Any = state.mounted.core
    core.deadline_seconds = 1.5
    settings = AppSettings(limits=AdmissionLimits(client_per_minute=0, global_per_minute=0), deadline=10.0)
    slow_status: list[int] = []
    try:
        with running(create_app(state, settings)) as url, httpx.Client(base_url=url, timeout=20) as client:
            def pathological() -> None:
                slow_status.append(client.post("/api/v1/diff", json={
                    "work": "eu-eurlex:32099r0001", "from_date": "2020-06-01", "to_date": "2022-06-01"}).status_code)

            worker = threading.Thread(target=pathological)
            worker.start()
            time.sleep(0.2)
            healthz, calls = [], []
            with httpx.Client(base_url=url, timeout=20) as other:
                while worker.is_alive() and len(healthz) < 20:
                    started = time.monotonic()
                    assert other.get("/healthz").status_code == 200
                    healthz.append(time.monotonic() - started)
                    for path, body in (("/api/v1/as_of", {"work": "eu-eurlex:32099r0001", "date": "2021-06-01"}),
                                       ("/api/v1/timeline", {"work": "lu-legilux:loi-2099-01-01-n1"})):
                        started = time.monotonic()
                        assert other.post(path, json=body).status_code == 200
                        calls.append(time.monotonic() - started)
            still_running = worker.is_alive()
            worker.join()
        index = core.indexes["eu-eurlex"]
        assert still_running or len(healthz) == 20
        assert slow_status == [504]
        assert index.interrupts >= 1 and index.idle_connections == index.connections
        print(f"healthz max {max(healthz):.4f} s median {statistics.median(healthz):.4f} s; calls max {max(calls):.4f} s")
        assert max(healthz) < HEALTHZ_BUDGET, healthz
        assert max(calls) < CALL_BUDGET, calls
    finally:
        state.close()
