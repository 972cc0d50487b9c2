"""A text lint over a derived dataset: suspicious patterns in ``text_md``, counted per profile.

Each check names a way the publisher's wording can be damaged on its way to ``text_md``:

- ``empty_parentheses``: ``()`` — a reference (a footnote call, a link) dropped from inside
  its brackets ("… of the Council ()");
- ``glued_words``: a lower-case word or a capitalised run followed without a space by a
  capitalised word (``TECHNIQUESPartie``, ``annexeTableau``) — words of two elements glued at
  a tag boundary, which breaks search tokens (a Roman number with a Latin ordinal, ``XVIIIbis``,
  is one token); identifiers the publisher prints (``complexType`` in an XML schema) match too:
  ``scripts/lint_sources.py`` tells them apart by reading the publisher's bytes;
- ``markup_debris``: emphasis markers left around nothing (``** **``, `` ** .``, ``****``) — not
  emphasis the publisher put on punctuation (``**,**``) or on wording that starts with it
  (``**. In this case**``);
- ``embedded_binary``: a ``data:`` URI or a long base64 run stored as text;
- ``text_outside_anchor``: an article that carries what follows the last article of an act —
  the signature ("Done at Brussels", "Fait à …"), or an annex heading as a block of its own —
  i.e. text the publisher did not put inside that article's anchor.

The lint reads only ``provisions.jsonl``; it never changes the dataset and never fails a build.
Whether a hit is the publisher's own wording (a camel-case identifier in a quoted XML schema, a
call whose number the publisher left empty) is told by :func:`in_source` from the body's bytes;
``scripts/lint_sources.py DATASET --tree TREE`` classifies and lists every hit that way.
Its counts are what ``lex derive verify`` prints after the byte comparison, and what
``python -m derive.lint DATASET`` prints (``--json`` for the whole report).
"""

from __future__ import annotations

import html
import json
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

EXAMPLES = 5
SNIPPET = 60

_UPPER = "A-ZÀ-ÖØ-Þ"
_LOWER = "a-zß-öø-ÿ"
# a Roman number with a Latin ordinal (``XVIII<i>bis</i>``: section XVIIIbis) is one token, not two words
_LATIN = "bis|ter|quater|quinquies|sexies|septies|octies|nonies|decies"

CHECKS: dict[str, re.Pattern[str]] = {
    "empty_parentheses": re.compile(r"\(\s*\)"),
    "glued_words": re.compile(
        rf"(?<![\w+/])(?![IVXLC]+(?:{_LATIN})(?![{_UPPER}{_LOWER}]))"
        rf"(?:[{_LOWER}]{{3,}}|[{_UPPER}]{{4,}})[{_UPPER}][{_LOWER}]{{3,}}(?![\w+/])"
    ),
    "markup_debris": re.compile(
        r"(?:^|(?<=\s))(?:\*\*[ ]*\*\*|\*\*(?=[ ]+[.,;:)])|\*[ ]+\*)(?=\s|[.,;:)]|$)", re.M
    ),
    "embedded_binary": re.compile(r"data:[\w.+-]+/[\w.+-]+;base64,|[A-Za-z0-9+/]{200,}={0,2}"),
    "text_outside_anchor": re.compile(
        r"(?:^|\n\n)(?:\*\*)?(?:Done at [A-Z]|Fait à [A-Z]|Geschehen zu [A-Z]|(?:ANNEX|ANNEXE|ANHANG)(?: [IVXLC]+)?(?:\*\*)?\n)"
    ),
}


@dataclass
class CheckCount:
    provisions: int = 0
    hits: int = 0
    examples: list[dict[str, str]] = field(default_factory=list)


@dataclass
class LintReport:
    """Per profile, per check: provisions hit, total hits, a few examples."""

    provisions: dict[str, int] = field(default_factory=dict)
    counts: dict[str, dict[str, CheckCount]] = field(default_factory=dict)

    def add(self, row: dict[str, Any]) -> None:
        profile = row.get("profile") or "?"
        self.provisions[profile] = self.provisions.get(profile, 0) + 1
        text = row.get("text_md") or ""
        for name, pattern in CHECKS.items():
            if name == "text_outside_anchor" and row.get("type") != "article":
                continue
            hits = list(pattern.finditer(text))
            if not hits:
                continue
            count = self.counts.setdefault(profile, {}).setdefault(name, CheckCount())
            count.provisions += 1
            count.hits += len(hits)
            if len(count.examples) < EXAMPLES:
                at = hits[0].start()
                snippet = text[max(0, at - SNIPPET): at + SNIPPET].replace("\n", " ")
                count.examples.append({"provision_id": row.get("provision_id", ""), "text": snippet})

    def total(self, check: str) -> int:
        return sum(c[check].provisions for c in self.counts.values() if check in c)

    def to_dict(self) -> dict[str, Any]:
        return {
            "provisions": dict(sorted(self.provisions.items())),
            "checks": {
                profile: {name: {"provisions": c.provisions, "hits": c.hits, "examples": c.examples}
                          for name, c in sorted(checks.items())}
                for profile, checks in sorted(self.counts.items())
            },
        }

    def lines(self, examples: bool = True) -> list[str]:
        out = [f"text lint: {sum(self.provisions.values())} provisions, "
               + ", ".join(f"{name}={self.total(name)}" for name in CHECKS)]
        for profile, checks in sorted(self.counts.items()):
            for name, c in sorted(checks.items()):
                out.append(f"  {profile} {name}: {c.provisions} provisions ({c.hits} hits)")
                if examples:
                    out.extend(f"    {e['provision_id']}: …{e['text']}…" for e in c.examples[:2])
        return out


# -- is a hit in the publisher's own bytes? ------------------------------------------------------

_TAG = re.compile(r"<[^>]*>")
_IMAGE = re.compile(r"<(?:img|INCL\.ELEMENT)\b[^>]*>", re.IGNORECASE)
_SYMBOL = re.compile(r'<li\b[^>]*\bsymbol="([^"]*)"[^>]*>')
_WORD_BEFORE = re.compile(r"(\w+)[^\w(]{0,4}$")


def body_text(body: bytes, sep: str = "") -> str:
    """The text of a publisher body, roughly: tags removed (or replaced by ``sep``; an image ``IMG``),
    entities decoded, whitespace folded. Not a rendering — only what :func:`in_source` compares."""
    raw = body.decode("utf-8", "replace")
    return " ".join(html.unescape(_TAG.sub(sep, _IMAGE.sub(" IMG ", raw))).split())


def in_source(check: str, match: str, before: str, body: bytes, text: str | None = None) -> bool | None:
    """Whether a lint hit is the publisher's own wording, read from the body's bytes.

    - ``glued_words``: the glued run occurs verbatim in the bytes (inside one text node: a tag
      between the two words would break it), ``ministeriöHandels`` — the publisher's;
    - ``empty_parentheses``: the word before the parentheses is followed by ``()`` in the body's
      text (``<a href="#E0004">()</a>``: a call whose number the publisher left empty);
    - ``embedded_binary``: the run is in the body's text, not inside a tag (an ``img`` source);
    - ``markup_debris``: the publisher's only where the body prints asterisks right after the
      same wording (``Eterlou ** ****``, a list symbol ``scl:symbol="****"``);
      ``text_outside_anchor``: never the publisher's.

    ``None`` for a PDF body (its text layer is not in the bytes as text). ``text`` is
    :func:`body_text` of ``body`` when the caller has it already.
    """
    if body.startswith(b"%PDF") or body.startswith(b"PK"):
        return None
    if check == "glued_words":
        raw = body.decode("utf-8", "replace")
        return match in raw or match in html.unescape(raw)
    if check == "text_outside_anchor":
        return False
    if check == "markup_debris":
        # cells and paragraphs apart ("Triton crêté</p>…<p>Triturus"), a list item's printed
        # symbol (Legilux ``<li scl:symbol="****">``) where it stands
        text = body_text(_SYMBOL.sub(r" \1 ", body.decode("utf-8", "replace")).encode(), " ")
        # asterisks the publisher printed (``Eterlou ** ****``, a ``<i>**</i>`` protection grade)
        # next to the same wording; otherwise the markers are ours
        if "*" not in text:
            return False
        words = [w for w in re.sub(r"[*|\s]+", " ", before).split() if any(c.isalnum() for c in w)][-3:]
        if not words:
            return True
        near = r"[\s*]+".join(re.escape(w) for w in words) + r"\s*\*"
        return re.search(near, text) is not None
    text = body_text(body) if text is None else text
    if check == "empty_parentheses":
        word = _WORD_BEFORE.search(re.sub(r"[*_^]", "", before))
        if word is None:
            return bool(CHECKS[check].search(text))
        return re.search(re.escape(word.group(1)) + r"[^\w(]{0,6}\(\s*\)", text) is not None
    return match in text


def lint_rows(rows: Iterable[dict[str, Any]]) -> LintReport:
    report = LintReport()
    for row in rows:
        report.add(row)
    return report


def _rows(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def lint_dataset(dataset: str | Path) -> LintReport:
    """Lint ``<dataset>/provisions.jsonl`` (streamed; memory stays flat)."""
    return lint_rows(_rows(Path(dataset) / "provisions.jsonl"))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    as_json = "--json" in args
    paths = [a for a in args if a != "--json"]
    if len(paths) != 1:
        print("usage: python -m derive.lint DATASET [--json]", file=sys.stderr)
        return 2
    report = lint_dataset(paths[0])
    if as_json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=1, sort_keys=True))
    else:
        print("\n".join(report.lines()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
