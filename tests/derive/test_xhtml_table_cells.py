"""A table cell is folded once (``Walker.cell`` + ``gfm_table(folded=True)``).

``Walker.table`` used to hand ``gfm_table`` each cell's blocks joined by a space and let it fold
them again with :func:`derive.text.collapse_ws`. The walker's blocks are already folded but a
table (the only block with a line break), so ``Walker.cell`` folds again only a cell holding a
table and ``gfm_table`` is told not to. These tests hold that to the rule it stands for: on
random trees of the walker's blocks (tables in tables, lists, grids, numbered divisions, inline
markup, every kind of whitespace), every block is folded or holds a line break, every cell is the
fold of its joined blocks, and the tables render as the reference (fold every cell) does.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from derive.limits import parse_xml
from derive.profiles import xhtml_eu
from derive.text import collapse_ws, gfm_table


class _ReferenceWalker(xhtml_eu.Walker):
    """``table`` as it was before: each row's first-cell text read, every cell folded by ``gfm_table``."""

    def table(self, el: etree._Element) -> list[str]:
        grid = [
            [c for c in tr if xhtml_eu._name(c.tag) in ("td", "th")] for tr in xhtml_eu._rows(el)
        ]
        layout: list[tuple[list[etree._Element], str]] = []
        for row in grid:
            if row:
                first = xhtml_eu._text(row[0])
                if first or any(xhtml_eu._filled(c) for c in row[1:]):
                    layout.append((row, first))
        if layout and all(len(row) == 2 and 0 < len(first) <= 12 for row, first in layout):
            out: list[str] = []
            for row, _ in layout:
                out.extend(
                    xhtml_eu._mark(xhtml_eu._clean(self.inline(row[0])), self.children(row[1]))
                )
            return out
        table = gfm_table([[" ".join(self.children(c)) for c in row] for row, _ in layout])
        return [table] if table else []


_TEXTS = st.lists(
    st.sampled_from(
        [
            "",
            " ",
            "\n\t",
            "\r\n  ",
            "\u00a0",
            "\u2028",
            "\u3000",
            "\u200b",
            "\u2002",
            "◄",
            " ◄ ",
            "|",
            "a|b",
            "(a)",
            "1.",
            "x",
            "é",
            "Done at",
            "12",
            "(1)",
            "**",
            "*",
            "- ",
            "> ",
            "a longer cell text",
        ]
    ),
    max_size=4,
).map("".join)
_TAGS = st.sampled_from(
    [
        "p",
        "div",
        "span",
        "b",
        "i",
        "sup",
        "sub",
        "table",
        "tbody",
        "tr",
        "td",
        "th",
        "TD",
        "ul",
        "ol",
        "li",
        "a",
        "br",
        "img",
        "blockquote",
        "script",
    ]
)
_CLASSES = st.sampled_from(
    [None, None, "no-parag", "grid-container", "bold", "oj-note-tag", "modref", "normal"]
)
_HREFS = st.sampled_from(["#n1", "http://eur-lex.example/x", "", None])


@st.composite
def _element(draw: st.DrawFn, tag: str = "div", depth: int = 0) -> etree._Element:
    el = etree.Element(f"{{{xhtml_eu.XHTML}}}{tag}")
    el.text = draw(_TEXTS)
    for _ in range(draw(st.integers(0, 3 if depth < 3 else 0))):
        child = draw(_element(draw(_TAGS), depth + 1))
        cls, href = draw(_CLASSES), draw(_HREFS)
        if cls is not None:
            child.set("class", cls)
        if child.tag.endswith("}a") and href is not None:
            child.set("href", href)
        if child.tag.endswith("}ol") and draw(st.booleans()):
            child.set("start", draw(st.sampled_from(["3", " 2 ", "x", "-1"])))
        child.tail = draw(_TEXTS)
        el.append(child)
    return el


def _check_tree(root: etree._Element) -> None:
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        for block in xhtml_eu.Walker().blocks(el):
            assert block and ("\n" in block or collapse_ws(block) == block), (
                etree.tostring(el),
                block,
            )
        if xhtml_eu._name(el.tag) in ("td", "th"):
            joined = " ".join(xhtml_eu.Walker().children(el))
            assert xhtml_eu.Walker().cell(el) == collapse_ws(joined), etree.tostring(el)
        if xhtml_eu._name(el.tag) == "table":
            walker, reference = xhtml_eu.Walker(), _ReferenceWalker()
            assert walker.table(el) == reference.table(el), etree.tostring(el)
            assert (walker.citations, walker.calls, walker.images) == (
                reference.citations,
                reference.calls,
                reference.images,
            )


@settings(max_examples=100, deadline=None)
@given(_element())
def test_blocks_are_folded_and_cells_are_their_fold_on_random_trees(root: etree._Element) -> None:
    _check_tree(root)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(_element("td"), min_size=1, max_size=3), min_size=1, max_size=4))
def test_random_tables_render_as_the_reference(rows: list[list[etree._Element]]) -> None:
    table = etree.Element(f"{{{xhtml_eu.XHTML}}}table")
    for cells in rows:
        tr = etree.SubElement(table, f"{{{xhtml_eu.XHTML}}}tr")
        tr.extend(cells)
    _check_tree(table)


def test_a_cell_holding_a_table_is_folded_again() -> None:
    body = (
        '<table xmlns="http://www.w3.org/1999/xhtml"><tr><td>outer <b>one</b></td><td><p>before</p>'
        "<table><tr><td>x</td><td>y |z</td></tr><tr><td>1</td></tr></table><p>after</p></td></tr></table>"
    )
    root = parse_xml(body.encode(), "0" * 64)
    cell = root[0][1]
    assert "\n" in " ".join(xhtml_eu.Walker().children(cell))
    assert xhtml_eu.Walker().cell(cell) == "before | x | y \\|z | | --- | --- | | 1 | | after"
    assert xhtml_eu.Walker().table(root) == _ReferenceWalker().table(root)


def test_gfm_table_folded_takes_the_cells_as_they_are() -> None:
    rows = [["A", "B|C"], ["1"], ["", ""]]
    assert (
        gfm_table(rows, folded=True) == gfm_table(rows) == "| A | B\\|C |\n| --- | --- |\n| 1 |  |"
    )
    assert gfm_table([[" a  b "]]) == "| a b |\n| --- |"
