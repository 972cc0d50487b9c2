"""Admission: the execution gate (running, queued, queue deadline) and the rate buckets."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from legal.errors import ConfigError
from serve.admission import AdmissionLimits, Busy, Gate, RateLimited, RateLimiter, TokenBucket
from serve.app import AppSettings, create_app
from serve.mount import MountConfig, ServeState
from tests.serve.corpus import WORK

# -- the gate, alone ---------------------------------------------------------------------------


@pytest.mark.parametrize(("executing", "queued", "deadline"), [(0, 1, 1.0), (1, -1, 1.0), (1, 1, 0.0)])
def test_a_gate_with_impossible_limits_is_a_typed_configuration_error(executing: int, queued: int,
                                                                      deadline: float) -> None:
    with pytest.raises(ConfigError) as err:
        Gate(executing=executing, queued=queued, queue_deadline=deadline)
    assert err.value.code == "invalid_admission_limits"
    assert f"executing={executing}" in (err.value.subject or "")


def test_the_gate_admits_up_to_its_executing_limit_at_once() -> None:
    async def scenario() -> None:
        gate = Gate(executing=2, queued=1, queue_deadline=0.2)
        await gate.acquire()
        await gate.acquire()
        assert (gate.running, gate.waiting) == (2, 0)
        waiter = asyncio.create_task(gate.acquire())
        await asyncio.sleep(0.01)
        assert gate.waiting == 1
        with pytest.raises(Busy):  # queue full: refused at once
            await gate.acquire()
        gate.release()  # hands the slot to the waiter
        await waiter
        assert (gate.running, gate.waiting) == (2, 0)

    asyncio.run(scenario())


def test_a_waiter_past_the_queue_deadline_is_busy_and_leaves_the_queue() -> None:
    async def scenario() -> None:
        gate = Gate(executing=1, queued=4, queue_deadline=0.05)
        await gate.acquire()
        with pytest.raises(Busy) as caught:
            await gate.acquire()
        assert caught.value.retry_after_header() == "1"
        assert gate.waiting == 0
        gate.release()
        assert gate.running == 0

    asyncio.run(scenario())


def test_a_slot_released_from_a_worker_thread_reaches_the_waiter() -> None:
    async def scenario() -> None:
        gate = Gate(executing=1, queued=1, queue_deadline=2.0)
        await gate.acquire()
        threading.Timer(0.05, gate.release).start()
        await gate.acquire()
        assert gate.running == 1

    asyncio.run(scenario())


def test_a_cancelled_waiter_does_not_lose_the_slot() -> None:
    async def scenario() -> None:
        gate = Gate(executing=1, queued=2, queue_deadline=5.0)
        await gate.acquire()
        waiter = asyncio.create_task(gate.acquire())
        await asyncio.sleep(0.01)
        waiter.cancel()
        await asyncio.sleep(0.01)
        gate.release()
        await asyncio.wait_for(gate.acquire(), 1.0)
        assert (gate.running, gate.waiting) == (1, 0)

    asyncio.run(scenario())


# -- the rate buckets ----------------------------------------------------------------------------


def test_a_token_bucket_refills_at_its_rate() -> None:
    bucket = TokenBucket(capacity=2, rate=1.0, now=0.0)
    assert bucket.take(0.0) == 0.0 and bucket.take(0.0) == 0.0
    assert bucket.take(0.0) == pytest.approx(1.0)
    assert bucket.take(1.0) == 0.0


def test_each_client_has_its_own_bucket_and_the_table_is_bounded() -> None:
    now = [0.0]
    limits = AdmissionLimits(client_per_minute=60, client_burst=2, global_per_minute=0, max_clients=3)
    limiter = RateLimiter(limits, clock=lambda: now[0])
    limiter.check("a")
    limiter.check("a")
    with pytest.raises(RateLimited) as caught:
        limiter.check("a")
    assert caught.value.retry_after_header() == "1"
    limiter.check("b")  # another client is unaffected
    for client in ("c", "d", "e"):
        limiter.check(client)
    assert len(limiter._clients) == 3
    now[0] = 1.0
    limiter.check("a")


def test_the_global_bucket_limits_everyone() -> None:
    limiter = RateLimiter(AdmissionLimits(client_per_minute=0, global_per_minute=60, global_burst=3), clock=lambda: 0.0)
    for client in ("a", "b", "c"):
        limiter.check(client)
    with pytest.raises(RateLimited):
        limiter.check("d")


# -- over HTTP, concurrently -----------------------------------------------------------------------


async def _fire(app: object, count: int, path: str = "/api/v1/as_of") -> list[httpx.Response]:
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        calls = [client.post(path, json={"work": WORK, "date": "2021-06-01"}) for _ in range(count)]
        return list(await asyncio.gather(*calls))


def _app(make_state: Callable[..., ServeState], dev_index: Path, limits: AdmissionLimits, delay: float = 0.0,
         hold: threading.Event | None = None) -> object:
    state = make_state(MountConfig(index_dir=dev_index, unsigned_dev=True), limits=limits, delay=delay, hold=hold,
                       mount=True)
    return create_app(state, AppSettings(limits=limits, mount_on_startup=False))


async def _saturate(app: object, hold: threading.Event, count: int, refused: int) -> list[httpx.Response]:
    """Fire ``count`` requests while the core is held; release it once ``refused`` have answered."""
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        tasks = [asyncio.create_task(client.post("/api/v1/as_of", json={"work": WORK, "date": "2021-06-01"}))
                 for _ in range(count)]
        while sum(task.done() for task in tasks) < refused:
            await asyncio.wait(tasks, timeout=0.05, return_when=asyncio.FIRST_COMPLETED)
        await asyncio.sleep(0.05)
        hold.set()
        return list(await asyncio.gather(*tasks))


def test_saturation_answers_503_busy_with_retry_after(make_state: Callable[..., ServeState], dev_index: Path) -> None:
    limits = AdmissionLimits(executing=8, queued=16, queue_deadline=2.0, client_per_minute=0, global_per_minute=0)
    hold = threading.Event()
    app = _app(make_state, dev_index, limits, hold=hold)
    responses = asyncio.run(_saturate(app, hold, 40, refused=16))
    statuses = Counter(r.status_code for r in responses)
    assert statuses[200] == 24, statuses  # 8 running + 16 queued, admitted within the 2 s queue deadline
    assert statuses[503] == 16, statuses
    busy = next(r for r in responses if r.status_code == 503)
    assert busy.json()["error"]["code"] == "busy" and busy.json()["error"]["family"] == "transport"
    assert int(busy.headers["retry-after"]) >= 1


def test_queued_requests_past_the_deadline_are_busy(make_state: Callable[..., ServeState], dev_index: Path) -> None:
    limits = AdmissionLimits(executing=2, queued=4, queue_deadline=0.2, client_per_minute=0, global_per_minute=0)
    app = _app(make_state, dev_index, limits, delay=0.6)
    statuses = Counter(r.status_code for r in asyncio.run(_fire(app, 6)))
    assert statuses == {200: 2, 503: 4}


def test_a_client_over_its_rate_gets_429(make_state: Callable[..., ServeState], dev_index: Path) -> None:
    limits = AdmissionLimits(client_per_minute=6, client_burst=5, global_per_minute=0)
    app = _app(make_state, dev_index, limits, delay=0.0)
    responses = asyncio.run(_fire(app, 12))
    statuses = Counter(r.status_code for r in responses)
    assert statuses == {200: 5, 429: 7}, statuses
    limited = next(r for r in responses if r.status_code == 429)
    assert limited.json()["error"]["code"] == "rate_limited" and "retry-after" in limited.headers


def test_health_is_never_rate_limited(make_state: Callable[..., ServeState], dev_index: Path) -> None:
    limits = AdmissionLimits(client_per_minute=6, client_burst=1, global_per_minute=0)
    app = _app(make_state, dev_index, limits, delay=0.0)
    responses = asyncio.run(_fire(app, 5, "/healthz"))
    assert {r.status_code for r in responses} <= {200, 405}
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]

    async def probe() -> set[int]:
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return {(await client.get("/healthz")).status_code for _ in range(5)}

    assert asyncio.run(probe()) == {200}


def test_a_request_past_its_deadline_answers_504(make_state: Callable[..., ServeState], dev_index: Path) -> None:
    limits = AdmissionLimits(client_per_minute=0, global_per_minute=0)
    state = make_state(MountConfig(index_dir=dev_index, unsigned_dev=True), limits=limits, delay=1.0, mount=True)
    app = create_app(state, AppSettings(limits=limits, deadline=0.2, mount_on_startup=False))
    (response,) = asyncio.run(_fire(app, 1))
    assert response.status_code == 504
    assert response.json()["error"]["code"] == "deadline_exceeded"


def test_mcp_refusals_at_the_edge_are_json_rpc(make_state: Callable[..., ServeState], dev_index: Path) -> None:
    from starlette.testclient import TestClient

    limits = AdmissionLimits(client_per_minute=6, client_burst=1, global_per_minute=0)
    app = _app(make_state, dev_index, limits)
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {}}
    with TestClient(app) as client:  # type: ignore[arg-type]
        too_big = client.post("/mcp", content=b"{" + b" " * (70 * 1024) + b"}",
                              headers={"content-type": "application/json"})
        assert too_big.status_code == 413
        assert too_big.json()["error"]["code"] == -32003
        client.post("/mcp", json=body)
        limited = client.post("/mcp", json=body)
    assert limited.status_code == 429
    error = limited.json()["error"]
    assert (error["code"], error["message"]) == (-32002, "rate_limited")
    assert error["data"]["error"]["family"] == "transport"


def test_the_malloc_arenas_of_the_server_can_be_capped() -> None:
    import platform

    from serve.app import limit_malloc_arenas

    if platform.libc_ver()[0] != "glibc":
        pytest.skip("mallopt(M_ARENA_MAX) is glibc's")
    assert limit_malloc_arenas(2) is True


def test_a_worker_can_fix_its_mmap_threshold() -> None:
    import platform

    from serve.app import fix_mmap_threshold

    if platform.libc_ver()[0] != "glibc":
        pytest.skip("mallopt(M_MMAP_THRESHOLD) is glibc's")
    assert fix_mmap_threshold() is True


def test_lex_serve_runs_three_calls_at_once_in_one_malloc_arena_by_default() -> None:
    from cli.serve import executing_slots, group

    options = {p.name: p for p in group.params}
    assert AdmissionLimits().executing == executing_slots(options["executing"].default, 1) == 3
    assert executing_slots(options["executing"].default, 2) == 2  # per worker, with several
    assert executing_slots(5, 2) == 5
    assert options["malloc_arenas"].default == 1


def test_workers_share_out_the_global_rate_and_keep_the_client_rate() -> None:
    from cli.serve import worker_limits

    limits = worker_limits(2, client_rate=120.0, global_rate=600.0, workers=2)
    assert (limits.global_per_minute, limits.global_burst) == (300.0, 300.0)
    assert (limits.client_per_minute, limits.executing) == (120.0, 2)
    assert worker_limits(3, 0.0, 0.0, 4).global_per_minute == 0.0  # off stays off
