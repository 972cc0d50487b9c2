"""The stage state's quick check: a file whose size, modification time and inode are those
recorded is not read again; any difference, or ``rehash``, reads it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import pipelines.state as state_module
from pipelines.state import SHARED, StageState, file_sha256


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    seen: list[Path] = []
    real = state_module.file_sha256

    def counting(path: Path) -> str:
        seen.append(path)
        return real(path)

    monkeypatch.setattr(state_module, "file_sha256", counting)
    return seen


def _outputs(tmp_path: Path) -> dict[str, Path]:
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    (out / "a.bin").write_bytes(b"alpha" * 1000)
    (out / "b.bin").write_bytes(b"beta" * 1000)
    return {"a": out / "a.bin", "b": out / "b.bin"}


def test_unchanged_files_are_not_read_again(tmp_path: Path, reads: list[Path]) -> None:
    outputs = _outputs(tmp_path)
    StageState(tmp_path, "s").record({"x": 1}, outputs)
    reads.clear()
    state = StageState(tmp_path, "s")
    assert state.unchanged({"x": 1}, outputs)
    assert reads == []
    assert state.output_digests(outputs) == {k: file_sha256(p) for k, p in outputs.items()}
    assert not StageState(tmp_path, "s").unchanged({"x": 2}, outputs)


def test_a_rewrite_keeping_the_size_is_read_and_refused(tmp_path: Path, reads: list[Path]) -> None:
    outputs = _outputs(tmp_path)
    StageState(tmp_path, "s").record({"x": 1}, outputs)
    before = outputs["a"].stat()
    tmp = outputs["a"].with_suffix(".tmp")
    tmp.write_bytes(b"ALPHA" * 1000)  # same size, a new file renamed over it (a new inode)
    os.replace(tmp, outputs["a"])
    os.utime(outputs["a"], ns=(before.st_atime_ns, before.st_mtime_ns))  # even with the old time
    reads.clear()
    assert not StageState(tmp_path, "s").unchanged({"x": 1}, outputs)
    assert outputs["a"] in reads


def test_an_in_place_rewrite_changes_the_time(tmp_path: Path, reads: list[Path]) -> None:
    outputs = _outputs(tmp_path)
    StageState(tmp_path, "s").record({"x": 1}, outputs)
    stat = outputs["b"].stat()
    os.utime(outputs["b"], ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    reads.clear()
    assert StageState(tmp_path, "s").unchanged({"x": 1}, outputs)  # same bytes: current
    assert reads == [outputs["b"]]
    reads.clear()  # … and the new time was remembered: the next check reads nothing
    assert StageState(tmp_path, "s").unchanged({"x": 1}, outputs)
    assert reads == []


def test_rehash_reads_every_file(tmp_path: Path, reads: list[Path]) -> None:
    outputs = _outputs(tmp_path)
    StageState(tmp_path, "s").record({"x": 1}, outputs)
    reads.clear()
    assert StageState(tmp_path, "s", rehash=True).unchanged({"x": 1}, outputs)
    assert sorted(reads) == sorted(outputs.values())


def test_a_state_without_stats_is_read_once(tmp_path: Path, reads: list[Path]) -> None:
    outputs = _outputs(tmp_path)
    StageState(tmp_path, "s").record({"x": 1}, outputs)
    path = tmp_path / "state" / "s.json"
    recorded = json.loads(path.read_bytes())
    path.write_text(json.dumps({"inputs": recorded["inputs"], "outputs": recorded["outputs"]}))
    (tmp_path / "state" / SHARED).unlink()
    reads.clear()
    assert StageState(tmp_path, "s").unchanged({"x": 1}, outputs)
    assert len(reads) == 2
    reads.clear()
    assert StageState(tmp_path, "s").unchanged({"x": 1}, outputs)
    assert reads == []


def test_inputs_hashed_through_the_state_are_remembered(tmp_path: Path, reads: list[Path]) -> None:
    outputs = _outputs(tmp_path)
    source = tmp_path / "input.jsonl"
    source.write_bytes(b"{}\n" * 100)
    first = StageState(tmp_path, "s")
    first.record({"in": first.sha256(source)}, outputs)
    reads.clear()
    second = StageState(tmp_path, "s")
    assert second.unchanged({"in": second.sha256(source)}, outputs)
    assert reads == []
    source.write_bytes(b"{}\n" * 101)
    third = StageState(tmp_path, "s")
    assert not third.unchanged({"in": third.sha256(source)}, outputs)
    assert reads == [source]


def test_the_ratchet_counts_of_an_unchanged_dataset_are_not_recounted(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import derive.ratchet
    from legal.ids import Publisher
    from pipelines.derive_stage import empty_counts
    from pipelines.settings import LexSettings

    counted: list[Path] = []

    def fake(dataset: Path) -> dict[str, dict[str, int]]:
        counted.append(dataset)
        lines = (Path(dataset) / "provisions.jsonl").read_bytes().count(b"\n")
        return {"lu-legilux:w": {"sig": lines}}

    monkeypatch.setattr(derive.ratchet, "empty_signature_counts", fake)
    lex = LexSettings(workdir=str(tmp_path))
    dataset = tmp_path / "ds"
    dataset.mkdir()
    (dataset / "provisions.jsonl").write_bytes(b"{}\n" * 3)
    assert empty_counts(lex, Publisher.parse("lu-legilux"), dataset) == {"lu-legilux:w": {"sig": 3}}
    assert empty_counts(lex, Publisher.parse("lu-legilux"), dataset) == {"lu-legilux:w": {"sig": 3}}
    assert len(counted) == 1
    tmp = dataset / "new.jsonl"
    tmp.write_bytes(b"{}\n" * 4)
    os.replace(tmp, dataset / "provisions.jsonl")
    assert empty_counts(lex, Publisher.parse("lu-legilux"), dataset) == {"lu-legilux:w": {"sig": 4}}
    assert len(counted) == 2
    assert empty_counts(LexSettings(workdir=str(tmp_path), rehash=True), Publisher.parse("lu-legilux"), dataset) == {
        "lu-legilux:w": {"sig": 4}}
    assert len(counted) == 2  # the same bytes (read again to know it): the counts kept


def test_a_file_one_stage_hashed_is_not_read_by_the_next(tmp_path: Path, reads: list[Path]) -> None:
    outputs = _outputs(tmp_path)  # the dataset a first stage wrote, hashed and recorded
    StageState(tmp_path, "derive").record({"x": 1}, outputs)
    reads.clear()
    index = StageState(tmp_path, "index")  # a stage that takes it as input
    assert index.sha256(outputs["a"]) == file_sha256(outputs["a"])
    assert reads == []
    index.record({"dataset": index.sha256(outputs["a"])}, {})
    tmp = outputs["a"].with_suffix(".tmp")
    tmp.write_bytes(b"changed")
    os.replace(tmp, outputs["a"])
    reads.clear()
    assert StageState(tmp_path, "index").sha256(outputs["a"]) == file_sha256(outputs["a"])
    assert reads == [outputs["a"]]
    outputs["b"].unlink()  # gone files leave the shared hashes at the next record
    StageState(tmp_path, "other").record({}, {})
    assert str(outputs["b"]) not in json.loads((tmp_path / "state" / SHARED).read_bytes())


def test_the_index_stage_scopes_its_text_check_only_after_a_previous_file_it_verified(tmp_path: Path) -> None:
    """docs/adr/0026: the build's ``texts_from_block`` is taken only when the previous index is the file
    this stage recorded (it records only after that file's check passed); otherwise every text is checked."""
    from pipelines.index_stage import texts_to_verify

    index = tmp_path / "out" / "lu-legilux.sqlite"
    index.parent.mkdir()
    index.write_bytes(b"previous index")
    state = StageState(tmp_path, "index-lu-legilux")
    sha = state.sha256(index)
    assert state.recorded_outputs() == {}
    assert texts_to_verify(state, sha, 7) == 1  # never recorded: a build that failed its check, or none
    state.record({"x": 1}, {"index": index})
    assert StageState(tmp_path, "index-lu-legilux").recorded_outputs() == {"index": sha}
    assert texts_to_verify(StageState(tmp_path, "index-lu-legilux"), sha, 7) == 7
    assert texts_to_verify(StageState(tmp_path, "index-lu-legilux"), "0" * 64, 7) == 1  # another file
    assert texts_to_verify(StageState(tmp_path, "index-lu-legilux"), None, 7) == 1  # a full build
