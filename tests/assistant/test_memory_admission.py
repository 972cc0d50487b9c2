"""Thread registry bounds, admission limits and idempotency, including under concurrency."""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
from concurrent.futures import ThreadPoolExecutor

import pytest

from assistant.admission import (
    Admission,
    AdmissionRefused,
    IdempotencyConflict,
    IdempotencyRegistry,
)
from assistant.memory import SHORTENED, ThreadError, ThreadRegistry
from assistant.vocab import ContextDisposition
from legal.errors import ConfigError

CLEAR = ContextDisposition.CLEAR


def run(coro: object) -> object:
    return asyncio.run(coro)  # type: ignore[arg-type]


async def _commit_turns(registry: ThreadRegistry, count: int, size: int = 10) -> str:
    token = None
    for i in range(count):
        lease = await registry.acquire(token)
        lease.commit(f"q{i}", "a" * size, None, CLEAR)
        lease.release()
        token = lease.token
    assert token is not None
    return token


def test_six_turns_kept_and_only_the_digest_stored() -> None:
    async def scenario() -> None:
        registry = ThreadRegistry()
        token = await _commit_turns(registry, 7)
        lease = await registry.acquire(token)
        assert [m["content"] for m in lease.history if m["role"] == "user"] == [f"q{i}" for i in range(1, 7)]
        lease.release()
        assert list(registry._threads) == [hashlib.sha256(token.encode()).hexdigest()]
        assert len(token) == 43
    run(scenario())


def test_thread_byte_bound_drops_oldest_turns_and_long_replies_are_shortened() -> None:
    async def scenario() -> None:
        registry = ThreadRegistry(max_thread_bytes=10_000)
        token = await _commit_turns(registry, 5, size=3_900)
        lease = await registry.acquire(token)
        assert len(lease.history) == 4 and lease.thread.size <= 10_000
        lease.commit("long", "b" * 5000, None, CLEAR)
        assert lease.thread.turns[-1][1].endswith(SHORTENED) and len(lease.thread.turns[-1][1]) == 4000
        lease.release()
    run(scenario())


def test_a_global_bound_below_one_thread_is_a_typed_configuration_error() -> None:
    with pytest.raises(ConfigError) as caught:
        ThreadRegistry(max_thread_bytes=10_000, max_total_bytes=9_999)
    assert caught.value.code == "invalid_thread_bounds"
    assert caught.value.subject == "max_total_bytes=9999, max_thread_bytes=10000"


def test_unknown_or_forged_tokens_never_fall_through() -> None:
    async def scenario() -> None:
        registry = ThreadRegistry()
        await _commit_turns(registry, 1)
        for token in ("A" * 43, "short", "x" * 43 + "!"):
            with pytest.raises(ThreadError) as caught:
                await registry.acquire(token)
            assert caught.value.code == "thread_unavailable"
    run(scenario())


def test_a_fresh_thread_that_never_commits_leaves_nothing() -> None:
    async def scenario() -> None:
        registry = ThreadRegistry()
        lease = await registry.acquire(None)
        lease.release()
        assert len(registry) == 0
        with pytest.raises(ThreadError):
            await registry.acquire(lease.token)
    run(scenario())


def test_idle_expiry_and_reset() -> None:
    now = [0.0]

    async def scenario() -> None:
        registry = ThreadRegistry(clock=lambda: now[0])
        token = await _commit_turns(registry, 1)
        now[0] = 31 * 60
        with pytest.raises(ThreadError):
            await registry.acquire(token)
        token = await _commit_turns(registry, 1)
        assert registry.reset(token) and not registry.reset(token)
    run(scenario())


def test_thread_count_and_global_bytes_evict_only_inactive_threads() -> None:
    async def scenario() -> None:
        registry = ThreadRegistry(max_threads=3, max_thread_bytes=2_000, max_total_bytes=4_000)
        held = await registry.acquire(await _commit_turns(registry, 1))
        for _ in range(4):
            await _commit_turns(registry, 1, size=1_500)
        assert len(registry) <= 3 and registry.total_bytes <= 4_000
        assert held.thread.key in registry._threads  # the active thread survived
        held.release()
    run(scenario())


def test_one_owner_two_waiters_third_is_busy_under_concurrency() -> None:
    async def scenario() -> None:
        registry = ThreadRegistry()
        token = await _commit_turns(registry, 1)
        owner = await registry.acquire(token)
        waiters = [asyncio.create_task(registry.acquire(token)) for _ in range(2)]
        await asyncio.sleep(0.01)
        with pytest.raises(ThreadError) as caught:
            await registry.acquire(token)
        assert caught.value.code == "thread_busy"
        owner.release()
        for task in waiters:
            lease = await task
            lease.release()
    run(scenario())


def test_many_concurrent_new_threads_respect_the_thread_bound() -> None:
    async def one(registry: ThreadRegistry) -> str:
        try:
            lease = await registry.acquire(None)
        except ThreadError as exc:
            return exc.code
        assert len(registry) <= 16
        await asyncio.sleep(0)
        lease.commit("q", "a", None, CLEAR)
        lease.release()
        return "ok"

    async def scenario() -> None:
        registry = ThreadRegistry(max_threads=16)
        codes = await asyncio.gather(*(one(registry) for _ in range(200)))
        assert len(registry) == 16
        assert codes.count("ok") >= 16 and set(codes) <= {"ok", "thread_capacity"}
    run(scenario())


def test_admission_limits_hold_under_concurrency() -> None:
    admission = Admission(per_client=200, global_daily=400, concurrent=4)
    accepted: list[object] = []
    refused: list[str] = []

    def attempt(client: str) -> None:
        try:
            accepted.append(admission.admit(client))
        except AdmissionRefused as exc:
            refused.append(exc.code)

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(attempt, [f"c{i % 3}" for i in range(50)]))
    assert len(accepted) == 4 and set(refused) == {"busy"} and admission.snapshot()["global"] == 4
    for lease in accepted:
        lease.release()  # type: ignore[attr-defined]

    def churn(client: str) -> None:
        try:
            admission.admit(client).release()
        except AdmissionRefused as exc:
            refused.append(exc.code)

    refused.clear()
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(churn, ["one"] * 300 + [f"c{i}" for i in range(300)]))
    counts = admission.snapshot()
    assert counts["global"] == 400 and counts["executing"] == 0
    assert admission._clients["one"] <= 200


def test_daily_quota_per_client_and_rollover() -> None:
    now = [dt.datetime(2026, 3, 1, 23, 0, tzinfo=dt.UTC)]
    admission = Admission(per_client=2, global_daily=400, concurrent=4, clock=lambda: now[0])
    for _ in range(2):
        admission.admit("a").release()
    with pytest.raises(AdmissionRefused) as caught:
        admission.admit("a")
    assert caught.value.code == "per_client_quota"
    admission.admit("b").release()
    now[0] += dt.timedelta(hours=2)
    admission.admit("a").release()


def test_idempotency_join_conflict_and_replay_unavailable() -> None:
    async def scenario() -> None:
        registry = IdempotencyRegistry(max_entries=4)
        owner = registry.claim("k1", "f1")
        duplicate = registry.claim("k1", "f1")
        assert owner.owner and not duplicate.owner and duplicate.entry is owner.entry
        with pytest.raises(IdempotencyConflict) as caught:
            registry.claim("k1", "f2")
        assert caught.value.code == "key_reused"
        registry.complete("k1", owner.entry, 200, {"reply": "r"}, retain=True)
        await duplicate.entry.done.wait()
        assert duplicate.entry.body == {"reply": "r"}
        for i in range(5):
            claim = registry.claim(f"n{i}", "f")
            registry.complete(f"n{i}", claim.entry, 200, {}, retain=True)
        with pytest.raises(IdempotencyConflict) as caught:
            registry.claim("k1", "f1")
        assert caught.value.code == "replay_unavailable"
        pre = registry.claim("pre", "f")
        registry.complete("pre", pre.entry, 429, {}, retain=False)
        assert "pre" not in registry._entries
    run(scenario())
