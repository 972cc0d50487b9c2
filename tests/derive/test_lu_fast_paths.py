"""The Legilux profiles' fast paths (issue #13) give exactly what the plain code they replace gave.

Each test holds the replaced code as its oracle and compares on real fixture bodies and on
hand-made edge cases: a subtree's text in one libxml2 call (``akn_lu._all_text``) against
``itertext``; the walker's runs (``_Reader.mixed``) against the run-per-block loop; the Mémorial
heading fold in C against the per-character generator; ``pdf_lu``'s superscript join against its
look-behind-first pattern, its whole page tidying (``_tidy``) against the four-pattern version it
replaced, and its text-layer check against the whole-document sum.
"""

from __future__ import annotations

import random
import re
import unicodedata
from pathlib import Path

import pytest
from lxml import etree

from derive.limits import known_local, known_namespace, local, namespace, parse_xml
from derive.profiles import akn_lu, pdf_lu
from derive.profiles.pdf_memorial_lu import fold
from derive.text import collapse_ws

AKN = "http://docs.oasis-open.org/legaldocml/ns/akn/3.0"


def _akn_bodies(root: Path, count: int) -> list[bytes]:
    paths = sorted(p for p in (root / "works").rglob("*.xml") if p.is_file())
    bodies = [p.read_bytes() for p in paths]
    return [b for b in bodies if b"akomaNtoso" in b[:4096]][:count]


# -- a subtree's text ------------------------------------------------------------------------------


def test_all_text_is_itertext_on_every_element_of_real_bodies(lu_fixture):
    bodies = _akn_bodies(lu_fixture, 12)
    assert len(bodies) == 12
    checked = 0
    for data in bodies:
        root = parse_xml(data, "test")
        for el in root.iter(tag=etree.Element):  # elements (``_text`` is asked of nothing else)
            assert akn_lu._all_text(el) == "".join(el.itertext())
            checked += 1
    assert checked > 10_000


def test_all_text_keeps_tails_of_children_and_processing_instructions_never_its_own():
    root = parse_xml(b'<a xmlns="x">t<?pi body?>pt<b>z\xc2\xa0<c>w</c>ct</b>bt<d/>e</a>', "test")
    for el in root.iter(tag=etree.Element):
        assert akn_lu._all_text(el) == "".join(el.itertext())
    assert akn_lu._all_text(root) == "tptz\xa0wctbte"
    assert akn_lu._all_text(root[1]) == "z\xa0wct"  # its own tail "bt" excluded


def test_all_text_reads_an_unexpanded_entity_reference_as_itertext_does():
    # only a body naming an external DTD keeps an entity reference (the parser loads no DTD)
    root = parse_xml(b'<!DOCTYPE a SYSTEM "x.dtd"><a>x&foo;y<b>&bar;</b><c>z</c></a>', "test")
    for el in root.iter():
        if isinstance(el.tag, str):
            assert akn_lu._all_text(el) == "".join(el.itertext())
    assert akn_lu._all_text(root) == "x&foo;y&bar;z"


# -- the walker's runs -----------------------------------------------------------------------------


class _OldReader(akn_lu._Reader):
    """The walker as it was: every run flushed, a block child's tag read by two lookups."""

    def mixed(self, el: etree._Element) -> list[str]:
        out: list[str] = []
        run = [el.text or ""]
        for child in el:
            name = child.tag
            tag = known_local(name) or local(name)
            if tag in akn_lu.BLOCK and (known_namespace(name) or namespace(name)) != akn_lu.SCL:
                out.append(akn_lu._flush(run))
                run = []
                out.extend(self.blocks(child))
                run.append(child.tail or "")
            else:
                rendered = self.inline_child(child, plain=False)
                run.append(rendered)
                run.append(akn_lu._tail(child, rendered))
        out.append(akn_lu._flush(run))
        return [b for b in out if b]


def _extract_with(reader_type: type[akn_lu._Reader], data: bytes) -> object:
    original = akn_lu._Reader
    akn_lu._Reader = reader_type  # type: ignore[misc]
    try:
        return akn_lu.extract(data, language="fr", sha256="0" * 64)
    finally:
        akn_lu._Reader = original  # type: ignore[misc]


def test_walker_renders_real_bodies_as_the_run_per_block_loop(lu_fixture):
    bodies = _akn_bodies(lu_fixture, 40)
    assert len(bodies) == 40
    for data in bodies:
        assert akn_lu.extract(data, language="fr", sha256="0" * 64) == _extract_with(_OldReader, data)


_EDGES = [
    "<p>plain</p>",
    "<p>   </p>",
    "<p></p>",
    "<p>\u2028\u00a0\u3000</p>",  # .NET whitespace only: no block
    "<p>\u200b</p>",  # zero width space: whitespace for neither Python nor .NET
    "<content>\n  <p>a</p>\u200b<p>b</p>\x85<p>c</p>\n  </content>",
    "<content>lead <b>bold</b><p>x</p> tail<i>it</i></content>",
    "<content><p>a</p>\u2029<scl:p xmlns:scl='http://www.scl.lu'>hidden</scl:p> <p>b</p></content>",
    "<content>a<noteRef href='#n'/> , b<p>c</p>  <del>gone</del> .</content>",
    "<content><?pi x?> <p>a</p><?pi y?>text<p/></content>",
    "<content><list><item><num>1°</num><p>x</p></item></list>  \t<p>z</p></content>",
]


@pytest.mark.parametrize("inner", _EDGES)
def test_walker_edge_runs_match_the_run_per_block_loop(inner):
    data = (f'<akomaNtoso xmlns="{AKN}"><act><body><article id="art_1"><num>Art. 1er.</num>'
            f"<paragraph>{inner}</paragraph></article></body></act></akomaNtoso>").encode()
    assert akn_lu.extract(data, language="fr", sha256="0" * 64) == _extract_with(_OldReader, data)


def test_a_lone_whitespace_node_is_dropped_only_when_all_of_it_is_dotnet_whitespace():
    # (U+001C–U+001F, whitespace to Python but not to .NET, are not XML 1.0 characters at all)
    reader = akn_lu._Reader()
    root = parse_xml(f'<content xmlns="{AKN}">\u200b<p>a</p>\u00a0\u2028<p>b</p> x </content>'.encode(), "t")
    assert reader.mixed(root) == ["\u200b", "a", "b", "x"]


# -- the Mémorial heading fold ---------------------------------------------------------------------


def _old_fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if c.isalnum() and not unicodedata.combining(c)).lower()


def test_fold_is_the_per_character_fold_on_every_assigned_plane_s_code_points():
    for code in [*range(0xD800), *range(0xE000, 0x40000), *range(0xE0000, 0xE1000)]:
        char = chr(code)
        assert fold(char) == _old_fold(char), hex(code)


def test_fold_is_the_per_character_fold_on_mixed_text():
    samples = ["Arrêté grand-ducal du 1er décembre 1909", "T e x t e  coordonné", "Loidu25mars1991",
               "ﬁnances ½ İstanbul ǅ Ⅻ ①", "Règl. g.-d. du 26 avril 1987", "", "   ", "\x01\x02"]
    rng = random.Random(13)
    pool = "aAéÉ1²ﬁİǅ \t-.'’Ⅻ①\u0301\u00a0ß"
    samples += ["".join(rng.choice(pool) for _ in range(rng.randrange(20))) for _ in range(2000)]
    for text in samples:
        assert fold(text) == _old_fold(text), text


# -- pdf-lu ------------------------------------------------------------------------------------------


_OLD_SUPERSCRIPT = re.compile(r"(?<=\b\d)[ \n](?=(?:er|re)\b)")
_OLD_JOIN_PUNCT = re.compile(r"\n(?=[.,;:](?:[ \n]|$))")
_OLD_ENUM_GLUED = re.compile(r"^(\d+°)(?=[^\s\d°])", re.MULTILINE)
_OLD_HEAD_GLUED = re.compile(rf"^(Art\.\s?\d+(?:-\d+)*(?:er|{pdf_lu.SUFFIXES})?\.)(?=[^\W\d_])",
                             re.MULTILINE | re.IGNORECASE)


def _old_tidy(text: str) -> str:
    """``pdf_lu._tidy`` as it was: three replacements, then four patterns over the whole page."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\ufffe", "-")
    text = _OLD_SUPERSCRIPT.sub("", _OLD_JOIN_PUNCT.sub("", text))
    return _OLD_HEAD_GLUED.sub(r"\1 ", _OLD_ENUM_GLUED.sub(r"\1 ", text))


def test_superscript_join_is_the_look_behind_first_pattern():
    rng = random.Random(12)
    pool = ["1", "2", "٣", "a", "é", " ", "\n", "e", "r", "er", "re", "_", ".", "x1", "1 er", "1\nre", "12 re"]
    samples = ["paragraphe 1 er", "1\ner alinéa", "a1 er", "1 erreur", "1 re.", "le 1er", "1 er 2 re", "1 re\nre"]
    samples += ["".join(rng.choice(pool) for _ in range(rng.randrange(14))) for _ in range(20_000)]
    for text in samples:
        assert pdf_lu._join_superscripts(text) == _OLD_SUPERSCRIPT.sub("", text), text


def test_tidy_is_the_four_pattern_tidy_on_random_text():
    rng = random.Random(21)
    pool = ["1", "12", "٣", "a", "A", "é", " ", "\n", "\r", "\r\n", "\ufffe", "\u00a0", "e", "r", "er", "re", "_",
            ".", ",", ";", ":", "-", "°", "1°", "Art.", "ART. ", "art.", "Art. 3", "Art.12-1bis.", "Art. 1er.", "bis",
            "Quater", "\t", "x1", "1 er", "1\nre", "\n.", "\n1°le", "\nArt. 22.A", "Art. 2.\n1°x", "\u2028"]
    samples = ["", "1°le", "Art. 22.A défaut", "x\nArt. 22.A\n1°b", "\r\n1°le\r\nArt.1erB", "1 er\n.", "1\r.\r1 re"]
    samples += ["".join(rng.choice(pool) for _ in range(rng.randrange(20))) for _ in range(30_000)]
    for text in samples:
        assert pdf_lu._tidy(text) == _old_tidy(text), repr(text)


def test_tidy_and_superscript_join_on_real_text_layers(lu_fixture):
    import pypdfium2 as pdfium

    pdfs = sorted(p for p in (lu_fixture / "works").rglob("*.pdf") if p.is_file())
    assert pdfs
    for path in pdfs:
        doc = pdfium.PdfDocument(path.read_bytes())
        try:
            raw = [pdf_lu._page_text(doc, index, "test") for index in range(len(doc))]
        finally:
            doc.close()
        assert raw
        for page in raw:
            assert pdf_lu._tidy(page) == _old_tidy(page)
            assert pdf_lu._join_superscripts(page) == _OLD_SUPERSCRIPT.sub("", page)


@pytest.mark.parametrize("pages", [[], [[]], [[""], [" "]], [["abc"], ["  de  "]], [["a" * 19]], [["a" * 20]],
                                   [["a b c d e f g h i j"], ["k"]], [["\u00a0\u2028"] * 50, ["x" * 25]]])
def test_text_layer_check_is_the_whole_document_sum(pages):
    assert pdf_lu.too_little_text(pages) == (sum(len(collapse_ws(" ".join(p))) for p in pages) < 20)


# -- blocks' per-tag route ---------------------------------------------------------------------------


def _old_route(name: object) -> str:
    """``_Reader.blocks``' first decision as it was written before the per-tag table."""
    tag = known_local(name) or local(name)
    if not tag or (known_namespace(name) or namespace(name)) == akn_lu.SCL or tag in akn_lu.SILENT:
        return akn_lu._DELETED if tag == "del" else akn_lu._SILENT
    return akn_lu._MIXED if tag not in akn_lu._ROUTED else akn_lu._ROUTED_TAG


def test_blocks_route_is_the_per_element_decision_on_real_and_edge_tags(lu_fixture):
    tags: set[object] = set()
    for data in _akn_bodies(lu_fixture, 40):
        tags.update(el.tag for el in etree.fromstring(data).iter())
    scl = akn_lu.SCL
    tags.update([etree.Comment, etree.ProcessingInstruction, etree.Entity, "del", f"{{{AKN}}}del", f"{{{scl}}}del",
                 f"{{{scl}}}p", f"{{{AKN}}}table", "table", f"{{{AKN}}}eop", "p", "", f"{{{AKN}}}blockList"])
    assert len(tags) > 40
    for tag in tags:
        assert akn_lu._ROUTE[tag] == _old_route(tag), tag
