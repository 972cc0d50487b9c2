"""``xhtml-eu/1``: Cellar XHTML (CONVEX and fmx2xhtml), strictly parsed.

Two layouts:

- **subdivision** (CONVEX, fmx2xhtml ≥ 9): the outermost ``div.eli-subdivision`` whose id starts
  ``art_`` (article) or ``anx`` (annex) is a provision; its id is the anchor verbatim
  (``art_6``, ``anx_I``). num = first article title (``title-article-norm``/``oj-ti-art``/
  ``ti-art``), heading = first subtitle; path = the ``title-division``/``oj-ti-section`` labels
  of the enclosing divisions, ``"CHAPTER II — Principles"``.
- **flat** (older fmx2xhtml, single treaty articles): a stream of siblings starting at the first
  article title; each title opens an article (``Article 50a`` → ``art_50a``), annex titles open
  an annex (``ANNEX II`` → ``anx_ii``), division titles set the path. Text before the first
  article (title, recitals) is out of scope. A signature paragraph (``Done at …``) ends the
  enacting terms; a content paragraph's plain text is rendered for that test only when the start
  of its content does not decide it (:func:`_plain_head`).

Rendering: ``►M1``/``▼C1`` amendment arrows and ``p.modref`` rows become citations (their
``title`` as text) and never text; list grids render as ``<marker> <text>``; ``span.no-parag``
numbers are bold prefixes (and so is the leading number of an OJ-format paragraph
``div#006.001``); real tables become GFM; footnote calls become ``[^n]`` (numbered per provision,
the publisher's brackets absorbed) and the notes they call follow the provision's text as
``[^n]: …``; ``a[href]`` outside the
document become citations with their inline text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import cast

from lxml import etree

from derive.anchors import annex_number, eu_annex_anchor, eu_article_anchor
from derive.limits import DEFAULT_LIMITS, Limits, body_sha256, local, namespace, parse_xml
from derive.lists import ordered_marker
from derive.model import Citation, Draft, ExtractionResult, Figure
from derive.render import Context, finish
from derive.text import article_anchor, collapse_ws, emphasis, figure, gfm_table, prefix_num
from legal.errors import DerivationError

PROFILE = "xhtml-eu/4"
XHTML = "http://www.w3.org/1999/xhtml"
ARTICLE_TITLES = frozenset({"title-article-norm", "oj-ti-art", "ti-art"})
ARTICLE_SUBTITLES = frozenset({"stitle-article-norm", "oj-sti-art", "sti-art"})
DIVISION_TITLES = frozenset({"title-division-1", "title-division-2", "oj-ti-section-1", "oj-ti-section-2",
                             "ti-section-1", "ti-section-2"})
FURNITURE = frozenset({"hd-date", "hd-lg", "hd-ti", "hd-oj", "oj-hd-date", "oj-hd-lg", "oj-hd-ti", "oj-hd-oj",
                       "reference", "disclaimer", "hd-modifiers", "oj-doc-end", "doc-end"})
ANNEX_TITLES = frozenset({"title-annex-1", "title-annex-2", "oj-ti-annex", "ti-annex", "doc-ti-annex"})
SILENT_TAGS = frozenset({"script", "style", "head", "title", "hr", "col", "colgroup", "meta", "link", "noscript",
                         "button", "input", "select", "form"})
BLOCK_TAGS = frozenset({"p", "div", "table", "ul", "ol", "li", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote",
                        "dl", "dt", "dd", "tr", "td", "th", "tbody", "thead", "tfoot", "section", "article",
                        "center", "txt_te", "TXT_TE", "pre"})
_ARROW = re.compile(r"^[►▼]\s*([A-Z]\d*)?\s*$")
_OJ_PARA_ID = re.compile(r"^\d{3}\.\d{3}$")
_OJ_PARA_NUM = re.compile(r"^(\d+[a-z]?\.)\s+(\S.*)$", re.S)
_CLOSING_ARROW = re.compile(r"\s*◄")
CALL_OPEN, CALL_CLOSE = "\x01", "\x02"  # cannot occur in XML 1.0 text
FIG_OPEN, FIG_CLOSE = "\x03", "\x04"  # an image, by its index in ``Walker.images`` (document-wide)
_FIG = re.compile("\x03(\\d+)\x04")
_NOTE_CALL = re.compile(r"\(?\s*(\d+[a-z]?)\s*\)?")
_CALL = re.compile(r"\s*(?:\(\s*(?:\*{1,2}\s*)?\x01(\w+)\x02(?:\s*\*{1,2})?\s*\)|\x01(\w+)\x02)")
_MARK = re.compile(r"\x01(\w+)\x02")
_EMPTY_NUMBER = re.compile(r"^\s*\(\s*\)\s*")
_LEADING_CALL = re.compile(r"^\s*(?:\(\s*\x01\w+\x02\s*\)|\x01\w+\x02)\s*")


def _all_text(el: etree._Element) -> str:
    """``"".join(el.itertext())`` — every text node under ``el`` (its text, its descendants' texts
    and tails, never its own tail; no comment or processing-instruction content) — in one call
    into libxml2 instead of a Python iteration over the subtree."""
    return etree.tostring(el, method="text", encoding=str, with_tail=False)


def _unarrow(text: str) -> str:
    """Amendment arrows are never text: a bold ``◄`` or ``▼B`` must not leave ``** **``."""
    if "◄" in text:
        text = _CLOSING_ARROW.sub(" ", text)
    return " " if _ARROW.match(text.strip()) and text.strip() else text


def footnote_calls(blocks: list[str], targets: list[str]) -> tuple[list[str], list[str]]:
    """Call marks → Markdown footnote references, numbered per provision in order of first call
    (``[^1]``, ``[^2]``…, so a note added elsewhere in the act never changes this provision's
    text), absorbing the publisher's brackets and the space before them (``Council
    (<sup>1</sup>);`` → ``Council[^1];``, as Formex places its ``NOTE`` right after the word).
    ``targets[k]`` is the note the ``k``-th call mark points to. Returns the blocks and the
    targets in local-number order."""
    order: list[str] = []

    def local(match: re.Match[str]) -> str:
        target = targets[int(match.group(1) or match.group(2))]
        if target not in order:
            order.append(target)
        return f"[^{order.index(target) + 1}]"

    return [_CALL.sub(local, b) if CALL_OPEN in b else b for b in blocks], order


def shift_calls(blocks: list[str], offset: int) -> list[str]:
    """Call marks of blocks rendered on their own, renumbered to follow ``offset`` earlier calls."""
    def shifted(match: re.Match[str]) -> str:
        return f"{CALL_OPEN}{int(match.group(1)) + offset}{CALL_CLOSE}"
    return [_MARK.sub(shifted, b) if CALL_OPEN in b else b for b in blocks]


def strip_calls(text: str) -> str:
    return _CALL.sub("", text) if CALL_OPEN in text else text


def classes(el: etree._Element) -> set[str]:
    value = el.get("class")
    return set(value.split()) if value else set()


_NO_CLASS: frozenset[str] = frozenset()
_NOT_BLOCKS = ARTICLE_TITLES | ARTICLE_SUBTITLES | DIVISION_TITLES | FURNITURE | {"eli-title", "footnote", "oj-note",
                                                                                   "note"}
_NOTES = frozenset({"footnote", "oj-note", "note"})
#: The paragraphs (``p``, XHTML or no namespace, ``el`` itself included) whose ``class`` attribute
#: has ``note`` in it, in document order: every class of :data:`_NOTES` has, so these are the only
#: paragraphs that can be notes — found by libxml2, without a Python object for every paragraph.
_NOTE_PARAGRAPHS = etree.XPath('descendant-or-self::x:p[contains(@class, "note")]'
                               ' | descendant-or-self::p[contains(@class, "note")]', namespaces={"x": XHTML})


def _note_paragraphs(root: etree._Element) -> list[etree._Element]:
    """:data:`_NOTE_PARAGRAPHS` of ``root`` (a node-set: elements only)."""
    return cast(list[etree._Element], _NOTE_PARAGRAPHS(root))
_MODREF = frozenset({"modref", "arrow"})
_NOTE_TAG = frozenset({"oj-note-tag", "note-tag"})
_SUPER = frozenset({"superscript", "oj-super"})
_SUB = frozenset({"subscript", "oj-sub"})
_BOLD = frozenset({"boldface", "bold", "oj-bold"})
_ITALIC = frozenset({"italics", "italic", "oj-italic"})
_DOC_TITLES = frozenset({"doc-ti", "oj-doc-ti"})
class _Names(dict[object, str]):
    """``local(tag).lower()`` by tag, worked out on a miss (``""`` for a comment's or a processing
    instruction's tag); at most :data:`_NAMES_KEPT` tags are kept (a document's vocabulary is a
    few dozen), so a looked-up name costs one C-level dict subscript."""

    def __missing__(self, tag: object) -> str:
        name = local(tag).lower() if isinstance(tag, str) else ""
        if len(self) < _NAMES_KEPT:
            self[tag] = name
        return name


_NAMES_KEPT = 4096
_NAMES = _Names()
#: ``local(tag).lower()``, remembered per tag (the walker asks it of every element).
_name = _NAMES.__getitem__


class _ClassSets(dict[str, frozenset[str]]):
    """The classes of a ``class`` attribute value, split on a miss; at most :data:`_NAMES_KEPT`
    values are kept (a document repeats a few dozen)."""

    def __missing__(self, value: str) -> frozenset[str]:
        found = frozenset(value.split())
        if len(self) < _NAMES_KEPT:
            self[value] = found
        return found


_CLASS_SETS = _ClassSets()


def _classes(el: etree._Element) -> frozenset[str]:
    """:func:`classes` as a shared frozenset, built once per distinct attribute value."""
    value = el.get("class")
    return _CLASS_SETS[value] if value else _NO_CLASS


class Walker:
    """Renders (X)HTML elements to blocks/inline text; shared by the tolerant profile."""

    def __init__(self) -> None:
        self.citations: list[Citation] = []
        self.active: set[str] = set()
        self.calls: list[str] = []  # the note each footnote call of the current provision points to
        self.notes: dict[str, str] = {}  # footnote text by the id a call points to
        self.images: list[str] = []  # the ``src`` of each image of the document, as marks index them
        self.figures: list[Figure] = []  # the figures of the last :meth:`body`

    def start(self) -> None:
        """Begin a provision: no citations, no footnote calls yet."""
        self.citations, self.calls = [], []

    def body(self, blocks: list[str]) -> str:
        """A provision body: blocks with resolved footnote calls and figure markers, then the notes
        they call. The figures, numbered in order, are left in :attr:`figures`."""
        resolved, order = footnote_calls(blocks, self.calls)
        notes = [f"[^{n}]: {self.notes[t]}" for n, t in enumerate(order, start=1) if self.notes.get(t)]
        text = "\n\n".join(b for b in resolved + notes if b)
        self.figures = []
        if FIG_OPEN in text:
            text = _FIG.sub(self._figure, text)
        return text

    def fill(self, draft: Draft, blocks: list[str]) -> Draft:
        """Set a draft's body and figures from its blocks."""
        draft.body = self.body(blocks)
        draft.figures = list(self.figures)
        return draft

    def _figure(self, match: re.Match[str]) -> str:
        fig = figure(len(self.figures) + 1, self.images[int(match.group(1))])
        self.figures.append(fig)
        return fig.marker()

    def collect_notes(self, root: etree._Element) -> None:
        """Footnote texts of the document (``p.footnote``/``p.oj-note``), keyed by the id of the
        back-link a call points to, rendered without their own leading ``(n)``."""
        for p in _note_paragraphs(root):
            value = p.get("class") or ""
            if _NOTES.isdisjoint(value.split()):
                continue
            back = next((a for a in p.iter(f"{{{XHTML}}}a", "a") if a.get("id")), None)
            if back is None:
                continue
            saved, calls = self.citations, self.calls
            self.citations, self.calls = [], []
            text = _clean(self.inline(p))
            self.citations, self.calls = saved, calls
            text = strip_calls(_LEADING_CALL.sub("", text, count=1))
            # a back-link whose number the publisher left empty prints "( )": the [^n] carries it
            self.notes[back.get("id") or ""] = _EMPTY_NUMBER.sub("", text, count=1).strip()

    # -- inline ---------------------------------------------------------------------------
    def inline(self, el: etree._Element, plain: bool = False) -> str:
        if not len(el):
            return el.text or ""
        out = [el.text or ""]
        append, named = out.append, self.inline_named
        for child in el:
            append(named(child, _name(child.tag), plain))
            append(child.tail or "")
        return "".join(out)

    def inline_child(self, el: etree._Element, plain: bool) -> str:
        return self.inline_named(el, _name(el.tag), plain)

    def inline_named(self, el: etree._Element, tag: str, plain: bool) -> str:
        """:meth:`inline_child` of ``el`` whose name (``_name(el.tag)``) the caller has already read:
        an element's tag is a new string at every read, so each walk step reads it once."""
        if not tag or tag in SILENT_TAGS:
            return ""
        value = el.get("class")  # _classes(el), inline: this runs for every inline element
        cls = _CLASS_SETS[value] if value else _NO_CLASS
        if tag == "br":
            return " "
        if cls and not _NOTE_TAG.isdisjoint(cls):
            return self.inline(el, plain=True)
        if tag == "a":
            return self.anchor(el, plain)
        if tag == "img":
            # an image is a typed figure, never text (a ``data:`` URI is decoded and described)
            if plain:
                return ""
            self.images.append(el.get("src") or "")
            return f" {FIG_OPEN}{len(self.images) - 1}{FIG_CLOSE} "
        if tag in BLOCK_TAGS:
            return f" {self.inline(el, plain)} "  # a block read inline keeps a word boundary
        # _marker(tag, cls), inline: this runs for every inline element
        if tag == "b" or tag == "strong" or (cls and not _BOLD.isdisjoint(cls)):
            marker: str | None = "**"
        elif tag == "i" or tag == "em" or (cls and not _ITALIC.isdisjoint(cls)):
            marker = "*"
        else:
            marker = None
        if marker and not plain and marker not in self.active:
            self.active.add(marker)
            inner = _unarrow(self.inline(el, plain))
            self.active.discard(marker)
            return emphasis(inner, marker)
        inner = self.inline(el, plain)
        if plain or marker:
            return inner
        if tag == "sup" or not _SUPER.isdisjoint(cls):
            folded = collapse_ws(inner)
            return "^" + folded if folded else ""
        if tag == "sub" or not _SUB.isdisjoint(cls):
            folded = collapse_ws(inner)
            return "_" + folded if folded else ""
        return inner

    def anchor(self, el: etree._Element, plain: bool) -> str:
        href = el.get("href") or ""
        text = collapse_ws(self.inline(el, plain=True))
        if href.startswith("#"):
            # in-document links: a footnote call (digits) becomes a call mark resolved by
            # :func:`footnote_calls`; other labels are kept as text
            call = _NOTE_CALL.fullmatch(text)
            if call is None:
                return self.inline(el, plain)
            if plain:
                return f"{CALL_OPEN}0{CALL_CLOSE}"  # stripped from plain text
            self.calls.append(href[1:])
            return f"{CALL_OPEN}{len(self.calls) - 1}{CALL_CLOSE}"
        if _ARROW.match(text):
            if not plain and href:
                self.citations.append(Citation(href=href, text=collapse_ws(el.get("title") or text)))
            return ""
        if href and text and not plain:
            self.citations.append(Citation(href=href, text=text))
        return self.inline(el, plain)

    def plain(self, el: etree._Element | None) -> str | None:
        if el is None:
            return None
        return _clean(strip_calls(self.inline(el, plain=True))) or None

    # -- blocks ---------------------------------------------------------------------------
    def blocks(self, el: etree._Element) -> list[str]:
        return self.blocks_named(el, _name(el.tag))

    def blocks_named(self, el: etree._Element, tag: str) -> list[str]:
        """:meth:`blocks` of ``el`` whose name the caller has already read (see :meth:`inline_named`)."""
        if not tag or tag in SILENT_TAGS:
            return []
        value = el.get("class")
        if value:
            cls = _CLASS_SETS[value]
            if not _NOT_BLOCKS.isdisjoint(cls):
                return []
            if not _MODREF.isdisjoint(cls):
                self.inline(el)  # citations only
                return []
            if "grid-container" in cls:
                return self.grid(el)
        if tag == "table":
            return self.table(el)
        if tag in ("ul", "ol"):
            return self.list_items(el, ordered=tag == "ol")
        if tag == "div":
            for num_el in el:
                if num_el.get("class") == "no-parag":
                    num = _clean(self.inline(num_el, plain=True)) or None
                    return prefix_num(num, self.children(el, skip=num_el))
            if _OJ_PARA_ID.match(el.get("id") or ""):
                return _oj_paragraph(self.children(el))
        return self.children(el)

    def children(self, el: etree._Element, skip: etree._Element | None = None) -> list[str]:
        """The blocks of ``el``'s content: each run of inline content between its block children
        (cleaned; empty runs dropped) and each block child's own blocks, in order."""
        if not len(el):
            # a leaf (most paragraphs): its text is the one run
            text = el.text
            if text and not (text.isspace() and _SEPARATORS.isdisjoint(text)):
                cleaned = _clean(text)
                if cleaned:
                    return [cleaned]
            return []
        out: list[str] = []
        run = [el.text or ""]
        append, inline_named, blocks_named = run.append, self.inline_named, self.blocks_named
        for child in el:
            if child is skip:
                append(child.tail or "")
                continue
            name = _name(child.tag)  # read once: blocks_named/inline_named take it
            if name in BLOCK_TAGS:
                text = "".join(run)
                # the run between two blocks is whitespace most often: no cleaning to fold it away
                if text and not (text.isspace() and _SEPARATORS.isdisjoint(text)):
                    cleaned = _clean(text)
                    if cleaned:
                        out.append(cleaned)
                run = []
                append = run.append
                if len(child) or name in _BRANCHING:
                    out.extend(blocks_named(child, name))
                else:  # a leaf block (most paragraphs): one call instead of blocks_named's two
                    out.extend(_leaf_blocks(child))
            else:
                append(inline_named(child, name, False))
            append(child.tail or "")
        text = "".join(run)
        if text and not (text.isspace() and _SEPARATORS.isdisjoint(text)):
            cleaned = _clean(text)
            if cleaned:
                out.append(cleaned)
        return out

    def mixed(self, el: etree._Element) -> list[str]:
        return self.children(el)

    def grid(self, el: etree._Element) -> list[str]:
        cols = [c for c in el if _name(c.tag) == "div"]
        if len(cols) < 2:
            return self.children(el)
        marker = _clean(self.inline(cols[0]))
        body: list[str] = []
        for col in cols[1:]:
            body.extend(self.blocks(col))
        return _mark(marker, body)

    def list_items(self, el: etree._Element, ordered: bool) -> list[str]:
        out: list[str] = []
        index = 0
        for li in el:
            if _name(li.tag) != "li":
                out.extend(self.blocks(li))
                continue
            marker = ordered_marker(None, index, el.get("start")) if ordered else "-"
            index += 1
            out.extend(_mark(marker, self.children(li)))
        return out

    def table(self, el: etree._Element) -> list[str]:
        grid = [[c for c in tr if _name(c.tag) in ("td", "th")] for tr in _rows(el)]
        # the rows with text, each with its first cell's text: a row's other cells are read only
        # until one has text (the layout test needs no more)
        layout: list[tuple[list[etree._Element], str]] = []
        for row in grid:
            if row:
                first = _text(row[0])
                if first or any(_filled(c) for c in row[1:]):
                    layout.append((row, first))
        if layout and all(len(row) == 2 and 0 < len(first) <= 12 for row, first in layout):
            out: list[str] = []
            for row, _ in layout:
                out.extend(_mark(_clean(self.inline(row[0])), self.children(row[1])))
            return out
        # each cell is folded once (Walker.cell), not again by gfm_table
        table = gfm_table([[self.cell(c) for c in row] for row, _ in layout], folded=True)
        return [table] if table else []

    def cell(self, el: etree._Element) -> str:
        """A table cell's text, folded (:func:`derive.text.collapse_ws` leaves it as it is): every
        block the walker renders is folded but a table (the only one with a line break), so only
        a cell holding a table is folded again."""
        text = " ".join(self.children(el))
        return collapse_ws(text) if "\n" in text else text


#: The block tags whose :meth:`Walker.blocks_named` reads more than a leaf's text and class even
#: when the element has no child (a ``div``'s ``id``; a table or list, rendered as such).
_BRANCHING = frozenset({"table", "ul", "ol", "div"})
#: The classes for which :meth:`Walker.blocks_named` renders a block with no child as nothing (a
#: modification reference's citations come from its links: a leaf has none).
_LEAF_DROPPED = _NOT_BLOCKS | _MODREF


def _leaf_blocks(el: etree._Element) -> list[str]:
    """What :meth:`Walker.blocks_named` gives for ``el``, a block (a :data:`BLOCK_TAGS` tag) with
    no child element, comment or processing instruction, and no tag of :data:`_BRANCHING`: nothing
    when a class of :data:`_LEAF_DROPPED` is among its classes, else its text cleaned
    (:func:`_clean`), when that is not empty."""
    value = el.get("class")
    text = el.text
    if text and (not value or _LEAF_DROPPED.isdisjoint(_CLASS_SETS[value])) and \
            not (text.isspace() and _SEPARATORS.isdisjoint(text)):
        cleaned = _clean(text)
        if cleaned:
            return [cleaned]
    return []


def _marker(tag: str, cls: frozenset[str] | set[str]) -> str | None:
    if tag in ("b", "strong") or not _BOLD.isdisjoint(cls):
        return "**"
    if tag in ("i", "em") or not _ITALIC.isdisjoint(cls):
        return "*"
    return None


def _text(el: etree._Element) -> str:
    return collapse_ws(_all_text(el))


def _filled(el: etree._Element) -> bool:
    """``_text(el) != ""``: some character of the subtree's text is no (.NET) whitespace."""
    raw = _all_text(el)
    return bool(raw) and not (raw.isspace() and _SEPARATORS.isdisjoint(raw))


def _rows(table: etree._Element) -> Iterator[etree._Element]:
    for child in table:
        tag = _name(child.tag)
        if tag == "tr":
            yield child
        elif tag in ("tbody", "thead", "tfoot"):
            yield from (r for r in child if _name(r.tag) == "tr")


#: The four characters ``str.isspace`` (and so ``str.split``) counts as whitespace and .NET does not
#: (:func:`derive.text.collapse_ws` keeps them): a text that ``isspace`` and holds none of them is
#: blank, i.e. :func:`_clean` folds it to ``""``.
_SEPARATORS = frozenset("\x1c\x1d\x1e\x1f")


def _clean(text: str) -> str:
    """Closing arrows out, whitespace folded: :func:`derive.text.collapse_ws` with its fast path
    (``str.split``, exact when none of :data:`_SEPARATORS` occurs) taken here, one call fewer."""
    if "◄" in text:
        text = _CLOSING_ARROW.sub(" ", text)
    if "\x1c" in text or "\x1d" in text or "\x1e" in text or "\x1f" in text:
        return collapse_ws(text)
    return " ".join(text.split())


def _mark(marker: str, body: list[str]) -> list[str]:
    if not marker:
        return body
    if not body:
        return [marker]
    if body[0].startswith(("|", ">")):
        return [marker, *body]
    return [f"{marker} {body[0]}", *body[1:]]


def _oj_paragraph(blocks: list[str]) -> list[str]:
    if blocks:
        match = _OJ_PARA_NUM.match(blocks[0])
        if match:
            return [f"**{match.group(1)}** {match.group(2)}", *blocks[1:]]
    return blocks


# -- layouts ---------------------------------------------------------------------------------


def _is_subdivision(el: etree._Element) -> bool:
    ident = el.get("id") or ""
    if ident.startswith(("art_", "anx")) and "eli-subdivision" in _classes(el):
        return True
    # consolidated CONVEX annexes and their appendices: ``<div id="anx_I">`` without the class
    return ident.startswith("anx_") and _name(el.tag) == "div"


def _division_label(div: etree._Element, walker: Walker) -> str | None:
    titles = []
    for child in div:
        if not isinstance(child.tag, str):
            continue
        cls = _classes(child)
        if not DIVISION_TITLES.isdisjoint(cls):
            titles.append(child)
        elif "eli-title" in cls:
            titles.extend(c for c in child if isinstance(c.tag, str) and not DIVISION_TITLES.isdisjoint(_classes(c)))
    parts = [walker.plain(c) for c in titles]
    label = " — ".join(p for p in parts if p)
    return label or None


def _path(el: etree._Element, walker: Walker,
          known: dict[etree._Element, str | None] | None = None) -> tuple[str, ...]:
    """The labels of the divisions around ``el``, outermost first. ``known``: the labels of the
    divisions already asked (by this document's other provisions), which are the same."""
    labels = []
    for anc in el.iterancestors():
        if _name(anc.tag) == "div":
            if known is None:
                label = _division_label(anc, walker)
            elif anc in known:
                label = known[anc]
            else:
                label = known[anc] = _division_label(anc, walker)
            if label:
                labels.append(label)
    return tuple(reversed(labels))


def _first(el: etree._Element, names: frozenset[str]) -> etree._Element | None:
    return next((x for x in el.iter(f"{{{XHTML}}}p", "p") if not names.isdisjoint(_classes(x))), None)


def subdivision_drafts(root: etree._Element, walker: Walker) -> list[Draft]:
    parts: list[tuple[Draft, list[str], list[str]]] = []
    labels: dict[etree._Element, str | None] = {}  # division labels, each worked out once
    for el in root.iter(f"{{{XHTML}}}div", "div"):
        ident = el.get("id")
        # most divisions have no id, or one no subdivision has: no call to _is_subdivision
        if not ident or not ident.startswith(("art_", "anx")) or not _is_subdivision(el):
            continue
        if any(_is_subdivision(a) for a in el.iterancestors()):
            continue
        walker.start()
        ident = el.get("id") or ""
        is_article = ident.startswith("art_")
        anchor = (eu_article_anchor(ident) or ident) if is_article else eu_annex_anchor(ident)
        if not is_article and "." not in ident:
            # the annex's own title wins over its id: Cellar ids can be cut short (``ANNEX IX`` as
            # ``anx_I``, ``ANNEX X`` as ``anx_``, 32006L0112 2024-01-01)
            title = walker.plain(_first(el, ANNEX_TITLES)) or ""
            if annex_number(title) is not None:
                anchor = eu_annex_anchor(title)
        num = walker.plain(_first(el, ARTICLE_TITLES)) if is_article else None
        heading = walker.plain(_first(el, ARTICLE_SUBTITLES)) if is_article else None
        blocks = walker.children(el)
        owner = next((p for p in reversed(parts) if p[0].anchor == anchor), None) if "." in ident else None
        if owner is not None and not is_article:
            # an appendix (``anx_II.app_I``) is part of its annex, as in Formex
            owner[1].extend(shift_calls(blocks, len(owner[2])))
            owner[2].extend(walker.calls)
            owner[0].citations.extend(walker.citations)
            continue
        parts.append((Draft(anchor=anchor, type="article" if is_article else "annex", num=num, heading=heading,
                            path=_path(el, walker, labels), body="", citations=list(walker.citations)),
                      blocks, list(walker.calls)))
    drafts = []
    for draft, blocks, calls in parts:
        walker.calls = calls
        drafts.append(walker.fill(draft, blocks))
    return drafts


_DIVISION1 = frozenset({"title-division-1", "oj-ti-section-1", "ti-section-1"})
_DIVISION2 = frozenset({"title-division-2", "oj-ti-section-2", "ti-section-2"})
_TITLES = ARTICLE_TITLES | ARTICLE_SUBTITLES | ANNEX_TITLES | _DOC_TITLES | _DIVISION1 | _DIVISION2


def _kind(el: etree._Element) -> str:
    cls = _classes(el)
    if _TITLES.isdisjoint(cls):  # most elements: no title class at all
        return "content"
    if not ARTICLE_TITLES.isdisjoint(cls):
        return "article"
    if not ARTICLE_SUBTITLES.isdisjoint(cls):
        return "subtitle"
    if not ANNEX_TITLES.isdisjoint(cls):
        return "annex"
    if not _DOC_TITLES.isdisjoint(cls):
        return "document-title"
    if not _DIVISION1.isdisjoint(cls):
        return "division1"
    if not _DIVISION2.isdisjoint(cls):
        return "division2"
    return "content"


def flat_drafts(root: etree._Element, walker: Walker) -> list[Draft]:
    first = _first(root, ARTICLE_TITLES)
    if first is None:
        return []
    markers: list[etree._Element] = []
    for prev in first.itersiblings(preceding=True):
        if not (isinstance(prev.tag, str) and not _MODREF.isdisjoint(_classes(prev))):
            break
        markers.insert(0, prev)
    return stream_drafts([*markers, first, *first.itersiblings()], walker)


def stream_drafts(stream: Iterable[etree._Element], walker: Walker) -> list[Draft]:
    """Articles from a flat stream of siblings; amendment arrows go to the block they precede."""
    drafts: list[Draft] = []
    path: tuple[str, ...] = ()
    current: Draft | None = None
    blocks: list[str] = []
    carry: list[Citation] = []
    appendix_title = False  # the last elements were an appendix title and its subtitles

    def close() -> None:
        if current is not None:
            walker.fill(current, blocks)
            current.citations = list(walker.citations) + carry
            drafts.append(current)

    for el in _flatten(stream):
        if not isinstance(el.tag, str):
            continue
        kind = _kind(el)
        # a content paragraph whose plain text is known to be empty, or to start with a character no
        # signature starts with, is not rendered twice (nor is a long one: a table, most often)
        head = _plain_head(el) if kind == "content" else None
        if head is not None:
            long, text, filled = False, "", head != ""
        else:
            long = kind == "content" and _plain_at_least(el, SIGNATURE_MAX)
            text = "" if long else walker.plain(el) or ""
            filled = bool(text) or long
        if kind == "document-title":
            kind = "annex" if annex_number(text) is not None else "content"
            if kind == "content" and current is not None and current.type == "annex" and not blocks:
                current.heading = f"{current.heading} — {text}" if current.heading else text
                continue
        if not FINAL.isdisjoint(_classes(el)) or \
                (kind == "content" and _SIGNATURE.match(text) and len(text) < SIGNATURE_MAX):
            # the signature ends the enacting terms: what follows up to the next title (signatories,
            # the Official Journal's notes) belongs to no provision
            close()
            current, blocks, carry = None, [], []
            continue
        if kind == "annex" and current is not None and current.type == "annex" and \
                _annex_part(el, text, blocks, appendix_title):
            appendix_title = bool(_APPENDIX.match(text)) or (appendix_title and "title-annex-2" in classes(el))
            if blocks or "title-annex-2" not in classes(el):
                blocks.append(f"**{text}**")  # an appendix of this annex, as Formex keeps it
            else:
                current.heading = f"{current.heading} — {text}" if current.heading else text
            continue
        if filled:
            appendix_title = False
        if kind in ("article", "annex"):
            close()
            walker.citations, walker.calls, blocks, carry = list(carry), [], [], []
            anchor = (eu_article_anchor(text) or article_anchor(_premier(text))) if kind == "article" \
                else eu_annex_anchor(text)
            current = Draft(anchor=anchor, type=kind, num=text if kind == "article" else None,
                            heading=None if kind == "article" else text, path=path, body="")
        elif kind == "subtitle" and current is not None and not blocks and current.heading is None:
            current.heading = text or None
        elif kind == "division1":
            path = (text,) if text else ()
        elif kind == "division2":
            path = (f"{path[0]} — {text}",) if path and text else path
        elif not _MODREF.isdisjoint(_classes(el)):
            before = len(walker.citations)
            walker.inline(el)
            carry.extend(walker.citations[before:])
            del walker.citations[before:]
        elif current is not None:
            walker.citations.extend(carry)
            carry = []
            blocks.extend(walker.blocks(el))
    close()
    return drafts


FINAL = frozenset({"final", "oj-final", "signatory", "oj-signatory"})
_SIGNATURE = re.compile(r"^(?:Done at|Fait à|Geschehen zu|Hecho en|Fatto a|Gedaan te)\s", re.IGNORECASE)
SIGNATURE_MAX = 400  # a signature paragraph's plain text is shorter than this
_DROPPED = SILENT_TAGS | {"a", "img", "br"}  # elements whose text ``Walker.plain`` may leave out
_CALL_EATS = 6  # text characters a footnote call takes away with it: ``(``, ``**``, ``**``, ``)`` (_CALL)


def _solid(text: str) -> int:
    """Characters of ``text`` that no step of ``Walker.plain`` removes: neither whitespace
    (``str.isspace``, wider than the .NET set :func:`collapse_ws` folds) nor a closing arrow."""
    return sum(map(len, text.split())) - text.count("◄")


def _plain_at_least(el: etree._Element, n: int) -> bool:
    """True when ``Walker.plain(el)`` certainly has ``n`` characters or more, found without
    rendering it. ``plain`` keeps, in order, every text node of ``el`` (its text, its descendants'
    texts and tails) but the texts inside the elements it may drop (silent tags, links, images,
    breaks, comments and processing instructions — each counted out whole, tails aside), adds
    spaces, strips each footnote call (one at most per link, nested links included) with at most
    :data:`_CALL_EATS` characters of text around it, removes closing arrows and folds whitespace.
    So the characters :func:`_solid` counts in the kept texts, less what the calls may take, are
    in ``plain``; they are counted in document order only until there are enough (a long table
    is not walked to its end). False means: not known (the caller then renders ``plain``)."""
    if len(_all_text(el)) < n:  # plain keeps no more text than the subtree has
        return False
    calls = sum(1 for _ in el.iter("{*}a", "{*}A"))  # every element whose local name is "a" or "A"
    return _kept_solid(el, n + calls * _CALL_EATS) >= n + calls * _CALL_EATS


def _kept_solid(el: etree._Element, need: int) -> int:
    """:func:`_solid` of the text ``Walker.plain`` keeps in ``el``'s content (its text, its kept
    children's content and every child's tail), counted until it reaches ``need``."""
    got = _solid(el.text) if el.text else 0
    for child in el:
        if got >= need:
            break
        name = _name(child.tag)
        if name and name not in _DROPPED:
            got += _kept_solid(child, need - got)
        tail = child.tail
        if tail:
            got += _solid(tail)
    return got


#: The characters a text must start with for :data:`_SIGNATURE` to match it: each alternative's
#: first letter, matched as the signature matches it (case-insensitive, so Unicode folds count too).
_SIGNATURE_HEAD = re.compile(r"[DFGH]", re.IGNORECASE)
#: A character ``Walker.plain`` may start with: neither whitespace (``str.isspace``, all of which
#: ``_clean`` strips at the start) nor a closing arrow; or one of the four separators, which are
#: ``isspace`` but :func:`collapse_ws` keeps (:func:`_plain_head` then gives up).
_HEAD = re.compile("[^\\s\u25c4]|[\x1c-\x1f]")
_NOT_SPACE = re.compile(r"\S")  # not the ``\s`` of :data:`_CALL`


def _plain_head(el: etree._Element) -> str | None:
    """What the flat layout asks of ``Walker.plain(el)`` (empty? a signature?), told without
    rendering it when the start of ``el``'s content shows it: ``""`` when ``plain`` is empty, its
    first character when that is no signature's first character, else ``None`` (not known: the
    caller renders ``plain``).

    ``plain`` keeps, in order, the text of ``el``'s content but what it drops (silent tags, images,
    breaks, comments, processing instructions: whole, tails aside), turns each link into its text
    or a footnote call mark, strips the marks with the whitespace, ``(``, ``*`` and ``)`` around
    them (:data:`_CALL`), turns closing arrows into spaces and folds whitespace. So, before the
    first link, the first character that is neither whitespace nor a closing arrow is ``plain``'s
    first, unless a mark strips it: only a ``(`` can be stripped so, when the next character that
    is no whitespace is ``*`` or comes from a link. The walk stops at the first link or once that
    character is known, so it reads only the start of the content."""
    found: list[str] = []
    if not _head_walk(el, found):  # read to the end: no link, so no mark
        return found[0] if found else ""  # a lone "(" stays; nothing kept: plain is empty
    if not _head_known(found):
        return None  # a link came first
    first = found[0]
    if first == "(":
        return None if found[1] == "*" else first
    if first < " " or _SIGNATURE_HEAD.match(first):
        return None
    return first


def _head_known(found: list[str]) -> bool:
    return len(found) == 2 or (len(found) == 1 and found[0] != "(")


def _head_text(text: str, found: list[str]) -> bool:
    """Take :func:`_plain_head`'s characters from a kept text; True once they are known."""
    if not found:
        match = _HEAD.search(text)
        if match is None:
            return False
        found.append(match.group())
        if found[0] != "(":
            return True
        text = text[match.end():]
    match = _NOT_SPACE.search(text)
    if match is None:
        return False
    found.append(match.group())
    return True


def _head_walk(el: etree._Element, found: list[str]) -> bool:
    """Read ``el``'s content as ``Walker.plain`` keeps it, in document order, into ``found`` (see
    :func:`_plain_head`); True when the walk stopped early (the characters known, or a link met)."""
    text = el.text
    if text and _head_text(text, found):
        return True
    for child in el:
        name = _name(child.tag)
        if _note_tag_text(child, name):  # read as its text whatever its tag (``Walker.inline_child``)
            stop = _head_walk(child, found)
        else:  # a link stops the walk; dropped elements are skipped
            stop = name == "a" or (bool(name) and name not in _DROPPED and _head_walk(child, found))
        if stop:
            return True
        tail = child.tail
        if tail and _head_text(tail, found):
            return True
    return False


def _note_tag_text(el: etree._Element, name: str) -> bool:
    """Whether ``Walker.inline_child`` reads ``el`` as its plain text for its note-tag class (an
    ``a`` or ``img`` too), as it does for every tag but silent ones and ``br``."""
    value = el.get("class")
    return bool(value) and bool(name) and name not in SILENT_TAGS and name != "br" and \
        not _NOTE_TAG.isdisjoint(_CLASS_SETS[value or ""])


def _flatten(stream: Iterable[etree._Element]) -> Iterator[etree._Element]:
    """The stream, with a document part (an OJ annex ``<div>`` that opens with a ``doc-ti``
    title) read as its own children, so its title opens an annex instead of gluing the annex
    into the last article."""
    for el in stream:
        if _name(el.tag) == "div" and any(
                isinstance(c.tag, str) and not _DOC_TITLES.isdisjoint(_classes(c)) for c in el):
            yield from _flatten(list(el))
        else:
            yield el


_APPENDIX = re.compile(r"^(?:Appendix|Appendice|Apéndice|Anlage|Appendices)\b", re.IGNORECASE)


def _annex_part(el: etree._Element, text: str, blocks: list[str], after_appendix_title: bool = False) -> bool:
    """An annex subtitle right after the annex title, an appendix title inside an annex, or the
    subtitles right after that appendix title (``Appendix 1`` / ``Motor-caravans, ambulances and
    hearses``, 32018R0858), are part of that annex, not an annex of their own."""
    if "title-annex-2" in classes(el) and (not blocks or after_appendix_title):
        return True
    return bool(_APPENDIX.match(text))


def _premier(text: str) -> str:
    return re.sub(r"(?i)\b(premier|1er)\b", "1", text)


def drafts_for(root: etree._Element, walker: Walker) -> tuple[list[Draft], str]:
    """Provisions of an (X)HTML DOM and the layout note; empty when no boundary is exposed."""
    walker.collect_notes(root)
    drafts = subdivision_drafts(root, walker)
    if drafts:
        return drafts, "boundaries: publisher eli-subdivision fragment identifiers (structural-in-presentation)"
    drafts = flat_drafts(root, walker)
    if drafts:
        return drafts, "boundaries: flat format (publisher article title paragraphs)"
    return [], ""


def extract(data: bytes, *, language: str, limits: Limits = DEFAULT_LIMITS,
            sha256: str | None = None) -> ExtractionResult:
    """``xhtml-eu/1`` over a well-formed Cellar XHTML body (may yield zero provisions)."""
    sha = body_sha256(data, sha256)
    root = parse_xml(data, sha, limits)
    if local(root.tag) != "html" or namespace(root.tag) not in (XHTML, ""):
        raise DerivationError(f"not XHTML: root {root.tag!r}", code="unknown_namespace", subject=sha)
    walker = Walker()
    drafts, note = drafts_for(root, walker)
    notes = [note] if note else ["no article boundary found (profile coverage gap)"]
    return finish(Context(PROFILE, language, sha), drafts, notes)
