"""Identifiers parse once into types and round-trip through str."""

from __future__ import annotations

import datetime as dt
import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from legal.errors import IdentityError
from legal.ids import (
    ProvisionId,
    Publisher,
    VersionId,
    VersionKey,
    WorkId,
    WorkSlug,
    celex_of_uri,
    parse_compact_date,
    parse_date,
)

GDPR_PVID = "http://publications.europa.eu/resource/celex/02016R0679-20160504"
GDPR_KEY = "2016-05-04--af3e8edcc8aeb9b8c10e891880377cb0b363a8fa7005a1b45557d21afa592de5"


def test_v4_key_of_gdpr_equals_published_key() -> None:
    assert str(VersionKey.create(dt.date(2016, 5, 4), GDPR_PVID)) == GDPR_KEY


@pytest.mark.parametrize(
    ("uri", "slug"),
    [
        ("http://data.legilux.public.lu/eli/etat/leg/loi/2001/04/18/n1", "loi-2001-04-18-n1"),
        ("http://data.legilux.public.lu/eli/etat/adm/pa/2020/10/23/b4077", "pa-2020-10-23-b4077"),
        ("http://data.legilux.public.lu/eli/etat/leg/code/procedure_civile", "code-procedure_civile"),
    ],
    ids=["loi", "etat-adm", "code"],
)
def test_slug_from_eli(uri: str, slug: str) -> None:
    assert WorkSlug.from_eli(uri).value == slug


@pytest.mark.parametrize(
    ("celex", "slug"),
    [("32016R0679", "32016r0679"), ("12012E/TXT", "12012e-txt"), ("32016R0679R(02)", "32016r0679r(02)")],
    ids=["regulation", "treaty-slash", "corrigendum-parentheses"],
)
def test_slug_from_celex(celex: str, slug: str) -> None:
    assert WorkSlug.from_celex(celex).value == slug


@pytest.mark.parametrize(
    "bad",
    ["../etc", "a/b", "", "UPPER", "x" * 201, "-lead", "a..b"],
    ids=["dotdot", "slash", "empty", "upper", "too-long", "leading-dash", "double-dot"],
)
def test_bad_slugs_are_refused(bad: str) -> None:
    with pytest.raises(IdentityError) as err:
        WorkSlug(bad)
    assert err.value.code == "invalid_slug"


@pytest.mark.parametrize("bad", ["20142209", "2014-22-09", "2014-2-9", "", "2014-02-30"])
def test_bad_dates_are_refused(bad: str) -> None:
    with pytest.raises(IdentityError):
        if bad.isdigit():
            parse_compact_date(bad)
        else:
            parse_date(bad)


def test_unknown_publisher_is_refused() -> None:
    with pytest.raises(IdentityError) as err:
        Publisher.parse("de-bgbl")
    assert err.value.code == "unknown_publisher"


def test_celex_of_uri() -> None:
    assert celex_of_uri("http://publications.europa.eu/resource/celex/32016R0679") == "32016R0679"


dates = st.dates(min_value=dt.date(1800, 1, 1), max_value=dt.date(2200, 12, 31))
slugs = st.from_regex(r"\A[a-z0-9][a-z0-9_-]{0,40}\Z")
anchors = st.from_regex(r"\A[A-Za-z0-9][A-Za-z0-9_.-]{0,20}\Z")


@given(dates, st.text(min_size=1).filter(str.strip))
def test_version_key_round_trips(day: dt.date, pvid: str) -> None:
    key = VersionKey.create(day, pvid)
    assert VersionKey.parse(str(key)) == key
    assert len(str(key)) == 76
    assert key.pvid_sha256 == hashlib.sha256(pvid.encode()).hexdigest()


@given(st.sampled_from(list(Publisher)), slugs, dates, st.text(min_size=1).filter(str.strip), anchors)
def test_lex_ids_round_trip(pub: Publisher, slug: str, day: dt.date, pvid: str, anchor: str) -> None:
    work = WorkId(pub, WorkSlug(slug))
    version = work.version(VersionKey.create(day, pvid))
    provision = version.provision(anchor)
    assert WorkId.parse(str(work)) == work
    assert VersionId.parse(str(version)) == version
    assert ProvisionId.parse(str(provision)) == provision


@given(dates, st.text(min_size=1).filter(str.strip), st.text(min_size=1).filter(str.strip))
def test_keys_do_not_depend_on_enumeration_order(day: dt.date, a: str, b: str) -> None:
    keys_ab = [VersionKey.create(day, x) for x in (a, b)]
    keys_ba = [VersionKey.create(day, x) for x in (b, a)]
    assert sorted(keys_ab) == sorted(keys_ba)
    assert (keys_ab[0] == keys_ab[1]) == (a == b)
