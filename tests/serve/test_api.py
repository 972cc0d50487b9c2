"""The HTTP JSON API: honest answers, one error shape, limits, OpenAPI from the same schemas."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from serve.app import AppSettings, create_app
from serve.core import OPERATIONS
from serve.http.catalog import catalog, edge_property
from serve.http.openapi import openapi_document
from serve.mount import MountConfig, ServeState
from tests.index.handmade import build_handmade
from tests.serve.conftest import NO_RATE
from tests.serve.corpus import WORK

ERROR_KEYS = {"family", "code", "message", "subject"}


def minimal_arguments(operation: Any) -> dict[str, Any]:
    """The smallest valid arguments of an operation, from its own schema."""
    samples = {"work": "eu-eurlex:32099r0001", "date": "2022-06-01", "from_date": "2020-01-01",
               "to_date": "2022-06-01", "query": "thing", "anchor": "art_1", "lex_id": "eu-eurlex:32099r0001"}
    return {name: samples[name] for name in operation.required}


def assert_error_shape(body: Any, family: str, code: str) -> None:
    assert set(body) == {"error"}
    assert set(body["error"]) <= ERROR_KEYS
    assert (body["error"]["family"], body["error"]["code"]) == (family, code)
    assert "Traceback" not in json.dumps(body)


def test_with_nothing_mounted_every_operation_answers_no_corpus_mounted(tmp_path: Path) -> None:
    """The real core, nothing mounted: every operation, POST and GET, answers 200 no_corpus_mounted."""
    from serve.app import new_state

    state = new_state(MountConfig(index_dir=tmp_path / "nothing", trust_roots=()), NO_RATE)
    with TestClient(create_app(state, AppSettings(limits=NO_RATE, mount_on_startup=False))) as client:
        ops = catalog(OPERATIONS)
        assert list(ops) == list(OPERATIONS)
        for operation in ops.values():
            args = minimal_arguments(operation)
            for response in (client.post(f"/api/v1/{operation.name}", json=args),
                             client.get(f"/api/v1/{operation.name}", params=args)):
                assert response.status_code == 200, (operation.name, response.text)
                body = response.json()
                assert isinstance(body, dict), "never an empty list"
                assert body["outcome"] == "no_corpus_mounted", operation.name
                assert body["detail"]
        assert client.get("/readyz").status_code == 503


def test_get_and_post_give_the_same_answer(dev_client: TestClient) -> None:
    args = {"work": WORK, "date": "2021-06-01"}
    posted = dev_client.post("/api/v1/as_of", json=args).json()
    got = dev_client.get("/api/v1/as_of", params=args).json()
    assert posted == got and posted["outcome"] == "succeeded"


def test_integers_in_a_query_are_typed_by_the_schema(dev_client: TestClient) -> None:
    assert dev_client.get("/api/v1/timeline", params={"work": WORK, "limit": "5"}).status_code == 200
    body = dev_client.get("/api/v1/timeline", params={"work": WORK, "limit": "five"}).json()
    assert_error_shape(body, "request", "invalid_argument")
    assert body["error"]["subject"] == "limit"


def test_in_json_a_string_is_not_an_integer(dev_client: TestClient) -> None:
    response = dev_client.post("/api/v1/timeline", json={"work": WORK, "limit": "5"})
    assert response.status_code == 400
    assert_error_shape(response.json(), "request", "invalid_argument")


@pytest.mark.parametrize(("args", "code", "subject"), [
    ({"work": WORK, "date": "2021-06-01", "colour": "red"}, "unknown_argument", "colour"),
    ({"work": WORK}, "missing_argument", "date"),
    ({"work": WORK, "date": "2021-02-30"}, "invalid_date", "date"),
    ({"work": WORK, "date": "21-06-01"}, "invalid_date", "date"),
    ({"work": "", "date": "2021-06-01"}, "invalid_argument", "work"),
    ({"work": "x" * 1001, "date": "2021-06-01"}, "invalid_argument", "work"),
    ({"work": WORK, "date": "2021-06-01", "mode": "everything"}, "invalid_argument", "mode"),
])
def test_invalid_arguments_are_refused_in_one_shape(dev_client: TestClient, args: dict[str, Any], code: str,
                                                    subject: str) -> None:
    response = dev_client.post("/api/v1/as_of", json=args)
    assert response.status_code == 400
    body = response.json()
    assert_error_shape(body, "request", code)
    assert body["error"]["subject"] == subject


def test_refusals_do_not_echo_the_offending_value(dev_client: TestClient) -> None:
    marker = "<script>alert(1)</script>"
    body = dev_client.post("/api/v1/as_of", json={"work": WORK, "date": marker}).text
    assert marker not in body


@pytest.mark.parametrize(("body", "headers", "status", "code"), [
    (b"{not json", {"content-type": "application/json"}, 400, "invalid_json"),
    (b"[1, 2]", {"content-type": "application/json"}, 400, "invalid_arguments"),
    (b"work=x", {"content-type": "application/x-www-form-urlencoded"}, 415, "unsupported_media_type"),
])
def test_bodies_that_are_not_a_json_object(dev_client: TestClient, body: bytes, headers: dict[str, str], status: int,
                                           code: str) -> None:
    response = dev_client.post("/api/v1/coverage", content=body, headers=headers)
    assert response.status_code == status
    assert_error_shape(response.json(), "request", code)


def test_unknown_operations_and_paths(dev_client: TestClient) -> None:
    response = dev_client.post("/api/v1/make_law", json={})
    assert response.status_code == 404
    assert_error_shape(response.json(), "request", "unknown_operation")
    response = dev_client.get("/api/v2/anything")
    assert response.status_code == 404
    assert_error_shape(response.json(), "request", "not_found")
    response = dev_client.delete("/api/v1/as_of")
    assert response.status_code == 405
    assert_error_shape(response.json(), "request", "method_not_allowed")


def test_a_body_over_64_kib_is_refused_with_413(dev_client: TestClient) -> None:
    big = json.dumps({"query": "x" * (64 * 1024)}).encode()
    response = dev_client.post("/api/v1/search", content=big, headers={"content-type": "application/json"})
    assert response.status_code == 413
    assert_error_shape(response.json(), "request", "request_too_large")


def test_a_chunked_body_over_64_kib_is_refused_with_413(dev_client: TestClient) -> None:
    def chunks() -> Any:
        for _ in range(80):
            yield b" " * 1024

    response = dev_client.post("/api/v1/coverage", content=chunks(), headers={"content-type": "application/json"})
    assert response.status_code == 413
    assert_error_shape(response.json(), "request", "request_too_large")


class ExplodingCore:
    publishers = ("lu-legilux",)

    def call(self, operation: str, arguments: Any) -> Any:
        raise RuntimeError("secret detail /srv/lex/index.sqlite line 42")


def test_an_unexpected_failure_leaks_no_detail(make_state: Callable[..., ServeState], dev_index: Path,
                                               make_client: Callable[..., TestClient]) -> None:
    state = make_state(MountConfig(index_dir=dev_index, unsigned_dev=True), mount=True)
    state.adopt(type(state.mounted)(ExplodingCore(), "mounted", state.mounted.artifact, None, ("lu-legilux",)))
    client = make_client(state)
    response = client.post("/api/v1/coverage", json={})
    assert response.status_code == 500
    assert_error_shape(response.json(), "internal", "internal_error")
    assert "secret" not in response.text and "Traceback" not in response.text
    page = client.get("/", headers={"accept": "text/html"})
    assert page.status_code == 500 and "secret" not in page.text


def test_every_response_carries_the_security_headers(dev_client: TestClient) -> None:
    for path in ("/healthz", "/api/v1", "/", "/api/v1/nothing"):
        headers = dev_client.get(path).headers
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["x-frame-options"] == "DENY"
        assert "default-src 'none'" in headers["content-security-policy"]


def test_the_catalogue_lists_each_operation_with_its_schema(dev_client: TestClient) -> None:
    listed = dev_client.get("/api/v1").json()["operations"]
    assert [op["name"] for op in listed] == list(OPERATIONS)
    assert all(op["input_schema"]["additionalProperties"] is False for op in listed)


def _openapi_validator() -> Any:
    from schemathesis.specs.openapi.definitions import OPENAPI_31_VALIDATOR

    return OPENAPI_31_VALIDATOR


def test_the_openapi_document_validates_against_the_openapi_3_1_schema(dev_client: TestClient) -> None:
    document = dev_client.get("/openapi.json").json()
    assert document["openapi"] == "3.1.0"
    _openapi_validator().validate(document)
    for name, spec in OPERATIONS.items():
        path = document["paths"][f"/api/v1/{name}"]
        published = document["components"]["schemas"][f"{name}_arguments"]["properties"]
        assert published == {k: edge_property(v) for k, v in spec.input_schema["properties"].items()}
        assert set(path) <= {"get", "post"}


def test_the_openapi_document_of_the_real_catalogue_validates() -> None:
    from jsonschema import Draft202012Validator

    document = openapi_document(catalog(OPERATIONS))
    _openapi_validator().validate(document)
    for schema in document["components"]["schemas"].values():
        Draft202012Validator.check_schema(schema)
    assert len([p for p in document["paths"] if p.startswith("/api/v1/")]) == len(OPERATIONS)


def test_the_real_core_answers_over_http(tmp_path: Path) -> None:
    from serve.app import new_state

    build_handmade(tmp_path / "indexes")
    state = new_state(MountConfig(index_dir=tmp_path, unsigned_dev=True), NO_RATE)
    state.mount()
    with TestClient(create_app(state, AppSettings(limits=NO_RATE, mount_on_startup=False))) as client:
        body = client.get("/api/v1/as_of", params=[("work", "lu-legilux:loi-2099-01-01-n1"), ("date", "2024-06-01"),
                                                   ("anchors", "art_1er"), ("anchors", "art_42ter")]).json()
        assert body["outcome"] == "succeeded"
        assert [p["anchor"] for p in body["provisions"]] == ["art_1er", "art_42ter"]
        ambiguous = client.post("/api/v1/as_of", json={"work": "lu-legilux:loi-2099-01-01-n1",
                                                        "date": "2025-08-01"}).json()
        assert ambiguous["outcome"] == "ambiguous_version" and len(ambiguous["version_choices"]) == 2
        refused = client.post("/api/v1/diff", json={"work": "eu-eurlex:32099r0001", "from_date": "2022-06-01",
                                                    "to_date": "2020-01-01"})
        assert refused.status_code == 400
        assert_error_shape(refused.json(), "request", "dates_out_of_order")
