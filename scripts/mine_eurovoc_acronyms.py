"""Mine the abbreviations EuroVoc gives beside their long forms, for the synonym file.

    python scripts/mine_eurovoc_acronyms.py --index-dir DIR --provisions FILE.jsonl [--write]

A EuroVoc concept carried by EUR-Lex works often has, in one language, an abbreviation and its long
form among its labels: "VAT" / "value added tax", « PME » / « petites et moyennes entreprises »,
"ESMA" / "European Securities and Markets Authority". A question says one, the act's text often the
other (Directive 2006/112/EC writes "VAT", the Sixth Directive and its amending directives "value
added tax"). This script reads the concepts' labels from the EUR-Lex index (``metadata_terms``:
kinds ``eurovoc`` and ``eurovoc_alt_label``) and keeps a pair when

* the abbreviation is 3 to 8 capitals or digits, beginning with a capital, and its letters are the
  initials of the long form's words (every word, or its words without the articles and
  prepositions of :data:`LINK_WORDS`);
* the provisions' text of that language (the dataset's ``text_md``) writes the abbreviation in
  capitals in at least :data:`MIN_HELD` provisions and in capitals in at least :data:`MIN_UPPER_SHARE`
  of the provisions that hold it in any case (so "BIS" — « article 5 bis » — and "CAP" — a price cap —
  stay out: the index folds case, so such a word would also be matched as the word it is);
* no other concept gives the same abbreviation in that language;
* the long form is held as a phrase (case folded) by at least :data:`MIN_HELD` provisions.

Each kept pair gives one entry of ``derive/index/synonyms.json``, long form → abbreviation, with its
source: the concept and the counts. The other way (the abbreviation a question says OR-ed with its
long form) was measured and dropped (docs/retrieval-benchmark.md §8.74): the long form is the title
of the principal act ("… on the common system of value added tax", "International Civil Aviation
Organisation"), so the title factors lifted the principal act over the subordinate act a question
naming "VAT" or "ICAO" asks for. A long form that already has an entry is left as it is. Without
``--write`` the entries are printed.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from derive.index import relax  # noqa: E402
from derive.index.text import normalize  # noqa: E402

#: An abbreviation label: 3 to 8 capitals or digits, beginning with a capital.
ACRONYM = re.compile(r"[A-Z][A-Z0-9]{2,7}")
#: Words an abbreviation may skip in its long form (EN/FR articles and prepositions).
LINK_WORDS = frozenset({"of", "and", "the", "for", "in", "on", "to", "a", "de", "la", "le", "les", "des", "du",
                        "et", "en", "à", "d", "l", "sur", "pour"})
#: Provisions that must hold the abbreviation (in capitals) and the long form.
MIN_HELD = 3
#: The share of the provisions holding the abbreviation in any case that write it in capitals.
MIN_UPPER_SHARE = 0.9
#: How a mined entry's source begins.
SOURCE = "EuroVoc abbreviation"


def initials(label: str, skip: frozenset[str] = frozenset()) -> str:
    """The initials of a label's words (split on spaces, hyphens and apostrophes), skipping ``skip``."""
    words = [w for w in re.split(r"[\s\-'’,]+", label) if w and w.lower() not in skip]
    return "".join(w[0] for w in words).upper()


def pairs_of(labels: dict[tuple[str, str], set[str]]) -> list[tuple[str, str, str, str]]:
    """``(language, abbreviation, long form, concept)`` for every concept's label pairs. Pure."""
    found = []
    for (concept, language), names in sorted(labels.items()):
        for short in sorted(n for n in names if ACRONYM.fullmatch(n)):
            for long in sorted(names):
                if long == short or len(long.split()) < 2:
                    continue
                if short in (initials(long), initials(long, LINK_WORDS)):
                    found.append((language, short, long, concept))
    concepts: dict[tuple[str, str], set[str]] = defaultdict(set)
    for language, short, _, concept in found:
        concepts[(language, short)].add(concept)
    return [p for p in found if len(concepts[(p[0], p[1])]) == 1]


def eurovoc_labels(conn: sqlite3.Connection) -> dict[tuple[str, str], set[str]]:
    """The EuroVoc labels of an index by (concept, language)."""
    labels: dict[tuple[str, str], set[str]] = defaultdict(set)
    for concept, label, language in conn.execute(
            "SELECT identifier, label, language FROM metadata_terms WHERE kind IN ('eurovoc', 'eurovoc_alt_label')"):
        labels[(str(concept), str(language))].add(str(label))
    return labels


#: Per (language, abbreviation or normalised long form): provisions holding it in capitals (for a long
#: form: as a phrase), provisions holding it in any case, and one work holding it.
Counts = dict[tuple[str, str], tuple[int, int, str]]


def text_counts(path: Path, pairs: list[tuple[str, str, str, str]]) -> Counts:
    """Per (language, abbreviation or long form): provisions holding it [in capitals, in any case] and
    one work holding it, read from the dataset's provisions (``language``, ``text_md``, ``work_id``)."""
    shorts: dict[str, set[str]] = defaultdict(set)
    longs: dict[str, set[str]] = defaultdict(set)
    for language, short, long, _ in pairs:
        shorts[language].add(short)
        longs[language].add(normalize(long))
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    example: dict[tuple[str, str], str] = {}
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            language = row.get("language")
            if language not in shorts:
                continue
            text = row.get("text_md") or ""
            words = set(re.findall(r"[A-Za-z0-9]+", text))
            folded = {w.lower() for w in words}
            flat = f" {normalize(text)} "
            for short in shorts[language]:
                if short.lower() in folded:
                    c = counts[(language, short)]
                    c[1] += 1
                    if short in words:
                        c[0] += 1
                        example.setdefault((language, short), str(row.get("work_id")))
            for long in longs[language]:
                if f" {long} " in flat:
                    counts[(language, long)][0] += 1
                    example.setdefault((language, long), str(row.get("work_id")))
    return {k: (v[0], v[1], example.get(k, "")) for k, v in counts.items()}


def entries(pairs: list[tuple[str, str, str, str]], counts: Counts, known: set[str]) -> list[dict[str, object]]:
    """The synonym entries of the kept pairs (one per pair, long form → abbreviation), none for a long
    form ``known`` already (``known`` gains the ones written)."""
    out: list[dict[str, object]] = []
    for language, short, long, concept in pairs:
        upper, anycase, short_work = counts.get((language, short), (0, 0, ""))
        held, _, long_work = counts.get((language, normalize(long)), (0, 0, ""))
        if upper < MIN_HELD or upper < MIN_UPPER_SHARE * anycase or held < MIN_HELD or normalize(long) in known:
            continue
        source = (f"{SOURCE}: EuroVoc concept {concept} labels '{short}' and '{long}' ({language}); the "
                  f"{language} provisions hold '{short}' in capitals in {upper} (of {anycase} in any case) "
                  f"[{short_work}] and '{long}' in {held} [{long_work}] (scripts/mine_eurovoc_acronyms.py)")
        known.add(normalize(long))
        out.append({"word": long, "terms": [short], "language": language, "source": source})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index-dir", type=Path, required=True)
    parser.add_argument("--provisions", type=Path, required=True, help="the EUR-Lex dataset's provisions.jsonl")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    conn = sqlite3.connect(f"file:{args.index_dir / 'eu-eurlex.sqlite'}?mode=ro", uri=True)
    pairs = pairs_of(eurovoc_labels(conn))
    counts = text_counts(args.provisions, pairs)
    data = json.loads(relax.SYNONYMS_PATH.read_text(encoding="utf-8"))
    known = {normalize(str(e["word"])) for e in data["entries"]}
    mined = entries(pairs, counts, known)
    if args.write:
        data["entries"] += mined
        relax.SYNONYMS_PATH.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    for entry in mined:
        print(entry["language"], entry["word"], "->", entry["terms"][0])
    print(f"{len(pairs)} label pairs, {len(mined)} entries")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
