"""Select English → French pairs of the cross-language lexicon from EuroVoc's own English and French labels.

    python scripts/select_eurovoc_xlang.py --index-dir DIR [--min-aligned N] [--min-dice X]
        [--min-provisions N] [--min-works N] [--single-min-works N] [--skipped] [--write]

Legilux text is French only: an English question on a Luxembourg act reaches it only through the English
entries of ``derive/index/xlang_reviewed.json``. EuroVoc, the EU's multilingual thesaurus, gives every
concept an English and a French preferred label and alternative labels on each side; the EUR-Lex index
holds them for the concepts its works carry (``metadata_terms``: kinds ``eurovoc`` and
``eurovoc_alt_label``, ``identifier`` the concept's URI, read by ``mine_eurovoc_acronyms.eurovoc_labels``).
That is a publisher-made English ↔ French dictionary. For each concept, each English label (preferred or
alternative) is paired with the French labels of the same concept, and kept only by these filters, each a
corpus statistic or a property of the thesaurus (no question or judgment file is read):

* the English label names one concept only (as normalised; "goods" of two concepts is left out), and it
  is not spelt as one of its concept's French labels ("taxation" / « taxation »: French text holds it as
  written);
* the lexicon (reviewed, mined and EuroVoc entries: ``derive.index.xlang.lexicon("en")``) does not reach
  it already as a whole: a phrase entry of its content words, a word entry, or a ``shared`` word (one
  French text holds as it is, which the planner never translates);
* the EUR-Lex works' English and French texts of the same provisions (work and anchor) translate it by
  the French label. EuroVoc's alternative labels are near-synonyms and narrower terms gathered under one
  concept ("yellow fever", "sleeping sickness" under « maladie transmissible »; "bookbinding" under
  « livre »), not each other's translations, so the parallel text tells which French label translates
  which English one: at least ``--min-aligned`` provisions of at least :data:`MIN_ALIGNED_WORKS` works
  hold the English label in English and the French label in French, with a Dice association of at least
  ``--min-dice`` (2 · both / (English + French), over the provisions held in both languages), and the
  English label is the French label's best English partner among all the concepts' English labels or
  nearly (at least ``derive.index.xlang.NEAR_BEST`` of the best Dice: « chlorure » goes with "chloride",
  not with "sodium carbonate", a salt of the same list). The two preferred labels of a concept, the
  thesaurus's own translation, are a pair without that evidence when the parallel text is too thin to
  tell (the English label in fewer than ``--min-aligned`` aligned provisions; "ruling", in 32, has
  « jugement » beside it in 2 and is left out);
* a French label with no content word of the lexicon's kind (``derive.index.xlang.words_of``: « or »,
  gold, is two letters and the French conjunction) is not kept;
* a French label the lexicon reaches word by word is not kept (:func:`word_by_word`: every English
  content word has an entry and every French content word is, by its stem, a word of their terms: an
  entry would only make the words a phrase, which a search holds as adjacent words);
* a French label is kept when the Legilux index's French provisions hold it, as a phrase, in at least
  ``--min-provisions`` provisions (a provision counted once however many states repeat it) of at least
  ``--min-works`` works; the French labels kept are ordered by provisions, at most
  :data:`MAX_TERMS`, and a second one only when it is held by at least :data:`SECOND_SHARE` of the
  first's provisions and by the act that holds the first one most (the entry's source act);
* an English label of one word (a word has many senses; a concept one) is kept only when its French
  label is one word too, held by at least ``--single-min-works`` works.

Printed (tab-separated): each kept pair — ``keep``, the concept, the English label, the French terms,
provisions and works holding the first term, the source act, and the aligned EUR-Lex provisions holding
both labels with their Dice — then (``--skipped``) each English label left out with the filter that left
it (``skip``), and the counts. With ``--write`` the kept pairs are appended
to the reviewed file as one block after its last English entry, each with its source: the concept's
URI and labels, and the act whose French provisions hold the term most (``[lu-legilux:slug]``, which
``scripts/check_xlang_reviewed.py`` checks). The lexicon read is the one before this script's entries:
``--write`` refuses when the file holds them already.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _path in (ROOT, ROOT / "scripts"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from mine_eurovoc_acronyms import eurovoc_labels  # noqa: E402

from derive.index import xlang  # noqa: E402
from derive.index.read import open_readonly  # noqa: E402
from derive.index.text import normalize  # noqa: E402

#: An English and a French label must be held by at least this many aligned EUR-Lex provisions …
MIN_ALIGNED = 3
#: … of at least this many works …
MIN_ALIGNED_WORKS = 2
#: … with at least this Dice association.
MIN_DICE = 0.3
#: A French label must be held as a phrase by at least this many Legilux French provisions …
MIN_PROVISIONS = 3
#: … of at least this many works.
MIN_WORKS = 2
#: An English label of one word needs a French label of one word held by at least this many works.
SINGLE_MIN_WORKS = 10
#: At most this many French terms per English label …
MAX_TERMS = 2
#: … a second one held by at least this share of the first's provisions.
SECOND_SHARE = 0.25
#: How an entry's source begins (and how ``--write`` tells that the file holds this script's entries).
SOURCE = "EuroVoc concept"
SCRIPT = "scripts/select_eurovoc_xlang.py"
#: The « Version consolidée applicable au … : » prefix of a Legilux title, left out of a source.
_PREFIX = re.compile(r"^Version [^:]*:\s*")


@dataclass(frozen=True)
class Held:
    """Where the Legilux French provisions hold a French phrase."""

    provisions: int  # distinct (work, anchor)
    works: int
    by_work: dict[str, int]  # slug → provisions
    example: dict[str, str]  # slug → one anchor


def fts_phrase(text: str) -> str:
    """``text`` (normalised) as one FTS5 phrase query. Pure."""
    return '"' + text.replace('"', " ") + '"'


def held_in(conn: sqlite3.Connection, phrase: str) -> Held:
    """The Legilux French provisions holding ``phrase`` (normalised) as a phrase, by work."""
    rows = conn.execute(
        "SELECT w.slug, s.anchor FROM provision_fts f JOIN lexical_states s ON s.state_rowid = f.rowid "
        "JOIN works w USING (work_rowid) WHERE provision_fts MATCH ? AND s.language = 'fr'",
        (fts_phrase(phrase),)).fetchall()
    anchors: dict[str, set[str]] = defaultdict(set)
    for slug, anchor in rows:
        anchors[str(slug)].add(str(anchor))
    by_work = {slug: len(a) for slug, a in anchors.items()}
    return Held(sum(by_work.values()), len(by_work), by_work, {s: min(a) for s, a in anchors.items()})


#: Aligned EUR-Lex provisions, ``(work_rowid, anchor)``, holding a label (normalised) in one language.
Aligned = dict[tuple[str, str], frozenset[tuple[int, str]]]


def aligned_held(conn: sqlite3.Connection, forms: dict[str, set[str]]) -> Aligned:
    """For each language's labels (``forms``: language → normalised labels), the EUR-Lex provisions
    held in both English and French whose text in that language holds the label as a phrase."""
    both = set(conn.execute("SELECT work_rowid, anchor FROM lexical_states WHERE language = 'en' INTERSECT "
                            "SELECT work_rowid, anchor FROM lexical_states WHERE language = 'fr'").fetchall())
    out: Aligned = {}
    for language, labels in forms.items():
        for label in sorted(labels):
            rows = conn.execute(
                "SELECT s.work_rowid, s.anchor FROM provision_fts f JOIN lexical_states s "
                "ON s.state_rowid = f.rowid WHERE provision_fts MATCH ? AND s.language = ?",
                (fts_phrase(label), language)).fetchall()
            out[(language, label)] = frozenset((int(w), str(a)) for w, a in rows if (w, a) in both)
    return out


def dice_of(en: frozenset[tuple[int, str]], fr: frozenset[tuple[int, str]]) -> float:
    """The Dice association of two sets of aligned provisions. Pure."""
    return 2 * len(en & fr) / (len(en) + len(fr)) if en or fr else 0.0


def best_english(aligned: Aligned) -> dict[str, float]:
    """For each French label (normalised), its best Dice with any English label of any concept. Pure."""
    by_anchor: dict[tuple[int, str], list[str]] = defaultdict(list)
    for (language, label), anchors in aligned.items():
        if language == "en":
            for anchor in anchors:
                by_anchor[anchor].append(label)
    best: dict[str, float] = {}
    for (language, label), anchors in aligned.items():
        if language != "fr":
            continue
        partners = Counter(e for anchor in anchors for e in by_anchor.get(anchor, ()))
        best[label] = max((2 * n / (len(aligned[("en", e)]) + len(anchors)) for e, n in partners.items()),
                          default=0.0)
    return best


def translates(english: str, french: str, aligned: Aligned, best: dict[str, float],
               min_aligned: int = MIN_ALIGNED, min_dice: float = MIN_DICE) -> tuple[int, float] | None:
    """``(aligned provisions holding both, Dice)`` when the parallel EUR-Lex text translates the English
    label by the French one (see the module docstring), else ``None``; ``best``: :func:`best_english`.
    Pure."""
    en = aligned.get(("en", normalize(english)), frozenset())
    fr = aligned.get(("fr", normalize(french)), frozenset())
    common = en & fr
    if len(common) < min_aligned or len({w for w, _ in common}) < MIN_ALIGNED_WORKS:
        return None
    dice = dice_of(en, fr)
    if dice < min_dice or dice < xlang.NEAR_BEST * best.get(normalize(french), 0.0):
        return None
    return len(common), dice


def content_words(label: str) -> tuple[str, ...]:
    """A label's words as the lexicon keys them: normalised, folded, English stop words left out."""
    stops = xlang.translation_stops("en")
    return tuple(xlang.fold(w) for w in normalize(label).split() if w not in stops)


def reached(words: tuple[str, ...], lex: xlang.Lexicon) -> str | None:
    """How the lexicon reaches a label's content words already as a whole (``None``: it does not): the
    word is ``shared`` or has an entry, or the words are a phrase entry."""
    if len(words) == 1:
        word = words[0]
        if word in lex.shared:
            return "shared"
        return "entry" if lex.lookup(word, "en") is not None else None
    return "phrase" if words in lex.phrases else None


def word_by_word(words: tuple[str, ...], french: str, lex: xlang.Lexicon) -> bool:
    """Whether the lexicon reaches a French label word by word from the English label's content words:
    every English word is ``shared`` or has an entry, and every content word of the French label is, by
    its French Snowball stem, a word of those entries' French terms (or a shared word). Then an entry
    adds nothing but a phrase, which a search holds as adjacent words (narrower than the words)."""
    stems: set[str] = set()
    for word in words:
        found = (word,) if word in lex.shared else lex.lookup(word, "en")
        if found is None:
            return False
        stems |= {xlang.key_of(w, "fr") for term in found for w in term.split()}
    stops = xlang.translation_stops("fr")
    return all(xlang.key_of(w, "fr") in stems for w in normalize(french).split() if w not in stops)


@dataclass(frozen=True)
class Pair:
    """A kept English label with its French terms and their evidence."""

    concept: str
    english: str
    pref_en: str
    terms: tuple[str, ...]
    held: Held
    act: str
    aligned: tuple[int, float]  # of the first term
    #: the first term is the concept's French preferred label, paired without parallel evidence
    preferred: bool = False
    #: where Legilux holds the other terms
    others: tuple[Held, ...] = ()


def select(labels: dict[tuple[str, str], set[str]], lex: xlang.Lexicon, held: dict[str, Held],
           aligned: Aligned, best: dict[str, float], *, min_aligned: int = MIN_ALIGNED, min_dice: float = MIN_DICE,
           min_provisions: int = MIN_PROVISIONS, min_works: int = MIN_WORKS,
           single_min_works: int = SINGLE_MIN_WORKS, preferred: dict[tuple[str, str], str] | None = None,
           ) -> tuple[list[Pair], list[tuple[str, str, str]]]:
    """The kept pairs and the English labels left out ``(concept, label, why)``; ``held``: the
    :class:`Held` of every French label (normalised); ``aligned``: :func:`aligned_held` of every label;
    ``best``: :func:`best_english`.
    Pure."""
    preferred = preferred or {}
    concepts_of: dict[str, set[str]] = defaultdict(set)
    for (concept, language), names in labels.items():
        if language == "en":
            for name in names:
                concepts_of[normalize(name)].add(concept)
    kept: list[Pair] = []
    skipped: list[tuple[str, str, str]] = []
    for (concept, language), names in sorted(labels.items()):
        if language != "en":
            continue
        french = sorted(labels.get((concept, "fr"), set()))
        french_forms = {normalize(f) for f in french}
        for english in sorted(names):
            key = normalize(english)
            words = content_words(english)
            why = None
            if not words:
                why = "no content word"
            elif len(concepts_of[key]) > 1:
                why = f"names {len(concepts_of[key])} concepts"
            elif key in french_forms:
                why = "spelt as its French label"
            elif (how := reached(words, lex)) is not None:
                why = f"reached ({how})"
            if why is not None:
                skipped.append((concept, english, why))
                continue
            parallel = {f: t for f in french if xlang.words_of(f, "fr")
                        and (t := translates(english, f, aligned, best, min_aligned, min_dice))}
            by_preference = None
            pref_fr = preferred.get((concept, "fr"))
            if preferred.get((concept, "en")) == english and pref_fr and pref_fr not in parallel \
                    and xlang.words_of(pref_fr, "fr"):
                # the two preferred labels, the thesaurus's own translation of the concept, when the
                # parallel text is too thin to tell (the English label in fewer than ``min_aligned``
                # aligned provisions): "ruling" is in 32 and « jugement » beside it in 2
                en_held = aligned.get(("en", key), frozenset())
                fr_held = aligned.get(("fr", normalize(pref_fr)), frozenset())
                if len(en_held) < min_aligned:
                    parallel[pref_fr] = (len(en_held & fr_held), dice_of(en_held, fr_held))
                    by_preference = pref_fr
            if not parallel:
                skipped.append((concept, english, "no French label proven by the EUR-Lex parallel text"))
                continue
            parallel = {f: t for f, t in parallel.items() if not word_by_word(words, f, lex)}
            if not parallel:
                skipped.append((concept, english, "reached (word by word)"))
                continue
            candidates = sorted(
                (f for f in parallel if (h := held[normalize(f)]).provisions >= min_provisions
                 and h.works >= min_works),
                key=lambda f: (-held[normalize(f)].provisions, f))
            if len(words) == 1:
                candidates = [f for f in candidates if len(normalize(f).split()) == 1
                              and held[normalize(f)].works >= single_min_works]
            if not candidates:
                skipped.append((concept, english, "no French translation held enough in Legilux"))
                continue
            first = held[normalize(candidates[0])]
            act = max(first.by_work, key=lambda s: (first.by_work[s], s))
            terms = [candidates[0]]
            for other in candidates[1:]:
                h = held[normalize(other)]
                if len(terms) < MAX_TERMS and normalize(other) != normalize(terms[0]) \
                        and h.provisions >= SECOND_SHARE * first.provisions and act in h.by_work:
                    terms.append(other)
            kept.append(Pair(concept, english, preferred.get((concept, "en"), ""), tuple(terms), first, act,
                             parallel[terms[0]], terms[0] == by_preference,
                             tuple(held[normalize(t)] for t in terms[1:])))
    return kept, skipped


def preferred_labels(conn: sqlite3.Connection) -> dict[tuple[str, str], str]:
    """The preferred label of each concept by (concept, language)."""
    return {(str(c), str(lang)): str(label) for c, label, lang in conn.execute(
        "SELECT identifier, label, language FROM metadata_terms WHERE kind = 'eurovoc'")}


def source_of(pair: Pair, titles: dict[str, str]) -> str:
    """The source of a kept pair's entry: the concept and its labels, the act and where it holds each term
    (the first provision and how many), the counts."""
    h = pair.held
    n, dice = pair.aligned
    title = " ".join(_PREFIX.sub("", titles.get(pair.act, pair.act)).replace("\\n", " ").split())
    title = title if len(title) <= 120 else title[:118].rstrip() + " …"
    terms = " / ".join(f"'{t}'" for t in pair.terms)
    where = ", ".join(f"'{t}' in {th.example[pair.act]} ({th.by_work[pair.act]} provisions)"
                      for t, th in zip(pair.terms, (h, *pair.others), strict=True))
    return (f"{SOURCE} {pair.concept} (English label '{pair.english}', French {terms}); {title} "
            f"[lu-legilux:{pair.act}]: {where}; Legilux: {h.provisions} provisions of {h.works} works; "
            + ("the concept's two preferred labels (the English one in too few aligned EUR-Lex provisions to "
               "tell)" if pair.preferred else
               f"EUR-Lex: both labels in {n} aligned English/French provisions, Dice {dice:.2f}")
            + f" ({SCRIPT})")


def entries_of(pairs: Iterable[Pair], titles: dict[str, str]) -> list[dict[str, object]]:
    """The reviewed-file entries of the kept pairs."""
    return [{"word": p.english, "terms": list(p.terms), "language": "en", "source": source_of(p, titles)}
            for p in pairs]


def append_block(data: dict[str, list[dict[str, object]]], block: list[dict[str, object]]) -> None:
    """``block`` inserted after the last English entry of the reviewed file's ``entries``."""
    entries = data["entries"]
    last = max((i for i, e in enumerate(entries) if e.get("language") == "en"), default=len(entries) - 1)
    entries[last + 1:last + 1] = block


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index-dir", type=Path, required=True)
    parser.add_argument("--min-aligned", type=int, default=MIN_ALIGNED)
    parser.add_argument("--min-dice", type=float, default=MIN_DICE)
    parser.add_argument("--min-provisions", type=int, default=MIN_PROVISIONS)
    parser.add_argument("--min-works", type=int, default=MIN_WORKS)
    parser.add_argument("--single-min-works", type=int, default=SINGLE_MIN_WORKS)
    parser.add_argument("--skipped", action="store_true", help="print each English label left out, and why")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    eu = open_readonly(args.index_dir / "eu-eurlex.sqlite")
    lu = open_readonly(args.index_dir / "lu-legilux.sqlite")
    data = json.loads(xlang.REVIEWED_PATH.read_text(encoding="utf-8"))
    if args.write and any(str(e.get("source", "")).startswith(SOURCE) for e in data["entries"]):
        print("the reviewed file holds this script's entries already", file=sys.stderr)
        return 1
    labels = eurovoc_labels(eu)
    french = sorted({normalize(f) for (_, lang), names in labels.items() if lang == "fr" for f in names})
    held = {f: held_in(lu, f) for f in french}
    forms: dict[str, set[str]] = defaultdict(set)
    for (_, language), names in labels.items():
        forms[language] |= {normalize(n) for n in names}
    aligned = aligned_held(eu, forms)
    pairs, skipped = select(labels, xlang.lexicon("en"), held, aligned, best_english(aligned), min_aligned=args.min_aligned,
                            min_dice=args.min_dice, min_provisions=args.min_provisions,
                            min_works=args.min_works, single_min_works=args.single_min_works,
                            preferred=preferred_labels(eu))
    titles = {str(s): str(t or "") for s, t in lu.execute("SELECT slug, title FROM works")}
    for p in pairs:
        print("keep", p.concept, p.english, " | ".join(p.terms), p.held.provisions, p.held.works, p.act,
              p.aligned[0], f"{p.aligned[1]:.2f}", sep="\t")
    for concept, english, why in skipped if args.skipped else ():
        print("skip", concept, english, why, sep="\t")
    whys = Counter(why.split(" (")[0] if why.startswith("reached") else why for _, _, why in skipped)
    english = sum(len(n) for (_, lang), n in labels.items() if lang == "en")
    print(f"{english} English labels of {len({c for c, _ in labels})} concepts; {len(pairs)} kept; left out: "
          + ", ".join(f"{why} {n}" for why, n in whys.most_common()))
    if args.write:
        append_block(data, entries_of(pairs, titles))
        xlang.REVIEWED_PATH.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
