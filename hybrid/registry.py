"""Which mounted index has an active hybrid lane, and why the others have none.

Activation is decided once, at mount time (:func:`hybrid.activate.activate_hybrid`), never
per query. The registry is keyed by the :class:`serve.core.MountedIndex` object (weakly),
so closing and dropping a core forgets its lanes. An index that was never considered answers
``not_activated``.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from serve.core import NOT_ACTIVATED, MountedIndex

if TYPE_CHECKING:
    from hybrid.lane import HybridLane

#: Closed vocabulary of ``retrieval_unavailable_reason`` (index_ops.md §5 order, plus ours).
REASONS = (
    "not_activated", "encoder_unavailable", "vectors_missing", "vectors_unverified", "benchmark_missing",
    "benchmark_invalid", "benchmark_identity_mismatch", "benchmark_gate_failed",
)


@dataclass(frozen=True)
class Decision:
    """The activation decision of one publisher: a lane, or the typed reason and details."""

    publisher: str
    activated: bool
    reason: str | None = None
    details: tuple[str, ...] = field(default=())
    lane: HybridLane | None = None

    def to_dict(self) -> dict[str, object]:
        return {"publisher": self.publisher, "activated": self.activated, "reason": self.reason,
                "details": list(self.details)}


_DECISIONS: weakref.WeakKeyDictionary[MountedIndex, Decision] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def record(index: MountedIndex, decision: Decision) -> None:
    if not decision.activated and decision.reason not in REASONS:
        raise ValueError(f"unknown hybrid reason {decision.reason!r}")
    with _LOCK:
        _DECISIONS[index] = decision


def decision_for(index: MountedIndex) -> Decision:
    with _LOCK:
        found = _DECISIONS.get(index)
    return found if found is not None else Decision(index.publisher.value, False, NOT_ACTIVATED)


def lane_for(index: MountedIndex) -> HybridLane | None:
    decision = decision_for(index)
    return decision.lane if decision.activated else None


def forget(index: MountedIndex) -> None:
    with _LOCK:
        _DECISIONS.pop(index, None)
