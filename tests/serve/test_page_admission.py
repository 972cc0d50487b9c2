"""A page's steps share one slot of the admission gate (``ServeState.admitted``).

A diff page calls the core, shapes its rows and renders its template: three steps on the worker
pool, each with a slot of its own, so under load the page waited in the gate's queue three times
and went back and forth between the event loop and the pool three times. Now the first step takes
the page's slot and any later step runs in it, and a comparison's three are one step. A page abandoned at its
deadline gives the slot back only when the step still running finishes, as a single call does.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from starlette.testclient import TestClient

from serve.admission import Gate
from serve.app import AppSettings, create_app, new_state
from serve.mount import MountConfig, ServeState
from tests.serve.conftest import NO_RATE
from tests.serve.corpus import SLUG, V1, V2A, V2B

WORK_URL = f"/lu-legilux/{SLUG}"


class CountingGate(Gate):
    """The gate, counting the slots taken."""

    taken = 0

    async def acquire(self) -> None:
        await super().acquire()
        self.taken += 1


def _counting(state: ServeState) -> CountingGate:
    gate = CountingGate(state.limits.executing, state.limits.queued, state.limits.queue_deadline)
    state.gate = gate
    return gate


def _stepped(dev_index: Path) -> tuple[ServeState, CountingGate, list[str]]:
    """A mounted state whose gate counts the slots taken and whose :meth:`ServeState.run` lists the
    steps it runs on the pool (by the function's name)."""
    state = new_state(MountConfig(index_dir=dev_index, unsigned_dev=True), NO_RATE)
    state.mount()
    gate = _counting(state)
    steps: list[str] = []
    run = state.run

    async def counted_run(function: Callable[..., object], *args: object) -> object:
        steps.append(getattr(function, "__name__", type(function).__name__))
        return await run(function, *args)

    state.run = counted_run  # type: ignore[method-assign]
    return state, gate, steps


def test_a_diff_page_takes_one_slot_for_its_core_call_rows_and_rendering(dev_index: Path) -> None:
    state, gate, steps = _stepped(dev_index)
    app = create_app(state, AppSettings(limits=NO_RATE, mount_on_startup=False))
    with TestClient(app) as client:
        response = client.get(f"{WORK_URL}/diff/{V1}/{V2A}", headers={"accept": "text/html"})
    state.close()
    assert response.status_code == 200 and "<ins>" in response.text
    assert len(steps) == 1, steps  # the core's diff, the rows and the rendering: three steps before
    assert gate.taken == 1  # three before: one per step
    assert gate.running == 0


def test_an_api_call_and_a_page_answered_without_the_core_take_their_own_slots(dev_index: Path) -> None:
    state = new_state(MountConfig(index_dir=dev_index, unsigned_dev=True), NO_RATE)
    state.mount()
    gate = _counting(state)
    app = create_app(state, AppSettings(limits=NO_RATE, mount_on_startup=False))
    with TestClient(app) as client:
        assert client.post("/api/v1/timeline", json={"work": f"lu-legilux:{SLUG}"}).status_code == 200
        assert client.post("/api/v1/timeline", json={"work": f"lu-legilux:{SLUG}"}).status_code == 200
        assert client.get(f"{WORK_URL}/diff/2022-01-01/2021-01-01").status_code == 400  # no core call
    state.close()
    assert gate.taken == 2 and gate.running == 0


def test_a_page_past_its_deadline_keeps_its_slot_until_its_step_finishes(
        make_state: Callable[..., ServeState], dev_index: Path) -> None:
    hold = threading.Event()
    state = make_state(MountConfig(index_dir=dev_index, unsigned_dev=True), hold=hold, mount=True)
    app = create_app(state, AppSettings(limits=NO_RATE, deadline=0.2, mount_on_startup=False))

    async def scenario() -> tuple[int, int, int]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            response = await client.get(f"{WORK_URL}/{V1}", headers={"accept": "text/html"})
        running_while_held = state.gate.running
        hold.set()
        deadline = time.monotonic() + 5.0
        while state.gate.running and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        return response.status_code, running_while_held, state.gate.running

    try:
        status, running_while_held, running_after = asyncio.run(scenario())
    finally:
        hold.set()
        state.close()
    assert status == 504
    assert running_while_held == 1  # the abandoned core call still runs in the page's slot
    assert running_after == 0


def test_a_search_page_is_one_step_for_its_search_and_rendering(dev_index: Path) -> None:
    state, gate, steps = _stepped(dev_index)
    app = create_app(state, AppSettings(limits=NO_RATE, mount_on_startup=False))
    with TestClient(app) as client:
        response = client.get("/search?q=article", headers={"accept": "text/html"})
    state.close()
    assert response.status_code == 200 and SLUG in response.text
    assert steps == ["step"]  # two before: the search, then the rendering
    assert gate.taken == 1 and gate.running == 0


def _submissions(state: ServeState) -> list[str]:
    """The names of the functions handed to the worker pool (each one hand-off from the event loop)."""
    handed: list[str] = []
    submit = state._pool.submit

    def counted(function: Callable[..., object], *args: object) -> object:
        handed.append(getattr(function, "__name__", type(function).__name__))
        return submit(function, *args)

    state._pool.submit = counted  # type: ignore[method-assign]
    return handed


def _pages(dev_index: Path, *urls: str) -> tuple[list[Any], list[str], CountingGate]:
    """The HTML answers to ``urls``, the functions handed to the pool while they were made, the gate."""
    state, gate, _ = _stepped(dev_index)
    handed = _submissions(state)
    app = create_app(state, AppSettings(limits=NO_RATE, mount_on_startup=False))
    with TestClient(app) as client:
        responses = [client.get(url, headers={"accept": "text/html"}) for url in urls]
    state.close()
    return responses, handed, gate


def test_a_work_page_is_one_step_for_its_timeline_and_rendering(dev_index: Path) -> None:
    (response,), handed, gate = _pages(dev_index, WORK_URL)
    assert response.status_code == 200 and V1 in response.text and V2A in response.text
    assert len(handed) == 1, handed  # two before: the timeline, then the rendering
    assert gate.taken == 1 and gate.running == 0


def test_a_version_page_is_one_step_for_its_as_of_and_rendering(dev_index: Path) -> None:
    (version, ambiguous), handed, gate = _pages(dev_index, f"{WORK_URL}/{V1}", f"{WORK_URL}/2022-06-01")
    assert version.status_code == 200 and ambiguous.status_code == 409
    assert V2A in ambiguous.text and V2B in ambiguous.text
    assert len(handed) == 2, handed  # three before: as_of, then the rendering; as_of, then the choices on the event loop
    assert gate.taken == 2 and gate.running == 0


def test_a_version_page_for_a_date_without_a_version_lists_the_versions_in_the_same_slot(dev_index: Path) -> None:
    (response,), handed, gate = _pages(dev_index, f"{WORK_URL}/2019-06-01")
    assert response.status_code == 404 and V1 in response.text  # the choices: the work's versions
    assert len(handed) == 2, handed  # as_of (its page not made), then the timeline
    assert gate.taken == 1 and gate.running == 0
