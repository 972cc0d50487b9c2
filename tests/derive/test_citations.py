"""Links out of provisions → works (model §6.9 plus EU links), with official aliases."""

from __future__ import annotations

import pytest

from derive.citations import AliasTable, alias_slug, resolve
from legal.errors import DerivationError

ALIASES = AliasTable.build([(alias_slug("http://data.legilux.public.lu/eli/etat/leg/code/penal") or "",
                             "lu-legilux:loi-1879-06-18-n1")], held=["lu-legilux:loi-2006-07-31-n2"])


@pytest.mark.parametrize(("href", "work"), [
    ("/eli/etat/leg/loi/2020/06/04/a476/jo", "lu-legilux:loi-2020-06-04-a476"),
    ("http://legilux.public.lu/eli/etat/leg/loi/2006/07/31/n2/jo", "lu-legilux:loi-2006-07-31-n2"),
    ("//eli/etat/leg/rgd/2001/10/18/n3/jo/fr", "lu-legilux:rgd-2001-10-18-n3"),
    ("/eli/etat/leg/code/penal/art_454/20210430", "lu-legilux:loi-1879-06-18-n1"),  # owl:sameAs alias
    ("http://data.legilux.public.lu/eli/etat/leg/code/penal", "lu-legilux:loi-1879-06-18-n1"),
    ("/eli/reg_ue/2013/952/jo", "eu-eurlex:32013r0952"),
    ("https://eur-lex.europa.eu/legal-content/EN/AUTO/?uri=CELEX:32016R0679", "eu-eurlex:32016r0679"),
    ("https://eur-lex.europa.eu/legal-content/FR/TXT/?uri=CELEX%3A32014L0065", "eu-eurlex:32014l0065"),
    ("http://publications.europa.eu/resource/celex/32016R0679R%2802%29", "eu-eurlex:32016r0679r(02)"),
    ("http://publications.europa.eu/resource/celex/02016R0679-20160504", "eu-eurlex:32016r0679"),
    ("http://data.europa.eu/eli/reg/2016/679/oj", "eu-eurlex:32016r0679"),
    ("http://data.europa.eu/eli/dir/2015/2366/oj", "eu-eurlex:32015l2366"),
    ("https://eur-lex.europa.eu/legal-content/EN/AUTO/?uri=OJ:L:2016:119:TOC", None),
    ("???", None),
    ("https://www.example.org/page", None),
    ("#M12", None),
])
def test_resolution(href, work):
    assert resolve(href, ALIASES) == work


def test_alias_collision_aborts():
    with pytest.raises(DerivationError) as err:
        AliasTable.build([("code-civil", "lu-legilux:a"), ("code-civil", "lu-legilux:b")])
    assert err.value.code == "alias_collision"


def _scan(table: AliasTable, slug: str) -> str | None:
    """The resolver's rule stated as a scan: the exact alias, else the longest alias that prefixes
    ``slug`` followed by ``-``, else the longest held Legilux work slug that does."""
    if slug in table.aliases:
        return table.aliases[slug]
    best = max((a for a in table.aliases if slug.startswith(a + "-")), key=len, default=None)
    if best is not None:
        return table.aliases[best]
    return max((h for h in table.held if h.startswith("lu-legilux:") and slug.startswith(h[len("lu-legilux:"):] + "-")),
               key=len, default=None)


def test_canonical_looks_up_the_longest_dash_prefix_as_the_scan_finds_it():
    table = AliasTable.build(
        [("code-penal", "lu-legilux:loi-1879-06-18-n1"), ("code", "lu-legilux:x"), ("code-civil-a", "lu-legilux:y"),
         ("", "lu-legilux:empty")],
        ["lu-legilux:loi-1879-06-18-n1", "lu-legilux:loi-1879", "lu-legilux:rgd-2000-01-01-a1",
         "eu-eurlex:32016r0679", "eu-eurlex:loi-2000"])
    slugs = ["code-penal", "code-penal-art-1", "code-civil-a-b", "code-civil", "code-", "code", "-x", "", "-", "--",
             "loi-1879-06-18-n1-art-2", "loi-1879-06-18", "loi-1879-x", "rgd-2000-01-01-a1-jo", "loi-2000-x",
             "32016r0679-x", "unknown-slug"]
    for slug in slugs:
        assert table.canonical(slug) == _scan(table, slug), slug
    assert table.canonical("code-civil-a-b") == "lu-legilux:y"  # the longest alias prefix
    assert table.canonical("code-penal-art-1") == "lu-legilux:loi-1879-06-18-n1"
    held_only = AliasTable.build([], ["lu-legilux:loi-1879-06-18-n1", "lu-legilux:loi-1879", "eu-eurlex:loi-2000"])
    for slug in slugs:
        assert held_only.canonical(slug) == _scan(held_only, slug), slug
    assert held_only.canonical("loi-1879-06-18-n1-art-2") == "lu-legilux:loi-1879-06-18-n1"  # the longest held
    assert held_only.canonical("loi-2000-x") is None  # a held EUR-Lex id never canonicalises a Legilux slug
