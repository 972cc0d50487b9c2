"""The flat layout's signature pre-test (``xhtml_eu._plain_head``) against the rule it stands for.

The flat layout used to render every content paragraph's plain text to ask two things of it: is
it empty, and is it a signature (``Done at …``). ``_plain_head`` answers from the start of the
content when it can; these tests hold it to ``Walker.plain``: whenever it answers, ``plain`` is
empty (``""``) or starts with the character it gave, and is then no signature.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from derive.limits import DEFAULT_LIMITS, parse_xml
from derive.profiles import html_eu, xhtml_eu


def _agrees(el: etree._Element, walker: xhtml_eu.Walker) -> bool:
    """True when ``_plain_head`` answered (else False); raises when its answer is wrong."""
    head = xhtml_eu._plain_head(el)
    if head is None:
        return False
    plain = walker.plain(el)
    if head == "":
        assert plain is None, (etree.tostring(el), plain)
    else:
        assert plain is not None and plain.startswith(head), (etree.tostring(el), head, plain)
        assert not xhtml_eu._SIGNATURE.match(plain), (etree.tostring(el), plain)
    return True


# texts: whitespace of both kinds, closing arrows, the call punctuation, signatures (with the
# Unicode letters a case-insensitive match folds: long s, Kelvin sign, dotless and dotted i)
_TEXTS = st.lists(
    st.sampled_from(
        [
            "",
            " ",
            "\n\t",
            "\u00a0",
            "\u2028",
            "\u3000",
            "\u200b",
            "◄",
            " ◄ ",
            "(",
            ")",
            "*",
            "**",
            "( ",
            " )",
            "1",
            "x",
            "é",
            "D",
            "d",
            "F",
            "f",
            "g",
            "H",
            "h",
            "ſ",
            "K",
            "ı",
            "İ",
            "Done at Brussels",
            "DONE AT ",
            "done\u00a0at",
            "Fait à Bruxelles",
            "fait À ",
            "Geſchehen zu Brüſſel",
            "Geschehen zu ",
            "Hecho en ",
            "Fatto a ",
            "Gedaan te ",
            "Done",
            " at ",
            "Article 1",
            "(a) ",
            "(*",
            "( *",
            "(\u00a0",
            "(◄",
        ]
    ),
    max_size=4,
).map("".join)

_CHILD_TAGS = st.sampled_from(
    [
        "span",
        "b",
        "i",
        "sup",
        "sub",
        "p",
        "div",
        "td",
        "a",
        "A",
        "br",
        "BR",
        "img",
        "script",
        "SCRIPT",
        "style",
        "note",
        "comment",
        "pi",
    ]
)
_HREFS = st.sampled_from(["#n1", "#x", "http://eur-lex.example/x", "", None])
_CLASSES = st.sampled_from([None, "oj-note-tag", "bold", "italics", "superscript", "normal"])


@st.composite
def _element(draw: st.DrawFn, depth: int = 0) -> etree._Element:
    el = etree.Element(f"{{{xhtml_eu.XHTML}}}p")
    el.text = draw(_TEXTS)
    for _ in range(draw(st.integers(0, 3 if depth < 3 else 0))):
        tag = draw(_CHILD_TAGS)
        child: etree._Element
        if tag == "comment":
            child = etree.Comment(draw(_TEXTS) or "c")
        elif tag == "pi":
            child = etree.ProcessingInstruction("pi", draw(_TEXTS) or "p")
        else:
            child = draw(_element(depth + 1))
            child.tag = f"{{{xhtml_eu.XHTML}}}{tag}"
            href, cls = draw(_HREFS), draw(_CLASSES)
            if tag in ("a", "A") and href is not None:
                child.set("href", href)
            if cls is not None:
                child.set("class", cls)
        child.tail = draw(_TEXTS)
        el.append(child)
    return el


@settings(max_examples=300, deadline=None)
@given(_element())
def test_the_head_agrees_with_plain_on_random_paragraphs(root: etree._Element) -> None:
    walker = xhtml_eu.Walker()
    for el in root.iter():
        if isinstance(el.tag, str):
            _agrees(el, walker)


def test_the_head_agrees_with_plain_on_the_cases_it_must_refuse() -> None:
    walker = xhtml_eu.Walker()
    x = xhtml_eu.XHTML

    def para(body: str) -> etree._Element:
        return etree.fromstring(f'<p xmlns="{x}">{body}</p>')

    # a call stripped with its "(" and "*": the plain text is a signature
    for body in (
        '(<a href="#n1">1</a>) Done at Brussels',
        '( ** <a href="#n1">1</a> ** ) Done at Brussels',
        '<a href="#n1">1</a>Done at Brussels',
        " ◄ <script>x</script>Done at Brussels",
        "<br>x</br><!-- c --><?pi x?>Geſchehen zu Bonn",
        "ıgnored",
        "\u00a0\u3000done AT Bonn",
    ):
        el = para(body)
        _agrees(el, walker)
        plain = walker.plain(el) or ""
        if "Done" in body or "Geſchehen" in body or "done" in body:
            assert xhtml_eu._SIGNATURE.match(plain), (body, plain)
            assert xhtml_eu._plain_head(el) is None
    answered = {
        body: xhtml_eu._plain_head(para(body))
        for body in (
            "(1) Member States",
            "(<b>a</b>) point",
            " ◄ \n",
            "",
            "<img/>  <br/>",
            "(",
            "*Done at",
            "Article 1",
        )
    }
    assert answered == {
        "(1) Member States": "(",
        "(<b>a</b>) point": "(",
        " ◄ \n": "",
        "": "",
        "<img/>  <br/>": "",
        "(": "(",
        "*Done at": "*",
        "Article 1": "A",
    }


def test_the_head_agrees_with_plain_on_every_element_of_real_bodies(
    eu_body: Callable[[str], bytes],
) -> None:
    walker = xhtml_eu.Walker()
    answered = 0
    for rel in (
        "32013r1336/2016-04-18/en.html",
        "32016r0679/2016-05-04/en.html",
        "12016e062/2016-06-07/en.xml",
    ):
        root = parse_xml(eu_body(rel), "0" * 64)
        for el in root.iter():
            if isinstance(el.tag, str):
                answered += _agrees(el, walker)
    assert answered > 1000


def test_no_signature_starts_with_a_character_the_head_lets_pass() -> None:
    # every alternative of the signature with each code point in place of its first letter: the
    # code points that then match are exactly those the head refuses (a case-insensitive match
    # folds no other letter to D, F, G or H)
    words = re.search(r"\(\?:([^)]*)\)", xhtml_eu._SIGNATURE.pattern).group(1).split("|")  # type: ignore[union-attr]
    assert len(words) == 6
    tails = [w[1:] + " " for w in words]
    match = xhtml_eu._SIGNATURE.match
    starts = [c for c in map(chr, range(sys.maxunicode + 1)) if any(match(c + t) for t in tails)]
    assert sorted(starts) == sorted("DFGHdfgh")
    assert all(xhtml_eu._SIGNATURE_HEAD.match(c) for c in starts)
    assert not any(xhtml_eu._SIGNATURE_HEAD.match(c) for c in "ſKıİ")


def test_head_characters_are_those_plain_can_start_with() -> None:
    for code in range(0x3100):
        ch = chr(code)
        kept = (not ch.isspace() and ch != "◄") or ch in xhtml_eu._SEPARATORS
        assert bool(xhtml_eu._HEAD.match(ch)) == kept, hex(code)
        assert bool(xhtml_eu._NOT_SPACE.match(ch)) == (re.match(r"\s", ch) is None)


def test_the_tolerant_profile_reads_its_flat_stream_the_same(
    eu_body: Callable[[str], bytes],
) -> None:
    # html-eu-tolerant shares the flat layout: its repaired trees (lxml.html) answer the same
    walker = xhtml_eu.Walker()
    answered = 0
    for rel in ("11997e083/1957-03-25/en.html", "31978l0583/1978-06-26/fr.html"):
        root = html_eu.parse_html(eu_body(rel), "0" * 64, DEFAULT_LIMITS)
        answered += sum(_agrees(el, walker) for el in root.iter() if isinstance(el.tag, str))
    assert answered > 50


def test_a_note_tag_is_read_as_its_text_whatever_its_tag() -> None:
    # ``Walker.inline_child`` reads an element of a note-tag class as its text even when it is an
    # ``img`` or an ``a``: the head must read it too (found by the random paragraphs above)
    walker = xhtml_eu.Walker()
    x = xhtml_eu.XHTML
    cases = {
        '<img class="oj-note-tag">\u200b</img>': "\u200b",
        '<img class="oj-note-tag"/>  x': "x",
        '<a class="note-tag" href="#n1">Done at</a> Brussels': None,
        '<a class="oj-note-tag" href="#n1"> Article 1</a>': "A",
        '<br class="oj-note-tag">Done at</br>x': "x",
        '<script class="oj-note-tag">Done at</script>': "",
    }
    for body, head in cases.items():
        el = etree.fromstring(f'<p xmlns="{x}">{body}</p>')
        assert xhtml_eu._plain_head(el) == head, body
        _agrees(el, walker)
