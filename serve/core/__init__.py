"""The legal core: the ten legal operations over mounted, verified, read-only indexes.

Public API: :class:`LegalCore` (``mount``, ``call``, ``catalogue_entries``,
``attach_search_lane``), :data:`OPERATIONS` (the operation declarations every shell is
generated from), :class:`OperationSpec`, :class:`Effect`, :class:`CatalogueEntry`.

For an optional search lane (``hybrid/``): the :class:`SearchLane` protocol and what an
implementation reads — :class:`MountedIndex`, :class:`CallContext`, :class:`SearchPlan`,
:class:`SearchFilters`, :class:`Hit`, :func:`occurrences` and :func:`shape_hits`.
Design and contracts: ``docs/legal-core.md``.
"""

from __future__ import annotations

from serve.core.core import LegalCore
from serve.core.envelope import Answer, CallContext
from serve.core.lanes import NOT_ACTIVATED, SearchLane
from serve.core.mount import CatalogueEntry, DeadlineExceeded, MountedIndex
from serve.core.ops.search import Filters as SearchFilters
from serve.core.ops.search import Hit, occurrences, shape_hits
from serve.core.registry import OPERATIONS
from serve.core.searchplan import Plan as SearchPlan
from serve.core.spec import Effect, OperationSpec

__all__ = [
    "NOT_ACTIVATED",
    "OPERATIONS",
    "Answer",
    "CallContext",
    "CatalogueEntry",
    "DeadlineExceeded",
    "Effect",
    "Hit",
    "LegalCore",
    "MountedIndex",
    "OperationSpec",
    "SearchFilters",
    "SearchLane",
    "SearchPlan",
    "occurrences",
    "shape_hits",
]
