"""The envelope every answer carries, and the precedence of outcomes across publishers.

A publisher-scoped answer is ``{operation, outcome, publisher, publisher_name, jurisdiction,
timeline_semantics, provisional, artifact{…}, …payload}``. An answer that fans out over the
mounted publishers carries ``{operation, outcome, provisional, artifact{set_id}, publishers:
[publisher-scoped answers]}`` where ``outcome`` is the dominant one (``DOMINANCE``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from legal.outcomes import Outcome
from serve.core.mount import MountedIndex

if TYPE_CHECKING:
    from serve.core.lanes import SearchLane

Answer = dict[str, Any]

#: Most informative first: a clarification need beats a gap, beats "not comparable", beats
#: "not found", beats success, beats an empty success.
DOMINANCE: tuple[Outcome, ...] = (
    Outcome.AMBIGUOUS_VERSION,
    Outcome.NO_VERSION_FOR_DATE, Outcome.NOT_YET_KNOWN, Outcome.ANCHOR_NOT_IN_VERSION, Outcome.NO_PROVISION_HISTORY,
    Outcome.TEXT_NOT_AVAILABLE, Outcome.TEXT_WITHHELD, Outcome.RETRIEVAL_MODE_UNAVAILABLE,
    Outcome.NOT_COMPARABLE,
    Outcome.UNKNOWN_WORK, Outcome.UNKNOWN_ANCHOR, Outcome.UNKNOWN_PUBLISHER,
    Outcome.SUCCEEDED,
    Outcome.EMPTY, Outcome.NO_CHANGES_IN_PERIOD,
    Outcome.NO_CORPUS_MOUNTED, Outcome.INVALID_REQUEST,
)


def dominant(outcomes: Iterable[Outcome]) -> Outcome:
    present = set(outcomes)
    if Outcome.SUCCEEDED in present and present <= {Outcome.SUCCEEDED, Outcome.EMPTY, Outcome.NO_CHANGES_IN_PERIOD}:
        return Outcome.SUCCEEDED
    for outcome in DOMINANCE:
        if outcome in present:
            return outcome
    return Outcome.EMPTY


@dataclass(frozen=True)
class CallContext:
    """What one call may see: the operation name, the mounted indexes and the artifact identity."""

    operation: str
    indexes: Mapping[str, MountedIndex]
    artifact: Mapping[str, Any]
    deadline_seconds: float
    search_lane: SearchLane | None = None

    def ordered(self) -> list[MountedIndex]:
        return [self.indexes[k] for k in sorted(self.indexes)]


def artifact_identity(ctx: CallContext, index: MountedIndex | None) -> dict[str, Any]:
    out: dict[str, Any] = {"set_id": ctx.artifact.get("set_id")}
    for key, value in sorted(ctx.artifact.items()):
        if key != "set_id" and (isinstance(value, (str, int, bool)) or value is None):
            out.setdefault(key, value)
    if index is not None:
        out.update({
            "index_file": index.name,
            "index_format": index.stamp.get("schema"),
            "content_digest": index.stamp.get("content_digest"),
            "built_at": index.stamp.get("built_at"),
            "corpus_manifest_sha256": index.stamp.get("corpus_manifest_sha256"),
        })
    return out


def is_provisional(index: MountedIndex, *days: str | None) -> bool:
    """True when any queried date lies after the day the index was built."""
    return any(day is not None and day > index.built_date for day in days)


def answer(ctx: CallContext, index: MountedIndex, outcome: Outcome, payload: Mapping[str, Any] | None = None, *,
           provisional: bool = False) -> Answer:
    head: Answer = {
        "operation": ctx.operation,
        "outcome": outcome.value,
        "publisher": index.publisher.value,
        "publisher_name": index.stamp.get("publisher_name"),
        "jurisdiction": index.stamp.get("jurisdiction"),
        "timeline_semantics": index.semantics.value,
        "provisional": provisional,
        "artifact": artifact_identity(ctx, index),
    }
    return {**head, **(payload or {})}


def fanout(ctx: CallContext, sections: Sequence[Answer], payload: Mapping[str, Any] | None = None) -> Answer:
    outcome = dominant(Outcome(s["outcome"]) for s in sections) if sections else Outcome.EMPTY
    return {
        "operation": ctx.operation,
        "outcome": outcome.value,
        "provisional": any(bool(s.get("provisional")) for s in sections),
        "artifact": artifact_identity(ctx, None),
        **(payload or {}),
        "publishers": list(sections),
    }


def no_corpus_mounted(operation: str, artifact: Mapping[str, Any] | None = None) -> Answer:
    return {
        "operation": operation,
        "outcome": Outcome.NO_CORPUS_MOUNTED.value,
        "provisional": False,
        "publisher": None,
        "artifact": {"set_id": (artifact or {}).get("set_id")},
        "detail": "No verified index is mounted, so no legal question can be answered here. "
                  "Build one with `lex index build`, verify the release, and mount it.",
    }


def unknown_publisher(ctx: CallContext, requested: str) -> Answer:
    return {
        "operation": ctx.operation,
        "outcome": Outcome.UNKNOWN_PUBLISHER.value,
        "provisional": False,
        "publisher": None,
        "artifact": artifact_identity(ctx, None),
        "requested_publisher": requested,
        "mounted_publishers": sorted(ctx.indexes),
        "detail": "This publisher is not mounted here.",
    }


def unknown_work(ctx: CallContext, work: str, candidates: Sequence[str] = (), index: MountedIndex | None = None) -> Answer:
    payload: Answer = {"work": work, "mounted_publishers": sorted(ctx.indexes)}
    if candidates:
        payload["candidates"] = list(candidates)
    if index is not None:
        return answer(ctx, index, Outcome.UNKNOWN_WORK, payload)
    return {"operation": ctx.operation, "outcome": Outcome.UNKNOWN_WORK.value, "provisional": False,
            "publisher": None, "artifact": artifact_identity(ctx, None), **payload}
