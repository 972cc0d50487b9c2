"""Normalisation rules of model §6.4: whitespace as .NET defines it, blocks, tables, slugs."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from derive.lists import alpha, ordered_marker, roman
from derive.text import (
    annex_anchor,
    article_anchor,
    collapse_ws,
    gfm_table,
    join_blocks,
    prefix_num,
    slug,
    strip_emphasis,
)


def test_collapse_folds_dotnet_whitespace_including_nbsp_and_narrow_nbsp():
    assert collapse_ws("\u00a0 Article\u202f3\t\r\n de\u2003la\u3000loi \u0085") == "Article 3 de la loi"


def test_collapse_keeps_information_separators_that_python_calls_space():
    # U+001C..U+001F are str.isspace() in Python but not char.IsWhiteSpace in .NET
    assert collapse_ws("a\x1cb \x1f c") == "a\x1cb \x1f c"
    assert "\x1c".isspace()


def test_collapse_keeps_zero_width_characters():
    assert collapse_ws("a\u200bb\ufeffc") == "a\u200bb\ufeffc"


@given(st.text())
def test_collapse_is_idempotent_and_trimmed(text: str):
    once = collapse_ws(text)
    assert collapse_ws(once) == once
    assert once == once.strip(" ")
    assert "  " not in once


def test_blocks_join_with_blank_lines_and_drop_empty():
    assert join_blocks(["a", "", "  ", "b"]) == "a\n\nb"


def test_paragraph_number_prefix_or_own_block():
    assert prefix_num("(1)", ["Texte."]) == ["**(1)** Texte."]
    assert prefix_num("2.", ["| A | B |", "x"]) == ["**2.**", "| A | B |", "x"]
    assert prefix_num("3.", ["1. premier"]) == ["**3.**", "1. premier"]
    assert prefix_num(None, ["a", ""]) == ["a"]


def test_gfm_table_pads_escapes_and_separates_header():
    table = gfm_table([["A", "B|C"], ["1"], ["", ""]])
    assert table == "| A | B\\|C |\n| --- | --- |\n| 1 |  |"


def test_slug_like_mdutil():
    assert slug("Article 50a") == "article_50a"
    assert slug("Chapitre Ier — Objet") == "chapitre_ier_objet"
    assert slug("Élément") == "element"
    assert slug("—") == "item"


def test_eu_anchors_from_titles():
    assert article_anchor("Article 6") == "art_6"
    assert article_anchor("Article 50a") == "art_50a"
    assert annex_anchor("ANNEX II") == "anx_ii"


def test_strip_emphasis_gives_plain_text():
    assert strip_emphasis("**Art. 1er.**  *bis*") == "Art. 1er. bis"


def test_list_markers_follow_the_publisher_symbol():
    assert [ordered_marker("1°", i) for i in range(3)] == ["1°", "2°", "3°"]
    assert ordered_marker("a)", 2) == "c)"
    assert ordered_marker("(i)", 3) == "(iv)"
    assert ordered_marker("I.", 1, "2") == "III."
    assert ordered_marker(None, 0) == "1."
    assert ordered_marker("custom", 0) == ""
    assert roman(1994) == "mcmxciv" and alpha(27) == "aa"


def test_local_and_namespace_of_tags():
    from lxml import etree

    from derive.limits import local, namespace

    root = etree.fromstring(b'<a xmlns="urn:x"><b/><!--c--><?pi x?><y:c xmlns:y="urn:y"/><d xmlns=""/></a>')
    assert [(local(e.tag), namespace(e.tag)) for e in root.iter()] == [
        ("a", "urn:x"), ("b", "urn:x"), ("", ""), ("", ""), ("c", "urn:y"), ("d", "")]
    assert (local(None), namespace(None)) == ("", "")
