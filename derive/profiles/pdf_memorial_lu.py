"""``pdf-memorial-lu/3``: one act cut out of a Mémorial gazette issue — only when it is safe.

A Mémorial issue (``format: pdf-memorial``) is a whole gazette issue: a table of contents and
several acts, original acts and *textes coordonnés*, sometimes in two languages. The version
record says which act and which state it stands for; this profile finds that act in the issue
and segments its articles, or refuses with a typed gap ``unsupported_manifestation`` and the
reason. It never takes text from another act, another date, or a table of contents.

The act (:class:`Act`, from the work slug ``<kind>-<yyyy>-<mm>-<dd>-…`` and the version):

1. **Located** by its heading: a line (with the next line, for wrapped headings) whose folded
   text (accents and case folded, everything but letters and digits dropped, so "T e x t e"
   and "Loidu25mars1991" still match) *starts* with the act's kind and date — ``Loi du 11
   juillet 1969``, ``Arrêté grand-ducal du 23 décembre 1909`` (day 1 is ``1er``) — outside the
   issue's table of contents (from ``Sommaire`` to its last dotted-leader or ``page N`` line).
   Exactly one such heading must be followed by an ``Art. 1er.``/``Art. 1.`` head within 60
   lines; none → "not named in a heading of this issue" (e.g. only listed inside a coordinated
   text of several acts); several → ambiguous. The lines between heading and first article are
   the *heading block* (enacting formula, "Vu …", "modifié par: …", "Texte coordonné").
2. **Kind**: a *texte coordonné* when "Texte coordonné" appears in the heading block, else the
   *original act*, which is taken only for the work's first version (a later state is not the
   original text).
3. **Dated**: the act's date, every date in the heading block (the amending acts a coordinated
   text names; "Texte coordonné du …" itself excluded) and every amendment marker in the
   articles (``(Loi du …)``, ``(Règl. g.-d. du …)``, ``(abrogé par … du …)``) must not be later
   than the version's ``valid_from``: a coordinated text that already includes a later
   amendment is not this version's text.
4. **Ended** after the last article at the first of: the closing formula ("Mandons et
   ordonnons", "Palais de Luxembourg", "Approuvé par le Conseil de Gouvernement", "Les Membres
   du Gouvernement", "Doc. parl."…), a section that is not an article ("Texte abrogé:",
   "Disposition additionnelle", "Annexe"…), another act's heading, a "Texte coordonné" heading,
   the printer's line, or the end of the issue. What follows the act up to the next act (the
   signatures) is left out; if that is more than 800 characters of text, or holds an annex,
   the act is refused (the annex could be part of it).
5. **Segmented** as ``pdf-lu/2`` does (``Art. 1 er.`` folded to ``art_1er``, paragraphs
   re-joined, hyphenation mended, page numbers dropped), heading always ``null`` (Mémorial
   article heads run straight into their text), with the same safety: no repeated anchor, no
   number going backwards (quoted amending text or several acts), first article 1/1er. Short
   unpunctuated lines right before an article head, after a finished sentence, are section
   headings (the articles' ``path``; a heading drawn twice in bold is read once);
   ``Art. 26, 27 et 28 (abrogés …)`` gives one provision per number with that text.
"""

from __future__ import annotations

import itertools
import re
import threading
import unicodedata
from collections import Counter, OrderedDict
from dataclasses import dataclass

from derive.limits import DEFAULT_LIMITS, Limits, body_sha256, check_size
from derive.model import Draft, ExtractionResult, Gap
from derive.profiles.pdf_lu import SUFFIXES, _fold, _pages, _paragraphs, too_little_text
from derive.render import Context, finish
from derive.text import collapse_ws
from legal.outcomes import TextGap

PROFILE = "pdf-memorial-lu/3"
MONTHS = ("janvier", "fevrier", "mars", "avril", "mai", "juin", "juillet", "aout", "septembre", "octobre",
          "novembre", "decembre")
KINDS = {  # slug kind → folded heading words
    "loi": "loi",
    "rgd": "reglementgrandducal",
    "agd": "arretegrandducal",
    "rmin": "reglementministeriel",
    "amin": "arreteministeriel",
    "rgc": "reglementdugouvernementenconseil",
    "agc": "arretedugouvernementenconseil",
}
_ANY_KIND = "|".join(sorted(set(KINDS.values()), key=len, reverse=True))
_ACT_HEADING = re.compile(rf"^(?:{_ANY_KIND})du\d")
_DATE = re.compile(rf"du(1er|\d{{1,2}})({'|'.join(MONTHS)})(\d{{4}})")
_LOOSE_DATE = re.compile(rf"(1er|\d{{1,2}})({'|'.join(MONTHS)})(\d{{4}})")
_COORDINATION_DATE = re.compile(rf"textecoordonnedu(?:1er|\d{{1,2}})(?:{'|'.join(MONTHS)})\d{{4}}")
_COORDINATED_PREFIX = re.compile(rf"^textecoordonne(?:du(?:1er|\d{{1,2}})(?:{'|'.join(MONTHS)})\d{{4}})?(?:dela|del|du|des)?")
_STARTS = re.compile(r"^(?:nous|avonsarrete|avonsordonne|arrete|arretent|legouvernementenconseil|textecoordonne"
                     r"|modifiep|modifieep|mem(?:a|\d))")
_HEAD = re.compile(rf"^Art\.?\s?(\d+(?:-\d+)*)\s?(er|{SUFFIXES})?\s?\.(?:\s+(.*))?$", re.IGNORECASE)
_SOMMAIRE_END = re.compile(r"(?:(?:\.\s?){3,}\s*(?:page\s*)?\d+|\bpage\s*\d+)$", re.IGNORECASE)
_MARKER = re.compile(r"\(([^()]{0,120})\)")
_CLOSING = ("mandonsetordonnons", "palaisdeluxembourg", "chateaudeberg", "approuveparleconseildegouvernement",
            "lesmembresdugouvernement", "docparl", "pourlegrandduc")
_SECTIONS = ("texteabroge", "dispositionadditionnelle", "dispositionstransitoires", "dispositiontransitoire",
             "dispositionfinale", "dispositionsfinales", "annexe")
_PRINTER = ("imprimerie",)
MAX_TRAILING = 800
MAX_HEADING_BLOCK = 60


@dataclass(frozen=True, slots=True)
class Act:
    """Which act and which state a Mémorial issue is asked for (from the version record)."""

    kind: str  # folded heading words, e.g. "arretegrandducal"
    date: str  # the act's date, yyyy-mm-dd
    valid_from: str  # the version's valid_from
    first_version: bool  # the work has no earlier version

    @classmethod
    def from_slug(cls, slug: str, valid_from: str, first_version: bool) -> Act | None:
        m = re.match(r"^([a-z]+)-(\d{4})-(\d{2})-(\d{2})(?:-|$)", slug)
        if not m or m.group(1) not in KINDS:
            return None
        return cls(KINDS[m.group(1)], f"{m.group(2)}-{m.group(3)}-{m.group(4)}", valid_from, first_version)

    @property
    def needle(self) -> str:
        year, month, day = self.date.split("-")
        return f"{self.kind}du{'1er' if day == '01' else str(int(day))}{MONTHS[int(month) - 1]}{year}"


_PAGES: OrderedDict[str, tuple[str, ...]] = OrderedDict()
_PAGES_CHARS = 6_000_000  # characters of page text kept (6–12 MB): every issue a whole LU build reuses
_PAGES_LOCK = threading.Lock()
_PAGES_HELD = [0]  # characters held in :data:`_PAGES`


def _issue_pages(data: bytes, sha: str) -> tuple[str, ...]:
    """The text layer of each page, remembered for the issues read last (least recently used
    first out, at most :data:`_PAGES_CHARS` characters, the newest issue always kept): one issue
    often stands for several acts (the 1969 issue for four works), the works citing one issue are
    far apart in a build's order (an issue is read again after up to 69 others, 5.7M characters,
    in the whole LU corpus), and parsing is most of this profile's time."""
    with _PAGES_LOCK:
        pages = _PAGES.get(sha)
        if pages is not None:
            _PAGES.move_to_end(sha)
            return pages
    pages = tuple(_pages(data, sha))
    with _PAGES_LOCK:
        if sha not in _PAGES:
            _PAGES[sha] = pages
            _PAGES_HELD[0] += _chars(pages)
        while len(_PAGES) > 1 and _PAGES_HELD[0] > _PAGES_CHARS:
            _PAGES_HELD[0] -= _chars(_PAGES.popitem(last=False)[1])
    return pages


def _chars(pages: tuple[str, ...]) -> int:
    return sum(map(len, pages))


class _Kept(dict[int, str | None]):
    """Code point → the character :func:`fold` keeps of it (a letter or digit that is not a
    combining mark), else ``None`` (``str.translate`` drops it); filled on first sight of each."""

    def __missing__(self, code: int) -> str | None:
        char = chr(code)
        kept = char if char.isalnum() and not unicodedata.combining(char) else None
        self[code] = kept
        return kept


_KEPT = _Kept()
_NOT_ASCII_ALNUM = re.compile(r"[^A-Za-z0-9]+")


def fold(text: str) -> str:
    """Lower case, accents removed, only letters and digits kept.

    Exactly ``"".join(c for c in NFKD(text) if c.isalnum() and not combining(c)).lower()``, in C:
    ASCII text (its own NFKD; its letters and digits are ``[A-Za-z0-9]``) by one regular
    expression, other text by ``str.translate`` through :data:`_KEPT`."""
    if text.isascii():
        return _NOT_ASCII_ALNUM.sub("", text).lower()
    return unicodedata.normalize("NFKD", text).translate(_KEPT).lower()


def _iso(match: re.Match[str]) -> str:
    day = 1 if match.group(1) == "1er" else int(match.group(1))
    return f"{match.group(3)}-{MONTHS.index(match.group(2)) + 1:02d}-{day:02d}"


@dataclass
class _Line:
    page: int
    text: str
    folded: str


def _furniture(pages: list[list[str]]) -> set[str]:
    """Running headers/footers: among the first 3 and last 2 lines of each page, those repeated
    (digits folded) on more than half of the pages (≥ 4 pages). Unlike ``pdf-lu/2``, a line in
    the middle of a page is never furniture: amendment markers repeat on many pages."""
    if len(pages) < 4:
        return set()
    seen: Counter[str] = Counter()
    for raw in pages:
        lines = [x for x in raw if collapse_ws(x)]
        seen.update({_fold(x) for x in lines[:3] + lines[-2:]})
    return {key for key, n in seen.items() if len(key) > 8 and n > len(pages) / 2}


_PAGE_NUMBER = re.compile(r"\d{1,5}")


def _lines(pages: list[list[str]]) -> list[_Line]:
    furniture = _furniture(pages)
    out = []
    for number, raw_lines in enumerate(pages, start=1):
        kept = [text for text in map(collapse_ws, raw_lines)
                if text and not (furniture and _fold(text) in furniture)]  # _fold folds the spaces itself
        for i, text in enumerate(kept):
            if (i == 0 or i == len(kept) - 1) and _PAGE_NUMBER.fullmatch(text):
                continue  # page number
            out.append(_Line(number, text, fold(text)))
    return out


def _sommaire(lines: list[_Line]) -> set[int]:
    """Indices of table-of-contents lines: from 'Sommaire' to its last leader/page line."""
    out: set[int] = set()
    for i, line in enumerate(lines):
        if line.folded != "sommaire":
            continue
        last = i
        for j in range(i + 1, min(i + 40, len(lines))):
            if lines[j].page != line.page:
                break
            if _SOMMAIRE_END.search(lines[j].text):
                last = j
        out.update(range(i, last + 1))
    return out


def _head(line: _Line) -> re.Match[str] | None:
    return _HEAD.match(line.text)


def _is_first_article(line: _Line) -> bool:
    head = _head(line)
    return head is not None and head.group(1) == "1" and (head.group(2) or "").lower() in ("", "er")


def _refuse(ctx: Context, notes: list[str], reason: str) -> ExtractionResult:
    return finish(ctx, [], notes, gap=Gap(TextGap.UNSUPPORTED_MANIFESTATION, f"Mémorial issue: {reason}"))


def _locate(lines: list[_Line], act: Act) -> list[int]:
    toc = _sommaire(lines)
    needle = act.needle  # once, not per line
    found = []
    for i, line in enumerate(lines):
        if i in toc or not line.folded:
            continue  # a line with no letter or digit (PDFium: an unmapped glyph "\x01") heads nothing
        joined = line.folded + (lines[i + 1].folded if i + 1 < len(lines) else "")
        if joined.startswith("textecoordonne"):  # "Texte coordonné du … de la loi du …" names the act
            joined = _COORDINATED_PREFIX.sub("", "".join(x.folded for x in lines[i:i + 3]), count=1)
        if not joined.startswith(needle):
            continue
        coordinated = line.folded.startswith("textecoordonne")
        for j in range(i + 1, min(i + 1 + MAX_HEADING_BLOCK, len(lines))):
            if _head(lines[j]):
                # a coordinated heading followed by other acts' headings is a table-of-contents entry
                if _is_first_article(lines[j]) and not (coordinated and any(
                        _is_boundary(lines, k) for k in range(i + 3, j))):
                    found.append(i)
                break
    return found


def _is_boundary(lines: list[_Line], i: int) -> bool:
    """Another act's heading or a 'Texte coordonné' heading starts here."""
    line = lines[i]
    if line.folded.startswith("textecoordonne"):
        return True
    if not (_ACT_HEADING.match(line.folded) and line.text[:1].isupper()):
        return False
    return any(_STARTS.match(w.folded) or _is_first_article(w) for w in lines[i + 1:i + 9])


def _end(lines: list[_Line], start: int) -> tuple[int, str, bool]:
    """Where the act ends after its first article, why, and whether text may follow (signatures…)."""
    for i in range(start + 1, len(lines)):
        folded = lines[i].folded
        if folded.startswith(_CLOSING):
            return i, "closing formula", True
        if folded.startswith(_SECTIONS) and len(lines[i].text) <= 60:
            return i, f"non-article section {lines[i].text!r}", True
        if folded.startswith(_PRINTER):
            return i, "the printer's line", False
        if _is_boundary(lines, i):
            return i, "the next document of the issue", False
    return len(lines), "the end of the issue", False


def _trailing(lines: list[_Line], end: int) -> list[_Line]:
    """What follows the act's end up to the next document of the issue (signatures, sections)."""
    out = []
    for i in range(end, len(lines)):
        if i > end and (_is_boundary(lines, i) or lines[i].folded.startswith(_PRINTER)):
            break
        out.append(lines[i])
    return out


def _late_dates(block: list[str], body: list[str], act: Act) -> list[str]:
    """Dates after the version's valid_from: in the heading block, and in the articles' amendment markers."""
    folded = _COORDINATION_DATE.sub("", fold(" ".join(block)))
    dates = [_iso(m) for m in _LOOSE_DATE.finditer(folded)]
    for marker in _MARKER.finditer(" ".join(body)):
        text = fold(marker.group(1))
        if text.startswith(("loi", "regl", "arr", "abrog", "art", "mod")):
            dates += [_iso(m) for m in _DATE.finditer(text)]
    return sorted({d for d in dates if d > act.valid_from})


def extract(data: bytes, *, language: str, act: Act, limits: Limits = DEFAULT_LIMITS,
            sha256: str | None = None) -> ExtractionResult:
    """``pdf-memorial-lu/3``: the articles of ``act`` in one Mémorial issue, or a typed gap."""
    sha = body_sha256(data, sha256)
    check_size(data, sha, limits)
    ctx = Context(PROFILE, language, sha, title_joiner=" ")
    pages = [text.splitlines() for text in _issue_pages(data, sha)]
    notes = [f"pages: {len(pages)}; act sought: {act.needle}"]
    if too_little_text(pages):
        return _refuse(ctx, notes, "PDF carries no extractable text layer (scanned image?)")
    if act.date > act.valid_from:
        return _refuse(ctx, notes, f"the version starts ({act.valid_from}) before the act's date ({act.date})")
    lines = _lines(pages)
    found = _locate(lines, act)
    if not found:
        return _refuse(ctx, notes, "the act is not named in a heading of this issue followed by its articles "
                                   "(listed only in a table of contents or inside a coordinated text of several "
                                   "acts?); no act is cut out of the issue")
    if len(found) > 1:
        return _refuse(ctx, notes, f"the act's heading occurs {len(found)} times followed by articles; ambiguous")
    heading = found[0]
    first = next(j for j in range(heading + 1, len(lines)) if _head(lines[j]))
    block = [line.text for line in lines[heading:first]]
    coordinated = "textecoordonne" in fold(" ".join(block[1:])) or lines[heading].folded.startswith("textecoordonne")
    notes.append(f"act heading on page {lines[heading].page}: {lines[heading].text!r}; "
                 f"{'texte coordonné' if coordinated else 'original act'}")
    if not coordinated and not act.first_version:
        return _refuse(ctx, notes, "the issue publishes the original act, and this is not the act's first version")
    end, end_reason, followed = _end(lines, first)
    body_lines = lines[first:end]
    late = _late_dates(block, [x.text for x in body_lines], act)
    if late:
        return _refuse(ctx, notes, f"the text includes amendments dated after this version's valid_from "
                                   f"{act.valid_from} ({', '.join(late[:3])}): not this version's text")
    trailing = _trailing(lines, end) if followed else []
    trailing_text = " ".join(x.text for x in trailing)
    notes.append(f"act ends at {end_reason} (page {lines[end].page if end < len(lines) else lines[-1].page}); "
                 f"{len(trailing_text)} characters after it left out")
    if any(x.folded.startswith("annexe") for x in trailing) or any(_head(x) for x in trailing):
        return _refuse(ctx, notes, "an annex or further articles follow the act's end; not segmented")
    if len(trailing_text) > MAX_TRAILING:
        return _refuse(ctx, notes, f"{len(trailing_text)} characters follow the act's end before the next document "
                                   "(an annex?); not segmented")
    drafts, keys = _articles(body_lines)
    reason = _unsafe(drafts, keys)
    if reason:
        return _refuse(ctx, notes, f"article segmentation not safe: {reason}")
    return finish(ctx, drafts, notes)


_MULTI_HEAD = re.compile(r"^Art\.?\s?(\d+)((?:\s?,\s?\d+)*)\s+et\s+(\d+)\b\s*(.*)$", re.IGNORECASE)
_FINISHED = (".", ";", ":", "»", ")", "!", "?")  # a line that ends a sentence
_NOT_HEADING = (".", ";", ":", ",", "!", "?")  # a heading line never ends so
_MARKER_LINE = re.compile(r"^\([^()]{1,78}\)$")


def _undouble(text: str) -> str:
    """Bold text drawn twice comes out of the text layer twice: ``"TitreTitre"`` → ``"Titre"``."""
    half = len(text) // 2
    return text[:half] if len(text) % 2 == 0 and half and text[:half] == text[half:] else text


def _is_head(line: _Line) -> bool:
    return _head(line) is not None or _MULTI_HEAD.match(line.text) is not None


def _heading_like(text: str) -> bool:
    if _MARKER_LINE.match(text):
        return True
    bare = text.rstrip("»").rstrip()
    return len(text) <= 100 and not bare.endswith(_NOT_HEADING) and (text[:1].isupper() or text[:1] == "«")


def _section_headings(lines: list[_Line]) -> dict[int, str]:
    """Short unpunctuated lines just before an article head, after a finished sentence: headings.

    An amendment marker line (``(Règl. g.-d. du 26 avril 1987)``) joins the heading after it.
    Returns the first line of each heading → its label; the other lines of the run map to ``""``.
    """
    out: dict[int, str] = {}
    for k, line in enumerate(lines):
        if not _is_head(line):
            continue
        run: list[int] = []
        j = k - 1
        while j > 0 and len(run) < 4 and not _is_head(lines[j]) and _heading_like(lines[j].text):
            run.insert(0, j)
            j -= 1
        if not run or not (_is_head(lines[j]) or lines[j].text.endswith(_FINISHED)):
            continue
        labels: list[tuple[int, str]] = []
        marker: list[str] = []
        for i in run:
            text = _undouble(lines[i].text)
            if _MARKER_LINE.match(text):
                marker.append(text)
                continue
            labels.append((i, " ".join([*marker, text])))
            marker = []
        if labels and not marker:
            out.update({i: "" for i in run})
            out.update(dict(labels))
    return out


def _articles(lines: list[_Line]) -> tuple[list[Draft], list[tuple[int, ...]]]:
    drafts: list[Draft] = []
    keys: list[tuple[int, ...]] = []
    texts: list[list[str]] = []
    pages: list[list[int]] = []
    headings = _section_headings(lines)
    path: list[str] = []
    pending: list[str] = []

    def open_article(number: str, suffix: str, rest: str | None, page: int) -> None:
        nonlocal path, pending
        if pending:
            path, pending = pending, []
        anchor = number + suffix
        drafts.append(Draft(anchor=f"art_{anchor}", type="article", num=f"Art. {anchor}.", heading=None,
                            path=tuple(path), body=""))
        rank = ["", "er", *SUFFIXES.split("|")].index(suffix)
        keys.append((*(int(x) for x in number.split("-")), rank))
        texts.append([rest] if rest else [])
        pages.append([page])

    for i, line in enumerate(lines):
        head, multi = _head(line), _MULTI_HEAD.match(line.text)
        if i in headings:
            if headings[i]:
                pending.append(headings[i])
        elif head:
            open_article(head.group(1), (head.group(2) or "").lower(), head.group(3), line.page)
        elif multi:  # "Art. 26, 27 et 28 (abrogés par …)": one provision per number, the same text
            numbers = [multi.group(1), *re.findall(r"\d+", multi.group(2)), multi.group(3)]
            for number in numbers:
                open_article(number, "", multi.group(4) or None, line.page)
        elif drafts:
            texts[-1].append(line.text)
            pages[-1].append(line.page)
    for draft, body, seen in zip(drafts, texts, pages, strict=True):
        draft.body = _paragraphs(body)
        draft.pages = (min(seen), max(seen))
    return drafts, keys


def _unsafe(drafts: list[Draft], keys: list[tuple[int, ...]]) -> str | None:
    if not drafts:
        return "no article"
    if drafts[0].anchor not in ("art_1", "art_1er"):
        return f"the first article is {drafts[0].anchor}, not 1/1er"
    anchors = [d.anchor for d in drafts]
    repeated = sorted({a for a in anchors if anchors.count(a) > 1})
    if repeated:
        return f"article heads repeat ({', '.join(repeated[:5])}): quoted amending text or several acts"
    if any(after <= before for before, after in itertools.pairwise(keys)):
        return "article numbers go backwards: quoted amending text or several acts"
    return None
