"""The answer cache: repeated questions answered from the first answer's bytes, per mounted set.

Answers (API, MCP, pages) must be the same with the cache as without it; only answers are
kept (refusals run again); a cache never outlives what it was filled from (a re-mount or an
unmount starts afresh); kept pages get a fresh Content-Security-Policy nonce each time.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from legal.errors import RequestError
from serve.answers import AnswerCache
from serve.http.encoding import canonical_key, compact, exact, loads
from serve.mount import ArtifactIdentity, Core, MountConfig, ServeState
from tests.serve.conftest import NO_RATE
from tests.serve.corpus import SLUG, V1
from tests.serve.fakes import DelayedBackend, DelayedCore

HTML = {"accept": "text/html"}
BUDGET = 1 << 20


class CountingBackend(DelayedBackend):
    """The real core, counting the calls that reach it."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def mount(self, directory: Path, artifact: ArtifactIdentity) -> Core:
        backend = self

        class Counting(DelayedCore):
            def call(self, operation: str, arguments: Mapping[str, Any]) -> Any:
                backend.calls.append((operation, dict(arguments)))
                return super().call(operation, arguments)

        return Counting(super().mount(directory, artifact).core)


def counting_state(dev_index: Path, budget: int = BUDGET) -> tuple[ServeState, CountingBackend]:
    backend = CountingBackend()
    state = ServeState(MountConfig(index_dir=dev_index, unsigned_dev=True), backend, NO_RATE, answer_cache=budget)
    state.mount()
    return state, backend


# -- the cache alone ---------------------------------------------------------------------------


def test_a_kept_answer_reads_back_as_its_bytes() -> None:
    cache = AnswerCache(BUDGET)
    key = cache.key("as_of", {"work": "w", "date": "2020-01-01"})
    assert key is not None and cache.get(key) is None
    assert cache.put(key, b'{"outcome":"succeeded"}')
    assert cache.get(key) == b'{"outcome":"succeeded"}'
    assert cache.stats()["hits"] == 1 and cache.stats()["misses"] == 1


def test_the_key_does_not_depend_on_the_order_of_the_arguments() -> None:
    assert canonical_key("diff", {"work": "w", "from_date": "a"}) == canonical_key("diff", {"from_date": "a", "work": "w"})
    assert canonical_key("diff", {"limit": 1}) != canonical_key("diff", {"limit": True})
    assert canonical_key("diff", {"x": object()}) is None  # not a JSON value: not keyed


def test_the_least_recently_used_answers_leave_first_within_the_budget() -> None:
    cache = AnswerCache(4096)
    noise = [random.Random(i).randbytes(450) for i in range(10)]  # incompressible: ~460 B kept each
    keys = [f"k{i}".encode() for i in range(10)]
    for key, value in zip(keys, noise, strict=True):
        assert cache.put(key, value)
        cache.get(keys[0])  # the first one stays the most recently used
    assert cache.size <= cache.budget
    assert cache.get(keys[0]) == noise[0]
    assert cache.get(keys[1]) is None  # the oldest unused one left


def test_an_answer_larger_than_an_eighth_of_the_budget_is_not_kept() -> None:
    cache = AnswerCache(8192)
    assert not cache.put(b"k", random.Random(0).randbytes(2048))  # incompressible: 2 KiB > 1 KiB
    assert len(cache) == 0
    assert not AnswerCache(0).put(b"k", b"{}")


def test_exact_bytes_read_back_as_the_same_value_or_are_refused() -> None:
    value = {"a": [1, 2.5, "é", None, True], "b": {"c": -2e-6}}
    encoded = exact(value)
    assert encoded == compact(value) and loads(encoded) == value
    assert exact({"n": 1 << 70}) is None  # orjson would read it back as a float


# -- through the serving state ---------------------------------------------------------------


def test_a_repeated_call_is_answered_once_by_the_core_and_equally(dev_index: Path) -> None:
    state, backend = counting_state(dev_index)
    args = {"work": f"lu-legilux:{SLUG}", "date": "2021-06-01"}
    first = asyncio.run(state.call("as_of", args))
    again = asyncio.run(state.call("as_of", dict(reversed(list(args.items())))))
    encoded = asyncio.run(state.call_encoded("as_of", args))
    assert len(backend.calls) == 1
    assert again == first and encoded == compact(first)
    again["outcome"] = "changed by a caller"  # a hit is a fresh value: the kept bytes are not touched
    assert asyncio.run(state.call("as_of", args)) == first


def test_refusals_are_not_kept(dev_index: Path) -> None:
    state, backend = counting_state(dev_index)
    for _ in range(2):
        with pytest.raises(RequestError):
            asyncio.run(state.call("as_of", {"work": f"lu-legilux:{SLUG}", "date": "not a date"}))
    assert len(backend.calls) == 2
    assert len(state.answers() or []) == 0


def test_without_a_budget_every_call_reaches_the_core(dev_index: Path) -> None:
    state, backend = counting_state(dev_index, budget=0)
    for _ in range(2):
        asyncio.run(state.call("timeline", {"work": f"lu-legilux:{SLUG}"}))
    assert len(backend.calls) == 2 and state.answers() is None


def test_a_remount_or_an_unmount_never_answers_from_the_cache_before(dev_index: Path) -> None:
    state, backend = counting_state(dev_index)
    args = {"work": f"lu-legilux:{SLUG}"}
    asyncio.run(state.call("timeline", args))
    state.mount()  # a new core of the same set: a new cache
    asyncio.run(state.call("timeline", args))
    assert len(backend.calls) == 2
    state._unmount(RequestError("gone", code="test_unmount"))
    assert state.answers() is None
    answer = asyncio.run(state.call("timeline", args))
    assert answer["outcome"] == "no_corpus_mounted" and answer["reason"]["code"] == "test_unmount"


# -- over HTTP: the API and the pages ---------------------------------------------------------


@pytest.fixture
def cached_client(make_client: Callable[..., TestClient], dev_index: Path) -> tuple[TestClient, CountingBackend]:
    state, backend = counting_state(dev_index)
    return make_client(state), backend


def test_the_api_answers_a_repeated_call_with_the_same_bytes(
        cached_client: tuple[TestClient, CountingBackend], dev_client: TestClient) -> None:
    client, backend = cached_client
    body = {"work": f"lu-legilux:{SLUG}", "date": "2021-06-01"}
    first = client.post("/api/v1/as_of", json=body)
    again = client.post("/api/v1/as_of", json=body)
    uncached = dev_client.post("/api/v1/as_of", json=body)
    assert first.status_code == again.status_code == 200 and len(backend.calls) == 1
    assert first.content == again.content == uncached.content
    assert first.headers["content-type"] == again.headers["content-type"] == uncached.headers["content-type"]


def _nonce(response: Any) -> str:
    found = re.search(r"'nonce-([^']+)'", response.headers["content-security-policy"])
    assert found is not None
    return found.group(1)


@pytest.mark.parametrize("path", [f"/lu-legilux/{SLUG}", f"/lu-legilux/{SLUG}/2021-06-01",
                                  f"/lu-legilux/{SLUG}/{V1}/provenance", "/search?q=loi"])
def test_a_kept_page_is_the_same_page_with_a_fresh_nonce(
        cached_client: tuple[TestClient, CountingBackend], dev_client: TestClient, path: str) -> None:
    client, backend = cached_client
    first = client.get(path, headers=HTML)
    calls = len(backend.calls)
    again = client.get(path, headers=HTML)
    uncached = dev_client.get(path, headers=HTML)
    assert first.status_code == again.status_code == uncached.status_code == 200
    assert len(backend.calls) == calls  # the kept page called nothing
    assert _nonce(first) != _nonce(again)
    assert again.text.replace(_nonce(again), "N") == first.text.replace(_nonce(first), "N")
    assert again.text.replace(_nonce(again), "N") == uncached.text.replace(_nonce(uncached), "N")
    assert again.headers["content-type"] == first.headers["content-type"]
    assert again.headers["x-content-type-options"] == "nosniff"


def test_a_page_that_is_not_200_is_not_kept(cached_client: tuple[TestClient, CountingBackend]) -> None:
    client, _backend = cached_client
    for _ in range(2):
        response = client.get(f"/lu-legilux/{SLUG}/1900-01-01", headers=HTML)
        assert response.status_code == 404
    kept = [key for key in (client.app.state.lex.answers() or AnswerCache(0))._entries if key.startswith(b"page ")]
    assert kept == []


def test_readyz_shows_the_caches_counters(cached_client: tuple[TestClient, CountingBackend],
                                          dev_client: TestClient) -> None:
    client, _backend = cached_client
    body = {"work": f"lu-legilux:{SLUG}", "date": "2021-06-01"}
    before = client.get("/readyz").json()["answer_cache"]
    for _ in range(3):
        assert client.post("/api/v1/as_of", json=body).status_code == 200
    after = client.get("/readyz").json()["answer_cache"]
    assert after["budget"] == BUDGET and after["entries"] >= 1 and after["bytes"] > 0
    assert after["misses"] - before["misses"] == 1 and after["hits"] - before["hits"] == 2
    assert "answer_cache" not in dev_client.get("/readyz").json()  # no budget: nothing to show
