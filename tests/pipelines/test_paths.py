"""The two code paths give the same artifact set: the Dagster jobs (``evidence`` per publisher, then
``release``) and the ``lex`` commands a release operator types (``corpus import``, ``derive run``,
``index build``, ``bench retrieval``, ``release assemble``, ``release sign``), over the same fixture
corpora, with the same signing key and the same build instant.

Every file of the two sets is compared byte for byte, the signed statement and the signed benchmark
report included; nothing is excluded. Two things are pinned to make that possible, both clocks:

- the benchmark's latency clock: the report carries measured latencies (p50/p95 per category,
  the cold query), which differ from run to run; both paths run the benchmark with the same
  fixed clock (each reading advances 1 ms), so the report's latencies are the same numbers;
- the signing time: ``lex release sign`` has no ``--created-at`` (the pipeline signs at its build
  instant), so the CLI path's clock (``release.signing.utc_now``) is set to the build instant.
"""

from __future__ import annotations

import functools
import itertools
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import dagster as dg
import pytest

from cli.main import main as lex
from legal.ids import Publisher
from pipelines.definitions import build_definitions
from pipelines.settings import PUBLISHERS, LexSettings
from pipelines.sources import update_tree
from tests.pipelines.conftest import BUILT_AT, ROOT, run_job

STAMP = f"{BUILT_AT}T00:00:00Z"
PASSPHRASE = "paths-test"
JUDGMENTS = ROOT / "evals" / "retrieval_judgments.json"


def _fixed_clock() -> Callable[[], float]:
    ticks = itertools.count()
    return lambda: next(ticks) / 1000.0


@pytest.fixture
def fixed_benchmark_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every benchmark run (either path) reads a clock that advances 1 ms per reading."""
    import release.benchmark.benchmark as bench

    original = bench.run

    def run(*args: object, **kwargs: object) -> object:
        return original(*args, **{**kwargs, "timer": _fixed_clock()})  # type: ignore[arg-type]

    monkeypatch.setattr(bench, "run", functools.update_wrapper(run, original))


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _lex(*args: str | Path) -> None:
    assert lex([str(a) for a in args]) == 0, f"lex {' '.join(map(str, args))} failed"


def test_dagster_and_cli_paths_give_byte_identical_sets(tmp_path: Path, fixtures_dir: Path, fixed_benchmark_clock: None,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEX_SIGNING_PASSPHRASE", PASSPHRASE)
    keys = tmp_path / "keys"
    _lex("release", "keygen", "--out", keys)
    key = keys / "release-signing.key.pem"

    # the Dagster path
    work = tmp_path / "dagster"
    settings = LexSettings(workdir=str(work), source="published", fixtures_dir=str(fixtures_dir), built_at=BUILT_AT,
                           signing_key=str(key), judgments=str(JUDGMENTS))
    defs = build_definitions(executor="in_process", settings=settings, automation="off")
    with dg.instance_for_test() as instance:
        for publisher in PUBLISHERS:
            assert run_job(defs, "evidence", instance, publisher).success
        release = run_job(defs, "release", instance)
    assert release.success
    meta = release.meta("artifact_set")
    assert meta["promoted"] is True, meta
    dagster_set = work / "release" / "sets" / str(meta["set_id"])

    # the CLI path
    cli = tmp_path / "cli"
    for publisher in PUBLISHERS:
        _lex("corpus", "import", fixtures_dir / f"lex-corpus-{publisher}", "--into", cli / "trees" / publisher,
             "--no-progress")
        _lex("derive", "run", "--tree", cli / "trees" / publisher, "--out", cli / "derived" / publisher,
             "--no-progress")
        # one build per publisher, over its own tree and dataset, as the pipeline does (an index
        # built with both trees and both datasets given at once stamps both of them)
        _lex("index", "build", "--tree", cli / "trees" / publisher, "--dataset", cli / "derived" / publisher,
             "--out", cli / "indexes", "--built-at", STAMP, "--no-progress")
    _lex("bench", "retrieval", "--index-dir", cli / "indexes", "--judgments", JUDGMENTS,
         "--out", cli / "report.json", "--created-at", STAMP)
    _lex("release", "assemble", cli / "set", "--index-dir", cli / "indexes", "--dataset-root", cli / "derived",
         "--corpus-root", cli / "trees", "--scope", f"eu-scope.json={ROOT / 'publishers/eurlex/scope.json'}",
         "--report", cli / "report.json", "--key", key)
    monkeypatch.setattr("release.signing.utc_now", lambda: STAMP)
    _lex("release", "sign", cli / "set", "--key", key, "--created-by", "lex pipeline",
         "--label", "source=published", "--label", "development_key=false")

    ours, theirs = _files(dagster_set), _files(cli / "set")
    assert sorted(ours) == sorted(theirs)
    assert [name for name in ours if ours[name] != theirs[name]] == []


def test_published_source_is_imported_again_only_when_a_file_changed(tmp_path: Path, fixtures_dir: Path) -> None:
    src = tmp_path / "corpora" / "lex-corpus-lu-legilux"
    shutil.copytree(fixtures_dir / "lex-corpus-lu-legilux", src)
    lex = LexSettings(workdir=str(tmp_path / "work"), source="published", fixtures_dir=str(src.parent))
    staged: set[str] = set()  # the bodies the import installed (hashed as written): the verification's ``fresh``
    first = update_tree(lex, Publisher.LEGILUX, staged=staged)
    assert "skipped" not in first and first["bodies_added"] > 0
    assert len(staged) == first["bodies_added"] and "bodies_staged" not in first
    assert update_tree(lex, Publisher.LEGILUX)["skipped"]  # same files: not read again
    record = next(src.glob("works/*/versions/*/meta.json"))
    os.utime(record, ns=(record.stat().st_atime_ns, record.stat().st_mtime_ns + 1_000_000_000))
    staged.clear()
    again = update_tree(lex, Publisher.LEGILUX, staged=staged)  # a touched file: imported (and verified) again
    assert "skipped" not in again and again["bodies_added"] == 0 and staged == set()
    manifest = tmp_path / "work" / "trees" / "lu-legilux" / "manifest.json"
    manifest.write_bytes(manifest.read_bytes() + b"\n")
    assert update_tree(lex, Publisher.LEGILUX)["manifest_changed"]  # a changed tree: imported (repaired) again
