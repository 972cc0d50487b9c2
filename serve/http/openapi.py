"""The OpenAPI 3.1 document of the HTTP API, generated from the operation catalogue.

Nothing here is written by hand per operation: every path, argument schema and query
parameter comes from :class:`serve.http.catalog.Operation`, so the document cannot drift
from what the server validates.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from importlib import metadata
from typing import Any

from legal.outcomes import Outcome
from serve.http.catalog import Operation

API_PREFIX = "/api/v1"
JSON = "application/json"

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["error"],
    "additionalProperties": False,
    "properties": {
        "error": {
            "type": "object",
            "required": ["family", "code", "message"],
            "additionalProperties": False,
            "properties": {
                "family": {"type": "string"},
                "code": {"type": "string"},
                "message": {"type": "string"},
                "subject": {"type": "string"},
            },
        }
    },
}

ANSWER_SCHEMA: dict[str, Any] = {
    "description": "A legal answer with its envelope (artifact identity, provisional flag, timeline semantics) "
                   "and one closed `outcome`; an answer over several publishers lists them in `publishers`. With "
                   "no verified index mounted the outcome is `no_corpus_mounted`, never an empty list.",
    "type": "object",
    "required": ["outcome"],
    "properties": {
        "operation": {"type": "string"},
        "outcome": {"type": "string", "enum": [o.value for o in Outcome]},
        "provisional": {"type": "boolean"},
        "artifact": {"type": "object"},
        "publishers": {"type": "array", "items": {"type": "object"}},
        "reason": {**ERROR_SCHEMA["properties"]["error"],
                   "description": "With outcome `no_corpus_mounted`: why nothing is mounted (as /readyz says)."},
    },
}

READINESS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["ready", "status", "reason", "artifact", "mounted_publishers", "issues"],
    "properties": {
        "ready": {"type": "boolean"},
        "status": {"type": "string", "enum": ["pending", "mounted", "refused"]},
        "reason": {"anyOf": [{"type": "null"}, ERROR_SCHEMA["properties"]["error"]]},
        "artifact": {"anyOf": [{"type": "null"}, {"type": "object"}]},
        "mounted_publishers": {"type": "array", "items": {"type": "string"}},
        "required_publishers": {"type": "array", "items": {"type": "string"}},
        "issues": {"type": "array", "items": {"type": "string"}},
        "worker": {"type": "integer", "minimum": 0,
                   "description": "Which worker process answered (`lex serve --workers N`, N > 1)."},
    },
}

_REFUSALS = {
    "400": "The arguments do not fit the operation's schema.",
    "413": "The request body is larger than 64 KiB.",
    "429": "The client is over its request rate (`rate_limited`); see Retry-After.",
    "503": "The server is saturated (`busy`); see Retry-After.",
    "504": "The request did not complete within its deadline.",
}


def _version() -> str:
    try:
        return metadata.version("lex-evidence")
    except metadata.PackageNotFoundError:
        return "0.0.0"


def _error_response(description: str) -> dict[str, Any]:
    return {"description": description, "content": {JSON: {"schema": {"$ref": "#/components/schemas/Error"}}}}


def _responses(extra: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "200": {"description": "The legal answer, with its closed status.",
                "content": {JSON: {"schema": {"$ref": "#/components/schemas/LegalAnswer"}}}},
    }
    for code, text in {**_REFUSALS, **extra}.items():
        out[code] = _error_response(text)
    return out


def _summary(operation: Operation) -> str:
    first = operation.description.strip().splitlines()[0] if operation.description.strip() else operation.name
    return first[:120]


def _query_parameters(operation: Operation) -> list[dict[str, Any]]:
    required = set(operation.required)
    return [
        {"name": name, "in": "query", "required": name in required, "schema": copy.deepcopy(dict(prop))}
        for name, prop in operation.properties.items()
    ]


def _post(operation: Operation) -> dict[str, Any]:
    return {
        "operationId": operation.name,
        "summary": _summary(operation),
        "description": operation.description,
        "tags": ["legal operations"],
        "requestBody": {"required": True, "content": {JSON: {"schema": {
            "$ref": f"#/components/schemas/{operation.name}_arguments"}}}},
        "responses": _responses({"415": "The body is not application/json."}),
    }


def _get(operation: Operation) -> dict[str, Any]:
    return {
        "operationId": f"{operation.name}_get",
        "summary": _summary(operation),
        "description": f"{operation.description}\n\nThe same operation with its arguments as query parameters.",
        "tags": ["legal operations"],
        "parameters": _query_parameters(operation),
        "responses": _responses({}),
    }


def _operation_paths(catalog: Mapping[str, Operation]) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for operation in catalog.values():
        item: dict[str, Any] = {"post": _post(operation)}
        if operation.query_ok:
            item["get"] = _get(operation)
        paths[f"{API_PREFIX}/{operation.name}"] = item
    return paths


def _service_paths() -> dict[str, Any]:
    text = {"text/plain": {"schema": {"type": "string"}}}
    return {
        "/healthz": {"get": {"operationId": "healthz", "summary": "Liveness: 200 while the process is up.",
                             "tags": ["service"], "responses": {"200": {"description": "ok", "content": text}}}},
        "/readyz": {"get": {
            "operationId": "readyz", "summary": "Readiness: 200 only when a verified artifact set is mounted.",
            "tags": ["service"],
            "responses": {code: {"description": text_, "content": {JSON: {"schema": {
                "$ref": "#/components/schemas/Readiness"}}}}
                for code, text_ in (("200", "ready"), ("503", "not ready, with the typed reason"))}}},
    }


def openapi_document(catalog: Mapping[str, Operation]) -> dict[str, Any]:
    """The OpenAPI 3.1 document for ``catalog``."""
    schemas: dict[str, Any] = {"Error": ERROR_SCHEMA, "LegalAnswer": ANSWER_SCHEMA, "Readiness": READINESS_SCHEMA}
    for operation in catalog.values():
        schemas[f"{operation.name}_arguments"] = operation.closed_schema()
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "lex-evidence",
            "version": _version(),
            "summary": "Point-in-time legal evidence from Legilux and EUR-Lex.",
            "description": "Every answer names the artifact set it was served from and a closed status. "
                           "Refusals share one shape: `{error: {family, code, message, subject?}}`.",
            "license": {"name": "Apache-2.0", "identifier": "Apache-2.0"},
        },
        "paths": {**_operation_paths(catalog), **_service_paths()},
        "components": {"schemas": schemas},
        "tags": [{"name": "legal operations"}, {"name": "service"}],
    }
