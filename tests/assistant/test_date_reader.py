"""The multilingual date reader: a table of expressions (FR/EN/DE, numeric and written forms,
ordinals, relative expressions, dates inside identifiers and citations that are not the instant)."""

from __future__ import annotations

import datetime as dt

import pytest

from assistant.datereader import read_dates

TODAY = dt.date(2026, 3, 1)

# (text, expected instant mentions as (kind, first, last)); citations are listed separately.
TABLE: list[tuple[str, list[tuple[str, str, str]]]] = [
    # ISO and numeric days
    ("on 2020-01-01", [("day", "2020-01-01", "2020-01-01")]),
    ("as of 2019-12-31?", [("day", "2019-12-31", "2019-12-31")]),
    ("au 01/02/2021", [("day", "2021-02-01", "2021-02-01")]),
    ("am 01.02.2021", [("day", "2021-02-01", "2021-02-01")]),
    ("am 1.2.2021", [("day", "2021-02-01", "2021-02-01")]),
    ("le 15-06-2018", [("day", "2018-06-15", "2018-06-15")]),
    ("on 31/12/1999", [("day", "1999-12-31", "1999-12-31")]),
    ("(2017-05-25)", [("day", "2017-05-25", "2017-05-25")]),
    ("between 2019-01-01 and 2021-07-01", [("day", "2019-01-01", "2019-01-01"), ("day", "2021-07-01", "2021-07-01")]),
    # English written forms
    ("on 1 January 2020", [("day", "2020-01-01", "2020-01-01")]),
    ("on 1st January 2020", [("day", "2020-01-01", "2020-01-01")]),
    ("on January 1, 2020", [("day", "2020-01-01", "2020-01-01")]),
    ("on January 1st, 2020", [("day", "2020-01-01", "2020-01-01")]),
    ("on 2nd February 2019", [("day", "2019-02-02", "2019-02-02")]),
    ("on 3rd March 2018", [("day", "2018-03-03", "2018-03-03")]),
    ("on the 4th of July 2017", [("day", "2017-07-04", "2017-07-04")]),
    ("on 25 May 2018", [("day", "2018-05-25", "2018-05-25")]),
    ("on 1 Jan 2020", [("day", "2020-01-01", "2020-01-01")]),
    ("on 15 Sept 2016", [("day", "2016-09-15", "2016-09-15")]),
    ("on Dec 31, 2015", [("day", "2015-12-31", "2015-12-31")]),
    ("on 29 February 2024", [("day", "2024-02-29", "2024-02-29")]),
    # French written forms
    ("au 1er janvier 2020", [("day", "2020-01-01", "2020-01-01")]),
    ("le 1 janvier 2020", [("day", "2020-01-01", "2020-01-01")]),
    ("le 2 février 2019", [("day", "2019-02-02", "2019-02-02")]),
    ("au 14 juillet 2015", [("day", "2015-07-14", "2015-07-14")]),
    ("au 15 août 2016", [("day", "2016-08-15", "2016-08-15")]),
    ("au 31 décembre 2019", [("day", "2019-12-31", "2019-12-31")]),
    ("au 1er mars 2021", [("day", "2021-03-01", "2021-03-01")]),
    ("le 3 avril 2022", [("day", "2022-04-03", "2022-04-03")]),
    ("le 10 juin 2010", [("day", "2010-06-10", "2010-06-10")]),
    ("le 30 septembre 2008", [("day", "2008-09-30", "2008-09-30")]),
    ("le 5 octobre 2005", [("day", "2005-10-05", "2005-10-05")]),
    ("le 11 novembre 2011", [("day", "2011-11-11", "2011-11-11")]),
    ("le 20 mai 2020", [("day", "2020-05-20", "2020-05-20")]),
    # German written forms
    ("am 1. Januar 2020", [("day", "2020-01-01", "2020-01-01")]),
    ("am 1 Januar 2020", [("day", "2020-01-01", "2020-01-01")]),
    ("am 3. März 2019", [("day", "2019-03-03", "2019-03-03")]),
    ("am 3. Maerz 2019", [("day", "2019-03-03", "2019-03-03")]),
    ("am 24. Dezember 2018", [("day", "2018-12-24", "2018-12-24")]),
    ("am 1. Oktober 2017", [("day", "2017-10-01", "2017-10-01")]),
    ("zum 30. Juni 2016", [("day", "2016-06-30", "2016-06-30")]),
    ("am 1. Jänner 2021", [("day", "2021-01-01", "2021-01-01")]),
    ("am 15. Februar 2015", [("day", "2015-02-15", "2015-02-15")]),
    # months and years (windows)
    ("in March 2019", [("month", "2019-03-01", "2019-03-31")]),
    ("en mars 2019", [("month", "2019-03-01", "2019-03-31")]),
    ("im März 2019", [("month", "2019-03-01", "2019-03-31")]),
    ("in February 2024", [("month", "2024-02-01", "2024-02-29")]),
    ("en février 2023", [("month", "2023-02-01", "2023-02-28")]),
    ("in 2024", [("year", "2024-01-01", "2024-12-31")]),
    ("en 2019", [("year", "2019-01-01", "2019-12-31")]),
    ("im Jahr 2018", [("year", "2018-01-01", "2018-12-31")]),
    ("between 2018 and 2020", [("year", "2018-01-01", "2018-12-31"), ("year", "2020-01-01", "2020-12-31")]),
    ("between March 2019 and May 2019", [("month", "2019-03-01", "2019-03-31"), ("month", "2019-05-01", "2019-05-31")]),
    # relative expressions (request date 2026-03-01, a Sunday)
    ("last year", [("window", "2025-01-01", "2025-12-31")]),
    ("l'année dernière", [("window", "2025-01-01", "2025-12-31")]),
    ("l'an dernier", [("window", "2025-01-01", "2025-12-31")]),
    ("l'année passée", [("window", "2025-01-01", "2025-12-31")]),
    ("letztes Jahr", [("window", "2025-01-01", "2025-12-31")]),
    ("im vergangenen Jahr", [("window", "2025-01-01", "2025-12-31")]),
    ("im Vorjahr", [("window", "2025-01-01", "2025-12-31")]),
    ("this year", [("window", "2026-01-01", "2026-03-01")]),
    ("cette année", [("window", "2026-01-01", "2026-03-01")]),
    ("dieses Jahr", [("window", "2026-01-01", "2026-03-01")]),
    ("last month", [("window", "2026-02-01", "2026-02-28")]),
    ("le mois dernier", [("window", "2026-02-01", "2026-02-28")]),
    ("letzten Monat", [("window", "2026-02-01", "2026-02-28")]),
    ("this month", [("window", "2026-03-01", "2026-03-01")]),
    ("last week", [("window", "2026-02-16", "2026-02-22")]),
    ("la semaine dernière", [("window", "2026-02-16", "2026-02-22")]),
    ("letzte Woche", [("window", "2026-02-16", "2026-02-22")]),
    ("today", [("day", "2026-03-01", "2026-03-01")]),
    ("aujourd'hui", [("day", "2026-03-01", "2026-03-01")]),
    ("Was gilt heute", [("day", "2026-03-01", "2026-03-01")]),
    ("yesterday", [("day", "2026-02-28", "2026-02-28")]),
    ("qu'est-ce qui a changé hier", [("day", "2026-02-28", "2026-02-28")]),
    ("gestern", [("day", "2026-02-28", "2026-02-28")]),
    ("two years ago", [("day", "2024-03-01", "2024-03-01")]),
    ("3 months ago", [("day", "2025-12-01", "2025-12-01")]),
    ("10 days ago", [("day", "2026-02-19", "2026-02-19")]),
    ("il y a deux ans", [("day", "2024-03-01", "2024-03-01")]),
    ("il y a 6 mois", [("day", "2025-09-01", "2025-09-01")]),
    ("vor 3 Jahren", [("day", "2023-03-01", "2023-03-01")]),
    ("vor zwei Monaten", [("day", "2026-01-01", "2026-01-01")]),
    ("in the last 2 years", [("window", "2024-03-01", "2026-03-01")]),
    ("au cours des 3 dernières années", [("window", "2023-03-01", "2026-03-01")]),
    ("in den letzten 2 Jahren", [("window", "2024-03-01", "2026-03-01")]),
    ("since 2019", [("window", "2019-01-01", "2026-03-01")]),
    ("depuis 2020", [("window", "2020-01-01", "2026-03-01")]),
    ("seit 2021", [("window", "2021-01-01", "2026-03-01")]),
    ("since 1 January 2024", [("window", "2024-01-01", "2026-03-01")]),
    ("on 1 January 2020 and two years earlier",
     [("day", "2020-01-01", "2020-01-01"), ("day", "2018-01-01", "2018-01-01")]),
    ("au 1er janvier 2020 et deux ans plus tôt",
     [("day", "2020-01-01", "2020-01-01"), ("day", "2018-01-01", "2018-01-01")]),
    ("am 1. Januar 2020 und zwei Jahre früher",
     [("day", "2020-01-01", "2020-01-01"), ("day", "2018-01-01", "2018-01-01")]),
    ("on 2020-01-01 and one year later", [("day", "2020-01-01", "2020-01-01"), ("day", "2021-01-01", "2021-01-01")]),
    ("two years earlier", [("unanchored", "None", "None")]),
    # impossible dates
    ("on 2020-02-30", [("invalid", "None", "None")]),
    ("le 31/02/2020", [("invalid", "None", "None")]),
    ("on 30 February 2021", [("invalid", "None", "None")]),
    ("am 31. April 2019", [("invalid", "None", "None")]),
    ("on 2021-13-01", [("invalid", "None", "None")]),
    # dates inside identifiers are no mention at all
    ("loi-2017-03-01-n901", []),
    ("article 3 of loi-2017-03-01-n901 on 2020-01-01", [("day", "2020-01-01", "2020-01-01")]),
    ("2016-05-04--af3e8edcc8aeb9b8c10e891880377cb0b363a8fa7005a1b45557d21afa592de5", []),
    ("eu-eurlex:32016r0679@2016-05-04", []),
    ("http://data.legilux.public.lu/eli/etat/leg/loi/2006/07/31/n2/jo", []),
    ("/eli/reg/2016/679/oj", []),
    ("Regulation (EU) 2016/679", []),
    ("Directive 2013/36/EU", []),
    ("Regulation (EU) No 575/2013", []),
    ("CELEX 32016R0679", []),
    ("02016R0679-20160504", []),
    ("lu-legilux:loi-2006-07-31-n2 in 2020", [("year", "2020-01-01", "2020-12-31")]),
    ("no date at all", []),
    ("article 2019 of nothing", [("year", "2019-01-01", "2019-12-31")]),
]

# (text, citation days, instant days): a date that names an act is never the instant.
CITATIONS: list[tuple[str, list[str], list[str]]] = [
    ("la loi du 12 mars 2004", ["2004-03-12"], []),
    ("la loi du 12 mars 2004 telle qu'applicable au 1er janvier 2019", ["2004-03-12"], ["2019-01-01"]),
    ("la loi modifiée du 12 mars 2004 au 1er janvier 2019", ["2004-03-12"], ["2019-01-01"]),
    ("Règlement (UE) 2016/679 du 27 avril 2016", ["2016-04-27"], []),
    ("Regulation (EU) 2016/679 of 27 April 2016 on 1 March 2020", ["2016-04-27"], ["2020-03-01"]),
    ("the law of 5 April 1993 as of 2020-01-01", ["1993-04-05"], ["2020-01-01"]),
    ("l'arrêté grand-ducal du 8 juin 2009", ["2009-06-08"], []),
    ("Gesetz vom 1. März 2003 am 01.02.2021", ["2003-03-01"], ["2021-02-01"]),
    ("Verordnung (EU) 2016/679 vom 27. April 2016", ["2016-04-27"], []),
    ("Directive 2013/36/EU of 26 June 2013", ["2013-06-26"], []),
    ("of the European Parliament and of the Council of 26 June 2013", ["2013-06-26"], []),
    ("la loi du 31 juillet 2006 portant introduction d'un Code du travail, version du 1er mai 2015",
     ["2006-07-31"], ["2015-05-01"]),
]


def _instants(text: str) -> list[tuple[str, str, str]]:
    return [(m.kind, str(m.first), str(m.last)) for m in read_dates(text, TODAY) if m.role == "instant"]


@pytest.mark.parametrize(("text", "expected"), TABLE, ids=[t for t, _ in TABLE])
def test_date_table(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert _instants(text) == expected


@pytest.mark.parametrize(("text", "cited", "instant"), CITATIONS, ids=[t for t, _, _ in CITATIONS])
def test_citation_dates_are_not_instants(text: str, cited: list[str], instant: list[str]) -> None:
    mentions = read_dates(text, TODAY)
    assert [str(m.first) for m in mentions if m.role == "citation"] == cited
    assert [str(m.first) for m in mentions if m.role == "instant"] == instant


def test_the_table_is_large_enough() -> None:
    assert len(TABLE) + len(CITATIONS) >= 100


def test_spans_are_the_readers_words() -> None:
    [mention] = read_dates("Was galt am 1. März 2020?", TODAY)
    assert mention.text == "1. März 2020" and mention.describe() == '"1. März 2020" = 2020-03-01'
