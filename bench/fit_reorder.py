"""Fit the learnt reordering of a section's first works (:mod:`serve.core.reorder`, ADR 0135).

Two steps, each a subcommand:

``harvest INDEX_DIR OUT_DIR NAME…``
    Search every case of each readable judgments file ``evals/full_judgments_NAME.json`` (the
    benchmark's arguments, ``limit`` 10, reordering off) with :data:`serve.core.reorder.CAPTURE` set,
    and write ``OUT_DIR/NAME.json``: per case its judged works and, per final section of its answer,
    the hand-set hits and the first works' vectors (:func:`serve.core.reorder.vector`).

``fit OUT_DIR NAME… [--depth D] [--l2 L] [--features SET] [--order-l2 L --order-features SET] [--against FILE] [--write FILE]``
    Fit the weights pairwise (logistic loss on every pair of a judged work over a less judged one
    among one section's first ``depth`` works, L2 penalty ``L``, over the features ``SET`` keeps:
    :func:`feature_mask`), report the pooled nDCG@10 of the reordered answers with leave-one-file-out
    cross-validation (each file reordered by weights fitted on the others) against the hand-set
    order — or against the answers of the weights file ``--against`` (the shipped model) — by
    publisher and category with up / down counts, and with ``--write`` fit on every file and write
    the weights file. With ``--order-l2``, the order of two answering sections is learnt too
    (:func:`fit_order`: the swap's nDCG gain or loss on every case two sections answer, each file's
    cases taken with the section weights it was answered with), cross-validated the same way.

The reordered answers are simulated from the harvest: each section's first works sorted by the
weights, cut to its hand-set length, the sections interleaved as the benchmark runner does and scored
by the benchmark's own scoring (:func:`release.benchmark.scoring.score_case`); the hand-set order
scored the same way reproduces the benchmark's figures case by case (checked at every run).

Regenerate the shipped weights (a full build's index directory; several CPU-minutes)::

    python bench/fit_reorder.py harvest INDEX_DIR HARVEST_DIR $(cat READABLE_NAMES)
    python bench/fit_reorder.py fit HARVEST_DIR $(cat READABLE_NAMES) --features v43 --order-l2 0.01 \
        --order-features v43 --write serve/core/reorder_weights.json
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
    """nDCG@10 of a harvested case answered with ``weights`` (``None``: the hand-set order), its
    sections in the order the weights' ``order`` model decides (:func:`ordered`)."""
    captured = record["captured"]
    if captured is None:
        return score_case(case, record["hits"]).ndcg_at_10
    groups = [section_rows(s, weights) for s in captured["sections"]]
    if weights is not None and weights.order is not None:
        groups = ordered(captured["sections"], groups, weights)
    return score_case(case, interleave(groups)).ndcg_at_10


def heads(sections: Sequence[Mapping[str, Any]], groups: Sequence[list[dict[str, Any]]]) -> list[reorder.Head] | None:
    """The :class:`serve.core.reorder.Head` of the two sections that answer (their first rows'
    vectors from the candidates), ``None`` unless exactly two answer, each with candidates (a
    question the reordering may touch), as :func:`serve.core.ops.search.learnt_order` sees them."""
    live = [(s, g) for s, g in zip(sections, groups, strict=True) if g]
    if len(live) != 2:
        return None
    out = []
    for section, rows in live:
        vectors = {c["work"]: c["vector"] for c in section.get("candidates") or []}
        vector = vectors.get(rows[0]["work"])
        if vector is None:
            return None
        out.append(reorder.Head(vector, len(rows), str(section["publisher"])))
    return out


def ordered(sections: Sequence[Mapping[str, Any]], groups: list[list[dict[str, Any]]],
            weights: reorder.Weights) -> list[list[dict[str, Any]]]:
    """``groups`` (the sections' rows), the two that answer swapped when the order model says so."""
    pair = heads(sections, groups)
    if pair is None or not reorder.swap_sections(weights, pair[0], pair[1]):
        return groups
    live = [i for i, g in enumerate(groups) if g]
    out = list(groups)
    out[live[0]], out[live[1]] = groups[live[1]], groups[live[0]]
    return out


def order_example(case: Case, record: Mapping[str, Any], weights: reorder.Weights) -> tuple[Vector, float] | None:
    """The :func:`serve.core.reorder.order_vector` of a case's two answering sections (reordered by
    ``weights``) and the nDCG@10 the swap of their order gains (negative: loses); ``None`` without two."""
    captured = record["captured"]
    if captured is None:
        return None
    groups = [section_rows(s, weights) for s in captured["sections"]]
    pair = heads(captured["sections"], groups)
    if pair is None:
        return None
    live = [i for i, g in enumerate(groups) if g]
    swapped = list(groups)
    swapped[live[0]], swapped[live[1]] = groups[live[1]], groups[live[0]]
    gain = (score_case(case, interleave(swapped)).ndcg_at_10 or 0.0) - (score_case(case, interleave(groups)).ndcg_at_10 or 0.0)
    return list(reorder.order_vector(pair[0], pair[1])), gain


def order_mask(spec: str) -> tuple[bool, ...]:
    """Which :data:`serve.core.reorder.ORDER_FEATURES` the order model weighs: ``all``, or ``v43``
    (the differences of :data:`V43` features only, beside the section sizes, publisher and bias)."""
    if spec not in ("all", "v43"):
        raise SystemExit(f"unknown order feature set {spec!r} (all or v43)")
    return tuple(spec == "all" or not name.startswith("d:") or name == "d:hits" or name[2:] in V43
                 for name in reorder.ORDER_FEATURES)


def fit_order(examples: Sequence[tuple[Vector, float]], l2: float, iterations: int = 30,
              mask: Sequence[bool] | None = None) -> tuple[float, ...]:
    """Order weights: the logistic regression of "the swap gains" on :func:`order_example`'s vectors,
    each example weighing the nDCG it moves (one that moves none is left out), L2 ``l2`` on
    standardised features, those ``mask`` leaves out weighing 0; Newton's method, deterministic."""
    import numpy as np

    kept = [(x, g) for x, g in examples if abs(g) > 1e-9]
    n = len(reorder.ORDER_FEATURES)
    if not kept:
        return (0.0,) * (n - 1) + (-1.0,)
    x = np.array([e[0] for e in kept], dtype=float)
    x[:, ~np.array(mask if mask is not None else [True] * n, dtype=bool)] = 0.0
    y = np.array([float(e[1] > 0) for e in kept])
    weight = np.array([abs(e[1]) for e in kept])
    return tuple(newton_logistic(x, y, weight, l2, iterations))


def newton_logistic(x: Any, y: Any, weight: Any, l2: float, iterations: int) -> list[float]:
    """The weights of a logistic regression of ``y`` (0 or 1) on the rows of ``x``, each row weighing
    ``weight`` (normalised to sum 1), L2 ``l2 / 2 × |w|²`` on features standardised by their weighted
    root mean square; Newton's method, deterministic, stopped when no step moves a weight by 1e-8.
    Returned on the features' own scale. (A pairwise fit is ``y`` all ones on the pairs' differences.)"""
    import numpy as np

    weight = weight / weight.sum()
    scale = np.sqrt((x ** 2 * weight[:, None]).sum(axis=0))
    scale[scale < 1e-9] = 1.0
    x = x / scale
    w = np.zeros(x.shape[1])
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -50, 50)))
        grad = x.T @ (weight * (p - y)) + l2 * w
        hess = (x * (weight * p * (1 - p))[:, None]).T @ x + l2 * np.eye(x.shape[1])
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return [float(v) for v in w / scale]


def check_sections(record: Mapping[str, Any]) -> None:
    """Refuse a harvest whose candidates do not begin with the section's hits (the hand-set order)."""
    for section in (record["captured"] or {}).get("sections", []):
        candidates = section.get("candidates")
        if candidates and section["hits"]:
            head = [c["work"] for c in candidates[:len(section["hits"])]]
            if head != [h["work"] for h in section["hits"]]:
                raise SystemExit(f"{record['id']}: the candidates do not begin with the section's hits")


# -- fitting -----------------------------------------------------------------------------------------


#: A publisher's pairs: the differences ``better − worse`` (one row each) and each pair's weight.
Pairs = tuple[Any, Any]


def pairs_of(case: Case, record: Mapping[str, Any], depth: int) -> dict[str, Pairs]:
    """Per publisher, the vector pairs inside one of its sections' first ``depth`` works, a work judged
    higher than another (an unjudged work counts 0), as ``(better − worse, weight)`` arrays; each
    case's pairs weigh 1 together."""
    import numpy as np

    grades = {r.work: r.grade for r in case.relevant}
    out: dict[str, list[Vector]] = {}
    for section in (record["captured"] or {}).get("sections", []):
        candidates = (section.get("candidates") or [])[:depth]
        if not section["hits"] or len(candidates) < 2:
            continue
        graded = [(grades.get(c["work"], 0), c["vector"]) for c in candidates]
        out.setdefault(str(section["publisher"]), []).extend(
            [a - b for a, b in zip(v1, v2, strict=True)] for g1, v1 in graded for g2, v2 in graded if g1 > g2)
    total = sum(len(p) for p in out.values())
    return {publisher: (np.array(diffs, dtype=float), np.full(len(diffs), 1.0 / total))
            for publisher, diffs in out.items() if diffs}


def joined(pairs: Sequence[Mapping[str, Pairs]]) -> dict[str, Pairs]:
    """Several cases' (or files') pairs as one array pair per publisher."""
    import numpy as np

    return {publisher: (np.concatenate([p[publisher][0] for p in kept]), np.concatenate([p[publisher][1] for p in kept]))
            for publisher in PUBLISHERS if (kept := [p for p in pairs if publisher in p])}


PUBLISHERS = ("eu-eurlex", "lu-legilux")


#: The features of the forty-third session's model (rank43): ``--features v43`` fits only these.
V43 = reorder.FEATURES[:reorder.FEATURES.index("age") + 1]


def feature_mask(spec: str) -> tuple[bool, ...]:
    """Which of :data:`serve.core.reorder.FEATURES` a fit weighs: ``all``, ``v43`` (:data:`V43`), or
    either followed by ``-name,name`` (those left out) or ``+name,name`` (only those added to ``v43``)."""
    base, _, rest = spec.partition(":")
    names = set(reorder.FEATURES if base == "all" else V43 if base == "v43" else ())
    if not names:
        raise SystemExit(f"unknown feature set {base!r} (all or v43)")
    for part in filter(None, rest.split(";")):
        listed = set(part[1:].split(","))
        unknown = listed - set(reorder.FEATURES)
        if unknown:
            raise SystemExit(f"unknown features: {', '.join(sorted(unknown))}")
        names = names - listed if part[0] == "-" else names | listed
    return tuple(name in names for name in reorder.FEATURES)


def fitted_weights(pairs: Sequence[Mapping[str, Pairs]], depth: int, l2: float,
                   mask: Sequence[bool] | None = None) -> reorder.Weights:
    """One weight vector per publisher, each fitted on that publisher's pairs (:func:`fit`), over the
    features ``mask`` keeps (the others weigh 0)."""
    return reorder.Weights(depth, {publisher: tuple(fit([ps[publisher] for ps in pairs if publisher in ps], l2,
                                                        mask=mask))
                                   for publisher in PUBLISHERS})


def fit(pairs: Sequence[Pairs], l2: float, iterations: int = 30, mask: Sequence[bool] | None = None) -> Vector:
    """Weights minimising the weighted mean logistic loss of ``w · (better − worse)`` over ``pairs``
    plus ``l2 / 2 × |w|²`` on standardised differences (Newton's method; deterministic); a feature
    ``mask`` leaves out weighs 0."""
    import numpy as np

    n = len(reorder.FEATURES)
    keep = np.array(mask if mask is not None else [True] * n, dtype=bool)
    pairs = [p for p in pairs if len(p[0])]
    if not pairs:
        return [0.0] * n
    x = np.concatenate([p[0] for p in pairs])
    x[:, ~keep] = 0.0
    weight = np.concatenate([p[1] for p in pairs])
    return newton_logistic(x, np.ones(len(x)), weight, l2, iterations)


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
           answers: Mapping[tuple[str, str], float | None],
           against: Mapping[tuple[str, str], float | None] | None = None, cases: bool = True) -> None:
    """Pooled nDCG@10 of ``answers`` (per ``(file, case)``) against the hand-set order (or the
    answers ``against``), by publisher and category, with the cases that went up and down."""
    base, new, up, down = [], [], [], []
    by: dict[str, list[tuple[float, float]]] = {}
    for name, rows in data.items():
        for case, record, publisher in rows:
            b = record["ndcg"] if against is None else against[name, case.id]
            n = answers[name, case.id]
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
    for tag, moved in (("up", up), ("down", down)) if cases else ():
        for name, case_id, b, n in moved:
            print(f"  {tag} {name} {case_id} {b:.3f} -> {n:.3f}")


def cross_validated(data: Mapping[str, list[tuple[Case, dict[str, Any], str]]], depth: int,
                    l2: float, mask: Sequence[bool] | None = None,
                    order_l2: float | None = None,
                    order_features: Sequence[bool] | None = None) -> dict[tuple[str, str], float | None]:
    """Leave-one-file-out: each file's cases answered with weights fitted on the other files. With
    ``order_l2``, the order of sections too (:func:`fit_order`), fitted on the other files' examples,
    each file's examples taken with the section weights that file was answered with."""
    pairs = {name: joined([pairs_of(case, record, depth) for case, record, _ in rows]) for name, rows in data.items()}
    answers: dict[tuple[str, str], float | None] = {}
    fold: dict[str, reorder.Weights] = {}
    for name, rows in data.items():
        fold[name] = weights = fitted_weights([ps for other, ps in pairs.items() if other != name], depth, l2, mask)
        for case, record, _ in rows:
            answers[name, case.id] = simulated(case, record, weights)
    if order_l2 is None:
        return answers
    examples = {name: [order_example(case, record, fold[name]) for case, record, _ in rows] for name, rows in data.items()}
    for name, rows in data.items():
        order = fit_order([e for other, es in examples.items() if other != name for e in es if e is not None], order_l2,
                          mask=order_features)
        weights = reorder.Weights(fold[name].depth, fold[name].by_publisher, order=order)
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
    f.add_argument("--order-l2", type=float, help="learn the order of two sections too, with this L2 (fit_order)")
    f.add_argument("--order-features", default="all", help="all or v43 (order_mask)")
    f.add_argument("--no-cv", action="store_true")
    f.add_argument("--features", default="all", help="all, v43, or either with ':-a,b' / ':+a,b' (feature_mask)")
    f.add_argument("--against", type=Path, help="a weights file whose simulated answers are the base (not the "
                                                 "hand-set order): the shipped model")
    f.add_argument("--quiet", action="store_true", help="no list of the cases up and down")
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
    mask = feature_mask(args.features)
    against = None
    if args.against is not None:
        shipped = reorder.load_weights(args.against.read_text("utf-8"))
        against = {(name, case.id): simulated(case, record, shipped) for name, rows in data.items()
                   for case, record, _ in rows}
        report(f"{args.against.name} against the hand-set order", data, against, cases=False)
    if not args.no_cv:
        answers = cross_validated(data, args.depth, args.l2, mask, args.order_l2, order_mask(args.order_features))
        report(f"leave-one-file-out, depth {args.depth}, l2 {args.l2}, features {args.features}, "
               f"order l2 {args.order_l2}", data, answers,
               cases=False)
        if against is not None:
            report("  the same against the --against model", data, answers, against, cases=not args.quiet)
        elif not args.quiet:
            report("  the same, cases", data, answers)
    if args.write:
        pairs = [pairs_of(case, record, args.depth) for rows in data.values() for case, record, _ in rows]
        weights = fitted_weights(pairs, args.depth, args.l2, mask)
        examples = [order_example(case, record, weights) for rows in data.values() for case, record, _ in rows]
        order = None if args.order_l2 is None else tuple(round(v, 6) for v in fit_order(
            [e for e in examples if e is not None], args.order_l2, mask=order_mask(args.order_features)))
        rounded = reorder.Weights(args.depth, {publisher: tuple(round(v, 6) for v in values)
                                               for publisher, values in weights.by_publisher.items()}, order=order)
        report("in-sample (every file)", data, {(name, case.id): simulated(case, record, rounded)
                                                 for name, rows in data.items() for case, record, _ in rows})
        counts = {publisher: sum(len(p[publisher][0]) for p in pairs if publisher in p) for publisher in PUBLISHERS}
        args.write.write_text(json.dumps({
            "version": 1, "depth": args.depth,
            "fitted": {"by": f"bench/fit_reorder.py fit --depth {args.depth} --l2 {args.l2} "
                             f"--features {args.features}"
                             + ("" if args.order_l2 is None else
                                f" --order-l2 {args.order_l2} --order-features {args.order_features}"),
                       "files": len(args.names), "pairs": counts},
            "weights": {publisher: {name: value for name, value, kept in zip(reorder.FEATURES, values, mask,
                                                                              strict=True) if kept}
                        for publisher, values in rounded.by_publisher.items()},
            **({} if order is None else {"order": {name: value for name, value, kept in zip(
                reorder.ORDER_FEATURES, order, order_mask(args.order_features), strict=True) if kept}})},
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
