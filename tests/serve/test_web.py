"""The web pages: permalinks, 409/404 with exact-key links, escaping, identity and semantics."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from serve.app import AppSettings, create_app, new_state
from serve.mount import MountConfig, ServeState
from tests.index.handmade import LU_SLUG, build_handmade
from tests.serve.conftest import NO_RATE
from tests.serve.corpus import SLUG, V1, V1_RECORD_SHA256, V2A, V2B

HTML = {"accept": "text/html"}
LU_LABEL = "Legilux timeline: the publisher&#39;s dates of applicability."
EU_LABEL = "EUR-Lex timeline: dates of consolidated wording states."
WORK_URL = f"/lu-legilux/{SLUG}"


def get(client: TestClient, path: str) -> tuple[int, str]:
    response = client.get(path, headers=HTML)
    assert response.headers["content-type"].startswith("text/html")
    return response.status_code, response.text


def hrefs(page: str) -> set[str]:
    return set(re.findall(r'href="([^"]+)"', page))


def test_the_work_page_lists_every_exact_version_and_the_ask_hook(dev_client: TestClient) -> None:
    status, page = get(dev_client, WORK_URL)
    assert status == 200
    for key in (V1, V2A, V2B):
        assert f"{WORK_URL}/{key}" in hrefs(page)
        assert f"{WORK_URL}/{key}/provenance" in hrefs(page)
    assert 'id="ask-panel"' in page and 'data-hook="ask-panel"' in page
    assert LU_LABEL in page
    assert "Unsigned development index" in page


def test_a_date_permalink_shows_the_wording_with_anchors(dev_client: TestClient) -> None:
    status, page = get(dev_client, f"{WORK_URL}/2021-06-01")
    assert status == 200
    assert 'id="art_1"' in page and 'id="art_2"' in page
    assert f"{WORK_URL}/{V1}#art_1" in hrefs(page)
    assert "Les peines sont légères." in page


def test_an_exact_key_permalink_shows_that_version(dev_client: TestClient) -> None:
    status, page = get(dev_client, f"{WORK_URL}/{V2B}")
    assert status == 200
    assert "La loi s&#39;applique partout." in page and "révisée" not in page


def test_an_ambiguous_bare_date_is_409_with_exact_key_links(dev_client: TestClient) -> None:
    status, page = get(dev_client, f"{WORK_URL}/2022-06-01")
    assert status == 409
    assert "ambiguous_version" in page
    assert {f"{WORK_URL}/{V2A}", f"{WORK_URL}/{V2B}"} <= hrefs(page)
    # The message names the date asked and the states' own start, never one for the other.
    assert "On 2022-06-01, 2 states" in page and f"all beginning {V2A[:10]}" in page


def test_a_date_without_a_version_is_404_with_exact_key_links(dev_client: TestClient) -> None:
    status, page = get(dev_client, f"{WORK_URL}/2019-06-01")
    assert status == 404
    assert "no_version_for_date" in page
    assert {f"{WORK_URL}/{V1}", f"{WORK_URL}/{V2A}", f"{WORK_URL}/{V2B}"} <= hrefs(page)


def test_a_key_that_is_not_held_is_404_with_exact_key_links(dev_client: TestClient) -> None:
    status, page = get(dev_client, f"{WORK_URL}/2021-06-01--{'0' * 64}")
    assert status == 404
    assert f"{WORK_URL}/{V1}" in hrefs(page)


@pytest.mark.parametrize("path", [
    "/lu-legilux/unknown-work", "/lu-legilux/unknown-work/2021-01-01", f"{WORK_URL}/yesterday",
    "/xx-nowhere/work/2021-01-01", f"{WORK_URL}/2021-02-30",
])
def test_unknown_works_and_malformed_points_are_404(dev_client: TestClient, path: str) -> None:
    assert get(dev_client, path)[0] == 404


def test_the_diff_permalink_compares_provision_by_provision(dev_client: TestClient) -> None:
    status, page = get(dev_client, f"{WORK_URL}/diff/2021-01-01/{V2A}")
    assert status == 200
    assert "<del>" in page and "<ins>" in page
    assert "1 changed" in page and "1 added" in page and "1 removed" in page
    assert "&lt;toute&gt;" in page and "<toute>" not in page


def test_an_ambiguous_diff_side_is_409_with_exact_diff_links(dev_client: TestClient) -> None:
    status, page = get(dev_client, f"{WORK_URL}/diff/2021-01-01/2022-06-01")
    assert status == 409
    assert {f"{WORK_URL}/diff/2021-01-01/{V2A}", f"{WORK_URL}/diff/2021-01-01/{V2B}"} <= hrefs(page)


def test_a_diff_in_reverse_order_is_400_with_the_right_link(dev_client: TestClient) -> None:
    status, page = get(dev_client, f"{WORK_URL}/diff/2022-02-01/2021-01-01")
    assert status == 400
    assert f"{WORK_URL}/diff/2021-01-01/2022-02-01" in hrefs(page)


def test_the_provenance_page_shows_the_hash_chain(dev_client: TestClient) -> None:
    status, page = get(dev_client, f"{WORK_URL}/{V1}/provenance")
    assert status == 200
    assert V1_RECORD_SHA256 in page and "first_sighting" in page


def test_the_forms_redirect_to_permalinks(dev_client: TestClient) -> None:
    response = dev_client.get(f"{WORK_URL}/at", params={"date": "2021-06-01"}, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == f"{WORK_URL}/2021-06-01"
    response = dev_client.get(f"{WORK_URL}/compare", params={"from": "2021-01-01", "to": V2A},
                              follow_redirects=False)
    assert response.headers["location"] == f"{WORK_URL}/diff/2021-01-01/{V2A}"
    assert dev_client.get(f"{WORK_URL}/at", params={"date": "soon"}, headers=HTML).status_code == 400


def test_search_escapes_the_query_and_links_hits_to_permalinks(dev_client: TestClient) -> None:
    status, page = get(dev_client, "/search?q=peines")
    assert status == 200
    assert f"{WORK_URL}/{V1}#art_2" in hrefs(page)
    status, page = get(dev_client, "/search?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E")
    assert status == 200
    assert "<script>" not in page and "&lt;script&gt;" in page
    status, page = get(dev_client, "/search?q=" + "x" * 1200)
    assert status == 400


def test_every_page_names_the_artifact_and_the_semantics(dev_client: TestClient) -> None:
    for path in ("/", "/verify", "/search?q=loi", WORK_URL, f"{WORK_URL}/2021-06-01"):
        status, page = get(dev_client, path)
        assert status == 200, path
        assert 'id="artifact-identity"' in page, path
        assert LU_LABEL in page, path
        assert "entry into force" not in page.lower(), path


def test_with_nothing_mounted_pages_say_no_corpus_mounted(empty_client: TestClient) -> None:
    for path in ("/", WORK_URL, f"{WORK_URL}/2021-06-01", "/search?q=loi"):
        status, page = get(empty_client, path)
        assert status == 503, path
        assert "no_corpus_mounted" in page
    status, page = get(empty_client, "/verify")
    assert status == 200 and "mount_pending" in page


def test_pages_over_the_real_core(tmp_path: Path) -> None:
    build_handmade(tmp_path / "indexes")
    state = new_state(MountConfig(index_dir=tmp_path, unsigned_dev=True), NO_RATE)
    state.mount()
    with TestClient(create_app(state, AppSettings(limits=NO_RATE, mount_on_startup=False))) as client:
        work = f"/lu-legilux/{LU_SLUG}"
        assert get(client, work)[0] == 200
        assert get(client, f"{work}/2024-06-01")[0] == 200
        status, page = get(client, f"{work}/2025-08-01")
        assert status == 409 and page.count(f'href="{work}/2025-07-28--') == 2
        assert get(client, f"{work}/2000-01-01")[0] == 404
        status, page = get(client, "/eu-eurlex/32099r0001/diff/2020-06-01/2022-06-01")
        assert status == 200 and "1 changed" in page and "1 added" in page
        assert EU_LABEL in page
        status, page = get(client, "/search?q=choses")
        assert status == 200 and f'href="{work}/' in page
        timeline = client.post("/api/v1/timeline", json={"work": f"lu-legilux:{LU_SLUG}"}).json()
        key = timeline["versions"][0]["version_key"]
        status, page = get(client, f"{work}/{key}/provenance")
        assert status == 200 and "Hash chain" in page


def test_markdown_emphasis_is_rendered_after_escaping() -> None:
    from serve.web.render import emphasis

    assert str(emphasis("**1.** Le *président* <b>x</b>")) == \
        "<strong>1.</strong> Le <em>président</em> &lt;b&gt;x&lt;/b&gt;"
    assert str(emphasis("**<script>alert(1)</script>**")) == "<strong>&lt;script&gt;alert(1)&lt;/script&gt;</strong>"
    assert str(emphasis("a * b * c")) == "a * b * c"


def test_the_version_page_escapes_the_publisher_text(dev_client: TestClient) -> None:
    status, page = get(dev_client, f"{WORK_URL}/2021-06-01")
    assert status == 200 and "&lt;toute&gt;" in page and "<toute>" not in page


def test_without_extensions_there_is_no_ask_route_and_a_placeholder(dev_client: TestClient) -> None:
    assert dev_client.post("/ask", json={"message": "hello"}).status_code in (404, 405)
    page = get(dev_client, WORK_URL)[1]
    assert 'data-hook="ask-panel"' in page and "<script" not in page


def test_the_composition_root_adds_the_assistant(make_state: Callable[..., ServeState],
                                                 make_client: Callable[..., TestClient], dev_index: Path) -> None:
    from cli.serve import assistant_extension

    state = make_state(MountConfig(index_dir=dev_index, unsigned_dev=True), mount=True)
    client = make_client(state, extensions=(assistant_extension(),))
    assert client.get("/ask/panel").status_code == 200
    status, page = get(client, WORK_URL)
    assert status == 200 and 'id="ask-panel"' in page and "<script nonce=" in page
