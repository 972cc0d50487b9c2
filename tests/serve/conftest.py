"""Fixtures for the serving shells: apps over the real legal core and a real index.

``dev_index`` is an unsigned development artifact set holding the index of
:mod:`tests.serve.corpus` (built once per session, read-only). Failures that must be
provoked (slow or held calls) come from :mod:`tests.serve.fakes`, which wraps the real core.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from serve.admission import AdmissionLimits
from serve.app import AppSettings, Extension, create_app
from serve.mount import MountConfig, ServeState
from tests.serve import corpus
from tests.serve.fakes import DelayedBackend

NO_RATE = AdmissionLimits(client_per_minute=0, global_per_minute=0)


@pytest.fixture(scope="session")
def dev_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An unsigned development artifact set: ``indexes/lu-legilux.sqlite`` of the shells' corpus."""
    root = tmp_path_factory.mktemp("serve-set")
    corpus.build(root / "indexes")
    return root


@pytest.fixture
def make_state() -> Callable[..., ServeState]:
    def build(config: MountConfig | None = None, *, limits: AdmissionLimits = NO_RATE, delay: float = 0.0,
              hold: threading.Event | None = None, mount: bool = False) -> ServeState:
        state = ServeState(config or MountConfig(), DelayedBackend(delay=delay, hold=hold), limits)
        if mount:
            state.mount()
        return state

    return build


@pytest.fixture
def make_client() -> Iterator[Callable[..., TestClient]]:
    clients: list[TestClient] = []

    def build(state: ServeState, settings: AppSettings | None = None,
              extensions: Iterable[Extension] = ()) -> TestClient:
        settings = settings or AppSettings(limits=state.limits, mount_on_startup=False)
        app: Starlette = create_app(state, settings, extensions=extensions)
        client = TestClient(app, raise_server_exceptions=False)
        client.__enter__()
        clients.append(client)
        return client

    yield build
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def empty_client(make_state: Callable[..., ServeState], make_client: Callable[..., TestClient]) -> TestClient:
    """A server with nothing mounted (the real core answers no_corpus_mounted)."""
    return make_client(make_state())


@pytest.fixture
def dev_client(make_state: Callable[..., ServeState], make_client: Callable[..., TestClient],
               dev_index: Path) -> TestClient:
    """A server over the real core, mounted from the unsigned development set."""
    return make_client(make_state(MountConfig(index_dir=dev_index, unsigned_dev=True), mount=True))
