"""The whole graph's re-run ratios: cold run, no-change re-run, one-work-changed re-run.

The replay publisher serves both real fixture corpora (``../shared/fixtures``) on loopback; the
pipeline (corpus tree → provisions → index per publisher, then the signed, benchmarked,
promoted artifact set) runs in process through Dagster three times:

1. cold, into an empty work directory;
2. again with nothing changed at the publisher (must download nothing, derive nothing, rebuild
   no index and sign nothing);
3. after the publisher withdraws one Legilux version (one work changes: its record gains a
   ``withdrawn_from_source`` event; only that work is re-derived).

Prints wall times and the two ratios (targets: no-change ≤ 10 % of cold).

    .venv/bin/python -m bench.bench_pipeline [--fixtures ../shared/fixtures] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
WITHDRAWN = "http://data.legilux.public.lu/eli/etat/leg/a/1938/01/14/n1/consolide/19550621"


def _scope_file(eu_root: Path, out: Path) -> Path:
    seeds = sorted(json.loads(m.read_bytes())["work_identifier"].rsplit("/", 1)[-1]
                   for m in (eu_root / "works").glob("*/meta.json"))
    out.write_text(json.dumps({
        "schema": "lex-eu-scope/1", "scope_id": "fixtures", "approved_wave": 1, "languages": ["en", "fr"],
        "legal_forms": ["REG", "DIR", "DEC", "TREATY", "CHARTER"], "relations": {"depth": 0},
        "domains": [{"id": "fixtures", "wave": 1, "seeds": seeds}],
    }, indent=2))
    return out


def _run(lex: Any, label: str) -> dict[str, Any]:
    import dagster as dg

    from pipelines.assets import artifact_set, corpus_tree, provisions, search_index

    quiet = {"loggers": {"console": {"config": {"log_level": "ERROR"}}}}
    started = time.monotonic()
    stages: dict[str, Any] = {}
    for partition in ("lu-legilux", "eu-eurlex", None):
        assets = [artifact_set] if partition is None else [corpus_tree, provisions, search_index]
        result = dg.materialize(assets, partition_key=partition, resources={"lex": lex}, run_config=quiet)
        for event in result.get_asset_materialization_events():
            mat = event.step_materialization_data.materialization
            meta = {k: v.value for k, v in mat.metadata.items()}
            key = f"{mat.asset_key.to_user_string()}[{partition or '-'}]"
            stages[key] = {k: meta.get(k) for k in ("skipped", "new_bodies", "works_derived_in_step", "seconds")
                           if k in meta}
    seconds = time.monotonic() - started
    print(f"{label:<20} {seconds:8.2f} s")
    return {"seconds": seconds, "stages": stages}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fixtures", type=Path, default=ROOT.parent / "shared" / "fixtures")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "1")

    from corpus_tree.importer import import_published
    from pipelines.settings import LexSettings
    from publishers.replay.app import ReplayPublisher
    from publishers.replay.server import serve_in_thread
    from publishers.replay.source import load_source

    with tempfile.TemporaryDirectory(prefix="lex-bench-pipeline-") as tmp:
        base = Path(tmp)
        os.environ["DAGSTER_HOME"] = str(base / "dagster_home")
        (base / "dagster_home").mkdir()
        (base / "dagster_home" / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
        sources = []
        for pub in ("lu-legilux", "eu-eurlex"):
            import_published(args.fixtures / f"lex-corpus-{pub}", base / "published" / pub)
            sources.append(load_source(base / "published" / pub))
        replay = ReplayPublisher(sources)
        replay.warm()
        scope = _scope_file(args.fixtures / "lex-corpus-eu-eurlex", base / "eu-scope.json")
        with serve_in_thread(replay.app()) as url:
            lex = LexSettings(workdir=str(base / "work"), source="replay", replay_url=url, eu_scope=str(scope),
                              judgments=str(ROOT / "evals" / "retrieval_judgments.json"),
                              built_at="2026-11-30T00:00:00Z")
            cold = _run(lex, "cold")
            same = _run(lex, "no change")
            replay.set_faults(withdrawn=[WITHDRAWN])
            one = _run(lex, "one work changed")
    ratios = {"no_change": same["seconds"] / cold["seconds"], "one_work_changed": one["seconds"] / cold["seconds"]}
    print(f"no-change re-run / cold: {ratios['no_change']:.1%} (target ≤ 10 %)")
    print(f"one-work-changed re-run / cold: {ratios['one_work_changed']:.1%}")
    print(f"load average: {Path('/proc/loadavg').read_text().split()[:3]}")
    if args.json:
        args.json.write_text(json.dumps({"cold": cold, "no_change": same, "one_work_changed": one,
                                         "ratios": ratios}, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
