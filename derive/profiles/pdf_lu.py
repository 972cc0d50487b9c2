"""``pdf-lu/2``: born-digital Legilux consolidated PDFs (``format: pdf``), text layer via PDFium.

``pdf-lu/1`` read the text layer with pypdf (pure Python, ~14x slower); ``pdf-lu/2`` reads it
with PDFium and normalises it (:func:`_tidy`) so that segmentation is the same; the differences
in extracted provisions are listed in ``docs/pdf-engine-report.md``.

Text is never invented: when the PDF has no text layer, when it is a whole Mémorial gazette
issue (several acts, ``format: pdf-memorial``), or when article segmentation is not safe
(no ``Art. N.`` heads, repeated anchors, numbers going backwards — signs of quoted amending
text or of several acts), the result is a typed gap ``unsupported_manifestation`` with the
reason, and no provision.

Segmentation: lines repeated on more than half of the pages (≥ 4 pages; digits folded) are page
furniture and dropped; ``Art. 1er.``/``Art. 13bis.``/``Art. 7-1.`` at the start of a line opens
an article (anchor ``art_1er``…, num ``Art. 1er.``; text after the head is the heading when
short); ``Livre|Partie|Titre|Chapitre|Section <n> : <title>`` lines set the path; text before
the first head is front matter. Lines are re-joined into paragraphs: a line opening with an
enumeration (``(1)``, ``1°``, ``a)``, ``-``) starts a block, other lines continue the previous
one. Each provision records the PDF pages it came from.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from derive.limits import DEFAULT_LIMITS, Limits, body_sha256, check_size
from derive.model import Draft, ExtractionResult, Gap
from derive.render import Context, finish
from derive.text import collapse_ws
from legal.errors import DerivationError
from legal.outcomes import TextGap

PROFILE = "pdf-lu/2"
MAX_PAGES = 5000
SUFFIXES = "bis|ter|quater|quinquies|sexies|septies|octies|novies|decies"
_HEAD = re.compile(rf"^Art\.\s?(\d+(?:-\d+)*)(er|{SUFFIXES})?\.(?:\s+(.*))?$", re.IGNORECASE)
_CONTAINER = re.compile(
    r"^(Livre|Partie|Titre|Chapitre|Section)\s+([IVXLCDM]+|\d+)(?:er|re|e)?\.?\s*[-–—:]\s*(\S.*)$"
)
LEVELS = {"Livre": 0, "Partie": 0, "Titre": 1, "Chapitre": 2, "Section": 3}
_BLOCK_START = re.compile(r"^(\(\d+[a-z]*\)|\d+°|[a-z]\)|\d+\)|[-–•]\s|\([a-z]+\)\s|[IVX]+\.\s)")
_SUFFIX_RANK = {s: i for i, s in enumerate(["", "er", *SUFFIXES.split("|")])}


def _pages(data: bytes, sha: str) -> list[str]:
    """The text layer of each page, read with PDFium (``pypdfium2``) and normalised (:func:`_tidy`)."""
    import pypdfium2 as pdfium

    try:
        doc = pdfium.PdfDocument(data)
    except (pdfium.PdfiumError, ValueError, OSError) as exc:
        raise DerivationError(f"unreadable PDF: {exc}", code="malformed_pdf", subject=sha) from None
    try:
        count = len(doc)
        if count > MAX_PAGES:
            raise DerivationError(f"PDF has {count} pages (bound {MAX_PAGES})", code="body_too_large", subject=sha)
        return [_tidy(_page_text(doc, index, sha)) for index in range(count)]
    finally:
        doc.close()


def _page_text(doc: Any, index: int, sha: str) -> str:
    import pypdfium2 as pdfium

    try:
        page = doc[index]
    except (pdfium.PdfiumError, ValueError, OSError) as exc:
        raise DerivationError(f"unreadable PDF page {index + 1}: {exc}", code="malformed_pdf", subject=sha) from None
    try:
        textpage = page.get_textpage()
        try:
            return str(textpage.get_text_range())
        finally:
            textpage.close()
    except (pdfium.PdfiumError, ValueError, OSError) as exc:
        raise DerivationError(f"unreadable PDF page {index + 1}: {exc}", code="malformed_pdf", subject=sha) from None
    finally:
        page.close()


# PDFium's text differs from the layout-free reading the segmentation was written for in six
# ways, undone here: CRLF line ends; U+FFFE marks a soft hyphen at a line end (read as "-", so
# the paragraph join glues the word back); a line break before punctuation that follows a
# superscript ("1er" + "\n." → "1er."); a space before the superscript of "1er"/"1re"
# or line break ("paragraphe 1 er", "1\\ner" → "1er"); and a line-initial enumeration glued to its word
# ("1°le" → "1° le"), as is a line-initial article head glued to its text ("Art. 22.A défaut").
#
# Each pattern opens with literal characters, so that the engine skips along the text to the
# next place they occur instead of trying the pattern at every position (or at every space):
# the superscript join is ``(?<=\b\d)[ \n](?=(?:er|re)\b)`` split into its four literal
# openings (removing one such space never makes or unmakes another: each needs a digit before
# its own space); the two line-initial fixes are ``^``-anchored patterns (tried at every
# position) written as one pattern opening with the line break before them (their lines cannot
# overlap: one opens with a digit, the other with "Art"), the first line matched on its own.
_JOIN_PUNCT = re.compile(r"\n(?=[.,;:](?:[ \n]|$))")
_SUPERSCRIPTS = tuple((re.compile(rf"{gap}{sup}(?<=\b\d{gap}{sup})\b"), sup)
                      for gap in (" ", "\n") for sup in ("er", "re"))
_LINE_GLUED = rf"(?:(\d+°)(?=[^\s\d°])|(?i:(Art\.\s?\d+(?:-\d+)*(?:er|{SUFFIXES})?\.)(?=[^\W\d_])))"
_GLUED_AFTER_BREAK = re.compile(r"\n" + _LINE_GLUED)
_GLUED_AT_START = re.compile(_LINE_GLUED)


def _join_superscripts(text: str) -> str:
    r"""``(?<=\b\d)[ \n](?=(?:er|re)\b)`` removed, by its four literal openings."""
    for pattern, superscript in _SUPERSCRIPTS:
        text = pattern.sub(superscript, text)
    return text


def _unglue_line_starts(text: str) -> str:
    """A space after a line-initial ``N°`` or ``Art. N.`` glued to its text (``^`` of every line)."""
    text = _GLUED_AFTER_BREAK.sub(r"\n\1\2 ", text)
    first = _GLUED_AT_START.match(text)
    if first is None:
        return text
    return first.expand(r"\1\2 ") + text[first.end():]


def _tidy(text: str) -> str:
    """PDFium's text of one page as the segmentation reads it (the six fixes above)."""
    text = text.replace("\r\n", "\n")
    if "\r" in text:
        text = text.replace("\r", "\n")
    if "\ufffe" in text:
        text = text.replace("\ufffe", "-")
    return _unglue_line_starts(_join_superscripts(_JOIN_PUNCT.sub("", text)))


def _furniture(pages: list[list[str]], folds: list[list[str]] | None = None) -> set[str]:
    """Lines (digits folded: :func:`_fold`, given per page as ``folds`` when the caller has them)
    on more than half of the pages (≥ 4 pages)."""
    if len(pages) < 4:
        return set()
    seen: Counter[str] = Counter()
    for page in folds if folds is not None else ([_fold(line) for line in lines] for lines in pages):
        seen.update(set(page))
    return {key for key, n in seen.items() if len(key) > 8 and n > len(pages) / 2}


_DIGIT = re.compile(r"\d")


def too_little_text(pages: list[list[str]]) -> bool:
    """``sum(len(collapse_ws(" ".join(lines))) for lines in pages) < 20``, stopping at the first
    pages that reach 20 characters instead of folding the whole document."""
    total = 0
    for lines in pages:
        total += len(collapse_ws(" ".join(lines)))
        if total >= 20:
            return False
    return True


def _fold(line: str) -> str:
    return _DIGIT.sub("#", collapse_ws(line)).lower()


@dataclass
class _Article:
    draft: Draft
    lines: list[str] = field(default_factory=list)
    first_page: int = 0
    last_page: int = 0


def _order_key(match: re.Match[str]) -> tuple[int, ...]:
    numbers = tuple(int(x) for x in match.group(1).split("-"))
    return (*numbers, _SUFFIX_RANK.get((match.group(2) or "").lower(), 0))


def _paragraphs(lines: list[str]) -> str:
    blocks: list[str] = []
    for line in lines:
        text = collapse_ws(line)
        if not text:
            continue
        if not blocks or _BLOCK_START.match(text):
            blocks.append(text)
        elif blocks[-1].endswith("-") and not blocks[-1].endswith(" -"):
            blocks[-1] += text
        else:
            blocks[-1] += " " + text
    return "\n\n".join(blocks)


@dataclass
class _Segmenter:
    articles: list[_Article] = field(default_factory=list)
    path: list[tuple[int, str]] = field(default_factory=list)
    keys: list[tuple[int, ...]] = field(default_factory=list)

    def feed(self, line: str, page: int) -> None:
        self.feed_text(collapse_ws(line), page)

    def feed_text(self, text: str, page: int) -> None:
        """:meth:`feed` of a line already folded by :func:`collapse_ws`."""
        container = _CONTAINER.match(text)
        head = _HEAD.match(text)
        if container:
            level = LEVELS[container.group(1)]
            self.path = [p for p in self.path if p[0] < level] + [(level, text)]
        elif head:
            self.open(head, page)
        elif self.articles:
            self.articles[-1].lines.append(text)
            self.articles[-1].last_page = page

    def open(self, head: re.Match[str], page: int) -> None:
        number = head.group(1) + (head.group(2) or "")
        rest = collapse_ws(head.group(3) or "")
        heading = rest if 0 < len(rest) <= 120 and not rest.startswith("(") else None
        draft = Draft(anchor=f"art_{number.lower()}", type="article", num=f"Art. {number}.", heading=heading,
                      path=tuple(label for _, label in self.path), body="")
        article = _Article(draft, [] if heading or not rest else [rest], page, page)
        self.articles.append(article)
        self.keys.append(_order_key(head))


def _unsafe(seg: _Segmenter) -> str | None:
    if not seg.articles:
        return "no 'Art. N.' article heads found in the text layer (profile coverage gap)"
    anchors = Counter(a.draft.anchor for a in seg.articles)
    repeated = sorted(a for a, n in anchors.items() if n > 1)
    if repeated:
        return f"article heads repeat ({', '.join(repeated[:5])}): quoted amending text or several acts"
    for before, after in zip(seg.keys, seg.keys[1:], strict=False):
        if after < before:
            return "article numbers go backwards: quoted amending text or several acts"
    return None


def extract(data: bytes, *, language: str, limits: Limits = DEFAULT_LIMITS,
            sha256: str | None = None) -> ExtractionResult:
    """``pdf-lu/2`` over one born-digital consolidated PDF."""
    sha = body_sha256(data, sha256)
    check_size(data, sha, limits)
    ctx = Context(PROFILE, language, sha, title_joiner=" ")
    pages = [text.splitlines() for text in _pages(data, sha)]
    if too_little_text(pages):
        return finish(ctx, [], [f"pages: {len(pages)}"], gap=Gap(
            TextGap.UNSUPPORTED_MANIFESTATION, "PDF carries no extractable text layer (scanned image?)"))
    texts = [[collapse_ws(line) for line in lines] for lines in pages]  # each line folded once
    # _fold of each line, from its collapsed text (_fold collapses first)
    folds = [[_DIGIT.sub("#", text).lower() for text in page] for page in texts] if len(pages) >= 4 else None
    furniture = _furniture(pages, folds)
    seg = _Segmenter()
    removed = 0
    for number, page in enumerate(texts, start=1):
        page_folds = folds[number - 1] if folds is not None and furniture else None
        for i, text in enumerate(page):
            if page_folds is not None and page_folds[i] in furniture:  # no furniture: nothing to fold
                removed += 1
                continue
            seg.feed_text(text, number)
    notes = [f"pages: {len(pages)}; page furniture lines removed: {removed}"]
    reason = _unsafe(seg)
    if reason:
        return finish(ctx, [], notes, gap=Gap(TextGap.UNSUPPORTED_MANIFESTATION,
                                              f"article segmentation not safe: {reason}"))
    drafts = []
    for article in seg.articles:
        article.draft.body = _paragraphs(article.lines)
        article.draft.pages = (article.first_page, article.last_page)
        drafts.append(article.draft)
    return finish(ctx, drafts, notes)


def memorial_gap(data: bytes, *, language: str, sha256: str | None = None) -> ExtractionResult:
    """A Mémorial gazette issue: several acts in one PDF; no act is cut out of it."""
    sha = body_sha256(data, sha256)
    return finish(Context(PROFILE, language, sha), [], ["format pdf-memorial: not segmented"], gap=Gap(
        TextGap.UNSUPPORTED_MANIFESTATION,
        "Mémorial gazette issue (whole issue, several acts); this build does not cut one act out of an issue",
    ))
