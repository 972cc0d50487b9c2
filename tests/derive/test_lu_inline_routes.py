"""The Legilux AKN walker's per-tag inline routes and leaf shortcuts (issue #13, session 14) give
exactly what the per-element tests they replace gave.

``_PreviousReader`` holds the walker as it was (``inline_child`` testing the local name, namespace
and tag sets per element; ``inline``/``mixed`` calling ``_tail``; every block child through
``blocks``) and is the oracle: the whole extraction result must be equal on real fixture bodies and
on hand-made bodies that take every route (``br``, ``noteRef``, ``img``, ``ref``/``a`` with and
without ``href`` and with children, nested emphasis, ``del`` inside a link, blocks read inline,
``embeddedText``, ``scl:`` elements, processing instructions, empty elements before punctuation).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from derive.limits import known_local, known_namespace, local, namespace
from derive.model import Citation
from derive.profiles import akn_lu
from derive.text import DOTNET_WHITESPACE, collapse_ws, figure

AKN = "http://docs.oasis-open.org/legaldocml/ns/akn/3.0"
SCL = akn_lu.SCL


class _PreviousReader(akn_lu._Reader):
    """The walker before the per-tag inline routes and the leaf shortcuts."""

    def inline(self, el: etree._Element, plain: bool = False) -> str:
        out = [el.text or ""]
        for child in el:
            rendered = self.inline_child(child, plain)
            out.append(rendered)
            out.append(akn_lu._tail(child, rendered))
        return "".join(out)

    def inline_child(self, el: etree._Element, plain: bool) -> str:
        name = el.tag
        tag = known_local(name) or local(name)
        if not tag or (known_namespace(name) or namespace(name)) == SCL:
            return ""
        if tag == "del":
            self.state.deleted += 1
            return ""
        if tag in akn_lu.SILENT:
            return ""
        if tag == "br":
            return " "
        if tag == "noteRef":
            return "" if plain else self.note_ref(el)
        if tag == "img":
            if plain:
                return ""
            fig = figure(len(self.state.figures) + 1, el.get("src", ""))
            self.state.figures.append(fig)
            return f" {fig.marker()} "
        if tag in ("ref", "a") and el.get("href") is not None and not plain:
            text = collapse_ws(self.inline(el, plain=True))
            if text:
                self.state.citations.append(Citation(href=el.get("href", ""), text=text))
        if (tag in akn_lu.BLOCK and tag not in ("num", "heading")) or tag == "embeddedText":
            return f" {self.inline(el, plain)} "
        marker = {"b": "**", "strong": "**", "i": "*", "em": "*"}.get(tag)
        if plain or marker is None or marker in self.active:
            return self.inline(el, plain)
        self.active.add(marker)
        inner = self.inline(el, plain)
        self.active.discard(marker)
        return akn_lu._emphasis(inner, marker)

    def children_blocks(self, el: etree._Element, skip: tuple[str, ...] = ()) -> list[str]:
        out: list[str] = []
        for child in el:
            name = child.tag
            if (known_local(name) or local(name)) not in skip:
                out.extend(self.blocks(child))
        return out

    def mixed(self, el: etree._Element) -> list[str]:
        if not len(el):
            text = collapse_ws(el.text or "")
            return [text] if text else []
        out: list[str] = []
        run = [el.text or ""]
        for child in el:
            if akn_lu._IS_BLOCK[child.tag]:
                if len(run) > 1:
                    out.append(akn_lu._flush(run))
                elif run[0].strip(DOTNET_WHITESPACE):
                    out.append(collapse_ws(run[0]))
                out.extend(self.blocks(child))
                run = [child.tail or ""]
            else:
                rendered = self.inline_child(child, plain=False)
                run.append(rendered)
                run.append(akn_lu._tail(child, rendered))
        out.append(akn_lu._flush(run))
        return [b for b in out if b]


def _extract_with(reader_type: type[akn_lu._Reader], data: bytes, document: bool = False) -> object:
    original = akn_lu._Reader
    akn_lu._Reader = reader_type  # type: ignore[misc]
    try:
        extract = akn_lu.extract_document if document else akn_lu.extract
        return extract(data, language="fr", sha256="0" * 64)
    finally:
        akn_lu._Reader = original  # type: ignore[misc]


def _akn_bodies(root: Path) -> list[bytes]:
    paths = sorted(p for p in (root / "works").rglob("*.xml") if p.is_file())
    bodies = [p.read_bytes() for p in paths]
    return [b for b in bodies if b"akomaNtoso" in b[:4096]]


def test_walker_renders_every_fixture_body_as_the_per_element_tests(lu_fixture):
    bodies = _akn_bodies(lu_fixture)
    assert len(bodies) >= 40
    for data in bodies:
        for document in (False, True):
            assert _extract_with(akn_lu._Reader, data, document) == _extract_with(
                _PreviousReader, data, document
            )


_EDGES = [
    "<p>a<br/>b<br/> .</p>",
    "<p>voir<noteRef href='#n1'/> , et<noteRef href='#n2'/>.</p>",
    "<p>fig <img src='x.png'/> et <img src='data:image/png;base64,iVBORw0KGgo='/>.</p>",
    "<p><ref href='/eli/1'>loi du 1er mai</ref>, <ref>sans lien</ref>, <a href='#x'>  </a> .</p>",
    "<p><ref href='/eli/2'>loi <i>du</i> 2 <del>mai</del><noteRef href='#n1'/> <img src='y.png'/></ref>.</p>",
    "<p><b>gras <i>et <b>encore</b> italique</i></b> <strong></strong> . <em> x </em><i/> ;</p>",
    "<p>les mots<embeddedText>Centre</embeddedText>et<p>bloc</p><num>1°</num><heading>titre</heading></p>",
    "<p><span/> . <sup></sup>, 1<sup>er</sup> <span> </span>; <span><span/></span> .</p>",
    "<p><scl:b xmlns:scl='http://www.scl.lu'>caché</scl:b> <eop/> ; <authorialNote>n</authorialNote>x</p>",
    "<p><?pi x?> ; a<?pi y?>b <del>x</del> , <del/>.</p>",
    "<content><p/><p>   </p><p>a</p><paragraph/><p><i>b</i></p><blockList/><p>\u2028</p></content>",
    "<content><x:p xmlns:x='urn:x'>ns</x:p><x:b xmlns:x='urn:x'>gras</x:b> <x:ref xmlns:x='urn:x' href='h'>r</x:ref></content>",
    "<embeddedStructure><p>q</p><p/><article><num>1</num><p>z</p></article></embeddedStructure>",
    "<quotedStructure scl:hide-quote='true' xmlns:scl='http://www.scl.lu'><p>q</p><p>r</p></quotedStructure>",
    "<list><intro><p>i</p></intro><point><num>a)</num><p>x</p><p/></point></list>",
    "<ol><li>x</li><li><p>y</p></li><li/></ol><table><tr><td>a</td><td><p>b</p><p/></td></tr></table>",
]


@pytest.mark.parametrize("inner", _EDGES)
def test_walker_edge_bodies_match_the_per_element_tests(inner):
    data = (
        f'<akomaNtoso xmlns="{AKN}" xmlns:scl="{SCL}"><act><body>'
        f"<article id='art_1'><num>Art. <b>1</b><sup>er</sup><del>x</del>.</num><heading><i>H</i></heading>"
        f"<paragraph>{inner}</paragraph><alinea>{inner}</alinea>{inner}</article></body>"
        "<notes><note id='n1'><p>note <ref href='/n'>un</ref></p></note></notes>"
        "<notes scl:type='modification'><note id='n2'><p><ref href='/m'>mod</ref></p></note></notes>"
        "</act></akomaNtoso>"
    ).encode()
    new, old = _extract_with(akn_lu._Reader, data), _extract_with(_PreviousReader, data)
    assert new == old
    assert _extract_with(akn_lu._Reader, data, True) == _extract_with(_PreviousReader, data, True)


def test_inline_routes_follow_the_per_element_tests_on_every_tag_of_the_fixtures(lu_fixture):
    tags: set[object] = set()
    for data in _akn_bodies(lu_fixture)[:60]:
        tags.update(el.tag for el in etree.fromstring(data).iter())
    tags.update(
        [etree.PI, etree.Entity, f"{{{SCL}}}ref", "{urn:x}b", "img", "br", "embeddedText", "num"]
    )
    for tag in tags:
        route = akn_lu._INLINE[tag]
        name, space = local(tag), namespace(tag)
        if not name or space == SCL or name in akn_lu.SILENT:
            assert route == (
                akn_lu._I_DELETED if name == "del" and space != SCL else akn_lu._I_SILENT
            )
        elif (name in akn_lu.BLOCK and name not in ("num", "heading")) or name == "embeddedText":
            assert route == akn_lu._I_SPACED
        else:
            assert route == akn_lu._INLINE_TAGS.get(name, akn_lu._I_PLAIN)


def _previous_child(el: etree._Element, name: str) -> etree._Element | None:
    for child in el:
        tag = child.tag
        if (known_local(tag) or local(tag)) == name and (
            known_namespace(tag) or namespace(tag)
        ) != SCL:
            return child
    return None


def test_child_is_the_per_element_name_and_namespace_test(lu_fixture):
    for data in [
        *_akn_bodies(lu_fixture)[:30],
        f"<a xmlns:scl='{SCL}'><scl:num/><?num?><num/><heading/></a>".encode(),
    ]:
        for el in etree.fromstring(data).iter():
            for name in ("num", "heading", "p", "content"):
                assert akn_lu._child(el, name) is _previous_child(el, name)
