"""The replay publisher's endpoints: SPARQL protocol, filestore, Cellar negotiation, control."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from legal.errors import ConfigError
from legal.ids import Publisher
from publishers.protocol import HELD_ELSEWHERE_MEDIA_TYPE
from publishers.replay import Faults, ReplayPublisher, load_source
from publishers.replay.app import build_zip
from publishers.replay.records import clone
from tests.publishers.conftest import Harness

ASK = "SELECT ?c WHERE { ?c a <http://data.legilux.public.lu/resource/ontology/jolux#Consolidation> } ORDER BY ?c LIMIT 3"


def test_sparql_get_and_post(lu_small: Harness) -> None:
    with httpx.Client(base_url=lu_small.base_url) as c:
        got = c.get("/sparqlendpoint", params={"query": ASK})
        posted = c.post("/sparqlendpoint", data={"query": ASK}, headers={"Accept": "application/sparql-results+json"})
        raw = c.post("/sparqlendpoint", content=ASK, headers={"Content-Type": "application/sparql-query"})
    assert got.status_code == posted.status_code == raw.status_code == 200
    assert got.headers["content-type"].startswith("application/sparql-results+json")
    doc = got.json()
    assert doc["head"]["vars"] == ["c"] and len(doc["results"]["bindings"]) == 3
    assert doc == posted.json() == raw.json()
    assert doc["results"]["bindings"][0]["c"]["type"] == "uri"


def test_bad_query_is_400(lu_small: Harness) -> None:
    with httpx.Client(base_url=lu_small.base_url) as c:
        assert c.get("/sparqlendpoint", params={"query": "SELEKT nothing"}).status_code == 400
        assert c.get("/sparqlendpoint").status_code == 400
        assert c.get("/webapi/rdf/sparql", params={"query": ASK}).status_code == 404  # no EU corpus here


def test_filestore_bodies_etag_and_digest(lu_small: Harness) -> None:
    path, served = next((p, f) for p, f in lu_small.replay._built.projected["lu-legilux"].files.items()
                        if f.file == "fr.xml" and lu_small.replay._readers[Publisher.LEGILUX](f.sha256))
    with httpx.Client(base_url=lu_small.base_url) as c:
        r = c.get("/" + path)
        assert r.status_code == 200 and r.headers["repr-digest"].startswith("sha-256=:")
        import hashlib

        assert hashlib.sha256(r.content).hexdigest() == served.sha256
        again = c.get("/" + path, headers={"If-None-Match": r.headers["etag"]})
        assert again.status_code == 304 and again.content == b""
        assert c.get("/filestore/eli/nothing.xml").status_code == 404


def test_held_elsewhere_document(lu_small: Harness) -> None:
    read = lu_small.replay._readers[Publisher.LEGILUX]
    path, served = next((p, f) for p, f in lu_small.replay._built.projected["lu-legilux"].files.items()
                        if read(f.sha256) is None)
    with httpx.Client(base_url=lu_small.base_url) as c:
        r = c.get("/" + path)
    assert r.headers["content-type"].startswith(HELD_ELSEWHERE_MEDIA_TYPE)
    assert r.json() == {"held_elsewhere": [{"file": served.file, "sha256": served.sha256, "size": served.size}]}


def test_cellar_content_negotiation(eu_small: Harness) -> None:
    with httpx.Client(base_url=eu_small.base_url) as c:
        xhtml = c.get("/resource/celex/02016R0679-20160504",
                      headers={"Accept": "application/xhtml+xml, text/html", "Accept-Language": "eng"})
        assert xhtml.status_code == 303 and xhtml.headers["location"].startswith("/resource/cellar/sha256-")
        body = c.get(xhtml.headers["location"])
        assert body.status_code == 200 and body.headers["content-type"].startswith("text/html")
        fmx = c.get("/resource/celex/02016R0679-20160504",
                    headers={"Accept": "application/zip;mtype=fmx4", "Accept-Language": "fra"})
        assert fmx.status_code == 303 and fmx.headers["location"].endswith("/zip")
        archive = c.get(fmx.headers["location"])
        assert archive.headers["content-type"] == "application/zip"
        original = c.get("/resource/celex/32016R0679", headers={"Accept": "application/zip;mtype=fmx4",
                                                                "Accept-Language": "eng"})
        assert original.status_code == 406  # no Formex for the original act
        assert c.get("/resource/celex/32016R0679", headers={"Accept": "text/html"}).status_code == 406
        assert c.get("/resource/celex/39999R9999", headers={"Accept-Language": "en"}).status_code == 404


def test_control_endpoint(lu_small: Harness) -> None:
    with httpx.Client(base_url=lu_small.base_url) as c:
        assert c.post("/_replay/faults", json={"rate_limit": 1, "retry_after": 9}).json()["rate_limit"] == 1
        limited = c.get("/sparqlendpoint", params={"query": ASK})
        assert limited.status_code == 429 and limited.headers["retry-after"] == "9"
        assert c.get("/sparqlendpoint", params={"query": ASK}).status_code == 200
        assert c.post("/_replay/faults", json={"no_such_switch": 1}).status_code == 400
        assert c.get("/_replay/stats").json()["fault_rate_limit"] == 1
        assert c.post("/_replay/reset").json() == Faults().to_dict()


def test_malformed_sparql_fault(lu_small: Harness) -> None:
    lu_small.replay.set_faults(malformed_sparql=1)
    with httpx.Client(base_url=lu_small.base_url) as c:
        with pytest.raises(json.JSONDecodeError):
            c.get("/sparqlendpoint", params={"query": ASK}).json()
        assert c.get("/sparqlendpoint", params={"query": ASK}).json()["results"]


def test_shuffle_only_reorders_rows(lu_small: Harness) -> None:
    with httpx.Client(base_url=lu_small.base_url) as c:
        plain = c.get("/sparqlendpoint", params={"query": ASK.replace("LIMIT 3", "")}).json()
        lu_small.replay.set_faults(shuffle_seed=3)
        mixed = c.get("/sparqlendpoint", params={"query": ASK.replace("LIMIT 3", "")}).json()
    key = lambda b: b["c"]["value"]  # noqa: E731
    assert sorted(plain["results"]["bindings"], key=key) == sorted(mixed["results"]["bindings"], key=key)
    assert plain["results"]["bindings"] != mixed["results"]["bindings"]


def test_one_source_per_publisher(lu_tree: Path) -> None:
    source = load_source(lu_tree, works=("rgd-2001-10-18-n3",))
    with pytest.raises(ConfigError) as err:
        ReplayPublisher([source, source])
    assert (err.value.code, err.value.subject) == ("duplicate_replay_source", "lu-legilux")


def test_clone_follows_the_identifier() -> None:
    record = {"publisher_version_identifier": "http://publications.europa.eu/resource/celex/02016R0679-20160504",
              "raw": {"celex": "02016R0679-20160504"}, "lex_id": "x", "record_sha256": "y",
              "expressions": [{"language": "en", "source_uri":
                               "https://eur-lex.europa.eu/legal-content/EN/TXT/?uri=CELEX:02016R0679-20160504",
                               "text": {"available": True}, "observations": []}]}
    twin = clone(record, "http://publications.europa.eu/resource/celex/02016R0679-20160504R(01)", Publisher.EURLEX)
    assert twin["raw"]["celex"] == "02016R0679-20160504R(01)" and "lex_id" not in twin
    assert twin["expressions"][0]["source_uri"].endswith("CELEX:02016R0679-20160504R%2801%29")


def test_zip_is_deterministic() -> None:
    members = [("b.xml", b"2"), ("a.xml", b"1")]
    assert build_zip(members) == build_zip(reversed(members))


def test_unusable_faults_change_nothing(lu_small: Harness) -> None:
    with httpx.Client(base_url=lu_small.base_url) as c:
        bad = c.post("/_replay/faults", json={"patch_add": ["this is not N-Triples"], "burst": 3})
        assert bad.status_code == 400
        assert c.get("/_replay/faults").json() == Faults().to_dict()
        assert c.get("/sparqlendpoint", params={"query": ASK}).status_code == 200


def test_a_request_held_across_a_reset_never_consumes_the_next_tests_fault(lu_small: Harness) -> None:
    """A straggler held by a ``slow`` fault (its client long gone) is answered under the faults it
    arrived with: a truncation set after it arrived is left for the requests that follow."""
    import hashlib
    import threading

    path, served = next((p, f) for p, f in lu_small.replay._built.projected["lu-legilux"].files.items()
                        if f.file == "fr.xml" and lu_small.replay._readers[Publisher.LEGILUX](f.sha256))
    lu_small.replay.set_faults(slow=1, slow_seconds=1.0, target="files")
    answers: list[httpx.Response] = []
    straggler = threading.Thread(target=lambda: answers.append(httpx.get(lu_small.base_url + "/" + path, timeout=10)))
    straggler.start()
    while lu_small.replay.stats["fault_slow"] == 0:
        threading.Event().wait(0.01)
    lu_small.replay.reset()
    lu_small.replay.set_faults(truncate=1, truncate_mode="digest", target="files")
    straggler.join()
    assert hashlib.sha256(answers[0].content).hexdigest() == served.sha256  # whole: not the later fault
    with httpx.Client(base_url=lu_small.base_url) as c:
        truncated = c.get("/" + path)
    assert len(truncated.content) == served.size // 2 and lu_small.replay.stats["fault_truncate"] == 1
