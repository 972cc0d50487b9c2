"""The release stage's own costs: an unchanged release re-verifies its set from the stage state's
record of the files the release root verified (no byte read again), and the bundled EUR-Lex scope
is read without importing the EUR-Lex adapter."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipelines import release_stage
from tests.pipelines.conftest import ROOT, Baseline, copy_workdir, settings


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every file hashed from now on, by the release root's verifier or by the stage state."""
    import pipelines.state as state_module
    import release.files as files_module

    read: list[Path] = []
    real_release, real_state = files_module.hash_file, state_module.file_sha256

    def release_counting(path: Path) -> tuple[int, str]:
        read.append(Path(path))
        return real_release(path)

    def state_counting(path: Path) -> str:
        read.append(Path(path))
        return real_state(path)

    monkeypatch.setattr(files_module, "hash_file", release_counting)
    monkeypatch.setattr(state_module, "file_sha256", state_counting)
    return read


def test_an_unchanged_release_reads_no_file_of_its_set(baseline: Baseline, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    lex = settings(copy_workdir(baseline.workdir, tmp_path / "work"))
    first = release_stage.run(lex)  # a copied work directory: every file is read once, then recorded
    set_id = baseline.first.release.meta("artifact_set")["set_id"]
    assert first.skipped and first.verified and first.set_id == set_id
    read = _reads(monkeypatch)
    again = release_stage.run(lex)
    assert again.skipped and again.verified and again.set_id == set_id
    sets = lex.release_dir() / "sets"
    assert [p for p in read if sets in p.parents] == []  # before: every file of the set, each run
    # a file whose modification time moved is read again (the quick check), and still verifies
    statement = sets / set_id / "statement.dsse.json"
    touched = next(p for p in (sets / set_id).rglob("*.sqlite"))
    stat = touched.stat()
    os.utime(touched, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))
    read.clear()
    third = release_stage.run(lex)
    assert third.skipped and third.verified and touched in read and statement not in read


def test_the_bundled_scope_is_read_without_importing_the_eurlex_adapter(tmp_path: Path) -> None:
    code = ("import sys\n"
            "from pipelines.release_stage import _scope_bytes\n"
            "from pipelines.settings import LexSettings\n"
            f"data = _scope_bytes(LexSettings(workdir={str(tmp_path)!r}, source='published'))\n"
            "sys.stdout.buffer.write(data)\n"
            "assert 'publishers.eurlex' not in sys.modules, 'the adapter was imported'\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert done.stdout == (ROOT / "publishers" / "eurlex" / "scope.json").read_bytes()
