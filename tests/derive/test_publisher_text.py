"""Issue #18: provision text exactly as the publisher wrote it — one named test per defect class.

Real fixture bodies are read by path; where the fixtures hold no instance of a class, the
smallest faithful excerpt of a real body is under ``tests/derive/excerpts/`` (sources in its
README).
"""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

import pytest
from lxml import etree

from derive.anchors import eu_annex_anchor, eu_article_anchor
from derive.lint import in_source, lint_rows
from derive.profiles import akn_lu, fmx4_eu, html_eu, pdf_memorial_lu, xhtml_eu
from derive.rows import COLUMNS, SCHEMA
from tests.derive.conftest import read_jsonl

EXCERPTS = Path(__file__).resolve().parent / "excerpts"
GDPR = "32016r0679/{date}/{lang}.{ext}"


def _by_anchor(result):
    return {p.anchor: p for p in result.provisions}


# 1. footnote references ---------------------------------------------------------------------


def test_xhtml_footnote_call_is_kept_with_its_note_not_left_as_empty_parentheses(eu_body):
    art4 = _by_anchor(xhtml_eu.extract(eu_body(GDPR.format(date="2016-05-04", lang="en", ext="html")),
                                       language="en"))["art_4"].text_md
    assert "of the European Parliament and of the Council[^1];" in art4
    assert "\n\n[^1]: Directive (EU) 2015/1535 of the European Parliament and of the Council of 9 September 2015" in art4
    assert "()" not in art4


def test_footnotes_are_numbered_per_provision_so_manifestations_agree(eu_body, formex_main):
    """The OJ original prints the call as (19), the consolidation as (1), Formex has a NOTE: one text."""
    oj = _by_anchor(xhtml_eu.extract(eu_body(GDPR.format(date="2016-04-27", lang="en", ext="xml")), language="en"))
    cons = _by_anchor(xhtml_eu.extract(eu_body(GDPR.format(date="2016-05-04", lang="en", ext="html")),
                                       language="en"))
    fmx = _by_anchor(fmx4_eu.extract(formex_main("32016r0679", "2016-05-04", "en"), language="en"))
    assert oj["art_4"].text_md == cons["art_4"].text_md == fmx["art_4"].text_md
    assert not any("()" in p.text_md for p in cons.values())


def test_legilux_footnote_is_kept_and_a_modification_note_is_a_citation(lu_body):
    result = akn_lu.extract(lu_body("agd-2026-02-05-a80/2026-02-27/fr.xml"), language="fr")
    annex = _by_anchor(result)["attachment_1"].text_md
    assert "le document d’orientation des décisions concernant le carbosulfan[^1]." in annex
    assert "\n\n[^1]: UNEP/FAO/RC/COP.12/7/Add.1, annexe." in annex
    # notes of scl:type="modification" are the amendment history: citations, never text
    result = akn_lu.extract(lu_body("loi-2009-02-06-n3/2026-09-15/fr.xml"), language="fr")
    art = _by_anchor(result)["art_21bis"]
    assert "[^" not in art.text_md
    assert any(c.text.startswith("Loi du 19 décembre 2025") for c in art.citations)


# 2. an annex without its own anchor, the signature and the OJ notes ---------------------------


def test_oj_annex_is_its_own_provision_not_glued_into_the_last_article():
    result = xhtml_eu.extract((EXCERPTS / "31993l0013-1993-04-05-en-tail.xml").read_bytes(), language="en")
    provisions = _by_anchor(result)
    assert list(provisions) == ["art_11", "anx"]
    assert provisions["art_11"].text_md == "This Directive is addressed to the Member States."
    assert provisions["anx"].heading == "ANNEX — TERMS REFERRED TO IN ARTICLE 3 (3)"
    assert provisions["anx"].text_md.startswith("1. **Terms which have the object or effect of**:")


def test_consolidated_annex_divs_without_the_eli_class_are_provisions(eu_body):
    result = xhtml_eu.extract(eu_body("32015l2302/2029-03-29/en.html"), language="en")
    anchors = [p.anchor for p in result.provisions]
    assert anchors[-2:] == ["anx_I", "anx_III"]  # before: both annexes were in no provision at all
    assert not any("ANNEX I\n" in p.text_md for p in result.provisions if p.type == "article")


# 3. Mémorial: a coordinated text named in its own heading -------------------------------------


def test_memorial_coordinated_heading_names_the_act_and_a_toc_entry_does_not():
    pages = [p.strip("\n").split("\n") for p in
             (EXCERPTS / "memorial-1984-a-rgd-1967-05-17-n5.txt").read_text(encoding="utf-8").split("\f")]
    lines = pdf_memorial_lu._lines(pages)
    act = pdf_memorial_lu.Act.from_slug("rgd-1967-05-17-n5", "1984-11-30", first_version=False)
    assert act is not None
    found = pdf_memorial_lu._locate(lines, act)
    assert len(found) == 1  # the table of contents' entry (page 1) is not a heading
    assert lines[found[0]].page == 2
    assert lines[found[0]].text.startswith("Texte coordonné du 31 octobre 1984 du règlement grand-ducal du 17 mai")


# 4. stable anchors across manifestations -------------------------------------------------------


@pytest.mark.parametrize(("key", "anchor"), [
    ("anx_I", "anx_I"), ("anx_ II", "anx_II"), ("ANNEX I", "anx_I"), ("ANNEXE XIV", "anx_XIV"),
    ("ANHANG IIa", "anx_IIa"), ("ANNEXE II BIS", "anx_IIbis"), ("ANNEX", "anx"), ("anx_", "anx"),
    ("anx_II.app_I", "anx_II"), ("ANNEX A", "anx_A"), ("PŘÍLOHA I", "anx_I"), ("ANNEX XVII A(1)", "anx_XVIIa"),
])
def test_annex_anchor_is_the_eli_form_from_ids_and_titles(key, anchor):
    assert eu_annex_anchor(key) == anchor


@pytest.mark.parametrize(("key", "anchor"), [
    ("Article 7", "art_7"), ("Article 7 bis", "art_7a"), ("art_7_bis", "art_7a"), ("Článek 7", "art_7"),
    ("Article premier", "art_1"), ("Article 12 quaterdecies", "art_12m"), ("art_16a", "art_16a"),
    ("Член 9а", "art_9a"), ("Член 9б", "art_9b"), ("Άρθρο 7β", "art_7b"),
])
def test_article_anchor_is_the_formex_identifier_form(key, anchor):
    assert eu_article_anchor(key) == anchor


def test_formex_and_xhtml_give_one_anchor_per_annex(eu_body, formex_main):
    fmx = [p.anchor for p in fmx4_eu.extract(formex_main("32013r0575", "2021-06-29", "en"), language="en").provisions
           if p.type == "annex"]
    assert fmx and all(re.fullmatch(r"anx(_[IVXLC]+[a-z]*|_[A-Z0-9]+)?", a) for a in fmx), fmx


def test_formex_annex_titled_as_an_annex_inside_an_annex_is_its_own_provision():
    """32018R0858 (fr): Formex nests ANNEXE A–C in ANNEXE X, the XHTML gives anx_A–anx_C; an
    appendix inside an annex stays part of it."""
    result = fmx4_eu.extract((EXCERPTS / "32018r0858-2022-07-06-fr-fmx-anx_X.xml").read_bytes(), language="fr")
    by = _by_anchor(result)
    assert [p.anchor for p in result.provisions] == ["anx_X", "anx_A", "anx_B", "anx_C"]
    assert by["anx_A"].text_md == "**ADRESSES DES SITES INTERNET VISÉS DANS LE PRÉSENT CERTIFICAT:**"
    assert "ADRESSES DES SITES INTERNET" not in by["anx_X"].text_md
    assert "Appendice" in by["anx_X"].text_md


def test_flat_xhtml_appendix_subtitle_stays_in_its_annex():
    """32018R0858 2022-12-06 (CONVEX XHTML, flat): ``Appendix 1`` (title-annex-1) then its subtitle
    ``Motor-caravans, ambulances and hearses`` (title-annex-2) opened a provision named after the
    subtitle; Formex keeps the appendices in ANNEX II, so six anchors vanished at the switch."""
    result = xhtml_eu.extract((EXCERPTS / "32018r0858-2022-12-06-en-anx_II-appendices.xml").read_bytes(),
                              language="en")
    assert result.profile == "xhtml-eu/4"
    assert [p.anchor for p in result.provisions] == ["art_91", "anx_II"]
    assert _by_anchor(result)["anx_II"].text_md.endswith(
        "**Appendix 1**\n\n**Motor-caravans, ambulances and hearses**\n\n**Appendix 2**\n\n**Armoured vehicles**"
        "\n\n**Appendix 4**\n\n**Other special purpose vehicles**\n\n"
        "**(including special group, multi-equipment carrier and trailer caravans)**")  # two subtitles


def test_html401_article_title_with_a_footnote_call_opens_an_article():
    """32000R1346 2000-05-29 (HTML 4.01): "Article 37 (7)" — a footnote call after the number — was
    read as text, gluing Article 37 into Article 36; the 2005 consolidation has art_37."""
    result = html_eu.extract((EXCERPTS / "32000r1346-2000-05-29-en-art_36-38.html").read_bytes(), language="en")
    assert result.profile == "html-eu-tolerant/5"
    assert [p.anchor for p in result.provisions] == ["art_36", "art_37", "art_38"]
    by = _by_anchor(result)
    assert "Conversion" not in by["art_36"].text_md and by["art_37"].heading == "Conversion of earlier proceedings"
    assert eu_article_anchor("Article 26 (6)") == "art_26" and eu_article_anchor("Article 5 (1) (a)") is None


def test_html401_annex_title_with_a_colon_opens_an_annex():
    """32004R0802 2004-04-07 (HTML 4.01): "ANNEX III:" was read as text of Annex II; the 2007
    consolidation has anx_III."""
    result = html_eu.extract((EXCERPTS / "32004r0802-2004-04-07-en-anx_II-III.html").read_bytes(), language="en")
    assert [p.anchor for p in result.provisions] == ["anx_II", "anx_III"]
    assert _by_anchor(result)["anx_III"].text_md == "FORM RS"
    assert "FORM RS" not in _by_anchor(result)["anx_II"].text_md


def test_html401_annex_heading_with_its_title_opens_an_annex():
    """31977L0388 1977 (HTML 4.01): "ANNEX A LIST OF …" in one paragraph was glued into the last
    article; the 2004 XHTML has anx_A…, so the history showed annexes appear with no change."""
    result = html_eu.extract((EXCERPTS / "31977l0388-1977-05-17-en-tail.html").read_bytes(), language="en")
    by = _by_anchor(result)
    assert [p.anchor for p in result.provisions] == ["art_38", "anx_A", "anx_B"]
    assert by["art_38"].text_md == "This Directive is addressed to the Member States."
    assert by["anx_A"].heading == "ANNEX A LIST OF AGRICULTURAL PRODUCTION ACTIVITIES"


def test_html401_headings_quoted_by_an_amending_act_stay_in_its_provision():
    """32002L0087 2002-12-16 (HTML 4.01), en and fr: Article 28 inserts Articles 10a and 10b into
    Directive 98/78/EC ("the following Articles shall be inserted:", then "Article 10a … these
    duties.""); the unquoted "Article 10b" was read as the act's own art_10b, which its 2005
    consolidation keeps inside art_28 — anchor churn at the switch of profile. Article 29, after the
    quotation closed, is still an article."""
    for lang, quoted in (("en", "Article 10b"), ("fr", "Article 10 ter")):
        result = html_eu.extract((EXCERPTS / f"32002l0087-2002-12-16-{lang}-art_28-29.html").read_bytes(),
                                 language=lang)
        assert result.profile == "html-eu-tolerant/5"
        assert [p.anchor for p in result.provisions] == ["art_28", "art_29"]
        art_28 = _by_anchor(result)["art_28"].text_md
        assert f"\n\n{quoted}\n\n" in art_28 and art_28.endswith("duties.\"" if lang == "en" else "fonctions.\";")


def test_html401_annex_quoted_by_an_amending_act_stays_in_its_annex():
    """32002L0038 2002-05-07 (HTML 4.01, en): the act's only annex ("ANNEX") prints the quotation
    marks of the annex it adds to Directive 77/388/EEC as a paragraph of their own ("\"\"") before
    "ANNEX L"; anx_L was read as the act's own annex, the 2006 consolidation keeps it inside anx."""
    result = html_eu.extract((EXCERPTS / "32002l0038-2002-05-07-en-tail.html").read_bytes(), language="en")
    assert [p.anchor for p in result.provisions] == ["art_7", "anx"]
    assert "ANNEX L\n\nILLUSTRATIVE LIST OF ELECTRONICALLY SUPPLIED SERVICES" in _by_anchor(result)["anx"].text_md


def test_html401_quotation_opened_by_a_lone_apostrophe_stays_in_its_article():
    """31994L0005 1994-02-14 (HTML 4.01, en): "7. the following Title and Article shall be inserted:"
    then a paragraph holding only "'" opens Title XVIb and Article 28o, closed by "… applied.';".
    Inside, "Article 28o" and a line broken before "Article 5 (4) (c)" were read as articles (art_28o,
    art_5, and the real Article 5 became art_5__2); the fr page gives art_1 … art_5."""
    result = html_eu.extract((EXCERPTS / "31994l0005-1994-02-14-en-art_1-2.html").read_bytes(), language="en")
    assert [p.anchor for p in result.provisions] == ["art_1", "art_2"]
    assert "\n\nArticle 28o\n\n" in _by_anchor(result)["art_1"].text_md


@pytest.mark.parametrize(("texts", "inside"), [
    # 32004L0056 2004-04-21 en: a quotation opened after the amending formula and closed four paragraphs on
    (["the following Articles shall be inserted:", '"Article 8a', "Spontaneous exchange", "Article 8b",
      'and coordinating the control operation."', "Article 2"], {2, 3, 4}),
    # 31977L0388 1977 en: a definition that quotes its own term opens nothing
    (["For the purposes of this Directive:", '"A building" shall be taken to mean any structure fixed to '
      "or in the ground;", "Article 5"], set()),
    # a quotation that never closes is not read as one (the heading stays a heading)
    (["the following Article shall be inserted:", '"Article 10a', "Article 11"], set()),
    # no amending formula (no colon) before the opening mark
    (["Article 3", '"Article 10a', "Article 10b", 'duties."'], set()),
    # « » nested, closed by the paragraph that balances them (31991L0680 1991 fr)
    (["les articles 28 bis à 28 quaterdecies suivants sont insérés:", "«TITRE XVI bis", "Article 28 bis",
      "L'article 16 paragraphe 2 est remplacé par le texte suivant:", "«2. Les États membres", "Article 16 bis",
      "… exonèrent en application des points a) et b).»", "Article 28 ter", "… définitif.»", "Article 2"],
     {2, 3, 4, 5, 6, 7, 8}),
])
def test_quoted_paragraphs(texts, inside):
    assert html_eu.quoted_paragraphs(texts) == inside


def test_quote_depth_reads_apostrophes_and_ascii_marks_by_their_place():
    assert html_eu.quote_depth('"Article 10a', '"') == 1
    assert html_eu.quote_depth('to perform these duties.";', '"') == -1
    assert html_eu.quote_depth('"Accounting consolidation" method', '"') == 0
    assert html_eu.quote_depth("‘Article 3 l’article des États’", "‘") == 0
    assert html_eu.quote_depth("collectors' items", "'") == 0 and html_eu.quote_depth("have been applied.';", "'") == -1


# 5. words glued at tag boundaries ----------------------------------------------------------------


def test_blocks_read_inline_keep_a_word_boundary():
    xml = (b'<CONS.ACT><ENACTING.TERMS><ARTICLE IDENTIFIER="001"><TI.ART>Article 1</TI.ART><ALINEA><P>Quote '
           b'<QUOT.S LEVEL="1"><ARTICLE IDENTIFIER="050A"><TI.ART>Article 50 bis</TI.ART>'
           b'<STI.ART>Calcul de K</STI.ART></ARTICLE></QUOT.S></P></ALINEA></ARTICLE></ENACTING.TERMS></CONS.ACT>')
    text = fmx4_eu.extract(xml, language="fr").provisions[0].text_md
    assert "Article 50 bis Calcul de K" in text  # was "Article 50 bisCalcul" (CRR 2013-06-28 fr, art 520)


# 6. inline images ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("rel", "anchor", "count"), [
    ("loi-1980-03-07-n1/2026-08-08/fr.xml", "art_192", 1),
    ("loi-2011-04-08-n2/2024-09-10/fr.xml", "art_r_224-3", 2),
])
def test_inline_images_are_typed_figures_never_base64_text(lu_body, rel, anchor, count):
    data = lu_body(rel)
    result = akn_lu.extract(data, language="fr")
    assert not any("base64" in p.text_md or "data:" in p.text_md for p in result.provisions)
    prov = _by_anchor(result)[anchor]
    assert len(prov.figures) == count
    payloads = re.findall(rb'src="data:image/png;base64,([^"]+)"', data)
    hashes = {hashlib.sha256(base64.b64decode(b"".join(p.split()))).hexdigest() for p in payloads}
    for fig in prov.figures:
        assert fig.media_type == "image/png" and fig.sha256 in hashes and fig.size and fig.src is None
        assert f"[figure {fig.n}: image/png, {fig.size} bytes]" in prov.text_md


def test_eu_xhtml_inline_images_are_typed_figures():
    """32021R0424 (fr): formula images inside parentheses were dropped, leaving "( )"."""
    data = (EXCERPTS / "32021r0424-2019-12-17-fr-art_1-325g2.xml").read_bytes()
    prov = xhtml_eu.extract(data, language="fr").provisions[0]
    assert "( )" not in prov.text_md and "base64" not in prov.text_md
    assert "de ce facteur de risque ( [figure 1: image/jpg, 1074 bytes] ) et la position" in prov.text_md
    payloads = re.findall(rb'src="data:image/jpg;base64,([^"]+)"', data)
    assert len(prov.figures) == len(payloads) == 9
    for fig, payload in zip(prov.figures, payloads, strict=True):
        raw = base64.b64decode(b"".join(payload.split()))
        assert (fig.media_type, fig.size, fig.sha256, fig.src) == ("image/jpg", len(raw),
                                                                    hashlib.sha256(raw).hexdigest(), None)
        assert f"[figure {fig.n}: image/jpg, {fig.size} bytes]" in prov.text_md


def test_formex_referenced_images_are_figures_with_the_file_s_hash(fixtures_dir, formex_main):
    """CRR 2020-06-27 (en): ``INCL.ELEMENT FILEREF="L_2020204EN….tif"``; the expression holds the files."""
    folder = next((fixtures_dir / "lex-corpus-eu-eurlex/works/32013r0575/versions").glob("2020-06-27--*/en.fmx4"))
    files = {f.name: (hashlib.sha256(f.read_bytes()).hexdigest(), f.stat().st_size) for f in folder.glob("*.tif")}
    result = fmx4_eu.extract(formex_main("32013r0575", "2020-06-27", "en"), language="en", attachments=files)
    figures = [(p, f) for p in result.provisions for f in p.figures]
    assert figures and not any("image:" in p.text_md for p in result.provisions)
    for prov, fig in figures:
        assert fig.src in files and (fig.sha256, fig.size) == files[fig.src] and fig.media_type == "image/tiff"
        assert f"[figure {fig.n}: image/tiff, {fig.size} bytes]" in prov.text_md
    # without the files at hand the figure keeps its link, never a made-up size
    bare = fmx4_eu.extract(formex_main("32013r0575", "2020-06-27", "en"), language="en")
    fig = next(f for p in bare.provisions for f in p.figures)
    assert fig.sha256 is None and fig.size is None and fig.src in files
    assert f"[figure {fig.n}: image/tiff, linked]" in next(p.text_md for p in bare.provisions if fig in p.figures)


def test_dataset_formex_figures_carry_the_referenced_file_s_hash(fixture_dataset):
    rows = read_jsonl(fixture_dataset["eu"][0] / "provisions.jsonl")
    figures = [f for r in rows if r["profile"].startswith("fmx4") for f in r["figures"]]
    assert figures and all(f["sha256"] and f["size"] and f["src"].endswith(".tif") for f in figures)


# 7. markup debris ------------------------------------------------------------------------------------


def test_bold_closing_arrow_leaves_no_empty_emphasis():
    result = xhtml_eu.extract((EXCERPTS / "32004l0017-2013-07-01-fr-art_16.xml").read_bytes(), language="fr")
    text = result.provisions[0].text_md
    assert "a) 400 000 EUR en ce qui concerne les marchés de fournitures et de services;" in text
    assert "**" not in text
    assert lint_rows([{"profile": "x", "type": "article", "text_md": text}]).total("markup_debris") == 0


def test_emphasis_around_struck_out_text_and_quoted_words_leave_no_debris_and_no_glue():
    """Legilux: ``<b><del>1°</del></b>`` table cells read "| ** ** |" (rgd-2022-06-20-a312);
    ``les mots<embeddedText>Centre …</embeddedText>sont`` read "motsCentre" (loi-2017-06-22-a605)."""
    root = etree.fromstring((EXCERPTS / "lu-akn-emphasis-and-quoted-words.xml").read_bytes())
    row, para = list(root)
    reader = akn_lu._Reader()
    assert reader.table(row) == ""
    text = reader.blocks(para)[0]
    assert "les mots Centre de psychologie et d’orientation scolaires sont remplacés par ceux de Centre" in text
    assert lint_rows([{"profile": "x", "type": "article", "text_md": text}]).total("glued_words") == 0


def test_lint_debris_is_markers_around_nothing_not_bold_punctuation():
    def debris(text: str) -> int:
        return lint_rows([{"profile": "x", "type": "article", "text_md": text}]).total("markup_debris")
    assert debris("prises et impliquent, le cas échéant **:**") == 0  # the publisher's <b>:</b>
    assert debris("not be applied**[^1] **. In this case, Sections 6**") == 0  # bold that starts with "."
    assert debris("| ** ** | ** ** |") == 1 and debris("Council ** .") == 1
    assert lint_rows([{"profile": "x", "type": "article", "text_md": "section XVIII*bis* XVIIIbis"}]
                     ).total("glued_words") == 0


# 8. labels --------------------------------------------------------------------------------------------


def test_article_premier_keeps_its_label(formex_main):
    result = fmx4_eu.extract(formex_main("32016r0679", "2016-05-04", "fr"), language="fr")
    first = result.provisions[0]
    assert (first.anchor, first.label) == ("art_1", "Article premier")


# 9. dataset columns ----------------------------------------------------------------------------------


def test_dataset_rows_carry_every_contract_column(fixture_dataset):
    for name in ("lu", "eu"):
        out = fixture_dataset[name][0]
        rows = read_jsonl(out / "provisions.jsonl")
        assert all(tuple(r) == COLUMNS or set(r) == set(COLUMNS) for r in rows)
        assert {"label", "eli", "index_terms", "pages", "figures"} <= set(SCHEMA.names)
    lu = read_jsonl(fixture_dataset["lu"][0] / "provisions.jsonl")
    assert any(r["eli"] for r in lu) and any(r["index_terms"] for r in lu) and any(r["label"] for r in lu)
    assert any(r["pages"] for r in lu if r["profile"].startswith("pdf"))


# the lint ----------------------------------------------------------------------------------------------


def test_lint_counts_each_pattern_per_profile():
    rows = [
        {"provision_id": "a", "profile": "p/1", "type": "article", "text_md": "of the Council ();"},
        {"provision_id": "b", "profile": "p/1", "type": "annex", "text_md": "TECHNIQUESPartie A"},
        {"provision_id": "c", "profile": "p/2", "type": "article", "text_md": "400 000 EUR ** ** en"},
        {"provision_id": "d", "profile": "p/2", "type": "article", "text_md": "[image: data:image/png;base64,iVBO]"},
        {"provision_id": "e", "profile": "p/2", "type": "article", "text_md": "Text.\n\nDone at Brussels, 1 May."},
        {"provision_id": "f", "profile": "p/2", "type": "article", "text_md": "**1.** **Bold** fine[^1]."},
    ]
    report = lint_rows(rows)
    assert {name: report.total(name) for name in ("empty_parentheses", "glued_words", "markup_debris",
                                                  "embedded_binary", "text_outside_anchor")} == dict.fromkeys(
        ("empty_parentheses", "glued_words", "markup_debris", "embedded_binary", "text_outside_anchor"), 1)
    assert report.counts["p/1"]["empty_parentheses"].examples[0]["provision_id"] == "a"


def test_lint_tells_the_publisher_s_wording_from_ours():
    """``in_source`` reads the body's bytes: an image inside parentheses is not the publisher's
    "( )"; a run the body holds verbatim is; a glue across a tag boundary is ours."""
    body = (EXCERPTS / "32021r0424-2019-12-17-fr-art_1-325g2.xml").read_bytes()
    assert in_source("empty_parentheses", "( )", "haussier de ce facteur de risque ", body) is False
    assert in_source("glued_words", "facteurde", "", body) is False
    assert in_source("glued_words", "établissements", "", body) is True
    akn = (EXCERPTS / "lu-akn-emphasis-and-quoted-words.xml").read_bytes()
    assert in_source("glued_words", "motsCentre", "", akn) is False  # "mots<embeddedText>Centre"
    assert in_source("markup_debris", "** **", "", akn) is False
