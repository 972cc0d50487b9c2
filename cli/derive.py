"""``lex derive``: derive the per-article dataset, verify it, build the git lens.

A thin shell over :mod:`derive`; errors are :class:`legal.errors.LexError`, reported once by
:func:`cli.main.main`. ``run`` exits 2 when any version could not be derived (each is listed),
``verify`` exits 3 on any mismatch, ``ratchet`` exits 4 when a work's empty-provision signatures grew.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from cli.output import echo_json, json_option, phase_progress
from corpus_tree import CorpusTree
from derive.dataset import BuildReport, build_dataset, count_versions, default_workers, merge_shards
from derive.git_lens import build_git_lens
from derive.lint import lint_dataset
from derive.ratchet import check_ratchet, empty_signature_counts
from derive.verify import verify_dataset
from legal.errors import ConfigError

TREE = click.Path(exists=True, file_okay=False, path_type=Path)
WORKERS = click.option("--workers", type=click.IntRange(min=1), default=None,
                       help="Derivation processes, parallel over works; the output is the same bytes "
                            "whatever the number [default: the number of cores].")


class RunFailed(click.ClickException):
    """The run completed but some versions were refused (exit 2)."""

    exit_code = 2


class VerifyFailed(click.ClickException):
    """The dataset differs from a fresh derivation (exit 3)."""

    exit_code = 3


class RatchetFailed(click.ClickException):
    """Some work's empty-provision signatures grew past the accepted baseline (exit 4)."""

    exit_code = 4


def _shard(value: str | None) -> tuple[int, int] | None:
    if value is None:
        return None
    try:
        i, n = (int(x) for x in value.split("/", 1))
    except ValueError:
        raise ConfigError(f"--shard takes I/N (e.g. 0/4), not {value!r}", code="bad_shard", subject=value) from None
    return i, n


@contextmanager
def _bar(tree: CorpusTree, enabled: bool, label: str,
         shard: tuple[int, int] | None = None) -> Iterator[Callable[[str], None] | None]:
    """A per-version tick drawing ``label: done/total`` on stderr (see :class:`cli.output.PhaseProgress`)."""
    with phase_progress(enabled) as reporter:
        if reporter is None:
            yield None
            return
        total = count_versions(tree, shard)
        done = [0]

        def tick(_lex_id: str) -> None:
            done[0] += 1
            reporter(label, done[0], total)

        yield tick


@click.group(name="derive")
def group() -> None:
    """Per-article derivation: profiles → provisions → dataset (JSONL + Parquet).

    \b
    Example:
      lex derive run --tree var/tree --out var/dataset
      lex derive verify var/dataset --tree var/tree
      lex derive git-lens var/tree --out var/git-lens
      lex derive ratchet var/dataset.accepted var/dataset
    """


@group.command(name="run")
@click.option("--tree", "tree_path", required=True, type=TREE, help="Corpus tree (lex-tree/1) to derive.")
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Dataset directory (replaced atomically).")
@click.option("--cache", "cache_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Per-work cache directory [default: .<OUT name>.cache beside OUT].")
@click.option("--no-cache", is_flag=True, help="Derive every work; read and write no cache.")
@click.option("--shard", "shard_spec", metavar="I/N", default=None,
              help="Derive only shard I of N (stable by work slug) into a shard output for `merge`.")
@WORKERS
@click.option("--progress/--no-progress", default=True, show_default=True, help="Show a progress bar.")
@click.option("--json", "as_json", is_flag=True, help="Print the run summary as JSON.")
def run_cmd(tree_path: Path, out: Path, cache_dir: Path | None, no_cache: bool, shard_spec: str | None,
            workers: int | None, progress: bool, as_json: bool) -> None:
    """Derive every version of a tree into OUT: provisions.jsonl/.parquet, gaps, history.

    Incremental: a work whose inputs (version records, held evidence, code, limits) are
    unchanged is reused from the cache, not re-derived; the files are byte-identical to a
    from-scratch build. OUT is replaced only when the run completes.

    Versions whose bodies are refused (malformed XML, unknown namespace, zip bomb, body over
    the size bound) are listed with the evidence hash and skipped; the exit status is then 2.

    \b
    Example:
      lex derive run --tree var/tree --out var/dataset
      lex derive run --tree var/tree --out var/dataset --workers 4
      lex derive run --tree var/tree --out var/shards/0 --shard 0/2
      lex derive run --tree var/tree --out var/shards/1 --shard 1/2
    """
    shard = _shard(shard_spec)
    tree = CorpusTree.open(tree_path)
    with _bar(tree, progress and not as_json, "derive", shard) as tick:
        report = build_dataset(tree, out, progress=tick, cache=cache_dir, use_cache=not no_cache, shard=shard,
                               workers=workers or default_workers())
    _report(report, out, as_json)


def _report(report: BuildReport, out: Path, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(report.run_dict(), indent=2, sort_keys=True))
    else:
        summary = report.to_dict()
        click.echo(f"derived {summary['provisions']} provisions ({summary['empty_provisions']} empty) from "
                   f"{summary['versions']} versions of {summary['works']} works into {out}")
        click.echo(f"works: {report.works_derived} derived, {report.works_reused} reused from the cache")
        click.echo(f"profiles: {json.dumps(summary['profiles'], sort_keys=True)}  gaps: "
                   f"{json.dumps(summary['gaps'], sort_keys=True)}")
    for error in report.errors:
        click.echo(f"error: {error.get('lex_id') or error['work_id']} [{error.get('language')}] "
                   f"{error['code']}: {error['message']} (evidence {error.get('evidence_sha256')})", err=True)
    if report.errors:
        raise RunFailed(f"{len(report.errors)} version(s) could not be derived")


@group.command(name="merge")
@click.argument("shards", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Dataset directory (replaced atomically).")
@click.option("--json", "as_json", is_flag=True, help="Print the run summary as JSON.")
def merge_cmd(shards: tuple[Path, ...], out: Path, as_json: bool) -> None:
    """Merge the outputs of shards 0..N-1 of one build into OUT (the same bytes as an
    unsharded build). Exit 2 when the shards hold refused versions.

    \b
    Example:
      lex derive merge var/shards/0 var/shards/1 --out var/dataset
    """
    report = merge_shards(list(shards), out)
    _report(report, out, as_json)


@group.command(name="ratchet")
@click.argument("baseline", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("dataset", type=click.Path(exists=True, file_okay=False, path_type=Path))
@json_option
def ratchet_cmd(baseline: Path, dataset: Path, as_json: bool) -> None:
    """Refuse works whose empty-provision signatures grew past the accepted BASELINE dataset
    (reference model §6.7); exit 4 listing them.

    \b
    Example:
      lex derive ratchet var/dataset.accepted var/dataset
    """
    problems = check_ratchet(empty_signature_counts(baseline), empty_signature_counts(dataset))
    if as_json:
        echo_json({"ok": not problems, "works_refused": len({p.work_id for p in problems}),
                   "problems": [p.to_dict() for p in problems]})
    for problem in problems:
        click.echo(f"refused: {problem}", err=True)
    if not as_json:
        click.echo(f"ratchet: {len({p.work_id for p in problems})} work(s) refused, "
                   f"{len(problems)} signature(s) grew")
    if problems:
        raise RatchetFailed("empty-provision ratchet refused some works")


@group.command(name="verify")
@click.argument("dataset", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--tree", "tree_path", required=True, type=TREE, help="The tree the dataset was derived from.")
@WORKERS
@click.option("--progress/--no-progress", default=False, show_default=True, help="Show a progress bar.")
@json_option
def verify_cmd(dataset: Path, tree_path: Path, workers: int | None, progress: bool, as_json: bool) -> None:
    """Re-derive DATASET from its tree and byte-compare every file (exit 3 on any difference),
    then print the text lint of DATASET (suspicious patterns per profile, with examples).

    \b
    Example:
      lex derive verify var/dataset --tree var/tree
      lex derive verify var/dataset --tree var/tree --workers 2
    """
    tree = CorpusTree.open(tree_path)
    with _bar(tree, progress and not as_json, "verify") as tick:
        report = verify_dataset(dataset, tree, progress=tick, workers=workers or default_workers())
    lint = lint_dataset(dataset)  # counts only; never changes the exit status
    if as_json:
        echo_json({"ok": report.ok, "compared": report.compared, "mismatched": report.mismatched,
                   "missing": report.missing, "extra": report.extra, "lint": lint.to_dict()})
    else:
        click.echo(report.line())
    for kind, names in (("mismatched", report.mismatched), ("missing", report.missing), ("extra", report.extra)):
        for name in names:
            click.echo(f"  {kind}: {name}", err=True)
    if not as_json:
        click.echo("\n".join(lint.lines()))
    if not report.ok:
        raise VerifyFailed("dataset does not match a fresh derivation")


@group.command(name="git-lens")
@click.argument("tree_path", metavar="TREE", type=TREE)
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Directory of the generated git repository (absent or empty).")
@click.option("--force", is_flag=True, help="Replace a non-empty output directory.")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Show a progress bar.")
@json_option
def git_lens_cmd(tree_path: Path, out: Path, force: bool, progress: bool, as_json: bool) -> None:
    """Write a generated, never-authoritative git repository: one file per work, one commit
    per legal date (commit date = legal date; pre-1970 clamped, true date in `Legal-Date:`).

    \b
    Example:
      lex derive git-lens var/tree --out var/git-lens
    """
    tree = CorpusTree.open(tree_path)
    with _bar(tree, progress and not as_json, "git-lens") as tick:
        report = build_git_lens(tree, out, force=force, progress=tick)
    if as_json:
        echo_json({"out": str(out), "commits": report.commits, "works": report.works, "head": report.head,
                   "skipped_errors": report.skipped_errors})
    else:
        click.echo(f"git lens: {report.commits} commits over {report.works} works, HEAD {report.head} in {out}")
    for lex_id in report.skipped_errors:
        click.echo(f"skipped (derivation error): {lex_id}", err=True)
