"""``make demo``: the whole pipeline on the bundled sample corpus, on the embedded default.

Filesystem evidence store, SQLite indexes, Dagster with SQLite run storage under a
project-local ``DAGSTER_HOME`` (``var/dagster_home``), the replay publisher on loopback over
the bundled demonstration corpus, ingested through the real adapters. No network.

It materialises, per publisher, corpus tree → provisions → search index, then the signed
artifact set (benchmark report, signature, verification, promotion), and prints what it holds.
Running it again changes nothing (every stage sees unchanged inputs).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import dagster as dg

from pipelines.settings import LexSettings

ROOT = Path(__file__).resolve().parents[1]
WORKDIR = ROOT / "var" / "demo"
DAGSTER_HOME = ROOT / "var" / "dagster_home"
DAGSTER_YAML = "telemetry:\n  enabled: false\n"
SHOWN = ("skipped", "requests", "new_bodies", "works", "versions", "expressions", "provisions", "index_bytes", "set_id", "promoted",
         "report_passed", "failed_gates", "seconds")


def _prepare_dagster_home() -> None:
    home = Path(os.environ.setdefault("DAGSTER_HOME", str(DAGSTER_HOME)))
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    if not config.exists():
        config.write_text(DAGSTER_YAML)
    os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "1")


def _say(text: str) -> None:
    print(text, flush=True)


def _materialize(assets: Sequence[dg.AssetsDefinition], lex: LexSettings, partition: str | None) -> None:
    quiet = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}
    result = dg.materialize(assets, partition_key=partition, resources={"lex": lex}, run_config=quiet,
                            instance=dg.DagsterInstance.get(), raise_on_error=False, tags={"lex/run": "demo"})
    for event in result.get_asset_materialization_events():
        mat = event.step_materialization_data.materialization
        meta = {k: v.value for k, v in mat.metadata.items()}
        shown = ", ".join(f"{k} {meta[k]}" for k in SHOWN if k in meta and meta[k] not in ("", None))
        _say(f"    {mat.asset_key.to_user_string():<14} {shown}")
    evaluations = result.get_asset_check_evaluations()
    for check in evaluations:
        _say(f"      check {check.check_name}: {'passed' if check.passed else 'FAILED'}")
    failed_checks = [c.check_name for c in evaluations if not c.passed]
    if not result.success or failed_checks:
        for failure in result.get_step_failure_events():
            error = failure.step_failure_data.error
            if error is not None:
                _say(error.to_string()[-3000:])
        where = partition or "release"
        raise SystemExit(f"demo failed ({where}): checks failed {failed_checks}" if failed_checks
                         else f"demo failed ({where}); see the error above")


def _summary(workdir: Path) -> dict[str, object]:
    import pyarrow.parquet as pq

    from corpus_tree import CorpusTree
    from legal.artifacts import DATASET_TABLES
    from legal.ids import Publisher

    out: dict[str, object] = {}
    for publisher in Publisher:
        tree = CorpusTree.open(workdir / "trees" / publisher.value)
        manifest = tree.manifest()
        dataset = workdir / "derived" / publisher.value
        summary = json.loads((dataset / "summary.json").read_bytes())
        out[publisher.value] = {
            "works": manifest["counts"]["works"], "versions": manifest["counts"]["versions"],
            "expressions": manifest["counts"]["expressions"], "bodies": len(list(tree.evidence.iter_hashes())),
            "provisions": summary.get("provisions"), "gaps": summary.get("gaps"),
            "index_bytes": (workdir / "indexes" / f"{publisher.value}.sqlite").stat().st_size,
            "tables": {name.removesuffix(".parquet"): pq.read_metadata(dataset / name).num_rows
                       for name in DATASET_TABLES},
        }
    return out


def main() -> int:
    _prepare_dagster_home()
    import logging

    logging.getLogger("dagster").setLevel(logging.WARNING)
    from legal.ids import Publisher
    from pipelines.assets import artifact_set, corpus_tree, provisions, search_index
    from pipelines.release_stage import current

    lex = LexSettings(workdir=str(WORKDIR), source="sample", built_at=os.environ.get("LEX_BUILT_AT", ""))
    started = time.monotonic()
    _say(f"lex demo: sample corpus → replay publisher on 127.0.0.1 → ingest → derive → index → release\n"
         f"  workdir {WORKDIR.relative_to(ROOT)}, DAGSTER_HOME {Path(os.environ['DAGSTER_HOME']).name}")
    for publisher in Publisher:
        _say(f"• {publisher.value}: corpus tree, provisions, search index …")
        _materialize([corpus_tree, provisions, search_index], lex, publisher.value)
    _say("• release: benchmark report, signature, verification, promotion …")
    _materialize([artifact_set], lex, None)
    summary = _summary(WORKDIR)
    _say("\nwhat the demo holds:")
    _say(f"  {'publisher':<12} {'works':>5} {'versions':>8} {'expressions':>11} {'bodies':>6} {'provisions':>10}")
    for pub, row in summary.items():
        assert isinstance(row, dict)
        _say(f"  {pub:<12} {row['works']:>5} {row['versions']:>8} {row['expressions']:>11} {row['bodies']:>6} "
             f"{row['provisions']:>10}")
    _say("\ndataset tables (rows; each travels signed in the artifact set):")
    for pub, row in summary.items():
        assert isinstance(row, dict)
        _say(f"  {pub:<12} " + ", ".join(f"{name} {rows}" for name, rows in row["tables"].items()))
    set_id = current(lex)
    keys = WORKDIR / "keys"
    _say(f"\nsigned artifact set (current): {set_id or 'none promoted — see the benchmark gates above'}")
    _say(f"  verify: .venv/bin/lex release verify var/demo/release/sets/{set_id} "
         f"--trust-root {(keys / 'release-signing.pub.pem').relative_to(ROOT)}" if set_id else "")
    _say("  serve:  .venv/bin/lex serve --release-root var/demo/release "
         f"--trust-root {(keys / 'release-signing.pub.pem').relative_to(ROOT)}  → open http://127.0.0.1:8080/")
    _say("  dagster UI: DAGSTER_HOME=\"$PWD/var/dagster_home\" .venv/bin/dagster dev -m pipelines.definitions")
    _say(f"done in {time.monotonic() - started:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
