"""Peak memory of the scale harness's ingest: a fresh ingest, then a re-ingest (issue #13).

::

    python -m bench.ingest_memory --n 1 4 16 [--out DIR] [--code DIR] [--tracemalloc] [--keep]
                                  [--also DIR ...] [--per-publisher [--only PUBLISHER ...]] [--wrap "valgrind --tool=cachegrind --cache-sim=no ..."]

For each N: the fixture corpora are imported once into ``--out/base`` (as the scale harness does),
the replay child of ``python -m bench.scale _serve`` serves N replicas on loopback, and two ingest
children run against it, each in a fresh process started in ``--code`` (default: this checkout; give
an exported copy of another commit to compare): **fresh** (both adapters, Legilux then EUR-Lex, into
a new tree) and **re-ingest** (the same replay into that tree again: nothing changes, the shape of a
nightly run). The ingest clock is fixed, so two commits' trees can be compared with ``diff -r``
(``--keep`` keeps ``n<N>/fresh`` — hard links of the fresh tree, safe because a commit only renames
new files in — and ``n<N>/tree``, the re-ingested one).

``--per-publisher`` runs each publisher's ingest in its own fresh process, one after the other
(Legilux, then EUR-Lex, into the same tree): the product's shape, where ``lex ingest run`` takes one
publisher and the Dagster ``corpus_tree`` asset is partitioned by publisher, each partition a run of
its own. Each child's line is printed, then one line for the mode: ``vm_hwm_mb`` the children's
largest, ``cpu_s`` their sum, ``by_publisher`` each child's figures. Without it both publishers run
in one child (the shape of the scale harness's ``ingest`` stage).

Each child prints one JSON line: ``vm_hwm_mb`` (its own ``VmHWM``), ``cpu_s`` (user + system) and,
with ``--tracemalloc`` (``PYTHONTRACEMALLOC=1``: traced from the interpreter's start, so the
imports, ≈ 12 MB, are included; ``VmHWM`` is then inflated by the tracing and not comparable),
``traced_peak_mb`` per publisher (the peak is reset between them). ``--wrap`` prefixes the child's
command (e.g. cachegrind; set ``PYTHONHASHSEED=0`` in the environment for instruction counts).
The replay's own cost is not measured here (see ``python -m bench.scale``).

``--also DIR ...`` runs other checkouts' fresh ingest and re-ingest against the same replay, each right
after ``--code``'s, into ``n<N>/also<i>`` (each line tagged with its ``code``): two commits side by side,
at the same load, for one replay's start (``--only lu-legilux`` with ``--per-publisher``: one publisher's
children alone).

Internal: ``python -m bench.ingest_memory _ingest --run-dir DIR --url URL --n N [--reingest]
[--publisher P ...]`` (default: every publisher; the tree is created unless ``--reingest`` or it exists).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: the fixed ingest clock of every child (so that trees are comparable byte for byte)
NOW = _dt.datetime(2026, 1, 1, tzinfo=_dt.UTC)
MODES = ("fresh", "reingest")


def child(run_dir: Path, url: str, n: int, reingest: bool,
          publishers: Sequence[str] | None = None) -> dict[str, Any]:
    """One ingest of ``publishers`` (default: every one, in the harness's order) of the replay at
    ``url`` into ``run_dir/tree`` (created unless ``reingest`` or it exists: the first publisher's
    child of a fresh ``--per-publisher`` run creates it, the next ones add to it)."""
    import tracemalloc

    from bench.scale.stages import PUBLISHERS, RunDirs, ingest_publishers, vm_hwm_kb
    from corpus_tree import CorpusTree

    dirs = RunDirs(run_dir)
    held = reingest or (dirs.tree / "manifest.json").is_file()
    tree = CorpusTree.open(dirs.tree) if held else CorpusTree.create(dirs.tree)
    traced: dict[str, float] = {}

    def after(publisher: str) -> None:
        if tracemalloc.is_tracing():
            traced[publisher] = round(tracemalloc.get_traced_memory()[1] / 2**20, 2)
            tracemalloc.reset_peak()

    chosen = tuple(publishers or PUBLISHERS)
    ingest_publishers(tree, dirs, url, n, now=NOW, after=after, publishers=chosen)
    times = os.times()
    return {"mode": MODES[reingest], "n": n, "publishers": list(chosen),
            "vm_hwm_mb": round((vm_hwm_kb() or 0) / 1024, 2),
            "cpu_s": round(times.user + times.system, 2), "user_s": round(times.user, 2),
            "traced_peak_mb": traced or None}


def child_command(run_dir: Path, url: str, n: int, reingest: bool, wrap: list[str],
                  publisher: str | None = None) -> list[str]:
    """The ingest child's command: every publisher in one process, or only ``publisher``."""
    args = [sys.executable, "-m", "bench.ingest_memory", "_ingest", "--run-dir", str(run_dir), "--url", url,
            "--n", str(n)]
    chosen = ["--publisher", publisher] if publisher else []
    return [*wrap, *args, *(["--reingest"] if reingest else []), *chosen]


def combined(mode: str, n: int, parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One mode's figures from its per-publisher children: the largest ``VmHWM`` (what the machine
    must hold), the summed CPU, each child's own figures, and the load at the last one's end (children
    that printed none — traced, stopped after an enumeration — left out; none: ``stopped``)."""
    measured = [p for p in parts if "vm_hwm_mb" in p]  # a traced child stopped early prints no figures
    if not measured:
        return {"mode": mode, "n": n, "per_publisher": True, "stopped": True, "load": parts[-1]["load"]}
    return {"mode": mode, "n": n, "per_publisher": True,
            "vm_hwm_mb": max(p["vm_hwm_mb"] for p in measured),
            "cpu_s": round(sum(p["cpu_s"] for p in measured), 2),
            "user_s": round(sum(p["user_s"] for p in measured), 2),
            "by_publisher": {p["publishers"][0]: {"vm_hwm_mb": p["vm_hwm_mb"], "cpu_s": p["cpu_s"]} for p in measured},
            "load": parts[-1]["load"]}


def run_child(args: list[str], code: Path, env: dict[str, str], log: Path) -> dict[str, Any]:
    with log.open("ab") as err:
        done = subprocess.run(args, cwd=code, env=env, stdout=subprocess.PIPE, stderr=err, check=False)
    if done.returncode != 0:
        raise SystemExit(f"ingest child failed (exit {done.returncode}); see {log}")
    facts: dict[str, Any] = json.loads(done.stdout.decode().strip().splitlines()[-1])
    facts["load"] = round(os.getloadavg()[0], 2)
    return facts


def run_probe(argv: list[str], prog: str, probe: Any) -> bool:
    """In a watched child (``prog _probe --log F -- … _ingest …``, the ``wrap`` of :func:`measure`): call
    ``probe(log, ingest_argv)`` and say so; otherwise ``False`` (the caller is the parent)."""
    if not argv or argv[0] != "_probe":
        return False
    split = argv.index("--")
    parser = argparse.ArgumentParser(prog=f"{prog} _probe")
    parser.add_argument("--log", type=Path, required=True)
    args = parser.parse_args(argv[1:split])
    rest = argv[split + 1:]
    probe(args.log, rest[rest.index("_ingest"):])
    return True


def watched_parser(prog: str, doc: str | None, out: str) -> argparse.ArgumentParser:
    """The options every watched-ingest bench takes: ``--n``, ``--out``, ``--fixtures``."""
    parser = argparse.ArgumentParser(prog=prog, description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, nargs="+", default=[4, 16])
    parser.add_argument("--out", type=Path, default=Path(out))
    parser.add_argument("--fixtures", type=Path, default=None, help="default: $LEX_FIXTURES or ../shared/fixtures")
    return parser


def measure(n: int, out: Path, base: Path, code: Path, *, trace: bool | int, keep: bool,
            wrap: list[str], per_publisher: bool = False, only: Sequence[str] = (),
            also: Sequence[Path] = ()) -> list[dict]:
    """Serve N replicas and run a fresh ingest then a re-ingest against them (``trace``: traced,
    with that many frames per allocation if an int, one if ``True``; ``per_publisher``: each
    publisher's ingest in its own child, one after the other; ``only``: those publishers' children
    alone, with ``per_publisher``; ``also``: other checkouts whose fresh ingest and re-ingest run
    against the same replay right after ``code``'s, each into a tree of its own under
    ``n<N>/also<i>``: side by side, at the same load)."""
    from bench.scale.server import replay_server

    run_dir = out / f"n{n}"
    if run_dir.exists():
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True)
    log = out / "ingest_memory.log"
    results = []
    with replay_server(base, n, run_dir / "served.json", log, {}, ROOT) as server:
        for index, checkout in enumerate([code, *also]):
            where = run_dir
            if index:
                where = run_dir / f"also{index}"
                where.mkdir()
                shutil.copy(run_dir / "served.json", where / "served.json")
            env = {**os.environ, "PYTHONPATH": str(checkout)}
            if trace:
                env["PYTHONTRACEMALLOC"] = str(int(trace))
            tag = {"code": str(checkout)} if also else {}
            results += _fresh_and_again(where, server.url, n, checkout, env, log, keep=keep, wrap=wrap,
                                        per_publisher=per_publisher, only=only, tag=tag)
    if not keep:
        shutil.rmtree(run_dir)
    return results


def _fresh_and_again(run_dir: Path, url: str, n: int, code: Path, env: dict[str, str], log: Path, *, keep: bool,
                     wrap: list[str], per_publisher: bool, only: Sequence[str],
                     tag: dict[str, str]) -> list[dict[str, Any]]:
    """``code``'s fresh ingest then its re-ingest of the replay at ``url`` into ``run_dir/tree``, each line
    printed (with ``tag``) and returned."""
    from bench.scale.stages import PUBLISHERS

    results = []
    for reingest in (False, True):
        if reingest and keep:
            shutil.copytree(run_dir / "tree", run_dir / "fresh", copy_function=os.link)
        if not per_publisher:
            facts = {**run_child(child_command(run_dir, url, n, reingest, wrap), code, env, log), **tag}
            print(json.dumps(facts, sort_keys=True), flush=True)
            results.append(facts)
            continue
        parts = []
        for publisher in only or PUBLISHERS:
            part = {**run_child(child_command(run_dir, url, n, reingest, wrap, publisher), code, env, log), **tag}
            print(json.dumps(part, sort_keys=True), flush=True)
            parts.append(part)
        facts = {**combined(MODES[reingest], n, parts), **tag}
        print(json.dumps(facts, sort_keys=True), flush=True)
        results.append(facts)
    return results


def probed_runs(ns: list[int], out: Path, fixtures: Path | None, code: Path, *, trace: bool | int,
                log: Path, wrap: list[str], per_publisher: bool = False,
                only: Sequence[str] = ()) -> Iterator[tuple[int, list[dict[str, Any]]]]:
    """For each N in ascending order: the fresh ingest and the re-ingest run under the probe
    ``wrap`` (which appends its marks, one JSON object a line, to ``log``), and the marks read
    back (``per_publisher``: each publisher's ingest a child of its own). The fixture corpora are
    imported once into ``out/base``."""
    from bench.scale.__main__ import default_fixtures
    from bench.scale.corpus import prepare_base

    prepare_base((fixtures or default_fixtures()).resolve(), out / "base")
    for n in sorted(ns):
        log.unlink(missing_ok=True)
        measure(n, out, out / "base", code, trace=trace, keep=False, wrap=wrap, per_publisher=per_publisher,
                only=only)
        lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
        yield n, [json.loads(line) for line in lines]


def growth_pairs(seen: dict[tuple[int, str, str, str], dict[str, Any]],
                 ns: list[int]) -> Iterator[tuple[str, str, str, dict[str, Any], dict[str, Any], int]]:
    """Each mark ``(n, mode, publisher, mark)`` of the smallest N that the largest N has too:
    ``(mode, publisher, mark, small's event, large's event, replicas between them)``; nothing when
    only one N was run."""
    small, large = min(ns), max(ns)
    if small == large:
        return
    for (n, mode, publisher, mark), event in seen.items():
        other = seen.get((large, mode, publisher, mark))
        if n == small and other is not None:
            yield mode, publisher, mark, event, other, large - small


def main(argv: list[str]) -> None:
    if argv and argv[0] == "_ingest":
        parser = argparse.ArgumentParser(prog="python -m bench.ingest_memory _ingest")
        parser.add_argument("--run-dir", type=Path, required=True)
        parser.add_argument("--url", required=True)
        parser.add_argument("--n", type=int, required=True)
        parser.add_argument("--reingest", action="store_true")
        parser.add_argument("--publisher", action="append", default=None)
        args = parser.parse_args(argv[1:])
        print(json.dumps(child(args.run_dir, args.url, args.n, args.reingest, args.publisher), sort_keys=True))
        return
    from bench.scale.__main__ import default_fixtures
    from bench.scale.corpus import prepare_base

    parser = argparse.ArgumentParser(prog="python -m bench.ingest_memory", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--out", type=Path, default=Path("bench/out/ingest_memory"))
    parser.add_argument("--fixtures", type=Path, default=None, help="default: $LEX_FIXTURES or ../shared/fixtures")
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose ingest is measured")
    parser.add_argument("--tracemalloc", action="store_true", help="trace the children (VmHWM then inflated)")
    parser.add_argument("--keep", action="store_true", help="keep n<N>/fresh and n<N>/tree")
    parser.add_argument("--wrap", default="", help="command prefixed to each ingest child (e.g. valgrind …)")
    parser.add_argument("--per-publisher", action="store_true",
                        help="each publisher's ingest in its own child process (the product's shape)")
    parser.add_argument("--only", nargs="+", default=[], metavar="PUBLISHER",
                        help="with --per-publisher: only these publishers' children (e.g. lu-legilux)")
    parser.add_argument("--also", type=Path, nargs="+", default=[], metavar="DIR",
                        help="other checkouts measured against the same replay right after --code's (side by side)")
    args = parser.parse_args(argv)
    if args.only and not args.per_publisher:
        parser.error("--only needs --per-publisher")
    out = args.out.resolve()
    fixtures = (args.fixtures or default_fixtures()).resolve()
    base = out / "base"
    prepare_base(fixtures, base)
    for n in args.n:
        measure(n, out, base, args.code.resolve(), trace=args.tracemalloc, keep=args.keep,
                wrap=shlex.split(args.wrap), per_publisher=args.per_publisher, only=args.only,
                also=[a.resolve() for a in args.also])


if __name__ == "__main__":
    main(sys.argv[1:])
