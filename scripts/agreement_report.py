"""Agreement between our provisions and the reference's derived records (``lex-articles``).

For every reference version file in ``../shared/fixtures/lex-articles`` whose source body is in
the fixtures (found by its sha256), derive the same body with our dispatcher and compare:

- anchor-set agreement per version: |ours ∩ theirs| / |ours ∪ theirs| (target ≥ 98 %);
- text agreement on common anchors: equal ``text_sha256``;
- every difference classified ``ours right`` / ``theirs right`` / ``unclear`` with a reason,
  using checks against the body itself: words only the reference has that sit inside ``<del>``
  (struck-through repealed wording), words only we have that the body really contains (text the
  reference lost), list items the reference glued, the publisher's list symbols, etc.

Usage: ``python scripts/agreement_report.py [--fixtures DIR] [--out docs/agreement-report.md]``.
The output is deterministic (no clock), so it can be committed and regenerated.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lxml import etree  # noqa: E402

from derive.dispatch import derive_body  # noqa: E402
from derive.model import ExtractionResult  # noqa: E402
from derive.profiles.pdf_memorial_lu import Act  # noqa: E402
from derive.text import collapse_ws  # noqa: E402

WORD = re.compile(r"\w+", re.UNICODE)
OURS, THEIRS, UNCLEAR = "ours right", "theirs right", "unclear"


@dataclass
class Diff:
    work: str
    version: str
    lang: str
    anchor: str
    verdict: str
    reason: str
    sample: str = ""


@dataclass
class VersionRow:
    work: str
    version: str
    lang: str
    their_profile: str
    our_profile: str
    theirs: int
    ours: int
    common: int
    union: int
    texts_equal: int
    diffs: list[Diff] = field(default_factory=list)


def words(text: str) -> list[str]:
    return WORD.findall(text.replace("**", " ").replace("*", " "))


def body_index(fixtures: Path) -> dict[str, tuple[Path, str | None]]:
    """sha256 → (body path, observation format) over both fixture corpora."""
    index: dict[str, tuple[Path, str | None]] = {}
    for corpus in ("lex-corpus-lu-legilux", "lex-corpus-eu-eurlex"):
        for meta in sorted((fixtures / corpus / "works").glob("*/versions/*/meta.json")):
            record = json.loads(meta.read_bytes())
            for expr in record.get("expressions", []):
                for obs in expr.get("observations", []):
                    path = meta.parent / obs["file"]
                    if path.is_file():
                        index[obs["sha256"]] = (path, obs.get("format"))
    return index


def first_valid_from(fixtures: Path) -> dict[str, str]:
    """Earliest ``valid_from`` of each Legilux fixture work (a Mémorial original is its first state)."""
    out: dict[str, str] = {}
    for meta in sorted((fixtures / "lex-corpus-lu-legilux" / "works").glob("*/versions/*/meta.json")):
        slug, valid_from = meta.parts[-4], json.loads(meta.read_bytes())["valid_from"]
        out[slug] = min(out.get(slug, valid_from), valid_from)
    return out


def pdf_text(body: bytes) -> str:
    """The collapsed text layer of a PDF body ("" for other bodies)."""
    if not body.startswith(b"%PDF"):
        return ""
    import io

    from pypdf import PdfReader

    return collapse_ws(" ".join(page.extract_text() or "" for page in PdfReader(io.BytesIO(body)).pages))


def deleted_words(body: bytes) -> set[str]:
    if b"akomaNtoso" not in body[:4096]:
        return set()
    root = etree.fromstring(body, parser=etree.XMLParser(resolve_entities=False, no_network=True))
    out: set[str] = set()
    for el in root.iter("{*}del"):
        pieces = [t for t in el.itertext() if isinstance(t, str)]
        out.update(words("".join(pieces)))
        out.update(words(" ".join(pieces)))
    return out


def body_words(body: bytes) -> set[str]:
    """Words of the body's text and attribute values (list symbols such as ``a)`` live there)."""
    raw = body.decode("utf-8", "replace")
    text = re.sub(r"<[^>]+>", " ", raw)
    attributes = " ".join(re.findall(r'="([^"]*)"', raw))
    return set(words(text.replace("&nbsp;", " "))) | set(words(text.replace("&nbsp;", ""))) | set(words(attributes))


COUNTER = re.compile(r"\d+|[a-z]|[ivxlcdm]+")


def classify_pdf_text(ours: str, theirs: str, heading: str | None) -> tuple[str, str] | None:
    """PDF profiles: the reference cuts the head line's text off as a heading, and runs a Mémorial
    act's last article into what follows it in the issue."""
    ow, tw = words(ours), words(((heading or "") + " " + theirs).strip())
    if ow == tw and heading:
        return OURS, "same wording; the reference cuts the first line of the article's text off as its heading"
    if heading and tw[:len(ow)] == ow and len(tw) > len(ow):
        return OURS, ("the reference runs the act's last article past its closing formula (signatures and the "
                      "next document of the Mémorial issue)")
    return None


def classify_text(ours: str, theirs: str, dels: set[str], source: set[str], symbols: bool) -> tuple[str, str]:
    ow, tw = words(ours), words(theirs)
    if ow != tw and symbols and [w for w in ow if not COUNTER.fullmatch(w)] == [w for w in tw if not COUNTER.fullmatch(w)]:
        return OURS, "same wording; list numbering differs: we apply the publisher's list symbol (scl:symbol 1°, a)), " \
                     "the reference counts 1., 2."
    if symbols:
        ow = [w for w in ow if not COUNTER.fullmatch(w)]
        tw = [w for w in tw if not COUNTER.fullmatch(w)]
    if ow == tw:
        if ours.count("\n\n") > theirs.count("\n\n"):
            return OURS, "same wording; the reference glues list items/blocks that the publisher separates"
        if re.search(r"\d°", ours) and not re.search(r"\d°", theirs):
            return OURS, "same wording; we keep the publisher's list symbols (1°, a)) where the reference counts 1."
        return UNCLEAR, "same wording; presentation differs (emphasis, markers or spacing)"
    extra_theirs = Counter(tw) - Counter(ow)
    extra_ours = Counter(ow) - Counter(tw)
    theirs_del = bool(extra_theirs) and set(extra_theirs) <= dels
    ours_real = bool(extra_ours) and set(extra_ours) <= source
    if extra_theirs and not extra_ours and theirs_del:
        return OURS, "the reference keeps struck-through <del> text (repealed wording)"
    if extra_ours and not extra_theirs and ours_real:
        return OURS, "the reference drops text the body contains (list/inline text loss)"
    if theirs_del and ours_real:
        return OURS, "the reference keeps <del> text and drops current text"
    if extra_ours and not set(extra_ours) <= source:
        return THEIRS, "we render words that are not in the body (investigate)"
    if extra_theirs and not extra_ours and set(extra_theirs) <= source:
        if all(re.fullmatch(r"[MBCA]\d*|\d+", w) for w in extra_theirs):
            return OURS, "the reference keeps amendment markers (►M1 …) or note calls as text"
        return UNCLEAR, "the reference has body words we do not render"
    return UNCLEAR, "both sides have words the other lacks"


NOT_COMPARABLE = "not comparable"


def after_the_act(their_text: str, ours: ExtractionResult, layer: str) -> bool:
    """The reference's provision text sits in the issue after the end of the act we cut out."""
    if not layer or not ours.provisions:
        return False
    end = layer.find(ours.provisions[-1].text_md[-40:])
    start = layer.find(collapse_ws(their_text)[:40])
    return end >= 0 and start > end


def classify_anchor(anchor: str, side: str, ours: ExtractionResult, their: dict[str, Any],
                    layer: str = "") -> tuple[str, str]:
    if side == "theirs" and ours.profile == "pdf-memorial-lu/2" and ours.provisions:
        provision = next(p for p in their["provisions"] if p["anchor"] == anchor)
        if after_the_act(((provision["heading"] or "") + " " + provision["text_md"]).strip(), ours, layer):
            return OURS, ("an article of another document of the Mémorial issue (after the act's closing formula); "
                          "the reference glues it to the act")
    if side == "theirs" and not ours.provisions and ours.gap is not None:
        return NOT_COMPARABLE, (f"we return a typed gap ({ours.gap.gap.value}: {ours.gap.reason}); the reference "
                                f"derived it with {their['generator']['profile']}")
    if side == "theirs" and anchor == "document" and ours.provisions:
        return OURS, "the publisher marks whole-paragraph article headings; we keep article boundaries"
    if side == "ours" and any(p["anchor"] == "document" for p in their["provisions"]):
        return OURS, "article found where the reference fell back to one document provision"
    return UNCLEAR, f"anchor only in {side}"


def compare(work: str, version: str, their: dict[str, Any], body: bytes, fmt: str | None,
            first: str | None = None) -> VersionRow:
    act = Act.from_slug(work, their["valid_from"], first is None or their["valid_from"] <= first) \
        if fmt == "pdf-memorial" else None
    result = derive_body(body, language=their["language"], fmt=fmt, act=act)
    layer = pdf_text(body)
    mine = {p.anchor: p for p in result.provisions}
    theirs = {p["anchor"]: p for p in their["provisions"]}
    common = sorted(set(mine) & set(theirs))
    row = VersionRow(work, version, their["language"], their["generator"]["profile"], result.profile,
                     len(theirs), len(mine), len(common), len(set(mine) | set(theirs)), 0)
    dels, source = deleted_words(body), body_words(body)
    for anchor in common:
        if mine[anchor].text_sha256 == theirs[anchor]["text_sha256"]:
            row.texts_equal += 1
            continue
        pdf = classify_pdf_text(mine[anchor].text_md, theirs[anchor]["text_md"], theirs[anchor]["heading"]) \
            if layer else None
        verdict, reason = pdf or classify_text(mine[anchor].text_md, theirs[anchor]["text_md"], dels, source,
                                               b"scl:symbol" in body)
        row.diffs.append(Diff(work, version, row.lang, anchor, verdict, reason, _sample(mine[anchor].text_md,
                                                                                          theirs[anchor]["text_md"])))
    for side, anchors in (("theirs", set(theirs) - set(mine)), ("ours", set(mine) - set(theirs))):
        for anchor in sorted(anchors):
            verdict, reason = classify_anchor(anchor, side, result, their, layer)
            row.diffs.append(Diff(work, version, row.lang, anchor, verdict, f"anchor only in {side}: {reason}"))
    return row


def _sample(ours: str, theirs: str) -> str:
    i = next((k for k, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b), min(len(ours), len(theirs)))
    start = max(0, i - 40)
    return f"ours …{ours[start:i + 60]!r}… / theirs …{theirs[start:i + 60]!r}…"


def collect(fixtures: Path) -> tuple[list[VersionRow], list[str]]:
    index = body_index(fixtures)
    firsts = first_valid_from(fixtures)
    rows, skipped = [], []
    for path in sorted((fixtures / "lex-articles").glob("*/works/*/versions/*/*.json")):
        their = json.loads(path.read_bytes())
        work, version = path.parts[-4], path.parts[-2]
        found = index.get(their["derived_from"]["sha256"])
        if found is None:
            skipped.append(f"{work} {version} {their['language']}: body {their['derived_from']['sha256'][:12]}… "
                           "not in the fixtures")
            continue
        rows.append(compare(work, version, their, found[0].read_bytes(), found[1], firsts.get(work)))
    return rows, skipped


def render(rows: list[VersionRow], skipped: list[str]) -> str:
    inter = sum(r.common for r in rows)
    union = sum(r.union for r in rows)
    comparable = [r for r in rows if r.ours]
    c_inter, c_union = sum(r.common for r in comparable), sum(r.union for r in comparable)
    mean = sum(r.common / max(r.union, 1) for r in comparable) / max(len(comparable), 1)
    equal_sets = sum(1 for r in rows if r.common == r.union)
    texts = sum(r.texts_equal for r in rows)
    diffs = [d for r in rows for d in r.diffs]
    verdicts = Counter(d.verdict for d in diffs)
    reasons = Counter((d.verdict, d.reason) for d in diffs)
    out = ["# Agreement report: our provisions vs the reference's derived records", "",
           "Generated by `python scripts/agreement_report.py` (deterministic; regenerate, do not edit).",
           "Reference: `../shared/fixtures/lex-articles` (lex-articles/1, an older generation of the C#",
           "reference). Our side: `derive.dispatch.derive_body` over the very same body bytes (matched",
           "by sha256). The reference is known to keep `<del>` text, to drop some list text and to glue",
           "list items, so a text difference is not by itself our error: each one is classified below.",
           "PDF differences are checked against the body's text layer; for a Mémorial issue the act is cut",
           "out by both sides with `pdf-memorial-lu/1` (ours: docs/derive.md §1), and an anchor only the",
           "reference has is ours-right only when its text sits in the issue after the end of our act.", "",
           "## Summary", "",
           f"- versions compared: {len(rows)} ({len(skipped)} reference files skipped: body not in the fixtures)",
           f"- anchor-set agreement (pooled |∩|/|∪|): **{100 * inter / union:.2f} %** ({inter}/{union}); "
           f"versions with identical anchor sets: {equal_sets}/{len(rows)}",
           f"- anchor-set agreement where we derive text (excluding the {len(rows) - len(comparable)} version(s) we "
           f"return as a typed gap by design): **{100 * c_inter / c_union:.2f} %** pooled ({c_inter}/{c_union}), "
           f"{100 * mean:.2f} % mean per version",
           f"- text agreement on common anchors (equal text_sha256): **{100 * texts / inter:.2f} %** ({texts}/{inter})",
           f"- differences: {len(diffs)} — ours right {verdicts[OURS]}, theirs right {verdicts[THEIRS]}, "
           f"unclear {verdicts[UNCLEAR]}", "",
           "## Differences by class", "", "| verdict | reason | count |", "| --- | --- | --- |"]
    out += [f"| {v} | {r} | {n} |" for (v, r), n in sorted(reasons.items(), key=lambda x: (-x[1], x[0]))]
    out += ["", "## Per version", "",
            "| work | version | lang | profile (theirs → ours) | anchors theirs/ours/common | anchor agreement | "
            "texts equal | ours right | theirs right | unclear |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        c = Counter(d.verdict for d in r.diffs)
        out.append(f"| {r.work} | {r.version} | {r.lang} | {r.their_profile} → {r.our_profile} | "
                   f"{r.theirs}/{r.ours}/{r.common} | {100 * r.common / max(r.union, 1):.1f} % | "
                   f"{r.texts_equal}/{r.common} | {c[OURS]} | {c[THEIRS]} | {c[UNCLEAR]} |")
    out += ["", "## Every difference that is not ours-right", ""]
    rest = [d for d in diffs if d.verdict != OURS]
    out += [f"- `{d.work}` {d.version} {d.lang} `{d.anchor}` — **{d.verdict}**: {d.reason}"
            + (f"<br>{d.sample}" if d.sample else "") for d in rest] or ["(none)"]
    out += ["", "## One example per ours-right reason", ""]
    seen: set[str] = set()
    for d in diffs:
        if d.verdict == OURS and d.reason not in seen:
            seen.add(d.reason)
            out.append(f"- `{d.work}` {d.version} {d.lang} `{d.anchor}`: {d.reason}" + (f"<br>{d.sample}" if d.sample else ""))
    if skipped:
        out += ["", "## Skipped (body not in the fixtures)", ""] + [f"- {s}" for s in skipped]
    return "\n".join(out) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fixtures", type=Path,
                        default=Path(os.environ.get("LEX_FIXTURES", ROOT.parent / "shared" / "fixtures")))
    parser.add_argument("--out", type=Path, default=None, help="write the Markdown report here (default stdout)")
    args = parser.parse_args()
    rows, skipped = collect(args.fixtures.resolve())
    text = render(rows, skipped)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
