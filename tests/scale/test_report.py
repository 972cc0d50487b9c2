"""Growth checks, the Markdown table and publishing between markers (bench/scale/report.py),
on hand-made run records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.scale import report
from bench.scale.stages import STAGES


def run(n: int, *, cpu: float, index_rss: float, bpp_excl: float, bpp: float) -> dict[str, Any]:
    stages = {s: {"wall_s": cpu * 2, "cpu_s": cpu, "peak_rss_mb": index_rss if s == "index" else 100.0,
                  "bytes_written": 10 ** 6 * n} for s in STAGES}
    return {"n": n, "works": 97 * n, "versions": 352 * n, "provisions": 7000 * n, "distinct_texts": 4000,
            "body_bytes": 29 * 10 ** 6 * n, "tree_bytes": 31 * 10 ** 6 * n, "index_bytes": int(bpp * 7000 * n),
            "index_text_bytes": 10 ** 6, "index_bytes_per_provision": bpp,
            "index_bytes_per_provision_excl_texts": bpp_excl, "stages": stages, "total_wall_s": cpu * 10,
            "total_cpu_s": cpu * 5, "max_peak_rss_mb": max(index_rss, 100.0), "load_min": 1.0, "load_max": 2.0,
            "replay_server": {"cpu_s": 1.0}}


def test_linear_runs_meet_every_target() -> None:
    g = report.growth([run(1, cpu=1, index_rss=100, bpp_excl=1400, bpp=1900),
                       run(16, cpu=16, index_rss=100, bpp_excl=1380, bpp=1400)])
    assert g["checks"]["time"]["passed_cpu"] and g["checks"]["rss"]["passed"]
    assert g["checks"]["index_bytes_per_provision"]["passed"], "the text store's dedup is not held against it"


def test_superlinear_time_fails() -> None:
    g = report.growth([run(1, cpu=1, index_rss=100, bpp_excl=1400, bpp=1900),
                       run(16, cpu=20, index_rss=100, bpp_excl=1400, bpp=1900)])
    assert not g["checks"]["time"]["passed_cpu"] and g["checks"]["time"]["points"][0]["limit"] == 18


def test_memory_growing_per_replica_fails_even_under_the_limit() -> None:
    g = report.growth([run(1, cpu=1, index_rss=80, bpp_excl=1400, bpp=1900),
                       run(16, cpu=16, index_rss=980, bpp_excl=1400, bpp=1900)])
    rss = g["checks"]["rss"]
    assert rss["within_limit"] and not rss["passed"]
    assert rss["reaches_limit_before_horizon"] == {"index": 17}
    assert g["rss_trend"]["index"]["mb_per_replica"] == 60.0


def test_markdown_names_every_stage_and_check() -> None:
    results = {"runs": [run(1, cpu=1, index_rss=80, bpp_excl=1400, bpp=1900),
                        run(4, cpu=4, index_rss=260, bpp_excl=1390, bpp=1500)], "meta": {"cpus": 2}}
    results["growth"] = report.growth(results["runs"])
    text = report.markdown(results)
    for stage in STAGES:
        assert f"| {stage} |" in text
    assert "**Time**" in text and "**Memory**" in text and "**Index bytes per provision**" in text


def test_publishing_replaces_only_the_marked_block(tmp_path: Path) -> None:
    page = tmp_path / "README.md"
    page.write_text(f"# B\n\n## Other\nkeep me\n\n## Scale\n{report.BEGIN}\nold\n{report.END}\n\n## Later\nme too\n")
    assert report.replace_block(page, "| new |")
    assert page.read_text() == f"# B\n\n## Other\nkeep me\n\n## Scale\n{report.BEGIN}\n| new |\n{report.END}\n\n## Later\nme too\n"
    bare = tmp_path / "bare.md"
    bare.write_text("no markers\n")
    assert not report.replace_block(bare, "x") and bare.read_text() == "no markers\n"
