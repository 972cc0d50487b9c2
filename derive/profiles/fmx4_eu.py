"""``fmx4-eu/1``: Formex 4 consolidated acts (``CONS.ACT``), the Publications Office's own XML.

- ``ARTICLE`` → anchor from ``TI.ART`` (``Article 50a`` → ``art_50a``), num = ``TI.ART``,
  heading = ``STI.ART``, path = ancestor ``DIVISION/TITLE`` ``TI — STI`` (plain text);
- ``CONS.ANNEX``/``ANNEX`` → anchor from the title (``ANNEX I`` → ``anx_I``), heading = title;
  an annex inside an annex is part of it (an appendix) unless titled as a numbered annex
  (``ANNEXE A`` inside ``ANNEXE X``): then it is a provision of its own, as in the XHTML;
- articles inside ``QUOT.STRUCT`` (quoted amending text) or inside another article are never
  provisions of their own; their text is rendered as a quotation in the quoting provision;
- blocks: ``PARAG`` (``NO.PARAG`` prefix), list items ``NP`` as ``<NO.P> <text>`` followed by
  nested lists as their own blocks, ``DLIST`` items as ``<TERM> = <DEFINITION>``, ``TBL`` as an
  optional bold title plus a GFM table, ``TITLE`` bold, formulas as linear text;
- inline: ``NOTE`` → a footnote reference ``[^n]`` (numbered per provision in order of call),
  its text appended to the provision as ``[^n]: …``; ``QUOT.START/END`` → the code point,
  ``HT`` bold/italic → ``**``/``*``, subscripts ``_x``, superscripts ``^x``,
  ``INCL.ELEMENT`` (an image the act references, ``FILEREF``) → a typed figure (media type from
  ``TYPE``, and the size and SHA-256 of the referenced file when the expression holds it) with
  the marker ``[figure n: image/tiff, 20144 bytes]`` in the text, never the image as text;
- amendment processing instructions (``<?CLG.MDFO … ACTIVE.DOC="32019R0876"?>``) become
  citations of the amending act; they never add text.

Main-member choice for a Formex expression (:func:`main_member`): the only non-``.doc.xml``
XML member, else the one the ``.doc.xml`` names in ``REF.PHYS TYPE="DOC.XML"``, else the largest.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from lxml import etree

from derive.anchors import annex_number, eu_annex_anchor, eu_article_anchor
from derive.limits import (
    DEFAULT_LIMITS,
    Limits,
    body_sha256,
    known_local,
    local,
    namespace,
    parse_xml,
    read_zip,
)
from derive.model import Citation, Draft, ExtractionResult, Figure
from derive.render import Context, finish
from derive.text import article_anchor, collapse_ws, emphasis, gfm_table, media_type_of, prefix_num
from legal.errors import DerivationError
from legal.identifiers import CELEX_RESOURCE

PROFILE = "fmx4-eu/4"
ROOTS = frozenset({"CONS.ACT", "ACT"})
SKIP = frozenset({
    "TOC", "BIB.INSTANCE.CONS", "BIB.INSTANCE", "BIB.DATA", "INFO.CONSLEG", "INFO.PROD",
    "PUBLICATION.REF", "PREAMBLE", "PREAMBLE.INIT", "PREAMBLE.FINAL", "GR.VISA", "GR.CONSID",
    "GR.CORRIG", "GR.MOD.ACT", "FAM.COMP", "INCLUSIONS", "NOTE", "TI.ART", "STI.ART", "IE",
})
BLOCK = frozenset({
    "LIST", "TBL", "PARAG", "NP", "GR.SEQ", "ALINEA", "TITLE", "P", "DLIST", "QUOT.STRUCT",
    "ITEM", "CONTENTS", "TXT", "FORMULA_OUTLINE", "GR.NOTES", "ARTICLE", "DIVISION",
})
# elements that are blocks where they stand but may be read inline (a QUOT.S quoting a whole
# article): each keeps a word boundary on both sides
INLINE_BLOCKS = frozenset({"TI", "STI", "TI.ART", "STI.ART", "CELL", "ROW", "NO.PARAG", "NO.P", "TERM", "DEFINITION",
                           "DLIST.ITEM", "GR.TBL", "CORPUS", "GR.SEQ", "TOC.BLK", "TOC.ITEM", "NO.ITEM",
                           "ITEM.CONT"})
OPS = {"MULT": "·", "PLUS": "+", "MINUS": "−", "DIV": "÷", "PLUSMINUS": "±", "EQ": "=",
       "NE": "≠", "LT": "<", "GT": ">", "LE": "≤", "GE": "≥", "APPROX": "≈", "EQUIV": "≡"}
BRACKETS = {"BRACKET": ("[", "]"), "BRACE": ("{", "}"), "PARENTHESIS": ("(", ")")}
_ACTIVE_DOC = re.compile(r'ACTIVE\.DOC="([^"]+)"')
_ACTION = re.compile(r'ACTION="([^"]+)"')


Attachment = tuple[str, int | None]  # (sha256, size) of a file an expression holds beside its main member


@dataclass
class _State:
    citations: list[Citation] = field(default_factory=list)
    footnotes: list[str] = field(default_factory=list)  # ``[^n]: text`` of the current provision
    figures: list[Figure] = field(default_factory=list)


class _Reader:
    def __init__(self, attachments: Mapping[str, Attachment] | None = None) -> None:
        self.state = _State()
        self.active: set[str] = set()
        self.attachments = attachments or {}
        self.split: set[etree._Element] = set()  # annexes inside an annex that are provisions of their own

    def start(self) -> None:
        self.state.citations, self.state.footnotes, self.state.figures = [], [], []

    def figure(self, el: etree._Element) -> str:
        """``INCL.ELEMENT`` → a typed figure and its marker (the file is described, never inlined)."""
        ref = collapse_ws(el.get("FILEREF") or "") or "no source"
        sha, size = self.attachments.get(ref, (None, None))
        kind = media_type_of(f"x.{el.get('TYPE')}") if el.get("TYPE") else None
        fig = Figure(n=len(self.state.figures) + 1, media_type=kind or media_type_of(ref), size=size, sha256=sha,
                     src=ref)
        self.state.figures.append(fig)
        return f" {fig.marker()} "

    def note(self, el: etree._Element) -> str:
        """A footnote: ``[^n]`` where it is called (numbered per provision in order of call, so a
        note added elsewhere never changes this provision), its text appended to the provision."""
        number = len(self.state.footnotes) + 1
        self.state.footnotes.append("")  # reserve the number before rendering nested notes
        self.state.footnotes[number - 1] = f"[^{number}]: " + " ".join(self.children(el))
        return f"[^{number}]"

    def body(self, blocks: list[str]) -> str:
        return "\n\n".join([*blocks, *self.state.footnotes])

    # -- inline ---------------------------------------------------------------------------
    def inline(self, el: etree._Element, plain: bool = False) -> str:
        out = [el.text or ""]
        for child in el:
            out.append(self.inline_child(child, plain))
            out.append(child.tail or "")
        return "".join(out)

    def inline_child(self, el: etree._Element, plain: bool) -> str:
        if isinstance(el, etree._ProcessingInstruction):
            self.provenance(el, plain)
            return ""
        name = el.tag
        tag = known_local(name) or local(name)
        if not tag:
            return ""
        if tag == "NOTE":
            return "" if plain else self.note(el)
        if tag in ("QUOT.START", "QUOT.END"):
            return _code_point(el.get("CODE"))
        if tag in ("IE", "INCLUSIONS"):
            return ""
        if tag == "INCL.ELEMENT":
            return "" if plain else self.figure(el)
        if tag in ("OP.MATH", "OP.CMP"):
            return f" {OPS.get(el.get('TYPE', ''), el.get('TYPE', '').lower())} "
        if tag in BLOCK or tag in INLINE_BLOCKS:
            return f" {self.inline(el, plain)} "  # a block read inline keeps a word boundary
        marker = {"BOLD": "**", "ITALIC": "*"}.get(el.get("TYPE", "")) if tag == "HT" else None
        if marker is None or plain or marker in self.active:
            inner = self.inline(el, plain)
            return inner if marker else _styled(tag, el, inner, plain, self)
        self.active.add(marker)
        inner = self.inline(el, plain)
        self.active.discard(marker)
        return emphasis(inner, marker)

    def provenance(self, pi: etree._ProcessingInstruction, plain: bool) -> None:
        if plain or pi.target != "CLG.MDFO":
            return
        text = pi.text or ""
        doc = _ACTIVE_DOC.search(text)
        if doc:
            action = _ACTION.search(text)
            label = f"{(action.group(1) if action else 'amended').lower()} by {doc.group(1)}"
            self.state.citations.append(
                Citation(href=CELEX_RESOURCE + doc.group(1), text=label)
            )

    def plain(self, el: etree._Element | None) -> str | None:
        if el is None:
            return None
        return collapse_ws(self.inline(el, plain=True)) or None

    # -- blocks ---------------------------------------------------------------------------
    def blocks(self, el: etree._Element) -> list[str]:
        if isinstance(el, etree._ProcessingInstruction):
            self.provenance(el, plain=False)
            return []
        name = el.tag
        tag = known_local(name) or local(name)
        if tag and tag not in _BLOCKS_SPECIAL:  # most blocks (paragraphs, cells): their mixed content
            return self.mixed(el)
        if tag == "NOTE":
            call = self.note(el)
            return [call] if call else []
        if not tag or tag in SKIP or (tag in ("CONS.ANNEX", "ANNEX") and el in self.split):
            return []
        if tag == "PARAG":
            num = self.plain(_child(el, "NO.PARAG"))
            return prefix_num(num, self.children(el, skip=("NO.PARAG",)))
        if tag == "LIST":
            return self.children(el)
        if tag == "ITEM":
            return self.children(el) if _child(el, "NP") is not None else _mark("-", self.mixed(el))
        if tag == "NP":
            return _mark(self.plain(_child(el, "NO.P")) or "-", self.mixed(el, skip=("NO.P",)))
        if tag == "DLIST":
            return [self.dlist_item(i, el.get("SEPARATOR")) for i in el if local(i.tag) == "DLIST.ITEM"]
        if tag == "TBL":
            return self.table(el)
        if tag == "TITLE":
            label = " — ".join(x for x in (self.plain(_child(el, "TI")), self.plain(_child(el, "STI"))) if x)
            return [f"**{label}**"] if label else []
        if tag == "QUOT.STRUCT":
            return [_quote(b) for b in self.children(el)]
        if tag == "ARTICLE":
            label = " — ".join(x for x in (self.plain(_child(el, "TI.ART")), self.plain(_child(el, "STI.ART"))) if x)
            return ([f"**{label}**"] if label else []) + self.children(el)
        if tag == "FORMULA" and el.get("TYPE") != "INLINE":
            return [collapse_ws(self.inline(el))]
        return self.mixed(el)

    def children(self, el: etree._Element, skip: tuple[str, ...] = ()) -> list[str]:
        out: list[str] = []
        for child in el:
            name = child.tag
            if (known_local(name) or local(name)) not in skip:
                out.extend(self.blocks(child))
        return [b for b in out if b]

    def mixed(self, el: etree._Element, skip: tuple[str, ...] = ()) -> list[str]:
        """The blocks of ``el``'s mixed content: each run of text and inline children between
        two block children folded to one block, the block children's own blocks in between,
        empty blocks dropped. A leaf (no child node at all) is its folded text; a run that folds
        to nothing (:func:`_blank`) is dropped without folding."""
        if not len(el):
            text = el.text
            if not text:
                return []
            text = collapse_ws(text)
            return [text] if text else []
        out: list[str] = []
        run = [el.text or ""]
        for child in el:
            name = child.tag
            tag = known_local(name) or local(name)
            if tag in skip:
                pass
            elif tag in BLOCK or (tag == "FORMULA" and child.get("TYPE") != "INLINE"):
                text = "".join(run)
                if text and not _blank(text):
                    text = collapse_ws(text)
                    if text:
                        out.append(text)
                run = []
                out.extend(filter(None, self.blocks(child)))
            else:
                run.append(self.inline_child(child, plain=False))
            run.append(child.tail or "")
        text = "".join(run)
        if text and not _blank(text):
            text = collapse_ws(text)
            if text:
                out.append(text)
        return out

    def dlist_item(self, item: etree._Element, separator: str | None) -> str:
        term_el, def_el = _child(item, "TERM"), _child(item, "DEFINITION")
        term = collapse_ws(self.inline(term_el)) if term_el is not None else ""
        definition = " ".join(self.mixed(def_el)) if def_el is not None else ""
        joiner = f" {separator} " if separator else " "
        return collapse_ws(joiner.join(x for x in (term, definition) if x))

    def table(self, el: etree._Element) -> list[str]:
        title = _child(el, "TITLE")
        out = self.blocks(title) if title is not None else []
        rows = []
        for row in el.iter("ROW"):
            rows.append([" ".join(self.mixed(c)) for c in row if local(c.tag) == "CELL"])
        table = gfm_table(rows)
        return out + ([table] if table else [])


#: The tags :meth:`_Reader.blocks` renders otherwise than as mixed content (:meth:`_Reader.mixed`);
#: a ``FORMULA`` only when it is not inline, a ``CONS.ANNEX``/``ANNEX`` only when split off.
_BLOCKS_SPECIAL = SKIP | frozenset({"NOTE", "CONS.ANNEX", "ANNEX", "PARAG", "LIST", "ITEM", "NP", "DLIST", "TBL",
                                    "TITLE", "QUOT.STRUCT", "ARTICLE", "FORMULA"})


def _styled(tag: str, el: etree._Element, inner: str, plain: bool, reader: _Reader) -> str:
    if tag == "HT":
        kind = el.get("TYPE", "")
        if kind == "SUB":
            return "_" + collapse_ws(inner)
        if kind == "SUP":
            return "^" + collapse_ws(inner)
        return inner
    if tag == "IND":
        return ("^" if el.get("LOC") == "SUP" else "_") + collapse_ws(inner)
    if tag == "EXPONENT":
        return "^" + collapse_ws(inner)
    if tag == "EXPR":
        opening, closing = BRACKETS.get(el.get("TYPE", ""), ("", ""))
        return f"{opening}{inner}{closing}"
    if tag == "FRACTION":
        dividend_el, divisor_el = _child(el, "DIVIDEND"), _child(el, "DIVISOR")
        dividend = reader.inline(dividend_el) if dividend_el is not None else ""
        divisor = reader.inline(divisor_el) if divisor_el is not None else ""
        return f"{_group(dividend)}/{_group(divisor)}"
    if tag == "SUM":
        under = _child(el, "UNDER")
        over = _child(el, "OVER")
        text = "∑"
        text += "_" + _group(reader.inline(under)) if under is not None else ""
        text += "^" + _group(reader.inline(over)) if over is not None else ""
        return text + " "
    if tag == "ROOT":
        return f"√{_group(inner)}"
    return inner


def _blank(text: str) -> bool:
    """True when :func:`collapse_ws` folds ``text`` to ``""``: only .NET whitespace, i.e. Python's
    whitespace but the four separators U+001C–U+001F, which ``collapse_ws`` keeps."""
    return text.isspace() and "\x1c" not in text and "\x1d" not in text and "\x1e" not in text and "\x1f" not in text


_OPERATORS = frozenset(" +−-·÷/=<>≤≥±")


def _group(text: str) -> str:
    value = collapse_ws(text)
    return f"({value})" if _OPERATORS.intersection(value) else value


def _code_point(code: str | None) -> str:
    try:
        return chr(int(code or "", 16))
    except ValueError:
        return ""


def _child(el: etree._Element | None, name: str) -> etree._Element | None:
    if el is None:
        return None
    for child in el:
        tag = child.tag
        if (known_local(tag) or local(tag)) == name:
            return child
    return None


def _quote(block: str) -> str:
    return "\n".join("> " + line if line else ">" for line in block.split("\n"))


def _mark(marker: str, body: list[str]) -> list[str]:
    if not body:
        return []
    if body[0].startswith(("|", ">", "**")):
        return [marker, *body]
    return [f"{marker} {body[0]}", *body[1:]]


# -- provisions -----------------------------------------------------------------------------


def _sources(el: etree._Element, path: tuple[str, ...], reader: _Reader,
             out: list[tuple[etree._Element, tuple[str, ...]]]) -> None:
    for child in el:
        tag = local(child.tag)
        if not tag or tag in SKIP or tag == "QUOT.STRUCT":
            continue
        if tag in ("ARTICLE", "CONS.ANNEX", "ANNEX"):
            out.append((child, path))
            if tag != "ARTICLE":
                for inner in _named_annexes(child, reader):
                    reader.split.add(inner)
                    out.append((inner, path))
        elif tag == "DIVISION":
            title = _child(child, "TITLE")
            parts = (reader.plain(_child(title, "TI")), reader.plain(_child(title, "STI")))
            label = " — ".join(x for x in parts if x)
            _sources(child, path + ((label,) if label else ()), reader, out)
        else:
            _sources(child, path, reader, out)


def _annex_key(el: etree._Element, reader: _Reader) -> str | None:
    ti = _child(_child(el, "TITLE"), "TI")
    first = _child(ti, "P") if ti is not None else None
    return reader.plain(first) or reader.plain(ti)


def _named_annexes(annex: etree._Element, reader: _Reader) -> list[etree._Element]:
    """Annexes inside an annex that the publisher titles as annexes of their own (``ANNEXE A`` in
    ``ANNEXE X`` of 32018R0858), not appendices: provisions of their own, as the XHTML of the same
    act gives them (``anx_A``), so the anchor does not depend on the manifestation."""
    found = []
    for child in annex:
        if local(child.tag) in ("CONS.ANNEX", "ANNEX"):
            key = _annex_key(child, reader)
            if key and annex_number(key):
                found.append(child)
    return found


_IDENTIFIER = re.compile(r"^0*([0-9]+[A-Z]*)$")


def _article_anchor(el: etree._Element, num: str | None, n: int) -> str:
    """``IDENTIFIER="078A"`` → ``art_78a`` (language-independent); else from ``TI.ART``."""
    match = _IDENTIFIER.match(el.get("IDENTIFIER") or "")
    if match:
        return "art_" + match.group(1).lower()
    if num:
        return eu_article_anchor(num) or article_anchor(re.sub(r"(?i)\b(premier|1er)\b", "1", num))
    return f"article_{n}"


def _article(el: etree._Element, path: tuple[str, ...], n: int, reader: _Reader) -> Draft:
    reader.start()
    num = reader.plain(_child(el, "TI.ART"))
    body = reader.children(el, skip=("TI.ART", "STI.ART"))
    return Draft(anchor=_article_anchor(el, num, n), type="article", num=num,
                 heading=reader.plain(_child(el, "STI.ART")), path=path, body=reader.body(body),
                 citations=list(reader.state.citations), figures=list(reader.state.figures))


def _annex(el: etree._Element, path: tuple[str, ...], n: int, reader: _Reader) -> Draft:
    reader.start()
    heading = reader.plain(_child(_child(el, "TITLE"), "TI"))
    key = _annex_key(el, reader)
    body = reader.children(el, skip=("TITLE",))
    return Draft(anchor=eu_annex_anchor(key) if key else f"annex_{n}", type="annex", num=None,
                 heading=heading, path=path, body=reader.body(body), citations=list(reader.state.citations),
                 figures=list(reader.state.figures))


def extract(data: bytes, *, language: str, limits: Limits = DEFAULT_LIMITS,
            attachments: Mapping[str, Attachment] | None = None, sha256: str | None = None) -> ExtractionResult:
    """``fmx4-eu/1`` over one Formex main member (``CONS.ACT`` XML). ``attachments``: the other
    files of the expression by name (``sha256``, size), which describe the figures it references."""
    sha = body_sha256(data, sha256)
    root = parse_xml(data, sha, limits)
    if namespace(root.tag) or local(root.tag) not in ROOTS:
        raise DerivationError(f"not a Formex 4 act: root {root.tag!r}", code="unknown_namespace", subject=sha)
    reader = _Reader(attachments)
    sources: list[tuple[etree._Element, tuple[str, ...]]] = []
    _sources(root, (), reader, sources)
    drafts = []
    counts = {"a": 0, "x": 0}
    for el, path in sources:
        if local(el.tag) == "ARTICLE":
            counts["a"] += 1
            drafts.append(_article(el, path, counts["a"], reader))
        else:
            counts["x"] += 1
            drafts.append(_annex(el, path, counts["x"], reader))
    notes = _consleg_notes(root)
    if not drafts:
        notes.append("no ARTICLE or annex elements found (profile coverage gap)")
    return finish(Context(PROFILE, language, sha), drafts, notes)


def _consleg_notes(root: etree._Element) -> list[str]:
    info = _child(root, "INFO.CONSLEG")
    if info is None:
        return []
    start, produced = info.get("START.DATE"), info.get("CONSLEG.DATE")
    if start and produced and start != produced:
        return [f"consolidation produced {produced} for the wording state {start} "
                "(may include corrigenda published after that date)"]
    return []


# -- Formex expressions: members and zips ---------------------------------------------------


def main_member(members: dict[str, bytes]) -> str | None:
    """Name of the Formex main member among an expression's members (model §6.2)."""
    xml = sorted(n for n in members if n.lower().endswith(".xml") and not n.lower().endswith(".doc.xml"))
    if len(xml) == 1:
        return xml[0]
    if not xml:
        return None
    for name in sorted(n for n in members if n.lower().endswith(".doc.xml")):
        match = re.search(rb'REF\.PHYS[^>]*FILE="([^"]+)"[^>]*TYPE="DOC\.XML"', members[name])
        if match and match.group(1).decode("utf-8", "replace") in members:
            return match.group(1).decode("utf-8", "replace")
    return max(xml, key=lambda n: (len(members[n]), n))


def main_member_name(names_and_sizes: dict[str, int], doc_xml: dict[str, bytes]) -> str | None:
    """Like :func:`main_member` when only sizes (and the small ``.doc.xml`` bytes) are at hand."""
    xml = sorted(n for n in names_and_sizes if n.lower().endswith(".xml") and not n.lower().endswith(".doc.xml"))
    if len(xml) <= 1:
        return xml[0] if xml else None
    for name in sorted(doc_xml):
        match = re.search(rb'REF\.PHYS[^>]*FILE="([^"]+)"[^>]*TYPE="DOC\.XML"', doc_xml[name])
        if match and match.group(1).decode("utf-8", "replace") in names_and_sizes:
            return match.group(1).decode("utf-8", "replace")
    return max(xml, key=lambda n: (names_and_sizes[n], n))


def extract_zip(data: bytes, *, language: str, limits: Limits = DEFAULT_LIMITS,
                sha256: str | None = None) -> ExtractionResult:
    """``fmx4-eu/1`` over a Formex zip as Cellar serves it (bomb- and traversal-guarded)."""
    sha = body_sha256(data, sha256)
    members = read_zip(data, sha, limits)
    name = main_member(members)
    if name is None:
        raise DerivationError("Formex zip has no main XML member", code="formex_no_main_member", subject=sha)
    files = {n.rsplit("/", 1)[-1]: (hashlib.sha256(b).hexdigest(), len(b)) for n, b in members.items() if n != name}
    return extract(members[name], language=language, limits=limits, attachments=files)
