"""Time (or profile) the Legilux extraction profiles alone, over every unit of a tree (issue #13).

``python -m bench.lu_extract --tree TREE [--kind structured|pdf|pdf-memorial] [--limit N]
[--profile FILE] [--digest FILE]`` lists every unit of every version of the tree, then runs :func:`derive.dispatch.derive_body`
on each (reading a body is not timed), and prints the CPU seconds spent per unit kind, the MB of bodies and MB/s per core.
``--profile FILE`` writes a cProfile of the extraction loop; ``--digest FILE`` writes one line per
unit (work, version, language, SHA-256 of the result's canonical JSON), for comparing two code
versions' results unit by unit. The whole dataset's byte identity is checked by building it.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import json
import os
import time
from collections import Counter, defaultdict
from dataclasses import asdict, is_dataclass
from typing import Any

from corpus_tree import CorpusTree
from derive.dataset import attachments, load_versions, memorial_act
from derive.dispatch import derive_body
from derive.units import PDF_MEMORIAL, fmx4_languages, units_for
from legal.errors import LexError


def _units(tree: CorpusTree, limit: int | None, kind: str | None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for slug in sorted(tree.slugs()):
        versions = load_versions(tree, slug)
        langs = fmx4_languages(versions, tree.evidence)
        first = min((v.valid_from for v in versions), default=None)
        for version in versions:
            for unit in units_for(version, tree.evidence, langs):
                if kind is not None and unit.kind != kind:
                    continue
                out.append({
                    "where": f"{slug}\t{version.version_key}\t{unit.language}", "kind": unit.kind,
                    "language": unit.language,
                    "act": memorial_act(version, first) if unit.kind == PDF_MEMORIAL else None,
                    "attachments": attachments(version, unit), "sha256": unit.observation.sha256,
                })
        if limit is not None and len(out) >= limit:
            break
    return out


def _plain(value: Any) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        return _plain(asdict(value))
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tree", required=True)
    parser.add_argument("--kind", default=None)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--profile", default=None)
    parser.add_argument("--digest", default=None)
    args = parser.parse_args(argv)
    tree = CorpusTree.open(args.tree)
    units = _units(tree, args.limit, args.kind)
    cpu: defaultdict[str, float] = defaultdict(float)
    size: Counter[str] = Counter()
    count: Counter[str] = Counter()
    digests: dict[str, str] = defaultdict(str)
    prof = cProfile.Profile() if args.profile else None
    wall = time.perf_counter()
    for unit in units:
        data = tree.evidence.read(unit["sha256"])
        start = time.process_time()
        if prof is not None:
            prof.enable()
        try:
            result: Any = derive_body(data, language=unit["language"], fmt=unit["kind"], act=unit["act"],
                                      attachments=unit["attachments"], sha256=unit["sha256"])
        except LexError as exc:
            result = {"error": exc.to_dict()}
        if prof is not None:
            prof.disable()
        cpu[unit["kind"]] += time.process_time() - start
        size[unit["kind"]] += len(data)
        count[unit["kind"]] += 1
        if args.digest:
            line = json.dumps(_plain(result), sort_keys=True, ensure_ascii=False).encode("utf-8")
            digests[unit["where"]] = hashlib.sha256(line).hexdigest()
    if prof is not None:
        prof.dump_stats(args.profile)
    if args.digest:
        with open(args.digest, "w", encoding="utf-8") as fh:
            fh.writelines(f"{where}\t{digest}\n" for where, digest in sorted(digests.items()))
    total = sum(cpu.values())
    print(json.dumps({
        "units": sum(count.values()), "cpu_s": round(total, 2), "wall_s": round(time.perf_counter() - wall, 2),
        "mb": round(sum(size.values()) / 1e6, 1),
        "mb_per_cpu_s": round(sum(size.values()) / 1e6 / total, 2) if total else None,
        "by_kind": {k: {"units": count[k], "cpu_s": round(cpu[k], 2), "mb": round(size[k] / 1e6, 1)}
                    for k in sorted(count)},
        "load_avg": [round(x, 2) for x in os.getloadavg()],
    }))


if __name__ == "__main__":
    main()
