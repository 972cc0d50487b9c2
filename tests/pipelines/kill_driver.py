"""Run one single-node round (``evidence`` per publisher, then ``release``) in this process, for
the kill test — optionally stopping dead at a known point so the test can SIGKILL it there.

    python -m tests.pipelines.kill_driver WORKDIR DAGSTER_DIR [--pause-at POINT --marker FILE]
                                          [--lu-corpus DIR]

``--pause-at`` wraps one function of the real code (in this process only, nothing is changed on
disk) so that, when the point is reached, the driver writes ``--marker`` and sleeps; the test
waits for the marker and kills the process with SIGKILL:

- ``ingest-stage-body``: inside an ingest's fetch phase, after the 1st new body was staged
  (:func:`publishers.ingest._record`): the body sits in the evidence store's staging area, nothing
  committed;
- ``ingest-commit``: inside a corpus-tree commit, after the 2nd file rename
  (:func:`corpus_tree.txn._apply_op`): journal written, tree half-updated;
- ``derive-shard``: inside a shard build, at its 1st work derived (:func:`derive.dataset.derive_work`):
  the shard's staging directory holds a partial output;
- ``derive-merge``: inside the merge of the shards, after the rows were streamed
  (:func:`derive.dataset._read_lines`): the dataset's staging directory holds a partial output.

``--lu-corpus`` serves that Legilux corpus instead of the bundled one (see ``corpus_edit``).
Prints one JSON line ``{"ok": …, "outcomes": {…}}`` on success; exits 1 if a run failed or a
check did not pass.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "1")

POINTS = ("ingest-stage-body", "ingest-commit", "derive-shard", "derive-merge")


def _pause(marker: Path) -> None:
    marker.write_text(str(os.getpid()))
    time.sleep(600)
    raise SystemExit("paused for 600 s and nobody killed this process")


def _after_calls(module: Any, name: str, calls: int, marker: Path, before: bool) -> None:
    original: Callable[..., Any] = getattr(module, name)
    seen = 0

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nonlocal seen
        seen += 1
        if before and seen == calls:
            _pause(marker)
        result = original(*args, **kwargs)
        if not before and seen == calls:
            _pause(marker)
        return result

    setattr(module, name, wrapper)


def install(point: str, marker: Path) -> None:
    if point == "ingest-stage-body":
        import publishers.ingest

        _after_calls(publishers.ingest, "_record", 1, marker, before=False)
    elif point == "ingest-commit":
        import corpus_tree.txn

        _after_calls(corpus_tree.txn, "_apply_op", 2, marker, before=False)
    elif point == "derive-shard":
        import derive.dataset

        # the wrapped function must run in this process: derive in-process, not in a worker pool
        os.environ["LEX_DERIVE_WORKERS"] = "1"
        _after_calls(derive.dataset, "derive_work", 1, marker, before=False)
    elif point == "derive-merge":
        import derive.dataset

        _after_calls(derive.dataset, "_read_lines", 1, marker, before=True)
    else:
        raise SystemExit(f"unknown pause point {point!r} ({', '.join(POINTS)})")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("workdir", type=Path)
    parser.add_argument("dagster_dir", type=Path)
    parser.add_argument("--pause-at", choices=POINTS)
    parser.add_argument("--marker", type=Path)
    parser.add_argument("--lu-corpus", type=Path)
    args = parser.parse_args()
    if args.pause_at:
        install(args.pause_at, args.marker)

    import dagster as dg

    from legal.ids import Publisher
    from pipelines import sources
    from pipelines.definitions import build_definitions
    from pipelines.settings import PUBLISHERS, LexSettings
    from tests.pipelines.conftest import BUILT_AT

    if args.lu_corpus:
        original = sources.sample_root
        sources.sample_root = lambda p: args.lu_corpus if p is Publisher.LEGILUX else original(p)  # type: ignore[assignment]
    lex = LexSettings(workdir=str(args.workdir), source="sample", built_at=BUILT_AT)
    defs = build_definitions("in_process", settings=lex)
    outcomes: dict[str, Any] = {}
    ok = True
    with dg.DagsterInstance.local_temp(str(args.dagster_dir)) as instance:
        for job, partition in [*(("evidence", p) for p in PUBLISHERS), ("release", None)]:
            result = defs.resolve_job_def(job).execute_in_process(partition_key=partition, instance=instance,
                                                                  raise_on_error=False)
            checks = {f"{c.asset_key.to_user_string()}:{c.check_name}": c.passed
                      for c in result.get_asset_check_evaluations()}
            metadata = {}
            for event in result.get_asset_materialization_events():
                mat = event.event_specific_data.materialization
                metadata[mat.asset_key.to_user_string()] = {
                    k: v.value for k, v in mat.metadata.items()
                    if k in ("skipped", "new_bodies", "set_id", "promoted", "shards_derived_in_step",
                             "works_derived_in_step", "provisions_jsonl_sha256")}
            outcomes[f"{job}[{partition}]" if partition else job] = {
                "success": result.success, "checks": checks, "metadata": metadata}
            ok = ok and result.success and all(checks.values())
    print(json.dumps({"ok": ok, "outcomes": outcomes}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
