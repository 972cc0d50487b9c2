"""The generator is deterministic and the committed corpus is exactly what it writes."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from publishers.sample import CORPUS_DIR, sample_corpus_roots
from publishers.sample.generate import compare, corpus_files, main, write

SIZE_BUDGET = 300 * 1024


def _digest(files: list[tuple[str, bytes]]) -> str:
    h = hashlib.sha256()
    for rel, data in files:
        h.update(rel.encode() + b"\0" + hashlib.sha256(data).digest())
    return h.hexdigest()


def test_committed_corpus_matches_the_generator() -> None:
    assert compare(CORPUS_DIR) == []


def test_check_mode_exits_zero_on_the_committed_copy(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--check"]) == 0
    assert "matches the generator" in capsys.readouterr().out


def test_two_generations_are_byte_identical() -> None:
    assert _digest(list(corpus_files())) == _digest(list(corpus_files()))


def test_write_then_check_roundtrips_and_replaces_stale_files(tmp_path: Path) -> None:
    write(tmp_path)
    stale = tmp_path / "lu-legilux" / "works" / "stale.txt"
    stale.write_text("left over")
    assert compare(tmp_path) == ["unexpected: lu-legilux/works/stale.txt"]
    write(tmp_path)
    assert not stale.exists()
    assert compare(tmp_path) == []


def test_check_mode_reports_a_changed_byte(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path)
    manifest = tmp_path / "eu-eurlex" / "manifest.json"
    manifest.write_bytes(manifest.read_bytes().replace(b'"tier": "A"', b'"tier": "B"'))
    assert main(["--check", "--out", str(tmp_path)]) == 1
    assert "differs: eu-eurlex/manifest.json" in capsys.readouterr().err


def test_output_is_sorted_and_uses_posix_paths() -> None:
    paths = [rel for rel, _ in corpus_files()]
    assert paths == sorted(paths)
    assert all("\\" not in p and not p.startswith("/") for p in paths)


def test_corpus_stays_small() -> None:
    total = sum(len(data) for _, data in corpus_files())
    assert total < SIZE_BUDGET, f"sample corpus is {total} bytes"


def test_roots_are_the_two_published_trees() -> None:
    roots = sample_corpus_roots()
    assert sorted(roots) == ["eu-eurlex", "lu-legilux"]
    for root in roots.values():
        assert (root / "manifest.json").is_file()
        assert (root / "NOTICE").is_file()
        assert (root / "works").is_dir()
