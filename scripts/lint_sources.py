"""Every text-lint hit of a dataset, classified by the publisher's bytes: the source's or ours.

    python scripts/lint_sources.py DATASET --tree TREE [--json] [--list N]

For each provision of ``DATASET/provisions.jsonl`` and each check of :mod:`derive.lint`, the
hits are compared with the evidence body the row names (``evidence_sha256``, read from the
tree's evidence store) by :func:`derive.lint.in_source`: ``source`` (the publisher's bytes hold
it), ``ours`` (our rendering made it) or ``unclear`` (a PDF text layer). Counts are provisions
(rows) with at least one hit of that class, and hits; distinct instances are listed (the first
``N`` per check and class, default 30). The target of issue #18 is ``ours = 0``; what is left
is the ``source`` list. Exit status 0 either way (this measures).
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from corpus_tree import CorpusTree
from derive.lint import CHECKS, body_text, in_source

SNIPPET = 60
CLASSES = ("ours", "source", "unclear")


def _rows(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def classify(dataset: Path, tree: CorpusTree, limit: int = 30) -> dict[str, Any]:
    provisions: dict[tuple[str, str, str], set[tuple[str, str]]] = defaultdict(set)
    hits: dict[tuple[str, str, str], int] = defaultdict(int)
    listed: dict[tuple[str, str], dict[tuple[str, str], dict[str, Any]]] = defaultdict(dict)
    cache: dict[str, tuple[bytes, str | None]] = {}
    for row in _rows(dataset / "provisions.jsonl"):
        text = row.get("text_md") or ""
        found = [(name, m) for name, pattern in CHECKS.items()
                 if not (name == "text_outside_anchor" and row.get("type") != "article")
                 for m in pattern.finditer(text)]
        if not found:
            continue
        sha = row["evidence_sha256"]
        if sha not in cache:
            cache.clear()  # rows come sorted by work: one body at a time is enough
            cache[sha] = (tree.evidence.read(sha), None)
        body, plain = cache[sha]
        for name, m in found:
            if plain is None and name in ("empty_parentheses", "embedded_binary"):
                plain = body_text(body)
                cache[sha] = (body, plain)
            verdict = in_source(name, m.group(0), text[max(0, m.start() - SNIPPET):m.start()], body, plain)
            kind = "unclear" if verdict is None else "source" if verdict else "ours"
            key = (name, row.get("profile") or "?", kind)
            provisions[key].add((row["provision_id"], row["language"]))
            hits[key] += 1
            instances = listed[(name, kind)]
            instance = (row["work_id"], m.group(0)[:80])
            if instance not in instances and len(instances) < limit:
                instances[instance] = {"work": row["work_id"], "provision_id": row["provision_id"],
                                       "language": row["language"], "match": m.group(0)[:80],
                                       "text": text[max(0, m.start() - SNIPPET):m.end() + SNIPPET].replace("\n", " ")}
    counts: dict[str, dict[str, dict[str, dict[str, int]]]] = {}
    for (name, profile, kind), provs in sorted(provisions.items()):
        counts.setdefault(name, {}).setdefault(profile, {})[kind] = {
            "provisions": len(provs), "hits": hits[(name, profile, kind)]}
    return {"counts": counts,
            "instances": {f"{name} {kind}": list(v.values()) for (name, kind), v in sorted(listed.items())}}


def main(argv: list[str]) -> int:
    args = list(argv)
    as_json = "--json" in args
    args = [a for a in args if a != "--json"]
    limit = 30
    if "--list" in args:
        i = args.index("--list")
        limit = int(args[i + 1])
        del args[i:i + 2]
    if "--tree" not in args:
        print(__doc__, file=sys.stderr)
        return 2
    i = args.index("--tree")
    tree_path = args[i + 1]
    del args[i:i + 2]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    report = classify(Path(args[0]), CorpusTree.open(tree_path), limit)
    if as_json:
        print(json.dumps(report, ensure_ascii=False, indent=1))
        return 0
    for name, profiles in report["counts"].items():
        for profile, kinds in profiles.items():
            cells = ", ".join(f"{k} {kinds[k]['provisions']} ({kinds[k]['hits']} hits)" for k in CLASSES if k in kinds)
            print(f"{name} {profile}: {cells}")
    for key, items in report["instances"].items():
        print(f"-- {key}: {len(items)} distinct (work, match) listed")
        for item in items:
            print(f"   {item['work']} {item['language']} {item['provision_id'].rsplit('#', 1)[-1]}: "
                  f"{item['match']!r} …{item['text']}…")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
