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
from pathlib import Path

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


def _materialize(assets: list[object], lex: object, partition: str | None) -> None:
    import dagster as dg

    quiet = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}
    result = dg.materialize(assets, partition_key=partition, resources={"lex": lex}, run_config=quiet,
                            instance=dg.DagsterInstance.get(), raise_on_error=False, tags={"lex/run": "demo"})
    for event in result.all_events:
        if event.event_type_value == "ASSET_MATERIALIZATION":
            mat = event.event_specific_data.materialization
            meta = {k: v.value for k, v in mat.metadata.items()}
            shown = ", ".join(f"{k} {meta[k]}" for k in SHOWN if k in meta and meta[k] not in ("", None))
            _say(f"    {mat.asset_key.to_user_string():<14} {shown}")
        elif event.event_type_value == "ASSET_CHECK_EVALUATION":
            data = event.event_specific_data
            _say(f"      check {data.check_name}: {'passed' if data.passed else 'FAILED'}")
    failed_checks = [e.event_specific_data.check_name for e in result.all_events
                     if e.event_type_value == "ASSET_CHECK_EVALUATION" and not e.event_specific_data.passed]
    if not result.success or failed_checks:
        for event in result.all_events:
            if event.event_type_value == "STEP_FAILURE" and event.event_specific_data.error:
                _say(event.event_specific_data.error.to_string()[-3000:])
        raise SystemExit(f"demo failed ({partition or 'release'}): checks failed {failed_checks}" if failed_checks
                         else f"demo failed ({partition or 'release'}); see the Dagster run log above")


def _summary(workdir: Path) -> dict[str, object]:
    from corpus_tree import CorpusTree
    from legal.ids import Publisher

    out: dict[str, object] = {}
    for publisher in Publisher:
        tree = CorpusTree.open(workdir / "trees" / publisher.value)
        manifest = tree.manifest()
        summary = json.loads((workdir / "derived" / publisher.value / "summary.json").read_bytes())
        out[publisher.value] = {
            "works": manifest["counts"]["works"], "versions": manifest["counts"]["versions"],
            "expressions": manifest["counts"]["expressions"], "bodies": len(list(tree.evidence.iter_hashes())),
            "provisions": summary.get("provisions"), "gaps": summary.get("gaps"),
            "index_bytes": (workdir / "indexes" / f"{publisher.value}.sqlite").stat().st_size,
        }
    return out


def main() -> int:
    _prepare_dagster_home()
    import logging

    logging.getLogger("dagster").setLevel(logging.WARNING)
    from legal.ids import Publisher
    from pipelines.assets import artifact_set, corpus_tree, provisions, search_index
    from pipelines.release_stage import current
    from pipelines.settings import LexSettings

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
    set_id = current(lex)
    keys = WORKDIR / "keys"
    _say(f"\nsigned artifact set (current): {set_id or 'none promoted — see the benchmark gates above'}")
    _say(f"  verify: .venv/bin/lex release verify var/demo/release/sets/{set_id} "
         f"--trust-root {(keys / 'release-signing.pub.pem').relative_to(ROOT)}" if set_id else "")
    _say("  serve:  .venv/bin/lex serve --release-root var/demo/release "
         f"--trust-root {(keys / 'release-signing.pub.pem').relative_to(ROOT)}  → open http://127.0.0.1:8080/")
    _say(f"  dagster UI: DAGSTER_HOME=var/dagster_home .venv/bin/dagster dev -m pipelines.definitions")
    _say(f"done in {time.monotonic() - started:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
