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
