"""Anchor churn: anchors that come and go between a work's versions with no change of wording.

    python scripts/anchor_churn.py DATASET [--json] [--examples N]

Reads ``DATASET/provisions.jsonl`` (sorted by work, so one work is held at a time). For each
work and language, the derived versions in valid-time order are compared pairwise, and what
happens **where the profile changes** (XHTML ↔ Formex ↔ HTML: the manifestation, not the law)
is churn:

- ``renamed``: anchors that vanish while others appear — ``min(vanished, appeared)`` per pair:
  the same provision under another anchor (``anx_I`` → ``anx_i``, ``annexe_xiv`` → ``anx_XIV``);
- ``flicker``: an anchor present in the versions before and after but absent in between, the
  middle version derived by another profile than a neighbour (an appendix that appears, vanishes
  and reappears);
- ``moved``: an anchor that vanishes while one that appears carries exactly its (non-empty) text.

``churn`` is their sum; the target is 0. The same counts between versions of *one* profile are
reported apart (``same_profile_*``): there the publisher's own ids changed (Legilux mints dated
ids such as ``art_10_20090316``; a Cellar id cut short) and the wording may too. Not churn either,
``document_fallback``: a switch to or from a single ``document`` provision (a page without article
structure, e.g. an HTML stub while the Formex member holds the articles). Exit status 0 either
way (this measures; the benchmark decides).
"""

from __future__ import annotations

import itertools
import json
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
class Report:
    works: int = 0
    works_mixing_profiles: int = 0
    profile_switches: int = 0
    renamed: int = 0
    flicker: int = 0
    moved: int = 0
    same_profile_renamed: int = 0
    same_profile_flicker: int = 0
    same_profile_moved: int = 0
    document_fallback: int = 0
    examples: list[dict[str, Any]] = field(default_factory=list)
    limit: int = 20

    @property
    def churn(self) -> int:
        return self.renamed + self.flicker + self.moved

    def example(self, **item: Any) -> None:
        if len(self.examples) < self.limit:
            self.examples.append(item)

    def to_dict(self) -> dict[str, Any]:
        return {"works": self.works, "works_mixing_profiles": self.works_mixing_profiles,
                "profile_switches": self.profile_switches, "renamed": self.renamed, "flicker": self.flicker,
                "moved": self.moved, "churn": self.churn, "same_profile_renamed": self.same_profile_renamed,
                "same_profile_flicker": self.same_profile_flicker, "same_profile_moved": self.same_profile_moved,
                "document_fallback": self.document_fallback,
                "examples": self.examples}


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
            n = min(len(gone), len(new))
            if n and switch:
                report.renamed += n
                report.example(kind="renamed", work=work, language=lang, between=[a.valid_from, b.valid_from],
                               profiles=[a.profile, b.profile], vanished=sorted(gone)[:5], appeared=sorted(new)[:5])
            elif n:
                report.same_profile_renamed += n
            by_text = {b.texts[x]: x for x in new if b.texts[x] != EMPTY}
            for anchor in sorted(gone):
                if a.texts[anchor] in by_text:
                    if switch:
                        report.moved += 1
                        report.example(kind="moved", work=work, language=lang, between=[a.valid_from, b.valid_from],
                                       anchor=anchor, to=by_text[a.texts[anchor]], profiles=[a.profile, b.profile])
                    else:
                        report.same_profile_moved += 1
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


def anchor_churn(dataset: str | Path, examples: int = 20) -> Report:
    report = Report(limit=examples)
    for work, rows in _works(Path(dataset) / "provisions.jsonl"):
        check_work(work, rows, report)
    return report


def main(argv: list[str]) -> int:
    as_json = "--json" in argv
    examples = 20
    args = [a for a in argv if a != "--json"]
    if "--examples" in args:
        i = args.index("--examples")
        examples = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    report = anchor_churn(args[0], examples)
    if as_json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=1))
    else:
        d = report.to_dict()
        print(" ".join(f"{k}={d[k]}" for k in ("works", "works_mixing_profiles", "profile_switches", "renamed",
                                                 "flicker", "moved", "churn", "same_profile_renamed",
                                                 "same_profile_flicker", "same_profile_moved", "document_fallback")))
        for e in report.examples:
            print("  " + json.dumps(e, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
