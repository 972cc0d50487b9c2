"""``make bench-full``: the two full published corpora built cold, again unchanged, and again with one
Legilux work changed, through the Dagster jobs a data engineer runs, into a signed, verified,
promoted release.

    .venv/bin/python -m bench.bench_full --corpora DIR --out DIR [--judgments F] [--gate-policy F]
                                         [--publish]

``DIR`` (``--corpora``) holds the exported ``lex-corpus-lu-legilux/`` and ``lex-corpus-eu-eurlex/``
trees; it is only read. The build is the project's one code path: the ``evidence`` job (per
publisher: ``corpus_tree`` → ``provisions`` → ``search_index``) and the ``release`` job of
:func:`pipelines.definitions.build_definitions`, with the source ``published`` pointing at
``--corpora``. Each stage runs in a process of its own, as the default multiprocess executor
of ``dagster job execute`` runs each step in its own process (one process for a publisher's three
stages was measured and dropped: the derive's memory stayed in the process, so the EUR-Lex index
stage peaked at 1.2 GB and its CPU rose by a third): one Dagster run per stage
(``execute_in_process`` of the job with that one asset selected, in-process executor).

**Concurrency.** Within a build the two publishers' chains run side by side — LU's stages in order
in one thread of this process, EU's in another — as a backfill of the ``evidence`` job over both
partitions runs its two runs at once (``max_concurrent_runs: 2``, ``deploy/dagster.yaml``); the
release runs when both chains are done. The stage processes are forked from one **stage server**
per bench process, shared by its builds (:class:`StageServer`: a ``multiprocessing`` fork server that preloaded :data:`PRELOAD`
— Dagster, the project's definitions, the modules of Dagster's SQLite instance), as the
multiprocess executor forks its steps from a forkserver that preloaded the job's module; so a
stage process does not import Dagster again. Before the chains start, one process opens the
Dagster instance (``process[instance]``): a fresh SQLite instance creates its tables when first
opened, which two processes cannot do at once. A stage process's start and the read of its exit
status hold one lock (:meth:`StageServer.launch`): ``multiprocessing`` reads a forkserver child's
status once, and a start in one chain used to read the other chain's, which then saw 255. A stage
process writes its output to ``OUT/bench-stage-<group>.log``, echoed after the stage; a stage that
fails is a :class:`StageFailure` naming its exit (code or signal), its report, and the log's last lines.

**What each row measures.** A stage row: the CPU (user + system, its worker processes included)
and wall time measured around its run in its process, its peak RSS the process's own high-water
mark during the run (reset before each stage, after the previous stage's freed memory is handed
back) or its worker processes' when they set a new maximum (``RUSAGE_CHILDREN`` keeps one
maximum), ``started_s``/``ended_s`` its span from the build's start. A ``process[…]`` row per stage
process holds the rest of that process's CPU — its whole CPU as it reports at its end, less its
stages': the fork, what the server did not preload, Dagster's instance and run set-up — and a
``process[preload]`` row the stage server's CPU during the build (the kernel's account of the
server process: the preload in the first build, a fork per stage process, and what each stage
process spent after its report — its exit — in every build). So
the rows add up to the build's CPU (``cold_cpu_s`` … is their sum), while the chains overlap in time:
``cold_wall_s`` … is the build's elapsed time, not a sum of rows.

``OUT`` receives: ``trees/<publisher>`` (corpus trees and evidence), ``shards/<publisher>``,
``datasets/<publisher>/`` (``provisions.jsonl`` …), ``indexes/``, ``release/`` (the release root:
the promoted set), ``keys/release-signing.pub.pem`` (the trust root; a development key generated
there), ``dagster_home/`` (the runs, viewable with ``dagster dev``), ``bench-full.json``.

``LEX_BENCH_PROFILE=DIR`` profiles every stage a stage process runs (``cProfile`` of its main thread,
``DIR/<phase>-<asset>-<partition>.prof``; a profiled run's figures are inflated by the profiler;
``LEX_BENCH_PROFILE_CLOCK=cpu`` times with the process's CPU clock instead of the wall clock).
``LEX_BENCH_TIMERS=module:function,…`` reports the CPU seconds of each named function per stage
instead, without a profiler's overhead (:func:`cpu_timers`).

After the builds, ``bench-full.json`` also gets ``text_lint``: per publisher, the provisions each
check of the text lint (:mod:`derive.lint`) hits in the last dataset, and for EUR-Lex the anchor
churn at profile switches (``scripts/anchor_churn.py``); which hits are the publisher's own
wording is what ``scripts/lint_sources.py DATASET --tree TREE`` lists.

Three builds:

1. **cold**: ``trees``, ``shards``, ``datasets``, ``indexes``, ``release``, ``state`` are emptied first;
2. **no change**: the same jobs again over the same corpora;
3. **one work changed**: the jobs over ``OUT/changed-corpora``, a copy of the corpora made of hard
   links (no bytes copied; the importer refuses symbolic links) in which one Legilux work
   (:data:`CHANGED_WORK`) is a real copy with one more version: a record copied from its latest version,
   valid from :data:`NEW_VALID_FROM`, re-hashed with the published recipe, whose body is the
   latest body with one word changed (and the latest version closed at that date) — a new
   version at the publisher, the ordinary nightly change.

``--phases onechange`` alone is preceded by an unrecorded **reset** build over the published corpora
(:func:`reset_first`): ``OUT`` may already hold the one-change build, which built again would find
nothing changed. A stage process first freezes what it inherited from the stage server
(:func:`_freeze_inherited`), so no collection in it walks the preload's objects.

The release gate: ``--judgments`` (default ``evals/full_judgments_tuning.json`` when it exists, otherwise
the fixture judgments ``evals/retrieval_judgments.json`` restricted to the cases whose judged works
are all present in the trees, written to ``OUT/judgments-restricted.json``) and ``--gate-policy``
(default: none with full judgments; with the restricted fixture judgments
``bench/full-corpus-gates.json``, an explicit override of the thresholds the fixture judgments
cannot meet on the full corpora, recorded in the signed report and in ``bench-full.json``).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from legal.errors import LexError
from pipelines.preload import STEP_PRELOAD

ROOT = Path(__file__).resolve().parents[1]
PUBLISHERS = ("lu-legilux", "eu-eurlex")
FULL_JUDGMENTS = ROOT / "evals" / "full_judgments_tuning.json"  # the release gate set (the holdout split is for reporting)
FIXTURE_JUDGMENTS = ROOT / "evals" / "retrieval_judgments.json"
FULL_CORPUS_GATES = ROOT / "bench" / "full-corpus-gates.json"
CHANGED_WORK = "rmin-2024-07-18-a293"  # a small Legilux work, also in the fixtures
NEW_VALID_FROM = "2026-12-01"
FRESH = ("trees", "shards", "datasets", "derived", "indexes", "release", "release-staging", "state", "keys",
         "changed-corpora", "dagster_home")
#: (job, asset) per stage, in the order a single-node run materialises them
STAGES = [("evidence", "corpus_tree"), ("evidence", "provisions"), ("evidence", "search_index")]
PASSPHRASE = "lex-development-only"


# -- one stage in a child process ---------------------------------------------------------------


def _usage() -> tuple[float, float]:
    """(CPU seconds of this process and of its waited-for children, their peak RSS in MB)."""
    import resource

    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return (own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime,
            max(own.ru_maxrss, kids.ru_maxrss) / 1024)


def _own_peak_reset() -> None:
    """Start a stage's own peak afresh: free what the previous stage left (a collection, then
    glibc's ``malloc_trim`` hands freed heap back), and reset the kernel's high-water mark of this
    process to its current RSS (``/proc/self/clear_refs``: 5). Where either is unavailable the peak
    stays the process's since start (an upper bound)."""
    import gc

    from legal.heap import release_free_heap

    gc.collect()
    release_free_heap()
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def _own_peak_mb() -> float:
    """This process's high-water RSS (``VmHWM``) in MB, since the last :func:`_own_peak_reset`."""
    import resource

    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _children_peak_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def _stop_forkserver() -> None:
    """Stop this process's multiprocessing fork server, if a stage started one (the derive worker
    pools), and wait for it: its workers' CPU then counts in ``RUSAGE_CHILDREN`` of the stage that
    ran them, not of the whole child at its exit. The next pool starts a new one."""
    import multiprocessing.forkserver as forkserver

    server: Any = getattr(forkserver, "_forkserver", None)
    if server is not None and getattr(server, "_forkserver_pid", None) is not None:
        server._stop()


def run_stage_child(spec: dict[str, Any]) -> int:
    """(In the child.) Execute the given ``stages`` (``[job, asset, partition]``, one Dagster run each,
    in order; the first failure stops) and write what each reported, with its CPU and wall time
    measured in this process (``resource.getrusage``: the process and its finished children)."""
    os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "1")
    import dagster as dg

    from pipelines.definitions import build_definitions
    from pipelines.settings import LexSettings

    stages = spec.get("stages") or [[spec["job"], spec["asset"], spec["partition"]]]
    decided = _decided_from_state(spec, stages)
    if decided is not None:
        Path(spec["report"]).write_text(json.dumps(decided, default=str))
        return 0
    defs = build_definitions(executor="in_process", settings=LexSettings(**spec["settings"]), automation="off")
    instance = dg.DagsterInstance.get()
    reports: list[dict[str, Any]] = []
    timers = cpu_timers(os.environ.get(TIMERS_ENV, ""))
    for job_name, asset, partition in stages:
        for totals in timers.values():
            totals[:] = [0.0, 0]
        _own_peak_reset()
        kids_before = _children_peak_mb()
        cpu, _rss = _usage()
        started = time.monotonic()
        job = defs.resolve_job_def(job_name)
        profiler = _profiler()
        result = job.execute_in_process(partition_key=partition, instance=instance,
                                        asset_selection=[dg.AssetKey(asset)], raise_on_error=False,
                                        run_config={"loggers": {"console": {"config": {"log_level": "WARNING"}}}},
                                        tags={"lex/run": "bench-full", "lex/phase": spec["phase"]})
        _stop_forkserver()
        after, _rss = _usage()
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(Path(os.environ[PROFILE_ENV]) / f"{spec['phase']}-{asset}-{partition or 'all'}.prof")
        # the stage's own peak, and its workers' when one of them set a new high for the child's
        # finished children (the kernel keeps one maximum over all of them)
        for name, (seconds, calls) in timers.items():
            if calls:
                print(f"timer {spec['phase']} {asset}[{partition}] {name}: {seconds:.3f} CPU-s, {int(calls)} calls",
                      file=sys.stderr, flush=True)
        kids = _children_peak_mb()
        rss = max(_own_peak_mb(), kids if kids > kids_before else 0.0)
        meta: dict[str, Any] = {}
        for event in result.get_asset_materialization_events():
            mat = event.step_materialization_data.materialization
            label = mat.asset_key.to_user_string() + (f"[{mat.partition}]" if mat.partition else "")
            meta[label] = {k: _plain(v.value) for k, v in mat.metadata.items()}
        checks = {c.check_name: c.passed for c in result.get_asset_check_evaluations()}
        errors = [f.step_failure_data.error.to_string()[-3000:] for f in result.get_step_failure_events()
                  if f.step_failure_data.error is not None]
        reports.append({"success": result.success, "metadata": meta, "checks": checks, "errors": errors,
                        "cpu_s": after - cpu, "wall_s": time.monotonic() - started, "peak_rss_mb": rss})
        if not (result.success and all(checks.values())):
            break
    total, _rss = _usage()  # the whole process: its start-up after the fork, its stages, their workers
    import resource

    document = {"stages": reports, "process_cpu_s": total,
                "process_peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    Path(spec["report"]).write_text(json.dumps(document, default=str))
    return 0 if all(r["success"] and all(r["checks"].values()) for r in reports) else 1


#: a directory: each stage run by a stage process is profiled (``cProfile``, its main thread; the
#: figures of a profiled run are inflated by the profiler) into ``<phase>-<asset>-<partition>.prof``
PROFILE_ENV = "LEX_BENCH_PROFILE"
#: ``cpu``: the profiler's clock is the process's CPU time (``time.process_time``) instead of the wall
#: clock, so that waits on the disk (an ``unlink`` behind writeback) do not pass for work
PROFILE_CLOCK_ENV = "LEX_BENCH_PROFILE_CLOCK"


#: ``module:function`` or ``module:Class.method`` names, comma-separated: each stage a stage process
#: runs reports the CPU seconds (``time.process_time``: this process, not its workers) and calls
#: of each, inclusive, to its log (echoed after the stage) — a cheap breakdown without a profiler's
#: per-call overhead. A name is patched where it is defined, so only callers that look it up there
#: at call time (the module's own functions, a function-local ``from … import``) are counted.
TIMERS_ENV = "LEX_BENCH_TIMERS"


def cpu_timers(names: str) -> dict[str, list[float]]:
    """Wrap each of ``names`` (:data:`TIMERS_ENV`) with a CPU timer; ``{name: [seconds, calls]}``,
    filled as they run."""
    import functools
    import importlib

    found: dict[str, list[float]] = {}
    for name in filter(None, (n.strip() for n in names.split(","))):
        module_name, _, attribute = name.partition(":")
        owner: Any = importlib.import_module(module_name)
        *path, leaf = attribute.split(".")
        for part in path:
            owner = getattr(owner, part)
        original = getattr(owner, leaf)
        totals = found[name] = [0.0, 0]

        def timed(*args: Any, _original: Any = original, _totals: list[float] = totals, **kwargs: Any) -> Any:
            started = time.process_time()
            try:
                return _original(*args, **kwargs)
            finally:
                _totals[0] += time.process_time() - started
                _totals[1] += 1

        setattr(owner, leaf, functools.wraps(original)(timed))
    return found


def _profiler() -> Any:
    """A started ``cProfile.Profile`` when :data:`PROFILE_ENV` names a directory, else ``None``."""
    if not os.environ.get(PROFILE_ENV):
        return None
    import cProfile

    Path(os.environ[PROFILE_ENV]).mkdir(parents=True, exist_ok=True)
    clock = os.environ.get(PROFILE_CLOCK_ENV, "")
    profiler = cProfile.Profile(time.process_time) if clock == "cpu" else cProfile.Profile()
    profiler.enable()
    return profiler


def _decided_from_state(spec: dict[str, Any], stages: list[Any]) -> dict[str, Any] | None:
    """(In the child, before Dagster's instance or any run is opened.) The report of a stage that
    has nothing to do, decided from its stage state (:func:`pipelines.currency.stage_current`,
    the questions the step itself asks first), or ``None``: the stage runs. A build's launcher
    does not start a run for a step whose inputs did not change, as Dagster's automation does not
    launch one for an asset whose parents' data versions did not change."""
    import resource

    from legal.ids import Publisher
    from pipelines.currency import stage_current
    from pipelines.settings import LexSettings

    if len(stages) != 1 or stages[0][2] is None or spec.get("decide") is False:
        return None
    _job, asset, partition = stages[0]
    cpu, _rss = _usage()
    started = time.monotonic()
    if not stage_current(LexSettings(**spec["settings"]), asset, Publisher.parse(partition)):
        return None
    after, _rss = _usage()
    label = f"{asset}[{partition}]"
    own = resource.getrusage(resource.RUSAGE_SELF)
    report = {"success": True, "checks": {}, "errors": [], "cpu_s": after - cpu,
              "wall_s": time.monotonic() - started, "peak_rss_mb": _own_peak_mb(),
              "metadata": {label: {"skipped": "inputs unchanged (decided from the stage state: no run opened)"}}}
    return {"stages": [report], "process_cpu_s": after,
            "process_peak_rss_mb": own.ru_maxrss / 1024}


def _freeze_inherited() -> None:
    """(First thing in a child forked from the preloaded server.) Move every object the child
    inherited (the preload: Dagster, the definitions, pandas…) to the collector's permanent
    generation (``gc.freeze``, a list splice that touches no object): no collection in the child
    walks them again. Without it the full collection of :func:`_own_peak_reset` before each stage,
    and any full collection a stage triggers, visit the ≈ 10⁶ inherited objects and write their
    collector headers — CPU, and copy-on-write faults of every page holding one (measured: a forked
    child's start 0.39 → 0.24 CPU-s, 25.6k → 11.8k minor faults). Objects the child creates are
    collected as before; the inherited ones are the modules' and live as long as the process."""
    import gc

    gc.freeze()


def _instance_process(report: str) -> None:
    """(In a child forked from the preloaded server.) Open the Dagster instance of ``DAGSTER_HOME``
    once before the stage processes run side by side: a fresh SQLite instance creates its tables
    when first opened, and two processes doing that at once collide (``table … already exists``).
    A deployment's daemon or webserver has opened it before any run starts; this is that step."""
    import resource

    import dagster as dg

    _freeze_inherited()

    dg.DagsterInstance.get().dispose()
    own = resource.getrusage(resource.RUSAGE_SELF)
    Path(report).write_text(json.dumps({"stages": [], "process_cpu_s": own.ru_utime + own.ru_stime,
                                        "process_peak_rss_mb": own.ru_maxrss / 1024}))


def _stage_process(spec: dict[str, Any]) -> None:
    """(In a child forked from the preloaded server.) One stage process: :func:`run_stage_child`,
    its standard output and error written to ``spec["log"]`` when given (the bench echoes the log
    after the stage, and names its last lines if the stage fails)."""
    _freeze_inherited()
    if spec.get("log"):
        sys.stdout.flush()
        sys.stderr.flush()
        fd = os.open(spec["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
    sys.exit(run_stage_child(spec))


def exit_meaning(code: int) -> str:
    """A stage process's exit code in words: a negative code is the signal that ended it; 255 is
    also what ``multiprocessing`` reports when a forkserver child's exit status was lost (the status
    pipe ended without it: the server gone, or the status read elsewhere — see
    :meth:`StageServer.launch`)."""
    if code < 0:
        import signal

        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    if code == 255:
        return "exit 255 (also what multiprocessing reports when a forkserver child's status is lost)"
    return f"exit {code}"


class StageFailure(LexError):
    """A stage process of the bench failed: its exit (code or signal), what its report said, and
    the last lines it wrote (:func:`_stage_process`'s log)."""

    family = "bench"
    default_code = "stage_failed"

    @classmethod
    def of(cls, stage: str, phase: str, code: int, *, report: str, log: Path | None,
           lines: int = 20) -> StageFailure:
        tail = ""
        if log is not None and log.is_file():
            last = log.read_text(errors="replace").splitlines()[-lines:]
            tail = "; its last lines:\n" + "\n".join(f"  | {line}" for line in last) if last else "; its log is empty"
        return cls(f"bench-full: stage {stage} ({phase}) failed: {exit_meaning(code)}, report {report}{tail}",
                   subject=stage)


def _plain(value: Any) -> Any:
    if isinstance(value, (str, int, float, bool, list, dict)) or value is None:
        return value
    return str(value)


def _du(paths: list[Path]) -> int:
    total = 0
    for path in paths:
        if path.is_file():
            total += path.stat().st_size
            continue
        for dirpath, _dirs, files in os.walk(path):
            for name in files:
                p = Path(dirpath) / name
                if not p.is_symlink():
                    total += p.stat().st_size
    return total


def stage_outputs(out: Path, asset: str, partition: str | None) -> list[Path]:
    if asset == "corpus_tree":
        return [out / "trees" / str(partition)]
    if asset == "provisions":
        return [out / "datasets" / str(partition), out / "shards" / str(partition)]
    if asset == "search_index":
        return [out / "indexes" / f"{partition}.sqlite", out / "indexes" / f"{partition}.stamp.json"]
    return [out / "release"]


#: What the stage server imports once (``multiprocessing.set_forkserver_preload``), so a stage
#: process forked from it starts without importing it again: the multiprocess executor's step
#: preload (:data:`pipelines.preload.STEP_PRELOAD`: Dagster, the definitions, the SQLite
#: instance's modules) and this module. A module that cannot be imported is skipped by the server.
PRELOAD = [*STEP_PRELOAD, "bench.bench_full"]


def _stage_entry(target: Any, args: tuple[Any, ...]) -> None:
    """(In a stage process.) ``target(*args)`` with SIGTERM at its default and not blocked: a fork
    server inherits the signal dispositions and mask of the process that started it, and one started while SIGTERM was ignored
    (as a test runner's worker, or a shell's background job, can leave it) forked stages that ignored
    it — a stage stopped by SIGTERM then ran on, or reported exit 0."""
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})  # nor blocked (the mask is inherited too)
    target(*args)


class StageServer:
    """The parent of the bench's stage processes: a multiprocessing fork server that preloaded
    :data:`PRELOAD` (started with the first stage, stopped by :meth:`close`), one per bench
    process, so the preload is paid once however many builds it runs (as a deployment's
    multiprocess executor keeps its forkserver). Its CPU — the preload, then a fork per stage
    process, and what each stage process spent after reporting its own CPU (its exit) — is read
    from the kernel's account of the server process (``/proc/<pid>/stat``) by :meth:`own_cpu`,
    so each build is charged what the server did during it; where that account is missing,
    :meth:`close` gives the whole:
    this process's finished children's CPU gained since :meth:`__init__` (the server, and
    through it the stage processes it forked and reaped) less the stage processes' own totals."""

    def __init__(self, preload: list[str] | None = None) -> None:
        import multiprocessing
        import threading

        # a fork server this process already runs (a derive worker pool's, a test's) was started with
        # another preload: stop it, and the first stage starts this server's own
        _stop_forkserver()
        self.context = multiprocessing.get_context("forkserver")
        self.context.set_forkserver_preload(PRELOAD if preload is None else preload)
        self.started = _children_cpu()
        self.children_cpu = 0.0
        self.charged = 0.0  # the server's own CPU already charged to a build (:meth:`charge`)
        #: held while a stage process starts and while its exit status is read (:meth:`launch`)
        self.status_lock = threading.Lock()

    def run(self, spec: dict[str, Any], entry: str = "_stage_process") -> int:
        import importlib

        # by the module's name (under ``python -m`` this module is ``__main__``, which the server lacks)
        target = getattr(importlib.import_module("bench.bench_full"), entry)
        return self.launch(target, (spec,) if entry == "_stage_process" else (spec["report"],),
                           f"stage {spec['report']}")

    def launch(self, target: Any, args: tuple[Any, ...], name: str) -> int:
        """Start ``target(*args)`` in a process forked by the server, wait for its end, and return
        its exit code (negative: the signal that ended it).

        A forkserver child's exit status reaches this process once, as a few bytes on a pipe that
        the server then closes; ``multiprocessing`` reads it in ``Popen.poll``, which a join calls
        and which every ``Process.start`` calls for every live child (``process._cleanup``). The
        publishers' chains start and join their stage processes from two threads, so without a
        lock a start in one thread could read the status of the other thread's process while that
        thread's join was between its check and its read: the join then read the closed pipe's
        end and reported **255** for a process that had exited 0 (what the no-change build of the
        last session met, after a skipped stage's report). So a start, and the read of a status,
        hold :attr:`status_lock`; the wait for a process's end (its pipe readable) does not. (CPython
        gh-130895; ADR 0049.)"""
        from multiprocessing.connection import wait

        with self.status_lock:
            process = self.context.Process(target=_stage_entry, args=(target, args), name=name)
            process.start()
        wait([process.sentinel])  # readable: the status is there, or the server is gone; nothing read
        with self.status_lock:
            process.join()  # reads the status, unless a start above read it first
        return int(process.exitcode if process.exitcode is not None else 1)

    def own_cpu(self) -> float | None:
        """The server's CPU so far not reported by a stage process (0 before it started;
        ``None`` without a ``/proc`` account of it): its own user and system time, plus its
        reaped children's (the stage processes it forked) less what they reported at their end
        — so what a stage process spends after its report (its exit, freeing its heap) counts."""
        import multiprocessing.forkserver as forkserver

        server: Any = getattr(forkserver, "_forkserver", None)
        pid = getattr(server, "_forkserver_pid", None) if server is not None else None
        if pid is None:
            return 0.0
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return None
        ticks = sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
        return ticks / os.sysconf("SC_CLK_TCK") - self.children_cpu

    def charge(self) -> float | None:
        """The server's CPU since the last charge (the first includes the preload)."""
        now = self.own_cpu()
        if now is None:
            return None
        spent, self.charged = now - self.charged, now
        return spent

    def close(self) -> float:
        """Stop the server; its own CPU not yet charged (all of it when never charged)."""
        _stop_forkserver()  # waits for the server, which reaped every stage process it forked
        return _children_cpu() - self.started - self.children_cpu - self.charged


def _children_cpu() -> float:
    import resource

    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return kids.ru_utime + kids.ru_stime


def run_stages(out: Path, phase: str, stages: list[tuple[str, str, str | None]],
               settings: dict[str, Any], server: StageServer, origin: float) -> list[dict[str, Any]]:
    """Run ``stages`` (``(job, asset, partition)``, one Dagster run each, in order) in one stage
    process forked from ``server``, as the multiprocess executor of ``dagster job execute`` forks
    a step's process from its preloaded forkserver. A row per stage: its CPU time (user + system,
    its worker processes included) and wall time measured around its run in the child, its peak
    RSS as the child's own high-water mark during the run (reset before it) or its workers' new
    maximum, its start and end in seconds from ``origin`` (the phase's start); and a
    ``process[…]`` row with the rest of the child's CPU (its whole CPU, reported by itself at its
    end, less its stages': the fork, the imports not preloaded, Dagster's instance and run set-up),
    so that the rows add up to the whole CPU of the build."""
    group = stages[0][2] or stages[0][1]
    report = out / f"bench-stage-{group}.json"
    log = out / f"bench-stage-{group}.log"
    spec = {"stages": [list(s) for s in stages], "settings": settings, "report": str(report), "phase": phase,
            "log": str(log)}
    load = os.getloadavg()[0]
    started = time.monotonic()
    report.unlink(missing_ok=True)
    code = server.run(spec)
    wall = time.monotonic() - started
    document: dict[str, Any] = json.loads(report.read_text()) if report.is_file() else {}
    report.unlink(missing_ok=True)
    label = f"{stages[0][1]}[{group}]" if len(stages) == 1 and stages[0][2] else str(group)
    if code != 0 or len(document.get("stages", [])) != len(stages):
        raise StageFailure.of(label, phase, code, report=report_state(document, len(stages)), log=log)
    _echo(log)
    outcomes: list[dict[str, Any]] = document.get("stages", [])
    server.children_cpu += float(document.get("process_cpu_s", 0.0))
    rows: list[dict[str, Any]] = []
    at = started - origin
    for (_job, asset, partition), outcome in zip(stages, outcomes, strict=False):
        name = f"{asset}[{partition}]" if partition else asset
        if not outcome.get("success") or not all(outcome.get("checks", {}).values()):
            for error in outcome.get("errors", []):
                print(error, file=sys.stderr)
            raise StageFailure.of(name, phase, code, report=report_state(document, len(stages)), log=None)
        meta = outcome["metadata"].get(name, {})
        row = {"name": name, "phase": phase, "wall_s": round(outcome["wall_s"], 2),
               "cpu_s": round(outcome["cpu_s"], 2), "peak_rss_mb": round(outcome["peak_rss_mb"], 1),
               "output_mb": round(_du(stage_outputs(out, asset, partition)) / 1e6, 1), "items": _items(asset, meta),
               "skipped": bool(meta.get("skipped")), "load_avg": [round(load, 2), round(os.getloadavg()[0], 2)],
               "started_s": round(at, 2), "ended_s": round(at + outcome["wall_s"], 2)}
        at += outcome["wall_s"]
        if asset == "artifact_set":
            row["release"] = {k: meta.get(k) for k in ("set_id", "promoted", "report_passed", "failed_gates",
                                                       "metrics", "development_key")}
        if asset == "provisions":
            row["works_derived"] = meta.get("works_derived_in_step")
            row["works_copied"] = meta.get("works_copied_in_step")  # rows copied from the previous shard output
        print(f"  {phase:<9} {name:<26} wall {row['wall_s']:>8.1f} s  CPU {row['cpu_s']:>8.1f} s  "
              f"RSS {row['peak_rss_mb']:>7.1f} MB  out {row['output_mb']:>9.1f} MB  items {row['items']}"
              f"{'  (skipped)' if row['skipped'] else ''}", flush=True)
        rows.append(row)
    rest = {"name": f"process[{group}]", "phase": phase, "wall_s": round(wall - sum(r["wall_s"] for r in rows), 2),
            "cpu_s": round(float(document["process_cpu_s"]) - sum(r["cpu_s"] for r in rows), 2),
            "peak_rss_mb": round(float(document.get("process_peak_rss_mb", 0.0)), 1),
            "output_mb": 0.0, "items": None, "skipped": False, "process": True,
            "load_avg": [round(load, 2), round(os.getloadavg()[0], 2)],
            "started_s": round(started - origin, 2), "ended_s": round(started - origin + wall, 2)}
    print(f"  {phase:<9} {rest['name']:<26} wall {rest['wall_s']:>8.1f} s  CPU {rest['cpu_s']:>8.1f} s  "
          "(fork, start-up)", flush=True)
    return [*rows, rest]


def report_state(document: dict[str, Any], expected: int) -> str:
    """What a stage process's report says, in words, for :class:`StageFailure`."""
    if not document:
        return "missing"
    found = document.get("stages", [])
    failed = [r for r in found if not (r.get("success") and all(r.get("checks", {}).values()))]
    if failed:
        return f"written, failed (checks {failed[0].get('checks')}, {len(failed[0].get('errors', []))} errors)"
    if len(found) != expected:
        return f"written, {len(found)} of {expected} stages"
    return "written, success"


def _echo(log: Path) -> None:
    """Copy a finished stage process's log to this process's standard error, then remove it."""
    if log.is_file():
        text = log.read_text(errors="replace")
        if text:
            sys.stderr.write(text if text.endswith("\n") else text + "\n")
            sys.stderr.flush()
        log.unlink()


def _open_instance(out: Path, phase: str, server: StageServer, origin: float) -> dict[str, Any]:
    """A ``process[instance]`` row: :func:`_instance_process` run from ``server``."""
    report = out / "bench-stage-instance.json"
    report.unlink(missing_ok=True)
    started = time.monotonic()
    code = server.run({"report": str(report)}, entry="_instance_process")
    wall = time.monotonic() - started
    if code != 0 or not report.is_file():
        raise StageFailure.of("process[instance]", phase, code, report="written" if report.is_file() else "missing",
                              log=None)
    document = json.loads(report.read_text())
    report.unlink()
    server.children_cpu += float(document["process_cpu_s"])
    return {"name": "process[instance]", "phase": phase, "wall_s": round(wall, 2),
            "cpu_s": round(float(document["process_cpu_s"]), 2),
            "peak_rss_mb": round(float(document["process_peak_rss_mb"]), 1), "output_mb": 0.0, "items": None,
            "skipped": False, "process": True, "load_avg": [round(os.getloadavg()[0], 2)] * 2,
            "started_s": round(started - origin, 2), "ended_s": round(started - origin + wall, 2)}


def run_phase(out: Path, phase: str, settings: dict[str, Any], done: set[str],
              server: StageServer | None = None) -> tuple[list[dict[str, Any]], float]:
    """One build: the publishers' stage chains (``corpus_tree`` → ``provisions`` →
    ``search_index``, each stage in its own process, in order) run concurrently, one chain per
    publisher — as a backfill of the ``evidence`` job over both partitions runs its two runs side
    by side (``max_concurrent_runs`` = 2, ``deploy/dagster.yaml``) — then the release, which
    needs both. Returns the rows (a chain's rows in publisher order, then the release's, then a
    ``process[preload]`` row: the stage server's own CPU during this build — the preload in the
    first build of ``server``, its forks after that; a phase given no server starts and stops
    its own) and the phase's elapsed wall time."""
    from concurrent.futures import ThreadPoolExecutor

    own = server is None or server.own_cpu() is None
    if server is None:
        server = StageServer()
    origin = time.monotonic()
    load = os.getloadavg()[0]

    def chain(publisher: str) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        for job, asset in STAGES:
            if asset not in done:
                found.extend(run_stages(out, phase, [(job, asset, publisher)], settings, server, origin))
        return found

    rows: list[dict[str, Any]] = []
    try:
        rows.append(_open_instance(out, phase, server, origin))
        with ThreadPoolExecutor(max_workers=len(PUBLISHERS), thread_name_prefix="chain") as pool:
            chains = [pool.submit(chain, publisher) for publisher in PUBLISHERS]
            for future in chains:
                rows.extend(future.result())
        rows.extend(run_stages(out, phase, [("release", "artifact_set", None)], settings, server, origin))
    finally:
        charged = None if own else server.charge()
        preload = server.close() if charged is None else charged
    wall = time.monotonic() - origin
    rows.append({"name": "process[preload]", "phase": phase, "wall_s": 0.0, "cpu_s": round(preload, 2),
                 "peak_rss_mb": 0.0, "output_mb": 0.0, "items": None, "skipped": False, "process": True,
                 "load_avg": [round(load, 2), round(os.getloadavg()[0], 2)], "started_s": 0.0,
                 "ended_s": round(wall, 2)})
    print(f"  {phase:<9} {'process[preload]':<26} CPU {preload:>8.1f} s  (the stage server's imports); "
          f"phase wall {wall:.1f} s", flush=True)
    return rows, wall


def _items(asset: str, meta: dict[str, Any]) -> Any:
    if asset == "corpus_tree":
        return meta.get("versions")
    if asset in ("provisions", "search_index"):
        stamp = meta.get("stamp")
        if isinstance(stamp, dict):
            return int((stamp.get("stamp") or {}).get("count.provisions", 0)) or None
        return meta.get("provisions")
    metrics = meta.get("metrics")
    return len(metrics) if isinstance(metrics, dict) else None


# -- the one changed work ---------------------------------------------------------------------------


def changed_corpora(corpora: Path, dest: Path, work: str = CHANGED_WORK, new_valid_from: str = NEW_VALID_FROM) -> Path:
    """``dest`` with the EUR-Lex tree linked and the Legilux tree linked work by work, except ``work``,
    copied with one more version (see the module docstring). Nothing under ``corpora`` is written."""
    from legal.dotnet_json import published_record_sha256

    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    # the importer refuses symbolic links in a source tree: hard links (no bytes copied), falling
    # back to copies across filesystems; the changed work is a real copy (it is written to)
    shutil.copytree(corpora / "lex-corpus-eu-eurlex", dest / "lex-corpus-eu-eurlex", copy_function=_link)
    src_lu, lu = corpora / "lex-corpus-lu-legilux", dest / "lex-corpus-lu-legilux"
    shutil.copytree(src_lu, lu, copy_function=_link, ignore=lambda d, names: [work] if Path(d).name == "works" else [])
    shutil.copytree(src_lu / "works" / work, lu / "works" / work)
    versions = lu / "works" / work / "versions"
    latest = max((d for d in versions.iterdir() if (d / "fr.xml").is_file()), key=lambda d: d.name)
    record = json.loads((latest / "meta.json").read_bytes())
    body = (latest / "fr.xml").read_bytes()
    changed = body.replace(b" le ", b" ce ", 1)
    assert changed != body, f"no word to change in {latest}"
    new = versions / new_valid_from
    new.mkdir()
    (new / "fr.xml").write_bytes(changed)
    # the new state's identity: its dates, and the publisher URLs that carry the consolidation date
    # (the version identifier is recovered from them)
    old_from = str(record["valid_from"])
    text = json.dumps(record, ensure_ascii=False)
    text = text.replace(old_from, new_valid_from).replace(old_from.replace("-", ""), new_valid_from.replace("-", ""))
    record = json.loads(text)  # member order kept: the published recipe hashes the members in order
    record.update({"valid_from": new_valid_from, "publication_date": new_valid_from})
    record.pop("valid_to", None)
    for expr in record["expressions"]:
        expr["valid_from"] = new_valid_from
        expr.pop("valid_to", None)
        for obs in expr.get("observations", []):
            if str(obs.get("file", "")).endswith("fr.xml"):
                obs["sha256"] = hashlib.sha256(changed).hexdigest()
    _write_record(new / "meta.json", record, published_record_sha256)
    last = json.loads((latest / "meta.json").read_bytes())
    last["valid_to"] = new_valid_from
    for expr in last["expressions"]:
        expr["valid_to"] = new_valid_from
    _write_record(latest / "meta.json", last, published_record_sha256)
    return dest


def _link(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def _write_record(path: Path, record: dict[str, Any], recipe: Any) -> None:
    record["record_sha256"] = recipe(record)
    path.write_text(json.dumps(record, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


# -- judgments ------------------------------------------------------------------------------------


def restricted_judgments(source: Path, trees: Path, dest: Path) -> tuple[Path, int, int]:
    """The cases of ``source`` whose judged works are all present in ``trees`` (no-hit cases kept)."""
    present = {f"{p.name}:{w.name}" for p in trees.iterdir() if (p / "works").is_dir() for w in (p / "works").iterdir()}
    document = json.loads(source.read_bytes())
    cases = document["cases"]
    kept = [c for c in cases if all(r["work"] in present for r in c.get("relevant", []))]
    document["cases"] = kept
    document["title"] = f"{document.get('title', '')} (restricted to the works present in the full corpora)"
    dest.write_text(json.dumps(document, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return dest, len(kept), len(cases)


# -- the whole bench -----------------------------------------------------------------------------


def git_head() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


#: an unrecorded build over the published corpora, run first when ``--phases`` starts with ``onechange``
RESET = "reset"


def reset_first(phases: list[str]) -> list[str]:
    """``phases`` with :data:`RESET` first when they start with ``onechange``. ``OUT`` may hold the
    one-change build already (the last phase of ``make bench-full``, or an earlier ``--phases
    onechange``): building the same changed corpora again would find nothing changed, and the
    figure would be a no-change build's. The reset build (the published corpora: the changed work
    back to its published versions) puts ``OUT`` where a one-change build starts from — as after
    ``nochange`` — so repeated ``--phases onechange`` runs measure the same change; its rows are
    printed, not recorded, and it takes the stage server's preload (as ``cold`` does in the whole
    bench), so the recorded one-change rows hold no import of the preload. Pure."""
    return [RESET, *phases] if phases[:1] == ["onechange"] else list(phases)


def _total(rows: list[dict[str, Any]], key: str) -> float:
    return round(float(sum(r[key] for r in rows)), 2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stage", help=argparse.SUPPRESS)
    parser.add_argument("--corpora", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--judgments", type=Path, default=None)
    parser.add_argument("--gate-policy", type=Path, default=None)
    parser.add_argument("--built-at", default=_dt.datetime.now(_dt.UTC).date().isoformat())
    parser.add_argument("--phases", default="cold,nochange,onechange",
                        help="which builds to run (a later phase without the earlier ones reuses OUT; "
                             "onechange first: an unrecorded reset build before it, see reset_first)")
    parser.add_argument("--publish", action="store_true", help="write the table into bench/README.md")
    parser.add_argument("--no-text-lint", action="store_true",
                        help="leave out the text lint after the builds (minutes of CPU outside the builds' figures)")
    args = parser.parse_args(argv)
    if args.stage:
        return run_stage_child(json.loads(args.stage))
    try:
        return _main(args, parser)
    except StageFailure as error:
        print(error, file=sys.stderr)
        return 1


def _main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.corpora is None or args.out is None:
        parser.error("--corpora and --out are required")
    corpora, out = args.corpora.resolve(), args.out.resolve()
    for publisher in PUBLISHERS:
        if not (corpora / f"lex-corpus-{publisher}" / "manifest.json").is_file():
            parser.error(f"{corpora} holds no lex-corpus-{publisher}/manifest.json")
    phases = reset_first(args.phases.split(","))
    out.mkdir(parents=True, exist_ok=True)
    if "cold" in phases:
        for name in FRESH:
            target = out / name
            if target.is_symlink() or target.is_file():
                target.unlink()
            elif target.exists():
                shutil.rmtree(target)
    (out / "dagster_home").mkdir(exist_ok=True)
    (out / "dagster_home" / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    settings: dict[str, Any] = {"workdir": str(out), "source": "published", "fixtures_dir": str(corpora),
                                "datasets_dir": str(out / "datasets"), "built_at": args.built_at}
    judgments, gate_policy, note = args.judgments, args.gate_policy, ""
    if judgments is None and FULL_JUDGMENTS.is_file():
        judgments, note = FULL_JUDGMENTS, "full-corpus judgments"
    previous: dict[str, Any] = {}
    if (out / "bench-full.json").is_file():
        previous = json.loads((out / "bench-full.json").read_bytes())
    rows: list[dict[str, Any]] = list(previous.get("stages", [])) if "cold" not in phases else []
    rows = [r for r in rows if r["phase"] not in phases]
    walls: dict[str, float] = {k: v for k, v in dict(previous.get("phase_wall_s", {})).items()
                               if "cold" not in phases and k not in phases}
    # what every stage process inherits from the stage server (started with the first stage)
    os.environ.update({"DAGSTER_HOME": str(out / "dagster_home"), "DAGSTER_DISABLE_TELEMETRY": "1",
                       "LEX_SIGNING_PASSPHRASE": PASSPHRASE,
                       # runpy's notice when a stage process re-imports this module as its ``__mp_main__``
                       "PYTHONWARNINGS": ",".join(w for w in (os.environ.get("PYTHONWARNINGS"),
                                                              "ignore::RuntimeWarning:runpy") if w),
                       "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)})
    started = time.monotonic()
    print(f"bench-full: {corpora} → {out} (built at {args.built_at}, commit {git_head()})", flush=True)
    server = StageServer()  # one per bench process: its preload is paid once (the first build's row)
    try:
        for phase in phases:
            # the one changed work's corpora for its build, the published corpora for the others
            # (a no-change build after a one-change build reads the corpora again: a change back)
            settings["fixtures_dir"] = str(corpora)
            if phase == "onechange":
                changed_corpora(corpora, out / "changed-corpora")
                settings["fixtures_dir"] = str(out / "changed-corpora")
            done: set[str] = set()
            extra = 0.0
            if judgments is None:  # the trees exist once the first stage ran: restrict then
                before = time.monotonic()
                try:
                    for publisher in PUBLISHERS:
                        rows.extend(run_stages(out, phase, [("evidence", "corpus_tree", publisher)], settings,
                                               server, before))
                finally:
                    rows.append({"name": "process[preload-trees]", "phase": phase, "wall_s": 0.0,
                                 "cpu_s": round(server.charge() or 0.0, 2), "peak_rss_mb": 0.0, "output_mb": 0.0,
                                 "items": None, "skipped": False, "process": True, "load_avg": [0.0, 0.0]})
                restricted, kept, total = restricted_judgments(FIXTURE_JUDGMENTS, out / "trees",
                                                               out / "judgments-restricted.json")
                judgments = restricted
                note = f"fixture judgments restricted to the works present ({kept} of {total} cases)"
                if gate_policy is None:
                    gate_policy = FULL_CORPUS_GATES
                done = {"corpus_tree"}
                extra = time.monotonic() - before
            settings["judgments"] = str(judgments)
            settings["gate_policy"] = str(gate_policy) if gate_policy else ""
            found, wall = run_phase(out, phase, settings, done, server)
            if phase == RESET:  # brings OUT back to the published corpora: not a figure of the bench
                rows = [r for r in rows if r["phase"] != RESET]
                continue
            rows.extend(found)
            walls[phase] = round(wall + extra, 2)
            _write(out, rows, walls, judgments, gate_policy, note, args)
    finally:
        server.close()
    print(f"bench-full: done in {time.monotonic() - started:.0f} s", flush=True)
    result = _write(out, rows, walls, judgments, gate_policy, note, args,
                    None if args.no_text_lint else text_lint(out))
    print(json.dumps({k: v for k, v in result.items() if k != "stages"}, indent=2))
    if args.publish:
        publish(result)
    return 0


def text_lint(out: Path) -> dict[str, Any]:
    """Text-lint counts (provisions hit, per check) of each dataset, and the EU anchor churn."""
    import importlib.util

    from derive.lint import CHECKS, lint_dataset

    found: dict[str, Any] = {}
    for publisher in PUBLISHERS:
        dataset = out / "datasets" / publisher
        if not (dataset / "provisions.jsonl").is_file():
            continue
        report = lint_dataset(dataset)
        found[publisher] = {name: report.total(name) for name in CHECKS}
        if publisher == "eu-eurlex":
            spec = importlib.util.spec_from_file_location("anchor_churn", ROOT / "scripts" / "anchor_churn.py")
            if spec is not None and spec.loader is not None:
                module = importlib.util.module_from_spec(spec)
                sys.modules[spec.name] = module  # dataclasses resolve their module by name
                spec.loader.exec_module(module)
                found[publisher]["anchor_churn"] = module.anchor_churn(dataset, examples=0).churn
    return found


def _write(out: Path, rows: list[dict[str, Any]], walls: dict[str, float], judgments: Path | None,
           gate_policy: Path | None, note: str, args: argparse.Namespace,
           lint: dict[str, Any] | None = None) -> dict[str, Any]:
    cold = [r for r in rows if r["phase"] == "cold"]
    index_bytes = sum((out / "indexes" / f"{p}.sqlite").stat().st_size for p in PUBLISHERS
                      if (out / "indexes" / f"{p}.sqlite").is_file())
    loads = [x for r in rows for x in r["load_avg"]]
    release = next((r.get("release") for r in reversed(rows) if r.get("release")), None)
    result = {
        "git_head": git_head(), "built_at": args.built_at, "machine": {"cpus": os.cpu_count(),
                                                                        "python": sys.version.split()[0]},
        "stages": rows,
        # CPU: the sum of the rows; wall: the phase's elapsed time (the chains overlap)
        "cold_cpu_s": _total(cold, "cpu_s"), "cold_wall_s": walls.get("cold", 0.0),
        "nochange_cpu_s": _total([r for r in rows if r["phase"] == "nochange"], "cpu_s"),
        "nochange_wall_s": walls.get("nochange", 0.0),
        "onechange_cpu_s": _total([r for r in rows if r["phase"] == "onechange"], "cpu_s"),
        "onechange_wall_s": walls.get("onechange", 0.0),
        "phase_wall_s": walls,
        "max_peak_rss_mb": max((r["peak_rss_mb"] for r in rows), default=0),
        "index_mb": round(index_bytes / 1e6, 1),
        "load_avg": [min(loads, default=0), max(loads, default=0)],
        "judgments": str(judgments.relative_to(out) if judgments and judgments.is_relative_to(out)
                         else judgments.relative_to(ROOT) if judgments and judgments.is_relative_to(ROOT)
                         else judgments),
        "judgments_note": note,
        "gate_policy": (json.loads(gate_policy.read_bytes()) if gate_policy else "defaults"),
        "release": release,
        "changed_work": f"lu-legilux:{CHANGED_WORK}, new version {NEW_VALID_FROM}",
    }
    if lint is not None:
        result["text_lint"] = lint
    (out / "bench-full.json").write_text(json.dumps(result, indent=2) + "\n")
    return result


def table(result: dict[str, Any]) -> str:
    lines = ["| phase | stage | wall s | CPU s | peak RSS MB | output MB | items |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for r in result["stages"]:
        lines.append(f"| {r['phase']} | {r['name']}{' (skipped)' if r.get('skipped') else ''} | {r['wall_s']:,.1f} | "
                     f"{r['cpu_s']:,.1f} | {r['peak_rss_mb']:,.0f} | {r['output_mb']:,.1f} | {r['items'] or ''} |")
    cold = result["cold_cpu_s"] or 1
    lines += ["", "| figure | measured | target |", "|---|---:|---:|",
              f"| cold CPU / wall | {result['cold_cpu_s']:,.0f} s / {result['cold_wall_s']:,.0f} s | ≤ 600 s / ≤ 600 s |",
              f"| no change CPU (wall) | {result['nochange_cpu_s']:,.1f} s ({result['nochange_wall_s']:,.1f} s), "
              f"{100 * result['nochange_cpu_s'] / cold:.1f} % of cold | ≤ 5 % |",
              f"| one work changed CPU (wall) | {result['onechange_cpu_s']:,.1f} s ({result['onechange_wall_s']:,.1f} s), "
              f"{100 * result['onechange_cpu_s'] / cold:.1f} % of cold | ≤ 5 % |",
              f"| largest peak RSS of a stage | {result['max_peak_rss_mb']:,.0f} MB | ≤ 1,024 MB |",
              f"| both indexes | {result['index_mb']:,.1f} MB | ≤ 470 MB |",
              f"| load average (1 min) | {result['load_avg'][0]}–{result['load_avg'][1]} | |"]
    return "\n".join(lines)


def publish(result: dict[str, Any]) -> None:
    readme = ROOT / "bench" / "README.md"
    text = readme.read_text()
    begin, end = "<!-- bench-full:begin -->", "<!-- bench-full:end -->"
    block = (f"{begin}\n{table(result)}\n\nCommit {result['git_head']}, built at {result['built_at']}; "
             f"judgments: {result['judgments_note'] or result['judgments']}; gate policy: "
             f"{json.dumps(result['gate_policy'])}.\n{end}")
    if begin in text:
        head, rest = text.split(begin, 1)
        text = head + block + rest.split(end, 1)[1]
    else:
        text += "\n" + block + "\n"
    readme.write_text(text)


if __name__ == "__main__":
    sys.exit(main())
