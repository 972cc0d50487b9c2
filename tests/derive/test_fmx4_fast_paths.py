"""The Formex walker's shortcuts give the same output as the code they replace.

``_Reader.mixed`` returns a leaf's folded text without building a run, and drops a run that
folds to nothing (:func:`fmx4_eu._blank`) without folding it. The former ``mixed`` is kept here as
the oracle: every Formex main member of the fixtures, and a synthetic body with the edge cases
(blank runs between blocks, a U+001C separator that ``collapse_ws`` keeps, comments and processing
instructions, skipped children), extract to the same results with either."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from lxml import etree

from derive.limits import known_local, local
from derive.profiles import fmx4_eu
from derive.text import collapse_ws


def _old_mixed(self: fmx4_eu._Reader, el: etree._Element, skip: tuple[str, ...] = ()) -> list[str]:
    out: list[str] = []
    run = [el.text or ""]
    for child in el:
        name = child.tag
        tag = known_local(name) or local(name)
        if tag in skip:
            pass
        elif tag in fmx4_eu.BLOCK or (tag == "FORMULA" and child.get("TYPE") != "INLINE"):
            out.append(collapse_ws("".join(run)))
            run = []
            out.extend(self.blocks(child))
        else:
            run.append(self.inline_child(child, plain=False))
        run.append(child.tail or "")
    out.append(collapse_ws("".join(run)))
    return [b for b in out if b]


def _members(fixtures_dir: Path) -> Iterator[Path]:
    for path in sorted(
        (fixtures_dir / "lex-corpus-eu-eurlex" / "works").glob("*/versions/*/*.fmx4/*.xml")
    ):
        if not path.name.endswith(".doc.xml"):
            yield path


_SYNTHETIC = """<CONS.ACT><ENACTING.TERMS>
<ARTICLE><TI.ART>Article 1</TI.ART><STI.ART>Scope</STI.ART>
<PARAG><NO.PARAG>1.</NO.PARAG><ALINEA>  first <HT TYPE="BOLD">bold</HT>
   <LIST><ITEM><NP><NO.P>(a)</NO.P><TXT>one</TXT></NP></ITEM><ITEM><P>
   </P></ITEM></LIST>  \u00a0\u2028  <P>x</P><QUOT.START CODE="001C"/> <P/>
<?CLG.MDFO ACTIVE.DOC="32019R0876" ACTION="amended"?><!-- c --> tail <P><!-- only a comment --></P></ALINEA></PARAG>
<PARAG><ALINEA><P>leaf</P><P>  </P><P></P>text<NOTE><P>a note</P></NOTE> after</ALINEA></PARAG>
<ALINEA><TBL><CORPUS><ROW><CELL><P>a</P></CELL><CELL>  </CELL><CELL><P>b</P> c </CELL></ROW></CORPUS></TBL></ALINEA>
</ARTICLE></ENACTING.TERMS></CONS.ACT>"""


def _both(data: bytes, language: str, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    new = repr(fmx4_eu.extract(data, language=language))
    with monkeypatch.context() as patch:
        patch.setattr(fmx4_eu._Reader, "mixed", _old_mixed)
        old = repr(fmx4_eu.extract(data, language=language))
    return old, new


def test_mixed_renders_every_fixture_member_as_before(
    fixtures_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    members = list(_members(fixtures_dir))
    assert len(members) >= 10
    for path in members:
        language = path.parent.name.split(".")[0]
        old, new = _both(path.read_bytes(), language, monkeypatch)
        assert old == new, path


def test_mixed_edge_runs_render_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    old, new = _both(_SYNTHETIC.encode("utf-8"), "en", monkeypatch)
    assert old == new
    root = etree.fromstring(_SYNTHETIC.encode("utf-8"))
    for el in root.iter():
        if isinstance(el.tag, str):
            assert fmx4_eu._Reader(None).mixed(el) == _old_mixed(fmx4_eu._Reader(None), el), el.tag
    alinea = next(root.iter("ALINEA"))
    assert "\x1c" in fmx4_eu._Reader(None).mixed(
        alinea
    )  # the separator run is kept, not taken for blank


def test_blank_is_exactly_what_collapse_ws_folds_away() -> None:
    for code in range(0x3100):
        ch = chr(code)
        for text in (ch, f" {ch}\n", ch * 3):
            assert fmx4_eu._blank(text) == (collapse_ws(text) == ""), hex(code)
    for text in ("\u00a0\u2028\u2029\u0085 \t\r\n\u3000", " \x1c ", "\x1f", " a ", "\u200b"):
        assert fmx4_eu._blank(text) == (collapse_ws(text) == ""), repr(text)
