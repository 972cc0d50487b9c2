"""The answer cache: the encoded answers of one mounted set, remembered by operation and arguments.

A legal answer is a function of the mounted artifact set, the operation and its validated
arguments alone (no clock: ``provisional`` compares with the index's build day, ``known_on`` is an
argument), so a repeated question can be answered with the bytes of the first answer instead of
running the core again. :class:`AnswerCache` holds those bytes (JSON, ``zlib``-compressed: about a
fifth of their size) in least-recently-used order within a byte budget; an answer larger than an
eighth of the budget is not kept. Only answers are kept: a refusal (an invalid argument, a
deadline, a busy gate) is raised, never remembered.

One cache belongs to one mounted core (:class:`serve.mount.ServeState` makes a new one whenever
what it serves changes — a mount, a re-mount, an unmount), so a set that was replaced or refused
never answers from the cache of the one before. A hit costs a key, a look-up and a decompression
(~0.1-0.2 ms for a 60 KiB answer) where a miss costs the core's own time (1-30 ms on the full
corpora); a hit takes no admission slot, since it runs no core work.
"""

from __future__ import annotations

import threading
import zlib
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from serve.http.encoding import canonical_key

#: zlib's level for the kept bytes: level 1 compresses a search answer about 4-5 times, at
#: ~0.4 ms per answer against ~0.9 ms for level 6 (which saves a further sixth).
LEVEL = 1


class AnswerCache:
    """Compressed answers by ``(operation, arguments)``, least recently used first out, within
    ``budget`` bytes (compressed); one entry may use at most an eighth of it."""

    def __init__(self, budget: int, owner: object = None) -> None:
        self.budget = max(0, int(budget))
        self.entry_limit = self.budget // 8
        #: what the cache answers for (the mounted core): a cache is never consulted for another
        self.owner = owner
        self._entries: OrderedDict[bytes, tuple[int, bytes]] = OrderedDict()  # key -> (size, compressed)
        self._lock = threading.Lock()
        self.size = 0
        self.hits = 0
        self.misses = 0

    @property
    def enabled(self) -> bool:
        return self.budget > 0

    def __len__(self) -> int:
        return len(self._entries)

    @staticmethod
    def key(operation: str, arguments: Mapping[str, Any]) -> bytes | None:
        """The key of one call (its arguments in sorted key order); None when they cannot be keyed."""
        return canonical_key(operation, arguments)

    def get(self, key: bytes) -> bytes | None:
        """The JSON bytes of the answer kept under ``key`` (now the most recently used), or None."""
        with self._lock:
            kept = self._entries.get(key)
            if kept is None:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
        size, compressed = kept
        return zlib.decompress(compressed, bufsize=size)  # one buffer of the answer's size: no regrowth

    def put(self, key: bytes, encoded: bytes) -> bool:
        """Keep ``encoded`` (an answer's JSON bytes) under ``key``; False when it is too large to keep."""
        if not self.enabled:
            return False
        compressed = zlib.compress(encoded, LEVEL)
        cost = len(compressed) + len(key)
        if cost > self.entry_limit:
            return False
        with self._lock:
            previous = self._entries.pop(key, None)
            if previous is not None:
                self.size -= len(previous[1]) + len(key)
            self._entries[key] = (len(encoded), compressed)
            self.size += cost
            while self.size > self.budget and self._entries:
                old_key, (_, old) = self._entries.popitem(last=False)
                self.size -= len(old) + len(old_key)
        return True

    def stats(self) -> dict[str, int]:
        """Entries, bytes kept, budget, hits and misses (``/readyz`` shows them)."""
        return {"entries": len(self._entries), "bytes": self.size, "budget": self.budget,
                "hits": self.hits, "misses": self.misses}
