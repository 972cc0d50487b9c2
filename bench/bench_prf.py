"""Benchmark: can pseudo-relevance feedback re-rank the questions that resolve no act? (issue #15, prf30)

Measured offline, nothing in the search path changes (docs/retrieval-benchmark.md §8.48, docs/adr/0081).

``collect``: for every positive case of every ``--judgments`` file, the ``search`` answer with the
retrieval benchmark's own arguments at ``limit`` 50 (a section's first ten are those of the ``limit``
10 answer the benchmark scores: ``ops.search.stitched``), per publisher section its rows, the
planner's work resolution and the section's ``top_title_match``.

``analyse``: (1) for the conceptual cases scoring below 0.5, where the best-graded judged act stands in
its publisher's section (no hit in the section / outside the first 50 / ranks 4-50 / ranks 1-3), whether
the first three other works' names share a content word with the judged act's names, and whether the
feedback terms (below) are held by the judged act's names; (2) a grid of feedback re-rankings, each
section of a question that resolves no act, names no works and asks no date re-ranked by
``(1 - lam) / rank + lam * share`` (``share``: the part of the feedback terms' weight the work's names
hold), optionally only when the section's ``top_title_match`` is at least ``gate``; the sections
interleaved again and every positive case scored with the benchmark's own scoring
(:func:`release.benchmark.scoring.score_case`), cases up and down against the first round.

Feedback terms: the content words (four letters or more, no stop word, no number, no title noise) of
the names (official titles, publisher short titles, aliases) of the section's first ``k`` works, held
by at least two of them and by the names of at most ``DF_MAX`` of the index's works, matching none of
the question's words' Snowball stems (EN, FR), weighed by Bo1
(Amati, 2003: ``tf * log2((1 + l) / l) + log2(1 + l)``, ``l = F / N``, ``F`` the number of works
whose names hold the word, ``N`` the works with names), the best ``terms`` of them. The ``names and
headings`` source adds the heading of each row's provision (the work's best) to the words a row holds, for
the terms and for the share (a heading word no name holds counts as held by one work).

Usage::

    python -m bench.bench_prf collect --index-dir DIR --judgments evals/full_judgments_concept4.json ... \\
        --out collected.json
    python -m bench.bench_prf analyse --collected collected.json --index-dir DIR --out prf.json
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import math
import sqlite3
import sys
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROW_KEYS = ("work", "version_key", "anchor", "valid_from", "end_exclusive", "heading")
CANDIDATES = 50
GRID_K = (3, 5, 10)
GRID_TERMS = (2, 3, 5)
GRID_LAM = (0.05, 0.1, 0.2, 0.3)
GRID_GATE = (0.0, 0.5, 0.7)
#: A word the names of more than this share of the index's works hold is never a feedback term
#: (« version consolidée applicable », « présentant de l'intérêt pour l'EEE », month names).
DF_MAX = 0.05


def collect(index_dir: Path, files: Sequence[Path]) -> dict[str, Any]:
    from release.benchmark import load_judgments
    from release.benchmark.runner import search_args, sections
    from serve.core import LegalCore

    out: dict[str, Any] = {"files": {}}
    with LegalCore.mount(index_dir, {}) as core:
        for path in files:
            cases = []
            for case in load_judgments(path).cases:
                if case.expect_no_hits:
                    continue
                answer = core.call("search", search_args(case, "keyword", CANDIDATES))
                record = []
                for section in sections(answer):
                    plan = section.get("query_plan") or {}
                    record.append({"publisher": section.get("publisher"),
                                   "resolution": plan.get("work_resolution_status"),
                                   "top_title_match": section.get("top_title_match"),
                                   "hits": [{k: h.get(k) for k in ROW_KEYS} for h in section.get("hits") or []]})
                cases.append({"id": case.id, "sections": record})
            out["files"][path.name] = {"path": str(path), "cases": cases}
            print(f"{path.name}: {len(cases)} cases", file=sys.stderr, flush=True)
    return out


class Names:
    """Per work id, the content words of its names; per publisher, the word's work count and ``N``."""

    def __init__(self, index_dir: Path) -> None:
        from derive.index.query import STOP_WORDS
        from serve.core import ranking

        self.stop = frozenset(STOP_WORDS) | frozenset(ranking._SUBJECT_NOISE)
        self.words: dict[str, frozenset[str]] = {}
        self.df: dict[str, Counter[str]] = {}
        self.n: dict[str, int] = {}
        for path in sorted(index_dir.glob("*.sqlite")):
            conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            held: dict[str, set[str]] = defaultdict(set)
            for work, normalized in conn.execute(
                    "SELECT w.work_id, n.normalized FROM work_names n JOIN works w USING (work_rowid) "
                    "WHERE n.kind IN ('official_title', 'publisher_short_title', 'alias')"):
                held[str(work)] |= self.content(str(normalized))
            conn.close()
            self.words.update({w: frozenset(s) for w, s in held.items()})
            self.n[path.stem] = len(held)
            self.df[path.stem] = Counter(word for words in held.values() for word in words)

    def content(self, normalized: str) -> set[str]:
        return {w for w in normalized.split() if len(w) >= 4 and not w.isdigit() and w not in self.stop}


_STEMMERS: list[Any] = []


@functools.cache
def _word_stems(word: str) -> frozenset[str]:
    if not _STEMMERS:
        import Stemmer

        _STEMMERS.extend(Stemmer.Stemmer(language) for language in ("english", "french"))
    return frozenset(stemmer.stemWord(word) for stemmer in _STEMMERS)


def _stems(words: Sequence[str] | set[str] | frozenset[str]) -> set[str]:
    """The English and French Snowball stems of ``words``."""
    return {stem for w in words for stem in _word_stems(w)}


def held_words(names: Names, hit: Mapping[str, Any], headings: bool) -> frozenset[str]:
    """The content words of a row's work names and, with ``headings``, of its provision's heading."""
    from derive.index.text import normalize

    words = names.words.get(str(hit.get("work")), frozenset())
    heading = hit.get("heading")
    if headings and isinstance(heading, str) and heading:
        words = words | names.content(normalize(heading))
    return words


def feedback_terms(names: Names, publisher: str, hits: Sequence[Mapping[str, Any]], question: set[str],
                   k: int, count: int, headings: bool = False) -> dict[str, float]:
    """The ``count`` best Bo1 terms of the first ``k`` rows' work names (and headings; see the module
    docstring)."""
    tf = Counter(t for h in hits[:k] for t in held_words(names, h, headings))
    asked = _stems(question)
    n = max(names.n.get(publisher, 1), 1)

    def bo1(term: str) -> float:
        lam = max(names.df[publisher][term], 1) / n
        return tf[term] * math.log2((1 + lam) / lam) + math.log2(1 + lam)

    held = [t for t in tf if tf[t] >= 2 and names.df[publisher][t] <= DF_MAX * n and not (_stems({t}) & asked)]
    return {t: bo1(t) for t in sorted(held, key=lambda t: (-bo1(t), t))[:count]}


def reranked(names: Names, hits: Sequence[Mapping[str, Any]], terms: Mapping[str, float],
             lam: float, headings: bool = False) -> list[Mapping[str, Any]]:
    total = sum(terms.values())
    if not terms or total <= 0:
        return list(hits)

    def score(item: tuple[int, Mapping[str, Any]]) -> float:
        rank, hit = item
        held = held_words(names, hit, headings)
        return (1 - lam) / (rank + 1) + lam * sum(v for t, v in terms.items() if t in held) / total

    return [h for _, h in sorted(enumerate(hits), key=lambda item: -score(item))]


def _interleave(groups: Sequence[Sequence[Mapping[str, Any]]], limit: int = 10) -> list[Mapping[str, Any]]:
    from release.benchmark.runner import interleave

    return interleave(groups, limit)


def analyse(collected: Mapping[str, Any], index_dir: Path) -> dict[str, Any]:
    from derive.index.text import normalize
    from release.benchmark import load_judgments
    from release.benchmark.scoring import score_case

    names = Names(index_dir)
    rows: list[dict[str, Any]] = []
    for record in collected["files"].values():
        judged = {c.id: c for c in load_judgments(Path(record["path"])).cases}
        for item in record["cases"]:
            case = judged[item["id"]]
            base = score_case(case, _interleave([s["hits"] for s in item["sections"]])).ndcg_at_10 or 0.0
            plain = not case.filters.works and not case.filters.as_of and \
                not any(s["resolution"] == "resolved" for s in item["sections"])
            rows.append({"file": record["path"], "case": case, "sections": item["sections"], "base": base,
                         "plain": plain, "question": names.content(normalize(case.query))})
    return {"table": _table(names, rows), "grid": _grid(names, rows)}


def _table(names: Names, rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for row in rows:
        case = row["case"]
        if case.category != "conceptual" or row["base"] >= 0.5 or not case.relevant:
            continue
        best = max(case.relevant, key=lambda r: r.grade)
        publisher = best.work.split(":", 1)[0]
        judged = {r.work for r in case.relevant}
        tally = out[publisher]
        tally["cases"] += 1
        if not row["plain"]:
            tally["resolved, works or dated"] += 1
            continue
        section = next((s for s in row["sections"] if s["publisher"] == publisher), None)
        works = list(dict.fromkeys(str(h["work"]) for h in (section or {}).get("hits") or []))
        if not works:
            tally["no hit in its section"] += 1
            continue
        rank = next((i + 1 for i, w in enumerate(works) if w in judged), None)
        where = "ranks 1-3" if rank and rank <= 3 else "ranks 4-50" if rank else "outside the first 50"
        tally[where] += 1
        held = frozenset().union(*(names.words.get(w, frozenset()) for w in judged))
        others = [w for w in works if w not in judged][:3]
        shared = held & frozenset().union(*(names.words.get(w, frozenset()) for w in others))
        if shared - frozenset(_stems(row["question"])):
            tally[f"{where}: the first three others' names share a word with it"] += 1
        terms = feedback_terms(names, publisher, [{"work": w} for w in works], row["question"], 5, 5)
        if set(terms) & held:
            tally[f"{where}: its names hold a feedback term (k 5, 5 terms)"] += 1
    return {p: dict(sorted(c.items())) for p, c in sorted(out.items())}


def _grid(names: Names, rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    from release.benchmark.scoring import score_case

    out = []
    for headings, gate, k, count, lam in itertools.product((False, True), GRID_GATE, GRID_K, GRID_TERMS, GRID_LAM):
        up: list[str] = []
        down: list[str] = []
        moved = {"conceptual": 0.0, "all": 0.0}
        for row in rows:
            if not row["plain"]:
                continue
            groups = []
            for section in row["sections"]:
                hits = section["hits"]
                if len(hits) > 1 and (section.get("top_title_match") or 0) >= gate:
                    terms = feedback_terms(names, str(section["publisher"]), hits, row["question"], k, count, headings)
                    hits = reranked(names, hits, terms, lam, headings)
                groups.append(hits)
            after = score_case(row["case"], _interleave(groups)).ndcg_at_10 or 0.0
            label = f"{Path(row['file']).stem.removeprefix('full_judgments_')}:{row['case'].id}"
            if after > row["base"] + 1e-9:
                up.append(label)
            elif after < row["base"] - 1e-9:
                down.append(label)
            moved["all"] += after - row["base"]
            if row["case"].category == "conceptual":
                moved["conceptual"] += after - row["base"]
        out.append({"source": "names and headings" if headings else "names", "gate": gate, "k": k, "terms": count, "lam": lam, "up": len(up), "down": len(down),
                    "ndcg_sum_change": {key: round(v, 4) for key, v in moved.items()},
                    "cases_up": up, "cases_down": down})
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.bench_prf")
    sub = parser.add_subparsers(dest="step", required=True)
    one = sub.add_parser("collect")
    one.add_argument("--index-dir", type=Path, required=True)
    one.add_argument("--judgments", type=Path, nargs="+", required=True)
    one.add_argument("--out", type=Path, required=True)
    two = sub.add_parser("analyse")
    two.add_argument("--collected", type=Path, required=True)
    two.add_argument("--index-dir", type=Path, required=True)
    two.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.step == "collect":
        result = collect(args.index_dir, args.judgments)
    else:
        result = analyse(json.loads(args.collected.read_text(encoding="utf-8")), args.index_dir)
    args.out.write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
