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
    return reorder.reordered(candidates, [c["vector"] for c in candidates], weights,
                             str(section["publisher"]))[:len(hits)]


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


Pair = tuple[Vector, Vector, float]


def pairs_of(case: Case, record: Mapping[str, Any], depth: int) -> dict[str, list[Pair]]:
    """Per publisher, ``(better, worse, weight)`` vector pairs inside one of its sections' first
    ``depth`` works: a work judged higher than another (an unjudged work counts 0); each case's pairs
    weigh 1 together."""
    grades = {r.work: r.grade for r in case.relevant}
    out: dict[str, list[tuple[Vector, Vector]]] = {}
    for section in (record["captured"] or {}).get("sections", []):
        candidates = (section.get("candidates") or [])[:depth]
        if not section["hits"] or len(candidates) < 2:
            continue
        graded = [(grades.get(c["work"], 0), c["vector"]) for c in candidates]
        out.setdefault(str(section["publisher"]), []).extend(
            (v1, v2) for g1, v1 in graded for g2, v2 in graded if g1 > g2)
    total = sum(len(p) for p in out.values())
    return {publisher: [(v1, v2, 1.0 / total) for v1, v2 in pairs] for publisher, pairs in out.items()}


PUBLISHERS = ("eu-eurlex", "lu-legilux")


def fitted_weights(pairs: Sequence[Mapping[str, list[Pair]]], depth: int, l2: float) -> reorder.Weights:
    """One weight vector per publisher, each fitted on that publisher's pairs (:func:`fit`)."""
    return reorder.Weights(depth, {publisher: tuple(fit([p for ps in pairs for p in ps.get(publisher, [])], l2))
                                   for publisher in PUBLISHERS})


def fit(pairs: Sequence[Pair], l2: float, iterations: int = 30) -> Vector:
    """Weights minimising the weighted mean logistic loss of ``w · (better − worse)`` over ``pairs``
    plus ``l2 / 2 × |w|²`` on standardised differences (Newton's method; deterministic)."""
    import numpy as np

    n = len(reorder.FEATURES)
    if not pairs:
        return [0.0] * n
    x = np.array([[a - b for a, b in zip(v1, v2, strict=True)] for v1, v2, _ in pairs], dtype=float)
    weight = np.array([w for _, _, w in pairs], dtype=float)
    weight /= weight.sum()
    scale = np.sqrt((x ** 2 * weight[:, None]).sum(axis=0))
    scale[scale < 1e-9] = 1.0
    x /= scale
    w = np.zeros(n)
    for _ in range(iterations):
        s = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -50, 50)))  # P(better ranked over worse)
        grad = -(x * (weight * (1 - s))[:, None]).sum(axis=0) + l2 * w
        hess = (x * (weight * s * (1 - s))[:, None]).T @ x + l2 * np.eye(n)
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return [float(v) for v in w / scale]


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
                    l2: float) -> dict[tuple[str, str], float | None]:
    """Leave-one-file-out: each file's cases answered with weights fitted on the other files."""
    pairs = {name: [pairs_of(case, record, depth) for case, record, _ in rows] for name, rows in data.items()}
    answers: dict[tuple[str, str], float | None] = {}
    for name, rows in data.items():
        weights = fitted_weights([p for other, ps in pairs.items() if other != name for p in ps], depth, l2)
        for case, record, _ in rows:
            answers[name, case.id] = simulated(case, record, weights)
    return answers


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
    f.add_argument("--depth", type=int, default=10)
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
        answers = cross_validated(data, args.depth, args.l2)
        report(f"leave-one-file-out, depth {args.depth}, l2 {args.l2}", data, answers)
    if args.write:
        pairs = [pairs_of(case, record, args.depth) for rows in data.values() for case, record, _ in rows]
        weights = fitted_weights(pairs, args.depth, args.l2)
        rounded = reorder.Weights(args.depth, {publisher: tuple(round(v, 6) for v in values)
                                               for publisher, values in weights.by_publisher.items()})
        report("in-sample (every file)", data, {(name, case.id): simulated(case, record, rounded)
                                                 for name, rows in data.items() for case, record, _ in rows})
        counts = {publisher: sum(len(p.get(publisher, [])) for p in pairs) for publisher in PUBLISHERS}
        args.write.write_text(json.dumps({
            "version": 1, "depth": args.depth,
            "fitted": {"by": f"bench/fit_reorder.py fit --depth {args.depth} --l2 {args.l2}",
                       "files": len(args.names), "pairs": counts},
            "weights": {publisher: dict(zip(reorder.FEATURES, values, strict=True))
                        for publisher, values in rounded.by_publisher.items()}},
            indent=1) + "\n", "utf-8")
    return 0


def data_ndcg(data: Mapping[str, list[tuple[Case, dict[str, Any], str]]], key: tuple[str, str]) -> float | None:
    """The harvested (hand-set) nDCG@10 of one case."""
    for case, record, _ in data[key[0]]:
        if case.id == key[1]:
            value = record["ndcg"]
            return None if value is None else float(value)
    return None


if __name__ == "__main__":
    raise SystemExit(main())
