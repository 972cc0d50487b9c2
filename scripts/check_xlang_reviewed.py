"""Check the reviewed cross-language entries (``derive/index/xlang_reviewed.json``) against built indexes.

    python scripts/check_xlang_reviewed.py --index-dir DIR

Each entry's source names its act as ``[publisher:slug]``; every French term of the entry must be held,
as a phrase, by a French provision of that act in ``DIR/<publisher>.sqlite``. Prints each entry that
fails and exits 1 when one does (ADR 0021).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from derive.index import xlang  # noqa: E402
from derive.index.read import open_readonly  # noqa: E402
from derive.index.text import normalize  # noqa: E402

_ACT = re.compile(r"\[([a-z-]+):([^\]]+)\]")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index-dir", type=Path, required=True)
    args = parser.parse_args(argv)
    entries = json.loads(xlang.REVIEWED_PATH.read_text(encoding="utf-8"))["entries"]
    conns = {}
    failed = 0
    for entry in entries:
        found = _ACT.search(str(entry["source"]))
        if found is None:
            print(f"{entry['word']}: no [publisher:slug] in its source")
            failed += 1
            continue
        publisher, slug = found.groups()
        if publisher not in conns:
            conns[publisher] = open_readonly(args.index_dir / f"{publisher}.sqlite")
        conn = conns[publisher]
        for term in entry["terms"]:
            held = conn.execute(
                "SELECT 1 FROM provision_fts f JOIN lexical_states s ON s.state_rowid = f.rowid "
                "JOIN works w USING (work_rowid) WHERE provision_fts MATCH ? AND w.slug = ? AND s.language = 'fr' "
                "LIMIT 1", ('"' + normalize(term) + '"', slug)).fetchone()
            if held is None:
                print(f"{entry['word']}: '{term}' is in no French provision of {publisher}:{slug}")
                failed += 1
    print(f"{len(entries)} entries, {failed} failures")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
