"""``lex index``: build one SQLite FTS5 index per publisher, and verify built indexes.

A thin shell over :mod:`derive.index`; errors are :class:`legal.errors.LexError`, reported once
by :func:`cli.main.main`.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from corpus_tree import CorpusTree
from derive.index.build import build_index
from derive.index.inputs import TreeInput, merge_datasets, read_dataset, read_tree
from derive.index.schema import index_file_name
from derive.index.verify import verify_index
from legal.errors import IndexError_
from legal.ids import Publisher


@click.group(name="index")
def group() -> None:
    """Per-publisher SQLite indexes (lex-evidence-index/1): build, verify.

    \b
    Example:
      lex index build --tree var/tree-eu --dataset var/dataset-eu --out var/index
      lex index verify var/index
    """


def _merge(trees: list[TreeInput]) -> TreeInput:
    if len(trees) == 1:
        return trees[0]
    works = tuple(w for t in trees for w in t.works)
    versions = {k: v for t in trees for k, v in t.versions.items()}
    manifest = {"trees": [t.manifest for t in trees]}
    return TreeInput(manifest, works, versions)


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
def build(trees: tuple[Path, ...], datasets: tuple[Path, ...], out: Path, built_at: str | None,
          publishers: tuple[str, ...]) -> None:
    """Build the index of every publisher found in the tree(s).

    \b
    Example:
      lex index build --tree var/tree-eu --dataset var/dataset-eu --out var/index --built-at 2026-08-22T00:00:00Z
    """
    tree = _merge([read_tree(CorpusTree.open(t)) for t in trees])
    data = merge_datasets([read_dataset(d) for d in datasets], [d.name for d in datasets])
    stamp_time = built_at or tree.latest_transaction_time()
    if stamp_time is None:
        raise IndexError_("no transaction time in the tree; pass --built-at", code="bad_built_at")
    wanted = [Publisher.parse(p) for p in (publishers or tree.publishers)]
    for publisher in wanted:
        started = time.perf_counter()
        result = build_index(publisher, tree, data, out, built_at=stamp_time)
        seconds = time.perf_counter() - started
        stamp = result.stamp
        click.echo(f"{result.index_path.name}: {stamp['count.works']} works, {stamp['count.versions']} versions, "
                   f"{stamp['count.provisions']} provisions, {stamp['count.texts']} texts, "
                   f"{result.index_bytes} bytes, {seconds:.2f} s")
        click.echo(f"  content_digest {stamp['content_digest']}  sha256 {result.index_sha256}")


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
def vectors(index_dir: Path, publishers: tuple[str, ...], cache_path: Path | None) -> None:
    """Embed provision states and work titles for the hybrid lane: <publisher>.vectors.npy + .vectors.json.

    Needs the optional encoder (pip install 'lex-evidence[hybrid]'); deterministic for the same index
    and encoder. See docs/hybrid.md.

    \b
    Example:
      lex index vectors --index-dir var/index --cache var/embedding-cache.sqlite
    """
    from derive.vectors.build import build_vectors, find_indexes
    from derive.vectors.encoder import load_encoder

    encoder = load_encoder()
    wanted = {Publisher.parse(p).value for p in publishers}
    for path in find_indexes(index_dir):
        if wanted and path.name.removesuffix(".sqlite") not in wanted:
            continue
        result = build_vectors(path, encoder, cache_path=cache_path)
        click.echo(f"{result.vectors_path.name}: {result.count} vectors ({result.state_rows} provision chunks, "
                   f"{result.work_rows} work titles), {result.chunks_embedded} embedded, {result.chunks_cached} cached, "
                   f"{result.seconds:.1f} s")
        click.echo(f"  sha256 {result.manifest['vectors']['sha256']}  encoder {encoder.identity.encoder_id}")
