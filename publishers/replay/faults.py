"""Fault switches of the replay publisher (set at start, or live via ``/_replay/faults``).

Countdown faults hit the next *N* matching requests (``target``: ``all``, ``sparql`` or
``files``), in this order of precedence:

- ``burst``: answer ``burst_status`` (default 503);
- ``rate_limit``: answer 429 with ``Retry-After: <retry_after>``;
- ``slow``: wait ``slow_seconds`` before answering (past the client's timeout);
- ``truncate`` (files only): ``digest`` mode serves half the body with an honest length but
  the full body's ``Repr-Digest`` (caught by hash); ``length`` mode declares the full
  ``Content-Length`` and closes after half (caught by the length check);
- ``malformed_sparql`` (sparql only): a response that is not SPARQL JSON.

Enumeration faults (SPARQL ``SELECT`` answers other than ``COUNT``s; ``enumeration_target``,
if set, limits them to queries whose text contains it):

- ``truncate_enumeration``: the next N answers with rows lose their last row (a publisher
  that stops early without saying so);
- ``unstable_paging``: the next N paged answers (``OFFSET`` > 0) are cut from an order in
  which the row at the page boundary and the row before it are swapped (an unstable sort:
  without overlap, one row is read twice and its neighbour never);
- ``duplicate_rows``: the next N answers with at least two rows repeat their first row in
  place of their second (same length: a row read twice, another lost).

Body faults: ``changed_bodies`` (body sha256s, or ``"*"`` for all single-file bodies, served
with other bytes — the publisher changed them; ``If-Modified-Since`` is answered ``304``
only for unchanged bodies).

Standing faults: ``empty_catalogue`` (a well-formed but empty publisher: no record at all,
every ``COUNT`` 0), ``not_found`` / ``gone`` (body sha256s answered 404 / 410), ``withdrawn``
(publisher version identifiers absent from the graph), ``same_day`` (``{"of": pvid,
"identifier": new pvid}`` twins added), ``shuffle_seed`` (record order and each response's
row order shuffled), ``patch_add`` / ``patch_remove`` (N-Triples lines added to / removed
from the graph: bad publisher data on demand).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from legal.errors import ConfigError

#: Faults that change the projected graph (a change rebuilds it).
GRAPH_FAULTS = frozenset({"withdrawn", "same_day", "shuffle_seed", "patch_add", "patch_remove", "empty_catalogue"})


@dataclass
class Faults:
    burst: int = 0
    burst_status: int = 503
    rate_limit: int = 0
    retry_after: int = 2
    slow: int = 0
    slow_seconds: float = 2.0
    truncate: int = 0
    truncate_mode: str = "digest"
    malformed_sparql: int = 0
    truncate_enumeration: int = 0
    unstable_paging: int = 0
    duplicate_rows: int = 0
    enumeration_target: str = ""
    empty_catalogue: bool = False
    changed_bodies: list[str] = field(default_factory=list)
    target: str = "all"
    not_found: list[str] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)
    withdrawn: list[str] = field(default_factory=list)
    same_day: list[dict[str, str]] = field(default_factory=list)
    shuffle_seed: int | None = None
    patch_add: list[str] = field(default_factory=list)
    patch_remove: list[str] = field(default_factory=list)

    def update(self, changes: dict[str, Any]) -> set[str]:
        """Apply ``changes`` (unknown names refused); returns the names that changed."""
        names = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise ConfigError(f"unknown fault switch(es): {', '.join(unknown)}", code="unknown_fault")
        if changes.get("truncate_mode", self.truncate_mode) not in ("digest", "length"):
            raise ConfigError("truncate_mode must be 'digest' or 'length'", code="invalid_fault")
        if changes.get("target", self.target) not in ("all", "sparql", "files"):
            raise ConfigError("target must be 'all', 'sparql' or 'files'", code="invalid_fault")
        changed = set()
        for name, value in changes.items():
            if getattr(self, name) != value:
                setattr(self, name, value)
                changed.add(name)
        return changed

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def hits(self, kind: str) -> bool:
        return self.target in ("all", kind)
