"""The HTTP policy, against ``httpx.MockTransport`` (no sockets, no sleeping)."""

from __future__ import annotations

import base64
import datetime as _dt
import hashlib
from collections.abc import Callable

import httpx
import pytest

from legal.errors import PublisherError
from publishers.http import (
    DEFAULT_USER_AGENT,
    BodyOversized,
    HttpClient,
    HttpPolicy,
    RedirectRefused,
    RetryExhausted,
    parse_retry_after,
)

Handler = Callable[[httpx.Request], httpx.Response]
NOW = _dt.datetime(2026, 12, 1, 12, 0, 0, tzinfo=_dt.UTC)


class Clock:
    """A fake monotonic clock advanced by the fake sleep."""

    def __init__(self) -> None:
        self.t = 100.0
        self.sleeps: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.t += seconds

    def __call__(self) -> float:
        return self.t


def client(handler: Handler, clock: Clock, **policy: object) -> HttpClient:
    values: dict[str, object] = {"politeness_delay": 0.0}
    values.update(policy)
    return HttpClient(httpx.Client(transport=httpx.MockTransport(handler)), HttpPolicy(**values),  # type: ignore[arg-type]
                      sleep=clock.sleep, clock=clock, now=lambda: NOW)


def sequence(*responses: httpx.Response | Exception) -> tuple[Handler, list[httpx.Request]]:
    seen: list[httpx.Request] = []
    queue = list(responses)

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        item = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(item, Exception):
            raise item
        return item

    return handler, seen


def test_503_retry_after_is_capped_then_success() -> None:
    clock = Clock()
    handler, _seen = sequence(httpx.Response(503, headers={"Retry-After": "12"}), httpx.Response(200, text="ok"))
    http = client(handler, clock, max_delay=5.0)
    response = http.get("https://example.test/a")
    assert response.status == 200 and response.attempts == 2
    assert clock.sleeps == [5.0]
    assert http.stats.requests == 2 and http.stats.retry_waits == [5.0]


def test_429_retry_after_is_honoured() -> None:
    clock = Clock()
    handler, _ = sequence(httpx.Response(429, headers={"Retry-After": "3"}),
                          httpx.Response(429, headers={"Retry-After": "7"}), httpx.Response(200))
    http = client(handler, clock)
    assert http.get("https://example.test/").status == 200
    assert clock.sleeps == [3.0, 7.0]


def test_retry_after_http_date() -> None:
    assert parse_retry_after("Tue, 01 Dec 2026 12:00:09 GMT", NOW) == 9.0
    assert parse_retry_after("Tue, 01 Dec 2026 11:00:00 GMT", NOW) == 0.0
    assert parse_retry_after("soon", NOW) is None
    assert parse_retry_after(None, NOW) is None


def test_exponential_backoff_without_retry_after() -> None:
    clock = Clock()
    handler, _ = sequence(httpx.Response(500), httpx.Response(502), httpx.Response(504), httpx.Response(200))
    assert client(handler, clock).get("https://example.test/").status == 200
    assert clock.sleeps == [1.0, 2.0, 4.0]


def test_404_and_410_are_not_retried() -> None:
    for status in (404, 410):
        clock = Clock()
        handler, seen = sequence(httpx.Response(status))
        assert client(handler, clock).get("https://example.test/").status == status
        assert len(seen) == 1 and clock.sleeps == []


def test_connection_errors_exhaust_the_budget() -> None:
    clock = Clock()
    handler, seen = sequence(httpx.ConnectError("refused"))
    http = client(handler, clock, max_attempts=3)
    with pytest.raises(RetryExhausted) as info:
        http.get("https://example.test/x")
    assert info.value.retryable and info.value.attempts == 3 and info.value.subject == "https://example.test/x"
    assert len(seen) == 3 and clock.sleeps == [1.0, 2.0]


def test_timeouts_are_retried() -> None:
    clock = Clock()
    handler, seen = sequence(httpx.ReadTimeout("slow"), httpx.Response(200, text="late"))
    assert client(handler, clock).get("https://example.test/").body == b"late"
    assert len(seen) == 2


def test_identifying_user_agent_on_every_request() -> None:
    handler, seen = sequence(httpx.Response(200))
    client(handler, Clock()).get("https://example.test/")
    assert seen[0].headers["user-agent"] == DEFAULT_USER_AGENT
    assert "lex-evidence" in DEFAULT_USER_AGENT


def test_politeness_delay_between_requests_per_pace_clock() -> None:
    clock = Clock()
    handler, _ = sequence(httpx.Response(200))
    http = client(handler, clock, politeness_delay=1.5)
    http.get("https://example.test/1", pace="sparql")
    http.get("https://example.test/2", pace="sparql")
    http.get("https://example.test/3", pace="body")
    assert clock.sleeps == [1.5]
    assert http.stats.politeness_wait == 1.5


def test_content_length_mismatch_is_retried_never_returned() -> None:
    clock = Clock()
    short = httpx.Response(200, headers={"Content-Length": "10"}, content=b"12345")
    handler, seen = sequence(short, httpx.Response(200, content=b"1234567890"))
    assert client(handler, clock).get("https://example.test/").body == b"1234567890"
    assert len(seen) == 2


def test_repr_digest_mismatch_is_retried_then_exhausted() -> None:
    full = b"the whole body"
    digest = "sha-256=:" + base64.b64encode(hashlib.sha256(full).digest()).decode() + ":"
    half = httpx.Response(200, headers={"Repr-Digest": digest}, content=full[:5])
    handler, seen = sequence(half)
    with pytest.raises(RetryExhausted):
        client(handler, Clock()).get("https://example.test/")
    assert len(seen) == 4
    good, _ = sequence(httpx.Response(200, headers={"Repr-Digest": digest}, content=full))
    assert client(good, Clock()).get("https://example.test/").body == full


def test_body_cap() -> None:
    handler, _ = sequence(httpx.Response(200, content=b"x" * 100))
    with pytest.raises(BodyOversized) as info:
        client(handler, Clock()).get("https://example.test/", max_bytes=50)
    assert info.value.code == "body_oversized" and not info.value.retryable


def test_redirects_only_to_allowed_hosts() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/start":
            return httpx.Response(303, headers={"Location": "http://publications.europa.eu/next"})
        if request.url.host == "publications.europa.eu":
            assert request.url.scheme == "https"  # upgraded
            return httpx.Response(200, text="done")
        return httpx.Response(500)

    http = client(handler, Clock(), allowed_hosts=(".europa.eu",), upgrade_http=True)
    response = http.get("https://publications.europa.eu/start")
    assert response.body == b"done" and response.url == "https://publications.europa.eu/next"
    assert http.stats.requests == 2

    def elsewhere(request: httpx.Request) -> httpx.Response:
        return httpx.Response(302, headers={"Location": "https://evil.example/"})

    with pytest.raises(RedirectRefused) as info:
        client(elsewhere, Clock(), allowed_hosts=(".europa.eu",)).get("https://publications.europa.eu/x")
    assert not info.value.retryable


def test_no_redirects_when_the_policy_allows_none() -> None:
    handler, _ = sequence(httpx.Response(302, headers={"Location": "https://legilux.public.lu/y"}))
    with pytest.raises(RedirectRefused):
        client(handler, Clock(), max_redirects=0, allowed_hosts=("legilux.public.lu",)).get(
            "https://legilux.public.lu/x")


def test_conditional_get() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.headers.get("if-none-match") == '"v1"':
            return httpx.Response(304, headers={"ETag": '"v1"'})
        return httpx.Response(200, headers={"ETag": '"v1"'}, content=b"body")

    http = client(handler, Clock())
    first = http.get("https://example.test/")
    assert first.etag == '"v1"'
    again = http.get("https://example.test/", etag=first.etag)
    assert again.status == 304 and again.body == b""


def test_policy_bounds() -> None:
    with pytest.raises(PublisherError):
        HttpPolicy(max_attempts=0)
    with pytest.raises(PublisherError):
        HttpPolicy(max_attempts=11)
    assert HttpPolicy(backoff_base=1.0, max_delay=30.0).backoff(10) == 30.0
    assert HttpPolicy(allowed_hosts=(".europa.eu",)).host_allowed("https://eur-lex.europa.eu/x")
    assert not HttpPolicy(allowed_hosts=(".europa.eu",)).host_allowed("https://europa.eu.evil.test/x")
