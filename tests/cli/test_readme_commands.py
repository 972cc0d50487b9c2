"""The README's commands, run verbatim (after ``make demo``) in a copy of the demo's outputs.

The directory a reader is in is a temporary one holding ``.venv`` (a link to this checkout's
virtual environment, with ``PYTHONPATH`` pointing at this checkout) and ``var/demo`` (a copy of
:func:`demo_workdir`). ``lex serve``/``lex mcp`` and ``dagster dev`` are long-running: the
first two are covered by the help-example test; for Dagster the environment of the command is
checked (``DAGSTER_HOME`` absolute, ``pipelines.definitions`` loads) without starting the UI.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def readme_line(prefix: str) -> str:
    """The README's code line starting with ``prefix`` (verbatim, comments stripped)."""
    for line in README.splitlines():
        if line.startswith(prefix):
            return line.split("  #", 1)[0].strip()
    raise AssertionError(f"README has no line starting with {prefix!r}")


@pytest.fixture()
def reader_dir(tmp_path: Path, demo_workdir: Path) -> tuple[Path, dict[str, str]]:
    (tmp_path / ".venv").symlink_to(Path(sys.executable).parents[1], target_is_directory=True)
    shutil.copytree(demo_workdir, tmp_path / "var" / "demo", symlinks=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DAGSTER_DISABLE_TELEMETRY": "1"}
    return tmp_path, env


def run(line: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", line], cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
                          check=False)


def test_release_verify_as_the_demo_prints_it(reader_dir: tuple[Path, dict[str, str]]) -> None:
    cwd, env = reader_dir
    pointers = (cwd / "var/demo/release/pointers.json").read_text()
    set_id = re.search(r'"current":\s*"([0-9a-f]{64})"', pointers)
    assert set_id
    line = (f".venv/bin/lex release verify var/demo/release/sets/{set_id.group(1)} "
            "--trust-root var/demo/keys/release-signing.pub.pem")
    done = run(line, cwd, env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("OK set ")


def test_ask(reader_dir: tuple[Path, dict[str, str]]) -> None:
    cwd, env = reader_dir
    done = run(readme_line(".venv/bin/lex ask "), cwd, env)
    assert done.returncode == 0, done.stderr + done.stdout
    assert done.stdout.strip()


def test_dagster_command_environment(reader_dir: tuple[Path, dict[str, str]]) -> None:
    cwd, env = reader_dir
    line = readme_line('DAGSTER_HOME="$PWD/var/dagster_home"')
    assignment, command = line.split(" ", 1)
    assert command == ".venv/bin/dagster dev -m pipelines.definitions"
    (cwd / "var" / "dagster_home").mkdir()
    check = (f'{assignment} bash -c \'case "$DAGSTER_HOME" in /*) ;; *) exit 9;; esac; '
             '.venv/bin/python -c "import pipelines.definitions as d; print(type(d.defs).__name__)"\'')
    done = run(check, cwd, env)
    assert done.returncode == 0, done.stderr
    assert "Definitions" in done.stdout
