"""List the acts' defined terms, ranked by how many provisions hold them: the source list of the register lexicon.

    python scripts/mine_register_terms.py --datasets DIR --index-dir DIR [--top N] [--out FILE]

Reads (read-only) ``DIR/<publisher>/provisions.jsonl`` of a full build and finds the terms the acts
define: "'X' means …" (English), « X » : …, « X » désigne / signifie …, on entend par « X » (French),
„X" bezeichnet / ist … (German). Each defined term is then counted, as a phrase, in the provisions
of ``--index-dir`` (the FTS index of every publisher: all states). The output, a Markdown table of
the top ``N`` terms by provisions holding them (with how many works define the term and one provision
that does), is the list the everyday words of ``derive/index/synonyms.json`` were written from
(issue #15, ADR 0045): an entry answers a term of the acts, not a failing question.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from derive.index.read import open_readonly  # noqa: E402
from derive.index.text import normalize  # noqa: E402

PUBLISHERS = ("eu-eurlex", "lu-legilux")
#: A defined term has at most this many words.
MAX_TERM_WORDS = 4
_OPEN = "‘'\"“«„"
_CLOSE = "’'\"”»“"
#: The definition forms, per language: the defined term is group 1.
PATTERNS: dict[str, re.Pattern[str]] = {
    "en": re.compile(rf"[{_OPEN}]([^{_CLOSE}\n]{{2,60}})[{_CLOSE}]\s+(?:means|shall mean)\b"),
    "fr": re.compile(rf"(?:[{_OPEN}]\s*([^{_CLOSE}\n]{{2,60}}?)\s*[{_CLOSE}]\s*(?::|,?\s*(?:désigne|signifie|"
                     rf"s['’]entend)\b)|on entend par\s*[{_OPEN}]\s*([^{_CLOSE}\n]{{2,60}}?)\s*[{_CLOSE}])"),
    "de": re.compile(rf"[{_OPEN}]([^{_CLOSE}\n]{{2,60}})[{_CLOSE}]\s+(?:bezeichnet|bedeutet|ist|sind)\b"),
}
#: Cheap substrings a raw line must hold before it is parsed.
_CUES = (" means", "désigne", "signifie", "» :", "»:", "entend par", "bezeichnet", "bedeutet")


@dataclass
class Term:
    """One defined term: the provisions (work#anchor) and works that define it, and one example."""

    language: str
    term: str
    anchors: set[str] = field(default_factory=set)
    works: set[str] = field(default_factory=set)


def defined_terms(text: str, language: str) -> list[str]:
    """The normalised terms a provision's text defines (at most :data:`MAX_TERM_WORDS` alphabetic words). Pure."""
    pattern = PATTERNS.get(language)
    if pattern is None:
        return []
    out = []
    for m in pattern.finditer(text):
        term = normalize(next(g for g in m.groups() if g))
        words = term.split()
        if words and len(words) <= MAX_TERM_WORDS and all(w.isalpha() for w in words) and len(term) >= 4:
            out.append(term)
    return out


def provisions(path: Path) -> Iterator[tuple[str, str, str]]:
    """``(work#anchor, language, text)`` of each provision state of a dataset that may define a term."""
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if not any(cue in line for cue in _CUES):
                continue
            row = json.loads(line)
            work = str(row["lex_id"]).split(":", 2)
            yield f"{work[0]}:{work[1]}#{row['anchor']}", str(row.get("language") or ""), str(row.get("text_md") or "")


def mine(rows: Iterable[tuple[str, str, str]]) -> dict[tuple[str, str], Term]:
    """The defined terms of provisions ``(work#anchor, language, text)``, by ``(language, term)``. Pure."""
    found: dict[tuple[str, str], Term] = {}
    for anchor, language, text in rows:
        for term in defined_terms(text, language):
            entry = found.setdefault((language, term), Term(language, term))
            entry.anchors.add(anchor)
            entry.works.add(anchor.split("#", 1)[0])
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, required=True)
    parser.add_argument("--index-dir", type=Path, required=True)
    parser.add_argument("--top", type=int, default=400)
    parser.add_argument("--min-works", type=int, default=3)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    found: dict[tuple[str, str], Term] = {}
    for publisher in PUBLISHERS:
        for key, term in mine(provisions(args.datasets / publisher / "provisions.jsonl")).items():
            into = found.setdefault(key, Term(*key))
            into.anchors |= term.anchors
            into.works |= term.works
    kept = [t for t in found.values() if len(t.works) >= args.min_works]
    conns = {p: open_readonly(args.index_dir / f"{p}.sqlite") for p in PUBLISHERS}
    try:
        held = {(t.language, t.term): {p: int(c.execute("SELECT count(*) FROM provision_fts WHERE provision_fts "
                                                         "MATCH ?", (f'"{t.term}"',)).fetchone()[0])
                                       for p, c in conns.items()} for t in kept}
    finally:
        for conn in conns.values():
            conn.close()
    kept.sort(key=lambda t: (-sum(held[(t.language, t.term)].values()), t.language, t.term))
    lines = [f"Defined terms of the acts ({len(found)} found, {len(kept)} defined by at least {args.min_works} "
             f"works), the top {args.top} by provisions holding the term (all states): "
             "`python scripts/mine_register_terms.py`.", "",
             "| language | term | provisions (eu-eurlex) | provisions (lu-legilux) | works defining | example |",
             "|---|---|---|---|---|---|"]
    for t in kept[:args.top]:
        h = held[(t.language, t.term)]
        lines.append(f"| {t.language} | {t.term} | {h['eu-eurlex']} | {h['lu-legilux']} | {len(t.works)} | "
                     f"{min(t.anchors)} |")
    text = "\n".join(lines) + "\n"
    if args.out is None:
        sys.stdout.write(text)
    else:
        args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
