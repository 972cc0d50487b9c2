"""Benchmark: signing and verifying artifact sets (small, and a 1 GiB synthetic set).

Run::

    .venv/bin/python -m bench.bench_release            # small set + 1 GiB set
    .venv/bin/python -m bench.bench_release --size-mib 256 --json bench-release.json

What it measures, per set: ``sign`` (hash every file, build the statement, sign, write the
envelope) and ``verify`` (:func:`release.verify_artifact_set`: envelope, signature, listing,
sizes, every hash), each as median and p95 (nearest rank) wall time, and verification
throughput in MB/s (10^6 bytes / median verify time) against the 500 MB/s target. The
large set is written with pseudo-random bytes (no sparse files, nothing compressible) into
a temporary directory that is deleted afterwards. Its files are in the page cache when
measured (they were just written): the figure is hashing throughput, not disk throughput.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from release.keys import KeySigner, TrustRoot, TrustStore, generate_private_key
from release.signing import sign_artifact_set
from release.verify import verify_artifact_set

MIB = 1 << 20
TARGET_MB_S = 500.0


def nearest_rank(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def timed(func: Callable[[], object], runs: int) -> list[tuple[float, float]]:
    """``(wall, cpu)`` seconds per run; CPU time (all threads) is less sensitive to a busy host."""
    samples = []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        func()
        samples.append((time.perf_counter() - wall, time.process_time() - cpu))
    return samples


def summary(samples: list[tuple[float, float]]) -> dict[str, float]:
    wall = [w for w, _ in samples]
    return {"median_s": statistics.median(wall), "p95_s": nearest_rank(wall, 0.95), "runs": len(samples),
            "cpu_median_s": statistics.median(c for _, c in samples)}


def write_random(path: Path, size: int, rng: random.Random) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        left = size
        while left:
            chunk = min(left, 8 * MIB)
            handle.write(rng.randbytes(chunk))
            left -= chunk


def small_set(directory: Path, rng: random.Random) -> int:
    files = {
        "indexes/eu-eurlex.sqlite": 96 * 1024,
        "indexes/eu-eurlex.stamp.json": 600,
        "indexes/lu-legilux.sqlite": 64 * 1024,
        "indexes/lu-legilux.stamp.json": 600,
        "dataset/provisions.jsonl": 40 * 1024,
        "corpus/eu-eurlex.manifest.json": 2048,
        "corpus/lu-legilux.manifest.json": 2048,
        "eu-scope.json": 512,
    }
    for name, size in files.items():
        write_random(directory / name, size, rng)
    return sum(files.values())


def large_set(directory: Path, rng: random.Random, size_mib: int) -> int:
    """A set shaped like a release: two big indexes, vectors, a dataset, many small files."""
    small_count = 64
    remaining = size_mib * MIB - small_count * 64 * 1024
    layout = {
        "indexes/eu-eurlex.sqlite": remaining * 45 // 100,
        "indexes/lu-legilux.sqlite": remaining * 20 // 100,
        "indexes/eu-eurlex.vectors": remaining * 25 // 100,
    }
    layout["dataset/provisions.parquet"] = remaining - sum(layout.values())
    layout.update({f"corpus/manifests/part-{i:03d}.json": 64 * 1024 for i in range(small_count)})
    for name, size in layout.items():
        write_random(directory / name, size, rng)
    return sum(layout.values())


def bench_set(label: str, directory: Path, total: int, signer: KeySigner, trust: TrustStore,
              sign_runs: int, verify_runs: int) -> dict[str, Any]:
    def sign() -> object:
        return sign_artifact_set(directory, [signer], created_by="bench", created_at="2026-01-01T00:00:00Z")

    sign_samples = timed(sign, sign_runs)
    verify_artifact_set(directory, trust)  # warm-up (and a correctness check)
    verify_samples = timed(lambda: verify_artifact_set(directory, trust), verify_runs)
    single_samples = timed(lambda: verify_artifact_set(directory, trust, workers=1), max(1, verify_runs // 2))
    verify = summary(verify_samples)
    single = summary(single_samples)
    return {
        "set": label,
        "files": sum(1 for p in directory.rglob("*") if p.is_file()) - 1,
        "bytes": total,
        "sign": summary(sign_samples),
        "verify": verify,
        "verify_single_thread": single,
        "verify_mb_s": total / 1e6 / verify["median_s"],
        "verify_single_thread_mb_s": total / 1e6 / single["median_s"],
        "verify_mb_per_cpu_s": total / 1e6 / verify["cpu_median_s"],
    }


def print_row(row: dict[str, Any]) -> None:
    mib = row["bytes"] / MIB
    print(f"{row['set']:<8} {row['files']:>5} files {mib:>9.1f} MiB | "
          f"sign median {row['sign']['median_s'] * 1000:9.2f} ms p95 {row['sign']['p95_s'] * 1000:9.2f} ms | "
          f"verify median {row['verify']['median_s'] * 1000:9.2f} ms p95 {row['verify']['p95_s'] * 1000:9.2f} ms | "
          f"{row['verify_mb_s']:8.0f} MB/s ({row['verify_single_thread_mb_s']:.0f} MB/s one thread, "
          f"{row['verify_mb_per_cpu_s']:.0f} MB per CPU-second)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-mib", type=int, default=1024, help="size of the large set (default 1024)")
    parser.add_argument("--skip-large", action="store_true")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures to this file")
    args = parser.parse_args(argv)

    rng = random.Random(20260101)
    private = generate_private_key("ed25519")
    signer = KeySigner.of(private)
    public = private.public_key()
    trust = TrustStore({signer.key_id: TrustRoot(signer.key_id, "ed25519", public, Path("bench-trust-root.pem"))})
    rows = []
    with tempfile.TemporaryDirectory(prefix="lex-bench-release-") as temp:
        small = Path(temp) / "small"
        rows.append(bench_set("small", small, small_set(small, rng), signer, trust, 30, 50))
        print_row(rows[-1])
        if not args.skip_large:
            large = Path(temp) / "large"
            start = time.perf_counter()
            total = large_set(large, rng, args.size_mib)
            print(f"(generated {total / MIB:.0f} MiB in {time.perf_counter() - start:.1f} s)")
            rows.append(bench_set(f"{args.size_mib}MiB", large, total, signer, trust, 3, 7))
            print_row(rows[-1])
    machine = {"python": platform.python_version(), "cpus": os.cpu_count(), "machine": platform.machine(),
               "load_average": os.getloadavg()}
    verdict = all(row["verify_mb_s"] >= TARGET_MB_S for row in rows if row["set"] != "small")
    print(f"target verify >= {TARGET_MB_S:.0f} MB/s on the large set: {'met' if verdict else 'NOT met'}; {machine}")
    if args.json is not None:
        args.json.write_text(json.dumps({"machine": machine, "target_mb_s": TARGET_MB_S, "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
