"""Results of a scale run: growth against the smallest N, a Markdown table, a PNG plot, and
publishing them into the docs (between ``<!-- scale:begin -->`` / ``<!-- scale:end -->``).

Targets (issue #7): time grows at most 18× for 16× the data; every stage's peak RSS stays
at or under 1 GB whatever N (measured, and not on course to pass it before
:data:`FLAT_HORIZON_N`); index bytes per provision stay constant (±10 %).

Replicas repeat the fixtures' wording, and the index stores each distinct wording once
(``texts``), so the *measured* bytes per provision fall as N grows. The constancy check is
therefore made on the bytes per provision **excluding** the ``texts`` table (rows, FTS,
history, citations: everything that is per provision); the text store's share at the smallest
N tells what a corpus of N × distinct wording would add.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bench.scale.stages import STAGES

TIME_TARGET = 18.0 / 16.0  # time ratio per data ratio (18× for 16×)
RSS_TARGET_MB = 1024.0
BPP_TOLERANCE = 0.10
#: "Whatever N": no stage may be on course to pass 1 GB before this many replicas (256 × the
#: fixtures ≈ 7.5 GB of bodies, 25,000 works), judged from its growth between the smallest and
#: the largest N measured.
FLAT_HORIZON_N = 256
BEGIN, END = "<!-- scale:begin -->", "<!-- scale:end -->"


def growth(runs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Ratios of every run against the smallest N, and the three target checks."""
    if not runs:
        return {}
    ordered = sorted(runs, key=lambda r: r["n"])
    base, top = ordered[0], ordered[-1]
    rows = [_growth_row(run, base) for run in ordered]
    trend = rss_trend(base, top)
    return {"base_n": base["n"], "rows": rows, "rss_trend": trend,
            "checks": {"time": _time_check(rows), "rss": _rss_check(rows, trend),
                       "index_bytes_per_provision": _bpp_check(rows, base)}}


def _growth_row(run: Mapping[str, Any], base: Mapping[str, Any]) -> dict[str, Any]:
    data = run["provisions"] / base["provisions"] if base["provisions"] else run["n"] / base["n"]
    return {"n": run["n"], "data_ratio": round(data, 3),
            "wall_ratio": _ratio(run["total_wall_s"], base["total_wall_s"]),
            "cpu_ratio": _ratio(run["total_cpu_s"], base["total_cpu_s"]),
            "stage_wall_ratio": {s: _ratio(run["stages"][s]["wall_s"], base["stages"][s]["wall_s"]) for s in STAGES},
            "stage_cpu_ratio": {s: _ratio(run["stages"][s]["cpu_s"], base["stages"][s]["cpu_s"]) for s in STAGES},
            "max_peak_rss_mb": run["max_peak_rss_mb"],
            "index_bytes_per_provision": run["index_bytes_per_provision"],
            "index_bytes_per_provision_excl_texts": run["index_bytes_per_provision_excl_texts"]}


def _time_check(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Every N against the smallest (limit 18/16 × the data ratio), and the last step alone."""
    points = []
    for r in rows[1:]:
        limit = TIME_TARGET * r["data_ratio"]
        points.append({"n": r["n"], "data_ratio": r["data_ratio"], "wall_ratio": r["wall_ratio"],
                       "cpu_ratio": r["cpu_ratio"], "limit": round(limit, 2),
                       "passed_wall": r["wall_ratio"] <= limit, "passed_cpu": r["cpu_ratio"] <= limit})
    out: dict[str, Any] = {"points": points, "passed_wall": all(p["passed_wall"] for p in points),
                           "passed_cpu": all(p["passed_cpu"] for p in points)}
    if len(rows) >= 3:
        a, b = rows[-2], rows[-1]
        out["last_step"] = {"from_n": a["n"], "to_n": b["n"], "data_ratio": round(b["data_ratio"] / a["data_ratio"], 2),
                            "wall_ratio": _ratio(b["wall_ratio"], a["wall_ratio"]),
                            "cpu_ratio": _ratio(b["cpu_ratio"], a["cpu_ratio"])}
    return out


def _rss_check(rows: Sequence[Mapping[str, Any]], trend: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    top = max(r["max_peak_rss_mb"] for r in rows)
    early = {s: t["n_at_1gb"] for s, t in trend.items() if t["n_at_1gb"] is not None and t["n_at_1gb"] < FLAT_HORIZON_N}
    return {"max_mb": top, "limit_mb": RSS_TARGET_MB, "within_limit": top <= RSS_TARGET_MB,
            "flat_horizon_n": FLAT_HORIZON_N, "reaches_limit_before_horizon": early,
            "passed": top <= RSS_TARGET_MB and not early}


def _bpp_check(rows: Sequence[Mapping[str, Any]], base: Mapping[str, Any]) -> dict[str, Any]:
    bpp = [r["index_bytes_per_provision_excl_texts"] for r in rows if r["index_bytes_per_provision_excl_texts"]]
    spread = (max(bpp) - min(bpp)) / min(bpp) if bpp else 0.0
    return {"values": bpp, "measured": [r["index_bytes_per_provision"] for r in rows],
            "text_share_at_base": _text_share(base), "spread": round(spread, 4), "tolerance": BPP_TOLERANCE,
            "passed": spread <= BPP_TOLERANCE}


def rss_trend(base: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, dict[str, float | None]]:
    """Per stage: peak-RSS growth per added replica and the N at which it would pass 1 GB."""
    out: dict[str, dict[str, float | None]] = {}
    for stage in STAGES:
        low, high = base["stages"][stage]["peak_rss_mb"], top["stages"][stage]["peak_rss_mb"]
        slope = (high - low) / (top["n"] - base["n"]) if top["n"] > base["n"] else 0.0
        reach = base["n"] + (RSS_TARGET_MB - low) / slope if slope > 1.0 else None
        out[stage] = {"mb_per_replica": round(slope, 1), "n_at_1gb": round(reach) if reach else None}
    return out


def _text_share(run: Mapping[str, Any]) -> float:
    return round(run["index_text_bytes"] / run["index_bytes"], 3) if run["index_bytes"] else 0.0


def _ratio(a: float, b: float) -> float:
    return round(a / b, 2) if b else 0.0


# -- text ----------------------------------------------------------------------------------------


def markdown(results: Mapping[str, Any]) -> str:
    """The run table, the per-stage table and the growth checks, as Markdown."""
    runs = sorted(results["runs"], key=lambda r: r["n"])
    parts = [_summary_table(runs), "", _stage_table(runs), ""]
    if results.get("growth"):
        parts += [_growth_lines(results["growth"]), ""]
    meta = results.get("meta", {})
    parts.append(f"Machine: {meta.get('cpus')} CPUs, Python {meta.get('python')}, SQLite "
                 f"{meta.get('sqlite')}; load average (1 min) during the run "
                 f"{meta.get('load_min')}–{meta.get('load_max')} (shared machine). Working tree on commit "
                 f"{meta.get('commit')}, code digest {meta.get('code_digest')}.")
    return "\n".join(parts)


def _summary_table(runs: Sequence[Mapping[str, Any]]) -> str:
    head = ("| N | works | versions | provisions | distinct texts | bodies MB | tree MB | index MB "
            "| index B/provision | same, excl. texts | total wall s | total CPU s | max peak RSS MB | load (1 min) |")
    lines = [head, "|" + "---:|" * 14]
    for r in runs:
        lines.append(
            f"| {r['n']} | {r['works']:,} | {r['versions']:,} | {r['provisions']:,} | {r['distinct_texts']:,} "
            f"| {r['body_bytes'] / 1e6:,.1f} | {r['tree_bytes'] / 1e6:,.1f} | {r['index_bytes'] / 1e6:,.1f} "
            f"| {r['index_bytes_per_provision']:,.0f} | {r['index_bytes_per_provision_excl_texts']:,.0f} "
            f"| {r['total_wall_s']:,.1f} | {r['total_cpu_s']:,.1f} | {r['max_peak_rss_mb']:,.0f} "
            f"| {r['load_min']:.1f}–{r['load_max']:.1f} |")
    return "\n".join(lines)


def _stage_table(runs: Sequence[Mapping[str, Any]]) -> str:
    ns = [r["n"] for r in runs]
    head = "| stage | " + " | ".join(f"N={n} wall / CPU s" for n in ns) + " | " + \
        " | ".join(f"N={n} peak RSS MB" for n in ns) + " | " + " | ".join(f"N={n} written MB" for n in ns) + " |"
    lines = [head, "|---|" + "---:|" * (3 * len(ns))]
    for stage in STAGES:
        cells = [f"{r['stages'][stage]['wall_s']:,.1f} / {r['stages'][stage]['cpu_s']:,.1f}" for r in runs]
        cells += [f"{r['stages'][stage]['peak_rss_mb']:,.0f}" for r in runs]
        cells += [f"{r['stages'][stage]['bytes_written'] / 1e6:,.1f}" for r in runs]
        lines.append(f"| {stage} | " + " | ".join(cells) + " |")
    server = [f"{r['replay_server'].get('cpu_s')}" for r in runs]
    lines.append("| (replay server, CPU s during ingest) | " + " | ".join(server) + " |" + " |" * (2 * len(ns)))
    return "\n".join(lines)


def _growth_lines(g: Mapping[str, Any]) -> str:
    c = g["checks"]
    t, rss, bpp = c["time"], c["rss"], c["index_bytes_per_provision"]
    rows = ["| N | data × | wall × | CPU × | " + " | ".join(f"{s} CPU ×" for s in STAGES) + " |",
            "|" + "---:|" * (4 + len(STAGES))]
    for r in g["rows"]:
        rows.append(f"| {r['n']} | {r['data_ratio']:g} | {r['wall_ratio']:g} | {r['cpu_ratio']:g} | "
                    + " | ".join(f"{r['stage_cpu_ratio'][s]:g}" for s in STAGES) + " |")
    trend = g.get("rss_trend", {})
    growing = [f"{s} +{t['mb_per_replica']:g} MB per replica (1 GB at N≈{t['n_at_1gb']})"
               for s, t in trend.items() if t["n_at_1gb"]]
    checks = [
        "- **Time**: " + "; ".join(
            f"{p['data_ratio']:g}× the data took {p['wall_ratio']:g}× the wall time and {p['cpu_ratio']:g}× the CPU "
            f"time (limit {p['limit']:g}×)" for p in t["points"])
        + f": wall {_ok(t['passed_wall'])}, CPU {_ok(t['passed_cpu'])}." + _last_step(t.get("last_step")),
        f"- **Memory**: the largest per-stage peak RSS is {rss['max_mb']:,.0f} MB (limit {rss['limit_mb']:,.0f} MB, "
        f"{'within' if rss['within_limit'] else 'over'}); flat up to N={rss['flat_horizon_n']}: {_ok(rss['passed'])}."
        + (f" Growing: {'; '.join(growing)}." if growing else ""),
        f"- **Index bytes per provision** (excluding the deduplicated text store): "
        f"{', '.join(f'{v:,.0f}' for v in bpp['values'])} (spread {bpp['spread']:.1%}, tolerance "
        f"{bpp['tolerance']:.0%}): {_ok(bpp['passed'])}. Measured with the text store: "
        f"{', '.join(f'{v:,.0f}' for v in bpp['measured'])} — replicas share wording, which the index "
        f"stores once ({bpp['text_share_at_base']:.0%} of the index at N={g['base_n']}).",
    ]
    return "\n".join([f"Growth against N={g['base_n']}:", "", *rows, "", *checks])


def _last_step(step: Mapping[str, Any] | None) -> str:
    if not step:
        return ""
    return (f" The last step alone, N={step['from_n']} → N={step['to_n']} ({step['data_ratio']:g}× the data, "
            f"where start-up costs weigh little): {step['wall_ratio']:g}× wall, {step['cpu_ratio']:g}× CPU.")


def _ok(passed: bool) -> str:
    return "**met**" if passed else "**not met**"


def print_table(results: Mapping[str, Any]) -> None:
    print(markdown(results))


def render(results: dict[str, Any], out: Path, *, draw: bool = True) -> dict[str, Any]:
    """Recompute growth; write ``scale.json``, ``scale.md`` and (``draw``) ``scale.png`` under ``out``."""
    results["growth"] = growth(results["runs"])
    write_json(results, out / "scale.json")
    (out / "scale.md").write_text(markdown(results) + "\n")
    if draw:
        plot(results, out / "scale.png")
    return results


def rerender(out: Path, *, draw: bool = True) -> dict[str, Any]:
    """:func:`render` again from an existing ``out/scale.json`` (no run)."""
    return render(json.loads((out / "scale.json").read_text()), out, draw=draw)


def write_json(results: Mapping[str, Any], path: Path) -> None:
    path.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")


# -- plot and publishing -------------------------------------------------------------------------


def plot(results: Mapping[str, Any], path: Path) -> None:
    """Wall time and peak RSS per stage against N (log-log), with the linear and 1 GB guides."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = sorted(results["runs"], key=lambda r: r["n"])
    ns = [r["n"] for r in runs]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    for stage in STAGES:
        left.plot(ns, [r["stages"][stage]["wall_s"] for r in runs], marker="o", label=stage)
        right.plot(ns, [r["stages"][stage]["peak_rss_mb"] for r in runs], marker="o", label=stage)
    base = runs[0]
    left.plot(ns, [base["total_wall_s"] * n / base["n"] for n in ns], "k--", linewidth=0.8,
              label=f"linear (total at N={base['n']} × N)")
    left.plot(ns, [r["total_wall_s"] for r in runs], "k-", marker="s", label="total")
    right.axhline(RSS_TARGET_MB, color="red", linestyle="--", linewidth=0.8, label="1 GB target")
    for ax, title, unit in ((left, "Wall time per stage", "seconds"), (right, "Peak RSS per stage", "MB")):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(ns, [str(n) for n in ns])
        ax.set_xlabel("N (replicas of the fixture corpora)")
        ax.set_ylabel(unit)
        ax.set_title(title)
        ax.grid(True, which="both", linewidth=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def replace_block(path: Path, block: str) -> bool:
    """Replace the text between the scale markers of ``path``; False when it has none."""
    if not path.is_file():
        return False
    text = path.read_text(encoding="utf-8")
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        return False
    path.write_text(text[:start + len(BEGIN)] + "\n" + block.rstrip() + "\n" + text[end:], encoding="utf-8")
    return True


def publish(results: Mapping[str, Any], png: Path, root: Path) -> list[str]:
    """Copy the plot to ``docs/scale.png``; put the tables into docs/scale.md and bench/README.md."""
    shutil.copyfile(png, root / "docs" / "scale.png")
    block = markdown(results)
    done = ["docs/scale.png"]
    for rel in ("docs/scale.md", "bench/README.md"):
        if replace_block(root / rel, block):
            done.append(rel)
    return done
