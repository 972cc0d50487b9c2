"""Fit the answer gate's logistic regression (serve/core/ops/answer_gate.py, docs/adr/0087).

    python scripts/fit_answer_gate.py --features F.jsonl --main MAIN_DIR --fallback FALLBACK_DIR \
        --judgments evals/full_judgments_NAME.json ... [--out serve/core/ops/answer_gate.json]

``--features``: the lines the gate appends with ``LEX_ANSWER_GATE=fallback`` and
``LEX_ANSWER_GATE_LOG=F.jsonl`` while ``lex bench retrieval`` scores the judgment files into
``FALLBACK_DIR/NAME.json``; ``--main``: the same files scored with the gate off (``MAIN_DIR/NAME.json``).

Each question is labelled by what answering it gains over answering nothing: a positive whose
answer (main's, or the fallback where main answered nothing) scores nDCG@10 > 0 is 1, any other
question with a hit to give (a negative, a positive answered wrongly) 0. The model is fitted with
leave-one-file-out cross-validation; the threshold is the one that, over the out-of-fold
probabilities, keeps at least main's negatives empty and then answers the most positives (ties:
the highest pooled nDCG). The figures are printed for main, for the fallback everywhere, and for the
cross-validated decision; ``--out`` writes the model fitted on every file with that threshold.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from serve.core.ops.answer_gate import FEATURES

L2 = 1.0


def key(query: str, filters: dict[str, Any]) -> tuple[Any, ...]:
    return (query, filters.get("as_of"), filters.get("publisher"), filters.get("language"),
            tuple(filters.get("works") or ()))


def load(features: Path, main: Path, fallback: Path, judgments: Sequence[Path]) -> list[dict[str, Any]]:
    logged: dict[tuple[Any, ...], dict[str, float]] = {}
    for line in features.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        logged[key(row["query"], row)] = row["features"]
    rows = []
    for path in judgments:
        name = path.stem.removeprefix("full_judgments_")
        cases = json.loads(path.read_text(encoding="utf-8"))["cases"]
        scored = {}
        for tag, folder in (("main", main), ("fallback", fallback)):
            report = json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))
            scored[tag] = {c["id"]: c for c in report["context"]["cases"]}
        for case in cases:
            values = logged.get(key(case["query"], case.get("filters") or {}))
            if values is None:
                raise SystemExit(f"no features for {name}:{case['id']}")
            m, f = scored["main"][case["id"]], scored["fallback"][case["id"]]
            first = (case.get("relevant") or [{"work": ""}])[0]["work"]
            rows.append({"file": name, "id": case["id"], "negative": bool(case.get("expect_no_hits")),
                         "lu": first.startswith("lu-"),
                         "main_hits": int(m.get("hits") or 0), "main_ndcg": float(m.get("ndcg_at_10") or 0),
                         "fb_hits": int(f.get("hits") or 0), "fb_ndcg": float(f.get("ndcg_at_10") or 0),
                         "x": [float(values[n]) for n in FEATURES]})
    return rows


def fit(x: np.ndarray, y: np.ndarray, l2: float = L2, steps: int = 50) -> tuple[np.ndarray, float]:
    """L2-penalised logistic regression by Newton's method (the intercept not penalised)."""
    a = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(a.shape[1])
    penalty = np.eye(a.shape[1]) * l2
    penalty[-1, -1] = 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-np.clip(a @ w, -50, 50)))
        grad = a.T @ (p - y) + penalty @ w
        hess = (a * (p * (1 - p))[:, None]).T @ a + penalty + np.eye(a.shape[1]) * 1e-9
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w[:-1], float(w[-1])


def label(r: dict[str, Any], kind: str = "ndcg") -> int:
    """1 for a question answering helps: ``ndcg``, a positive whose answer scores nDCG@10 > 0;
    ``positive``, any positive (a hit to a question that has an answer)."""
    return int(not r["negative"] and (kind == "positive" or r["fb_ndcg"] > 0))


def figures(rows: Sequence[dict[str, Any]], answer: Sequence[bool]) -> dict[str, Any]:
    """Positives' pooled nDCG, zero-hit positives, negatives empty, and the nDCG with negatives
    counted (1 when empty, else 0)."""
    pos, neg_empty, negs, zero, lu, eu = [], 0, 0, 0, [], []
    for r, yes in zip(rows, answer, strict=True):
        hits = r["fb_hits"] if yes else 0
        if r["negative"]:
            negs += 1
            neg_empty += hits == 0
            continue
        v = r["fb_ndcg"] if yes else 0.0
        pos.append(v)
        (lu if r["lu"] else eu).append(v)
        zero += hits == 0
    n = len(pos)
    return {"ndcg": round(sum(pos) / n, 4), "lu": round(sum(lu) / len(lu), 4), "eu": round(sum(eu) / len(eu), 4),
            "zero_hit_positives": zero, "negatives_empty": f"{neg_empty}/{negs}",
            "neg_empty": neg_empty, "ndcg_with_negatives": round((sum(pos) + neg_empty) / (n + negs), 4)}


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--features", type=Path, required=True)
    ap.add_argument("--main", type=Path, required=True)
    ap.add_argument("--fallback", type=Path, required=True)
    ap.add_argument("--judgments", type=Path, nargs="+", required=True)
    ap.add_argument("--only-empty", action="store_true", help="decide only where main answered nothing")
    ap.add_argument("--l2", type=float, default=L2)
    ap.add_argument("--label", choices=("ndcg", "positive"), default="ndcg")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    rows = load(args.features, args.main, args.fallback, args.judgments)
    x = np.array([r["x"] for r in rows])
    y = np.array([label(r, args.label) for r in rows], dtype=float)
    decided = np.array([r["fb_hits"] > 0 and (not args.only_empty or r["main_hits"] == 0) for r in rows])
    keep_main = np.array([args.only_empty and r["main_hits"] > 0 for r in rows])
    files = sorted({r["file"] for r in rows})
    oof = np.ones(len(rows))
    for name in files:
        test = np.array([r["file"] == name for r in rows])
        train = ~test & decided
        w, b = fit(x[train], y[train], args.l2)
        oof[test] = 1 / (1 + np.exp(-(x[test] @ w + b)))
    [r["main_hits"] > 0 for r in rows]
    main_rows = [{**r, "fb_hits": r["main_hits"], "fb_ndcg": r["main_ndcg"]} for r in rows]
    base = figures(main_rows, [True] * len(rows))
    print("main      ", base)
    print("fallback  ", figures(rows, [True] * len(rows)))
    best: tuple[Any, ...] | None = None
    for t in [*sorted(set(np.round(oof[decided], 4))), 1.01]:
        answer = [bool(k or (d and p >= t)) for k, d, p in zip(keep_main, decided, oof, strict=True)]
        fig = figures(rows, answer)
        if fig["neg_empty"] < base["neg_empty"]:
            continue
        score = (-fig["zero_hit_positives"], fig["ndcg"])
        if best is None or score > best[0]:
            best = (score, t, fig)
    assert best is not None
    _, threshold, fig = best
    print(f"CV (LOFO, {len(files)} files) threshold {threshold:.4f}", fig)
    answer = [bool(k or (d and p >= threshold)) for k, d, p in zip(keep_main, decided, oof, strict=True)]
    for r, yes, p in zip(rows, answer, oof, strict=True):
        before = r["main_ndcg"] if not r["negative"] else float(r["main_hits"] == 0)
        after = (r["fb_ndcg"] if yes else 0.0) if not r["negative"] else float(not yes or r["fb_hits"] == 0)
        hits_before, hits_after = r["main_hits"] > 0, yes and r["fb_hits"] > 0
        if abs(before - after) > 1e-9 or hits_before != hits_after:
            print(f"  {r['file']}:{r['id']} {before:.3f} -> {after:.3f} hits {hits_before:d} -> {hits_after:d} (p={p:.3f})")
    w, b = fit(x[decided], y[decided], args.l2)
    for n, v in zip(FEATURES, w, strict=True):
        print(f"  {n:18s} {v:+.3f}")
    print(f"  {'intercept':18s} {b:+.3f}")
    if args.out:
        model = {"features": list(FEATURES), "weights": [round(float(v), 6) for v in w], "intercept": round(b, 6),
                 "threshold": round(float(threshold), 6), "only_empty": bool(args.only_empty), "l2": args.l2, "label": args.label,
                 "fitted_on": files}
        args.out.write_text(json.dumps(model, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
