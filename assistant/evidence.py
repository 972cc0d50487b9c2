"""The evidence ledger: what a composer may read and a claim may cite, built only for synthesis.

Every item has an id ``tool:call:ordinal`` (``call`` counts observed legal results from 1 in
plan order, ``ordinal`` counts items within that call from 0), one of seven kinds, the identity
of what it is about (work, anchor, date), what a claim can be checked against (text SHA-256,
permalink) and bounded text. The ledger holds at most 64 items and 96,000 characters; the
oldest items are evicted first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from assistant import core_port as cp
from assistant.execute import OperationResult
from assistant.vocab import EvidenceKind, LegalOutcome

MAX_ITEMS = 64
MAX_CHARACTERS = 96_000
CAPS = {"work": 300, "anchor": 300, "date": 50, "text_sha256": 128, "permalink": 2048,
        "title": 500, "excerpt": 8000}
_GAPS = {LegalOutcome.NEEDS_CLARIFICATION, LegalOutcome.NOT_AVAILABLE, LegalOutcome.NOT_COMPARABLE,
         LegalOutcome.NOT_FOUND}
_ROW_KIND = {
    "search": EvidenceKind.POINTER, "timeline": EvidenceKind.TIMELINE,
    "in_force_on": EvidenceKind.TIMELINE, "diff": EvidenceKind.CHANGE,
    "article_history": EvidenceKind.CHANGE, "changes_in_period": EvidenceKind.RANKING,
    "provenance": EvidenceKind.PROVENANCE, "cited_by": EvidenceKind.PROVENANCE,
    "coverage": EvidenceKind.COVERAGE, "as_of": EvidenceKind.TIMELINE,
}


@dataclass(frozen=True)
class Evidence:
    id: str
    kind: EvidenceKind
    work: str | None = None
    anchor: str | None = None
    date: str | None = None
    text_sha256: str | None = None
    permalink: str | None = None
    requires_coverage_disclosure: bool = False
    title: str | None = None
    excerpt: str = ""

    def size(self) -> int:
        return sum(len(v) for v in (self.id, self.work, self.anchor, self.date, self.text_sha256,
                                    self.permalink, self.title, self.excerpt) if v)

    def checkable_text(self) -> str:
        """Everything a claim citing this item may be checked against."""
        return "\n".join(v for v in (self.work, self.anchor, self.date, self.text_sha256, self.title,
                                     self.excerpt) if v)

    def to_prompt(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in (None, "", False)}


def _cap(field: str, value: Any) -> str | None:
    if value is None or value == "":
        return None
    return str(value)[: CAPS[field]]


def _item(item_id: str, kind: EvidenceKind, source: Mapping[str, Any], excerpt: str, *,
          date: Any = None, disclosure: bool = False) -> Evidence:
    return Evidence(
        item_id, kind, _cap("work", source.get("work")), _cap("anchor", source.get("anchor")),
        _cap("date", date or source.get("valid_from") or source.get("date")),
        _cap("text_sha256", source.get("text_sha256")),
        _cap("permalink", source.get("permalink") or source.get("source_uri")), disclosure,
        _cap("title", source.get("title") or source.get("heading")), excerpt[: CAPS["excerpt"]])


def items_for(result: OperationResult, call: int) -> list[Evidence]:
    """The evidence items of one observed legal result."""
    payload = result.payload or {}
    tool = result.operation.tool
    prefix = f"{tool}:{call}"
    head = {"work": cp.first(payload, "work"), "title": cp.first(payload, "title"),
            "valid_from": cp.first(payload, "valid_from"), "source_uri": cp.first(payload, "source_uri"),
            "permalink": cp.first(payload, "permalink")}
    if result.legal_outcome in _GAPS:
        return [_item(f"{prefix}:0", EvidenceKind.COVERAGE, head, cp.bounded_json(payload), disclosure=True)]
    if tool == "coverage":
        return [_item(f"{prefix}:0", EvidenceKind.COVERAGE, head, cp.bounded_json(payload))]
    if tool == "as_of":
        return _as_of_items(prefix, payload, head, result)
    summary = {k: v for k, v in cp.scalar_row(payload, 300).items()
               if k not in ("operation", "provisional")}
    out = [_item(f"{prefix}:0", _ROW_KIND[tool], head, cp.bounded_json(summary))]
    for row in cp.rows(payload):
        merged = {**head, **{k: v for k, v in row.items() if v is not None}}
        out.append(_item(f"{prefix}:{len(out)}", _ROW_KIND[tool], merged, cp.bounded_json(cp.scalar_row(row))))
    return out


def _as_of_items(prefix: str, payload: Mapping[str, Any], head: Mapping[str, Any],
                 result: OperationResult) -> list[Evidence]:
    args = result.executed_arguments or {}
    binding = {"outcome": result.legal_outcome.value, "requested_date": args.get("date"),
               "selected_valid_from": cp.first(payload, "valid_from"),
               "selected_valid_to": cp.first(payload, "valid_to"),
               "relation": "selected publisher version covers requested date"}
    out = [_item(f"{prefix}:0", EvidenceKind.TIMELINE, head, cp.bounded_json(binding))]
    for row in cp.rows(payload, ("provisions",)):
        body = row.get("text")
        kind = EvidenceKind.LEGAL_TEXT if isinstance(body, str) and body else EvidenceKind.TIMELINE
        merged = {**head, **{k: v for k, v in row.items() if v is not None}}
        excerpt = body if isinstance(body, str) else cp.bounded_json(cp.scalar_row(row))
        label = " ".join(str(x) for x in (row.get("num"), row.get("heading")) if x)
        out.append(_item(f"{prefix}:{len(out)}", kind, merged, f"{label}\n{excerpt}".strip(),
                         date=head.get("valid_from")))
    return out


def build_ledger(results: Iterable[OperationResult]) -> list[Evidence]:
    """Items of every observed legal result, bounded FIFO to 64 items and 96,000 characters."""
    items: list[Evidence] = []
    call = 0
    for result in results:
        if result.operation.is_application or result.payload is None:
            continue
        call += 1
        items.extend(items_for(result, call))
    return bound(items)


def bound(items: Sequence[Evidence]) -> list[Evidence]:
    kept = list(items)
    while kept and (len(kept) > MAX_ITEMS or sum(i.size() for i in kept) > MAX_CHARACTERS):
        kept.pop(0)
    return kept
