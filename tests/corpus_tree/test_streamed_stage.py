"""The writer streams each record to staging as it is made (``corpus_tree.txn.Stage``): the run
holds paths, not bytes, and a failure, a full disk or a ``kill -9`` while it streams leaves the
previous tree byte-identical. The summaries a run keeps of the whole tree share equal strings
(``corpus_tree.records.Shared``)."""

from __future__ import annotations

import datetime as dt
import errno
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from corpus_tree import CorpusTree, Enumeration, VersionInput
from corpus_tree import txn as txn_module
from corpus_tree import writer as writer_module
from corpus_tree.verify import verify_tree
from corpus_tree.writer import apply_enumeration
from legal.errors import CorpusError

from .conftest import snapshot
from .test_writer import EN_BODY, FR_BODY, T0, T1, _enum, _expr, _original, _sha, _version

ROOT = Path(__file__).resolve().parents[2]
BODIES = {_sha(EN_BODY): EN_BODY, _sha(FR_BODY): FR_BODY}
MANY = 6


def _many(n: int = MANY) -> Enumeration:
    """The original version and ``n`` consolidations, each with an English and a French body."""
    versions: list[VersionInput] = [_original()]
    for i in range(n):
        pvid = f"http://publications.europa.eu/resource/celex/02016R0679-20{10 + i}0101"
        versions.append(_version(pvid, dt.date(2010 + i, 1, 1),
                                 expressions=(_expr("en", EN_BODY), _expr("fr", FR_BODY))))
    return _enum(*versions)


def _staged_files(root: Path) -> list[Path]:
    return sorted((root / txn_module.STAGING).glob("*/files/*"))


@pytest.fixture
def tree(tmp_path: Path) -> CorpusTree:
    tree = CorpusTree.create(tmp_path / "tree")
    apply_enumeration(tree, _enum(_original()), BODIES, T0, durable=False)
    return tree


def test_each_record_is_on_disk_before_the_next_is_made(tree: CorpusTree, monkeypatch: pytest.MonkeyPatch) -> None:
    staged_when_rendered: list[int] = []
    real = writer_module.render_unchecked

    def spy(record: Any) -> bytes:
        staged_when_rendered.append(len(_staged_files(tree.root)))
        return real(record)

    committed: dict[str, Any] = {}
    real_commit = txn_module.Stage.commit

    def commit_spy(self: txn_module.Stage, **kw: Any) -> txn_module.CommitReport:
        committed["files"] = dict(self.files)
        committed["on_disk"] = [p.read_bytes() for p in _staged_files(tree.root)]
        return real_commit(self, **kw)

    monkeypatch.setattr(writer_module, "render_unchecked", spy)
    monkeypatch.setattr(txn_module.Stage, "commit", commit_spy)
    report = apply_enumeration(tree, _many(), BODIES, T1, durable=False)
    assert report.records_written == MANY
    first = staged_when_rendered[0]
    assert staged_when_rendered == list(range(first, first + MANY))  # one more staged file per record made
    # what the run holds until the commit is each file's staged name, never its bytes
    assert all(isinstance(name, str) for name in committed["files"].values())
    assert len(committed["files"]) == len(committed["on_disk"]) == MANY + 1  # the records and the manifest
    assert not (tree.root / txn_module.STAGING).exists()
    assert verify_tree(tree.root).ok


def test_a_run_that_writes_nothing_creates_no_staging(tree: CorpusTree, monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[Path] = []
    real = txn_module.Stage._files_dir

    def spy(self: txn_module.Stage) -> Path:
        made.append(real(self))
        return made[-1]

    monkeypatch.setattr(txn_module.Stage, "_files_dir", spy)
    before = snapshot(tree.root)
    report = apply_enumeration(tree, _enum(_original()), BODIES, T1, durable=False)
    assert not report.wrote_anything and made == []
    assert snapshot(tree.root) == before


def test_put_skips_bytes_the_tree_holds_and_keeps_the_last_bytes_of_a_path(tree: CorpusTree) -> None:
    manifest = (tree.root / "manifest.json").read_bytes()
    with tree.lock(), txn_module.staged(tree.root, tree.evidence) as stage:
        assert not stage.put("manifest.json", manifest)
        assert not (tree.root / txn_module.STAGING).exists()
        assert stage.put("notes/a.txt", b"one")
        assert stage.put("notes/a.txt", b"two")
        assert stage.put("manifest.json", manifest + b" ")
        assert not stage.put("manifest.json", manifest)  # back to the tree's bytes: dropped again
        assert list(stage.files) == ["notes/a.txt"]
        assert [p.read_bytes() for p in _staged_files(tree.root)] == [b"two"]
        with pytest.raises(CorpusError) as err:
            stage.put("../escape", b"x")
        assert err.value.code == "path_escape"
        stage.commit(durable=False)
    assert (tree.root / "notes" / "a.txt").read_bytes() == b"two"
    assert (tree.root / "manifest.json").read_bytes() == manifest
    assert not (tree.root / txn_module.STAGING).exists()


def test_an_error_after_some_records_are_staged_leaves_the_tree_byte_identical(
        tree: CorpusTree, monkeypatch: pytest.MonkeyPatch) -> None:
    before = snapshot(tree.root)
    real = writer_module.render_unchecked
    seen: list[int] = []

    def failing(record: Any) -> bytes:
        seen.append(len(_staged_files(tree.root)))
        if len(seen) == 4:
            raise RuntimeError("boom while streaming")
        return real(record)

    monkeypatch.setattr(writer_module, "render_unchecked", failing)
    with pytest.raises(RuntimeError, match="boom"):
        apply_enumeration(tree, _many(), BODIES, T1, durable=False)
    assert seen[-1] == 3  # three records were on disk when the run failed
    assert snapshot(tree.root) == before
    assert verify_tree(tree.root).ok


def test_disk_full_while_streaming_records_is_typed_and_leaves_the_tree_byte_identical(
        tree: CorpusTree, monkeypatch: pytest.MonkeyPatch) -> None:
    before = snapshot(tree.root)
    rendered: list[int] = []
    real_render = writer_module.render_unchecked

    def counting(record: Any) -> bytes:
        rendered.append(1)
        return real_render(record)

    real_write = txn_module._write_file
    writes: list[int] = []

    def full(path: Path, data: bytes, fsync: bool = False) -> None:
        writes.append(len(rendered))
        if len(writes) == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_write(path, data, fsync)

    monkeypatch.setattr(writer_module, "render_unchecked", counting)
    monkeypatch.setattr(txn_module, "_write_file", full)
    with pytest.raises(CorpusError) as err:
        apply_enumeration(tree, _many(), BODIES, T1, durable=False)
    assert err.value.code == "disk_full"
    assert writes[-1] == 3 < MANY  # the disk filled up while records were still being made
    assert snapshot(tree.root) == before
    assert not any(tree.evidence.staging_entries())


_KILLER = """
import os, signal, sys, pickle
from pathlib import Path
from corpus_tree import CorpusTree
from corpus_tree import writer
from corpus_tree.writer import apply_enumeration
root, nth = Path(sys.argv[1]), int(sys.argv[2])
enumeration, bodies, now = pickle.loads(Path(sys.argv[3]).read_bytes())
real, seen = writer.render_unchecked, [0]
def dying(record):
    seen[0] += 1
    if seen[0] == nth:
        os.kill(os.getpid(), signal.SIGKILL)
    return real(record)
writer.render_unchecked = dying
apply_enumeration(CorpusTree.open(root), enumeration, bodies, now)
print("completed")
"""


@pytest.mark.parametrize("nth", [1, 4])
def test_kill_minus_nine_after_staging_records_is_recovered_byte_identical(tree: CorpusTree, tmp_path: Path,
                                                                          nth: int) -> None:
    import pickle

    before = snapshot(tree.root)
    args = tmp_path / "args.pickle"
    args.write_bytes(pickle.dumps((_many(), BODIES, T1)))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", _KILLER, str(tree.root), str(nth), str(args)], cwd=ROOT, env=env,
                          capture_output=True, timeout=120)
    assert proc.returncode == -9, proc.stderr.decode()
    assert len(_staged_files(tree.root)) == nth - 1  # the records made before the kill were on disk
    assert not (tree.root / txn_module.JOURNAL).exists()
    assert (snapshot(tree.root) != before) == (nth > 1)  # a staging directory is left behind
    reopened = CorpusTree.open(tree.root)  # recovery removes the dead run's staging
    assert snapshot(reopened.root) == before
    assert verify_tree(reopened.root).ok
    assert not reopened.evidence.staging_entries()
    # and the same run then commits in full
    report = apply_enumeration(reopened, _many(), BODIES, T1, durable=False)
    assert report.records_written == MANY
    assert json.loads((reopened.root / "manifest.json").read_bytes())["counts"]["versions"] == MANY + 1


def test_summaries_of_one_run_equal_the_records_own(tree: CorpusTree) -> None:
    """Summaries made inside a caching block (``valid_from`` shared), outside it and of a record read
    again are equal, and their (packed) expressions are the records' typed expressions."""
    apply_enumeration(tree, _many(), BODIES, T1, durable=False)
    plain = list(tree.version_summaries())  # outside a caching block: each record's own values
    with tree.caching():
        shared = list(tree.version_summaries())
        written = [tree.summary(tree.read_version(str(s.path))) for s in shared]
    assert shared == plain == written
    records = list(tree.iter_versions())
    assert [s.expressions for s in shared] == [r.expressions for r in records]
    observations = [o for s in shared for e in s.expressions for o in e.observations]
    assert len(observations) == 2 * MANY + 1
    assert len({id(s.valid_from) for s in shared if s.valid_from == shared[-1].valid_from}) == 1


@pytest.mark.parametrize("durable", [False, True])
def test_the_journal_is_streamed_with_the_bytes_of_one_dumps(tree: CorpusTree, monkeypatch: pytest.MonkeyPatch,
                                                             durable: bool) -> None:
    """The journal (prepared, then committed) is written as it is encoded, and its bytes are those of
    ``json.dumps(indent=1, sort_keys=True)`` of the same value: recovery reads what it always read."""
    written: list[tuple[bytes, bytes]] = []
    real = txn_module._write_json_atomic

    def spy(path: Path, tmp: Path, value: Any, durable: bool) -> None:
        real(path, tmp, value, durable)
        written.append((path.read_bytes(), json.dumps(value, indent=1, sort_keys=True).encode("utf-8")))

    monkeypatch.setattr(txn_module, "_write_json_atomic", spy)
    apply_enumeration(tree, _many(), BODIES, T1, durable=durable)
    assert len(written) == 2  # prepared, then committed
    for on_disk, expected in written:
        assert on_disk == expected
    assert json.loads(written[0][0])["files"] and json.loads(written[1][0])["state"] == "committed"
    value = {"files": [{"path": "works/é/ü.json", "staged": "0", "backup": False}], "dirs": ["works/é"]}
    real(tree.root / "j.json", tree.root / "j.tmp", value, False)
    assert (tree.root / "j.json").read_bytes() == json.dumps(value, indent=1, sort_keys=True).encode("utf-8")
    assert not (tree.root / "j.tmp").exists()


def test_the_written_versions_held_bodies_and_the_blobs_to_stage_are_on_disk_until_the_commit(
        tree: CorpusTree, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the apply keeps per written version (the ``(sha256, language, file)`` of its held bodies, its
    staged file's name) and per new body (its source: path and label) is in the apply's spill, not in memory, when the commit starts:
    no :class:`txn.BlobSource` alive, and neither table a ``dict`` (ADR 0112). The commit takes the
    blobs in sha256 order, each with the label of its first observation in lex id order."""
    import gc
    import sys

    bodies: dict[str, str] = {}
    versions: list[VersionInput] = []
    for i in range(MANY):
        en, fr = f"<p>Article {i}</p>".encode(), f"<p>Article {i} (fr)</p>".encode()
        for body in (en, fr):
            path = tmp_path / _sha(body)
            path.write_bytes(body)
            bodies[_sha(body)] = str(path)
        pvid = f"http://publications.europa.eu/resource/celex/02016R0679-20{10 + i}0101"
        versions.append(_version(pvid, dt.date(2010 + i, 1, 1), expressions=(_expr("en", en), _expr("fr", fr))))
    seen: dict[str, Any] = {}
    real_commit = txn_module.Stage.commit
    real_stage_blob = txn_module._stage_blob

    def commit_spy(self: txn_module.Stage, **kw: Any) -> txn_module.CommitReport:
        gc.collect()
        seen["sources_alive"] = sum(isinstance(o, txn_module.BlobSource) for o in gc.get_objects())
        frame = sys._getframe(1)
        while frame.f_code.co_name != "apply_enumeration":
            frame = frame.f_back  # type: ignore[assignment]
        seen["held"], seen["blobs"], seen["files"] = type(frame.f_locals["held"]), type(self.blobs), type(self.files)
        return real_commit(self, **kw)

    def stage_blob_spy(evidence: Any, sha: str, src: txn_module.BlobSource, *args: Any) -> tuple[bool, int]:
        seen.setdefault("staged", []).append((sha, src.path, src.label))
        return real_stage_blob(evidence, sha, src, *args)

    monkeypatch.setattr(txn_module.Stage, "commit", commit_spy)
    monkeypatch.setattr(txn_module, "_stage_blob", stage_blob_spy)
    report = apply_enumeration(tree, _enum(_original(), *versions), bodies, T1, durable=False)
    assert report.records_written == MANY and report.bodies_added == 2 * MANY
    assert seen["sources_alive"] == 0  # 2 × MANY while the apply held them in a dict
    assert seen["held"] is not dict and seen["blobs"] is not dict and seen["files"] is not dict
    assert [sha for sha, _, _ in seen["staged"]] == sorted(bodies)
    assert all(path == bodies[sha] and label.startswith("eu-eurlex:32016r0679:") and label.endswith(".html")
               for sha, path, label in seen["staged"])
    assert verify_tree(tree.root).ok


def test_an_apply_spill_out_of_room_is_disk_full_and_leaves_the_tree_as_it_was(
        tree: CorpusTree, monkeypatch: pytest.MonkeyPatch) -> None:
    """The apply's spill capped at a few pages raises SQLite's ``SQLITE_FULL`` (what a full temporary
    directory raises): the apply names it ``disk_full`` and the tree is byte-identical (ADR 0112)."""
    from corpus_tree.import_spill import Spill

    before = snapshot(tree.root)
    real_init = Spill.__init__

    def capped(self: Spill, cache_kib: int) -> None:
        real_init(self, cache_kib)
        assert self.db.execute("PRAGMA cache_size").fetchone() == (-cache_kib,)
        self.db.execute("PRAGMA max_page_count = 3")

    monkeypatch.setattr(Spill, "__init__", capped)
    with pytest.raises(CorpusError) as err:
        apply_enumeration(tree, _many(60), BODIES, T1, durable=False)
    assert err.value.code == "disk_full" and "the apply's temporary spill" in str(err.value)
    assert snapshot(tree.root) == before
