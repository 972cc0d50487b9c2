"""Property-based fuzzing of the HTTP API from its own OpenAPI document (schemathesis).

Every operation, GET and POST, with generated (valid and invalid) arguments: no response is
a server error, every response has a documented status, content type and body shape. The
number of examples is bounded so the whole run stays well under a minute.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from serve.app import AppSettings, create_app, new_state
from serve.core import OPERATIONS
from serve.mount import MountConfig
from tests.index.handmade import build_handmade
from tests.serve.conftest import NO_RATE

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
MAX_EXAMPLES = 300


def _app(index_dir: Path) -> Any:
    """The real core over the hand-made indexes (both publishers)."""
    build_handmade(index_dir)
    state = new_state(MountConfig(index_dir=index_dir, unsigned_dev=True), NO_RATE)
    state.mount()
    return create_app(state, AppSettings(limits=NO_RATE, mount_on_startup=False))


@pytest.fixture(scope="module")
def api_schema(tmp_path_factory: pytest.TempPathFactory) -> Any:
    app = _app(tmp_path_factory.mktemp("fuzz") / "index")
    return schemathesis.openapi.from_asgi("/openapi.json", app)


def test_the_openapi_document_covers_every_operation(api_schema: Any) -> None:
    operations = [result.ok() for result in api_schema.get_all_operations()]
    labels = {op.label for op in operations}
    assert len([label for label in labels if label.startswith("POST /api/v1/")]) == len(OPERATIONS)
    assert "GET /readyz" in labels


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_the_api_never_answers_a_server_error(api_schema: Any, mode: GenerationMode) -> None:
    """Generated requests (schema-conforming, then schema-violating) over every operation."""

    @given(case=api_schema.as_strategy(mode))
    @settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    def run(case: Any) -> None:
        case.call_and_validate(checks=CHECKS)

    run()
