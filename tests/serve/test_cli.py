"""``lex serve`` and ``lex mcp``: help with examples, typed configuration errors, a real start."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from cli.main import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("command", ["serve", "mcp"])
def test_help_has_an_example(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert "Example" in out and f"lex {command}" in out and "--trust-root" in out


@pytest.mark.parametrize(("argv", "code"), [
    (["serve"], "no_artifact_source"),
    (["serve", "--index-dir", "a", "--release-root", "b"], "no_artifact_source"),
    (["serve", "--release-root", "b", "--unsigned-dev"], "unsigned_release_root"),
    (["mcp"], "no_artifact_source"),
])
def test_inconsistent_configuration_is_a_typed_error(argv: list[str], code: str,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert f"config/{code}" in capsys.readouterr().err


def test_lex_serve_starts_prints_its_url_and_answers(tmp_path: Path) -> None:
    from tests.index.handmade import build_handmade

    build_handmade(tmp_path / "indexes")
    process = subprocess.Popen(
        [sys.executable, "-m", "cli", "serve", "--index-dir", str(tmp_path), "--unsigned-dev", "--port", "0"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
        assert match, line
        url = match.group(1)
        assert httpx.get(f"{url}healthz", timeout=10).text == "ok"
        deadline = time.monotonic() + 20
        while (ready := httpx.get(f"{url}readyz", timeout=10)).status_code != 200 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert ready.json()["artifact"]["signed"] is False
        answer = httpx.post(f"{url}api/v1/coverage", json={}, timeout=10).json()
        assert answer["outcome"] == "succeeded"
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
