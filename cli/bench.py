"""``lex bench``: the retrieval benchmark (signed report) and the assistant evaluation.

A thin shell over :mod:`release.benchmark` (retrieval) and ``bench.bench_assistant``
(assistant, when that module is present). Errors are :class:`legal.errors.LexError`,
reported once by :func:`cli.main.main`. ``retrieval`` exits 5 when a release gate fails
(the report is still written), like the reference benchmark.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from cli.output import echo_json, json_option

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_JUDGMENTS = ROOT / "evals" / "retrieval_judgments.json"
GATES_FAILED_EXIT = 5
EXISTING_DIR = click.Path(exists=True, file_okay=False, path_type=Path)
EXISTING_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)


class GatesFailed(click.ClickException):
    """The retrieval run completed and its report was written, but a release gate failed."""

    exit_code = GATES_FAILED_EXIT


class CasesFailed(click.ClickException):
    """The assistant evaluation completed with failing cases."""

    exit_code = 1


@click.group(name="bench")
def group() -> None:
    """Benchmarks: retrieval relevance/latency (signed report) and the assistant evaluation.

    \b
    Example:
      lex bench retrieval --index-dir var/index --out var/retrieval-report.json
      lex bench retrieval --index-dir var/index --mode hybrid --out var/hybrid-report.json
      lex bench assistant --deterministic
    """


def envelope_path(out: Path) -> Path:
    """``report.json`` → ``report.dsse.json`` (next to the report)."""
    stem = out.name[: -len(".json")] if out.name.endswith(".json") else out.name
    return out.with_name(f"{stem}.dsse.json")


@group.command("retrieval")
@click.option("--index-dir", required=True, type=EXISTING_DIR,
              help="An artifact set in the release layout (indexes/<publisher>.sqlite) or a directory "
                   "holding <publisher>.sqlite indexes.")
@click.option("--mode", type=click.Choice(["keyword", "hybrid"]), default="keyword", show_default=True,
              help="Retrieval mode asked of the search operation.")
@click.option("--out", "out_path", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write the report (lex-retrieval-benchmark/1 JSON).")
@click.option("--judgments", "judgments_path", type=EXISTING_FILE, default=None,
              help="Judgments file (default: evals/retrieval_judgments.json of this checkout).")
@click.option("--sign-key", "sign_key", type=EXISTING_FILE, default=None,
              help="Encrypted PEM private key: also write the signed DSSE envelope.")
@click.option("--passphrase-env", default=None, help="Environment variable holding the key passphrase.")
@click.option("--envelope-out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where to write the envelope (default: <out>.dsse.json).")
@click.option("--trust-root", "trust_roots", multiple=True, type=EXISTING_FILE,
              help="Verify --index-dir as a signed artifact set with these roots and bind the report to its set id.")
@click.option("--gates", type=EXISTING_FILE, default=None,
              help='Gate policy file {"thresholds": {...}}; default: $LEX_RELEASE_GATES, else the defaults '
                   "(the same file evaluate and promote read; docs/release.md §5).")
@click.option("--created-at", default=None, metavar="YYYY-MM-DDTHH:MM:SSZ", help="Report time (default: now, UTC).")
@json_option
def retrieval(index_dir: Path, mode: str, out_path: Path, judgments_path: Path | None, sign_key: Path | None,
              passphrase_env: str | None, envelope_out: Path | None, trust_roots: tuple[Path, ...],
              gates: Path | None, created_at: str | None, as_json: bool) -> None:
    """Run the judged queries against the indexes in process and write the report.

    Given a set in the release layout (indexes/), the report is bound to the set's file
    names (indexes/<publisher>.sqlite), so `lex release evaluate` accepts it for that set.
    Nothing measured (no index, an empty index, no judged case) is a typed refusal, never a
    report.

    \b
    Example:
      lex bench retrieval --index-dir var/build --judgments evals/sample_judgments.json \\
          --out var/report.json --sign-key keys/release-signing.key.pem
      lex bench retrieval --index-dir var/index --out var/fixtures-report.json

    On the full corpora (a promoted set of them): --judgments evals/full_judgments_holdout.json
    (or full_judgments_tuning.json).
    """
    from legal.canonical import pretty_bytes
    from release.benchmark import load_judgments, retrieval_benchmark
    from release.benchmark.benchmark import index_layout
    from release.files import atomic_write
    from release.keys import DEFAULT_PASSPHRASE_ENV, load_signer, passphrase_from_env
    from release.report import gate_policy, sign_report
    from release.signatures import write_envelope
    from release.signing import utc_now
    from release.verify import verify_artifact_set
    from serve.core import LegalCore

    judgments = load_judgments(judgments_path or DEFAULT_JUDGMENTS)
    layout = index_layout(index_dir)
    verified = verify_artifact_set(index_dir, list(trust_roots)) if trust_roots else None
    policy = gate_policy(gates)
    artifact = {"set_id": verified.set_id} if verified is not None else {}
    with LegalCore.mount(layout.mount_dir, artifact) as core:
        report, _run = retrieval_benchmark(core, layout.mount_dir, judgments, created_at=created_at or utc_now(),
                                           mode=mode, verified=verified, policy=policy, name_prefix=layout.prefix)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(out_path, pretty_bytes(report))
    if not as_json:
        click.echo(summary(report))
        click.echo(f"report {out_path}")
    target = None
    if sign_key is not None:
        signer = load_signer(sign_key, passphrase_from_env(passphrase_env or DEFAULT_PASSPHRASE_ENV))
        target = envelope_out or envelope_path(out_path)
        write_envelope(target, sign_report(report, [signer]))
        if not as_json:
            click.echo(f"signed envelope {target}")
    if as_json:
        echo_json({"report": str(out_path), "envelope": str(target) if target else None, "passed": report["passed"],
                   "metrics": report["metrics"], "gates": report["gates"]})
    if not report["passed"]:
        failed = ", ".join(g["name"] for g in report["gates"] if not g["passed"])
        raise GatesFailed(f"release gates failed: {failed} (report written)")


def summary(report: dict[str, Any]) -> str:
    """A per-category table and the gates, as plain text."""
    context = report["context"]
    columns = ("cases", "passed", "mrr", "recall_at_10", "ndcg_at_10", "exact_first_accuracy",
               "temporal_leakage_failures", "no_hit_accuracy", "latency_p95_ms")
    lines = [f"mode {context['retrieval_mode']} ({context['mode_status']}), "
             f"judgments {context['judgments']['sha256'][:12]}, {context['judgments']['cases']} cases",
             "category      " + " ".join(f"{c[:9]:>9}" for c in columns)]
    rows = {**context["per_category"], "overall": {**report["metrics"], "passed": report["metrics"].get("cases_passed")}}
    for name, values in rows.items():
        lines.append(f"{name:<13} " + " ".join(f"{values.get(c, '-') or '-'!s:>9}" for c in columns))
    lines.extend(f"gate {'pass' if g['passed'] else 'FAIL'}  {g['name']} {g['comparison']} {g['threshold']}: {g['value']}"
                 for g in report["gates"])
    return "\n".join(lines)


@group.command("assistant")
@click.option("--cases", "cases_path", type=EXISTING_FILE, default=None, help="Assistant cases file.")
@click.option("--index-dir", type=EXISTING_DIR, default=None, help="Run against the real legal core over this index.")
@click.option("--deterministic", is_flag=True, help="Ignore any configured model (rule planner).")
@click.option("--dates", "dates_cases", is_flag=True,
              help="Run the date-provenance cases (evals/assistant_date_cases.json) instead.")
@json_option
def assistant(cases_path: Path | None, index_dir: Path | None, deterministic: bool, dates_cases: bool,
              as_json: bool) -> None:
    """Run the assistant evaluation (``bench.bench_assistant.run``) when that module is present;
    prints one line per case, the pass rate per category (and for adversarial cases), the score.

    \b
    Example:
      lex bench assistant --deterministic
      lex bench assistant --dates --deterministic
    """
    module = assistant_module()
    if module is None:
        raise click.ClickException("the assistant evaluation (bench/bench_assistant.py) is not available here")
    if dates_cases and cases_path is None:
        cases_path = getattr(module, "DATE_CASES", None)
    if as_json:
        result = module.run(cases_path, index_dir, deterministic=deterministic, out=lambda _line: None)
        echo_json(result)
    else:
        result = module.run(cases_path, index_dir, deterministic=deterministic)
    if isinstance(result, dict) and result.get("passed") != result.get("scored"):
        raise CasesFailed(f"assistant evaluation: {result.get('passed')}/{result.get('scored')} cases passed")


def assistant_module() -> Any | None:
    """``bench.bench_assistant`` of this checkout (the evaluation lives beside the benchmarks,
    not in the installed packages), else ``None``."""
    if (ROOT / "bench" / "bench_assistant.py").is_file() and str(ROOT) not in sys.path:
        sys.path.append(str(ROOT))
    try:
        from bench import bench_assistant
    except ModuleNotFoundError as exc:
        if exc.name not in ("bench", "bench.bench_assistant"):
            raise
        return None
    return bench_assistant
