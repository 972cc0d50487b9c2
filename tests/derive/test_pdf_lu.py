"""``pdf-lu/2``: text from the PDF text layer with page spans, or a typed gap — never invented."""

from __future__ import annotations

import io
import re

from pypdf import PdfWriter

from derive.dispatch import derive_body
from derive.profiles import pdf_lu
from derive.profiles.pdf_lu import _pages
from derive.text import collapse_ws
from legal.outcomes import TextGap

A165 = "rgd-2020-03-18-a165/{date}/fr.pdf/*.pdf"


def test_consolidated_pdf_articles_with_page_spans(lu_body):
    result = pdf_lu.extract(lu_body(A165.format(date="2020-06-12")), language="fr")
    anchors = [p.anchor for p in result.provisions]
    assert anchors[:8] == ["art_1er", "art_2", "art_3", "art_4", "art_5", "art_6", "art_7", "art_7-1"]
    by = {p.anchor: p for p in result.provisions}
    assert by["art_1er"].num == "Art. 1er." and by["art_1er"].path == (
        "Chapitre 1er : Limitation des regroupements de personnes",)
    assert by["art_6"].heading == "Sanctions à l’égard des personnes physiques"
    assert by["art_1er"].derived_from.pages == (2, 2)  # after the cover page
    assert all(p.derived_from.pages is not None for p in result.provisions)
    assert by["art_3"].text_md.startswith("Les foires et salons dans des établissements fermés sont interdits.")


def test_pdf_text_is_only_what_the_text_layer_holds(lu_body):
    body = lu_body(A165.format(date="2020-03-20"))
    # the PDFium text layer, as the profile reads it (normalised by pdf_lu._tidy)
    layer = collapse_ws(" ".join(_pages(body, "test")))
    words = set(re.findall(r"\w+", layer))
    result = pdf_lu.extract(body, language="fr")
    for p in result.provisions:
        assert set(re.findall(r"\w+", p.text_md)) <= words, p.anchor


def test_memorial_gazette_issue_is_a_typed_gap(lu_body):
    body = lu_body("agc-2000-11-10-n1/2000-12-16/fr.pdf-memorial/*.pdf")
    result = derive_body(body, language="fr", fmt="pdf-memorial")
    assert result.provisions == () and result.gap is not None
    assert result.gap.gap is TextGap.UNSUPPORTED_MANIFESTATION


def test_memorial_issue_segmentation_is_refused_even_as_plain_pdf(lu_body):
    # several acts in one issue: article numbers repeat — never guess which one is ours
    result = pdf_lu.extract(lu_body("agd-1963-04-22-n1/1967-11-21/fr.pdf-memorial/*.pdf"), language="fr")
    assert result.provisions == () and result.gap is not None
    assert "not safe" in result.gap.reason


def test_pdf_without_text_layer_is_a_typed_gap():
    writer = PdfWriter()
    writer.add_blank_page(width=595, height=842)
    buf = io.BytesIO()
    writer.write(buf)
    result = pdf_lu.extract(buf.getvalue(), language="fr")
    assert result.provisions == ()
    assert result.gap is not None and "no extractable text layer" in result.gap.reason
