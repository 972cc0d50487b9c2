"""Hybrid answers: the keyword sections of a ``search`` answer, fused per publisher with the semantic lane.

Called through :data:`HYBRID_SEARCH` (the :class:`serve.core.SearchLane` that activation attaches
to the core) only for ``retrieval_mode: hybrid``, after the keyword
pipeline has produced its sections exactly as in keyword mode (every pass: strict, stemmed,
relaxed). For each publisher section:

- a section the hybrid gate refused (``retrieval_mode_unavailable``) is returned as it is;
- ``keyword_anchored``: when the query is an identifier, an article or anchor request, a named
  work with nothing else asked, when it has a ``hierarchy`` or ``domain`` filter (the semantic
  lane's filters do not carry those work sets), or when the keyword pipeline returned no provision hit, the
  keyword hits stand (so a query without lexical evidence — a negative or gap case — is answered
  exactly as keyword mode answers it);
- ``rrf``: otherwise the semantic hits, found under the same :class:`Filters` as the keyword lane
  (filters applied before any ranking: a state failing one never becomes a candidate), are fused
  with the keyword hits by reciprocal rank fusion (k = 60), and the work-title lane adds
  ``0.65 / (60 + rank)`` to the best hit of each work already present (it inserts nothing).

Every fused section says ``retrieval_mode: hybrid`` and ``retrieval_fusion``; hits found by the
semantic lane carry the match reason ``semantic`` (``semantic_work`` for the title boost).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hybrid.fusion import RRF_K, rrf
from hybrid.lane import WORK_WEIGHT
from hybrid.registry import decision_for, lane_for
from legal.outcomes import Outcome
from serve.core import Answer, CallContext, MountedIndex, shape_hits
from serve.core import SearchFilters as Filters
from serve.core import SearchPlan as Plan

KEYWORD_ANCHORED = "keyword_anchored"
RRF = "rrf"


def _key(hit: Mapping[str, Any]) -> tuple[Any, ...]:
    return (hit["work"], hit.get("anchor"))


def fuse_shaped(keyword: Sequence[Mapping[str, Any]], semantic: Sequence[Mapping[str, Any]],
                works: Sequence[str], limit: int,
                titles: Sequence[Mapping[str, Any]] = ()) -> list[dict[str, Any]]:
    """RRF of the ranked lists of shaped hits (key: work and anchor) — keyword, semantic and the
    title lane's work rows of works neither holds (weight ``WORK_WEIGHT``) — then the work boost
    of the works the first two lists hold, ranks renumbered."""
    by_key: dict[tuple[Any, ...], dict[str, Any]] = {}
    keyword_keys: list[tuple[Any, ...]] = []
    for hit in keyword:
        if _key(hit) not in by_key:
            by_key[_key(hit)] = dict(hit)
            keyword_keys.append(_key(hit))
    semantic_by_key: dict[tuple[Any, ...], dict[str, Any]] = {}
    semantic_keys: list[tuple[Any, ...]] = []
    for hit in semantic:
        if _key(hit) not in semantic_by_key:
            semantic_by_key[_key(hit)] = dict(hit)
            semantic_keys.append(_key(hit))
    # the title lane inserts only works neither list holds (those already present get the boost)
    present = {key[0] for key in [*keyword_keys, *semantic_keys]}
    title_keys: list[tuple[Any, ...]] = []
    for hit in titles:
        if _key(hit)[0] not in present and _key(hit) not in title_keys:
            semantic_by_key[_key(hit)] = dict(hit)
            title_keys.append(_key(hit))
    lanes = [keyword_keys, semantic_keys, title_keys] if title_keys else [keyword_keys, semantic_keys]
    fused = rrf(lanes, k=RRF_K, weights=[1.0, 1.0, WORK_WEIGHT][:len(lanes)])
    scores: dict[Any, float] = {f.key: f.score for f in fused}
    position = {f.key: i for i, f in enumerate(fused)}
    best_of_work: dict[str, Any] = {}
    for f in fused:
        assert isinstance(f.key, tuple)
        best_of_work.setdefault(f.key[0], f.key)
    boosted: set[Any] = set()
    for rank, work in enumerate(works, 1):
        found = best_of_work.get(work)
        if found is not None and found not in title_keys:
            scores[found] += WORK_WEIGHT / (RRF_K + rank)
            boosted.add(found)
    out: list[dict[str, Any]] = []
    for key in sorted(scores, key=lambda k: (-scores[k], position[k]))[:limit]:
        lexical = by_key.get(key)
        semantic_hit = semantic_by_key.get(key)
        chosen: dict[str, Any]
        if lexical is None:
            assert semantic_hit is not None
            chosen = semantic_hit
        else:
            chosen = lexical
            if semantic_hit is not None:
                chosen["match_reasons"] = [*chosen["match_reasons"], "semantic"]
                chosen["similarity"] = semantic_hit.get("similarity")
        if key in boosted and "semantic_work" not in chosen["match_reasons"]:
            chosen["match_reasons"] = [*chosen["match_reasons"], "semantic_work"]
        chosen["rank"] = len(out) + 1
        chosen["rrf_score"] = round(scores[key], 6)
        out.append(chosen)
    return out


def anchored(plan: Plan, hits: Sequence[Mapping[str, Any]]) -> bool:
    """True when the semantic lane must not take part (see the module docstring)."""
    direct = not plan.terms or plan.anchor is not None or plan.article_key is not None
    return direct or not any(h.get("anchor") is not None for h in hits)


def fuse_section(ctx: CallContext, index: MountedIndex, plan: Plan, args: Mapping[str, Any],
                 section: Answer, encoded: dict[int, Any] | None = None) -> Answer:
    """One publisher's hybrid section. ``encoded`` shares the query vector between publishers
    whose lanes use the same encoder (the query is encoded once per call)."""
    lane = lane_for(index)
    if lane is None or section.get("outcome") == Outcome.RETRIEVAL_MODE_UNAVAILABLE.value:
        return section
    keyword = [h for h in section.get("hits") or [] if isinstance(h, Mapping)]
    out = {**section, "retrieval_mode": "hybrid", "retrieval_fusion": KEYWORD_ANCHORED}
    lane.stats.queries += 1
    if anchored(plan, keyword) or args.get("hierarchy") or args.get("domain"):
        # the lane's Filters carry no hierarchy/domain work set: such a query keeps the keyword answer
        return out
    as_of = args["as_of"] if args["time_scope"] == "as_of" else None
    filters = Filters(tuple(plan.constraints), args["language"], args["document_type"], as_of)
    shared = encoded if encoded is not None else {}
    query = shared.get(id(lane.encoder))
    if query is None:
        query = shared[id(lane.encoder)] = lane.encode(str(args["query"]))
    with index.session(ctx.deadline_seconds) as conn:
        hits = lane.semantic_hits(conn, query, filters)
        shaped = shape_hits(conn, index, hits, plan.terms)
        title_rows = shape_hits(conn, index, lane.title_hits(conn, query, filters, lane.title_depth), plan.terms)
    works = [f"{index.publisher.value}:{index.catalogue.slug_of[w]}" for w in lane.work_ranking(query)
             if w in index.catalogue.slug_of]
    fused = fuse_shaped(keyword, shaped, works, int(args["limit"]), title_rows)
    row_set = dict(out.get("row_set") or {})
    row_set.update({"returned": len(fused), "limit": args["limit"], "truncated": len(fused) >= args["limit"]})
    out.update({"retrieval_fusion": RRF, "hits": fused, "row_set": row_set,
                "outcome": Outcome.SUCCEEDED.value if fused else section.get("outcome")})
    return out


def fuse_sections(ctx: CallContext, indexes: Sequence[MountedIndex], plans: Mapping[str, Plan],
                  args: Mapping[str, Any], sections: Sequence[Answer]) -> list[Answer]:
    encoded: dict[int, Any] = {}
    return [fuse_section(ctx, index, plans[index.publisher.value], args, section, encoded)
            for index, section in zip(indexes, sections, strict=True)]


class HybridSearch:
    """The hybrid lane as the core sees it: a :class:`serve.core.SearchLane` over the registry."""

    def refusal(self, index: MountedIndex) -> tuple[str, tuple[str, ...]] | None:
        decision = decision_for(index)
        return None if decision.activated else (decision.reason or "not_activated", decision.details)

    def fuse(self, ctx: CallContext, indexes: Sequence[MountedIndex], plans: Mapping[str, Plan],
             args: Mapping[str, Any], sections: Sequence[Answer]) -> list[Answer]:
        return fuse_sections(ctx, indexes, plans, args, sections)


#: The one instance activation attaches (:func:`hybrid.activate.activate_hybrid`).
HYBRID_SEARCH = HybridSearch()
