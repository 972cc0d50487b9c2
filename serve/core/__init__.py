"""The legal core: the ten legal operations over mounted, verified, read-only indexes.

Public API: :class:`LegalCore` (``mount``, ``call``, ``catalogue_entries``), :data:`OPERATIONS`
(the operation declarations every shell is generated from), :class:`OperationSpec`,
:class:`Effect`, :class:`CatalogueEntry`.
Design and contracts: ``docs/legal-core.md``.
"""

from __future__ import annotations

from serve.core.core import LegalCore
from serve.core.mount import CatalogueEntry, DeadlineExceeded
from serve.core.registry import OPERATIONS
from serve.core.spec import Effect, OperationSpec

__all__ = ["OPERATIONS", "CatalogueEntry", "DeadlineExceeded", "Effect", "LegalCore", "OperationSpec"]
