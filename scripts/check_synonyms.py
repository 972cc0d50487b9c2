"""Check the register entries of the synonym file (``derive/index/synonyms.json``) against built indexes.

    python scripts/check_synonyms.py --index-dir DIR [--guard N]

An entry of the register lexicon (its source starts with :data:`REGISTER` and names its acts as
``[publisher:slug]``, ADR 0045) is checked twice: each of its legal terms must be held, as a phrase, by a provision of one of the named
acts in ``DIR/<publisher>.sqlite``; and its everyday word must be held by at most ``--guard``
provisions of each index (a word the acts use often has a sense of their own there, and OR-ing the
legal terms with it would widen that sense). Prints each entry that fails and exits 1 when one does.
Older entries (written after failing questions, ADR 0036) are counted, not checked.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from derive.index import relax  # noqa: E402
from derive.index.read import readonly_indexes  # noqa: E402
from derive.index.text import normalize  # noqa: E402

_ACT = re.compile(r"\[([a-z-]+):([^\]]+)\]")
#: An everyday word held by more provisions than this (all states, either index) is a word of the acts.
GUARD = 30
#: How a register entry's source begins.
REGISTER = "register lexicon (ADR 0045)"


def held_by_act(conn: sqlite3.Connection, phrase: str, slug: str) -> bool:
    """Whether a provision of the act ``slug`` holds ``phrase`` (normalised) as a phrase."""
    return conn.execute(
        "SELECT 1 FROM provision_fts f JOIN lexical_states s ON s.state_rowid = f.rowid "
        "JOIN works w USING (work_rowid) WHERE provision_fts MATCH ? AND w.slug = ? LIMIT 1",
        (f'"{phrase}"', slug)).fetchone() is not None


def provisions_holding(conn: sqlite3.Connection, phrase: str) -> int:
    """How many provision states of an index hold ``phrase`` (normalised) as a phrase."""
    return int(conn.execute("SELECT count(*) FROM provision_fts WHERE provision_fts MATCH ?",
                            (f'"{phrase}"',)).fetchone()[0])


def problems(entry: dict[str, object], conns: dict[str, sqlite3.Connection], guard: int) -> list[str]:
    """What is wrong with one register entry (empty when it holds)."""
    acts = _ACT.findall(str(entry["source"]))
    out = []
    for publisher in {p for p, _ in acts} - set(conns):
        out.append(f"{entry['word']}: no index for {publisher}")
    for term in entry["terms"]:  # type: ignore[attr-defined]
        phrase = normalize(str(term))
        if not any(held_by_act(conns[p], phrase, slug) for p, slug in acts if p in conns):
            out.append(f"{entry['word']}: '{term}' is in no provision of the acts its source names")
    word = normalize(str(entry["word"]))
    for publisher, conn in conns.items():
        if (n := provisions_holding(conn, word)) > guard:
            out.append(f"{entry['word']}: held by {n} provisions of {publisher} (more than {guard})")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index-dir", type=Path, required=True)
    parser.add_argument("--guard", type=int, default=GUARD)
    args = parser.parse_args(argv)
    entries = json.loads(relax.SYNONYMS_PATH.read_text(encoding="utf-8"))["entries"]
    failed = checked = 0
    with readonly_indexes(args.index_dir) as conns:
        for entry in entries:
            if not str(entry["source"]).startswith(REGISTER):
                continue
            checked += 1
            found = problems(entry, conns, args.guard)
            for line in found:
                print(line)
            failed += bool(found)
    print(f"{len(entries)} entries, {checked} register entries checked, {failed} failures")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
