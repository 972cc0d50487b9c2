"""``xhtml-eu/1`` and ``html-eu-tolerant/1`` on real EUR-Lex bodies (trap 19, 20)."""

from __future__ import annotations

from lxml import etree

from derive.dispatch import derive_body
from derive.limits import DEFAULT_LIMITS, parse_xml
from derive.profiles import html_eu, xhtml_eu
from derive.text import collapse_ws
from legal.outcomes import TextGap


def test_gdpr_consolidated_en_and_fr_articles_1_to_99(eu_body):
    for lang in ("en", "fr"):
        result = derive_body(eu_body(f"32016r0679/2016-05-04/{lang}.html"), language=lang)
        assert result.profile == "xhtml-eu/4"
        assert [p.anchor for p in result.provisions] == [f"art_{n}" for n in range(1, 100)]


def test_gdpr_article_6_is_golden_on_every_run(eu_body, golden):
    expected = golden("gdpr-art_6-2016-05-04.json")
    for lang in ("en", "fr"):
        runs = [derive_body(eu_body(f"32016r0679/2016-05-04/{lang}.html"), language=lang) for _ in range(2)]
        arts = [next(p for p in r.provisions if p.anchor == "art_6") for r in runs]
        assert arts[0] == arts[1]
        assert arts[0].text_sha256 == expected[lang]["text_sha256"]
        assert arts[0].text_md == expected[lang]["text_md"]
        assert (arts[0].num, arts[0].heading, list(arts[0].path)) == (
            expected[lang]["num"], expected[lang]["heading"], expected[lang]["path"])


def test_trap_19_amendment_arrows_are_citations_never_text(eu_body):
    result = xhtml_eu.extract(eu_body("32016r0679/2016-05-04/en.html"), language="en")
    art37 = next(p for p in result.provisions if p.anchor == "art_37")
    assert "▼" not in art37.text_md and "►" not in art37.text_md and "C1" not in art37.text_md
    assert any(c.text == "32016R0679R(02): REPLACED" for c in art37.citations)


def test_list_items_are_not_glued(eu_body):
    # the reference renders "applies:(a) the data subject…"
    art6 = next(p for p in xhtml_eu.extract(eu_body("32016r0679/2016-05-04/en.html"), language="en").provisions
                if p.anchor == "art_6")
    assert "applies:\n\n(a) the data subject" in art6.text_md


def test_oj_format_original_has_num_heading_and_paragraph_numbers(eu_body):
    result = xhtml_eu.extract(eu_body("32016r0679/2016-04-27/en.xml"), language="en")
    art6 = next(p for p in result.provisions if p.anchor == "art_6")
    assert (art6.num, art6.heading) == ("Article 6", "Lawfulness of processing")
    assert art6.path == ("CHAPTER II — Principles",)
    assert art6.text_md.startswith("**1.** Processing shall be lawful")


def test_flat_fmx2xhtml_layout(eu_body):
    result = xhtml_eu.extract(eu_body("32013r1336/2016-04-18/en.html"), language="en")
    assert [p.anchor for p in result.provisions] == ["art_3", "art_4"]
    assert "▼" not in result.provisions[0].text_md
    assert {c.href for c in result.provisions[0].citations} >= {"http://publications.europa.eu/resource/celex/32013R1336"}


def test_single_treaty_article_convex(eu_body):
    result = xhtml_eu.extract(eu_body("12016e062/2016-06-07/en.xml"), language="en")
    (art,) = result.provisions
    assert (art.anchor, art.num, art.heading) == ("art_62", "Article 62", "(ex Article 55 TEC)")
    assert art.text_md == "The provisions of Articles 51 to 54 shall apply to the matters covered by this Chapter."


def test_trap_20_html401_eurlex_page_is_repaired_in_memory(eu_body):
    body = eu_body("11997e083/1957-03-25/en.html")
    result = derive_body(body, language="en")
    assert result.profile == "html-eu-tolerant/5"
    (art,) = result.provisions
    assert art.anchor == "art_83" and art.num == "Article 83"
    assert "Avis juridique" not in art.text_md  # site chrome is not law
    assert art.text_md.startswith("1. The appropriate regulations or directives")


def test_trap_20_html5_page_without_text_is_a_typed_gap(eu_body):
    result = html_eu.extract(eu_body("12010e113/1957-03-25/en.html"), language="en")
    assert result.provisions == ()
    assert result.gap is not None and result.gap.gap is TextGap.UNSUPPORTED_MANIFESTATION


def test_corrigendum_without_articles_is_one_document_provision(eu_body):
    result = derive_body(eu_body("32016r0679r(02)/2018-05-23/en.xml"), language="en")
    assert result.profile == "html-eu-tolerant/5"
    (doc,) = result.provisions
    assert doc.type == "document" and "On page 14, recital 71" in doc.text_md


def test_old_html_pages_decode_as_utf8(eu_body):
    result = derive_body(eu_body("31978l0583/1978-06-26/fr.html"), language="fr")
    assert "Par dérogation à l'article 1er" in result.provisions[0].text_md


# -- the walker's lookups (issue 13: one libxml2 call per subtree text, names and classes by subscript)


def _itertext(el: etree._Element) -> str:
    return "".join(el.itertext())


def test_subtree_text_is_the_itertext_join_on_every_element(eu_body):
    for rel in ("32016r0679/2016-05-04/en.html", "32016r0679/2016-04-27/en.xml", "32013r1336/2016-04-18/en.html"):
        root = parse_xml(eu_body(rel), "0" * 64)
        elements = [el for el in root.iter() if isinstance(el.tag, str)]
        assert len(elements) > 100
        assert all(xhtml_eu._all_text(el) == _itertext(el) for el in elements)
    page = html_eu.parse_html(eu_body("11997e083/1957-03-25/en.html"), "0" * 64, DEFAULT_LIMITS)
    assert all(xhtml_eu._all_text(el) == _itertext(el) for el in page.iter() if isinstance(el.tag, str))


def test_subtree_text_leaves_out_the_tail_and_processing_instructions():
    root = etree.fromstring('<div xmlns="http://www.w3.org/1999/xhtml">a<p>b<?pi skipped?>c<b>d</b>e</p>f'
                            '<!-- gone -->g</div>')
    p = root[0]
    assert xhtml_eu._all_text(p) == _itertext(p) == "bcde"
    assert xhtml_eu._all_text(root) == _itertext(root) == "abcdefg"


def test_names_are_lower_case_local_names_and_empty_for_non_elements():
    root = etree.fromstring('<html xmlns="http://www.w3.org/1999/xhtml"><BODY/><?pi x?></html>')
    comment = etree.Comment("c")
    assert xhtml_eu._name(root.tag) == "html"
    assert xhtml_eu._name(root[0].tag) == "body"
    assert xhtml_eu._name(root[1].tag) == "" and xhtml_eu._name(comment.tag) == ""
    assert xhtml_eu._name("td") == "td"


def test_class_sets_are_shared_per_attribute_value():
    root = etree.fromstring('<div><p class="norm  bold"/><p class="norm bold"/><p class="norm  bold"/><p/></div>')
    first, second, third, none = (xhtml_eu._classes(p) for p in root)
    assert first == second == frozenset({"norm", "bold"})
    assert first is third  # the same attribute value is split once
    assert none == frozenset() and xhtml_eu.classes(root[0]) == {"norm", "bold"}


# -- session 12: the same walker, fewer steps (issue 13) ----------------------------------------


class _ReferenceWalker(xhtml_eu.Walker):
    """The walker's ``children`` and ``table`` as they were before (every run folded, every cell's
    text read), kept here to prove the faster ones render the same blocks."""

    def children(self, el: etree._Element, skip: etree._Element | None = None) -> list[str]:
        out: list[str] = []
        run = [el.text or ""]
        for child in el:
            if child is skip:
                pass
            elif xhtml_eu._name(child.tag) in xhtml_eu.BLOCK_TAGS:
                text = "".join(run)
                if text:
                    out.append(_reference_clean(text))
                run = []
                out.extend(self.blocks(child))
            else:
                run.append(self.inline_child(child, False))
            run.append(child.tail or "")
        out.append(_reference_clean("".join(run)))
        return [b for b in out if b]

    def table(self, el: etree._Element) -> list[str]:
        grid = [[c for c in tr if xhtml_eu._name(c.tag) in ("td", "th")] for tr in xhtml_eu._rows(el)]
        texts = [[xhtml_eu._text(c) for c in row] for row in grid]
        layout = [(row, t) for row, t in zip(grid, texts, strict=True) if any(t)]
        if layout and all(len(row) == 2 and 0 < len(t[0]) <= 12 for row, t in layout):
            out: list[str] = []
            for row, _ in layout:
                out.extend(xhtml_eu._mark(_reference_clean(self.inline(row[0])), self.children(row[1])))
            return out
        table = xhtml_eu.gfm_table([[" ".join(self.children(c)) for c in row] for row, _ in layout])
        return [table] if table else []


def _reference_clean(text: str) -> str:
    return collapse_ws(xhtml_eu._CLOSING_ARROW.sub(" ", text) if "◄" in text else text)


# (the four separators collapse_ws keeps cannot occur in XML 1.0 text: see the _clean tests)
_SYNTHETIC = (
    '<html xmlns="http://www.w3.org/1999/xhtml"><body>'
    '<p class="title-article-norm">Article 1</p><p class="stitle-article-norm">Tables</p>'
    '<table><tr><td><p>(a)</p></td><td><p>first <span class="italic">point</span>;</p></td></tr>'
    '<tr><td> </td><td>\r\n</td></tr><tr><td/><td>  </td></tr>'
    '<tr><td><p>(b)</p></td><td><p>second ◄ point</p><table><tr><td>x</td><td>y</td></tr></table></td></tr></table>'
    '<table><tbody><tr><th>Head</th><th>Other</th><th/></tr><tr><td>\u00a0</td><td>cell <b>one</b></td>'
    '<td><p>p1</p>\n  <p>p2</p></td></tr><tr><td>a longer first cell</td><td>|pipe|</td></tr></tbody></table>'
    '<p class="title-article-norm">Article 2</p>'
    '<div>  \n <p>lead</p> \t <p>next</p>tail <b>bold</b> ◄ <br/>end\u2028</div>'
    '<ul><li>one</li><li><p>two</p><ul><li>nested</li></ul></li>\u3000</ul><ol start="3"><li>three</li></ol>'
    '<p>call<a href="#note1">(1)</a> and <a href="http://x/y">a link</a> <sup>2</sup> <sub> </sub></p>'
    '<div><span class="no-parag">1.</span>  numbered <p>block</p></div>'
    '<p class="footnote"><a id="note1" href="#c1">(1)</a>  The note\u2002text.</p>'
    '</body></html>'
)


def _drafts(body: bytes, walker: xhtml_eu.Walker) -> list[object]:
    root = parse_xml(body, "0" * 64)
    drafts, note = xhtml_eu.drafts_for(root, walker)
    return [note, walker.images, *[(d.anchor, d.num, d.heading, d.path, d.body, d.citations, d.figures)
                                   for d in drafts]]


def test_children_and_tables_render_as_the_reference_walker(eu_body):
    bodies = [eu_body(rel) for rel in ("32016r0679/2016-05-04/en.html", "32016r0679/2016-05-04/fr.html",
                                       "32016r0679/2016-04-27/en.xml", "32013r1336/2016-04-18/en.html",
                                       "12016e062/2016-06-07/en.xml")]
    for body in [*bodies, _SYNTHETIC.encode()]:
        reference = _drafts(body, _ReferenceWalker())
        assert len(reference) > 2
        assert _drafts(body, xhtml_eu.Walker()) == reference
    synthetic = _drafts(_SYNTHETIC.encode(), xhtml_eu.Walker())
    assert "(a) first *point*;" in synthetic[2][4] and "| Head | Other |  |" in synthetic[2][4]
    assert "- one" in synthetic[3][4] and "[^1]: The note text." in synthetic[3][4]


def test_clean_is_the_arrowless_collapse_ws():
    samples = ["", " ", "\x1c", " a \x1d b ", "a\u00a0\u2028b", "\u200bx\ufeff", " ◄ ", "a◄b", "\t\n x  y \r",
               "\x85\u3000z\u205f", "\x1f◄\x1c"]
    for text in samples:
        assert xhtml_eu._clean(text) == _reference_clean(text)


def test_a_run_is_blank_exactly_when_cleaning_leaves_nothing():
    # isspace() is the .NET set plus the four separators, which collapse_ws keeps
    for code in range(0x3100):
        ch = chr(code)
        blank = ch.isspace() and xhtml_eu._SEPARATORS.isdisjoint(ch)
        assert blank == (collapse_ws(ch) == "") == (collapse_ws(f" {ch}\t") == "")


def test_the_long_paragraph_bound_never_overstates_the_plain_text(eu_body):
    walker = xhtml_eu.Walker()
    synthetic = ('<div xmlns="http://www.w3.org/1999/xhtml">' + "x" * 30 +
                 '<a href="#n">(<a href="#m">1</a>)</a><A href="#k">2</A><!--' + "c" * 50 + '-->'
                 '<?pi ' + "p" * 50 + '?><script>' + "s" * 50 + '</script>' + "◄" * 20 + "y" * 10 + '</div>')
    roots = [parse_xml(eu_body(rel), "0" * 64) for rel in ("32016r0679/2016-05-04/en.html",
                                                           "32013r1336/2016-04-18/en.html")]
    roots.append(etree.fromstring(synthetic))
    said = 0
    for root in roots:
        for el in root.iter():
            if not isinstance(el.tag, str):
                continue
            for n in (1, 30, 40, xhtml_eu.SIGNATURE_MAX):
                if xhtml_eu._plain_at_least(el, n):
                    said += 1
                    assert len(walker.plain(el) or "") >= n
    assert said > 100
    assert not xhtml_eu._plain_at_least(roots[-1], 30)  # 40 solid characters, three links may eat 18
    assert xhtml_eu._plain_at_least(roots[-1], 22)
