"""Fixtures for the serving shells: apps over the fake core, and over a real signed index."""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from serve.admission import AdmissionLimits
from serve.app import AppSettings, create_app
from serve.mount import MountConfig, ServeState
from tests.serve.fakes import OPERATIONS, FakeBackend

NO_RATE = AdmissionLimits(client_per_minute=0, global_per_minute=0)


def real_core_available() -> bool:
    """True once the legal core (``serve.core.LegalCore`` / ``OPERATIONS``) is importable."""
    try:
        if importlib.util.find_spec("serve.core") is None:
            return False
        import serve.core as core
    except Exception:
        return False
    return hasattr(core, "LegalCore") and hasattr(core, "OPERATIONS")


needs_real_core = pytest.mark.skipif(not real_core_available(), reason="serve.core (the legal core) is not built yet")


@pytest.fixture
def dev_index(tmp_path: Path) -> Path:
    """A directory standing for an unsigned development index (the fake core does not read it)."""
    directory = tmp_path / "index"
    directory.mkdir()
    (directory / "lu-legilux.sqlite").write_bytes(b"fake index bytes")
    return directory


@pytest.fixture
def make_state() -> Callable[..., ServeState]:
    def build(config: MountConfig | None = None, *, limits: AdmissionLimits = NO_RATE, delay: float = 0.0,
              hold: threading.Event | None = None, mount: bool = False) -> ServeState:
        state = ServeState(config or MountConfig(), FakeBackend(delay=delay, hold=hold), limits)
        if mount:
            state.mount()
        return state

    return build


@pytest.fixture
def make_client() -> Iterator[Callable[..., TestClient]]:
    clients: list[TestClient] = []

    def build(state: ServeState, settings: AppSettings | None = None, operations: Any = OPERATIONS) -> TestClient:
        settings = settings or AppSettings(limits=state.limits, mount_on_startup=False)
        app: Starlette = create_app(state, settings, operations)
        client = TestClient(app, raise_server_exceptions=False)
        client.__enter__()
        clients.append(client)
        return client

    yield build
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def empty_client(make_state: Callable[..., ServeState], make_client: Callable[..., TestClient]) -> TestClient:
    """A server with nothing mounted (the fake core answers no_corpus_mounted)."""
    return make_client(make_state())


@pytest.fixture
def dev_client(make_state: Callable[..., ServeState], make_client: Callable[..., TestClient],
               dev_index: Path) -> TestClient:
    """A server over the fake core, mounted as an unsigned development index."""
    return make_client(make_state(MountConfig(index_dir=dev_index, unsigned_dev=True), mount=True))
