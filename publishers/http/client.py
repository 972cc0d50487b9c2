"""The one HTTP policy every publisher request goes through.

- an identifying ``User-Agent`` on every request;
- politeness: a configurable minimum delay between consecutive requests on the same *pace
  clock* (Legilux keeps separate clocks for SPARQL and bodies; EUR-Lex one shared clock);
- bounded retries (``max_attempts``, 1..10) with exponential backoff on 408, 429 and 5xx
  (500/502/503/504) and on network errors, timeouts and truncated bodies, honouring
  ``Retry-After`` (delta-seconds or HTTP-date), every wait capped at ``max_delay``;
- timeouts (per request overridable), a body-size cap, verification of ``Content-Length`` and
  of ``Repr-Digest``/``Content-Digest`` (sha-256) when the server sends them; a body is read into
  one buffer, held once (ADR 0063);
- redirects followed by hand, only to hosts on an allow-list (``http://`` upgraded to
  ``https://`` where the policy says so);
- conditional GET (``If-None-Match``) when the caller passes an ETag;
- typed errors (:class:`legal.errors.PublisherError` with ``retryable``) and a counter of
  requests made and bytes downloaded.

The ``httpx.Client`` is injected (never created at import time), and so are the ``sleep``
and clock functions, so tests can check every wait without sleeping.
"""

from __future__ import annotations

import base64
import datetime as _dt
import email.utils
import hashlib
import io
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit, urlunsplit

import httpx

from legal.errors import PublisherError

#: Identifies the software; live operators should add a contact (``lex ingest run --user-agent``).
DEFAULT_USER_AGENT = "lex-evidence/0.1.0 (point-in-time legal evidence ingest; python-httpx)"
RETRYABLE_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
MIB = 1024 * 1024


class RetryExhausted(PublisherError):
    """Every allowed attempt failed with a retryable status or a network error."""

    default_code = "retry_exhausted"

    def __init__(self, message: str, *, subject: str | None = None, attempts: int = 0,
                 last_status: int | None = None, code: str | None = None) -> None:
        super().__init__(message, code=code, subject=subject, retryable=True)
        self.attempts = attempts
        self.last_status = last_status


class RedirectRefused(PublisherError):
    """A redirect pointed outside the publisher's own hosts (or looped)."""

    default_code = "redirect_refused"


class BodyOversized(PublisherError):
    """A response body exceeded the configured cap."""

    default_code = "body_oversized"


class BodyBuffer:
    """A body written chunk by chunk into one buffer, held once (each chunk freed once copied in; a
    chunk list and its join hold it twice), and handed over without a copy (:meth:`value`).

    ``size_hint`` (a declared length, already within the caller's cap) allocates the buffer once at
    that size, so that writing the body never reallocates it (a reallocation may copy the body so
    far: ≈ 8 copies of it over ``io.BytesIO``'s growth by ⅛). A body shorter or longer than the hint
    is still exactly its bytes."""

    __slots__ = ("_buffer", "size")

    def __init__(self, size_hint: int = 0) -> None:
        self._buffer = io.BytesIO()
        self.size = 0
        if size_hint > 0:  # one write at the end sizes the buffer; the body overwrites it from 0
            self._buffer.seek(size_hint - 1)
            self._buffer.write(b"\0")
            self._buffer.seek(0)

    def write(self, chunk: bytes) -> None:
        self._buffer.write(chunk)
        self.size += len(chunk)

    def value(self) -> bytes:
        """The bytes written (the buffer's own ``bytes`` object, not a copy)."""
        self._buffer.truncate(self.size)
        return self._buffer.getvalue()


class _Transient(Exception):
    """Internal: one attempt failed in a way worth retrying."""

    def __init__(self, reason: str, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.retry_after = retry_after


@dataclass(frozen=True, slots=True)
class HttpPolicy:
    """What every request of one adapter obeys. Defaults follow the live publishers."""

    user_agent: str = DEFAULT_USER_AGENT
    politeness_delay: float = 1.5
    max_attempts: int = 4
    backoff_base: float = 1.0
    max_delay: float = 30.0
    timeout: float = 180.0
    connect_timeout: float = 15.0
    max_body_bytes: int = 32 * MIB
    max_redirects: int = 6
    allowed_hosts: tuple[str, ...] = ()
    upgrade_http: bool = False

    def __post_init__(self) -> None:
        if not 1 <= self.max_attempts <= 10:
            raise PublisherError("max_attempts must be within 1..10", code="invalid_http_policy")
        if min(self.politeness_delay, self.backoff_base, self.max_delay, self.timeout) < 0:
            raise PublisherError("delays and timeouts must not be negative", code="invalid_http_policy")

    def host_allowed(self, url: str) -> bool:
        """True if ``url``'s host is on the allow-list (``.suffix`` entries match subdomains)."""
        host = (urlsplit(url).hostname or "").lower()
        for entry in self.allowed_hosts:
            entry = entry.lower()
            if entry.startswith("."):
                if host.endswith(entry) or host == entry[1:]:
                    return True
            elif host == entry:
                return True
        return False

    def backoff(self, attempt: int) -> float:
        """Exponential backoff before attempt ``attempt + 1``, capped."""
        return float(min(self.backoff_base * (2 ** (attempt - 1)), self.max_delay))


@dataclass(frozen=True, slots=True)
class HttpResponse:
    """A complete response: final URL after redirects, lower-cased headers, body bytes."""

    status: int
    url: str
    headers: Mapping[str, str]
    body: bytes
    attempts: int = 1

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip().lower()

    @property
    def etag(self) -> str | None:
        return self.headers.get("etag")


@dataclass(slots=True)
class HttpStats:
    """Counters of one client: every request sent (retries and redirect hops included)."""

    requests: int = 0
    bytes_downloaded: int = 0
    retries: int = 0
    retry_waits: list[float] = field(default_factory=list)
    politeness_wait: float = 0.0
    statuses: dict[int, int] = field(default_factory=dict)


def parse_retry_after(value: str | None, now: _dt.datetime) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP-date)."""
    if not value:
        return None
    text = value.strip()
    if text.isdigit():
        return float(int(text))
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=_dt.UTC)
    return max(0.0, (when - now).total_seconds())


def _declared_size(headers: Mapping[str, str]) -> int:
    """The decoded body's declared length (``Content-Length`` of an identity-encoded body, already
    checked against the cap), else 0."""
    declared = headers.get("content-length", "")
    encoded = headers.get("content-encoding", "identity").lower() not in ("", "identity")
    return int(declared) if declared.isdigit() and not encoded else 0


def _digest_mismatch(headers: Mapping[str, str], body: bytes, encoded: bool) -> str | None:
    """Name of the digest header whose sha-256 does not match ``body``, else None."""
    names = ("repr-digest",) if encoded else ("repr-digest", "content-digest")
    actual = base64.b64encode(hashlib.sha256(body).digest()).decode("ascii")
    for name in names:
        value = headers.get(name)
        if not value:
            continue
        for part in value.split(","):
            algo, _, encoded_value = part.strip().partition("=")
            if algo.strip().lower() == "sha-256" and encoded_value.strip().strip(":") != actual:
                return name
    return None


class HttpClient:
    """Policy-enforcing wrapper around an injected ``httpx.Client``."""

    def __init__(
        self,
        client: httpx.Client,
        policy: HttpPolicy | None = None,
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], _dt.datetime] | None = None,
    ) -> None:
        self._client = client
        self.policy = policy or HttpPolicy()
        self._sleep = sleep
        self._clock = clock
        self._now = now or (lambda: _dt.datetime.now(_dt.UTC))
        self._last: dict[str, float] = {}
        self.stats = HttpStats()

    # -- public API -------------------------------------------------------------------------

    def get(self, url: str, *, headers: Mapping[str, str] | None = None, timeout: float | None = None,
            max_bytes: int | None = None, pace: str = "default", etag: str | None = None) -> HttpResponse:
        """GET with the whole policy. Non-retryable statuses (404, 410, 304, …) are returned."""
        merged = dict(headers or {})
        if etag:
            merged["If-None-Match"] = etag
        return self.request("GET", url, headers=merged, timeout=timeout, max_bytes=max_bytes, pace=pace)

    def post_form(self, url: str, data: Mapping[str, str], *, headers: Mapping[str, str] | None = None,
                  timeout: float | None = None, max_bytes: int | None = None,
                  pace: str = "default") -> HttpResponse:
        """POST ``application/x-www-form-urlencoded`` with the whole policy."""
        return self.request("POST", url, headers=headers, data=data, timeout=timeout,
                            max_bytes=max_bytes, pace=pace)

    def request(self, method: str, url: str, *, headers: Mapping[str, str] | None = None,
                data: Mapping[str, str] | None = None, timeout: float | None = None,
                max_bytes: int | None = None, pace: str = "default") -> HttpResponse:
        last: _Transient | None = None
        attempts = self.policy.max_attempts
        for attempt in range(1, attempts + 1):
            try:
                response = self._follow(method, url, headers, data, timeout, max_bytes, pace)
            except _Transient as exc:
                last = exc
            else:
                if response.status not in RETRYABLE_STATUSES:
                    return HttpResponse(response.status, response.url, response.headers, response.body, attempt)
                last = _Transient(f"HTTP {response.status}", response.status,
                                  parse_retry_after(response.headers.get("retry-after"), self._now()))
            if attempt < attempts:
                self._wait_before_retry(attempt, last)
        assert last is not None
        raise RetryExhausted(f"{method} gave up after {attempts} attempts: {last.reason}", subject=url,
                             attempts=attempts, last_status=last.status)

    def backoff_wait(self, attempt: int) -> float:
        """Wait the policy's backoff before attempt ``attempt + 1`` of a caller-level retry (a
        malformed SPARQL answer); counted in ``stats`` like every other retry. Returns the wait."""
        delay = self.policy.backoff(attempt)
        self.stats.retries += 1
        self.stats.retry_waits.append(delay)
        if delay > 0:
            self._sleep(delay)
        return delay

    # -- internals --------------------------------------------------------------------------

    def _wait_before_retry(self, attempt: int, failure: _Transient) -> None:
        delay = failure.retry_after if failure.retry_after is not None else self.policy.backoff(attempt)
        delay = min(delay, self.policy.max_delay)
        self.stats.retries += 1
        self.stats.retry_waits.append(delay)
        if delay > 0:
            self._sleep(delay)

    def _pace(self, pace: str) -> None:
        last = self._last.get(pace)
        if last is None or self.policy.politeness_delay <= 0:
            return
        wait = last + self.policy.politeness_delay - self._clock()
        if wait > 0:
            self.stats.politeness_wait += wait
            self._sleep(wait)

    def _follow(self, method: str, url: str, headers: Mapping[str, str] | None,
                data: Mapping[str, str] | None, timeout: float | None, max_bytes: int | None,
                pace: str) -> HttpResponse:
        current, current_method, current_data = url, method, data
        for _hop in range(self.policy.max_redirects + 1):
            response = self._once(current_method, current, headers, current_data, timeout, max_bytes, pace)
            if response.status not in REDIRECT_STATUSES:
                return response
            current = self._redirect_target(current, response.headers.get("location"))
            if response.status == 303 or (response.status in (301, 302) and current_method == "POST"):
                current_method, current_data = "GET", None
        raise RedirectRefused(f"more than {self.policy.max_redirects} redirects", subject=url)

    def _redirect_target(self, current: str, location: str | None) -> str:
        if not location:
            raise RedirectRefused("redirect without a Location header", subject=current)
        target = urljoin(current, location)
        parts = urlsplit(target)
        if self.policy.upgrade_http and parts.scheme == "http":
            target = urlunsplit(("https", *parts[1:]))
        if parts.scheme not in ("http", "https") or not self.policy.host_allowed(target):
            raise RedirectRefused(f"redirect to a host outside the allow-list: {target}", subject=current)
        return target

    def _headers(self, extra: Mapping[str, str] | None) -> dict[str, str]:
        merged = {"User-Agent": self.policy.user_agent}
        merged.update(extra or {})
        return merged

    def _once(self, method: str, url: str, headers: Mapping[str, str] | None,
              data: Mapping[str, str] | None, timeout: float | None, max_bytes: int | None,
              pace: str) -> HttpResponse:
        self._pace(pace)
        self.stats.requests += 1
        cap = self.policy.max_body_bytes if max_bytes is None else max_bytes
        seconds = self.policy.timeout if timeout is None else timeout
        limits = httpx.Timeout(seconds, connect=min(seconds, self.policy.connect_timeout))
        try:
            with self._client.stream(method, url, headers=self._headers(headers), data=data,
                                     timeout=limits, follow_redirects=False) as response:
                return self._read(response, url, cap)
        except httpx.TransportError as exc:
            raise _Transient(f"{type(exc).__name__}: {exc}") from exc
        finally:
            self._last[pace] = self._clock()

    def _read(self, response: httpx.Response, url: str, cap: int) -> HttpResponse:
        status = response.status_code
        self.stats.statuses[status] = self.stats.statuses.get(status, 0) + 1
        headers = {k.lower(): v for k, v in response.headers.items()}
        if status in REDIRECT_STATUSES:
            return HttpResponse(status, str(response.url), headers, b"")
        self._refuse_declared_oversize(headers, cap, url)
        buffer = BodyBuffer(_declared_size(headers))
        size = 0
        try:
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > cap:
                    raise BodyOversized(f"body larger than {cap} bytes", subject=url)
                buffer.write(chunk)
        finally:
            self.stats.bytes_downloaded += response.num_bytes_downloaded or size
        body = buffer.value()
        self._check_complete(headers, body, response.num_bytes_downloaded or size, url)
        return HttpResponse(status, str(response.url), headers, body)

    @staticmethod
    def _refuse_declared_oversize(headers: Mapping[str, str], cap: int, url: str) -> None:
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > cap:
            raise BodyOversized(f"declared Content-Length {declared} exceeds {cap} bytes", subject=url)

    @staticmethod
    def _check_complete(headers: Mapping[str, str], body: bytes, raw_size: int, url: str) -> None:
        encoded = headers.get("content-encoding", "identity").lower() not in ("", "identity")
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) != raw_size:
            raise _Transient(f"truncated body: {raw_size} of {declared} bytes")
        mismatch = _digest_mismatch(headers, body, encoded)
        if mismatch:
            raise _Transient(f"body does not match its {mismatch} header (truncated or corrupted)")
