"""Anchor churn: anchors that come and go between a work's versions with no change of wording.

    python scripts/anchor_churn.py DATASET [--tree TREE] [--json] [--examples N]

Reads ``DATASET/provisions.jsonl`` (sorted by work, so one work is held at a time). For each
work and language, the derived versions in valid-time order are compared pairwise, and what
happens **where the profile changes** (XHTML ↔ Formex ↔ HTML: the manifestation, not the law)
is churn:

- ``renamed``: an anchor that vanishes while one that appears carries the same wording (see below):
  the same provision under another anchor (``anx_I`` → ``anx_i``, ``annexe_xiv`` → ``anx_XIV``);
- ``flicker``: an anchor present in the versions before and after but absent in between, the
  middle version derived by another profile than a neighbour (an appendix that appears, vanishes
  and reappears);
- ``moved``: the renamed anchors whose text is byte-identical (same ``text_sha256``; within ``renamed``).

``churn`` is ``renamed + flicker``; the target is 0. The same counts between versions of *one* profile are
reported apart (``same_profile_*``): there the publisher's own ids changed (Legilux mints dated
ids such as ``art_10_20090316``; a Cellar id cut short) and the wording may too. Not churn either,
``document_fallback``: a switch to or from a single ``document`` provision (a page without article
structure, e.g. an HTML stub while the Formex member holds the articles). Exit status 0 either
way (this measures; the benchmark decides).

**Amendments are not churn.** At a profile switch the law may also have changed (an original
HTML page followed by a consolidation). Each anchor that vanishes or appears there is classified
by its wording (``text_md``, read in a second pass for those anchors only):

- a vanished and an appeared anchor whose wordings are the same or nearly so (word-set Jaccard
  ≥ ``SAME_WORDING``, footnote calls and markup aside) are one provision renamed: ``renamed``,
  counted as churn, listed;
- what is left is an amendment: ``deleted`` (the wording is under no appeared anchor) and
  ``inserted`` (the wording was under no vanished anchor), listed apart (``amendments``), not churn.
  With ``--tree TREE`` the later version's evidence bodies are read too: a deletion is
  ``confirmed`` when the consolidation shows a deletion mark (``▼M8 —————``), an insertion when
  it carries amendment markers (``▼M``/``►M``); otherwise the amendment is ``unconfirmed``
  (counted and listed, still not churn: its wording differs).
"""

from __future__ import annotations

import itertools
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class State:
    valid_from: str
    version_key: str
    profile: str
    texts: dict[str, str] = field(default_factory=dict)  # anchor → text_sha256


@dataclass
class Switch:
    """Anchors that vanished and appeared between two versions derived by different profiles."""

    work: str
    language: str
    versions: tuple[str, str]  # version keys
    between: tuple[str, str]  # valid_from
    profiles: tuple[str, str]
    gone: dict[str, str]  # anchor → text_sha256
    new: dict[str, str]


@dataclass
class Report:
    works: int = 0
    works_mixing_profiles: int = 0
    profile_switches: int = 0
    renamed: int = 0
    flicker: int = 0
    moved: int = 0
    regrouped: int = 0
    deleted: int = 0
    inserted: int = 0
    confirmed: int = 0
    unconfirmed: int = 0
    same_profile_renamed: int = 0
    same_profile_flicker: int = 0
    same_profile_moved: int = 0
    document_fallback: int = 0
    examples: list[dict[str, Any]] = field(default_factory=list)
    amendments: list[dict[str, Any]] = field(default_factory=list)
    switches: list[Switch] = field(default_factory=list)
    limit: int = 20

    @property
    def churn(self) -> int:
        """Anchors that changed at a profile switch with no change of wording (``moved`` is within ``renamed``)."""
        return self.renamed + self.flicker + self.regrouped

    def example(self, **item: Any) -> None:
        if len(self.examples) < self.limit:
            self.examples.append(item)

    def to_dict(self) -> dict[str, Any]:
        return {"works": self.works, "works_mixing_profiles": self.works_mixing_profiles,
                "profile_switches": self.profile_switches, "renamed": self.renamed, "flicker": self.flicker,
                "moved": self.moved, "regrouped": self.regrouped, "churn": self.churn, "deleted": self.deleted, "inserted": self.inserted,
                "amendments_confirmed": self.confirmed, "amendments_unconfirmed": self.unconfirmed,
                "same_profile_renamed": self.same_profile_renamed,
                "same_profile_flicker": self.same_profile_flicker, "same_profile_moved": self.same_profile_moved,
                "document_fallback": self.document_fallback,
                "examples": self.examples, "amendments": self.amendments}


def _works(path: Path) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    current: str | None = None
    rows: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            row = json.loads(line)
            slim = {k: row[k] for k in ("work_id", "language", "version_key", "valid_from", "profile", "anchor",
                                        "text_sha256")}
            if slim["work_id"] != current and rows:
                yield current or "", rows
                rows = []
            current = slim["work_id"]
            rows.append(slim)
    if rows:
        yield current or "", rows


def _states(rows: list[dict[str, Any]]) -> dict[str, list[State]]:
    by_lang: dict[str, dict[str, State]] = {}
    for r in rows:
        states = by_lang.setdefault(r["language"], {})
        state = states.get(r["version_key"])
        if state is None:
            state = states[r["version_key"]] = State(r["valid_from"], r["version_key"], r["profile"])
        state.texts[r["anchor"]] = r["text_sha256"]
    return {lang: sorted(s.values(), key=lambda x: (x.valid_from, x.version_key)) for lang, s in by_lang.items()}


EMPTY = "e3b0c44298fc1c149afbfc8996fb92427ae41e4649b934ca495991b7852b855"


def check_work(work: str, rows: list[dict[str, Any]], report: Report) -> None:
    report.works += 1
    states = _states(rows)
    if len({s.profile for seq in states.values() for s in seq}) > 1:
        report.works_mixing_profiles += 1
    for lang, seq in states.items():
        for a, b in itertools.pairwise(seq):
            gone, new = set(a.texts) - set(b.texts), set(b.texts) - set(a.texts)
            if "document" in a.texts or "document" in b.texts:
                report.document_fallback += 1 if gone or new else 0
                continue
            switch = a.profile != b.profile
            if switch:
                report.profile_switches += 1
            if switch and (gone or new):
                report.switches.append(Switch(work, lang, (a.version_key, b.version_key),
                                              (a.valid_from, b.valid_from), (a.profile, b.profile),
                                              {x: a.texts[x] for x in gone}, {x: b.texts[x] for x in new}))
                continue
            if min(len(gone), len(new)):
                report.same_profile_renamed += min(len(gone), len(new))
            by_text = {b.texts[x]: x for x in new if b.texts[x] != EMPTY}
            report.same_profile_moved += sum(1 for x in gone if a.texts[x] in by_text)
        for a, b, c in zip(seq, seq[1:], seq[2:], strict=False):
            if "document" in b.texts:
                continue
            for anchor in sorted((set(a.texts) & set(c.texts)) - set(b.texts)):
                if b.profile in (a.profile, c.profile) and a.profile == c.profile == b.profile:
                    report.same_profile_flicker += 1
                    continue
                report.flicker += 1
                report.example(kind="flicker", work=work, language=lang, anchor=anchor,
                               versions=[a.valid_from, b.valid_from, c.valid_from],
                               profiles=[a.profile, b.profile, c.profile])


SAME_WORDING = 0.6  # word-set Jaccard from which two wordings are one provision's
NOTE = re.compile(r"^\[\^[^\]]*\]:.*$|\[\^[^\]]*\]|\[figure \d+:[^\]]*\]", re.M)
WORD = re.compile(r"\w+")
MARKER = re.compile(r"[▼►]M\d+")
DELETION = re.compile(r"[▼►]M\d+(?:\s|<[^>]*>|&nbsp;|&#160;|\xa0|◄)*—{3,}")


def words(text: str) -> frozenset[str]:
    """The words of a provision's wording, footnotes and figure markers aside (their numbering is ours)."""
    return frozenset(w.lower() for w in WORD.findall(NOTE.sub(" ", text)))


def phrase(text: str) -> str:
    """The wording as one lower-case run of words (footnotes and figure markers aside), to find it inside another."""
    return " ".join(w.lower() for w in WORD.findall(NOTE.sub(" ", text)))


SHINGLE = 8  # words per run compared when looking for a wording inside another version
KEPT = 0.8  # share of a wording's runs found in the other version from which it was kept there


def shingles(run: str) -> set[str]:
    ws = run.split()
    if len(ws) <= SHINGLE:
        return {run} if run else set()
    return {" ".join(ws[i:i + SHINGLE]) for i in range(len(ws) - SHINGLE + 1)}


def within(text: str, others: dict[str, str]) -> str | None:
    """The anchor among ``others`` that holds most of ``text``'s wording, if ``others`` together hold at least
    ``KEPT`` of its runs of ``SHINGLE`` words (a shorter wording: whole inside one of them), else None."""
    run = phrase(text)
    if not run:
        return None
    if len(run.split()) <= SHINGLE:
        for anchor, other in sorted(others.items()):
            if f" {run} " in f" {phrase(other)} ":
                return anchor
        return None
    mine = shingles(run)
    found: set[str] = set()
    best, holder = 0, None
    for anchor, other in sorted(others.items()):
        hit = mine & shingles(phrase(other))
        found |= hit
        if len(hit) > best:
            best, holder = len(hit), anchor
    return holder if len(found) >= KEPT * len(mine) else None


def same_wording(x: frozenset[str], y: frozenset[str]) -> float:
    if not x and not y:
        return 1.0  # two empty provisions: nothing tells them apart, so not an amendment
    return len(x & y) / len(x | y)


def match(gone: dict[str, frozenset[str]], new: dict[str, frozenset[str]]) -> list[tuple[str, str, float]]:
    """Vanished/appeared anchors paired by wording, best pairs first, each anchor at most once."""
    scored = sorted(((same_wording(g, n), x, y) for x, g in gone.items() for y, n in new.items()),
                    key=lambda t: (-t[0], t[1], t[2]))
    used_x: set[str] = set()
    used_y: set[str] = set()
    pairs = []
    for score, x, y in scored:
        if score < SAME_WORDING:
            break
        if x in used_x or y in used_y:
            continue
        used_x.add(x)
        used_y.add(y)
        pairs.append((x, y, score))
    return pairs


def marks(bodies: list[bytes]) -> tuple[bool, bool]:
    """(amendment markers, deletion marks) in a version's evidence bodies (EUR-Lex consolidations)."""
    text = " ".join(b.decode("utf-8", "replace") for b in bodies)
    return bool(MARKER.search(text)), bool(DELETION.search(text))


def classify(report: Report, texts: dict[tuple[str, str, str], dict[str, str]],
             bodies: dict[tuple[str, str, str], list[bytes]] | None = None) -> None:
    """Each switch's anchors: renamed or regrouped (same wording: churn) or deleted/inserted (an amendment)."""
    for sw in report.switches:
        key_a = (sw.work, sw.language, sw.versions[0])
        key_b = (sw.work, sw.language, sw.versions[1])
        text_a, text_b = texts.get(key_a, {}), texts.get(key_b, {})
        gone = {x: words(text_a.get(x, "")) for x in sw.gone}
        new = {y: words(text_b.get(y, "")) for y in sw.new}
        pairs = match(gone, new)
        where = {"work": sw.work, "language": sw.language, "between": list(sw.between), "profiles": list(sw.profiles)}
        for x, y, score in pairs:
            report.renamed += 1
            if sw.gone[x] == sw.new[y]:
                report.moved += 1
            report.example(kind="renamed", **where, anchor=x, to=y, same_words=round(score, 3),
                           same_text=sw.gone[x] == sw.new[y])
        deleted = sorted(set(sw.gone) - {x for x, _, _ in pairs})
        inserted = sorted(set(sw.new) - {y for _, y, _ in pairs})
        # the wording kept whole inside another provision of the other version: a regrouping, not an amendment
        for kind, anchors, own, other in (("merged", deleted, text_a, text_b), ("split", inserted, text_b, text_a)):
            for anchor in list(anchors):
                holder = within(own.get(anchor, ""), {k: v for k, v in other.items() if k != anchor})
                if holder is not None:
                    anchors.remove(anchor)
                    report.regrouped += 1
                    report.example(kind=kind, **where, anchor=anchor, within=holder)
        if not deleted and not inserted:
            continue
        markers = deletions = None
        if bodies is not None:
            markers, deletions = marks(bodies.get(key_b, []))
        for kind, anchors, seen in (("deleted", deleted, deletions), ("inserted", inserted, markers)):
            for anchor in anchors:
                setattr(report, kind, getattr(report, kind) + 1)
                if seen:
                    report.confirmed += 1
                elif seen is not None:
                    report.unconfirmed += 1
                mine, theirs = (gone[anchor], new) if kind == "deleted" else (new[anchor], gone)
                best = max((same_wording(mine, w) for w in theirs.values()), default=0.0)
                report.amendments.append({"kind": kind, **where, "anchor": anchor, "best_same_words": round(best, 3),
                                          "evidence": "not read" if seen is None else
                                          ("deletion mark" if kind == "deleted" else "amendment markers")
                                          if seen else "no mark"})


def _read_switches(path: Path, report: Report, tree: Any = None) -> None:
    """Second pass: the wording of both versions at each switch (and the later versions' evidence)."""
    wanted = {(sw.work, sw.language, v) for sw in report.switches for v in sw.versions}
    later = {(sw.work, sw.language, sw.versions[1]) for sw in report.switches}
    quoted = {json.dumps(w) for w, _, _ in wanted}
    texts: dict[tuple[str, str, str], dict[str, str]] = {}
    evidence: dict[tuple[str, str, str], set[str]] = {}
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if not any(q in line for q in quoted):
                continue
            row = json.loads(line)
            key = (row["work_id"], row["language"], row["version_key"])
            if key not in wanted:
                continue
            texts.setdefault(key, {})[row["anchor"]] = row.get("text_md") or ""
            if key in later and row.get("evidence_sha256"):
                evidence.setdefault(key, set()).add(row["evidence_sha256"])
    bodies = None
    if tree is not None:
        bodies = {key: [tree.evidence.read(sha) for sha in sorted(shas)] for key, shas in evidence.items()}
    classify(report, texts, bodies)


def anchor_churn(dataset: str | Path, examples: int = 20, tree: Any = None) -> Report:
    """Churn of ``DATASET/provisions.jsonl``; ``tree`` (a ``CorpusTree``) lets amendments be confirmed."""
    report = Report(limit=examples)
    path = Path(dataset) / "provisions.jsonl"
    for work, rows in _works(path):
        check_work(work, rows, report)
    _read_switches(path, report, tree)
    return report


def main(argv: list[str]) -> int:
    as_json = "--json" in argv
    examples = 20
    args = [a for a in argv if a != "--json"]
    tree = None
    if "--tree" in args:
        i = args.index("--tree")
        from corpus_tree import CorpusTree

        tree = CorpusTree.open(args[i + 1])
        del args[i:i + 2]
    if "--examples" in args:
        i = args.index("--examples")
        examples = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    report = anchor_churn(args[0], examples, tree)
    if as_json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=1))
    else:
        d = report.to_dict()
        print(" ".join(f"{k}={d[k]}" for k in ("works", "works_mixing_profiles", "profile_switches", "renamed",
                                                 "flicker", "moved", "regrouped", "churn", "deleted", "inserted",
                                                 "amendments_confirmed", "amendments_unconfirmed",
                                                 "same_profile_renamed",
                                                 "same_profile_flicker", "same_profile_moved", "document_fallback")))
        for e in report.examples:
            print("  " + json.dumps(e, ensure_ascii=False))
        for e in report.amendments:
            print("  amendment " + json.dumps(e, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
