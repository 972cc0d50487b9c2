"""What the derive stage remembers between runs: the determinism sample once it passed (re-run
over the same sampled records, code, alias table and stored rows — another work changed — the
sampled versions are not derived again; a changed stored row makes it derive and compare again),
and the ratchet's counts of a merged dataset, taken from its shards' (a rebuilt shard's carried over
for the works whose lines it copied, when its previous file is the one counted)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

import derive.dataset as D
from pipelines import derive_stage
from pipelines.state import StageState


def test_a_passed_sample_is_not_derived_again_until_its_inputs_or_rows_change(
        tmp_path: Path, imported_trees, fixture_dataset, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = imported_trees["lu"]
    out = tmp_path / "ds"
    shutil.copytree(fixture_dataset["lu"][0], out)
    calls: list[str] = []
    real = D.derive_version

    def counting(version, *args, **kwargs):
        calls.append(version.lex_id)
        return real(version, *args, **kwargs)

    monkeypatch.setattr(D, "derive_version", counting)
    memo = StageState(tmp_path, "determinism-lu")
    sampled, same = derive_stage.determinism_sample(tree, out, memo)
    assert same and sorted(calls) == sorted(sampled) and len(sampled) == derive_stage.SAMPLE_SIZE
    calls.clear()
    assert derive_stage.determinism_sample(tree, out, memo) == (sampled, True)
    assert calls == []  # remembered: nothing derived
    # one sampled row changed in the dataset: derived again, and refused
    lines = (out / "provisions.jsonl").read_bytes().splitlines(keepends=True)
    keys = [f'"lex_id":"{lex_id}"'.encode() for lex_id in sampled]
    at = next(i for i, line in enumerate(lines) if any(key in line for key in keys))
    lines[at] = lines[at].replace(b'"text_md":"', b'"text_md":"x', 1)
    (out / "provisions.jsonl").write_bytes(b"".join(lines))
    assert derive_stage.determinism_sample(tree, out, memo) == (sampled, False)
    assert sorted(calls) == sorted(sampled)
    # without a memo it always derives
    calls.clear()
    derive_stage.determinism_sample(tree, out)
    assert sorted(calls) == sorted(sampled)


def test_merged_counts_are_the_union_of_the_shards_counts(tmp_path: Path, imported_trees, monkeypatch) -> None:
    from derive.dataset import build_dataset, merge_shards
    from derive.ratchet import empty_signature_counts
    from legal.ids import Publisher
    from pipelines.settings import LexSettings

    tree = imported_trees["lu"]
    lex = LexSettings(workdir=str(tmp_path))
    publisher = Publisher.parse("lu-legilux")
    shards = [lex.shard(publisher.value, i, 2) for i in range(2)]
    for i, out in enumerate(shards):
        build_dataset(tree, out, shard=(i, 2), use_cache=False)
    merge_shards(shards, tmp_path / "merged")
    whole = empty_signature_counts(tmp_path / "merged")
    assert any(whole.values())  # the fixtures hold empty provisions
    assert derive_stage.merged_counts(lex, publisher, 2) == whole
    # kept per shard: a second union reads no shard
    import derive.ratchet as ratchet

    monkeypatch.setattr(ratchet, "empty_signature_counts", lambda _d: pytest.fail("a shard read again"))
    assert derive_stage.merged_counts(lex, publisher, 2) == whole


def test_the_sample_and_its_stored_rows_are_found_without_reading_every_record_or_line(
        tmp_path: Path, imported_trees) -> None:
    import hashlib
    import json

    from pipelines.derive_stage import SAMPLE_SIZE, _rows_by_lex_id, _sample_versions

    tree = imported_trees["lu"]
    every = sorted((v.lex_id for v in tree.iter_versions(verify=False)),
                   key=lambda lex_id: hashlib.sha256(lex_id.encode()).hexdigest())
    sample = [v.lex_id for v in _sample_versions(tree)]
    assert sample == every[:SAMPLE_SIZE]
    lines = [json.dumps({"lex_id": every[0], "n": 1}, separators=(",", ":")),
             json.dumps({"lex_id": every[1], "n": 2}, separators=(",", ":")),
             json.dumps({"lex_id": every[0], "n": 3}, separators=(",", ":")),
             json.dumps({"lex_id": every[0] + "x", "n": 4}, separators=(",", ":"))]
    (tmp_path / "rows.jsonl").write_text("\n".join(lines) + "\n")
    found = _rows_by_lex_id(tmp_path / "rows.jsonl", {every[0], every[2]})
    assert found == {every[0]: [lines[0].encode(), lines[2].encode()], every[2]: []}


def test_the_merge_says_where_each_works_lines_are_and_the_sample_reads_only_those(
        tmp_path: Path, imported_trees) -> None:
    import json

    from derive.dataset import build_dataset, merge_shards
    from pipelines.derive_stage import _rows_by_lex_id, _sample_versions

    tree = imported_trees["lu"]
    shards = [tmp_path / f"{i}-of-2" for i in range(2)]
    for i, out in enumerate(shards):
        build_dataset(tree, out, shard=(i, 2), use_cache=False)
    merged = merge_shards(shards, tmp_path / "merged")
    data = (tmp_path / "merged" / "provisions.jsonl").read_bytes()
    # the spans tile the file in work order, and each holds exactly its work's lines
    at = 0
    for work_id, (offset, length) in merged.spans.items():
        assert offset == at and length > 0
        assert {json.loads(line)["work_id"] for line in data[offset:offset + length].splitlines()} == {work_id}
        at += length
    assert at == len(data)
    wanted = {v.lex_id for v in _sample_versions(tree)}
    ranges = [merged.spans[str(v.work_id)] for v in _sample_versions(tree) if str(v.work_id) in merged.spans]
    whole = _rows_by_lex_id(tmp_path / "merged" / "provisions.jsonl", wanted)
    assert any(whole.values())
    assert _rows_by_lex_id(tmp_path / "merged" / "provisions.jsonl", wanted, ranges) == whole


def test_the_jsonl_hash_a_build_reports_is_the_written_files(tmp_path: Path, imported_trees) -> None:
    """``BuildReport.sha256``: the SHA-256 of ``provisions.jsonl`` hashed as it was written (a shard
    build with rows copied from its previous output, and the merge), equal to a read of the file;
    the stage records the file with it."""
    from derive.dataset import build_dataset, merge_shards
    from pipelines.derive_stage import written_digest
    from pipelines.state import file_sha256, files_digest

    tree = imported_trees["lu"]
    shards = [tmp_path / f"{i}-of-2" for i in range(2)]
    for i, out in enumerate(shards):
        built = build_dataset(tree, out, shard=(i, 2), cache=tmp_path / "cache")
        assert built.sha256 == {"provisions.jsonl": file_sha256(out / "provisions.jsonl")}
    again = build_dataset(tree, shards[0], shard=(0, 2), cache=tmp_path / "cache")  # rows from the cache
    assert again.sha256 == {"provisions.jsonl": file_sha256(shards[0] / "provisions.jsonl")}
    merged = merge_shards(shards, tmp_path / "merged")
    out = tmp_path / "merged"
    assert merged.sha256 == {"provisions.jsonl": file_sha256(out / "provisions.jsonl")}
    outputs = {name: out / name for name in ("provisions.jsonl", "provisions.parquet", "gaps.jsonl", "absent")}
    assert written_digest(outputs, merged.sha256) == files_digest(outputs)


def test_the_merge_copies_events_and_visibility_as_parquet_batches_with_the_recorded_sizes(
        tmp_path: Path, imported_trees) -> None:
    """A shard records, per work, the sizes its version_events and version_visibility rows gave the
    sinks' row-group bound (``shard.json``); the merge copies those rows as Parquet batches with
    them, and its files are byte-identical to a merge that rebuilds them from plain rows (shards
    without the sizes). A work whose rows have no recorded size is a shard that does not hold."""
    import json
    import os

    import pytest

    from derive.dataset import build_dataset, merge_shards
    from legal.errors import DerivationError

    tree = imported_trees["lu"]
    shards = [tmp_path / f"{i}-of-2" for i in range(2)]
    for i, out in enumerate(shards):
        build_dataset(tree, out, shard=(i, 2), use_cache=False)
    metas = [json.loads((out / "shard.json").read_bytes()) for out in shards]
    assert all(isinstance(m["transaction_sizes"], dict) and m["transaction_sizes"] for m in metas)
    merge_shards(shards, tmp_path / "batched")
    for out, meta in zip(shards, metas, strict=True):  # the shards of before: no sizes recorded
        (out / "shard.json").write_text(json.dumps({k: v for k, v in meta.items() if k != "transaction_sizes"}))
    merge_shards(shards, tmp_path / "plain")
    names = sorted(p.name for p in (tmp_path / "plain").iterdir() if p.is_file())
    assert "version_events.parquet" in names and "version_visibility.parquet" in names
    for name in names:
        assert (tmp_path / "batched" / name).read_bytes() == (tmp_path / "plain" / name).read_bytes(), name
    sizes = dict(metas[0]["transaction_sizes"])
    sizes.pop(next(iter(sizes)))
    (shards[0] / "shard.json").write_text(json.dumps({**metas[0], "transaction_sizes": sizes}))
    (shards[1] / "shard.json").write_text(json.dumps(metas[1]))
    with pytest.raises(DerivationError) as caught:
        merge_shards(shards, tmp_path / "broken")
    assert caught.value.code == "shard_mismatch"
    assert not os.path.exists(tmp_path / "broken")



def _built_shard(tmp_path: Path, imported_trees) -> tuple[Any, Any, Path, str]:
    """A work directory holding the fixture Legilux tree and shard 0 of 2 built and counted as the
    stage counts it (the ratchet's per-shard cache, the file read once); and a work of that shard
    with empty provisions."""
    from derive.ratchet import empty_signature_counts
    from legal.ids import Publisher
    from pipelines.settings import LexSettings

    lex = LexSettings(workdir=str(tmp_path / "work"))
    publisher = Publisher.parse("lu-legilux")
    shutil.copytree(imported_trees["lu"].root, lex.tree(publisher.value), symlinks=True)
    assert not derive_stage.run_shard(lex, publisher, 0, 2, workers=1).skipped
    out = lex.shard(publisher.value, 0, 2)
    derive_stage.empty_counts(lex, publisher, out, name="shard-0-of-2")
    work = next(w for w, counts in empty_signature_counts(out).items() if counts)
    return lex, publisher, out, work


def _rebuild_deriving(lex: Any, publisher: Any, out: Path, work: str) -> dict[str, Any]:
    """Rebuild shard 0 of 2 with ``work`` not copied from the previous output (its recorded key
    changed, the shard's states dropped); the others are copied."""
    meta = json.loads((out / "shard.json").read_bytes())
    meta["keys"][work] = "0" * 64
    (out / "shard.json").write_text(json.dumps(meta))
    for state in (lex.root / "state").glob("derive-*-shard-0-of-2*.json"):
        state.unlink()
    result = derive_stage.run_shard(lex, publisher, 0, 2, workers=1)
    assert not result.skipped and result.metadata["works_copied"] > 0
    return result.metadata


def test_a_rebuilt_shard_counts_only_the_works_it_did_not_copy(tmp_path: Path, imported_trees, monkeypatch) -> None:
    import derive.ratchet as ratchet
    from legal.canonical import file_sha256

    lex, publisher, out, work = _built_shard(tmp_path, imported_trees)
    whole = ratchet.empty_signature_counts
    real_tally = ratchet._tally
    counted: list[int] = []

    def tally(lines, counts):
        lines = list(lines)
        counted.append(len(lines))
        real_tally(lines, counts)

    monkeypatch.setattr(ratchet, "_tally", tally)
    monkeypatch.setattr(ratchet, "empty_signature_counts", lambda _d: pytest.fail("the shard read whole"))
    _rebuild_deriving(lex, publisher, out, work)
    label = derive_stage.shard_counts_label(publisher, 0, 2)
    cache = json.loads((lex.root / "state" / f"{label}.cache.json").read_bytes())
    assert cache["provisions_jsonl_sha256"] == file_sha256(out / "provisions.jsonl")
    assert 0 < sum(counted) < (out / "provisions.jsonl").read_bytes().count(b"\n")  # its lines only
    # what the stage takes for the shard (not read again) are the counts of the whole file
    kept = derive_stage.empty_counts(lex, publisher, out, name="shard-0-of-2")
    monkeypatch.setattr(ratchet, "_tally", real_tally)
    assert kept == cache["counts"] == whole(out) and kept[work]


@pytest.mark.parametrize("change", ["same size, other bytes", "touched"])
def test_a_rebuilt_shards_counts_are_not_carried_over_from_a_file_that_changed(
        tmp_path: Path, imported_trees, monkeypatch, change: str) -> None:
    """The previous output's counts are carried over for its copied works only when the quick
    check (or a hash) says its file is the one they were counted from. Rewritten in place with the
    same size (a copied work's row made empty: the rebuild copies that line), the new file is
    counted whole; only touched, it is hashed again; either way the counts are the new file's."""
    import derive.ratchet as ratchet

    lex, publisher, out, work = _built_shard(tmp_path, imported_trees)
    path = out / "provisions.jsonl"
    before = ratchet.empty_signature_counts(out)
    if change == "touched":
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    else:
        lines = path.read_bytes().splitlines(keepends=True)
        key = b'"text_md":"'
        for i, line in enumerate(lines):
            row = json.loads(line)
            text = str(row["text_md"])
            if row["work_id"] != work and text.strip() and (key + text.encode()) in line:
                lines[i] = line.replace(key + text.encode(), key + b" " * len(text.encode()), 1)
                break
        else:
            pytest.fail("no row to change")
        data = b"".join(lines)
        assert len(data) == path.stat().st_size
        path.write_bytes(data)
    whole: list[Path] = []
    real = ratchet.empty_signature_counts

    def counting(dataset):
        whole.append(Path(dataset))
        return real(dataset)

    monkeypatch.setattr(ratchet, "empty_signature_counts", counting)
    _rebuild_deriving(lex, publisher, out, work)
    found = derive_stage.empty_counts(lex, publisher, out, name="shard-0-of-2")
    # changed, it is counted whole; touched, the shard's quick check hashed it again and found the
    # bytes counted: carried over or counted, the counts are the file's
    assert whole == [out] or change == "touched"
    assert found == real(out)
    assert (found == before) == (change == "touched")  # the changed row: one empty provision more


def test_the_provisions_step_holds_its_trees_facts_for_every_shard(tmp_path: Path, imported_trees, monkeypatch) -> None:
    """The ``provisions`` step brings every shard up to date itself, then merges them: inside
    ``tree_facts_held`` the work records are ``stat``ed once for all the shards' asks (not once per
    ask), the shards and dataset are those built without it, and nothing is held afterwards."""
    from legal.ids import Publisher
    from pipelines.settings import LexSettings

    publisher = Publisher.parse("lu-legilux")
    built = {}
    for side in ("plain", "held"):
        lex = LexSettings(workdir=str(tmp_path / side))
        shutil.copytree(imported_trees["lu"].root, lex.tree(publisher.value), symlinks=True)
        sweeps: list[int] = []
        real = D._work_records_state
        monkeypatch.setattr(D, "_work_records_state", lambda tree, _s=sweeps, _r=real: _s.append(1) or _r(tree))
        D._WORK_FACTS.clear()
        with derive_stage.tree_facts_held(lex, publisher) if side == "held" else contextlib.nullcontext():
            for index in range(2):
                derive_stage.run_shard(lex, publisher, index, 2, workers=1)
            derive_stage.run(lex, publisher, shards=2)
        monkeypatch.undo()
        assert D._HELD == {}
        built[side] = ({p.relative_to(lex.root).as_posix(): p.read_bytes() for p in (lex.root / "shards").rglob("*")
                        if p.is_file() and not any(part.endswith(".cache") for part in p.parts)},
                       {p.relative_to(lex.root).as_posix(): p.read_bytes() for p in lex.derived(publisher.value).rglob("*")
                        if p.is_file()}, len(sweeps))
    assert built["held"][2] == 1 < built["plain"][2]
    assert built["held"][:2] == built["plain"][:2]
