"""``akn-lu/1``: Legilux Akoma Ntoso 3.0 (CSD13 + ``scl:`` metadata).

Provision sources, in document order: every top-level ``article`` (type ``article``) and every
``attachment``/``doc`` holding a ``mainBody`` (type ``annex``). Articles inside another article,
an ``embeddedStructure``/``quotedStructure``/``mod`` or an attachment are quoted or annexed
text, never provisions of their own; their text stays in the provision that quotes them,
rendered as a Markdown quotation unless the publisher hides the quotation
(``scl:hide-quote="true"``: then as plain blocks, as Legilux displays it).

- anchor: the publisher's ``id`` verbatim (``art_1er``, ``art_4-1``, ``art_l_010-1``), else
  ``article_<n>`` / slug of the annex title / ``annex_<n>``;
- ``num``/``heading``: plain text (``Art. 1<sup>er</sup>.`` → ``Art. 1er.``);
- ``path``: ``book|part|title|chapter|subchapter|section|subsection`` labels
  ``"<num> — <heading>"``, plain text, outermost first;
- ``eli`` and ``article_valid_from``: the article's own ``scl:JOLUXLegalResource``
  ``uriThis`` / ``dateApplicability``;
- ``<del>`` (struck-through repealed wording) is excluded; ``mod`` milestones keep their
  content; ``noteRef``, ``eop`` and every ``scl:`` element never render; ``scl:indexterms``
  become the provision's index terms; ``scl:postit`` editorial notes become result notes;
- ``ref`` → citation (href + inline text), only the text stays inline.

``akn-lu-document/1`` is the fallback when a body has no article/annex boundary at all: the
official ``body`` becomes one ``document`` provision.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import cast

from lxml import etree

from derive.limits import (
    DEFAULT_LIMITS,
    Limits,
    body_sha256,
    known_local,
    local,
    namespace,
    parse_xml,
)
from derive.lists import bullet_marker, ordered_marker
from derive.model import Citation, Draft, ExtractionResult, Figure
from derive.render import Context, finish
from derive.text import (
    DOTNET_WHITESPACE,
    collapse_ws,
    emphasis,
    figure,
    gfm_table,
    is_ws,
    prefix_num,
    slug,
)
from legal.errors import DerivationError

PROFILE = "akn-lu/3"
DOCUMENT_PROFILE = "akn-lu-document/3"

AKN_NAMESPACES = frozenset({
    "http://docs.oasis-open.org/legaldocml/ns/akn/3.0/CSD13",
    "http://docs.oasis-open.org/legaldocml/ns/akn/3.0",
})
SCL = "http://www.scl.lu"

CONTAINERS = frozenset({"book", "part", "title", "chapter", "subchapter", "section", "subsection"})
QUOTED = frozenset({"embeddedStructure", "quotedStructure"})
NOT_SOURCES = frozenset({"meta", "preface", "preamble", "conclusions", "mod", "embeddedText", *QUOTED})
SILENT = frozenset({"eop", "authorialNote", "note", "notes", "meta", "del", "mmlSemantics"})
TITLED = frozenset({"article", *CONTAINERS, "division", "rule"})
NUMBERED = frozenset({"paragraph", "subparagraph", "point", "item", "clause", "indent", "list", "alinea"})
_ROUTED = frozenset({"table", "ol", "ul", *QUOTED, *TITLED, *NUMBERED})  # what :meth:`_Reader.blocks` routes
BLOCK = frozenset({
    "p", "alinea", "content", "paragraph", "subparagraph", "point", "list", "blockList", "item",
    "ol", "ul", "li", "table", "div", "container", "hcontainer", "blockContainer", "intro",
    "wrapUp", "listIntroduction", "listWrapUp", "mainBody", "article", "tblock", "formula",
    "clause", "indent", "longTitle", "heading", "subheading", "num", *QUOTED, *CONTAINERS,
})


@dataclass
class _State:
    citations: list[Citation] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    footnotes: list[str] = field(default_factory=list)  # ``[^n]: text`` of the current provision
    deleted: int = 0

    def reset(self) -> None:
        self.citations, self.figures, self.footnotes = [], [], []


class _Reader:
    """Renders AKN elements to Markdown blocks and inline text, collecting citations."""

    def __init__(self, notes: dict[str, etree._Element] | None = None) -> None:
        self.state = _State()
        self.active: set[str] = set()
        self.notes = notes or {}  # the document's ``note`` elements by id (``noteRef`` targets)

    def note_ref(self, el: etree._Element) -> str:
        """``noteRef`` → ``[^n]`` numbered per provision; the note's text follows the provision.

        A *modification* note (``notes[@scl:type="modification"]``: "Loi du … portant révision
        de l'article 10") is the publisher's amendment history, not wording: its links become
        citations and the call renders nothing (a wholly repealed article stays empty)."""
        note = self.notes.get((el.get("href") or "").lstrip("#"))
        if note is None:
            return ""
        parent = note.getparent()
        if parent is not None and parent.get(f"{{{SCL}}}type") == "modification":
            for ref in note.iter():
                if local(ref.tag) in ("ref", "a") and ref.get("href"):
                    text = _text(ref)
                    if text:
                        self.state.citations.append(Citation(href=ref.get("href", ""), text=text))
            return ""
        number = len(self.state.footnotes) + 1
        self.state.footnotes.append("")  # reserve the number before rendering nested notes
        self.state.footnotes[number - 1] = f"[^{number}]: " + " ".join(self.children_blocks(note))
        return f"[^{number}]"

    def body(self, blocks: list[str]) -> str:
        """Blocks with footnote references (the publisher's brackets around a call absorbed), then
        the notes they call."""
        text = "\n\n".join([*blocks, *self.state.footnotes])
        return _BRACKETED_CALL.sub(r"\1", text) if "[^" in text else text

    # -- inline -------------------------------------------------------------------------
    def inline(self, el: etree._Element, plain: bool = False) -> str:
        out = [el.text or ""]
        for child in el:
            rendered = self.inline_child(child, plain)
            out.append(rendered)
            tail = child.tail or ""  # :func:`_tail`, without the call
            out.append(SOFT if not rendered and tail and not tail.strip() else tail)
        return "".join(out)

    def inline_child(self, el: etree._Element, plain: bool) -> str:
        """One inline child rendered, by its tag's :data:`_INLINE` route (one dict subscript); a
        leaf (no child node) whose rendering is its text returns its ``text`` without a call."""
        route = _INLINE[el.tag]
        if route is _I_PLAIN:  # a tag that renders as its content (``sup``, ``span``, ``num``, …)
            return self.inline(el, plain) if len(el) else el.text or ""
        if route is _I_LINK:  # ``ref``/``a``: a citation when it has a ``href``
            leaf = not len(el)
            if not plain:
                href = el.get("href")
                if href is not None:
                    text = collapse_ws(el.text or "" if leaf else self.inline(el, plain=True))
                    if text:
                        self.state.citations.append(Citation(href=href, text=text))
            return el.text or "" if leaf else self.inline(el, plain)
        if route is _I_SILENT:
            return ""
        if route is _I_DELETED:
            self.state.deleted += 1
            return ""
        if route is _I_SPACED:
            # a block read inline, or quoted wording (``les mots<embeddedText>Centre …``), keeps a
            # word boundary on each side
            return f" {self.inline(el, plain)} "
        if route is _I_BREAK:
            return " "
        if route is _I_NOTE_REF:
            return "" if plain else self.note_ref(el)
        if route is _I_IMAGE:
            if plain:
                return ""
            fig = figure(len(self.state.figures) + 1, el.get("src", ""))
            self.state.figures.append(fig)
            return f" {fig.marker()} "
        marker = _MARKERS[route]  # emphasis
        if plain or marker in self.active:
            return self.inline(el, plain)
        if not len(el):
            return _emphasis(el.text or "", marker)
        self.active.add(marker)
        inner = self.inline(el, plain)
        self.active.discard(marker)
        return _emphasis(inner, marker)

    def plain(self, el: etree._Element | None) -> str | None:
        if el is None:
            return None
        saved = len(self.state.citations)
        text = _flush([self.inline(el, plain=True)])
        del self.state.citations[saved:]
        return text or None

    # -- blocks -------------------------------------------------------------------------
    def blocks(self, el: etree._Element) -> list[str]:
        name = el.tag
        route = _ROUTE[name]
        if route is _MIXED:  # most elements: no list, table, quotation, title or number
            return self.mixed(el)
        if route is not _ROUTED_TAG:  # silent: nothing, a deletion counted
            if route is _DELETED:
                self.state.deleted += 1
            return []
        tag = known_local(name) or local(name)
        if tag == "table":
            return [self.table(el)]
        if tag in ("ol", "ul"):
            return self.list_items(el, ordered=tag == "ol")
        if tag in QUOTED:
            blocks = self.children_blocks(el)
            return blocks if el.get(f"{{{SCL}}}hide-quote") == "true" else [_quote(b) for b in blocks]
        if tag in TITLED:
            return self.titled(el)
        if tag in NUMBERED:
            num_el = _child(el, "num")
            if num_el is not None:
                return prefix_num(self.plain(num_el), self.children_blocks(el, skip=("num",)))
        return self.mixed(el)

    def children_blocks(self, el: etree._Element, skip: tuple[str, ...] = ()) -> list[str]:
        out: list[str] = []
        for child in el:
            name = child.tag
            if (known_local(name) or local(name)) not in skip:
                if not len(child) and _ROUTE[name] is _MIXED:  # a leaf block: :meth:`mixed`'s leaf case
                    text = collapse_ws(child.text or "")
                    if text:
                        out.append(text)
                else:
                    out.extend(self.blocks(child))
        return out

    def mixed(self, el: etree._Element) -> list[str]:
        """Inline runs become blocks; block-level children contribute their own blocks."""
        if not len(el):  # a leaf (``<p>text</p>``): its text is the one run (XML text holds no SOFT)
            text = collapse_ws(el.text or "")
            return [text] if text else []
        out: list[str] = []
        run = [el.text or ""]
        for child in el:
            if _IS_BLOCK[child.tag]:
                if len(run) > 1:
                    out.append(_flush(run))
                elif run[0].strip(DOTNET_WHITESPACE):  # one text node (no SOFT): "" unless it has ink
                    out.append(collapse_ws(run[0]))
                if not len(child) and _ROUTE[child.tag] is _MIXED:  # a leaf block (``<p>text</p>``)
                    text = collapse_ws(child.text or "")
                    if text:
                        out.append(text)
                else:
                    out.extend(self.blocks(child))
                run = [child.tail or ""]
            else:
                rendered = self.inline_child(child, plain=False)
                run.append(rendered)
                tail = child.tail or ""  # :func:`_tail`, without the call
                run.append(SOFT if not rendered and tail and not tail.strip() else tail)
        out.append(_flush(run))
        return [b for b in out if b]

    def titled(self, el: etree._Element) -> list[str]:
        label = " ".join(x for x in (self.plain(_child(el, "num")), self.plain(_child(el, "heading"))) if x)
        body = self.children_blocks(el, skip=("num", "heading"))
        return ([f"**{label}**"] if label else []) + body

    def list_items(self, el: etree._Element, ordered: bool) -> list[str]:
        out: list[str] = []
        symbol = el.get(f"{{{SCL}}}symbol")
        start = el.get(f"{{{SCL}}}start")
        index = 0
        for li in el:
            if local(li.tag) != "li":
                out.extend(self.blocks(li))
                continue
            item_symbol = li.get(f"{{{SCL}}}symbol")
            if ordered:
                marker = ordered_marker(symbol, index, start)
            else:
                marker = item_symbol if symbol == "custom" and item_symbol else bullet_marker(symbol)
            index += 1
            body = self.mixed(li)
            if not body:
                continue
            out.extend(_mark(marker, body))
        return out

    def table(self, el: etree._Element) -> str:
        rows = []
        for tr in el.iter(f"{{{namespace(el.tag)}}}tr"):
            cells = [c for c in tr if local(c.tag) in ("td", "th")]
            rows.append([" ".join(self.mixed(c)) for c in cells])
        return gfm_table(rows)


SOFT = "\x00"  # cannot occur in XML 1.0 text
_BRACKETED_CALL = re.compile(r"[ ]?\([ ]?(\[\^\d+\])[ ]?\)")
_SOFT_BEFORE_PUNCT = re.compile("\x00+(?=[.,;:!?)\\]»])")


def _tail(child: etree._Element, rendered: str) -> str:
    """A whitespace-only tail after an element that renders nothing (``noteRef``, a ``mod``
    milestone, ``del``) is layout, not a word separator, when punctuation follows it."""
    tail = child.tail or ""
    if not rendered and tail and not tail.strip():
        return SOFT
    return tail


def _edge(text: str) -> str:
    """What a run of whitespace and soft separators at the edge of an emphasis becomes."""
    if not text:
        return ""
    return " " if text.replace(SOFT, "") else SOFT


def _emphasis(inner: str, marker: str) -> str:
    """:func:`emphasis`, with the soft separators a struck-out or silent child leaves kept
    outside the markers: emphasis around nothing (``<b><del>1°</del></b>``) leaves no ``** **``."""
    if SOFT not in inner:
        return emphasis(inner, marker)
    start, end = 0, len(inner)
    while start < end and (inner[start] == SOFT or is_ws(inner[start])):
        start += 1
    while end > start and (inner[end - 1] == SOFT or is_ws(inner[end - 1])):
        end -= 1
    if start == end:
        return _edge(inner)
    return _edge(inner[:start]) + emphasis(inner[start:end], marker) + _edge(inner[end:])


def _flush(run: list[str]) -> str:
    text = "".join(run)
    if SOFT in text:
        text = _SOFT_BEFORE_PUNCT.sub("", text).replace(SOFT, " ")
    return collapse_ws(text)


class _Blocks(dict[object, bool]):
    """Whether a tag is a block (:data:`BLOCK`, outside ``scl:``) for :meth:`_Reader.mixed`,
    worked out on a miss; at most :data:`_TAGS_KEPT` tags are kept (a document's vocabulary is a
    few dozen), so the question costs one C-level dict subscript per child."""

    def __missing__(self, tag: object) -> bool:
        block = local(tag) in BLOCK and namespace(tag) != SCL
        if len(self) < _TAGS_KEPT:
            self[tag] = block
        return block


_TAGS_KEPT = 4096
_IS_BLOCK = _Blocks()

# What :meth:`_Reader.blocks` does with an element, by its tag (:class:`_Routes`).
_SILENT = "silent"  # renders nothing (no tag, ``scl:``, :data:`SILENT`)
_DELETED = "deleted"  # renders nothing and counts a deletion (a silent ``del``)
_MIXED = "mixed"  # mixed content (:meth:`_Reader.mixed`): not in ``_ROUTED``
_ROUTED_TAG = "routed"  # a table, list, quotation, titled or numbered element


class _Routes(dict[object, str]):
    """:meth:`_Reader.blocks`' first decision per tag, worked out on a miss from the local name and
    namespace (as :class:`_Blocks`, at most :data:`_TAGS_KEPT` tags kept): one C-level dict
    subscript per element instead of the name, namespace and set lookups."""

    def __missing__(self, tag: object) -> str:
        name = local(tag)
        if not name or namespace(tag) == SCL or name in SILENT:
            route = _DELETED if name == "del" else _SILENT
        else:
            route = _MIXED if name not in _ROUTED else _ROUTED_TAG
        if len(self) < _TAGS_KEPT:
            self[tag] = route
        return route


_ROUTE = _Routes()

# What :meth:`_Reader.inline_child` does with an element, by its tag (:class:`_InlineRoutes`).
_I_SILENT = "silent"  # nothing: no tag (comment, PI, entity), ``scl:``, :data:`SILENT`
_I_DELETED = "deleted"  # nothing, a deletion counted (``del``)
_I_BREAK = "break"  # ``br``: one space
_I_NOTE_REF = "noteRef"
_I_IMAGE = "img"
_I_LINK = "link"  # ``ref``/``a``
_I_SPACED = "spaced"  # a block read inline (not ``num``/``heading``), or ``embeddedText``
_I_PLAIN = "plain"  # its content, as is
_I_STRONG = "strong"  # ``b``/``strong``: emphasis ``**``
_I_EM = "em"  # ``i``/``em``: emphasis ``*``
_MARKERS = {_I_STRONG: "**", _I_EM: "*"}
_INLINE_TAGS = {"br": _I_BREAK, "noteRef": _I_NOTE_REF, "img": _I_IMAGE, "ref": _I_LINK, "a": _I_LINK,
                "b": _I_STRONG, "strong": _I_STRONG, "i": _I_EM, "em": _I_EM}


class _InlineRoutes(dict[object, str]):
    """:meth:`_Reader.inline_child`'s decision per tag, worked out on a miss in the order the
    per-element tests ran (no tag or ``scl:``; ``del``; :data:`SILENT`; ``br``; ``noteRef``;
    ``img``; ``ref``/``a``; a block other than ``num``/``heading``, or ``embeddedText``; emphasis;
    else its content); at most :data:`_TAGS_KEPT` tags kept, as :class:`_Blocks`."""

    def __missing__(self, tag: object) -> str:
        name = local(tag)
        if not name or namespace(tag) == SCL:
            route = _I_SILENT
        elif name == "del":
            route = _I_DELETED
        elif name in SILENT:
            route = _I_SILENT
        elif name in ("br", "noteRef", "img", "ref", "a"):
            route = _INLINE_TAGS[name]
        elif (name in BLOCK and name not in ("num", "heading")) or name == "embeddedText":
            route = _I_SPACED
        else:
            route = _INLINE_TAGS.get(name, _I_PLAIN)
        if len(self) < _TAGS_KEPT:
            self[tag] = route
        return route


_INLINE = _InlineRoutes()


def _child(el: etree._Element, name: str) -> etree._Element | None:
    # a Python loop: ``num``/``heading`` come first, and lxml's ``iterchildren("{*}num")`` costs
    # more to set up than this loop takes to reach them; each child's name is one dict subscript
    for child in el:
        if _NAME[child.tag] == name:
            return child
    return None


class _Names(dict[object, str]):
    """A tag's local name outside ``scl:`` (``""`` for an ``scl:`` tag, a comment, a processing
    instruction or an entity), worked out on a miss; at most :data:`_TAGS_KEPT` tags kept, as
    :class:`_Blocks`."""

    def __missing__(self, tag: object) -> str:
        name = local(tag) if namespace(tag) != SCL else ""
        if len(self) < _TAGS_KEPT:
            self[tag] = name
        return name


_NAME = _Names()


def _all_text(el: etree._Element) -> str:
    """``"".join(el.itertext())`` — every text node under ``el`` (its text, its descendants' texts
    and tails, never its own tail; no comment or processing-instruction content, but their tails)
    — in one call into libxml2 instead of a Python iteration over the subtree. An unexpanded
    entity reference (only a body with a ``DOCTYPE`` naming an external DTD keeps one) reads as
    ``&name;`` in ``itertext`` and as nothing in libxml2's text output: a subtree holding one
    takes ``itertext`` (the search for one is a walk in C). A leaf's text is its ``text``."""
    if not len(el):
        return el.text or ""
    if next(el.iter(etree.Entity), None) is not None:
        return "".join(cast("Iterator[str]", el.itertext()))
    return etree.tostring(el, method="text", encoding=str, with_tail=False)


def _text(el: etree._Element) -> str:
    return collapse_ws(_all_text(el))


def _quote(block: str) -> str:
    return "\n".join("> " + line if line else ">" for line in block.split("\n"))


def _mark(marker: str, body: list[str]) -> list[str]:
    if not marker:
        return body
    first = body[0]
    if first.startswith(("|", ">")):
        return [marker, *body]
    return [f"{marker} {first}", *body[1:]]


# -- provisions -------------------------------------------------------------------------------


def _root(data: bytes, sha: str, limits: Limits) -> etree._Element:
    root = parse_xml(data, sha, limits)
    if local(root.tag) != "akomaNtoso" or namespace(root.tag) not in AKN_NAMESPACES:
        raise DerivationError(
            f"not Akoma Ntoso 3.0: root {root.tag!r}", code="unknown_namespace", subject=sha,
        )
    return root


def _notes_by_id(root: etree._Element) -> dict[str, etree._Element]:
    # ``{*}note``: a ``note`` element in any namespace or none, as ``local(tag) == "note"``
    return {n.get("id", ""): n for n in root.iter("{*}note") if n.get("id")}


def _postit_notes(root: etree._Element) -> list[str]:
    notes = []
    for child in root:
        if namespace(child.tag) == SCL and local(child.tag) == "postit":
            text = _text(child)
            notes.append(f"publisher editorial note (scl:postit) not rendered: {text}")
    return notes


def _document_element(root: etree._Element, sha: str) -> etree._Element:
    for child in root:
        if namespace(child.tag) in AKN_NAMESPACES:
            return child
    raise DerivationError("Akoma Ntoso document has no document element", code="malformed_akn", subject=sha)


def _has_main_body(el: etree._Element) -> bool:
    return next(el.iter("{*}mainBody"), None) is not None


def _sources(el: etree._Element, path: tuple[str, ...], reader: _Reader,
             out: list[tuple[etree._Element, tuple[str, ...]]]) -> None:
    for child in el:
        tag = local(child.tag)
        if not tag or namespace(child.tag) == SCL or tag in NOT_SOURCES:
            continue
        if tag == "article" or (tag in ("attachment", "doc") and _has_main_body(child)):
            out.append((child, path))
        elif tag in CONTAINERS:
            label = " — ".join(
                x for x in (reader.plain(_child(child, "num")), reader.plain(_child(child, "heading"))) if x
            )
            _sources(child, path + ((label,) if label else ()), reader, out)
        else:
            _sources(child, path, reader, out)


_JOLUX_NAME = f"{{{SCL}}}name"
_JOLUX_WORK = f"{{{SCL}}}JOLUXWork"


def _jolux_values(article: etree._Element) -> dict[str, str | None]:
    """The article's ``scl:JOLUXWork`` facts by ``scl:name``: the first ``jolux`` item of each
    name, its text folded (``None`` when empty), every name in one pass over the article's children."""
    values: dict[str, str | None] = {}
    # lxml's tag filters select in C what ``namespace``/``local`` would (``{*}``: any namespace or none)
    for work in article.iterchildren(_JOLUX_WORK):
        for res in work.iterchildren("{*}JOLUXLegalResource"):
            for item in res.iterchildren("{*}jolux"):
                name = item.get(_JOLUX_NAME)
                if name is not None and name not in values:
                    values[name] = collapse_ws(item.text or "") or None
    return values


def _index_terms(el: etree._Element) -> tuple[str, ...]:
    terms: list[str] = []
    for block in el.iter(f"{{{SCL}}}indexterms"):
        if next(block.iterancestors("{*}indexterm"), None) is not None:
            continue
        _collect_terms(block, "", terms)
    return tuple(dict.fromkeys(terms))


def _collect_terms(block: etree._Element, prefix: str, terms: list[str]) -> None:
    for term in block.iterchildren("{*}indexterm"):
        label_el = next(term.iterchildren("{*}label"), None)
        label = _text(label_el) if label_el is not None else ""
        label = label.lstrip("-– ").strip() if prefix else label
        full = f"{prefix} — {label}" if prefix and label else (label or prefix)
        if full:
            terms.append(full)
        for sub in term.iterchildren("{*}indexterms"):
            _collect_terms(sub, full, terms)


def _article_draft(el: etree._Element, path: tuple[str, ...], n: int, reader: _Reader) -> Draft:
    reader.state.reset()
    body = reader.children_blocks(el, skip=("num", "heading"))
    jolux = _jolux_values(el)
    return Draft(
        anchor=el.get("id") or f"article_{n}", type="article",
        num=reader.plain(_child(el, "num")), heading=reader.plain(_child(el, "heading")), path=path,
        body=reader.body(body), citations=list(reader.state.citations),
        article_valid_from=jolux.get("dateApplicability"), eli=jolux.get("uriThis"),
        index_terms=_index_terms(el), figures=list(reader.state.figures),
    )


def _annex_draft(el: etree._Element, path: tuple[str, ...], n: int, reader: _Reader) -> Draft:
    reader.state.reset()
    title_el = next((x for x in el.iter() if local(x.tag) == "longTitle"), None)
    heading = reader.plain(title_el)
    main = next(x for x in el.iter() if local(x.tag) == "mainBody")
    body = reader.blocks(main)
    anchor = el.get("id") or (slug(heading) if heading else f"annex_{n}")
    return Draft(anchor=anchor, type="annex", num=None, heading=heading, path=path,
                 body=reader.body(body), citations=list(reader.state.citations),
                 figures=list(reader.state.figures))


def _drafts(doc: etree._Element, reader: _Reader) -> list[Draft]:
    sources: list[tuple[etree._Element, tuple[str, ...]]] = []
    _sources(doc, (), reader, sources)
    drafts = []
    counts = {"article": 0, "annex": 0}
    for el, path in sources:
        kind = "article" if local(el.tag) == "article" else "annex"
        counts[kind] += 1
        make = _article_draft if kind == "article" else _annex_draft
        drafts.append(make(el, path, counts[kind], reader))
    return drafts


def _notes(reader: _Reader, base: list[str]) -> list[str]:
    notes = list(base)
    if reader.state.deleted:
        notes.append(f"deleted text excluded: {reader.state.deleted} <del> span(s) (repealed wording, struck through)")
    return notes


def extract(data: bytes, *, language: str, limits: Limits = DEFAULT_LIMITS,
            sha256: str | None = None) -> ExtractionResult:
    """``akn-lu/1`` over one Legilux AKN body."""
    sha = body_sha256(data, sha256)
    root = _root(data, sha, limits)
    reader = _Reader(_notes_by_id(root))
    drafts = _drafts(_document_element(root, sha), reader)
    notes = _notes(reader, _postit_notes(root))
    if not drafts:
        notes.append("no article/annex elements found (profile coverage gap)")
    return finish(Context(PROFILE, language, sha, title_joiner=" "), drafts, notes)


def extract_document(data: bytes, *, language: str, limits: Limits = DEFAULT_LIMITS,
                     sha256: str | None = None) -> ExtractionResult:
    """``akn-lu-document/1``: the official ``body`` as one ``document`` provision."""
    sha = body_sha256(data, sha256)
    root = _root(data, sha, limits)
    reader = _Reader(_notes_by_id(root))
    doc = _document_element(root, sha)
    body_el = next((x for x in doc if local(x.tag) in ("body", "mainBody")), None)
    notes = _postit_notes(root)
    ctx = Context(DOCUMENT_PROFILE, language, sha, title_joiner=" ")
    blocks = reader.children_blocks(body_el) if body_el is not None else []
    if not blocks:
        return finish(ctx, [], _notes(reader, [*notes, "official body is empty; no text to extract"]))
    draft = Draft(anchor="document", type="document", num=None, heading=None, path=(),
                  body=reader.body(blocks), citations=list(reader.state.citations),
                  figures=list(reader.state.figures))
    notes.append("publisher markup exposes no article or annex boundary; "
                 "used the official AKN body as one document-level provision")
    return finish(ctx, [draft], _notes(reader, notes))
