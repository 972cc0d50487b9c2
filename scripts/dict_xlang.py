"""Select the dictionary tier of the cross-language lexicon (``derive/index/xlang_dict.json``) from FreeDict.

    python scripts/dict_xlang.py --lu LU_INDEX.sqlite --eu EU_INDEX.sqlite \
        [--dictd DIR] [--out FILE]

Reads the FreeDict German–French and English–French dictionaries in dictd form (Debian packages
``dict-freedict-deu-fra`` and ``dict-freedict-eng-fra``: ``DIR/freedict-deu-fra.index`` and
``.dict.dz``, the same for ``eng-fra``) and keeps a pair only when it is useful and safe
(:func:`select`): a source word of one word, of a content part of speech, that no reviewed or mined
entry translates (nor a German compound cut into such words), that French text does not hold as it is,
that no other headword reads as, with few senses; of it, the first French terms the corpus's French text
holds. The committed file holds German only (:data:`SELECTED`). The built indexes
(read-only) say which words and phrases French text holds. The output is committed and reviewed as
the mined file is (ADR 0021, ADR 0123): a new dictionary or corpus changes it only when this script is
run again. The dictionaries' licences travel with the data (the file's ``languages.*.licence``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sqlite3
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from derive.index import analysis, relax, xlang  # noqa: E402
from derive.index.read import open_readonly  # noqa: E402
from derive.index.text import normalize  # noqa: E402
from scripts.mine_xlang import held_phrases  # noqa: E402

#: The dictd base64 digits of an index line's offset and length.
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
#: The dictionary of each source language: its dictd name, Debian package, licence and attribution.
DICTIONARIES: dict[str, dict[str, str]] = {
    "de": {"name": "freedict-deu-fra", "package": "dict-freedict-deu-fra", "licence": "CC-BY-SA-3.0",
           "licence_url": "https://creativecommons.org/licenses/by-sa/3.0/",
           "attribution": "FreeDict contributors (FreeDict+WikDict German-French dictionary, from Wiktionary "
                          "via DBnary)"},
    "en": {"name": "freedict-eng-fra", "package": "dict-freedict-eng-fra", "licence": "GPL-2.0-or-later",
           "licence_url": "https://www.gnu.org/licenses/old-licenses/gpl-2.0.html",
           "attribution": "FreeDict contributors (FreeDict English-French dictionary, from Ergane)"},
}
#: The languages the committed file holds (ADR 0123): German. The English–French dictionary (Ergane's
#: word lists: no part of speech, a sense's terms in alphabetical order, "permit" « permettre », "people"
#: « gens, peuple ») lost more readable cases than it won and is GPL-licensed; ``--languages de,en`` selects it.
SELECTED = ("de",)
#: Parts of speech a kept entry may have (``None``: the English dictionary marks none): names of
#: things, qualities and actions. Function words, affixes, letters, numerals and abbreviations are left out.
CONTENT_POS = frozenset({"n", "adj", "v", "adv", "pn", None})
#: A kept source word has at most this many senses (over all its entries of one normalised headword).
MAX_SENSES = 2
#: At most this many French terms per word.
MAX_TERMS = 2
#: A French term is held when at least this many provisions of the French text hold it (a phrase, as a phrase).
MIN_HELD = 5
#: A source word that at least this many Legilux provisions hold as it is is French text's word too
#: ("transport", "Person"): no translation is needed, and a French word's entry would translate it.
FRENCH_MIN = 5
#: The fewest letters of a kept source word.
MIN_SOURCE = 4
#: The most words of a kept French term.
MAX_TERM_WORDS = 3
#: French function words: a term made only of them ("que", "par là") names nothing.
FRENCH_STOPS = xlang.translation_stops("fr")
_SENSE = re.compile(r"^(\d+)\.\s+(.*)$")
_POS = re.compile(r"<([^>]*)>")


def number(digits: str) -> int:
    """A dictd index number (offset or length) written in its base64 digits. Pure."""
    out = 0
    for c in digits:
        out = out * 64 + B64.index(c)
    return out


@dataclass(frozen=True)
class Entry:
    """One dictionary entry: its headword, part of speech and senses (each sense's French terms)."""

    headword: str
    pos: str | None
    senses: tuple[tuple[str, ...], ...]


def parse_entry(text: str) -> Entry | None:
    """An entry of a FreeDict dictd dictionary: the headword line (``word /IPA/ <pos, gender>``), then
    either numbered senses (``1. résiliation``, each maybe followed by gloss lines in the source
    language) or one unnumbered line of French terms. Terms are comma-separated; an empty or broken
    sense line (``1. mine 2.``) keeps its terms before the stray number. ``None`` for an entry
    without terms. Pure."""
    lines = [line for line in text.split("\n") if line.strip()]
    if len(lines) < 2:
        return None
    head = lines[0]
    pos_found = _POS.search(head)
    pos = pos_found.group(1).split(",")[0].strip() if pos_found else None
    headword = re.split(r"\s+/|\s+<", head, maxsplit=1)[0].strip()
    numbered = [m.group(2) for line in lines[1:] if (m := _SENSE.match(line))]
    raw = numbered if numbered else [lines[1]]
    senses = []
    for line in raw:
        line = re.sub(r"\s+\d+\.\s*$", "", line)  # a stray next number ("mine 2.")
        terms = tuple(t.strip() for t in line.split(",") if t.strip())
        if terms:
            senses.append(terms)
    return Entry(headword, pos, tuple(senses)) if headword and senses else None


def read_dictionary(index_path: Path, dict_path: Path) -> Iterator[Entry]:
    """The entries of a dictd dictionary (``.index`` lines ``headword<TAB>offset<TAB>length`` into
    the gzip-compressed ``.dict.dz``), in index order; the ``00database…`` records left out."""
    with gzip.open(dict_path) as f:
        data = f.read()
    for line in index_path.read_text(encoding="utf-8").splitlines():
        parts = line.split("\t")
        if len(parts) != 3 or parts[0].startswith("00database") or parts[0].startswith("00-database"):
            continue
        start, length = number(parts[1]), number(parts[2])
        entry = parse_entry(data[start:start + length].decode("utf-8"))
        if entry is not None:
            yield entry


def merged(entries: Iterable[Entry]) -> dict[str, tuple[set[str | None], list[tuple[str, ...]]]]:
    """The entries by normalised headword (``Erbe`` the heir and ``Erbe`` the inheritance, ``Arm`` and
    ``arm``: one word of a question), with their parts of speech and all their senses in order. Pure."""
    out: dict[str, tuple[set[str | None], list[tuple[str, ...]]]] = {}
    for entry in entries:
        key = xlang.fold(normalize(entry.headword))
        pos, senses = out.setdefault(key, (set(), []))
        pos.add(entry.pos)
        senses.extend(entry.senses)
    return out


def candidate_terms(senses: list[tuple[str, ...]], ordered: bool) -> list[str]:
    """The French terms of a word's senses, normalised, in the order they are tried: the first term
    of each sense, then the other terms of the first sense. ``ordered=False`` when a dictionary lists a
    sense's terms alphabetically (the English one: "appointements, gaine, salaire"): then the caller
    ranks them by how much French text holds them. A term of more than :data:`MAX_TERM_WORDS` words, or
    one holding a bracket or a placeholder ("qqch", "qqn"), is never one. Pure."""
    order = [s[0] for s in senses] + list(senses[0][1:]) if ordered else [t for s in senses for t in s]
    out: list[str] = []
    for term in order:
        if re.search(r"[()\[\]…]|\bqq|\bquelqu", term):
            continue
        norm = normalize(term)
        if norm and not set(norm.split()) <= FRENCH_STOPS and len(norm.split()) <= MAX_TERM_WORDS and norm not in out:
            out.append(norm)
    return out


def french_stems(senses: list[tuple[str, ...]]) -> set[str]:
    """The French stems of every term of a word's senses (normalised): two headwords whose senses share
    none are two words ("Rahm" « crème », "Rahmen" « cadre »), not two forms of one. Pure."""
    return {xlang.key_of(w, "fr", cached=False) for sense in senses for t in sense for w in normalize(t).split()
            if w not in FRENCH_STOPS}


def select(entries: Iterable[Entry], language: str, held: Callable[[str], int], french: Callable[[str], int],
           ordered: bool) -> tuple[list[dict[str, object]], Counter[str]]:
    """The kept pairs of ``language`` → French, and how many words each filter left out (the first
    failing filter counts). ``held``: provisions of the French text holding a normalised term (as a
    phrase); ``french``: Legilux provisions holding a normalised word as it is. A word (its entries of one
    normalised headword merged) is kept when it is one word of letters of at least :data:`MIN_SOURCE`, of a
    content part of speech (:data:`CONTENT_POS`), not a stop, relaxable or frame word, not a German present
    participle used as an adjective ("fliegend" « volant », "folgend" « suivant »: the French -ant form is held by
    legal text as another word, the steering wheel or the frame word); when no other
    headword of the dictionary is a form of it for the look-up (same stem, an inflection apart) with senses
    of other French stems ("Rahm" « crème » would translate "Rahmen"); with at most :data:`MAX_SENSES`
    senses; when neither the reviewed and mined lexicon (a form of its stem) nor a German compound cut of
    it into words the lexicon knows translates it (that entry wins: this tier is the lowest); when it is
    not French text's own word (the mined ``shared`` words, the French of the lexicons' terms, or
    :data:`FRENCH_MIN` Legilux provisions); and when at least one of its :func:`candidate_terms` is held
    by :data:`MIN_HELD` provisions — the first :data:`MAX_TERMS` held ones are its terms (in the
    dictionary's order, or the most held first when it is not ``ordered``), the word itself never one."""
    lex = xlang.lexicon(language)
    english_french = xlang.lexicon("en").french
    stops = xlang.translation_stops(language)
    fillers = xlang.FRAME_FILLERS.get(language, frozenset())
    counts: Counter[str] = Counter()
    kept: list[dict[str, object]] = []
    words = merged(entries)
    by_stem: dict[str, list[str]] = {}
    for w in words:
        by_stem.setdefault(xlang.key_of(w, language, cached=False), []).append(w)
    for word, (pos, senses) in sorted(words.items()):
        counts["entries"] += 1
        if " " in word or not word.isalpha() or len(word) < MIN_SOURCE:
            counts["not one word of letters"] += 1
        elif not pos & CONTENT_POS or pos - CONTENT_POS:
            counts["not a content part of speech"] += 1
        elif word in stops or word in fillers or relax.relaxable(word):
            counts["stop, relaxable or frame word"] += 1
        elif language == "de" and word.endswith("end") and "adj" in pos:
            counts["a German present participle"] += 1
        elif any(other != word and abs(len(other) - len(word)) <= 2 and analysis.inflection(other, word)
                 and not french_stems(senses) & french_stems(words[other][1])
                 for other in by_stem[xlang.key_of(word, language, cached=False)]):
            counts["another headword reads as its form"] += 1
        elif len(senses) > MAX_SENSES:
            counts[f"more than {MAX_SENSES} senses"] += 1
        elif lex.lookup(word, language) is not None:
            counts["translated by the reviewed or mined lexicon"] += 1
        elif xlang.compound_parts(word, language) is not None:
            counts["cut as a compound of lexicon words"] += 1
        elif word in lex.shared or word in lex.french or word in english_french or french(word) >= FRENCH_MIN:
            counts["a word French text holds as it is"] += 1
        else:
            candidates = [t for t in candidate_terms(senses, ordered) if t != word]
            found = {t: held(t) for t in candidates}
            terms = [t for t in candidates if found[t] >= MIN_HELD]
            if not ordered:
                terms.sort(key=lambda t: -found[t])
            if not terms:
                counts["no French term the corpus holds"] += 1
                continue
            counts["kept"] += 1
            kept.append({"word": word, "terms": terms[:MAX_TERMS], "senses": len(senses),
                         "held": [found[t] for t in terms[:MAX_TERMS]]})
    return kept, counts


def package_version(package: str) -> str:
    """The installed Debian package's version, or ``unknown``."""
    try:
        return subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True,
                              check=True).stdout.strip() or "unknown"
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def edition(dict_path: Path) -> str:
    """The dictionary's own edition, from its ``00database…`` header (``Edition: 2022.11.18``)."""
    with gzip.open(dict_path) as f:
        head = f.read(4000).decode("utf-8", "replace")
    found = re.search(r"Edition:\s*(\S+)", head)
    return found.group(1) if found else "unknown"


class Held:
    """How many provisions of the indexes' text hold a normalised word or phrase (summed, each capped at
    1,000 as ``scripts/mine_xlang.py`` counts), and how many Legilux provisions hold a word, remembered."""

    def __init__(self, lu: sqlite3.Connection, eu: sqlite3.Connection) -> None:
        self.conns = (lu, eu)
        self.lu = lu
        self.seen: dict[str, int] = {}

    def _word(self, conn: sqlite3.Connection, word: str) -> int:
        row = conn.execute("SELECT doc FROM provision_vocab WHERE term = ?", (word,)).fetchone()
        return int(row[0]) if row else 0

    def term(self, term: str) -> int:
        if term not in self.seen:
            self.seen[term] = (sum(self._word(c, term) for c in self.conns) if " " not in term
                               else held_phrases(list(self.conns), [term])[term])
        return self.seen[term]

    def french(self, word: str) -> int:
        return self._word(self.lu, word)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lu", type=Path, required=True)
    parser.add_argument("--eu", type=Path, required=True)
    parser.add_argument("--dictd", type=Path, default=Path("/usr/share/dictd"))
    parser.add_argument("--out", type=Path, default=xlang.DICTIONARY_PATH)
    parser.add_argument("--languages", default=",".join(SELECTED),
                        help="the source languages to select, comma separated (default: %(default)s)")
    args = parser.parse_args(argv)
    held = Held(open_readonly(args.lu), open_readonly(args.eu))
    languages: dict[str, dict[str, object]] = {}
    for language, about in DICTIONARIES.items():
        if language not in args.languages.split(","):
            continue
        index = args.dictd / f"{about['name']}.index"
        dz = args.dictd / f"{about['name']}.dict.dz"
        entries = list(read_dictionary(index, dz))
        kept, counts = select(entries, language, held.term, held.french, ordered=language == "de")
        languages[language] = {
            **{k: about[k] for k in ("licence", "licence_url", "attribution", "package")},
            "package_version": package_version(about["package"]), "edition": edition(dz),
            "filters": dict(counts), "entries": kept}
        print(f"{language}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    out: dict[str, object] = {
        "schema": xlang.DICTIONARY_SCHEMA,
        "description": "The cross-language lexicon's lowest tier (derive.index.xlang): DE→FR word pairs (EN→FR "
                       "when selected) chosen from the FreeDict dictionaries by scripts/dict_xlang.py, each French term held by "
                       "the corpus's French text. OR-alternatives of a question's word that no reviewed or mined "
                       "entry translates, never a filter. Each language's part keeps its dictionary's licence.",
        "generated_by": "scripts/dict_xlang.py",
        "thresholds": {"max_senses": MAX_SENSES, "max_terms": MAX_TERMS, "min_held": MIN_HELD,
                       "french_min": FRENCH_MIN, "min_source": MIN_SOURCE, "max_term_words": MAX_TERM_WORDS},
        "languages": languages,
    }
    args.out.write_text(render(out), encoding="utf-8")
    return 0


def render(out: dict[str, object]) -> str:
    """The file's JSON: one line per key as ``scripts/mine_xlang.py`` writes its file, but one line per
    entry (thousands of entries, each read and reviewed as a line). Pure."""
    marker = "@@ENTRIES:{}@@"
    languages = out["languages"]
    assert isinstance(languages, dict)
    shaped = {**out, "languages": {lang: {**part, "entries": marker.format(lang)} for lang, part in languages.items()}}
    text = json.dumps(shaped, ensure_ascii=False, indent=0)
    for lang, part in languages.items():
        entries = part["entries"]
        assert isinstance(entries, list)
        rows = ",\n".join(json.dumps(e, ensure_ascii=False) for e in entries)
        text = text.replace(json.dumps(marker.format(lang)), "[\n" + rows + "\n]")
    return text + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
