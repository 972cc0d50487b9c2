"""Check the reviewed alias file (``derive/index/aliases.json``) against built indexes.

    python scripts/check_aliases.py --index-dir DIR

Each entry is checked twice against ``DIR/<publisher>.sqlite``: its work must be held (a name of a
work the publisher does not hold is ignored by the build, so it is dead weight in the file), and the
index must store the name as an ``alias`` of that work (an index built from an older file does not:
a new alias needs a rebuild). Prints each failing entry and exits 1 when one fails. Two facts are
reported, not failed: a name held as a phrase by the text of more than ``FREQUENT_PHRASE_WORKS``
works (an ordinary phrase of the corpus: the query-side guard makes it soft when the question says
more than the name), and a name another work also holds as a name of the same kind.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from derive.index.aliases import LEXICON_PATH, _load  # noqa: E402
from derive.index.read import readonly_indexes  # noqa: E402
from derive.index.text import normalize  # noqa: E402
from serve.core.ops.search import FREQUENT_PHRASE_WORKS  # noqa: E402


def problems(work: str, alias: str, conns: dict[str, sqlite3.Connection]) -> list[str]:
    """What is wrong with one entry (empty when its work is held and the index stores the name)."""
    publisher, slug = work.split(":", 1)
    conn = conns.get(publisher)
    if conn is None:
        return [f"{alias}: no index for {publisher}"]
    row = conn.execute("SELECT work_rowid FROM works WHERE slug = ?", (slug,)).fetchone()
    if row is None:
        return [f"{alias}: {work} is not held by the index"]
    stored = conn.execute("SELECT 1 FROM work_names WHERE work_rowid = ? AND kind = 'alias' AND normalized = ?",
                          (row[0], normalize(alias))).fetchone()
    return [] if stored else [f"{alias}: not stored as an alias of {work} (index built from another file?)"]


def text_works(conn: sqlite3.Connection, alias: str) -> int:
    """How many works' provision text holds ``alias`` (normalised) as a phrase."""
    match = 'text : "' + normalize(alias).replace('"', '""') + '"'
    return int(conn.execute("SELECT COUNT(DISTINCT s.work_rowid) FROM lexical_states s WHERE s.state_rowid IN "
                            "(SELECT rowid FROM provision_fts WHERE provision_fts MATCH ?)", (match,)).fetchone()[0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index-dir", type=Path, required=True)
    args = parser.parse_args(argv)
    entries = _load(LEXICON_PATH)
    failed = frequent = 0
    with readonly_indexes(args.index_dir) as conns:
        for work, alias, _language, _source in entries:
            found = problems(work, alias, conns)
            for line in found:
                print(line)
            failed += bool(found)
            conn = conns.get(work.split(":", 1)[0])
            if not found and conn is not None and (n := text_works(conn, alias)) > FREQUENT_PHRASE_WORKS:
                frequent += 1
                print(f"note: {alias!r} ({work}) is held by the text of {n} works (an ordinary phrase of the corpus)")
    print(f"{len(entries)} entries, {failed} failures, {frequent} frequent in the corpus text")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
