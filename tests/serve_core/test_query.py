"""Free-text query parsing (derive/index/query.py)."""

from __future__ import annotations

import pytest

from derive.index.query import parse_query


@pytest.mark.parametrize(("query", "key"), [
    ("Article 6 GDPR", "6"), ("art. 1er de la loi", "1"), ("Art. 1 du code", "1"), ("Article 42ter", "42-ter"),
    ("article 42 ter", "42-ter"), ("Article L. 111-1 du Code du travail", "l-111-1"), ("Article 92a CRR", "92-a"),
    ("Art. 4.", "4"),
])
def test_article_numbers(query: str, key: str) -> None:
    parsed = parse_query(query)
    assert parsed.article is not None and parsed.article.key == key


def test_no_article_without_a_number() -> None:
    assert parse_query("articles about data").article is None


@pytest.mark.parametrize(("query", "kind", "slug"), [
    ("32016R0679", "celex", "32016r0679"),
    ("CELEX:02016R0679-20160504", "celex", "32016r0679"),
    ("12012E/TXT", "celex", "12012e-txt"),
    ("eu-eurlex:32016r0679#art_6", "lex_id", "32016r0679"),
    ("loi-2009-02-06-n3", "slug", "loi-2009-02-06-n3"),
    ("http://data.europa.eu/eli/reg/2016/679/oj", "eli", "32016r0679"),
    ("https://legilux.public.lu/eli/etat/leg/loi/2009/02/06/n3/jo", "eli", "loi-2009-02-06-n3"),
    ("https://eur-lex.europa.eu/legal-content/EN/TXT/?uri=CELEX:32013R0575", "url", "32013r0575"),
])
def test_identifiers(query: str, kind: str, slug: str) -> None:
    ident = parse_query(query).identifiers[0]
    assert ident.kind == kind and ident.slugs[0] == slug


def test_lex_id_carries_key_and_anchor() -> None:
    key = "2016-05-04--af3e8edcc8aeb9b8c10e891880377cb0b363a8fa7005a1b45557d21afa592de5"
    ident = parse_query(f"eu-eurlex:32016r0679:{key}#art_6").identifiers[0]
    assert (ident.publisher, ident.version_key, ident.anchor) == ("eu-eurlex", key, "art_6")


@pytest.mark.parametrize(("query", "date"), [
    ("on 2021-01-01", "2021-01-01"), ("au 1er janvier 2030", "2030-01-01"), ("1 January 2021", "2021-01-01"),
    ("January 1, 2021", "2021-01-01"), ("le 01/02/2021", "2021-02-01"), ("du 12 novembre 2004", "2004-11-12"),
])
def test_dates(query: str, date: str) -> None:
    assert [d.date for d in parse_query(query).dates] == [date]


def test_dates_inside_identifiers_are_not_dates() -> None:
    parsed = parse_query("loi-2009-02-06-n3 on 2030-01-01")
    assert [d.date for d in parsed.dates] == ["2030-01-01"]


def test_invalid_calendar_dates_are_ignored() -> None:
    assert parse_query("2021-02-30").dates == ()


def test_terms_and_phrases() -> None:
    parsed = parse_query('What does "personal data" mean for consent?')
    assert parsed.phrases == ("personal data",)
    assert parsed.residual_tokens() == ["mean", "consent"]
    assert parse_query("x" * 5000).raw == "x" * 1000
