"""What the ``words_apart`` tests share: the Constitution's long German article, which holds "Stellungnahme" and
"Rechtsnormen" far apart on the real fixture corpus (``LEX_FIXTURES``), a call context and a plan per section
asking for those two words."""

from __future__ import annotations

from serve.core import LegalCore
from serve.core.envelope import CallContext
from serve.core.searchplan import Plan

LU = "lu-legilux"
CONSTITUTION = f"{LU}:constitution-1868-10-17-n1"
WORDS = ["stellungnahme", "rechtsnormen"]


def context(core: LegalCore) -> CallContext:
    """A search's call context over ``core``'s indexes."""
    return CallContext(operation="search", indexes=core.indexes, artifact={}, deadline_seconds=5.0)


def plans(core: LegalCore) -> dict[str, Plan]:
    """One plan per index, its terms :data:`WORDS`."""
    return {key: Plan(terms=list(WORDS), article_key=None, anchor=None, mentions=[], constraints=[],
                      explicit_works=False) for key in core.indexes}
