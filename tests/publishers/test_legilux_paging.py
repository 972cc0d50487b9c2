"""The Legilux enumeration's paged queries: paging errors come before bad-row errors.

A bad catalogue or manifestation row is reported only once paging has proved itself (overlap,
duplicates, the publisher's ``COUNT``): a guard for any change that streams the rows (issue #13).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs

import httpx
import pytest

from legal.errors import PublisherError
from publishers.http import HttpClient, HttpPolicy
from publishers.legilux import LegiluxAdapter, LegiluxConfig

J = "http://data.legilux.public.lu/"
WORK = J + "eli/etat/leg/loi/2011/04/08/n2"
CODE = J + "eli/etat/leg/code/consommation/20240910"
GOOD = {"c": CODE, "work": WORK, "from": "2024-09-10", "type": J + "resource/authority/resource-type/CODE",
        "expr": CODE + "/fr", "lang": J + "resource/authority/language/FRA", "title": "Code de la consommation"}
NO_C = {k: v for k, v in GOOD.items() if k != "c"}
FILE = {"c": CODE, "expr": CODE + "/fr", "fmt": J + "resource/authority/user-format/xml",
        "file": J + "filestore/eli/etat/leg/code/consommation/20240910/fr/xml/a.xml"}
NO_FILE = {k: v for k, v in FILE.items() if k != "file"}


def adapter(catalogue: list[dict[str, str]], catalogue_count: int, files: list[dict[str, str]],
            files_count: int) -> LegiluxAdapter:
    """An adapter whose endpoint answers the two paged queries and their ``COUNT`` s."""

    def handler(request: httpx.Request) -> httpx.Response:
        query = parse_qs(request.content.decode())["query"][0]
        manifestations = "isEmbodiedBy" in query
        if "COUNT(*)" in query:
            n = files_count if manifestations else catalogue_count
            bindings = [{"n": {"type": "literal", "value": str(n)}}]
        else:
            limit, offset = (int(x) for x in re.search(r"LIMIT (\d+) OFFSET (\d+)", query).groups())  # type: ignore[union-attr]
            rows = (files if manifestations else catalogue)[offset:offset + limit]
            bindings = [{k: {"type": "literal", "value": v} for k, v in r.items()} for r in rows]
        return httpx.Response(200, json={"head": {"vars": []}, "results": {"bindings": bindings}})

    http = HttpClient(httpx.Client(transport=httpx.MockTransport(handler)), HttpPolicy(politeness_delay=0))
    return LegiluxAdapter(http, LegiluxConfig.for_replay("https://legilux.test"))


def failure(a: LegiluxAdapter) -> PublisherError:
    with pytest.raises(PublisherError) as info:
        a.enumerate()
    return info.value


def test_a_catalogue_row_without_c_is_reported_after_paging_proved_itself() -> None:
    error = failure(adapter([NO_C, GOOD], 2, [FILE], 1))
    assert error.code == "enumeration_parser_failure" and "catalogue row without ?c" in error.message
    error = failure(adapter([NO_C, GOOD], 3, [FILE], 1))  # the count mismatch comes first, as before
    assert error.code == "incomplete_enumeration" and "publisher counts 3" in error.message


def test_a_manifestation_row_without_file_is_reported_after_paging_proved_itself() -> None:
    error = failure(adapter([GOOD], 1, [NO_FILE, FILE], 2))
    assert error.code == "enumeration_parser_failure" and "manifestation row without ?file" in error.message
    error = failure(adapter([GOOD], 1, [NO_FILE, FILE], 3))  # the count mismatch comes first, as before
    assert error.code == "incomplete_enumeration" and "publisher counts 3" in error.message
