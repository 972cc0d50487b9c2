"""``fmx4-eu/1`` on real Formex 4 members: GDPR, CRR; main-member choice; quoted structures."""

from __future__ import annotations

import io
import zipfile

import pytest
from lxml import etree

from derive.profiles import fmx4_eu


def test_gdpr_formex_en_articles_1_to_99(formex_main):
    result = fmx4_eu.extract(formex_main("32016r0679", "2016-05-04", "en"), language="en")
    assert [p.anchor for p in result.provisions] == [f"art_{n}" for n in range(1, 100)]
    art6 = result.provisions[5]
    assert (art6.num, art6.heading, art6.path) == ("Article 6", "Lawfulness of processing", ("CHAPTER II — Principles",))
    assert art6.text_md.startswith("**1.** Processing shall be lawful only if and to the extent that at least one "
                                   "of the following applies:\n\n(a) the data subject has given consent")
    # footnotes are kept: a call where the publisher placed it, the note at the end of the provision
    art4 = result.provisions[3].text_md
    assert "of the European Parliament and of the Council[^1];" in art4
    assert "\n\n[^1]: Directive (EU) 2015/1535 of the European Parliament and of the Council of 9 September 2015" in art4
    assert not any("footnotes" in n for n in result.notes)


def test_gdpr_formex_fr_uses_identifiers_not_article_premier(formex_main):
    result = fmx4_eu.extract(formex_main("32016r0679", "2016-05-04", "fr"), language="fr")
    assert [p.anchor for p in result.provisions] == [f"art_{n}" for n in range(1, 100)]
    assert result.provisions[0].num == "Article premier"


def test_formex_consleg_date_after_start_date_is_disclosed(formex_main):
    # the 2016-05-04 wording state was produced 2018-05-23 and silently includes the 2018 corrigendum
    result = fmx4_eu.extract(formex_main("32016r0679", "2016-05-04", "en"), language="en")
    assert any("produced 20180523 for the wording state 20160504" in n for n in result.notes)


@pytest.mark.parametrize("date", ["2013-06-28", "2019-12-25", "2020-06-27", "2021-06-29"])
def test_crr_article_92_own_funds_ratios(formex_main, date):
    result = fmx4_eu.extract(formex_main("32013r0575", date, "en"), language="en")
    art = next(p for p in result.provisions if p.anchor == "art_92")
    assert art.heading == "Own funds requirements"
    assert "(a) a Common Equity Tier 1 capital ratio of 4,5 %;\n\n(b) a Tier 1 capital ratio of 6 %;" in art.text_md
    assert ("(d) a leverage ratio of 3 %." in art.text_md) is (date == "2021-06-29")


def test_crr_amendment_processing_instructions_become_citations_not_text(formex_main):
    result = fmx4_eu.extract(formex_main("32013r0575", "2021-06-29", "en"), language="en")
    art = next(p for p in result.provisions if p.anchor == "art_92")
    assert {c.href for c in art.citations} == {"http://publications.europa.eu/resource/celex/32019R0876"}
    assert "CLG" not in art.text_md and "32019R0876" not in art.text_md


def test_crr_formulas_render_as_linear_text(formex_main):
    result = fmx4_eu.extract(formex_main("32013r0575", "2021-06-29", "en"), language="en")
    text = "\n".join(p.text_md for p in result.provisions)
    assert "h = ∑_i [H_i · l_i/L_i]" in text
    assert "h = the amount of holdings of the eligible liabilities instruments" in text  # DLIST SEPARATOR="="


def _wrap_quoted_copy(body: bytes) -> bytes:
    root = etree.fromstring(body)
    articles = [a for a in root.iter("ARTICLE")]
    host, quoted = articles[0], articles[1]
    quote = etree.SubElement(host, "QUOT.STRUCT")
    quote.append(etree.fromstring(etree.tostring(quoted)))
    return etree.tostring(root, xml_declaration=True, encoding="utf-8")


def test_trap_12_articles_inside_quot_struct_are_not_provisions(formex_main):
    body = formex_main("32016r0679", "2016-05-04", "en")
    result = fmx4_eu.extract(_wrap_quoted_copy(body), language="en")
    assert [p.anchor for p in result.provisions] == [f"art_{n}" for n in range(1, 100)]
    assert "> **Article 2 — Material scope**" in result.provisions[0].text_md


def test_trap_10_duplicate_article_identifiers_get_suffixes(formex_main):
    root = etree.fromstring(formex_main("32016r0679", "2016-05-04", "en"))
    first = next(root.iter("ARTICLE"))
    first.addnext(etree.fromstring(etree.tostring(first)))
    result = fmx4_eu.extract(etree.tostring(root, encoding="utf-8"), language="en")
    assert [p.anchor for p in result.provisions[:3]] == ["art_1", "art_1__2", "art_2"]
    assert any("duplicate anchor 'art_1'" in n for n in result.notes)


def test_main_member_choice(fixtures_dir):
    base = next((fixtures_dir / "lex-corpus-eu-eurlex/works/32016r0679/versions").glob("2016-05-04--*")) / "en.fmx4"
    members = {p.name: p.read_bytes() for p in base.iterdir()}
    assert fmx4_eu.main_member(members) == "CL2016R0679EN0000020.0001.xml"
    two = dict(members, **{"CL2016R0679EN0000020.0002.xml": b"<CONS.ACT/>"})
    assert fmx4_eu.main_member(two) == "CL2016R0679EN0000020.0001.xml"  # named by REF.PHYS in the .doc.xml


def test_formex_zip_as_cellar_serves_it(fixtures_dir):
    base = next((fixtures_dir / "lex-corpus-eu-eurlex/works/32016r0679/versions").glob("2016-05-04--*")) / "en.fmx4"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in sorted(base.iterdir()):
            zf.writestr(p.name, p.read_bytes())
    result = fmx4_eu.extract_zip(buf.getvalue(), language="en")
    assert len(result.provisions) == 99
