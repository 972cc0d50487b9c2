"""Mine the cross-language lexicon (``derive/index/xlang_mined.json``) from built indexes.

    python scripts/mine_xlang.py --eu EU_INDEX.sqlite --lu LU_INDEX.sqlite [--out FILE]

Reads (read-only) the EUR-Lex index's provisions held in English and in French under the same work
and anchor, the Legilux index's provisions held in German and French under the same work and
anchor (the Constitution), and the EUR-Lex EuroVoc concepts' English and French labels; writes the
pairs :func:`derive.index.xlang.mine` keeps, with their evidence. The output is committed and
reviewed (ADR 0021): a change of corpus changes the file only when this script is run again.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from derive.index import textstore, xlang  # noqa: E402
from derive.index.read import open_readonly  # noqa: E402
from derive.index.text import normalize  # noqa: E402

BATCH = 2000


def aligned(conn: sqlite3.Connection, source: str) -> Iterator[tuple[str, str, str]]:
    """``(work#anchor, source text, French text)`` of every provision held in both languages:
    the states of one work and anchor paired in the order they were recorded."""
    rows = conn.execute(
        "SELECT w.slug, s.anchor, s.language, s.text_sha256 FROM lexical_states s JOIN works w USING (work_rowid) "
        "WHERE s.language IN (?, 'fr') ORDER BY s.work_rowid, s.anchor, s.state_rowid", (source,)).fetchall()
    groups: dict[tuple[str, str], dict[str, list[str]]] = {}
    for slug, anchor, language, sha in rows:
        groups.setdefault((str(slug), str(anchor)), {}).setdefault(str(language), []).append(str(sha))
    pairs = [(f"{slug}#{anchor}", s, f) for (slug, anchor), by in groups.items()
             for s, f in zip(by.get(source, []), by.get("fr", []), strict=False)]
    for start in range(0, len(pairs), BATCH):
        chunk = pairs[start:start + BATCH]
        texts = textstore.read_texts(conn, {sha for _, s, f in chunk for sha in (s, f)})
        for where, s, f in chunk:
            if s in texts and f in texts:
                yield where, texts[s], texts[f]


def labels(conn: sqlite3.Connection) -> Iterator[tuple[str, str, str, str]]:
    """``(identifier, kind, English label, French label)`` of the EuroVoc concepts (preferred labels)."""
    rows = conn.execute("SELECT identifier, kind, language, label FROM metadata_terms "
                        "WHERE kind IN ('eurovoc', 'directory') AND language IN ('en', 'fr')").fetchall()
    by: dict[tuple[str, str], dict[str, str]] = {}
    for ident, kind, language, label in rows:
        by.setdefault((str(ident), str(kind)), {})[str(language)] = str(label)
    for (ident, kind), names in sorted(by.items()):
        if "en" in names and "fr" in names:
            yield ident.rsplit("/", 1)[-1], kind, names["en"], names["fr"]


def held_phrases(conns: list[sqlite3.Connection], phrases: list[str]) -> dict[str, int]:
    """Provisions holding each French phrase, summed over the indexes (0: held nowhere)."""
    out: dict[str, int] = {}
    for phrase in phrases:
        match = '"' + phrase.replace('"', " ") + '"'
        out[phrase] = sum(int(c.execute("SELECT count(*) FROM (SELECT 1 FROM provision_fts WHERE provision_fts "
                                        "MATCH ? LIMIT 1000)", (match,)).fetchone()[0]) for c in conns)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eu", type=Path, required=True)
    parser.add_argument("--lu", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=xlang.MINED_PATH)
    args = parser.parse_args(argv)
    eu, lu = open_readonly(args.eu), open_readonly(args.lu)
    en = xlang.mine(aligned(eu, "en"), "en")
    deny = xlang.rejected("en")
    rejected = [p for p in en.pairs if p.source in deny]
    en.pairs = [p for p in en.pairs if p.source not in deny]
    de = xlang.mine(aligned(lu, "de"), "de")
    concepts = xlang.label_pairs(labels(eu))
    held = held_phrases([eu, lu], sorted({t for e in concepts for t in e["targets"]}))
    phrases = []
    for entry in concepts:
        targets = [t for t in entry["targets"] if held[t]]
        if targets:
            phrases.append({**entry, "targets": targets, "held": [held[t] for t in targets]})
    forms = {f for p in en.pairs for f in p.forms}
    # only the words the lexicon (this file and the reviewed one) could otherwise read as English or
    # French evidence
    reviewed = json.loads(xlang.REVIEWED_PATH.read_text(encoding="utf-8"))["entries"]
    relevant = forms | {w for e in phrases for w in e["source"].split()} \
        | {w for p in en.pairs for t in p.targets for w in t.split()} \
        | {w for e in phrases for t in e["targets"] for w in t.split()} \
        | {w for e in reviewed for v in [e["word"], *e["terms"]] for w in normalize(v).split()}
    out = {
        "schema": xlang.SCHEMA,
        "description": "Cross-language terms mined from the project's own aligned texts (derive.index.xlang): "
                       "EN→FR from the EUR-Lex provisions of one work and anchor in English and French (pairs) "
                       "and from the EuroVoc concepts' English and French labels (phrases, kept when a provision "
                       "holds the French label). OR-alternatives of a question's word, never a filter.",
        "generated_by": "scripts/mine_xlang.py",
        "thresholds": {"min_aligned": xlang.MIN_ALIGNED, "min_works": xlang.MIN_WORKS, "min_dice": xlang.MIN_DICE,
                       "max_words": xlang.MAX_WORDS,
                       "form_share": xlang.FORM_SHARE, "near_best": xlang.NEAR_BEST, "shared_share": xlang.SHARED_SHARE,
                       "foreign_min": xlang.FOREIGN_MIN, "foreign_share": xlang.FOREIGN_SHARE},
        "languages": {
            "en": {"aligned_provisions": en.provisions, "pairs": [p.to_dict() for p in en.pairs],
                   "phrases": phrases, "shared": [w for w in en.shared if w in relevant],
                   "foreign": [w for w in en.foreign if w.isascii() and w not in forms]},
        },
        # The German and French texts of the Luxembourg Constitution (the one act Legilux holds in
        # German) align too few provisions for the thresholds: recorded, not used (German is reviewed).
        "not_used": {"de": {"aligned_provisions": de.provisions, "pairs": [p.to_dict() for p in de.pairs]},
                     # mined, then rejected by the review (the reviewed file's ``rejected``, each with its reason)
                     "en_rejected": [{**p.to_dict(), "reason": deny[p.source]} for p in rejected]},
    }
    args.out.write_text(json.dumps(out, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"en: {en.provisions} aligned provisions, {len(en.pairs)} pairs ({len(rejected)} rejected), "
          f"{len(phrases)} phrases, "
          f"{len(en.shared)} shared, {len(en.foreign)} foreign; de: {de.provisions} aligned, {len(de.pairs)} pairs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
