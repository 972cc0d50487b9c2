"""``lex derive``: derive the per-article dataset, verify it, build the git lens.

A thin shell over :mod:`derive`; errors are :class:`legal.errors.LexError`, reported once by
:func:`cli.main.main`. ``run`` exits 2 when any version could not be derived (each is listed),
``verify`` exits 3 on any mismatch.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from corpus_tree import CorpusTree
from derive.dataset import build_dataset, count_versions
from derive.git_lens import build_git_lens
from derive.verify import verify_dataset

TREE = click.Path(exists=True, file_okay=False, path_type=Path)


class RunFailed(click.ClickException):
    """The run completed but some versions were refused (exit 2)."""

    exit_code = 2


class VerifyFailed(click.ClickException):
    """The dataset differs from a fresh derivation (exit 3)."""

    exit_code = 3


@contextmanager
def _bar(tree: CorpusTree, enabled: bool, label: str) -> Iterator[Callable[[str], None] | None]:
    if not enabled:
        yield None
        return
    bar: Any = click.progressbar(length=count_versions(tree), label=label, file=sys.stderr)
    with bar:
        yield lambda _lex_id: bar.update(1)


@click.group(name="derive")
def group() -> None:
    """Per-article derivation: profiles → provisions → dataset (JSONL + Parquet).

    \b
    Example:
      lex derive run --tree var/tree --out var/dataset
      lex derive verify var/dataset --tree var/tree
      lex derive git-lens var/tree --out var/git-lens
    """


@group.command(name="run")
@click.option("--tree", "tree_path", required=True, type=TREE, help="Corpus tree (lex-tree/1) to derive.")
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Dataset directory (replaced).")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Show a progress bar.")
@click.option("--json", "as_json", is_flag=True, help="Print the run summary as JSON.")
def run_cmd(tree_path: Path, out: Path, progress: bool, as_json: bool) -> None:
    """Derive every version of a tree into OUT: provisions.jsonl/.parquet, gaps, history.

    Versions whose bodies are refused (malformed XML, unknown namespace, zip bomb, body over
    the size bound) are listed with the evidence hash and skipped; the exit status is then 2.

    \b
    Example:
      lex derive run --tree var/tree --out var/dataset
    """
    tree = CorpusTree.open(tree_path)
    with _bar(tree, progress, "derive") as tick:
        report = build_dataset(tree, out, progress=tick)
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2, sort_keys=True))
    else:
        summary = report.to_dict()
        click.echo(f"derived {summary['provisions']} provisions ({summary['empty_provisions']} empty) from "
                   f"{summary['versions']} versions of {summary['works']} works into {out}")
        click.echo(f"profiles: {json.dumps(summary['profiles'], sort_keys=True)}  gaps: "
                   f"{json.dumps(summary['gaps'], sort_keys=True)}")
    for error in report.errors:
        click.echo(f"error: {error.get('lex_id') or error['work_id']} [{error.get('language')}] "
                   f"{error['code']}: {error['message']} (evidence {error.get('evidence_sha256')})", err=True)
    if report.errors:
        raise RunFailed(f"{len(report.errors)} version(s) could not be derived")


@group.command(name="verify")
@click.argument("dataset", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--tree", "tree_path", required=True, type=TREE, help="The tree the dataset was derived from.")
@click.option("--progress/--no-progress", default=False, show_default=True, help="Show a progress bar.")
def verify_cmd(dataset: Path, tree_path: Path, progress: bool) -> None:
    """Re-derive DATASET from its tree and byte-compare every file (exit 3 on any difference).

    \b
    Example:
      lex derive verify var/dataset --tree var/tree
    """
    tree = CorpusTree.open(tree_path)
    with _bar(tree, progress, "verify") as tick:
        report = verify_dataset(dataset, tree, progress=tick)
    click.echo(report.line())
    for kind, names in (("mismatched", report.mismatched), ("missing", report.missing), ("extra", report.extra)):
        for name in names:
            click.echo(f"  {kind}: {name}", err=True)
    if not report.ok:
        raise VerifyFailed("dataset does not match a fresh derivation")


@group.command(name="git-lens")
@click.argument("tree_path", metavar="TREE", type=TREE)
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Directory of the generated git repository (absent or empty).")
@click.option("--force", is_flag=True, help="Replace a non-empty output directory.")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Show a progress bar.")
def git_lens_cmd(tree_path: Path, out: Path, force: bool, progress: bool) -> None:
    """Write a generated, never-authoritative git repository: one file per work, one commit
    per legal date (commit date = legal date; pre-1970 clamped, true date in `Legal-Date:`).

    \b
    Example:
      lex derive git-lens var/tree --out var/git-lens
    """
    tree = CorpusTree.open(tree_path)
    with _bar(tree, progress, "git-lens") as tick:
        report = build_git_lens(tree, out, force=force, progress=tick)
    click.echo(f"git lens: {report.commits} commits over {report.works} works, HEAD {report.head} in {out}")
    for lex_id in report.skipped_errors:
        click.echo(f"skipped (derivation error): {lex_id}", err=True)
