"""``lex bench``: group wiring, the assistant hand-off, envelope naming."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner

import cli.bench as bench
from cli.main import cli


def test_bench_is_offered_by_the_lex_command() -> None:
    result = CliRunner().invoke(cli, ["bench", "--help"])
    assert result.exit_code == 0
    assert "retrieval" in result.output and "assistant" in result.output


def test_envelope_path_sits_next_to_the_report() -> None:
    assert bench.envelope_path(Path("docs/retrieval-report.json")) == Path("docs/retrieval-report.dsse.json")
    assert bench.envelope_path(Path("out/report")) == Path("out/report.dsse.json")


def test_assistant_calls_the_assistant_module(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Any, ...]] = []

    def run(cases: Any, index_dir: Any, *, deterministic: bool) -> dict[str, int]:
        calls.append((cases, index_dir, deterministic))
        return {"scored": 2, "passed": 2}

    monkeypatch.setattr(bench, "assistant_module", lambda: SimpleNamespace(run=run))
    result = CliRunner().invoke(bench.group, ["assistant", "--deterministic"])
    assert result.exit_code == 0, result.output
    assert calls == [(None, None, True)]


def test_assistant_failures_exit_non_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench, "assistant_module",
                        lambda: SimpleNamespace(run=lambda *a, **k: {"scored": 3, "passed": 2}))
    assert CliRunner().invoke(bench.group, ["assistant"]).exit_code == 1


def test_assistant_without_the_module_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench, "assistant_module", lambda: None)
    result = CliRunner().invoke(bench.group, ["assistant"])
    assert result.exit_code != 0
    assert "not available" in result.output
