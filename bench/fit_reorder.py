"""Fit the learnt reordering of a section's first works (:mod:`serve.core.reorder`, ADR 0135).

Two steps, each a subcommand:

``harvest INDEX_DIR OUT_DIR NAME…``
    Search every case of each readable judgments file ``evals/full_judgments_NAME.json`` (the
    benchmark's arguments, ``limit`` 10, reordering off) with :data:`serve.core.reorder.CAPTURE` set,
    and write ``OUT_DIR/NAME.json``: per case its judged works and, per final section of its answer,
    the hand-set hits and the first works' vectors (:func:`serve.core.reorder.vector`).

``fit OUT_DIR NAME… [--depth D] [--l2 L] [--write FILE]``
    Fit the weights pairwise (logistic loss on every pair of a judged work over a less judged one
    among one section's first ``depth`` works, L2 penalty ``L``), report the pooled nDCG@10 of the
    reordered answers with leave-one-file-out cross-validation (each file reordered by weights
    fitted on the others) against the hand-set order, by publisher and category with up / down
    counts, and with ``--write`` fit on every file and write the weights file.

The reordered answers are simulated from the harvest: each section's first works sorted by the
weights, cut to its hand-set length, the sections interleaved as the benchmark runner does and scored
by the benchmark's own scoring (:func:`release.benchmark.scoring.score_case`); the hand-set order
scored the same way reproduces the benchmark's figures case by case (checked at every run).

Regenerate the shipped weights (a full build's index directory; several CPU-minutes)::

    python bench/fit_reorder.py harvest INDEX_DIR HARVEST_DIR $(cat READABLE_NAMES)
    python bench/fit_reorder.py fit HARVEST_DIR $(cat READABLE_NAMES) --write serve/core/reorder_weights.json
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from release.benchmark import load_judgments  # noqa: E402
from release.benchmark.judgments import Case  # noqa: E402
from release.benchmark.runner import interleave, run_case  # noqa: E402
from release.benchmark.scoring import score_case  # noqa: E402
from serve.core import reorder  # noqa: E402

Vector = list[float]


def harvest(index_dir: Path, out_dir: Path, names: Sequence[str]) -> None:
    """Search every case of ``names`` with the candidates captured (see the module docstring)."""
    from release.benchmark.benchmark import index_layout
    from serve.core import LegalCore

    out_dir.mkdir(parents=True, exist_ok=True)
    layout = index_layout(index_dir)
    reorder.REORDER = False
    with LegalCore.mount(layout.mount_dir, {}) as core:
        for name in names:
            judgments = load_judgments(ROOT / "evals" / f"full_judgments_{name}.json")
            cases = []
            for case in judgments.cases:
                captured: list[dict[str, Any]] = []
                token = reorder.CAPTURE.set(captured)
                try:
                    run = run_case(core, case)
                finally:
                    reorder.CAPTURE.reset(token)
                base = score_case(case, run.hits)
                cases.append({"id": case.id, "category": case.category, "captured": captured[-1] if captured else None,
                              "hits": [{k: h.get(k) for k in ("work", "version_key", "valid_from", "end_exclusive",
                                                              "anchor")} for h in run.hits],
                              "ndcg": base.ndcg_at_10, "no_hit_correct": base.no_hit_correct})
            (out_dir / f"{name}.json").write_text(json.dumps({"name": name, "cases": cases}), "utf-8")
            print(f"{name}: {len(cases)} cases", flush=True)


# -- simulation ------------------------------------------------------------------------------------


def section_rows(section: Mapping[str, Any], weights: reorder.Weights | None) -> list[dict[str, Any]]:
    """A captured section's hits, its first works reordered by ``weights`` (``None``: as captured)."""
    hits = section["hits"]
    candidates = section.get("candidates")
    if weights is None or not hits or not candidates:
        return list(hits)
    return reorder.reordered(candidates, [c["vector"] for c in candidates], weights)[:len(hits)]


def simulated(case: Case, record: Mapping[str, Any], weights: reorder.Weights | None) -> float | None:
    """nDCG@10 of a harvested case answered with ``weights`` (``None``: the hand-set order)."""
    captured = record["captured"]
    if captured is None:
        return score_case(case, record["hits"]).ndcg_at_10
    groups = [section_rows(s, weights) for s in captured["sections"]]
    return score_case(case, interleave(groups)).ndcg_at_10


def check_sections(record: Mapping[str, Any]) -> None:
    """Refuse a harvest whose candidates do not begin with the section's hits (the hand-set order)."""
    for section in (record["captured"] or {}).get("sections", []):
        candidates = section.get("candidates")
        if candidates and section["hits"]:
            head = [c["work"] for c in candidates[:len(section["hits"])]]
            if head != [h["work"] for h in section["hits"]]:
                raise SystemExit(f"{record['id']}: the candidates do not begin with the section's hits")


# -- fitting -----------------------------------------------------------------------------------------


def pairs_of(case: Case, record: Mapping[str, Any], depth: int) -> list[tuple[Vector, Vector]]:
    """``(better, worse)`` vector pairs inside one section's first ``depth`` works: a work judged
    higher than another (an unjudged work counts 0)."""
    grades = {r.work: r.grade for r in case.relevant}
    out = []
    for section in (record["captured"] or {}).get("sections", []):
        candidates = (section.get("candidates") or [])[:depth]
        if not section["hits"] or len(candidates) < 2:
            continue
        graded = [(grades.get(c["work"], 0), c["vector"]) for c in candidates]
        for g1, v1 in graded:
            for g2, v2 in graded:
                if g1 > g2:
                    out.append((v1, v2))
    return out


def fit(pairs: Sequence[tuple[Vector, Vector]], l2: float, epochs: int = 60, seed: int = 7) -> Vector:
    """Weights minimising the mean logistic loss of ``w · (better − worse)`` over ``pairs`` plus
    ``l2 / 2 × |w|²`` (plain gradient descent on standardised differences; deterministic)."""
    n = len(reorder.FEATURES)
    if not pairs:
        return [0.0] * n
    diffs = [[a - b for a, b in zip(v1, v2, strict=True)] for v1, v2 in pairs]
    scale = [max(1e-6, math.sqrt(sum(d[j] ** 2 for d in diffs) / len(diffs))) for j in range(n)]
    xs = [[d[j] / scale[j] for j in range(n)] for d in diffs]
    w = [0.0] * n
    rate = 0.5
    rng = random.Random(seed)
    for _ in range(epochs):
        grad = [l2 * wj for wj in w]
        order = list(range(len(xs)))
        rng.shuffle(order)
        for i in order:
            x = xs[i]
            margin = sum(wj * xj for wj, xj in zip(w, x, strict=True))
            p = 1.0 / (1.0 + math.exp(min(50.0, margin)))  # the loss's slope: sigmoid(-margin)
            for j in range(n):
                grad[j] -= p * x[j] / len(xs)
        w = [wj - rate * gj for wj, gj in zip(w, grad, strict=True)]
    return [wj / scale[j] for j, wj in enumerate(w)]


def weights_of(values: Sequence[float], depth: int) -> reorder.Weights:
    return reorder.Weights(depth, tuple(values))


# -- reporting ---------------------------------------------------------------------------------------


def load(out_dir: Path, names: Sequence[str]) -> dict[str, list[tuple[Case, dict[str, Any], str]]]:
    """Per file, its cases joined with their harvest and the publisher judged first."""
    out = {}
    for name in names:
        judgments = {c.id: c for c in load_judgments(ROOT / "evals" / f"full_judgments_{name}.json").cases}
        records = json.loads((out_dir / f"{name}.json").read_text("utf-8"))["cases"]
        rows = []
        for record in records:
            case = judgments[record["id"]]
            check_sections(record)
            top = sorted(case.relevant, key=lambda r: -r.grade)
            publisher = top[0].work.split(":")[0] if top else (case.filters.publisher or "none")
            rows.append((case, record, publisher))
        out[name] = rows
    return out


def report(label: str, data: Mapping[str, list[tuple[Case, dict[str, Any], str]]],
           answers: Mapping[tuple[str, str], float | None]) -> None:
    """Pooled nDCG@10 of ``answers`` (per ``(file, case)``) against the hand-set order, by publisher
    and category, with the cases that went up and down."""
    base, new, up, down = [], [], [], []
    by: dict[str, list[tuple[float, float]]] = {}
    for name, rows in data.items():
        for case, record, publisher in rows:
            b, n = record["ndcg"], answers[name, case.id]
            if b is None or n is None:
                continue
            base.append(b)
            new.append(n)
            for key in (f"publisher {publisher}", f"category {case.category}"):
                by.setdefault(key, []).append((b, n))
            if n > b + 1e-9:
                up.append((name, case.id, b, n))
            elif n < b - 1e-9:
                down.append((name, case.id, b, n))
    print(f"{label}: pooled {sum(base) / len(base):.4f} -> {sum(new) / len(new):.4f} over {len(base)} positives; "
          f"up {len(up)} / down {len(down)}")
    for key in sorted(by):
        pairs = by[key]
        ups = sum(1 for b, n in pairs if n > b + 1e-9)
        downs = sum(1 for b, n in pairs if n < b - 1e-9)
        print(f"  {key:28} {len(pairs):5} {sum(b for b, _ in pairs) / len(pairs):.4f} -> "
              f"{sum(n for _, n in pairs) / len(pairs):.4f}  up {ups} down {downs}")
    for tag, cases in (("up", up), ("down", down)):
        for name, case_id, b, n in cases:
            print(f"  {tag} {name} {case_id} {b:.3f} -> {n:.3f}")


def cross_validated(data: Mapping[str, list[tuple[Case, dict[str, Any], str]]], depth: int,
                    l2: float) -> tuple[dict[tuple[str, str], float | None], dict[str, Vector]]:
    """Leave-one-file-out: each file's cases answered with weights fitted on the other files."""
    pairs = {name: [p for case, record, _ in rows for p in pairs_of(case, record, depth)]
             for name, rows in data.items()}
    answers: dict[tuple[str, str], float | None] = {}
    fitted = {}
    for name, rows in data.items():
        values = fit([p for other, ps in pairs.items() if other != name for p in ps], l2)
        fitted[name] = values
        weights = weights_of(values, depth)
        for case, record, _ in rows:
            answers[name, case.id] = simulated(case, record, weights)
    return answers, fitted


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    h = commands.add_parser("harvest")
    h.add_argument("index_dir", type=Path)
    h.add_argument("out_dir", type=Path)
    h.add_argument("names", nargs="+")
    f = commands.add_parser("fit")
    f.add_argument("out_dir", type=Path)
    f.add_argument("names", nargs="+")
    f.add_argument("--depth", type=int, default=20)
    f.add_argument("--l2", type=float, default=0.01)
    f.add_argument("--no-cv", action="store_true")
    f.add_argument("--write", type=Path)
    args = parser.parse_args(argv)
    if args.command == "harvest":
        harvest(args.index_dir, args.out_dir, args.names)
        return 0
    data = load(args.out_dir, args.names)
    same = {(name, case.id): simulated(case, record, None) for name, rows in data.items() for case, record, _ in rows}
    wrong = [(k, v) for k, v in same.items()
             if (v is None) != (data_ndcg(data, k) is None) or (v is not None and abs(v - (data_ndcg(data, k) or 0)) > 1e-9)]
    if wrong:
        raise SystemExit(f"the hand-set order simulated differs from the harvest on {len(wrong)} cases: {wrong[:3]}")
    if not args.no_cv:
        answers, _ = cross_validated(data, args.depth, args.l2)
        report(f"leave-one-file-out, depth {args.depth}, l2 {args.l2}", data, answers)
    if args.write:
        pairs = [p for rows in data.values() for case, record, _ in rows for p in pairs_of(case, record, args.depth)]
        values = fit(pairs, args.l2)
        weights = weights_of(values, args.depth)
        report("in-sample (every file)", data, {(name, case.id): simulated(case, record, weights)
                                                 for name, rows in data.items() for case, record, _ in rows})
        args.write.write_text(json.dumps({
            "version": 1, "depth": args.depth,
            "fitted": {"by": "bench/fit_reorder.py", "files": len(args.names), "pairs": len(pairs), "l2": args.l2},
            "weights": {name: round(v, 6) for name, v in zip(reorder.FEATURES, values, strict=True)}},
            indent=1) + "\n", "utf-8")
    return 0


def data_ndcg(data: Mapping[str, list[tuple[Case, dict[str, Any], str]]], key: tuple[str, str]) -> float | None:
    for case, record, _ in data[key[0]]:
        if case.id == key[1]:
            return record["ndcg"]
    return None


if __name__ == "__main__":
    raise SystemExit(main())
