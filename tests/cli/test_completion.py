"""Shell completion (documented in docs/cli.md): ``_LEX_COMPLETE=bash_source lex`` prints a
completion script, and completing ``lex re`` offers the groups."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _lex(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli"], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          check=False, env={**os.environ, "PYTHONPATH": str(ROOT), **env})


def test_bash_completion_script_is_produced() -> None:
    done = _lex({"_LEX_COMPLETE": "bash_source"})
    assert done.returncode == 0
    assert "_lex_completion" in done.stdout and "complete " in done.stdout


def test_completion_offers_the_groups() -> None:
    done = _lex({"_LEX_COMPLETE": "bash_complete", "COMP_WORDS": "lex re", "COMP_CWORD": "1"})
    assert done.returncode == 0
    assert "replay" in done.stdout and "release" in done.stdout
