"""List the French title words of the acts that no entry of the cross-language lexicon reaches in a language.

    python scripts/select_de_title_words.py --index-dir DIR [--language de|en] [--eu-from N] [--eu-top N]
        [--lu-from N --lu-top N] [--headings-from N] [--headings N] [--eu-headings-from N] [--eu-headings N]

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

With ``--headings N`` (de36), the words of the Legilux acts' article headings and chapter or section
titles (their French states; a word once per work) are counted too, and each unreached content word among
the N most frequent of them that the title lists above did not print is printed (publisher
``lu-legilux-headings``): the words plain-word questions use that act titles may not hold.
``--eu-from N`` (de37) starts the EUR-Lex ranks at N (default 0): the next band past the 500 de35 took.
``--eu-headings N`` (de37) does for the EUR-Lex works' French article headings and chapter or section titles
what ``--headings`` does for Legilux's (publisher ``eu-eurlex-headings``).
The thirty-seventh session's English band (en37): ``--language en --eu-top 0 --lu-from 900 --lu-top 1500
--headings 800`` (the Legilux title words ranked 900 to 1500 and the heading words among the 800 most frequent,
each unreached by an English entry), chosen and committed before any entry was written.
``--headings-from N`` (en37b) starts the Legilux heading ranks at N (default 0). English on EUR-Lex needs no
band: every EUR-Lex work with text has English text but 35 French-only corrigenda, which the title counts leave
out. The next English band (en37b): ``--language en --eu-top 0 --lu-from 1500 --lu-top 2100 --headings-from 800
--headings 1400``, chosen and committed before any entry was written. The band after it (en38): ``--language en
--eu-top 0 --lu-from 2100 --lu-top 2700 --headings-from 1400 --headings 2000``, chosen and committed the same way.
``--lu-text N`` (lutext38) counts the words of the Legilux works' French provisions (every French provision
state of a work, a word once per work) and prints each unreached content word among the text words ranked
``--lu-text-from`` to N (publisher ``lu-legilux-text``) that neither the lists above printed nor the
title or heading bands other passes take: a word among the Legilux title words ranked below
``--lu-text-skip-titles`` or the heading words ranked below ``--lu-text-skip-headings`` is skipped whatever the
language (default 2,700 and 2,000: the bands of the thirty-eighth session's other passes). The words a question
takes from an act's provisions, not its title or headings; Legilux is where English and German have no text of
their own. The thirty-eighth session's runs: ``--language en --eu-top 0 --lu-top 0 --lu-text N`` and
``--language de --eu-top 0 --lu-top 0 --lu-text N`` (N in docs/retrieval-benchmark.md §8.83).
``--eu-headings-from N`` (de38) starts the EUR-Lex heading ranks at N (default 0), as ``--headings-from`` does
for Legilux's. The thirty-eighth session's German band (de38): ``--eu-from 1000 --eu-top 1500 --lu-from 1800
--lu-top 2400 --headings-from 600 --headings 1200 --eu-headings-from 600 --eu-headings 1200`` (the next band of
each list past the ones de35, de36 and de37 took), chosen and committed before any entry was written.
No question or judgment file is read.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from derive.index import analysis, xlang  # noqa: E402
from derive.index.read import open_readonly  # noqa: E402
from derive.index.text import normalize  # noqa: E402
from derive.index.textstore import read_texts  # noqa: E402

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


def _headings(conn) -> list[str]:
    """Per work of the index (Legilux's for ``--headings``, EUR-Lex's for ``--eu-headings``), the text of
    its French article headings and of its chapter and section titles."""
    per_work: dict[int, set[str]] = {}
    for work, heading in conn.execute(
            "SELECT work_rowid, heading FROM lexical_states WHERE language = 'fr' AND coalesce(heading, '') != ''"):
        per_work.setdefault(work, set()).add(heading)
    for work, path in conn.execute(
            "SELECT DISTINCT s.work_rowid, p.path FROM provision_rows r JOIN paths p USING (path_rowid) "
            "JOIN lexical_states s USING (state_rowid) WHERE s.language = 'fr' AND p.path != '[]'"):
        per_work.setdefault(work, set()).update(json.loads(path))
    return [" ".join(sorted(texts)) for texts in per_work.values()]  # sorted: the same example from run to run


def _lu_provisions(conn) -> Iterator[str]:
    """Per Legilux work, the text of its French provision states (``--lu-text``), a few hundred works at a time."""
    shas: dict[int, set[str]] = {}
    for work, sha in conn.execute("SELECT work_rowid, text_sha256 FROM lexical_states WHERE language = 'fr'"):
        shas.setdefault(work, set()).add(sha)
    works = sorted(shas)
    for start in range(0, len(works), 200):
        batch = works[start:start + 200]
        texts = read_texts(conn, {sha for work in batch for sha in shas[work]})
        for work in batch:
            yield " ".join(texts.get(sha, "") for sha in sorted(shas[work]))


def _counts(titles: Iterable[str]) -> tuple[Counter[str], dict[str, str]]:
    counts: Counter[str] = Counter()
    example: dict[str, str] = {}
    for title in titles:
        for word in sorted(set(xlang.words_of(title, "fr"))):  # sorted: ties keep one order from run to run
            counts[word] += 1
            example.setdefault(word, title)
    return counts, example


def _top(counts: Counter[str], n: int) -> set[str]:
    """The ``n`` most frequent words, with every word as frequent as the last of them (a tie at the edge
    is taken whole, so the band skipped is the same whatever order the tie is in)."""
    ranked = counts.most_common()
    if n <= 0:
        return set()
    edge = ranked[min(n, len(ranked)) - 1][1]
    return {word for word, count in ranked if count >= edge}


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
    parser.add_argument("--eu-from", type=int, default=0)
    parser.add_argument("--eu-top", type=int)
    parser.add_argument("--lu-from", type=int)
    parser.add_argument("--lu-top", type=int)
    parser.add_argument("--headings", type=int, default=0,
                        help="also the unreached words among the N most frequent Legilux heading words")
    parser.add_argument("--headings-from", type=int, default=0,
                        help="start the Legilux heading ranks at N (with --headings N2: ranks N to N2)")
    parser.add_argument("--eu-headings", type=int, default=0,
                        help="also the unreached words among the N most frequent EUR-Lex heading words")
    parser.add_argument("--eu-headings-from", type=int, default=0,
                        help="start the EUR-Lex heading ranks at N (with --eu-headings N2: ranks N to N2)")
    parser.add_argument("--lu-text", type=int, default=0,
                        help="also the unreached words among the N most frequent words of Legilux provisions")
    parser.add_argument("--lu-text-from", type=int, default=0,
                        help="start the Legilux provision-text ranks at N (with --lu-text N2: ranks N to N2)")
    parser.add_argument("--lu-text-skip-titles", type=int, default=2700,
                        help="leave out of the text band the Legilux title words ranked below N (any language)")
    parser.add_argument("--lu-text-skip-headings", type=int, default=2000,
                        help="leave out of the text band the Legilux heading words ranked below N (any language)")
    args = parser.parse_args(argv)
    eu_top, lu_from, lu_top = (given if given is not None else default for given, default in
                               zip((args.eu_top, args.lu_from, args.lu_top), RANKS[args.language], strict=True))
    words, stems = reached_words(args.language)
    printed: set[str] = set()
    skipped: set[str] = set()  # the other passes' title and heading bands, left out of the text band
    lists = [("eu-eurlex", "eu-eurlex", _eu_titles, slice(args.eu_from, eu_top)),
             ("lu-legilux", "lu-legilux", _lu_titles, slice(lu_from, lu_top))]
    if args.headings:
        lists.append(("lu-legilux-headings", "lu-legilux", _headings, slice(args.headings_from, args.headings)))
    if args.eu_headings:
        lists.append(("eu-eurlex-headings", "eu-eurlex", _headings,
                      slice(args.eu_headings_from, args.eu_headings)))
    if args.lu_text:
        lu = open_readonly(args.index_dir / "lu-legilux.sqlite")
        skipped.update(_top(_counts(_lu_titles(lu))[0], args.lu_text_skip_titles))
        skipped.update(_top(_counts(_headings(lu))[0], args.lu_text_skip_headings))
        lists.append(("lu-legilux-text", "lu-legilux", _lu_provisions, slice(args.lu_text_from, args.lu_text)))
    for label, publisher, texts, ranked in lists:
        if ranked.stop == 0:
            continue
        counts, example = _counts(texts(open_readonly(args.index_dir / f"{publisher}.sqlite")))
        left_out = skipped if label.endswith("-text") else set()
        for word, n in unreached(counts, ranked, words, stems):
            if word in left_out or (label.endswith(("-headings", "-text")) and word in printed):
                continue
            printed.add(word)
            title = " ".join(example[word].split())
            if label.endswith("-text"):  # a provision text: the words about the word's first place in it
                title = normalize(title)
                at = max(0, f" {title} ".find(f" {word} ") - 50)
                title = title[at:]
            print(f"{label}\t{word}\t{n}\t{title[:120]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
