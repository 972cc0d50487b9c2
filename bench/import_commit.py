"""What the import's commit holds, against the import's peak (issue #13, ADR 0100).

::

    python -m bench.import_commit --n 2 4 [--corpora DIR] [--publishers lu-legilux eu-eurlex]
                                  [--out DIR] [--fixtures DIR] [--tracemalloc]

For each N the corpus is replicated as :mod:`bench.stage_slopes` replicates it (``--corpora``: the
full exported corpora, bodies hard-linked; else the fixtures), then imported into a new tree in a
child (this checkout) with :class:`corpus_tree.txn.Stage`'s commit
watched. Printed, per N and publisher:

- ``vm_hwm_mb`` (the child's) and, at the commit, ``hwm_enter_mb`` → ``hwm_planned_mb`` (once the
  journal is planned) → ``hwm_exit_mb``, and ``rss_enter_mb`` (a commit that raises ``VmHWM`` sets
  the import's peak; what follows is counted after the commit, so the counting does not raise it);
- ``files``: the files the commit renames; ``files_map_mb``: what the stage's file map holds,
  counted (``sys.getsizeof`` of the mapping, its keys and values; ``0`` when the map is not a dict);
- ``journal_mb``: what the planned journal holds, counted the same way (its operations and
  directory lists when it holds them; else what it holds without its oplog), with ``ops`` and ``new_dirs``;
- with ``--tracemalloc`` (``VmHWM`` then inflated): ``traced_enter_mb`` and ``traced_peak_before_mb``
  (the import's traced peak before the commit) and ``commit_traced_peak_mb`` (from its start to its end).

Internal: ``python -m bench.import_commit _child --tree T --src S``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.commit_memory import _mb, _status

ROOT = Path(__file__).resolve().parents[1]
CORPORA = {"lu-legilux": "lex-corpus-lu-legilux", "eu-eurlex": "lex-corpus-eu-eurlex"}


def deep_size(value: Any, seen: set[int] | None = None) -> int:
    """``sys.getsizeof`` of ``value`` and of what it holds (dicts, lists, tuples; each object once)."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return 0
    seen.add(id(value))
    size = sys.getsizeof(value)
    if isinstance(value, dict):
        size += sum(deep_size(k, seen) + deep_size(v, seen) for k, v in value.items())
    elif isinstance(value, (list, tuple)):
        size += sum(deep_size(v, seen) for v in value)
    return size


def child(argv: list[str]) -> None:
    from corpus_tree import txn
    from corpus_tree.importer import import_published

    parser = argparse.ArgumentParser(prog="python -m bench.import_commit _child")
    parser.add_argument("--tree", type=Path, required=True)
    parser.add_argument("--src", type=Path, required=True)
    args = parser.parse_args(argv)
    facts: dict[str, Any] = {}
    held: dict[str, Any] = {}
    stage_commit, plan = txn.Stage.commit, getattr(txn, "_plan", None)

    def watched_plan(*a: Any, **k: Any) -> Any:
        assert plan is not None
        journal = plan(*a, **k)
        facts["hwm_planned_mb"] = _status()["VmHWM"]
        held["journal"] = journal
        return journal

    def watched_commit(self: Any, **k: Any) -> Any:
        status = _status()
        facts.update(files=len(self.files), rss_enter_mb=status["VmRSS"], hwm_enter_mb=status["VmHWM"])
        if tracemalloc.is_tracing():
            current, peak = tracemalloc.get_traced_memory()
            facts.update(traced_enter_mb=_mb(current), traced_peak_before_mb=_mb(peak))
            tracemalloc.reset_peak()
        report = stage_commit(self, **k)
        facts["hwm_exit_mb"] = _status()["VmHWM"]
        if tracemalloc.is_tracing():
            facts["commit_traced_peak_mb"] = _mb(tracemalloc.get_traced_memory()[1])
        # counted after the commit (the counting's own memory would raise VmHWM)
        files = self.files
        facts["files_map_mb"] = _mb(deep_size(files)) if isinstance(files, dict) else 0.0
        journal = held.pop("journal", None)
        facts["journal_mb"] = None
        if isinstance(journal, dict) and isinstance(journal.get("ops"), list):
            facts.update(ops=len(journal["ops"]), new_dirs=len(journal["new_dirs"]),
                         journal_mb=_mb(deep_size(journal)))
        elif isinstance(journal, dict):
            facts.update(ops=journal.get("files"), new_dirs=journal.get("dirs"), journal_mb=_mb(deep_size(journal)))
        return report

    txn.Stage.commit = watched_commit  # type: ignore[method-assign]
    if plan is not None:
        txn._plan = watched_plan
    report = import_published(args.src, args.tree)
    facts.update(records=report.records_verified, vm_hwm_mb=_status()["VmHWM"])
    print(json.dumps(facts, sort_keys=True))


def _env(**values: str) -> Iterator[None]:
    import contextlib

    @contextlib.contextmanager
    def scope() -> Iterator[None]:
        old = {k: os.environ.get(k) for k in values}
        os.environ.update(values)
        try:
            yield
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    return scope()  # type: ignore[return-value]


def main(argv: list[str]) -> None:
    if argv[:1] == ["_child"]:
        child(argv[1:])
        return
    import subprocess

    from bench.scale.__main__ import default_fixtures
    from bench.scale.published import replicate_published

    parser = argparse.ArgumentParser(prog="python -m bench.import_commit", description=__doc__)
    parser.add_argument("--n", type=int, nargs="+", required=True)
    parser.add_argument("--corpora", type=Path, default=None)
    parser.add_argument("--fixtures", type=Path, default=None)
    parser.add_argument("--publishers", nargs="+", default=list(CORPORA), choices=list(CORPORA))
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "import_commit")
    parser.add_argument("--tracemalloc", action="store_true")
    args = parser.parse_args(argv)
    src_root = (args.corpora or args.fixtures or default_fixtures()).resolve()
    out = args.out.resolve()
    for n in args.n:
        for publisher in args.publishers:
            run = out / f"n{n}-{publisher}"
            if run.exists():
                shutil.rmtree(run)
            src = run / "published"
            replicate_published(src_root / CORPORA[publisher], src, n, perturb=args.corpora is None)
            env = {"PYTHONPATH": str(ROOT)}
            if args.tracemalloc:
                env["PYTHONTRACEMALLOC"] = "1"
            with _env(**env):
                done = subprocess.run([sys.executable, "-m", "bench.import_commit", "_child", "--tree",
                                       str(run / "tree"), "--src", str(src)], check=True, capture_output=True,
                                      text=True, cwd=str(ROOT))
            facts = json.loads(done.stdout.strip().splitlines()[-1])
            print(json.dumps({"n": n, "publisher": publisher, "load": os.getloadavg()[0], **facts},
                             sort_keys=True), flush=True)
            shutil.rmtree(run)


if __name__ == "__main__":
    main(sys.argv[1:])
