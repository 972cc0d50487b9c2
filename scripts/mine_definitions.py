"""Mine the definitions bridge (``derive/index/definitions_mined.json``) from built indexes.

    python scripts/mine_definitions.py --index-dir DIR [--out FILE]

Reads (read-only) the latest state of every provision of ``DIR/eu-eurlex.sqlite`` and
``DIR/lu-legilux.sqlite`` in English and French and writes the definitions
:func:`derive.index.definitions.mine` finds, with their provenance. The output is committed and
reviewed (ADR 0040): a change of corpus changes the file only when this script is run again.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from derive.index import definitions, textstore  # noqa: E402
from derive.index.read import open_readonly  # noqa: E402

BATCH = 2000
PUBLISHERS = ("eu-eurlex", "lu-legilux")


def provisions(conn: sqlite3.Connection) -> Iterator[tuple[str, str, str]]:
    """``(publisher:slug#anchor, language, text)`` of the latest state of every provision held in a
    language definitions are mined in."""
    marks = ", ".join("?" for _ in definitions.LANGUAGES)
    rows = conn.execute(
        "SELECT w.work_id, s.anchor, s.language, s.text_sha256 FROM lexical_states s JOIN works w USING (work_rowid) "
        f"WHERE s.state_rowid IN (SELECT MAX(state_rowid) FROM lexical_states WHERE language IN ({marks}) "
        "GROUP BY work_rowid, anchor, language) ORDER BY w.work_id, s.anchor, s.language",
        definitions.LANGUAGES).fetchall()
    for start in range(0, len(rows), BATCH):
        chunk = rows[start:start + BATCH]
        texts = textstore.read_texts(conn, {str(r[3]) for r in chunk})
        for work, anchor, language, sha in chunk:
            if sha in texts:
                yield f"{work}#{anchor}", str(language), texts[sha]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index-dir", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=definitions.MINED_PATH)
    args = parser.parse_args(argv)
    conns = [open_readonly(args.index_dir / f"{publisher}.sqlite") for publisher in PUBLISHERS]
    try:  # one pass over both publishers: a term's works are counted over the whole corpus
        found = definitions.mine(itertools.chain.from_iterable(provisions(conn) for conn in conns))
    finally:
        for conn in conns:
            conn.close()
    found.sort(key=lambda d: (d.language, d.term, d.body, d.example))
    data = {"schema": definitions.SCHEMA,
            "description": "Definitions of the acts (the defined term and the Snowball stems of its definition's "
                           "first content words), mined by scripts/mine_definitions.py from the full build; read "
                           "by derive.index.definitions.bridge at query time (ADR 0040).",
            "definitions": [d.to_dict() for d in found]}
    args.out.write_text(json.dumps(data, ensure_ascii=False, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(found)} definitions written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
