"""Run one stage in a fresh child process and measure it.

CPU time comes from ``os.wait4`` on that very child (not ``RUSAGE_CHILDREN``, which
accumulates over every child waited for so far): user + system seconds of the process and
the descendants it waited for. Peak RSS is the child's own ``VmHWM`` (``/proc/self/status``,
read by the child at its end): ``ru_maxrss`` is kept as ``ru_maxrss_mb`` but is not used,
because on Linux it also counts the parent's resident set at fork time. Wall time is
measured around the child. The child prints its stage facts as one JSON line on stdout; its
stderr goes to a log file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Measured:
    """One stage run: wall, CPU and peak RSS of its process, load average, and its facts."""

    stage: str
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    ru_maxrss_mb: float
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]
    facts: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        io = self.facts.get("io", {})
        return {"wall_s": round(self.wall_s, 3), "cpu_s": round(self.cpu_s, 3),
                "peak_rss_mb": round(self.peak_rss_mb, 1), "ru_maxrss_mb": round(self.ru_maxrss_mb, 1),
                "bytes_written": io.get("wchar", 0), "output_bytes": self.facts.get("output_bytes", 0),
                "load_before": [round(x, 2) for x in self.load_before],
                "load_after": [round(x, 2) for x in self.load_after],
                "facts": self.facts}


def stage_command(stage: str, run_dir: Path, **options: Any) -> list[str]:
    args = [sys.executable, "-m", "bench.scale", "_stage", stage, "--run-dir", str(run_dir)]
    for key, value in options.items():
        if value is not None:
            args += [f"--{key.replace('_', '-')}", str(value)]
    return args


def run_measured(stage: str, args: list[str], log: Path, code: Path = ROOT) -> Measured:
    """Run ``args`` in ``code`` (a child printing one JSON line) and measure it; raise if it fails."""
    load_before = os.getloadavg()
    with log.open("ab") as err:
        started = time.perf_counter()
        proc = subprocess.Popen(args, cwd=code, stdout=subprocess.PIPE, stderr=err)
        assert proc.stdout is not None
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.stdout.close()
    if proc.returncode != 0:
        raise SystemExit(f"stage {stage} failed (exit {proc.returncode}); see {log}")
    facts = json.loads(out.decode("utf-8").strip().splitlines()[-1])
    maxrss = usage.ru_maxrss / 1024
    peak = facts["vm_hwm_kb"] / 1024 if facts.get("vm_hwm_kb") else maxrss
    return Measured(stage, wall, usage.ru_utime + usage.ru_stime, peak, maxrss, load_before, os.getloadavg(),
                    facts)


def process_figures(pid: int) -> dict[str, float | None]:
    """CPU seconds and peak RSS (``VmHWM``) of a running process, from ``/proc`` (Linux)."""
    out: dict[str, float | None] = {"cpu_s": None, "peak_rss_mb": None}
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        out["cpu_s"] = round((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), 2)
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                out["peak_rss_mb"] = round(int(line.split()[1]) / 1024, 1)
    except (OSError, ValueError, IndexError):
        pass
    return out
