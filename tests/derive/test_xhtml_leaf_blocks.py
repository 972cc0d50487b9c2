"""Two shortcuts of the XHTML walker hold to the code they stand for.

``Walker.children`` renders a block child with no child node of its own (most paragraphs and
table cells), unless its tag is one of ``_BRANCHING``, by :func:`xhtml_eu._leaf_blocks` instead of
``Walker.blocks_named``; ``Walker.collect_notes`` takes the paragraphs that can be notes from
:func:`xhtml_eu._note_paragraphs` (libxml2) instead of reading every paragraph's class in Python.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from derive.profiles import xhtml_eu

_LEAF_TAGS = sorted(xhtml_eu.BLOCK_TAGS - xhtml_eu._BRANCHING)
_CLASSES = sorted(xhtml_eu._LEAF_DROPPED | {"grid-container", "norm", "tbl-txt", "note-ish", "boldface"})
_TEXT = st.text(alphabet=st.sampled_from(list("ab (1)◄▼►M\t\n\xa0\u2003\u2028\x85\r ")), max_size=12)


@st.composite
def _leaf(draw: st.DrawFn) -> etree._Element:
    el = etree.Element(f"{{{xhtml_eu.XHTML}}}{draw(st.sampled_from(_LEAF_TAGS))}")
    classes = draw(st.lists(st.sampled_from(_CLASSES), max_size=3))
    if classes or draw(st.booleans()):
        el.set("class", draw(st.sampled_from([" ", "\t"])).join(classes))
    text = draw(st.one_of(st.none(), _TEXT))
    if text is not None:
        el.text = text
    return el


@settings(max_examples=400, deadline=None)
@given(_leaf())
def test_a_leaf_block_renders_as_blocks_named_renders_it(el: etree._Element) -> None:
    walker = xhtml_eu.Walker()
    assert xhtml_eu._leaf_blocks(el) == walker.blocks_named(el, xhtml_eu._name(el.tag))
    assert not walker.citations and not walker.calls


@settings(max_examples=200, deadline=None)
@given(st.lists(_leaf(), max_size=5), _TEXT)
def test_children_of_leaf_blocks_are_the_blocks_of_each(leaves: list[etree._Element], gap: str) -> None:
    parent = etree.Element(f"{{{xhtml_eu.XHTML}}}div")
    expected: list[str] = []
    for leaf in leaves:
        expected.extend(xhtml_eu.Walker().blocks_named(leaf, xhtml_eu._name(leaf.tag)))
        leaf.tail = "\n "
        parent.append(leaf)
    if gap.isspace() and xhtml_eu._SEPARATORS.isdisjoint(gap):
        parent.text = gap
        assert xhtml_eu.Walker().children(parent) == expected


def test_note_paragraphs_are_the_xhtml_and_plain_paragraphs_with_note_in_their_class() -> None:
    root = etree.fromstring(
        f'<html xmlns="{xhtml_eu.XHTML}"><body>'
        '<p class="footnote">1</p><p class="norm">2</p><p>3</p><div class="note">4</div>'
        '<p xmlns="" class="oj-note">5</p><p xmlns="urn:other" class="note">6</p>'
        '<p class="notes x">7</p><table><tr><td><p class="x note">8</p></td></tr></table>'
        '</body></html>'.encode())
    reference = [p for p in root.iter(f"{{{xhtml_eu.XHTML}}}p", "p") if "note" in (p.get("class") or "")]
    assert xhtml_eu._note_paragraphs(root) == reference
    assert [p.text for p in reference] == ["1", "5", "7", "8"]

