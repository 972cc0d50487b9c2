"""Fixtures for the publisher tests: imported fixture trees, replay publishers on loopback,
adapters whose waits are recorded instead of slept."""

from __future__ import annotations

import datetime as _dt
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from corpus_tree import CorpusTree
from corpus_tree.importer import import_published
from legal.ids import Publisher
from publishers import adapter_for
from publishers.eurlex import EurlexAdapter, EurlexConfig, EurlexScope, eurlex_policy
from publishers.http import HttpClient
from publishers.ingest import IngestReport, ingest
from publishers.legilux import LegiluxAdapter, LegiluxConfig, legilux_policy
from publishers.protocol import PublisherAdapter
from publishers.replay import ReplayPublisher, load_source, serve_in_thread

NOW = _dt.datetime(2026, 12, 1, 6, 0, 0, tzinfo=_dt.UTC)

#: Small subsets served by the fault-injection tests (fast rdflib queries).
LU_SMALL = ("rgd-2001-10-18-n3", "loi-2011-04-08-n2", "agd-1963-04-22-n1", "loi-2000-08-08-n4")
EU_SMALL = ("32016r0679", "32016r0679r(02)", "32019r0401")


def snapshot(root: Path) -> dict[str, str]:
    """Every file under ``root`` (relative path → sha256): "byte-identical" means equal snapshots."""
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def comparable(report: IngestReport) -> dict[str, Any]:
    """An ingest report without its timings: two runs of the same inputs compare equal."""
    out = report.to_dict()
    out.pop("timings")
    if out["apply"] is not None:
        out["apply"].pop("timings", None)
    return out


@dataclass
class Harness:
    """A replay publisher running on loopback, and a way to ingest from it."""

    replay: ReplayPublisher
    base_url: str
    publisher: Publisher
    scope: EurlexScope | None
    sleeps: list[float] = field(default_factory=list)
    clients: list[httpx.Client] = field(default_factory=list)

    def adapter(self, max_attempts: int = 4, **config: Any) -> PublisherAdapter:
        """An adapter on the replay (waits recorded in ``sleeps``); ``config`` overrides its config."""
        client = httpx.Client()
        self.clients.append(client)
        if not config:
            return adapter_for(self.publisher, client, replay_url=self.base_url, sleep=self.sleeps.append,
                               max_attempts=max_attempts)
        if self.publisher is Publisher.LEGILUX:
            http = HttpClient(client, legilux_policy(politeness_delay=0, max_attempts=max_attempts),
                              sleep=self.sleeps.append)
            return LegiluxAdapter(http, LegiluxConfig.for_replay(self.base_url, **config))
        policy = eurlex_policy(politeness_delay=0, allowed_hosts=("127.0.0.1",), upgrade_http=False,
                               max_attempts=max_attempts)
        http = HttpClient(client, policy, sleep=self.sleeps.append)
        return EurlexAdapter(http, EurlexConfig.for_replay(self.base_url, **config))

    def ingest(self, tree: CorpusTree, *, now: _dt.datetime = NOW, adapter: PublisherAdapter | None = None,
               **kwargs: Any) -> IngestReport:
        return ingest(adapter or self.adapter(), tree, scope=self.scope, now=now, durable=False, **kwargs)

    def close(self) -> None:
        for c in self.clients:
            c.close()
        self.clients.clear()
        self.sleeps.clear()


def _import(src: Path, into: Path) -> Path:
    import_published(src, into, durable=False)
    return into


@pytest.fixture(scope="session")
def lu_tree(lu_fixture: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Legilux fixture imported into one of our trees (read-only for the tests)."""
    return _import(lu_fixture, tmp_path_factory.mktemp("imported") / "lu")


@pytest.fixture(scope="session")
def eu_tree(eu_fixture: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _import(eu_fixture, tmp_path_factory.mktemp("imported") / "eu")


def _harness(tree: Path, works: tuple[str, ...] | None) -> Iterator[Harness]:
    source = load_source(tree, works=works)
    replay = ReplayPublisher([source])
    scope = None
    if source.publisher is Publisher.EURLEX:
        scope = EurlexScope.of([w.work_identifier.rsplit("/", 1)[-1] for w in source.works])
    with serve_in_thread(replay.app()) as base_url:
        yield Harness(replay, base_url, source.publisher, scope)


@pytest.fixture(scope="session")
def _lu_full(lu_tree: Path) -> Iterator[Harness]:
    yield from _harness(lu_tree, None)


@pytest.fixture(scope="session")
def _eu_full(eu_tree: Path) -> Iterator[Harness]:
    yield from _harness(eu_tree, None)


@pytest.fixture(scope="session")
def _lu_small(lu_tree: Path) -> Iterator[Harness]:
    yield from _harness(lu_tree, LU_SMALL)


@pytest.fixture(scope="session")
def _eu_small(eu_tree: Path) -> Iterator[Harness]:
    yield from _harness(eu_tree, EU_SMALL)


def _fresh(h: Harness) -> Iterator[Harness]:
    h.replay.reset()
    try:
        yield h
    finally:
        h.replay.reset()
        h.close()


@pytest.fixture
def lu_full(_lu_full: Harness) -> Iterator[Harness]:
    """The whole Legilux fixture replayed (faults reset around each test)."""
    yield from _fresh(_lu_full)


@pytest.fixture
def eu_full(_eu_full: Harness) -> Iterator[Harness]:
    yield from _fresh(_eu_full)


@pytest.fixture
def lu_small(_lu_small: Harness) -> Iterator[Harness]:
    """A few Legilux works replayed (faults reset around each test)."""
    yield from _fresh(_lu_small)


@pytest.fixture
def eu_small(_eu_small: Harness) -> Iterator[Harness]:
    yield from _fresh(_eu_small)


@pytest.fixture(params=["lu", "eu"])
def small(request: pytest.FixtureRequest) -> Harness:
    """Each publisher's small replay in turn."""
    name = "lu_small" if request.param == "lu" else "eu_small"
    harness: Harness = request.getfixturevalue(name)
    return harness


@pytest.fixture
def target(tmp_path: Path) -> CorpusTree:
    """An empty tree to ingest into."""
    return CorpusTree.create(tmp_path / "target")
