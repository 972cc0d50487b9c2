"""Server-side conversation memory: bounded threads keyed by the SHA-256 of an opaque token.

Bounds: 1,024 threads, six retained turns, 32 KiB per thread, 16 MiB overall, two waiters per
thread, 30 minutes idle. Only the digest of the 43-character token is stored; a malformed,
unknown, expired or reset token is :data:`NOT_FOUND` and never falls through to another
thread. A thread is leased by one turn at a time; a brand-new thread that never commits is
removed when its lease ends, so no empty thread (and no token) is ever handed out.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import re
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from assistant.vocab import ContextDisposition
from legal.errors import ConfigError, LexError

MAX_THREADS = 1024
MAX_TURNS = 6
MAX_THREAD_BYTES = 32 * 1024
MAX_TOTAL_BYTES = 16 * 1024 * 1024
MAX_WAITERS = 2
IDLE_SECONDS = 30 * 60
MAX_USER = 1000
MAX_ASSISTANT = 4000
TURN_OVERHEAD = 32
SHORTENED = "\n\n[Earlier answer shortened in server conversation memory.]"
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{43}$")


class ThreadError(LexError):
    """A thread cannot be leased or committed (``not_found``, ``busy``, ``capacity``, ``too_large``)."""

    family = "thread"
    default_code = "thread_unavailable"


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("ascii")).hexdigest()


def new_token() -> str:
    """43 characters: base64url of 32 random bytes, no padding."""
    return secrets.token_urlsafe(32)


@dataclass
class _Thread:
    key: str
    turns: list[tuple[str, str]] = field(default_factory=list)
    context: dict[str, Any] | None = None
    last_commit: float = 0.0
    pins: int = 0
    waiters: int = 0
    committed: bool = False
    size: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


def _bytes(turns: list[tuple[str, str]], context: Mapping[str, Any] | None) -> int:
    size = sum(len(u.encode()) + len(a.encode()) + TURN_OVERHEAD for u, a in turns)
    if context:
        members = context.get("members") or []
        size += len(repr(context).encode()) + 24 * len(members)
    return size


@dataclass
class Lease:
    """One turn's hold on a thread: restored history and context, one commit, one release."""

    registry: ThreadRegistry
    thread: _Thread
    token: str
    fresh: bool
    _done: bool = False
    _committed: bool = False

    @property
    def history(self) -> list[dict[str, str]]:
        out: list[dict[str, str]] = []
        for user, assistant in self.thread.turns:
            out += [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]
        return out

    @property
    def context(self) -> dict[str, Any] | None:
        return copy.deepcopy(self.thread.context)

    def commit(self, user: str, assistant: str, context: Mapping[str, Any] | None,
               disposition: ContextDisposition) -> None:
        if self._committed or self._done:
            raise ThreadError("a lease commits at most once", code="already_committed")
        self.registry.commit(self.thread, user, assistant, context, disposition)
        self._committed = True

    def release(self) -> None:
        if not self._done:
            self._done = True
            self.registry.release(self.thread, self.fresh)

    async def __aenter__(self) -> Lease:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.release()


@dataclass
class ThreadRegistry:
    """All threads of one server process (correct only with exactly one replica)."""

    max_threads: int = MAX_THREADS
    max_turns: int = MAX_TURNS
    max_thread_bytes: int = MAX_THREAD_BYTES
    max_total_bytes: int = MAX_TOTAL_BYTES
    max_waiters: int = MAX_WAITERS
    idle_seconds: float = IDLE_SECONDS
    clock: Callable[[], float] = time.monotonic
    token_factory: Callable[[], str] = new_token
    _threads: dict[str, _Thread] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.max_total_bytes < self.max_thread_bytes:
            raise ConfigError("the global byte bound must hold at least one thread", code="invalid_thread_bounds",
                              subject=f"max_total_bytes={self.max_total_bytes}, max_thread_bytes={self.max_thread_bytes}")

    def __len__(self) -> int:
        return len(self._threads)

    @property
    def total_bytes(self) -> int:
        return sum(t.size for t in self._threads.values())

    def expire(self) -> None:
        now = self.clock()
        for key, thread in list(self._threads.items()):
            if thread.pins == 0 and thread.committed and now - thread.last_commit > self.idle_seconds:
                del self._threads[key]

    def _evict_one(self, keep: _Thread | None = None) -> bool:
        inactive = [t for t in self._threads.values() if t.pins == 0 and t is not keep]
        if not inactive:
            return False
        victim = min(inactive, key=lambda t: (t.last_commit, t.key))
        del self._threads[victim.key]
        return True

    async def acquire(self, token: str | None) -> Lease:
        """Lease the thread of ``token`` (or a new thread when ``token`` is ``None``)."""
        self.expire()
        if token is None:
            return await self._fresh()
        thread = self._threads.get(digest(token)) if _TOKEN.match(token) else None
        if thread is None:
            raise ThreadError("the conversation expired or is unavailable; start a new conversation",
                              code="thread_unavailable")
        if thread.lock.locked() and thread.waiters >= self.max_waiters:
            raise ThreadError("the conversation is busy with another turn", code="thread_busy")
        thread.pins += 1
        thread.waiters += 1
        try:
            await thread.lock.acquire()
        except BaseException:
            thread.pins -= 1
            raise
        finally:
            thread.waiters -= 1
        if self._threads.get(thread.key) is not thread:
            thread.lock.release()
            thread.pins -= 1
            raise ThreadError("the conversation expired or is unavailable; start a new conversation",
                              code="thread_unavailable")
        return Lease(self, thread, token, fresh=False)

    async def _fresh(self) -> Lease:
        while len(self._threads) >= self.max_threads:
            if not self._evict_one():
                raise ThreadError("the conversation memory is full", code="thread_capacity")
        token = self.token_factory()
        while digest(token) in self._threads:
            token = self.token_factory()
        thread = _Thread(digest(token), last_commit=self.clock(), pins=1)
        self._threads[thread.key] = thread
        await thread.lock.acquire()  # uncontended: a brand-new thread is born leased
        return Lease(self, thread, token, fresh=True)

    def commit(self, thread: _Thread, user: str, assistant: str, context: Mapping[str, Any] | None,
               disposition: ContextDisposition) -> None:
        if not 1 <= len(user) <= MAX_USER or not assistant.strip():
            raise ThreadError("a turn needs a 1-1000 character question and a reply", code="invalid_turn")
        if len(assistant) > MAX_ASSISTANT:
            assistant = assistant[: MAX_ASSISTANT - len(SHORTENED)] + SHORTENED
        turns = [*thread.turns, (user, assistant)][-self.max_turns:]
        new_context = _next_context(thread.context, context, disposition)
        while len(turns) > 1 and _bytes(turns, new_context) > self.max_thread_bytes:
            turns.pop(0)
        size = _bytes(turns, new_context)
        if size > self.max_thread_bytes:
            raise ThreadError("one turn exceeds the conversation bound", code="turn_too_large")
        while self.total_bytes - thread.size + size > self.max_total_bytes:
            if not self._evict_one(keep=thread):
                raise ThreadError("the conversation memory is full", code="thread_capacity")
        thread.turns, thread.context, thread.size = turns, new_context, size
        thread.committed, thread.last_commit = True, self.clock()

    def release(self, thread: _Thread, fresh: bool) -> None:
        thread.pins -= 1
        if thread.lock.locked():
            thread.lock.release()
        if fresh and not thread.committed and self._threads.get(thread.key) is thread:
            del self._threads[thread.key]

    def reset(self, token: str) -> bool:
        """Forget an unpinned thread; ``False`` when unknown or in use."""
        thread = self._threads.get(digest(token)) if _TOKEN.match(token) else None
        if thread is None or thread.pins:
            return False
        del self._threads[thread.key]
        return True


def _next_context(current: dict[str, Any] | None, proposed: Mapping[str, Any] | None,
                  disposition: ContextDisposition) -> dict[str, Any] | None:
    if disposition is ContextDisposition.PRESERVE:
        return current
    if disposition is ContextDisposition.REPLACE:
        if proposed is None:
            raise ThreadError("a replaced context needs a context", code="invalid_turn")
        return copy.deepcopy(dict(proposed))
    return None
