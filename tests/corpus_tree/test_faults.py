"""The store's fault suite (issue #16, store): kill -9 at every commit phase, disk full at
every write site, stray entries, writable blobs, staging orphans, racing creators.

Each case has one expected typed outcome and two checks: **nothing lost** (a refused or killed
write leaves the tree byte-identical, or — killed after the commit point — fully committed)
and **nothing unreported** (whatever a killed run left behind, ``verify`` reports it until the
next open or ``lex corpus repair`` removes it).
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cli.main import main
from corpus_tree import CorpusTree, txn
from corpus_tree.evidence import EvidenceStore
from corpus_tree.importer import import_published
from corpus_tree.verify import verify_tree
from legal.errors import CorpusError
from tests.corpus_tree.conftest import snapshot
from tests.corpus_tree.kill_commit import POINTS, UNDO_POINTS

ROOT = Path(__file__).resolve().parents[2]
#: works imported by every kill run: 3 EUR-Lex works, several bodies and records each
WORKS = ("32013r1336", "32019r0401", "32024l1405")
TRIALS = int(os.environ.get("LEX_KILL_TRIALS", "2"))
NTHS = (1, 2, 3)


def _disk_full() -> OSError:
    return OSError(errno.ENOSPC, "No space left on device")


def _kill_run(tree: Path, src: Path | str, point: str, nth: int, *fail: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tests.corpus_tree.kill_commit", str(tree), str(src), point,
                           str(nth), *map(str, fail)], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})


def _unreported(tree: Path, before: dict[str, str]) -> list[str]:
    """Leftovers of a killed run that ``verify`` does not report (must be none)."""
    report = verify_tree(tree)
    changed = sorted(p for p, h in snapshot(tree).items() if before.get(p) != h)
    if changed and report.ok:
        return changed
    orphans = EvidenceStore(tree / "evidence").staging_entries()
    reported = {p.path for p in report.problems if p.code == "staging_orphan"}
    # a run's lock file is reported with its run directory
    return [str(o) for o in orphans if o.relative_to(tree).as_posix() not in reported
            and o.with_suffix("").relative_to(tree).as_posix() not in reported]


def test_kill_minus_nine_at_every_commit_phase(tree_copy: Path, mini_source: Callable[..., Path],
                                               tmp_path: Path) -> None:
    src = mini_source(*WORKS)
    pristine = tmp_path / "pristine"
    shutil.copytree(tree_copy, pristine)
    before = snapshot(pristine)
    done = tmp_path / "done"
    shutil.copytree(pristine, done)
    import_published(src, done)
    committed = snapshot(done)
    kills = lost = unreported = rolled_back = rolled_forward = 0
    reached: set[tuple[str, int]] = set()
    failures: list[str] = []
    for point in POINTS:
        for nth in NTHS:
            for trial in range(TRIALS):
                tree = tmp_path / f"{point}-{nth}-{trial}"
                shutil.copytree(pristine, tree)
                run = _kill_run(tree, src, point, nth)
                if run.returncode == 0:
                    continue  # the point is not reached that many times: no kill
                assert run.returncode == -signal.SIGKILL, run.stderr[-3000:]
                kills += 1
                reached.add((point, nth))
                missed = _unreported(tree, before)
                unreported += bool(missed)
                CorpusTree.open(tree)  # recovery on the next open
                after = snapshot(tree)
                if after == before:
                    rolled_back += 1
                elif after == committed:
                    rolled_forward += 1
                else:
                    lost += 1
                    failures.append(f"{point}#{nth}: neither before nor committed")
                if missed:
                    failures.append(f"{point}#{nth}: unreported {missed[:3]}")
                assert not (tree / "evidence" / ".staging").exists(), f"{point}#{nth}: orphans survive recovery"
                assert verify_tree(tree).ok, f"{point}#{nth}"
    print(f"kill -9: {kills} kills at {len(reached)} kill points ({len(POINTS)} commit phases x up to "
          f"{len(NTHS)} calls) x {TRIALS} trials; {rolled_back} rolled back, {rolled_forward} rolled forward, "
          f"{lost} lost, {unreported} unreported")
    assert not failures, failures
    assert len(reached) >= 20 and kills == len(reached) * TRIALS and lost == 0 and unreported == 0


#: the rename that fails (in the rollback cases) or is the last one before the kill (recovery cases)
FAILING_RENAME = 3


@pytest.mark.parametrize("recovering", [False, True], ids=["rollback", "recovery"])
def test_kill_minus_nine_mid_rollback_is_recovered_byte_identical(
        recovering: bool, tree_copy: Path, mini_source: Callable[..., Path], tmp_path: Path) -> None:
    """A rollback killed part-way is finished by the next open: the tree is the one before.

    ``rollback``: the commit's third rename fails, and the process is killed while it rolls back
    in place. ``recovery``: the process is killed after two renames (the journal prepared), and
    the open that recovers it is itself killed while it rolls back; a third open finishes."""
    src = mini_source(*WORKS)
    pristine = tmp_path / "pristine"
    shutil.copytree(tree_copy, pristine)
    before = snapshot(pristine)
    kills = 0
    failures: list[str] = []
    for point in UNDO_POINTS:
        for nth in NTHS:
            tree = tmp_path / f"{point}-{nth}"
            shutil.copytree(pristine, tree)
            if recovering:
                first = _kill_run(tree, src, "rename", FAILING_RENAME - 1)
                assert first.returncode == -signal.SIGKILL, first.stderr[-3000:]
                assert txn.read_journal(tree) is not None  # a prepared journal, renames half done
                run = _kill_run(tree, "recover", point, nth)
            else:
                run = _kill_run(tree, src, point, nth, FAILING_RENAME)
            assert run.returncode == -signal.SIGKILL, f"{point}#{nth}: " + run.stderr[-3000:]
            kills += 1
            missed = _unreported(tree, before)
            CorpusTree.open(tree)
            if snapshot(tree) != before:
                failures.append(f"{point}#{nth}: not the tree before")
            if missed:
                failures.append(f"{point}#{nth}: unreported {missed[:3]}")
            assert not (tree / "evidence" / ".staging").exists(), f"{point}#{nth}: orphans survive recovery"
            assert verify_tree(tree).ok, f"{point}#{nth}"
    assert not failures, failures
    assert kills == len(UNDO_POINTS) * len(NTHS)


# -- disk full ------------------------------------------------------------------------------------

#: every write site of a commit: (module attribute to break, how) — the nth call raises ENOSPC
WRITE_SITES: dict[str, tuple[Any, str]] = {
    "stage-file": (txn, "_write_file"),
    "journal": (txn, "_write_json_atomic"),
    "stage-blob": (txn, "hash_stream"),
    "backup": (txn, "_backup_op"),
    "blob-install": (EvidenceStore, "install"),
    "rename": (txn, "_apply_op"),
    "staging-dir": (EvidenceStore, "staging_run"),
}


@pytest.mark.parametrize("site", sorted(WRITE_SITES))
@pytest.mark.parametrize("nth", [1, 2])
def test_disk_full_at_each_write_site_is_typed_and_leaves_the_tree_byte_identical(
        site: str, nth: int, tree_copy: Path, mini_source: Callable[..., Path],
        monkeypatch: pytest.MonkeyPatch) -> None:
    src = mini_source(*WORKS)
    owner, name = WRITE_SITES[site]
    real = getattr(owner, name)
    calls = {"n": 0}

    def full(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == nth:
            raise _disk_full()
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, full)
    before = snapshot(tree_copy)
    try:
        import_published(src, tree_copy)
    except CorpusError as exc:
        assert exc.code == "disk_full" and calls["n"] >= nth
    else:
        assert calls["n"] < nth
        pytest.skip(f"{site} is called {calls['n']} time(s) in this import")
    monkeypatch.undo()
    assert snapshot(tree_copy) == before
    assert verify_tree(tree_copy).ok


def test_disk_full_on_lex_corpus_import_is_one_typed_line(tree_copy: Path, mini_source: Callable[..., Path],
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    src = mini_source(*WORKS)
    monkeypatch.setattr(txn, "_write_file", lambda *a, **k: (_ for _ in ()).throw(_disk_full()))
    before = snapshot(tree_copy)
    code = main(["corpus", "import", str(src), "--into", str(tree_copy), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "[corpus/disk_full]" in err and "Traceback" not in err
    assert snapshot(tree_copy) == before


def test_disk_full_while_creating_a_tree_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = Path.write_bytes

    def full(self: Path, data: bytes) -> int:
        if self.name == "manifest.json":
            raise _disk_full()
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", full)
    with pytest.raises(CorpusError) as info:
        CorpusTree.create(tmp_path / "new")
    assert info.value.code == "disk_full"
    assert list(tmp_path.iterdir()) == []


# -- verify sees everything; repair removes only what is safe ------------------------------------


def _a_blob(tree: Path) -> Path:
    store = EvidenceStore(tree / "evidence")
    return store.path_of(next(store.iter_hashes()))


def test_stray_files_writable_blobs_and_staging_orphans_are_reported_then_repaired(tree_copy: Path) -> None:
    assert verify_tree(tree_copy).ok
    store = EvidenceStore(tree_copy / "evidence")
    blob = _a_blob(tree_copy)
    os.chmod(blob, 0o644)
    (blob.parent / "notes.txt").write_text("stray")
    (tree_copy / "evidence" / "stray.bin").write_bytes(b"x")
    (store.root / "sha256" / ".put-leftover").write_bytes(b"half a body")
    orphan = store.staging_root() / "0123abcd"
    orphan.mkdir(parents=True)
    (orphan / ("ab" * 32)).write_bytes(b"x" * 4096)  # bytes of a killed run, no live owner
    codes = sorted({p.code for p in verify_tree(tree_copy).problems})
    assert codes == ["staging_orphan", "unexpected_entry", "writable_blob"]
    problems = {p.path: p.code for p in verify_tree(tree_copy).problems}
    assert problems["evidence/.staging/0123abcd"] == "staging_orphan"
    assert problems[blob.relative_to(tree_copy).as_posix()] == "writable_blob"
    assert problems["evidence/sha256/.put-leftover"] == "unexpected_entry"
    # repair: orphans and temporary leftovers removed, the blob made read-only; stray files
    # that may be someone's are left for a human (still reported)
    code = main(["corpus", "repair", str(tree_copy)])
    assert code == 1
    left = {p.code for p in verify_tree(tree_copy).problems}
    assert left == {"unexpected_entry"} and not orphan.exists() and not blob.stat().st_mode & 0o222
    (blob.parent / "notes.txt").unlink()
    (tree_copy / "evidence" / "stray.bin").unlink()
    assert main(["corpus", "repair", str(tree_copy)]) == 0


def test_a_live_staging_run_is_never_swept(tree_copy: Path) -> None:
    store = EvidenceStore(tree_copy / "evidence")
    with store.staging_run("ingest-live") as live:
        (live / "body").write_bytes(b"in progress")
        CorpusTree.open(tree_copy)  # recovery runs: the live run survives
        assert store.sweep_staging() == [] and (live / "body").exists()
        assert [p.code for p in verify_tree(tree_copy).problems] == ["staging_orphan"]  # still visible
    assert not store.staging_root().exists() and verify_tree(tree_copy).ok


def test_blobs_are_installed_read_only(tree_copy: Path) -> None:
    store = EvidenceStore(tree_copy / "evidence")
    sha = store.put_bytes(b"a new body")
    assert not store.path_of(sha).stat().st_mode & 0o222


# -- racing creators ------------------------------------------------------------------------------


def test_racing_creators_get_a_clear_typed_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "tree"
    real = os.rename
    raced = {"done": False}

    def rival_first(src: Any, dst: Any) -> None:
        if not raced["done"] and Path(dst) == target:
            raced["done"] = True
            CorpusTree.create(target)  # another process wins the race just before our rename
        real(src, dst)

    monkeypatch.setattr(os, "rename", rival_first)
    with pytest.raises(CorpusError) as info:
        CorpusTree.create(target)
    assert info.value.code == "tree_created_concurrently"
    raced["done"] = False
    assert CorpusTree.open_or_create(target).root == target  # open_or_create opens the winner's tree
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tree"]  # no half-made tree left behind
    assert verify_tree(target).ok


def test_racing_creator_processes(tmp_path: Path) -> None:
    target = tmp_path / "tree"
    code = ("import sys; from corpus_tree import CorpusTree; from legal.errors import CorpusError\n"
            "try:\n CorpusTree.create(sys.argv[1]); print('created')\n"
            "except CorpusError as e:\n print(e.code)\n")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(target)], cwd=ROOT, stdout=subprocess.PIPE,
                              text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}) for _ in range(4)]
    outcomes = sorted(p.communicate(timeout=120)[0].strip() for p in procs)
    assert outcomes.count("created") == 1
    assert set(outcomes) <= {"created", "tree_created_concurrently", "tree_exists"}
    assert verify_tree(target).ok
