"""The ingest's map of the bodies it staged: sha256 → the staged file's path, holding the sha256s only."""

from __future__ import annotations

from pathlib import Path

import pytest

from publishers.ingest import _StagedBodies

SHA = "a" * 64


def test_a_staged_body_is_read_at_its_path_and_only_its_sha256_is_held(tmp_path: Path) -> None:
    bodies = _StagedBodies(tmp_path)
    assert SHA not in bodies and len(bodies) == 0 and bodies.get(SHA) is None
    bodies.put(SHA, b"<akn/>")
    bodies.put("b" * 64, b"%PDF-1.7")
    assert bodies[SHA] == str(tmp_path / SHA)  # what the writer opens
    assert Path(bodies[SHA]).read_bytes() == b"<akn/>"
    assert list(bodies) == [SHA, "b" * 64] and len(bodies) == 2  # in sha256 order
    # the staging directory is the set: nothing held per body, not even its sha256 (ADR 0112)
    assert bodies.__slots__ == ("_count", "_dir") and bodies._count == 2
    assert "../x" not in bodies and "A" * 64 not in bodies and 1 not in bodies
    with pytest.raises(KeyError):
        bodies["c" * 64]


def test_a_body_that_cannot_be_staged_is_not_listed(tmp_path: Path) -> None:
    bodies = _StagedBodies(tmp_path / "gone")
    with pytest.raises(FileNotFoundError):
        bodies.put(SHA, b"x")
    assert SHA not in bodies and len(bodies) == 0 and list(bodies) == []


def test_a_body_half_written_is_removed_and_not_listed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno
    import io

    class Full(io.FileIO):
        def write(self, data: object) -> int:
            raise OSError(errno.ENOSPC, "No space left on device")

    bodies = _StagedBodies(tmp_path)
    monkeypatch.setattr("builtins.open", lambda path, mode: Full(path, mode))
    with pytest.raises(OSError):
        bodies.put(SHA, b"x")
    monkeypatch.undo()
    assert SHA not in bodies and len(bodies) == 0 and list(tmp_path.iterdir()) == []
