"""Admission control: a bounded gate in front of the legal core, and per-client rate buckets.

Two independent limits protect the serving process:

- :class:`Gate` bounds the work running in the legal core: at most ``executing`` calls run,
  at most ``queued`` more wait, and a waiter that has not been admitted within
  ``queue_deadline`` seconds is refused with :class:`Busy` (HTTP 503 ``busy`` with
  ``Retry-After``). A slot is given back when the work *finishes*, not when the caller stops
  waiting, so a call abandoned at its request deadline still counts until its thread is done
  and the core never runs more than ``executing`` calls at once.
- :class:`RateLimiter` holds one token bucket per client (and one global bucket). A request
  without a token is refused with :class:`RateLimited` (HTTP 429 ``rate_limited`` with
  ``Retry-After``). The table of clients is bounded; the least recently seen are forgotten.

Both refusals are :class:`legal.errors.LexError` of family ``transport``: they say nothing
about the law, and shells never turn them into legal outcomes.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass

from legal.errors import ConfigError, LexError


class TransportError(LexError):
    """The request was not served for a reason of capacity or time, never of law."""

    family = "transport"
    default_code = "transport_error"
    status = 503

    def __init__(self, message: str, *, code: str | None = None, subject: str | None = None,
                 retry_after: float | None = None) -> None:
        super().__init__(message, code=code, subject=subject)
        self.retry_after = retry_after

    def retry_after_header(self) -> str | None:
        """The ``Retry-After`` value in whole seconds (at least 1), if any."""
        if self.retry_after is None:
            return None
        return str(max(1, math.ceil(self.retry_after)))


class Busy(TransportError):
    """Every execution slot is taken and the queue is full, or the queue deadline passed."""

    default_code = "busy"
    status = 503


class RateLimited(TransportError):
    """The client (or the server as a whole) has used up its request tokens."""

    default_code = "rate_limited"
    status = 429


class DeadlineExceeded(TransportError):
    """The request did not complete within its deadline."""

    default_code = "deadline_exceeded"
    status = 504


@dataclass(frozen=True)
class AdmissionLimits:
    """The admission parameters. Rates are per minute; a rate of 0 disables that bucket."""

    #: Calls running at once (``lex serve --executing``): the core is Python under one interpreter lock,
    #: so more threads than cores (plus SQLite's lock-free reads) add switching and memory, not speed.
    executing: int = 3
    queued: int = 16
    queue_deadline: float = 2.0
    client_per_minute: float = 120.0
    client_burst: float = 120.0
    global_per_minute: float = 600.0
    global_burst: float = 600.0
    max_clients: int = 10_000


# -- the execution gate ----------------------------------------------------------------------


class Gate:
    """At most ``executing`` holders, at most ``queued`` waiters, FIFO, with a queue deadline.

    :meth:`acquire` runs on the event loop; :meth:`release` may be called from any thread
    (a worker thread finishing its call), and hands the slot straight to the oldest waiter.
    """

    def __init__(self, executing: int, queued: int, queue_deadline: float) -> None:
        if executing < 1 or queued < 0 or queue_deadline <= 0:
            raise ConfigError("the execution gate needs executing >= 1, queued >= 0 and queue_deadline > 0",
                              code="invalid_admission_limits",
                              subject=f"executing={executing}, queued={queued}, queue_deadline={queue_deadline}")
        self.executing = executing
        self.queued = queued
        self.queue_deadline = queue_deadline
        self._lock = threading.Lock()
        self._running = 0
        self._waiters: deque[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = deque()

    @property
    def running(self) -> int:
        return self._running

    @property
    def waiting(self) -> int:
        return len(self._waiters)

    async def acquire(self) -> None:
        """Take a slot, waiting at most ``queue_deadline`` seconds; else raise :class:`Busy`."""
        waiter = self._enter()
        if waiter is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(waiter), self.queue_deadline)
        except TimeoutError:
            self._leave(waiter)
            raise Busy("the server is busy; retry shortly", retry_after=self.queue_deadline) from None
        except BaseException:
            self._leave(waiter)
            raise

    def _enter(self) -> asyncio.Future[None] | None:
        with self._lock:
            if self._running < self.executing and not self._waiters:
                self._running += 1
                return None
            if len(self._waiters) >= self.queued:
                raise Busy("the server is busy; retry shortly", retry_after=self.queue_deadline)
            loop = asyncio.get_running_loop()
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiters.append((loop, waiter))
            return waiter

    def _leave(self, waiter: asyncio.Future[None]) -> None:
        """A waiter gives up: drop it from the queue, or give back a slot granted meanwhile."""
        with self._lock:
            for item in self._waiters:
                if item[1] is waiter:
                    self._waiters.remove(item)
                    waiter.cancel()
                    return
        if waiter.done() and not waiter.cancelled():
            self.release()
        else:
            waiter.cancel()

    def release(self) -> None:
        """Give a slot back: to the oldest waiter if any, else to the pool. Thread-safe."""
        with self._lock:
            if not self._waiters:
                self._running -= 1
                return
            loop, waiter = self._waiters.popleft()
        loop.call_soon_threadsafe(self._grant, waiter)

    def _grant(self, waiter: asyncio.Future[None]) -> None:
        if waiter.done():  # the waiter gave up while the grant was in flight: pass it on
            self.release()
        else:
            waiter.set_result(None)


# -- rate buckets ----------------------------------------------------------------------------


class TokenBucket:
    """A token bucket: ``capacity`` tokens, refilled at ``rate`` tokens per second."""

    __slots__ = ("capacity", "rate", "tokens", "updated")

    def __init__(self, capacity: float, rate: float, now: float) -> None:
        self.capacity = capacity
        self.rate = rate
        self.tokens = capacity
        self.updated = now

    def take(self, now: float) -> float:
        """Take one token; return 0.0, or the seconds until a token will be available."""
        self.tokens = min(self.capacity, self.tokens + (now - self.updated) * self.rate)
        self.updated = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return (1.0 - self.tokens) / self.rate


class RateLimiter:
    """One bucket per client id plus one global bucket; the client table is LRU-bounded."""

    def __init__(self, limits: AdmissionLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self._limits = limits
        self._clock = clock
        self._lock = threading.Lock()
        self._clients: OrderedDict[str, TokenBucket] = OrderedDict()
        self._global = (TokenBucket(limits.global_burst, limits.global_per_minute / 60.0, clock())
                        if limits.global_per_minute > 0 else None)

    @property
    def enabled(self) -> bool:
        return self._limits.client_per_minute > 0 or self._global is not None

    def check(self, client: str) -> None:
        """Charge one request to ``client``; raise :class:`RateLimited` when out of tokens."""
        with self._lock:
            now = self._clock()
            wait = self._client_bucket(client, now)
            if wait > 0:
                raise RateLimited("too many requests from this client; slow down",
                                  retry_after=wait)
            if self._global is not None and (wait := self._global.take(now)) > 0:
                raise RateLimited("too many requests; slow down", retry_after=wait)

    def _client_bucket(self, client: str, now: float) -> float:
        limits = self._limits
        if limits.client_per_minute <= 0:
            return 0.0
        bucket = self._clients.pop(client, None)
        if bucket is None:
            bucket = TokenBucket(limits.client_burst, limits.client_per_minute / 60.0, now)
        self._clients[client] = bucket
        while len(self._clients) > limits.max_clients:
            self._clients.popitem(last=False)
        return bucket.take(now)
