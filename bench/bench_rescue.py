"""Benchmark: can the work-title lane rescue questions asked in everyday words? (issue #15, docs/hybrid.md §9)

Two steps, so the policies can be compared without searching again:

``collect``: mounts the indexes of ``--index-dir`` (which must hold ``--scope titles`` vectors,
``lex index vectors``), loads the pinned encoder and, for every case of every ``--judgments``
file, records per publisher section: the keyword answer (``limit`` 10, the retrieval
benchmark's own arguments), the keyword candidates (``limit`` 50), the planner's flags, the
title similarity of every work, and — in a weak section (:func:`hybrid.rescue.weak_reasons`), for
the ``--scan`` works nearest by title — the keyword planner's best row in that work alone (``works: [that work]``, the case's own filters): the
lexical evidence the rescue policy requires. Query encoding is timed (p50/p95) and the process
peak RSS recorded.

``score``: applies the policies of :mod:`hybrid.rescue` to the collected answers and scores every
case with the retrieval benchmark's own scoring (:mod:`release.benchmark.scoring`), per file:
nDCG@10, MRR, cases up/down against keyword, exact-first, no-hit accuracy, leakage, negatives
given a hit; and the pure title ranking of the relevant works (MRR, top-10 count).

Usage::

    python -m bench.bench_rescue collect --index-dir DIR --judgments evals/full_judgments_concept9.json ... \\
        --out collected.json
    python -m bench.bench_rescue score --collected collected.json --out policies.json
"""

from __future__ import annotations

import argparse
import json
import resource
import sqlite3
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from hybrid.rescue import (
    ANY_TERM,
    OFF_SUBJECT,
    UNTITLED,
    WEAK_REASONS,
    reranked,
    rescued,
    weak_reasons,
)

ROW_KEYS = ("work", "version_key", "anchor", "valid_from", "end_exclusive", "match_reasons")
#: Title-nearest works examined per section for evidence.
SCAN = 5
CANDIDATES = 50


def _row(hit: Mapping[str, Any]) -> dict[str, Any]:
    return {k: hit.get(k) for k in ROW_KEYS}


def _sections(answer: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    from release.benchmark.runner import sections

    return sections(answer)


def collect(index_dir: Path, files: Sequence[Path], scan: int) -> dict[str, Any]:
    """Every case's keyword answers, flags, title similarities and evidence rows (see the docstring)."""
    from derive.vectors.encoder import load_encoder
    from derive.vectors.store import load_vectors
    from hybrid.lane import HybridLane
    from release.benchmark import load_judgments
    from release.benchmark.runner import search_args
    from serve.core import LegalCore

    encoder = load_encoder()
    out: dict[str, Any] = {"files": {}, "encode_ms": []}
    with LegalCore.mount(index_dir, {}) as core:
        lanes: dict[str, tuple[HybridLane, list[str]]] = {}
        for publisher, index in core.indexes.items():
            lane = HybridLane(load_vectors(index_dir / index.name, dict(index.stamp)), encoder)
            with sqlite3.connect(f"file:{index_dir / index.name}?mode=ro", uri=True) as conn:
                names = dict(conn.execute("SELECT work_rowid, work_id FROM works").fetchall())
            lanes[publisher] = (lane, [str(names[int(r)]) for r in lane.work_ids])
        out["lane_bytes"] = {p: lane.nbytes for p, (lane, _) in lanes.items()}
        for path in files:
            judgments = load_judgments(path)
            cases = []
            for case in judgments.cases:
                started = time.perf_counter()
                query = encoder.encode_query(case.query)
                out["encode_ms"].append((time.perf_counter() - started) * 1000)
                sims = {p: dict(zip(ids, (float(x) for x in lane.work_scores(query)), strict=True))
                        for p, (lane, ids) in lanes.items()}
                args = search_args(case, "keyword", 10)
                top = _sections(core.call("search", args))
                wide = {str(s.get("publisher")): s for s in _sections(core.call("search", {**args, "limit": CANDIDATES}))}
                record = []
                for section in top:
                    publisher = str(section.get("publisher"))
                    by_sim = sims.get(publisher, {})
                    nearest = [w for w, _ in sorted(by_sim.items(), key=lambda kv: (-kv[1], kv[0]))[:scan]]
                    evidence: dict[str, Any] = {}
                    if not case.filters.works and weak_reasons(section):
                        for work in nearest:
                            found = _sections(core.call("search", {**args, "publisher": publisher,
                                                                   "works": [work], "limit": 1}))
                            rows = [h for s in found for h in s.get("hits") or [] if h.get("anchor")]
                            if rows:
                                evidence[work] = _row(rows[0])
                    candidates = [_row(h) for h in (wide.get(publisher) or {}).get("hits") or []]
                    record.append({
                        "publisher": publisher, "hits": [_row(h) for h in section.get("hits") or []],
                        "flags": {k: section.get(k) for k in ("query_relaxed", "relaxation_withheld",
                                                             "title_coverage", "top_title_match", "outcome")},
                        "nearest": nearest, "nearest_sims": [round(by_sim[w], 6) for w in nearest],
                        "evidence": evidence, "candidates": candidates,
                        "candidate_sims": {c["work"]: round(by_sim.get(c["work"], float("nan")), 6)
                                           for c in candidates if c["work"] in by_sim}})
                relevant_ranks = {}
                for item in case.relevant:
                    publisher = item.work.split(":", 1)[0]
                    by_sim = sims.get(publisher, {})
                    if item.work in by_sim:
                        mine = by_sim[item.work]
                        relevant_ranks[item.work] = 1 + sum(1 for v in by_sim.values() if v > mine)
                cases.append({"id": case.id, "sections": record, "relevant_title_rank": relevant_ranks,
                              "top_sim": max((max(v.values()) for v in sims.values() if v), default=None)})
            out["files"][path.name] = {"path": str(path), "cases": cases}
            print(f"{path.name}: {len(cases)} cases", file=sys.stderr, flush=True)
    out["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return out


# -- scoring -----------------------------------------------------------------------------------

Policy = Callable[[Mapping[str, Any]], list[Mapping[str, Any]]]


def policies() -> dict[str, Policy]:
    """The policies compared (name -> section -> hits)."""
    def keyword(s: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        return list(s["hits"])

    def rescue(depth: int, act_on: Sequence[str], strict: bool = False) -> Policy:
        def run(s: Mapping[str, Any]) -> list[Mapping[str, Any]]:
            reasons = weak_reasons({**s["flags"], "hits": s["hits"]})
            evidence = s["evidence"]
            if strict:  # evidence must be a full keyword match in the work, not any-word relaxation
                evidence = {w: r for w, r in evidence.items() if "keyword" in (r.get("match_reasons") or ())}
            return rescued(s["hits"], reasons, s["nearest"], evidence, depth=depth, act_on=act_on)
        return run

    def rerank(weight: float, weak_only: bool = False) -> Policy:
        def run(s: Mapping[str, Any]) -> list[Mapping[str, Any]]:
            if weak_only and not weak_reasons({**s["flags"], "hits": s["hits"]}):
                return list(s["hits"])
            if not s["hits"]:
                return []
            return reranked(s["candidates"], s["candidate_sims"], weight)[:10]
        return run

    out: dict[str, Policy] = {"keyword": keyword, "rerank_w0": rerank(0.0)}
    for depth in (1, 3):
        out[f"rescue_all_d{depth}"] = rescue(depth, WEAK_REASONS)
        out[f"rescue_all_d{depth}_strict"] = rescue(depth, WEAK_REASONS, strict=True)
    for reason in (ANY_TERM, OFF_SUBJECT, UNTITLED):
        out[f"rescue_{reason}_d1"] = rescue(1, (reason,))
    for weight in (0.1, 0.2, 0.3, 0.5):
        out[f"rerank_w{weight}"] = rerank(weight)
        out[f"rerank_weak_w{weight}"] = rerank(weight, weak_only=True)
    return out


def _merged(sections: Sequence[Mapping[str, Any]], policy: Policy) -> list[Mapping[str, Any]]:
    from release.benchmark.runner import interleave

    return interleave([policy(s) for s in sections], 10)


def score(collected: Mapping[str, Any]) -> dict[str, Any]:
    """Per file and pooled: every policy's metrics and its cases up/down against keyword."""
    from release.benchmark import load_judgments
    from release.benchmark.scoring import score_case

    table = policies()
    report: dict[str, Any] = {"files": {}}
    pooled: dict[str, list[Any]] = {name: [] for name in table}
    for name, entry in collected["files"].items():
        cases = {c.id: c for c in load_judgments(Path(entry["path"])).cases}
        by_policy: dict[str, list[Any]] = {}
        for policy_name, policy in table.items():
            by_policy[policy_name] = [score_case(cases[c["id"]], _merged(c["sections"], policy))
                                      for c in entry["cases"]]
            pooled[policy_name].extend(by_policy[policy_name])
        report["files"][name] = {**_summary(by_policy, entry["cases"], cases)}
    report["pooled"] = _summary(pooled, [c for e in collected["files"].values() for c in e["cases"]], None)
    ms = sorted(collected["encode_ms"])
    report["encode_ms"] = {"n": len(ms), "p50": round(ms[len(ms) // 2], 2),
                           "p95": round(ms[min(len(ms) - 1, int(len(ms) * 0.95))], 2)} if ms else None
    report["peak_rss_mib"] = collected.get("peak_rss_mib")
    report["lane_bytes"] = collected.get("lane_bytes")
    return report


def _summary(by_policy: Mapping[str, Sequence[Any]], raw: Sequence[Mapping[str, Any]],
             cases: Mapping[str, Any] | None) -> dict[str, Any]:
    from release.benchmark.scoring import aggregate

    base = {s.case_id + str(i): s for i, s in enumerate(by_policy["keyword"])}
    out: dict[str, Any] = {}
    for name, scores in by_policy.items():
        agg = aggregate(scores)
        up = down = gained = 0
        moved = []
        for i, s in enumerate(scores):
            b = base[s.case_id + str(i)]
            if s.ndcg_at_10 is not None and b.ndcg_at_10 is not None:
                if s.ndcg_at_10 > b.ndcg_at_10 + 1e-9:
                    up += 1
                    moved.append(f"+{s.case_id}")
                elif s.ndcg_at_10 < b.ndcg_at_10 - 1e-9:
                    down += 1
                    moved.append(f"-{s.case_id}")
            if s.no_hit_correct is False and b.no_hit_correct is True:
                gained += 1
        out[name] = {"cases": agg.cases, "ndcg_at_10": _r(agg.ndcg_at_10), "mrr": _r(agg.mrr), "up": up,
                     "down": down, "exact_first": _r(agg.exact_first_accuracy),
                     "no_hit_accuracy": _r(agg.no_hit_accuracy), "leakage": agg.temporal_leakage_failures,
                     "negatives_given_hits": gained, "moved": moved if name != "keyword" else []}
    ranks = [r for c in raw for r in (c["relevant_title_rank"] or {}).values()]
    firsts = [min(c["relevant_title_rank"].values()) for c in raw if c["relevant_title_rank"]]
    out["title_only"] = {"relevant_works": len(ranks), "cases": len(firsts),
                         "mrr_best_relevant": _r(sum(1 / r for r in firsts) / len(firsts)) if firsts else None,
                         "top10_cases": sum(1 for r in firsts if r <= 10),
                         "top1_cases": sum(1 for r in firsts if r == 1)}
    out["weak_sections"] = _weak_counts(raw)
    return out


def _weak_counts(raw: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    counts = {reason: 0 for reason in WEAK_REASONS}
    counts["sections"] = 0
    counts["any"] = 0
    for c in raw:
        for s in c["sections"]:
            counts["sections"] += 1
            reasons = weak_reasons({**s["flags"], "hits": s["hits"]})
            counts["any"] += bool(reasons)
            for reason in reasons:
                counts[reason] += 1
    return counts


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="step", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--index-dir", type=Path, required=True)
    c.add_argument("--judgments", type=Path, nargs="+", required=True)
    c.add_argument("--scan", type=int, default=SCAN)
    c.add_argument("--out", type=Path, required=True)
    s = sub.add_parser("score")
    s.add_argument("--collected", type=Path, required=True)
    s.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.step == "collect":
        args.out.write_text(json.dumps(collect(args.index_dir, args.judgments, args.scan)), encoding="utf-8")
        return 0
    report = score(json.loads(args.collected.read_text(encoding="utf-8")))
    args.out.write_text(json.dumps(report, indent=1), encoding="utf-8")
    for name, entry in {**report["files"], "POOLED": report["pooled"]}.items():
        k = entry["keyword"]
        best = max((p for p in entry if p not in ("keyword", "title_only", "weak_sections")),
                   key=lambda p: entry[p]["ndcg_at_10"] or 0)
        print(f"{name}: keyword {k['ndcg_at_10']} best {best} {entry[best]['ndcg_at_10']} "
              f"(+{entry[best]['up']}/-{entry[best]['down']}) title_only {entry['title_only']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
