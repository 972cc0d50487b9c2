"""``lex ask`` over a local index directory (empty here: every answer is a typed gap)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.main import cli


@pytest.fixture(autouse=True)
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LEX_MODEL_NAME", "LEX_MODEL_BASE_URL", "LEX_MODEL_AZURE_ENDPOINT", "AZURE_OPENAI_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)


def test_lex_ask_prints_the_typed_reply(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["ask", "Show coverage.", "--index-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "deterministic rule planner" in result.output
    assert "[coverage] not_available / completed effects=gap" in result.output


def test_lex_ask_json(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["ask", "Should I comply with the GDPR?", "--index-dir", str(tmp_path), "--json"])
    body = json.loads(result.output)
    assert body["status"] == 200 and body["operations"][0]["legal_outcome"] == "legal_boundary"


def test_lex_ask_refuses_a_missing_directory(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["ask", "Show coverage.", "--index-dir", str(tmp_path / "absent")])
    assert result.exit_code != 0
