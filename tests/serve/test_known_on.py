"""``known_on`` through every shell: the HTTP API (POST, GET, OpenAPI), MCP and the web pages.

The index is the one of :mod:`tests.serve_core.known_tree` (a Legilux tree written by the writer
on four days); DAY3 withdrew state C, DAY4 resighted it and changed B's French body.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Iterator

import pytest
from mcp import Client
from starlette.testclient import TestClient

from serve.app import AppSettings, create_app, new_state
from serve.mount import MountConfig, ServeState
from tests.serve.conftest import NO_RATE
from tests.serve.server import running
from tests.serve_core.known_tree import SLUG, WORK, A, B, C, KnownBuild

WITHDRAWN = "2026-04-15"
HTML = {"accept": "text/html"}
WORK_URL = f"/lu-legilux/{SLUG}"


@pytest.fixture
def known_state(known_build: KnownBuild) -> ServeState:
    state = new_state(MountConfig(index_dir=known_build.index_dir, unsigned_dev=True), NO_RATE)
    state.mount()
    return state


@pytest.fixture
def client(known_state: ServeState, make_client: Callable[..., TestClient]) -> Iterator[TestClient]:
    yield make_client(known_state)


# -- HTTP API ---------------------------------------------------------------------------------------


def test_http_post_and_get_take_known_on_and_echo_it(client: TestClient, known_build: KnownBuild) -> None:
    body = {"work": WORK, "date": "2023-01-01", "mode": "outline", "known_on": WITHDRAWN}
    posted = client.post("/api/v1/as_of", json=body).json()
    assert posted["outcome"] == "no_version_for_date" and posted["known_on"] == WITHDRAWN
    got = client.get("/api/v1/timeline", params={"work": WORK, "known_on": WITHDRAWN, "include_withdrawn": "true"})
    versions = got.json()["versions"]
    assert [v["withdrawn"] for v in versions] == [False, False, True]
    assert versions[2]["version_key"] == known_build.version_keys[C]
    today = client.post("/api/v1/as_of", json={k: v for k, v in body.items() if k != "known_on"}).json()
    assert today["outcome"] == "succeeded" and "known_on" not in today


def test_http_refuses_a_bad_or_future_known_on_with_the_one_error_shape(client: TestClient) -> None:
    bad = client.post("/api/v1/coverage", json={"known_on": "2026-02-30"})
    assert bad.status_code == 400
    assert bad.json()["error"]["code"] == "invalid_date" and bad.json()["error"]["subject"] == "known_on"
    future = client.get("/api/v1/coverage", params={"known_on": "2026-06-02"})
    assert future.status_code == 400 and future.json()["error"]["code"] == "known_on_after_horizon"


def test_openapi_declares_known_on_for_every_operation(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    text = json.dumps(document)
    assert text.count('"known_on"') >= 10
    operations = client.get("/api/v1").json()["operations"]
    for operation in operations:
        assert operation["input_schema"]["properties"]["known_on"]["format"] == "date", operation["name"]


# -- MCP -------------------------------------------------------------------------------------------------


def test_mcp_tools_take_known_on(known_state: ServeState) -> None:
    app = create_app(known_state, AppSettings(limits=NO_RATE, mount_on_startup=False))

    async def scenario(url: str) -> None:
        async with Client(url) as client:
            listed = await client.list_tools()
            assert all("known_on" in tool.input_schema["properties"] for tool in listed.tools)
            result = await client.call_tool("as_of", {"work": WORK, "date": "2022-01-01", "known_on": WITHDRAWN})
            payload = json.loads(result.content[0].text)  # type: ignore[union-attr]
            assert payload["outcome"] == "text_not_available" and payload["known_on"] == WITHDRAWN
            assert payload["known_on_text"]["reason"] == "changed_later"
            early = await client.call_tool("timeline", {"work": WORK, "known_on": "2026-02-01"})
            assert json.loads(early.content[0].text)["outcome"] == "not_yet_known"  # type: ignore[union-attr]
            refused = await client.call_tool("coverage", {"known_on": "2026-06-02"})
            assert refused.is_error

    with running(app) as base:
        asyncio.run(scenario(f"{base}/mcp"))


# -- web pages ---------------------------------------------------------------------------------------------


def _get(client: TestClient, path: str) -> tuple[int, str]:
    response = client.get(path, headers=HTML)
    return response.status_code, response.text


def test_the_work_page_as_known_lists_the_states_held_then_and_keeps_known_on(client: TestClient,
                                                                               known_build: KnownBuild) -> None:
    status, page = _get(client, f"{WORK_URL}?known_on={WITHDRAWN}")
    assert status == 200 and 'id="known-on"' in page and f"As known on {WITHDRAWN}" in page
    links = set(re.findall(r'href="([^"]+)"', page))
    assert f"{WORK_URL}/{known_build.version_keys[B]}?known_on={WITHDRAWN}" in links
    assert not any(known_build.version_keys[C] in link for link in links)  # withdrawn then
    status, today = _get(client, WORK_URL)
    assert status == 200 and 'id="known-on"' not in today and known_build.version_keys[C] in today


def test_the_version_page_as_known_never_shows_a_later_body(client: TestClient, known_build: KnownBuild) -> None:
    status, page = _get(client, f"{WORK_URL}/2022-01-01?known_on={WITHDRAWN}")
    assert status == 200 and 'id="known-on-text"' in page and known_build.b_fr_first in page
    assert 'class="provision"' not in page
    status, today = _get(client, f"{WORK_URL}/2022-01-01")
    assert status == 200 and 'class="provision"' in today


def test_web_pages_before_anything_was_held_and_bad_days(client: TestClient, known_build: KnownBuild) -> None:
    for path in (WORK_URL, f"{WORK_URL}/2020-01-01", f"{WORK_URL}/diff/2012-01-01/2023-01-01",
                 f"{WORK_URL}/{known_build.version_keys[B]}/provenance"):
        status, page = _get(client, f"{path}?known_on=2026-02-01")
        assert status == 404 and "not_yet_known" in page, path
    for bad in ("yesterday", "2026-06-02"):
        status, _ = _get(client, f"{WORK_URL}?known_on={bad}")
        assert status == 400
    status, page = _get(client, f"/search?q=entraide+judiciaire&known_on={WITHDRAWN}")
    assert status == 200 and f"As known on {WITHDRAWN}" in page
    assert f"?known_on={WITHDRAWN}" in page and known_build.version_keys[C] not in page
    redirect = client.get(f"{WORK_URL}/at?date=2012-01-01&known_on={WITHDRAWN}", follow_redirects=False)
    assert redirect.status_code == 303 and redirect.headers["location"] == f"{WORK_URL}/2012-01-01?known_on={WITHDRAWN}"
    status, page = _get(client, f"{WORK_URL}/2012-01-01?known_on={WITHDRAWN}")
    assert status == 200 and f"{WORK_URL}/{known_build.version_keys[A]}?known_on={WITHDRAWN}#art_4" in page


def test_diff_and_provenance_pages_as_known(client: TestClient, known_build: KnownBuild) -> None:
    status, page = _get(client, f"{WORK_URL}/diff/2012-01-01/2015-06-01?known_on={WITHDRAWN}")
    assert status == 200 and f"As known on {WITHDRAWN}" in page
    status, _ = _get(client, f"{WORK_URL}/diff/2012-01-01/2015-12-31?known_on={WITHDRAWN}")
    assert status == 404  # A ended (exclusive) on 2015-12-31 as held then; today it covers that day
    status, _ = _get(client, f"{WORK_URL}/diff/2012-01-01/2015-12-31")
    assert status == 200
    status, page = _get(client, f"{WORK_URL}/{known_build.version_keys[B]}/provenance?known_on={WITHDRAWN}")
    assert status == 200 and "expression_added" not in page and "first_sighting" in page
    status, today = _get(client, f"{WORK_URL}/{known_build.version_keys[B]}/provenance")
    assert "expression_added" in today


