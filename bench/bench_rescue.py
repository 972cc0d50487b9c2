"""Benchmark: can the work-title lane rescue questions asked in everyday words? (issue #15, docs/hybrid.md §9)

Steps, so the policies can be compared without searching again:

``collect``: mounts the indexes of ``--index-dir`` (which must hold ``--scope titles`` vectors,
``lex index vectors``), loads the pinned encoder and, for every case of every ``--judgments``
file, records per publisher section: the keyword answer (``limit`` 10, the retrieval
benchmark's own arguments), the keyword candidates (``limit`` 50), the planner's flags, the
title similarity of every work, and — in a weak section (:func:`hybrid.rescue.weak_reasons`), for
the ``--scan`` works nearest by title — the lexical evidence the rescue policy requires
(:func:`work_evidence`: the work's best provision holding any of the question's words, with the
stems and translations the section reports, under the case's filters; and how many of the words
the work's text holds). Query encoding is timed (p50/p95) and the process peak RSS recorded.

``headings`` (optional): embeds one publisher's distinct provision headings (passage side, with
an embedding cache) into a bench-local ``<publisher>.headings.npy/.json`` — no reader of the
vectors format knows heading rows (docs/hybrid.md §8) — and ``with-headings`` adds to a
collected file, per section, the works nearest by ``max(title, heading)`` similarity and their
evidence (rescue variants ``rescueH_*``), and per case the relevant works' heading ranks.

``titles`` (no search): the rank of the best relevant work of every graded case in its publisher's
pure title-similarity order, for the e5 lane or, with ``--static STEM``, the static word table's
lane (:mod:`hybrid.static_titles`); and the question encoding's CPU time (p50/p95, µs).
``collect --static STEM`` records the static lane's similarities instead of e5's (docs/hybrid.md §10).

``negatives``: per case with a weak section, the answerable-or-negative tests of
:mod:`hybrid.answerable` (title similarity, margin, the two lanes' agreement with ``--other``, the
nearest works' word evidence, the question's words known in the corpus and the rarest one's
provision count), and per test the ROC AUC and the answerable cases kept at the thresholds that
keep every answerable case or drop every negative (docs/hybrid.md §10.4).

``score``: applies the policies of :mod:`hybrid.rescue` to the collected answers and scores every
case with the retrieval benchmark's own scoring (:mod:`release.benchmark.scoring`), per file:
nDCG@10, MRR, cases up/down against keyword, exact-first, no-hit accuracy, leakage, negatives
given a hit; and the pure title ranking of the relevant works (MRR, top-10 count).

Usage::

    python -m bench.bench_rescue collect --index-dir DIR --judgments evals/full_judgments_concept9.json ... \\
        --out collected.json
    python -m bench.bench_rescue headings --index-dir DIR --publisher lu-legilux --out-dir H --cache HC
    python -m bench.bench_rescue with-headings --collected collected.json --index-dir DIR --headings-dir H \\
        --out collected-h.json
    python -m bench.bench_rescue score --collected collected-h.json --out policies.json
    python -m bench.bench_rescue titles --index-dir DIR --judgments ... --static WORDS --out titles.json
    python -m bench.bench_rescue collect --index-dir DIR --judgments ... --static WORDS --out collected-s.json
    python -m bench.bench_rescue negatives --collected collected-s.json --other collected.json --index-dir DIR \\
        --out negatives.json
"""

from __future__ import annotations

import argparse
import json
import re
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
SIMILARITY_RANKINGS = ("title_only", "heading_only", "title_or_heading")


def _row(hit: Mapping[str, Any]) -> dict[str, Any]:
    return {k: hit.get(k) for k in ROW_KEYS}


def _sections(answer: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    from release.benchmark.runner import sections

    return sections(answer)


def _title_lanes(index_dir: Path, static_stem: Path | None) -> tuple[Any, dict[str, Any]]:
    """``(encode, lanes)``: the question encoder and, per publisher index of ``index_dir``, its
    work-title lane — the e5 lane over the ``--scope titles`` vectors, or, with ``static_stem``,
    the static word table's lane (:mod:`hybrid.static_titles`) over the same titles."""
    from contextlib import closing

    from derive.index.read import open_readonly
    from derive.vectors.build import work_titles
    from derive.vectors.static import load_table
    from derive.vectors.store import load_vectors
    from hybrid.lane import HybridLane
    from hybrid.static_titles import StaticTitleLane

    lanes: dict[str, Any] = {}
    if static_stem is not None:
        table = load_table(static_stem)
        for path in sorted(index_dir.glob("*.sqlite")):
            with closing(open_readonly(path)) as conn:
                lanes[path.stem] = StaticTitleLane(table, work_titles(conn))
        return table.encode, lanes
    from derive.vectors.encoder import load_encoder

    encoder = load_encoder()
    for path in sorted(index_dir.glob("*.sqlite")):
        stamp = json.loads(path.with_name(f"{path.stem}.stamp.json").read_text(encoding="utf-8"))["stamp"]
        lanes[path.stem] = HybridLane(load_vectors(path, stamp), encoder)
    return encoder.encode_query, lanes


def collect(index_dir: Path, files: Sequence[Path], scan: int, static_stem: Path | None = None) -> dict[str, Any]:
    """Every case's keyword answers, flags, title similarities and evidence rows (see the docstring);
    with ``static_stem``, the title similarities are the static word table's."""
    from release.benchmark import load_judgments
    from release.benchmark.runner import search_args
    from serve.core import LegalCore

    encode, title_lanes = _title_lanes(index_dir, static_stem)
    out: dict[str, Any] = {"files": {}, "encode_ms": [], "encode_cpu_ms": [],
                           "encoder": "static" if static_stem is not None else "e5"}
    with LegalCore.mount(index_dir, {}) as core:
        lanes: dict[str, tuple[Any, list[str]]] = {}
        conns: dict[str, sqlite3.Connection] = {}
        rowids: dict[str, dict[str, int]] = {}
        for publisher, index in core.indexes.items():
            lane = title_lanes[Path(index.name).stem]
            conns[publisher] = sqlite3.connect(f"file:{index_dir / index.name}?mode=ro", uri=True)
            names = dict(conns[publisher].execute("SELECT work_rowid, work_id FROM works").fetchall())
            rowids[publisher] = {str(v): int(k) for k, v in names.items()}
            lanes[publisher] = (lane, [str(names[int(r)]) for r in lane.work_ids])
        out["lane_bytes"] = {p: lane.nbytes for p, (lane, _) in lanes.items()}
        for path in files:
            judgments = load_judgments(path)
            cases = []
            for case in judgments.cases:
                started, cpu = time.perf_counter(), time.process_time()
                query = encode(case.query)
                out["encode_cpu_ms"].append((time.process_time() - cpu) * 1000)
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
                        evidence = work_evidence(conns[publisher], section, nearest, rowids[publisher], case.filters)
                    candidates = [_row(h) for h in (wide.get(publisher) or {}).get("hits") or []]
                    record.append({
                        "publisher": publisher, "hits": [_row(h) for h in section.get("hits") or []],
                        "flags": {k: section.get(k) for k in ("query_relaxed", "relaxation_withheld", "query_plan",
                                                             "query_expansions",
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


def _rank_summary(found: Sequence[int]) -> dict[str, Any]:
    """Cases, MRR, and how many ranks are in the top 10 and first, of the ranks ``found``."""
    return {"cases": len(found), "mrr": _r(sum(1 / r for r in found) / len(found)) if found else None,
            "top10": sum(1 for r in found if r <= 10), "top1": sum(1 for r in found if r == 1)}


def title_ranks(index_dir: Path, files: Sequence[Path], static_stem: Path | None = None) -> dict[str, Any]:
    """Per file: the rank of the best relevant work in its publisher's pure title-similarity order,
    for every case with a relevant work (no search is run); and the question encoding's CPU time.
    The e5 lane, or with ``static_stem`` the static word table's (docs/hybrid.md §10)."""
    from release.benchmark import load_judgments

    encode, title_lanes = _title_lanes(index_dir, static_stem)
    where: dict[str, dict[str, int]] = {}  # per publisher: work id → its position in the lane's scores
    for path in sorted(index_dir.glob("*.sqlite")):
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
            names = dict(conn.execute("SELECT work_rowid, work_id FROM works").fetchall())
        where[path.stem] = {str(names[int(r)]): i for i, r in enumerate(title_lanes[path.stem].work_ids)}
    out: dict[str, Any] = {"files": {}, "encode_cpu_us": [], "encoder": "static" if static_stem else "e5",
                           "lane_bytes": {p: lane.nbytes for p, lane in title_lanes.items()}}
    for path in files:
        ranks: dict[str, int | None] = {}
        for case in load_judgments(path).cases:
            if not case.relevant:
                continue
            cpu = time.process_time()
            query = encode(case.query)
            out["encode_cpu_us"].append((time.process_time() - cpu) * 1e6)
            best: int | None = None
            for item in case.relevant:
                publisher = item.work.split(":", 1)[0]
                if publisher not in title_lanes:
                    continue
                scores = title_lanes[publisher].work_scores(query)
                if item.work in where[publisher]:
                    rank = 1 + int((scores > scores[where[publisher][item.work]]).sum())
                    best = rank if best is None else min(best, rank)
            ranks[case.id] = best
        out["files"][path.name] = {**_rank_summary([r for r in ranks.values() if r is not None]), "ranks": ranks}
    out["pooled"] = _rank_summary([r for e in out["files"].values() for r in e["ranks"].values() if r is not None])
    us = sorted(out.pop("encode_cpu_us"))
    out["encode_cpu_us"] = {"n": len(us), "p50": round(us[len(us) // 2], 1),
                            "p95": round(us[min(len(us) - 1, int(len(us) * 0.95))], 1)} if us else None
    out["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return out


def section_groups(section: Mapping[str, Any]) -> list[list[str]]:
    """The section's query words the any-word relaxation keeps (no stop or frame word), each with its
    reported expansions (stems, translations): what lexical evidence is looked for."""
    from derive.index import relax

    plan = section.get("query_plan") or {}
    expansions: dict[str, list[str]] = {}
    for label in section.get("query_expansions") or ():
        source, _, target = str(label).partition(" -> ")
        if target:
            expansions.setdefault(source, []).append(target)
    return [[term, *expansions.get(term, [])] for term in plan.get("terms") or () if not relax.relaxable(term)]


def work_evidence(conn: sqlite3.Connection, section: Mapping[str, Any], works: Sequence[str],
                  rowids: Mapping[str, int], filters: Any) -> dict[str, Any]:
    """For each of ``works`` holding some query word (any group of :func:`section_groups`) in a
    provision the case's filters admit: its best such occurrence, with ``held_groups`` (how many of
    the groups the work's text holds) and ``groups``."""
    from derive.index.text import fts_query
    from serve.core import SearchFilters, occurrences
    from serve.core.ops.search import _BM25

    source = (f"(SELECT rowid AS state_rowid, {_BM25} AS score FROM provision_fts WHERE provision_fts MATCH ? "
              "AND rowid IN (SELECT state_rowid FROM lexical_states WHERE work_rowid = ?))")

    groups = section_groups(section)
    match = fts_query(groups, any_of=True)
    out: dict[str, Any] = {}
    if match is None:
        return out
    for work in works:
        rowid = rowids[work]
        scoped = SearchFilters(works=(rowid,), language=filters.language, document_type=filters.document_type,
                               as_of=filters.as_of)
        rows = occurrences(conn, source, [match, rowid], scoped, 1)
        if not rows:
            continue
        held = sum(1 for g in groups if (one := fts_query([g])) is not None and conn.execute(
            "SELECT 1 FROM provision_fts WHERE provision_fts MATCH ? AND rowid IN "
            "(SELECT state_rowid FROM lexical_states WHERE work_rowid = ?) LIMIT 1", (one, rowid)).fetchone())
        row = rows[0]
        out[work] = {**{k: row.get(k) for k in ROW_KEYS}, "work": work, "match_reasons": ["title_rescue"],
                     "held_groups": held, "groups": len(groups)}
    return out


HEADING_WORDS = re.compile(r"[^\W\d_]{4,}")


def heading_texts(conn: sqlite3.Connection) -> dict[str, list[int]]:
    """Distinct provision headings holding two words of four letters or more ("Entry into force",
    not "ANNEX I"), each with the works whose provisions bear it (sorted)."""
    out: dict[str, set[int]] = {}
    for work, heading in conn.execute("SELECT DISTINCT work_rowid, heading FROM lexical_states "
                                      "WHERE heading IS NOT NULL"):
        text = " ".join(str(heading).split())
        if len(HEADING_WORDS.findall(text)) >= 2:
            out.setdefault(text, set()).add(int(work))
    return {text: sorted(works) for text, works in sorted(out.items())}


def embed_headings(index_dir: Path, publisher: str, out_dir: Path, cache_path: Path | None) -> dict[str, Any]:
    """Embed the headings of one publisher (passage side, float16): ``<publisher>.headings.npy`` and
    ``.json`` (texts and their works, in row order) under ``out_dir``; CPU seconds measured."""
    import hashlib

    import numpy as np

    from derive.vectors.cache import EmbeddingCache
    from derive.vectors.encoder import load_encoder

    started_cpu, started = time.process_time(), time.perf_counter()
    encoder = load_encoder()
    with sqlite3.connect(f"file:{index_dir / (publisher + '.sqlite')}?mode=ro", uri=True) as conn:
        texts = heading_texts(conn)
    order = list(texts)
    keys = [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in order]
    cache = EmbeddingCache(cache_path, encoder.identity) if cache_path is not None else None
    vectors = cache.get_many(keys) if cache is not None else {}
    cached = len(vectors)
    todo = [i for i, k in enumerate(keys) if k not in vectors]
    for start in range(0, len(todo), 16):
        batch = todo[start:start + 16]
        fresh = dict(zip((keys[i] for i in batch), encoder.encode_passages([order[i] for i in batch]), strict=True))
        vectors.update(fresh)
        if cache is not None:
            cache.put_many(fresh)
    if cache is not None:
        cache.close()
    matrix = np.stack([vectors[k] for k in keys]).astype(np.float16) if keys else np.zeros((0, 384), np.float16)
    np.save(out_dir / f"{publisher}.headings.npy", matrix)
    (out_dir / f"{publisher}.headings.json").write_text(json.dumps({"texts": order, "works": [texts[t] for t in order]}),
                                                       encoding="utf-8")
    return {"publisher": publisher, "texts": len(order), "embedded": len(todo), "cached": cached,
            "cpu_s": round(time.process_time() - started_cpu, 1), "wall_s": round(time.perf_counter() - started, 1)}


def with_headings(collected: dict[str, Any], index_dir: Path, headings_dir: Path, scan: int) -> dict[str, Any]:
    """``collected`` with, per section, the works nearest by ``max(title, heading)`` similarity
    (``nearest_h``) and their evidence (``evidence_h``, weak sections only), and per case the
    relevant works' ranks by heading alone and by the combination."""
    import numpy as np

    from derive.vectors.encoder import load_encoder
    from derive.vectors.store import load_vectors
    from hybrid.lane import HybridLane
    from release.benchmark import load_judgments
    from serve.core import LegalCore

    encoder = load_encoder()
    with LegalCore.mount(index_dir, {}) as core:
        per: dict[str, Any] = {}
        for publisher, index in core.indexes.items():
            conn = sqlite3.connect(f"file:{index_dir / index.name}?mode=ro", uri=True)
            names = {int(k): str(v) for k, v in conn.execute("SELECT work_rowid, work_id FROM works")}
            lane = HybridLane(load_vectors(index_dir / index.name, dict(index.stamp)), encoder)
            meta = json.loads((headings_dir / f"{publisher}.headings.json").read_text(encoding="utf-8"))
            matrix = np.load(headings_dir / f"{publisher}.headings.npy").astype(np.float32)
            ids = sorted(names)
            pos = {w: i for i, w in enumerate(ids)}
            pair_h = np.array([i for i, ws in enumerate(meta["works"]) for _ in ws], dtype=np.int64)
            pair_w = np.array([pos[w] for ws in meta["works"] for w in ws], dtype=np.int64)
            title_pos = np.array([pos[int(w)] for w in lane.work_ids], dtype=np.int64)
            per[publisher] = (conn, names, lane, matrix, ids, pair_h, pair_w, title_pos)
        for entry in collected["files"].values():
            cases = {c.id: c for c in load_judgments(Path(entry["path"])).cases}
            for raw in entry["cases"]:
                case = cases[raw["id"]]
                cpu, wall = time.process_time(), time.perf_counter()
                query = encoder.encode_query(case.query)
                collected.setdefault("encode_cpu_ms", []).append((time.process_time() - cpu) * 1000)
                collected.setdefault("encode_ms_again", []).append((time.perf_counter() - wall) * 1000)
                combined: dict[str, dict[str, float]] = {}
                heading_only: dict[str, dict[str, float]] = {}
                for publisher, (_, names, lane, matrix, ids, pair_h, pair_w, title_pos) in per.items():
                    head = np.full(len(ids), -1.0, dtype=np.float32)
                    np.maximum.at(head, pair_w, (matrix @ query)[pair_h])
                    both = head.copy()
                    np.maximum.at(both, title_pos, lane.work_scores(query))
                    heading_only[publisher] = {names[w]: float(head[i]) for i, w in enumerate(ids)}
                    combined[publisher] = {names[w]: float(both[i]) for i, w in enumerate(ids)}
                for key, sims in (("relevant_heading_rank", heading_only), ("relevant_combined_rank", combined)):
                    ranks = {}
                    for item in case.relevant:
                        by_sim = sims.get(item.work.split(":", 1)[0], {})
                        if item.work in by_sim:
                            ranks[item.work] = 1 + sum(1 for v in by_sim.values() if v > by_sim[item.work])
                    raw[key] = ranks
                for section in raw["sections"]:
                    publisher = section["publisher"]
                    by_sim = combined.get(publisher, {})
                    nearest = [w for w, _ in sorted(by_sim.items(), key=lambda kv: (-kv[1], kv[0]))[:scan]]
                    section["nearest_h"] = nearest
                    flags = {**section["flags"], "hits": section["hits"]}
                    section["evidence_h"] = work_evidence(
                        per[publisher][0], flags, nearest, {v: k for k, v in per[publisher][1].items()},
                        case.filters) if not case.filters.works and weak_reasons(flags) else {}
    return collected


# -- answerable or negative? -------------------------------------------------------------------


def case_features(case: Mapping[str, Any], other: Mapping[str, Any] | None,
                  known: Callable[[str, Sequence[str]], int]) -> dict[str, float] | None:
    """The tests of docs/hybrid.md §10.3 for one collected case's weak sections (None: no weak
    section, the rescue would not act): the best title similarity, the margin between the first and
    the fifth, the share of the question's words the nearest works' text holds, whether the two
    lanes' nearest works agree (``other``: the same case collected with the other encoder), and
    the share of the question's words the publisher's corpus knows at all, and how many
    provisions hold its rarest word (log10 of 1 + count)."""
    import math

    from hybrid.answerable import agreement, evidence_share, known_share, margin, rarest_known

    weak = [s for s in case["sections"] if weak_reasons({**s["flags"], "hits": s["hits"]})]
    if not weak:
        return None
    twin = {s["publisher"]: s for s in (other or {}).get("sections", ())}
    out: dict[str, float] = {"top_sim": max((s["nearest_sims"][0] for s in weak if s["nearest_sims"]), default=0.0),
                             "margin": max((margin(s["nearest_sims"]) for s in weak), default=0.0),
                             "evidence_share": max(evidence_share(s.get("evidence") or {}) for s in weak),
                             "known_share": max(known_share(section_groups(s["flags"]),
                                                            lambda g, p=s["publisher"]: known(p, g)) for s in weak),
                             "rarest_known": max(math.log10(1 + rarest_known(section_groups(s["flags"]),
                                                 lambda g, p=s["publisher"]: known(p, g))) for s in weak)}
    if other is not None:
        out["agreement"] = max(agreement(s["nearest"], twin.get(s["publisher"], {}).get("nearest", []))
                               for s in weak)
    return out


def negatives(collected: Mapping[str, Any], other: Mapping[str, Any] | None, index_dir: Path) -> dict[str, Any]:
    """Per test: how well it tells the answerable cases with a weak section from the negative ones
    (ROC AUC; at the threshold that keeps every answerable case, and at the one that drops every
    negative: answerable kept / negatives kept)."""
    from release.benchmark import load_judgments
    from release.benchmark.judgments import NO_HIT_CATEGORIES

    conns = {p.stem: sqlite3.connect(f"file:{p}?mode=ro", uri=True) for p in sorted(index_dir.glob("*.sqlite"))}
    cache: dict[tuple[str, tuple[str, ...]], int] = {}

    def known(publisher: str, group: Sequence[str]) -> int:
        from derive.index.text import fts_query

        key = (publisher, tuple(group))
        if key not in cache:
            match = fts_query([list(group)])
            cache[key] = 0 if match is None else int(conns[publisher].execute(
                "SELECT count(*) FROM provision_fts WHERE provision_fts MATCH ?", (match,)).fetchone()[0])
        return cache[key]

    twins = {(f, c["id"]): c for f, e in (other or {"files": {}})["files"].items() for c in e["cases"]}
    rows: list[dict[str, Any]] = []
    for name, entry in collected["files"].items():
        cases = {c.id: c for c in load_judgments(Path(entry["path"])).cases}
        for raw in entry["cases"]:
            features = case_features(raw, twins.get((name, raw["id"])) if other else None, known)
            if features is None:
                continue
            case = cases[raw["id"]]
            rows.append({"file": name, "id": raw["id"], "query": case.query,
                         "negative": case.category in NO_HIT_CATEGORIES, **features})
    report: dict[str, Any] = {"answerable": sum(not r["negative"] for r in rows),
                              "negative": sum(r["negative"] for r in rows), "tests": {}, "negatives": []}
    for test in sorted({k for r in rows for k in r} - {"file", "id", "query", "negative"}):
        pos = [r[test] for r in rows if not r["negative"]]
        neg = [r[test] for r in rows if r["negative"]]
        report["tests"][test] = {"auc": _r(_auc(pos, neg)), "keep_all_answerable": _kept(pos, neg, min(pos, default=0)),
                                 "drop_all_negatives": _kept(pos, neg, max(neg, default=0), strict=True)}
    report["negatives"] = [r for r in rows if r["negative"]]
    report["rows"] = rows
    return report


def _auc(pos: Sequence[float], neg: Sequence[float]) -> float | None:
    if not pos or not neg:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def _kept(pos: Sequence[float], neg: Sequence[float], threshold: float, strict: bool = False) -> dict[str, Any]:
    def keep(v: float) -> bool:
        return v > threshold if strict else v >= threshold
    return {"threshold": _r(threshold), "answerable_kept": sum(map(keep, pos)), "negatives_kept": sum(map(keep, neg))}


# -- scoring -----------------------------------------------------------------------------------

Policy = Callable[[Mapping[str, Any]], list[Mapping[str, Any]]]


def policies() -> dict[str, Policy]:
    """The policies compared (name -> section -> hits)."""
    def keyword(s: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        return list(s["hits"])

    def rescue(depth: int, act_on: Sequence[str], min_groups: int = 1, headings: bool = False, at: int = 0,
               floor: float = 0.0) -> Policy:
        near, found = ("nearest_h", "evidence_h") if headings else ("nearest", "evidence")

        def run(s: Mapping[str, Any]) -> list[Mapping[str, Any]]:
            reasons = weak_reasons({**s["flags"], "hits": s["hits"]})
            # evidence: the work's text holds at least ``min_groups`` of the question's words (0: all)
            evidence = {w: r for w, r in (s.get(found) or {}).items()
                        if r["held_groups"] >= (min_groups or r["groups"]) and r["held_groups"] > 0}
            nearest = list(s.get(near) or [])
            if floor:  # only works at least this similar to the question by title
                nearest = [w for w, sim in zip(nearest, s["nearest_sims"], strict=True) if sim >= floor]
            return rescued(s["hits"], reasons, nearest, evidence, depth=depth, act_on=act_on, at=at)
        return run

    def rerank(weight: float, weak_only: bool = False) -> Policy:
        def run(s: Mapping[str, Any]) -> list[Mapping[str, Any]]:
            if not s["hits"]:
                return []
            # the candidates (limit 50) cut to 10 are the base: limit changes keyword's own first 10
            firm = weak_only and not weak_reasons({**s["flags"], "hits": s["hits"]})
            return reranked(s["candidates"], s["candidate_sims"], 0.0 if firm else weight)[:10]
        return run

    out: dict[str, Policy] = {"keyword": keyword, "rerank_w0": rerank(0.0)}
    for depth in (1, 3):
        for groups in (1, 2, 0):
            out[f"rescue_all_d{depth}_g{groups or 'all'}"] = rescue(depth, WEAK_REASONS, groups)
    for depth in (1, 3):
        for groups in (1, 2):
            out[f"rescueH_all_d{depth}_g{groups}"] = rescue(depth, WEAK_REASONS, groups, headings=True)
            out[f"rescueH_all_d{depth}_g{groups}_at3"] = rescue(depth, WEAK_REASONS, groups, headings=True, at=3)
    out["rescueH_hits_d1_g2_at3"] = rescue(1, (ANY_TERM, UNTITLED), 2, headings=True, at=3)
    for at in (1, 3):
        for groups in (1, 2):
            out[f"rescue_all_d1_g{groups}_at{at}"] = rescue(1, WEAK_REASONS, groups, at=at)
            out[f"rescue_all_d3_g{groups}_at{at}"] = rescue(3, WEAK_REASONS, groups, at=at)
    for at in (0, 1, 3):
        for groups in (1, 2):
            out[f"rescue_hits_d1_g{groups}_at{at}"] = rescue(1, (ANY_TERM, UNTITLED), groups, at=at)
    for floor in (0.86, 0.88):
        out[f"rescue_all_d1_g2_f{floor}"] = rescue(1, WEAK_REASONS, 2, floor=floor)
        out[f"rescue_all_d1_g2_at1_f{floor}"] = rescue(1, WEAK_REASONS, 2, at=1, floor=floor)
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
    for key in ("encode_cpu_ms", "encode_ms_again"):
        if collected.get(key):
            ms = sorted(collected[key])
            report[key] = {"n": len(ms), "p50": round(ms[len(ms) // 2], 2),
                           "p95": round(ms[min(len(ms) - 1, int(len(ms) * 0.95))], 2)}
    report["peak_rss_mib"] = collected.get("peak_rss_mib")
    report["lane_bytes"] = collected.get("lane_bytes")
    return report


def _summary(by_policy: Mapping[str, Sequence[Any]], raw: Sequence[Mapping[str, Any]],
             cases: Mapping[str, Any] | None) -> dict[str, Any]:
    from release.benchmark.scoring import aggregate

    out: dict[str, Any] = {}
    for name, scores in by_policy.items():
        # a re-rank is compared with its own candidates unchanged (limit 50 cut to 10: rerank_w0)
        base_name = "rerank_w0" if name.startswith("rerank") and name != "rerank_w0" else "keyword"
        base = {s.case_id + str(i): s for i, s in enumerate(by_policy[base_name])}
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
        out[name] = {"cases": agg.cases, "base": base_name, "ndcg_at_10": _r(agg.ndcg_at_10), "mrr": _r(agg.mrr), "up": up,
                     "down": down, "exact_first": _r(agg.exact_first_accuracy),
                     "no_hit_accuracy": _r(agg.no_hit_accuracy), "leakage": agg.temporal_leakage_failures,
                     "negatives_given_hits": gained, "moved": moved if name != "keyword" else []}
    for key, label in (("relevant_title_rank", "title_only"), ("relevant_heading_rank", "heading_only"),
                       ("relevant_combined_rank", "title_or_heading")):
        firsts = [min(c[key].values()) for c in raw if c.get(key)]
        out[label] = {"cases": len(firsts),
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
    c.add_argument("--static", type=Path, default=None, help="static word table stem: its title lane, not e5's")
    t = sub.add_parser("titles")
    t.add_argument("--index-dir", type=Path, required=True)
    t.add_argument("--judgments", type=Path, nargs="+", required=True)
    t.add_argument("--static", type=Path, default=None)
    t.add_argument("--out", type=Path, required=True)
    h = sub.add_parser("headings")
    h.add_argument("--index-dir", type=Path, required=True)
    h.add_argument("--publisher", required=True)
    h.add_argument("--out-dir", type=Path, required=True)
    h.add_argument("--cache", type=Path, default=None)
    w = sub.add_parser("with-headings")
    w.add_argument("--collected", type=Path, required=True)
    w.add_argument("--index-dir", type=Path, required=True)
    w.add_argument("--headings-dir", type=Path, required=True)
    w.add_argument("--scan", type=int, default=SCAN)
    w.add_argument("--out", type=Path, required=True)
    n = sub.add_parser("negatives")
    n.add_argument("--collected", type=Path, required=True)
    n.add_argument("--other", type=Path, default=None, help="the same cases collected with the other encoder")
    n.add_argument("--index-dir", type=Path, required=True)
    n.add_argument("--out", type=Path, required=True)
    s = sub.add_parser("score")
    s.add_argument("--collected", type=Path, required=True)
    s.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.step == "collect":
        args.out.write_text(json.dumps(collect(args.index_dir, args.judgments, args.scan, args.static)),
                            encoding="utf-8")
        return 0
    if args.step == "titles":
        report = title_ranks(args.index_dir, args.judgments, args.static)
        args.out.write_text(json.dumps(report, indent=1), encoding="utf-8")
        print(json.dumps({k: v for k, v in report.items() if k != "files"}))
        return 0
    if args.step == "headings":
        print(json.dumps(embed_headings(args.index_dir, args.publisher, args.out_dir, args.cache)))
        return 0
    if args.step == "with-headings":
        collected = json.loads(args.collected.read_text(encoding="utf-8"))
        args.out.write_text(json.dumps(with_headings(collected, args.index_dir, args.headings_dir, args.scan)),
                            encoding="utf-8")
        return 0
    if args.step == "negatives":
        other = json.loads(args.other.read_text(encoding="utf-8")) if args.other else None
        report = negatives(json.loads(args.collected.read_text(encoding="utf-8")), other, args.index_dir)
        args.out.write_text(json.dumps(report, indent=1), encoding="utf-8")
        print(json.dumps({k: report[k] for k in ("answerable", "negative", "tests")}, indent=1))
        return 0
    report = score(json.loads(args.collected.read_text(encoding="utf-8")))
    args.out.write_text(json.dumps(report, indent=1), encoding="utf-8")
    for name, entry in {**report["files"], "POOLED": report["pooled"]}.items():
        k = entry["keyword"]
        best = max((p for p in entry if p not in ("keyword", "weak_sections", *SIMILARITY_RANKINGS)),
                   key=lambda p: entry[p]["ndcg_at_10"] or 0)

        print(f"{name}: keyword {k['ndcg_at_10']} best {best} {entry[best]['ndcg_at_10']} "
              f"(+{entry[best]['up']}/-{entry[best]['down']}) title_only {entry['title_only']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
