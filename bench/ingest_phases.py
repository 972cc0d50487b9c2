"""The ingest's high-water RSS phase by phase, untraced (issue #13, mem31).

::

    python -m bench.ingest_phases --n 16 64 [--out DIR] [--code DIR] [--frames 10 [--top 12]] [--per-publisher]

Runs :mod:`bench.ingest_memory`'s fresh ingest and re-ingest of the scale harness's replay, each child
started through this module's probe, which at the end of each phase reads the process's ``VmHWM``
and ``VmRSS`` (and the heap's live and retained parts: ``_heap``) and resets the high-water mark to the current RSS (``/proc/self/clear_refs``: 5), so
that each phase's figure is the peak reached inside it. No collection and no ``malloc_trim`` is
done (the run's heap is left as it is); nothing is traced. The phases of each publisher's run:

- ``enumerate`` (the adapter's; for Legilux split into ``lu_catalogue`` — the catalogue's pages
  fetched and parsed; with the states made as the pages are read, ADR 0129, the states too —, ``lu_states`` —
  the states built, marked once the catalogue's rows are freed —, ``lu_files`` — the manifestation pages and their index —,
  ``lu_metadata``, ``lu_versions`` and ``enumerate``, the rest);
- ``spill`` (the listing pickled; a listing spilled as it is listed — EUR-Lex, ADR 0126 — has no
  ``spill`` mark: its ``enumerate`` covers both), ``scan`` (the tree's summaries), ``plan`` (the plan and the
  withdrawal guard);
- ``validate`` (the writer up to the first version), ``apply`` (to the last version observed),
  ``stage`` (the last version staged, the bodies and the manifest rendered: up to the commit),
  ``commit`` and ``end`` (the rest of the publisher's run).

With ``--frames F`` the children are traced (``PYTHONTRACEMALLOC=F``, so ``VmHWM`` is inflated) and
stop after the Legilux enumeration: at each mark a ``tracemalloc`` snapshot is grouped by holder as
:mod:`bench.ingest_holders` groups it, and the traced memory and peak are logged with it. ``--code``
runs another checkout's ingest (this file is the probe, run as a script). ``--per-publisher`` runs
each publisher's ingest in a child of its own (:mod:`bench.ingest_memory`'s option), so that each
publisher's phases start from a fresh process.

Printed: one JSON line per N, mode, publisher and phase (``hwm_mb``: the peak inside the phase,
``rss_mb``: the RSS at its end); then the phase holding each run's peak, and per phase the growth of
its peak and of the RSS at its end between the smallest and the largest N in **MB per replica**
(traced: also of the traced memory, and of its ``--top`` holders).

Internal: ``python -m bench.ingest_phases _probe --log FILE -- <the ingest child's command>``.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import json
import os
import re
import sys
import tempfile
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _status() -> tuple[int, int]:
    """``(VmHWM, VmRSS)`` of this process in kB."""
    hwm = rss = 0
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            hwm = int(line.split()[1])
        elif line.startswith("VmRSS:"):
            rss = int(line.split()[1])
    return hwm, rss


class _MallInfo2(ctypes.Structure):
    """glibc's ``struct mallinfo2`` (``malloc.h``)."""

    _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                     "fsmblks", "uordblks", "fordblks", "keepcost")]


_OBMALLOC = {"ob_arenas": r"# arenas allocated current\s*=\s*([\d,]+)",
             "ob_alloc": r"# bytes in allocated blocks\s*=\s*([\d,]+)",
             "ob_avail": r"# bytes in available blocks\s*=\s*([\d,]+)",
             "ob_total": r"\nTotal\s*=\s*([\d,]+)"}


def _heap() -> dict[str, Any]:
    """Live against retained heap, in bytes (ing39m): glibc's ``mallinfo2`` (``arena``: the main heap,
    ``uordblks`` of it in use, ``fordblks`` free, ``keepcost`` the free top a trim would return, ``hblkhd``
    mmapped blocks; absent off glibc), Python's small-object allocator (``sys._debugmallocstats``: ``ob_total``
    its arenas, ``ob_alloc`` in allocated blocks, ``ob_avail`` in free blocks of used pools),
    ``sys.getallocatedblocks()`` and the collector's object count."""
    out: dict[str, Any] = {"blocks": sys.getallocatedblocks(), "objects": len(gc.get_objects())}
    with contextlib.suppress(OSError, AttributeError):
        mallinfo2 = ctypes.CDLL(None).mallinfo2
        mallinfo2.restype = _MallInfo2
        info = mallinfo2()
        out.update({name: getattr(info, name) for name in ("arena", "hblkhd", "uordblks", "fordblks", "keepcost")})
    sys.stderr.flush()
    with tempfile.TemporaryFile() as tmp:
        saved = os.dup(2)
        os.dup2(tmp.fileno(), 2)
        try:
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        tmp.seek(0)
        text = tmp.read().decode()
    for key, pattern in _OBMALLOC.items():
        found = re.search(pattern, text)
        out[key] = int(found.group(1).replace(",", "")) if found else None
    return out


def _this_bench(name: str) -> Any:
    """The module ``name`` of this file's own directory (the probe runs another checkout's ingest, whose
    ``bench`` is the one on the path)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"_bench_{name}", Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def probe(log: Path, ingest_argv: list[str]) -> None:
    """Run the ingest child ``ingest_argv`` with its phases marked (see the module docstring)."""
    import bench.ingest_memory as ingest_memory
    import corpus_tree.txn as txn
    holders = _this_bench("ingest_holders").holders
    import publishers.ingest as ingest
    from publishers.legilux import adapter as lu

    state: dict[str, Any] = {"publisher": "?"}

    traced = tracemalloc.is_tracing()

    def mark(phase: str) -> None:
        hwm, rss = _status()
        event: dict[str, Any] = {"publisher": state["publisher"], "phase": phase, "hwm": hwm, "rss": rss,
                                 **_heap()}
        if traced:
            event["current"], event["peak"] = tracemalloc.get_traced_memory()
            snapshot = tracemalloc.take_snapshot()
            event["holders"] = holders(snapshot.traces._traces)  # type: ignore[attr-defined]
            del snapshot
        with log.open("a", encoding="utf-8") as out:
            out.write(json.dumps(event) + "\n")
        del event
        if traced:
            tracemalloc.reset_peak()
            if phase == "enumerate":  # traced: only the Legilux enumeration is looked at
                print(json.dumps({"mode": "traced", "stopped": "after the Legilux enumeration"}), flush=True)
                os._exit(0)
        with contextlib.suppress(OSError):
            Path("/proc/self/clear_refs").write_text("5")

    def after(phase: str, function: Any) -> Any:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            out = function(*args, **kwargs)
            mark(phase)
            return out
        return wrapped

    real_ingest = ingest.ingest

    def watched_ingest(adapter: Any, tree: Any, **kwargs: Any) -> Any:
        state["publisher"] = adapter.publisher.value
        mark("before")
        report = real_ingest(adapter, tree, **kwargs)
        mark("end")
        return report

    def before(phase: str, function: Any) -> Any:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            mark(phase)
            return function(*args, **kwargs)
        return wrapped

    real_paged = getattr(lu.LegiluxAdapter, "_paged", None)  # an adapter that reads its pages whole

    def watched_paged(self: Any, name: str, paging: Any, subject: str) -> Any:
        rows = real_paged(self, name, paging, subject)
        if name == "catalogue.rq":
            mark("lu_catalogue")
        return rows

    count_listing = ingest._count_listing

    def watched_count(*args: Any) -> None:
        mark("enumerate")
        count_listing(*args)

    class WatchedSpill(ingest.SpilledListing):  # type: ignore[misc,name-defined]
        def __init__(self, versions: Any, *args: Any, **kwargs: Any) -> None:
            whole = bool(versions)  # a listing spilled as it is listed is marked with its enumeration
            super().__init__(versions, *args, **kwargs)
            if whole:
                mark("spill")

    fetch_and_apply = ingest._fetch_and_apply

    def watched_fetch_and_apply(*args: Any, **kwargs: Any) -> Any:
        mark("plan")
        return fetch_and_apply(*args, **kwargs)

    call = ingest._Observer.__call__

    def watched_call(self: Any, v: Any) -> Any:
        if self.next == 0:
            mark("validate")
        out = call(self, v)
        if self.next == self.count:
            mark("apply")
        return out

    commit = txn.Stage.commit

    def watched_commit(self: Any, *args: Any, **kwargs: Any) -> Any:
        mark("stage")
        out = commit(self, *args, **kwargs)
        mark("commit")
        return out

    ingest.ingest = watched_ingest  # type: ignore[assignment]
    spill_pages = getattr(lu.LegiluxAdapter, "_spill_pages", None)
    if spill_pages is not None:  # the pages written to the spill as they are read (ADR 0129)
        def watched_spill_pages(self: Any, name: str, *args: Any) -> None:
            if name == "manifestations.rq":
                mark("lu_states")
            spill_pages(self, name, *args)
            mark("lu_catalogue" if name == "catalogue.rq" else "lu_files")

        lu.LegiluxAdapter._spill_pages = watched_spill_pages  # type: ignore[attr-defined]
    else:  # a checkout from before ADR 0129 (``--code``)
        if real_paged is not None:
            lu.LegiluxAdapter._paged = watched_paged  # type: ignore[attr-defined]
        else:  # the states made as the catalogue's pages are read: one mark for both
            lu.LegiluxAdapter._states = after("lu_catalogue", lu.LegiluxAdapter._states)  # type: ignore[attr-defined]
        lu.LegiluxAdapter._manifestation_index = after(  # type: ignore[attr-defined]
            "lu_files", before("lu_states", lu.LegiluxAdapter._manifestation_index))  # type: ignore[attr-defined]
    lu.LegiluxAdapter._metadata = after("lu_metadata", lu.LegiluxAdapter._metadata)  # type: ignore[method-assign]
    lu.LegiluxAdapter._versions = after("lu_versions", lu.LegiluxAdapter._versions)  # type: ignore[method-assign]
    ingest._count_listing = watched_count  # type: ignore[assignment]
    ingest.SpilledListing = WatchedSpill  # type: ignore[misc]
    ingest._existing = after("scan", ingest._existing)  # type: ignore[assignment]
    ingest._fetch_and_apply = watched_fetch_and_apply  # type: ignore[assignment]
    ingest._Observer.__call__ = watched_call  # type: ignore[method-assign]
    txn.Stage.commit = watched_commit  # type: ignore[method-assign]
    ingest_memory.main(ingest_argv)


def main(argv: list[str]) -> None:
    import bench.ingest_memory as ingest_memory

    growth = _this_bench("ingest_holders").growth

    if ingest_memory.run_probe(argv, "python -m bench.ingest_phases", probe):
        return
    parser = ingest_memory.watched_parser("python -m bench.ingest_phases", __doc__, "bench/out/ingest_phases")
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose ingest is measured")
    parser.add_argument("--frames", type=int, default=0,
                        help="trace (that many frames) and stop after the Legilux enumeration")
    parser.add_argument("--top", type=int, default=10, help="holders printed per phase (traced)")
    parser.add_argument("--per-publisher", action="store_true",
                        help="each publisher's ingest in its own child process (the product's shape)")
    parser.add_argument("--only", nargs="+", default=[], metavar="PUBLISHER",
                        help="with --per-publisher: only these publishers' children (e.g. lu-legilux)")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    log = out / "phases.jsonl"
    seen: dict[tuple[int, str, str, str], dict[str, Any]] = {}
    # the probe is this file, run as a script, so that it watches the ingest of ``--code`` (on its path)
    wrap = [sys.executable, str(Path(__file__).resolve()), "_probe", "--log", str(log), "--"]
    for n, events in ingest_memory.probed_runs(args.n, out, args.fixtures, args.code.resolve(), trace=args.frames,
                                               log=log, wrap=wrap, per_publisher=args.per_publisher,
                                               only=args.only):
        mode = "fresh"
        for event in events:
            if (n, mode, event["publisher"], event["phase"]) in seen and event["phase"] == "before":
                mode = "reingest"  # the re-ingest's marks follow the fresh ingest's
            seen[(n, mode, event["publisher"], event["phase"])] = event
            print(json.dumps({"n": n, "mode": mode, "publisher": event["publisher"], "phase": event["phase"],
                              "hwm_mb": round(event["hwm"] / 1024, 2), "rss_mb": round(event["rss"] / 1024, 2),
                              **({"traced_mb": round(event["current"] / 2**20, 2),
                                  "traced_peak_mb": round(event["peak"] / 2**20, 2)} if "current" in event else {})}),
                  flush=True)
        for mode in ("fresh", "reingest"):
            mine = {k: v for k, v in seen.items() if k[0] == n and k[1] == mode}
            if mine:
                top = max(event["hwm"] for event in mine.values())
                key = next(k for k, event in mine.items() if event["hwm"] == top)  # the first phase reaching it
                print(json.dumps({"n": n, "mode": mode, "peak_in": f"{key[2]}/{key[3]}",
                                  "hwm_mb": round(mine[key]["hwm"] / 1024, 2)}), flush=True)
    for mode, publisher, phase, event, other, per in ingest_memory.growth_pairs(seen, args.n):
        row: dict[str, Any] = {"growth": f"N {min(args.n)} -> {max(args.n)}", "mode": mode, "publisher": publisher, "phase": phase,
                               "hwm_mb_per_replica": round((other["hwm"] - event["hwm"]) / per / 1024, 3),
                               "rss_mb_per_replica": round((other["rss"] - event["rss"]) / per / 1024, 3)}
        if "holders" in event and "holders" in other:
            row["traced_mb_per_replica"] = round((other["current"] - event["current"]) / per / 2**20, 3)
            row["traced_peak_mb_per_replica"] = round((other["peak"] - event["peak"]) / per / 2**20, 3)
            row["holders_mb_per_replica"] = [[k, round(v, 3)] for k, v in
                                             growth(event["holders"], other["holders"], per)[:args.top]]
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
