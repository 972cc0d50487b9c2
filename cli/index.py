"""``lex index``: build one SQLite FTS5 index per publisher, and verify built indexes.

A thin shell over :mod:`derive.index`; errors are :class:`legal.errors.LexError`, reported once
by :func:`cli.main.main`.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import click

from cli.output import echo_json, json_option, phase_progress
from corpus_tree import CorpusTree
from derive.index import actterms
from derive.index.build import build_from_paths
from derive.index.inputs import as_dict, latest_transaction_time, work_publisher
from derive.index.progress import Progress
from derive.index.schema import index_file_name
from derive.index.verify import verify_index
from legal.errors import IndexError_
from legal.ids import Publisher


@click.group(name="index")
def group() -> None:
    """Per-publisher SQLite indexes (lex-evidence-index/1): build, verify.

    \b
    Example:
      lex derive run --tree var/tree-eu --out var/dataset-eu
      lex index build --tree var/tree-eu --dataset var/dataset-eu --out var/index
      lex index verify var/index
    """


class _Trees:
    """Several corpus trees read as one (:class:`derive.index.inputs.TreeLike`), one work at a time."""

    def __init__(self, trees: list[CorpusTree]) -> None:
        self._trees = trees
        self._owner: dict[str, CorpusTree] = {}

    def manifest(self) -> Any:
        if len(self._trees) == 1:
            return self._trees[0].manifest()
        return {"trees": [as_dict(t.manifest()) for t in self._trees]}

    def works(self) -> Iterator[Any]:
        for tree in self._trees:
            for work in tree.works():
                self._owner[str(as_dict(work)["slug"])] = tree
                yield work

    def versions(self, slug: str) -> Sequence[Any]:
        if not self._owner:
            for _ in self.works():
                pass
        tree = self._owner.get(slug)
        return tree.versions(slug) if tree is not None else ()


def _publishers(tree: _Trees) -> list[str]:
    return sorted({work_publisher(as_dict(w)) for w in tree.works()})


def _reporter(enabled: bool) -> Callable[[Progress], None] | None:
    """On a terminal: one line redrawn in place; otherwise a log line every 10 s and at each phase end."""
    if not enabled:
        return None
    tty = sys.stderr.isatty()
    last_phase = [""]
    last_at = [0.0]

    def report(p: Progress) -> None:
        if tty:
            click.echo(f"\r\x1b[K{p.line()}", nl=False, err=True)
            if p.total and p.done >= p.total:
                click.echo("", err=True)
            return
        now = time.monotonic()
        if p.phase != last_phase[0] or now - last_at[0] >= 10 or (p.total and p.done >= p.total):
            click.echo(p.line(), err=True)
            last_phase[0], last_at[0] = p.phase, now

    return report


@group.command("build")
@click.option("--tree", "trees", required=True, multiple=True, type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="A corpus tree (lex-tree/1); repeat for several.")
@click.option("--dataset", "datasets", required=True, multiple=True,
              type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="A per-article dataset directory built by `lex derive`; repeat for several.")
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Directory receiving <publisher>.sqlite and <publisher>.stamp.json.")
@click.option("--built-at", default=None, metavar="YYYY-MM-DDTHH:MM:SSZ",
              help="The build instant recorded in the stamp. Default: the newest transaction time in the tree "
                   "(never the clock, so a rebuild is byte-identical).")
@click.option("--publisher", "publishers", multiple=True, help="Only these publishers (default: all in the tree).")
@click.option("--incremental-from", "previous", default=None,
              type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Directory holding the previous <publisher>.sqlite: only works whose inputs changed are rebuilt "
                   "(same content digest as a full build; a full build when it cannot be updated).")
@click.option("--incremental", is_flag=True, help="Shorthand for --incremental-from OUT.")
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Progress on stderr (a live line on a terminal, a log line every 10 s otherwise).")
@click.option("--json", "as_json", is_flag=True, help="Print each build's stamp summary and metrics as JSON.")
@click.option("--act-terms", "act_terms_dir", default=None, type=click.Path(file_okay=False, path_type=Path),
              help="Directory of act-terms *.jsonl files (default: the packaged derive/index/act_terms; an absent "
                   "or empty directory means no terms).")
def build(trees: tuple[Path, ...], datasets: tuple[Path, ...], out: Path, built_at: str | None,
          publishers: tuple[str, ...], previous: Path | None, incremental: bool, progress: bool, as_json: bool,
          act_terms_dir: Path | None) -> None:
    """Build the index of every publisher found in the tree(s), in memory that does not grow with the corpus.

    \b
    Example:
      lex derive run --tree var/tree-lu --out var/dataset-lu
      lex index build --tree var/tree-eu --dataset var/dataset-eu --out var/index --built-at 2026-08-22T00:00:00Z
      lex index build --tree var/tree-lu --dataset var/dataset-lu --out var/index --incremental
    """
    if act_terms_dir is not None:
        actterms.DIRECTORY.set(act_terms_dir)
    tree = _Trees([CorpusTree.open(t) for t in trees])
    stamp_time = built_at or latest_transaction_time(tree)
    if stamp_time is None:
        raise IndexError_("no transaction time in the tree; pass --built-at", code="bad_built_at")
    if incremental and previous is None and out.is_dir():
        previous = out
    wanted = [Publisher.parse(p) for p in (publishers or _publishers(tree))]
    report = _reporter(progress and not as_json)
    summaries = []
    for publisher in wanted:
        result = build_from_paths(publisher, tree, list(datasets), out, built_at=stamp_time, previous=previous,
                                  progress=report)
        stamp, metrics = result.stamp, result.metrics
        summaries.append({"index": result.index_path.name, "sha256": result.index_sha256, "bytes": result.index_bytes,
                          "content_digest": stamp["content_digest"], "metrics": metrics})
        if as_json:
            continue
        click.echo(f"{result.index_path.name}: {stamp['count.works']} works, {stamp['count.versions']} versions, "
                   f"{stamp['count.provisions']} provisions, {stamp['count.texts']} texts, "
                   f"{result.index_bytes} bytes, {metrics.get('mode')} build, {metrics.get('seconds')} s "
                   f"({metrics.get('cpu_seconds')} CPU-s)"
                   + (f", {metrics['works_changed']} works changed" if "works_changed" in metrics else ""))
        click.echo(f"  content_digest {stamp['content_digest']}  sha256 {result.index_sha256}")
    if as_json:
        click.echo(json.dumps(summaries, indent=2))


@group.command("verify")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the reports as JSON.")
def verify(paths: tuple[Path, ...], as_json: bool) -> None:
    """Verify index files (or every index in a directory): format, counts, content digest, texts, stamp file.

    \b
    Example:
      lex index verify var/index
    """
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(path / index_file_name(p.value) for p in Publisher if (path / index_file_name(p.value)).is_file())
        else:
            files.append(path)
    if not files:
        raise IndexError_("no index file found", code="index_missing")
    reports = [verify_index(f) for f in files]
    if as_json:
        click.echo(json.dumps([{"index": r.index, "ok": r.ok, "problems": r.problems,
                                "content_digest": r.stamp.get("content_digest")} for r in reports], indent=2))
    else:
        for r in reports:
            click.echo(f"{r.index}: {'ok' if r.ok else 'FAILED'}" + "".join(f"\n  - {p}" for p in r.problems))
    failed = [r.index for r in reports if not r.ok]
    if failed:
        raise IndexError_("index verification failed", code="index_verify_failed", subject=", ".join(failed))


@group.command("vectors")
@click.option("--index-dir", required=True, type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Directory holding <publisher>.sqlite; the vectors are written beside each index.")
@click.option("--publisher", "publishers", multiple=True, help="Only these publishers (default: every index found).")
@click.option("--cache", "cache_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Content-addressed embedding cache (SQLite) reused across builds; never changes the output.")
@click.option("--scope", type=click.Choice(["all", "titles"]), default="all", show_default=True,
              help="all: provision states and work titles; titles: work titles only (affordable on full corpora).")
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Progress on stderr (a live line on a terminal, a log line every 10 s otherwise).")
@json_option
def vectors(index_dir: Path, publishers: tuple[str, ...], cache_path: Path | None, scope: str, progress: bool,
            as_json: bool) -> None:
    """Embed provision states and work titles for the hybrid lane: <publisher>.vectors.npy + .vectors.json.

    Needs the optional encoder (pip install 'lex-evidence[hybrid]'); deterministic for the same index
    and encoder. See docs/hybrid.md.

    \b
    Example:
      lex index vectors --index-dir var/index --cache var/embedding-cache.sqlite
      lex index vectors --index-dir var/index --scope titles
    """
    from derive.vectors.build import build_vectors, find_indexes
    from derive.vectors.encoder import load_encoder

    encoder = load_encoder()
    wanted = {Publisher.parse(p).value for p in publishers}
    summaries = []
    for path in find_indexes(index_dir):
        name = path.name.removesuffix(".sqlite")
        if wanted and name not in wanted:
            continue
        with phase_progress(progress and not as_json) as reporter:
            tick = (lambda done, total, phase=f"{name} vectors": reporter(phase, done, total)) if reporter else None
            result = build_vectors(path, encoder, cache_path=cache_path, progress=tick, scope=scope)
        summaries.append({"vectors": result.vectors_path.name, "count": result.count, "state_rows": result.state_rows,
                          "work_rows": result.work_rows, "chunks_embedded": result.chunks_embedded,
                          "chunks_cached": result.chunks_cached, "seconds": round(result.seconds, 3),
                          "sha256": result.manifest["vectors"]["sha256"], "encoder": encoder.identity.encoder_id})
        if as_json:
            continue
        click.echo(f"{result.vectors_path.name}: {result.count} vectors ({result.state_rows} provision chunks, "
                   f"{result.work_rows} work titles), {result.chunks_embedded} embedded, {result.chunks_cached} cached, "
                   f"{result.seconds:.1f} s")
        click.echo(f"  sha256 {result.manifest['vectors']['sha256']}  encoder {encoder.identity.encoder_id}")
    if as_json:
        echo_json(summaries)
