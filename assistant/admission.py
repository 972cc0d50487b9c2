"""Admission and idempotency at the assistant's web boundary.

:class:`Admission` accepts at most 200 turns per client address and 400 overall per UTC day,
and four concurrent turns; the check order is per-client quota, concurrency, global quota,
and a refusal is never charged. :class:`IdempotencyRegistry` makes a retried request join the
original one (same key and same request fingerprint) instead of planning twice; the same key
with another request is a conflict. Both are thread-safe and hold state for one process only.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from legal.errors import LexError

PER_CLIENT_DAILY = 200
GLOBAL_DAILY = 400
CONCURRENT = 4
IDEMPOTENCY_ENTRIES = 1024
IDEMPOTENCY_BYTES = 64 * 1024 * 1024
IDEMPOTENCY_RETENTION_S = 600.0
_KEY = re.compile(r"^[A-Za-z0-9._-]{1,128}$")


class AdmissionRefused(LexError):
    """A turn was not admitted (``per_client_quota``, ``busy`` or ``global_quota``)."""

    family = "admission"
    default_code = "busy"


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


@dataclass
class AdmissionLease:
    """Holds one concurrency slot until released (idempotent)."""

    admission: Admission
    _released: bool = False

    def release(self) -> None:
        if not self._released:
            self._released = True
            self.admission._release()


@dataclass
class Admission:
    per_client: int = PER_CLIENT_DAILY
    global_daily: int = GLOBAL_DAILY
    concurrent: int = CONCURRENT
    clock: Callable[[], dt.datetime] = utc_now
    _day: dt.date | None = None
    _clients: dict[str, int] = field(default_factory=dict)
    _global: int = 0
    _executing: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Admission:
        def read(name: str, default: int) -> int:
            raw = env.get(name, "").strip()
            return int(raw) if raw else default

        return cls(read("LEX_ASK_PER_CLIENT_DAILY", PER_CLIENT_DAILY),
                   read("LEX_ASK_GLOBAL_DAILY", GLOBAL_DAILY), read("LEX_ASK_CONCURRENT", CONCURRENT))

    def admit(self, client: str) -> AdmissionLease:
        """Accept and charge one turn for ``client`` or raise :class:`AdmissionRefused`."""
        with self._lock:
            today = self.clock().astimezone(dt.UTC).date()
            if today != self._day:
                self._day, self._clients, self._global = today, {}, 0
            if self._clients.get(client, 0) >= self.per_client:
                raise AdmissionRefused("the daily question quota for this address is used up",
                                       code="per_client_quota")
            if self._executing >= self.concurrent:
                raise AdmissionRefused("the assistant is busy; retry shortly", code="busy")
            if self._global >= self.global_daily:
                raise AdmissionRefused("the assistant's daily question quota is used up",
                                       code="global_quota")
            self._clients[client] = self._clients.get(client, 0) + 1
            self._global += 1
            self._executing += 1
        return AdmissionLease(self)

    def _release(self) -> None:
        with self._lock:
            self._executing -= 1

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return {"global": self._global, "executing": self._executing, "clients": len(self._clients)}


# --- idempotency ------------------------------------------------------------------------------


class IdempotencyConflict(LexError):
    """``key_reused`` (409), ``replay_unavailable`` (409) or ``busy`` (429)."""

    family = "idempotency"
    default_code = "key_reused"


def valid_key(key: str) -> bool:
    return bool(_KEY.match(key))


def fingerprint(purpose: str, thread_token: str | None, body: bytes) -> str:
    prefix = f"{purpose}\n{thread_token or '-'}\n".encode()
    return hashlib.sha256(prefix + body).hexdigest()


@dataclass
class Entry:
    """One request's result, shared by its owner and every duplicate."""

    fingerprint: str
    done: asyncio.Event = field(default_factory=asyncio.Event)
    status: int = 0
    body: dict[str, Any] | None = None
    size: int = 0
    completed_at: float | None = None
    events: list[tuple[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Claim:
    owner: bool
    entry: Entry


@dataclass
class IdempotencyRegistry:
    max_entries: int = IDEMPOTENCY_ENTRIES
    max_bytes: int = IDEMPOTENCY_BYTES
    retention_s: float = IDEMPOTENCY_RETENTION_S
    clock: Callable[[], float] = time.monotonic
    _entries: OrderedDict[str, Entry] = field(default_factory=OrderedDict)
    _tombstones: OrderedDict[str, str] = field(default_factory=OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def claim(self, key: str, print_: str) -> Claim:
        with self._lock:
            self._expire()
            entry = self._entries.get(key)
            if entry is not None:
                if entry.fingerprint != print_:
                    raise IdempotencyConflict("the idempotency key was already used for another request",
                                              code="key_reused")
                return Claim(False, entry)
            if key in self._tombstones:
                code = "replay_unavailable" if self._tombstones[key] == print_ else "key_reused"
                raise IdempotencyConflict("the cached response is no longer available; use a new key "
                                          "only for a new request", code=code)
            if len(self._entries) + len(self._tombstones) >= self.max_entries and not self._evict():
                raise IdempotencyConflict("too many requests in flight", code="busy")
            entry = Entry(print_)
            self._entries[key] = entry
            return Claim(True, entry)

    def complete(self, key: str, entry: Entry, status: int, body: dict[str, Any], retain: bool) -> None:
        """Publish the owner's result to duplicates; keep it for replay when ``retain``."""
        entry.status, entry.body = status, body
        entry.size = 2 * len(repr(body))
        entry.completed_at = self.clock()
        entry.done.set()
        with self._lock:
            if not retain or entry.size > self.max_bytes:
                self._entries.pop(key, None)
                return
            while sum(e.size for e in self._entries.values() if e.completed_at) > self.max_bytes:
                if not self._evict():
                    break

    def _evict(self) -> bool:
        """Turn the oldest completed entry into a tombstone (or drop the oldest tombstone)."""
        for key, entry in self._entries.items():
            if entry.completed_at is not None:
                del self._entries[key]
                self._tombstones[key] = entry.fingerprint
                if len(self._tombstones) > self.max_entries // 2:
                    self._tombstones.popitem(last=False)
                return True
        return False

    def _expire(self) -> None:
        now = self.clock()
        for key, entry in list(self._entries.items()):
            if entry.completed_at is not None and now - entry.completed_at > self.retention_s:
                del self._entries[key]
                self._tombstones[key] = entry.fingerprint
        while len(self._tombstones) > self.max_entries // 2:
            self._tombstones.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)
