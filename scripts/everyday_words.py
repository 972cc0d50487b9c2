"""Select the everyday-word list (``derive/index/everyday_words.json``) from wordfreq's general-language frequencies.

    python scripts/everyday_words.py --lu LU_INDEX.sqlite --eu EU_INDEX.sqlite [--out FILE]

Needs the ``wordfreq`` package (https://github.com/rspeer/wordfreq; code Apache-2.0, word lists
CC-BY-SA 4.0), which the project does not depend on: install it in a separate environment
(``python -m venv W && W/bin/pip install wordfreq``) and run this script with that environment's
Python and the project on ``PYTHONPATH``. Nothing at serving time or in CI reads wordfreq: the
output file is committed and reviewed, and a new corpus or wordfreq release changes it only when
this script is run again.

A word is kept when (:func:`select`) the index vocabulary of either publisher lists it (the words
of at least ``VOCABULARY_MIN_LENGTH`` letters, accents folded), at most :data:`MAX_DOCS` provisions of
one index hold it (a word in more is never rare enough for the any-word quorum's IDF share to hinge
on it) and its general-language Zipf frequency — the highest of French, English and German, over
the word's spellings that fold to it — is at least :data:`MIN_ZIPF`. The file maps each kept word to
its Zipf frequency × 10 (for review; the search reads only which words are listed) and carries its
provenance, selection and licence.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from derive.index.read import open_readonly  # noqa: E402
from derive.index.text import normalize  # noqa: E402

#: The general-language lists read (wordfreq's "best" list of each language).
LANGUAGES = ("fr", "en", "de")
#: The lowest Zipf frequency kept (Zipf 3.5: about three times per million words; ADR 0128).
MIN_ZIPF = 3.5
#: A word held by more provisions than this in both indexes is left out: the search counts a word as
#: rare in law only when its IDF weight in the searched index reaches
#: ``serve.core.ops.search.EVERYDAY_MIN_IDF`` (about this many provisions of a full index).
MAX_DOCS = 100
#: The shortest word the index vocabulary lists (``derive.index.schema.VOCABULARY_MIN_LENGTH``).
MIN_LETTERS = 4


def folded_zipf(pairs: Iterable[tuple[str, float]]) -> dict[str, float]:
    """``folded word → highest Zipf`` over ``(word, zipf)`` pairs, each word folded as the index
    folds text (:func:`derive.index.text.normalize`); a word that folds to several tokens is left out. Pure."""
    out: dict[str, float] = {}
    for word, zipf in pairs:
        folded = normalize(word)
        if not folded or " " in folded or not folded.isalpha():
            continue
        if zipf > out.get(folded, -1.0):
            out[folded] = zipf
    return out


def select(general: Mapping[str, float], held: Mapping[str, int]) -> dict[str, int]:
    """The kept words (module docstring) as ``word → round(zipf × 10)`` (compared at that precision): ``general`` is
    :func:`folded_zipf`'s map, ``held`` the lowest provision count of each vocabulary word over the indexes. Pure."""
    return {w: round(z * 10) for w, z in sorted(general.items())
            if round(z * 10) >= round(MIN_ZIPF * 10) and len(w) >= MIN_LETTERS and w in held and held[w] <= MAX_DOCS}


def vocabulary(paths: Iterable[Path]) -> dict[str, int]:
    """``word → provisions`` from each index's ``vocabulary`` table, the lowest count over the indexes
    that list it (a word rare in one publisher's text can decide that publisher's quorum)."""
    out: dict[str, int] = {}
    for path in paths:
        conn = open_readonly(path)
        try:
            for term, docs in conn.execute("SELECT term, docs FROM vocabulary"):
                out[term] = min(int(docs), out.get(term, int(docs)))
        finally:
            conn.close()
    return out


def wordfreq_pairs() -> Iterable[tuple[str, float]]:
    """Every word of wordfreq's FR, EN and DE lists with its Zipf frequency."""
    import wordfreq  # not a project dependency: see the module docstring

    for language in LANGUAGES:
        for word, freq in wordfreq.get_frequency_dict(language, wordlist="best").items():
            if freq > 0:
                yield word, wordfreq.zipf_frequency(word, language, wordlist="best")


def document(kept: dict[str, int]) -> dict[str, object]:
    """The output file: provenance, selection, licence and the kept words."""
    from importlib.metadata import version

    return {
        "about": "Everyday words rare in law (ADR 0128): index vocabulary words (accents folded) held by few "
                 "provisions whose general-language frequency is high; selected by scripts/everyday_words.py.",
        "source": {"package": "wordfreq", "version": version("wordfreq"),
                   "url": "https://github.com/rspeer/wordfreq", "wordlist": "best",
                   "attribution": "wordfreq data, (c) Robyn Speer and contributors",
                   "licence": "CC-BY-SA-4.0", "licence_url": "https://creativecommons.org/licenses/by-sa/4.0/"},
        "licence": "CC-BY-SA-4.0 (derived from the wordfreq data)",
        "selection": {"languages": list(LANGUAGES), "min_zipf": MIN_ZIPF, "max_docs": MAX_DOCS,
                      "min_letters": MIN_LETTERS, "indexes": "the full Legilux and EUR-Lex indexes' vocabulary"},
        "words": kept,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lu", type=Path, required=True)
    parser.add_argument("--eu", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=ROOT / "derive" / "index" / "everyday_words.json")
    args = parser.parse_args(argv)
    kept = select(folded_zipf(wordfreq_pairs()), vocabulary([args.lu, args.eu]))
    text = json.dumps(document(kept), ensure_ascii=False, indent=0, sort_keys=False)
    args.out.write_text(text + "\n", encoding="utf-8")
    print(f"{len(kept)} words -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
