"""The optional search lane: how an extra retrieval mode plugs into ``search`` without the core knowing it.

The core declares :class:`SearchLane` and never imports an implementation. The composition
root (``lex serve``, a benchmark) attaches one to a mounted core with
:meth:`serve.core.LegalCore.attach_search_lane`; the hybrid lane (``hybrid/``) is the one
implementation. Without a lane, ``retrieval_mode: hybrid`` answers
``retrieval_mode_unavailable`` with the reason ``not_activated`` and keyword search is
unaffected.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from serve.core.envelope import Answer, CallContext
    from serve.core.mount import MountedIndex
    from serve.core.searchplan import Plan

#: The reason given for an index no lane was attached for.
NOT_ACTIVATED = "not_activated"


class SearchLane(Protocol):
    """A retrieval lane fused with the keyword sections of a ``retrieval_mode: hybrid`` search."""

    def refusal(self, index: MountedIndex) -> tuple[str, tuple[str, ...]] | None:
        """``None`` when the lane serves ``index``; else the typed reason and its details."""
        ...

    def fuse(self, ctx: CallContext, indexes: Sequence[MountedIndex], plans: Mapping[str, Plan],
             args: Mapping[str, Any], sections: Sequence[Answer]) -> list[Answer]:
        """The keyword ``sections`` (one per index, same order) fused with the lane's hits."""
        ...


def refusal(lane: SearchLane | None, index: MountedIndex) -> tuple[str, tuple[str, ...]] | None:
    """Why ``index`` has no hybrid lane (``None`` when it has one)."""
    return (NOT_ACTIVATED, ()) if lane is None else lane.refusal(index)
