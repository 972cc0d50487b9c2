"""List the French title words of the acts that no entry of the cross-language lexicon reaches in a language.

    python scripts/select_de_title_words.py --index-dir DIR [--language de|en] [--eu-top N] [--lu-from N --lu-top N]

The words are counted by works (a word once per work): the French official titles of the EUR-Lex works
(the longest French title of each work; corrigenda and treaties left out), and the Legilux works' titles
(their « Version consolidée applicable au … : » prefix left out). A word is *reached* when it is a word of
an entry's French terms in ``--language`` (reviewed, mined or EuroVoc, ``derive.index.xlang.lexicon``),
as written or by its French Snowball stem. Printed: each unreached content word among the ``--eu-top`` most frequent
EUR-Lex title words, then among the Legilux title words ranked ``--lu-from`` to ``--lu-top`` (the first
600 were the twenty-sixth session's list, §8.29), with its count of works and one title holding it.
The list chooses the words; a reviewer writes the German words a user writes for each (issue #15, de35).

``--language en`` (en36): English questions reach EUR-Lex's English text as written, so only the Legilux titles
are listed, by default every rank to 900 (``--eu-top 0 --lu-from 0 --lu-top 900``); a reviewer writes the English
words a user writes for each. ``--language de`` (the default) lists what it listed before.
No question or judgment file is read.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from derive.index import analysis, xlang  # noqa: E402
from derive.index.read import open_readonly  # noqa: E402
from derive.index.text import normalize  # noqa: E402

_PREFIX = re.compile(r"^Version [^:]*:\s*")
#: Words of titles that say no subject: act forms, institutions' roles, dates, the title's frame verbs.
FRAME = frozenset([
    "portant", "concernant", "fixant", "modifiant", "relatif", "relative", "relatifs", "relatives", "etablissant",
    "complement", "completant", "modification", "modifications", "application", "parlement", "europeen",
    "europeenne", "europeens", "conseil", "commission", "loi", "lois", "reglement", "reglements", "directive",
    "directives", "decision", "decisions", "delegue", "delegues", "execution", "grand", "ducal", "ducale", "grands",
    "ducaux", "arrete", "arretes", "arretant", "determinant", "janvier", "fevrier", "mars", "avril", "mai", "juin",
    "juillet", "aout", "septembre", "octobre", "novembre", "decembre", "texte", "presentant", "interet", "eee",
    "rectificatif", "abrogeant", "certaines", "certains", "diverses", "divers", "version", "consolidee",
    "applicable", "matiere", "vue", "egard", "ainsi", "notamment", "dispositions", "disposition", "article",
    "articles", "annexe", "annexes", "point", "points", "modifie", "modifiee", "modifies", "modifiees", "sous",
    "vertu", "prevue", "prevu", "prevues", "prevus"
])


def _eu_titles(conn) -> list[str]:
    rows = conn.execute(
        "SELECT w.work_rowid, n.value FROM works w JOIN work_names n USING (work_rowid) "
        "WHERE n.kind = 'official_title' AND n.language = 'fr' "
        "AND coalesce(w.document_type, '') NOT IN ('CORRIGENDUM', 'TREATY')").fetchall()
    best: dict[int, str] = {}
    for rowid, value in rows:
        if len(value) > len(best.get(rowid, "")):
            best[rowid] = value
    return list(best.values())


def _lu_titles(conn) -> list[str]:
    return [_PREFIX.sub("", t) for (t,) in conn.execute("SELECT title FROM works WHERE title IS NOT NULL")]


def _counts(titles: list[str]) -> tuple[Counter[str], dict[str, str]]:
    counts: Counter[str] = Counter()
    example: dict[str, str] = {}
    for title in titles:
        for word in set(xlang.words_of(title, "fr")):
            counts[word] += 1
            example.setdefault(word, title)
    return counts, example


#: Each language's default ranks: (EUR-Lex top, Legilux from, Legilux top).
RANKS = {"de": (500, 600, 900), "en": (0, 0, 900)}


def reached_words(language: str = "de") -> tuple[set[str], set[str]]:
    """The words of the ``language`` entries' French terms, and their French stems."""
    lex = xlang.lexicon(language)
    words = {w for terms in [*lex.words.values(), *lex.phrases.values()] for t in terms for w in normalize(t).split()}
    return words, {s for w in words if (s := analysis.stem_word(w, "fr"))}


def unreached(counts: Counter[str], ranked: slice, words: set[str], stems: set[str]) -> list[tuple[str, int]]:
    out = []
    for word, n in counts.most_common()[ranked]:
        if word in FRAME or not word.isalpha() or word in words or analysis.stem_word(word, "fr") in stems:
            continue
        out.append((word, n))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index-dir", type=Path, required=True)
    parser.add_argument("--language", choices=sorted(RANKS), default="de")
    parser.add_argument("--eu-top", type=int)
    parser.add_argument("--lu-from", type=int)
    parser.add_argument("--lu-top", type=int)
    args = parser.parse_args(argv)
    eu_top, lu_from, lu_top = (given if given is not None else default for given, default in
                               zip((args.eu_top, args.lu_from, args.lu_top), RANKS[args.language], strict=True))
    words, stems = reached_words(args.language)
    for publisher, titles, ranked in (
            ("eu-eurlex", _eu_titles, slice(0, eu_top)),
            ("lu-legilux", _lu_titles, slice(lu_from, lu_top))):
        if ranked.stop == 0:
            continue
        counts, example = _counts(titles(open_readonly(args.index_dir / f"{publisher}.sqlite")))
        for word, n in unreached(counts, ranked, words, stems):
            title = " ".join(example[word].split())
            print(f"{publisher}\t{word}\t{n}\t{title[:120]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
