"""The scale harness end to end on a subset (3 Legilux + 3 EUR-Lex works), N = 1 and 2.

Every stage runs in its own process against a replay on loopback; the JSON must carry every
stage's measurements, the counts must double with N, the ingested tree of N = 2 must verify,
and the plot and Markdown table must be written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.scale.harness import Options, run_scale
from bench.scale.stages import STAGES
from corpus_tree.verify import verify_tree
from tests.scale.test_replicate import EU_WORKS, LU_WORKS

STAGE_FIELDS = {"wall_s", "cpu_s", "peak_rss_mb", "ru_maxrss_mb", "bytes_written", "output_bytes",
                "load_before", "load_after", "facts"}
RUN_FIELDS = {"n", "works", "versions", "provisions", "body_bytes", "tree_bytes", "index_bytes", "distinct_texts",
              "index_text_bytes", "index_bytes_per_provision_excl_texts",
              "index_bytes_per_provision", "stages", "total_wall_s", "total_cpu_s", "max_peak_rss_mb",
              "load_min", "load_max", "replay_server", "served"}


@pytest.fixture(scope="module")
def run(fixtures_dir: Path, scale_base: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("scale-run")
    options = Options(ns=[1, 2], out=out, fixtures=fixtures_dir, keep=True, base=scale_base,
                      works={"lu-legilux": LU_WORKS, "eu-eurlex": EU_WORKS})
    run_scale(options)
    return out, json.loads((out / "scale.json").read_text())


def test_json_has_every_stage_field(run: tuple[Path, dict[str, Any]]) -> None:
    _, results = run
    assert [r["n"] for r in results["runs"]] == [1, 2]
    for r in results["runs"]:
        assert set(r) >= RUN_FIELDS
        assert set(r["stages"]) == set(STAGES)
        for stage in STAGES:
            figures = r["stages"][stage]
            assert set(figures) >= STAGE_FIELDS, stage
            assert figures["wall_s"] > 0 and figures["peak_rss_mb"] > 0, stage
            assert figures["facts"]["frozen_code"], f"{stage} did not run the snapshot"
        assert r["stages"]["ingest"]["output_bytes"] > 0 and r["stages"]["index"]["bytes_written"] > 0
        assert r["index_bytes_per_provision"] > 0
    assert {"time", "rss", "index_bytes_per_provision"} == set(results["growth"]["checks"])
    assert results["meta"]["cpus"] and results["meta"]["load_at_start"]


def test_counts_double_with_n(run: tuple[Path, dict[str, Any]]) -> None:
    one, two = run[1]["runs"]
    assert (one["works"], one["versions"]) == (6, 6)
    for key in ("works", "versions", "provisions", "dataset_provisions"):
        assert two[key] == 2 * one[key], key
    assert two["distinct_bodies"] > one["distinct_bodies"]
    assert two["stages"]["verify"]["facts"]["files"] == one["stages"]["verify"]["facts"]["files"]
    assert two["stages"]["sign"]["facts"]["set_id"] != one["stages"]["sign"]["facts"]["set_id"]


def test_ingested_tree_verifies_and_holds_the_replicas(run: tuple[Path, dict[str, Any]]) -> None:
    out, _ = run
    tree = out / "work" / "n2" / "tree"
    report = verify_tree(tree)
    assert report.ok, report.problems[:5]
    slugs = sorted(p.name for p in (tree / "works").iterdir())
    replicas = [s for s in slugs if "scale-r1-" in s]
    assert sorted(s.replace("scale-r1-", "") for s in replicas if not s[0].isdigit()) == sorted(LU_WORKS)
    assert "32004l90010048r(03)" in slugs and "32004l0048r(03)" in slugs


def test_table_and_plot_are_written(run: tuple[Path, dict[str, Any]]) -> None:
    out, _ = run
    table = (out / "scale.md").read_text()
    assert "| ingest |" in table and "Growth against N=1" in table
    assert (out / "scale.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_replay_scope_admits_every_seed_past_the_default_guard() -> None:
    """Full-corpus replicas N >= 2 serve more EUR-Lex seeds than the scope's default ``max_works``
    (2,000): the replay's scope raises it to the seeds' number; under it, the scope is the default's."""
    from bench.scale.stages import _replay_scope
    from publishers.eurlex import EurlexScope

    few = [f"3201{i:d}R{i:04d}" for i in range(30)]
    assert _replay_scope(few) == EurlexScope.of(few)
    many = [f"3201{i % 10:d}R{i:04d}" for i in range(2500)]
    scope = _replay_scope(many)
    assert scope.relations.max_works == len(scope.seeds) == 2500 and scope.relations.depth == 0
