"""A date inside an identifier (a Legilux slug, a version key) is not a date the question states."""

from __future__ import annotations

import datetime as dt

from assistant.datereader import instants, read_dates

TODAY = dt.date(2026, 3, 1)


def stated(question: str) -> list[dt.date | None]:
    return [m.first for m in instants(read_dates(question, TODAY))]


def test_slug_date_is_not_a_stated_day() -> None:
    assert stated("What did article 3 of loi-2017-03-01-n901 say on 2020-01-01?") == [dt.date(2020, 1, 1)]
    assert stated("Timeline of lu-legilux:loi-2017-03-01-n901") == []


def test_version_key_date_is_not_a_stated_day() -> None:
    key = "2016-05-04--af3e8edcc8aeb9b8c10e891880377cb0b363a8fa7005a1b45557d21afa592de5"
    assert stated(f"Show {key} as of 2021-01-01.") == [dt.date(2021, 1, 1)]


def test_plain_iso_dates_are_still_stated() -> None:
    assert stated("Between 2019-01-01 and 2021-07-01, what changed?") == [dt.date(2019, 1, 1),
                                                                           dt.date(2021, 7, 1)]
