"""``lex corpus``: import published corpus trees, verify and repair a tree, show its statistics.

A thin shell over :mod:`corpus_tree`; errors are :class:`legal.errors.LexError` and are
reported once by :func:`cli.main.main`.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from cli.output import echo_json, json_option, phase_progress
from corpus_tree import CorpusTree
from corpus_tree.importer import import_published
from corpus_tree.manifest import text_holdings
from corpus_tree.verify import verify_tree

HELD_SHOWN = 20  # held-elsewhere bodies listed in the text report (all of them with --json)

@click.group(name="corpus")
def group() -> None:
    """Corpus trees (lex-tree/1): import, verify, statistics.

    \b
    Example:
      lex corpus import ../shared/fixtures/lex-corpus-lu-legilux --into var/tree
      lex corpus verify var/tree
      lex corpus stats var/tree --json
    """


@group.command(name="import")
@click.argument("src", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--into", "into", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Target tree (created if missing).")
@click.option("--evidence-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Evidence store location (default <tree>/evidence, or $LEX_EVIDENCE_DIR).")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Show progress bars.")
@click.option("--strict", is_flag=True, help="Refuse a source whose records name bodies it does not hold.")
@click.option("--rehash", is_flag=True, help="Re-read and re-verify bodies the evidence store already holds.")
@click.option("--json", "as_json", is_flag=True, help="Print the import report as JSON.")
def import_cmd(src: Path, into: Path, evidence_dir: Path | None, progress: bool, strict: bool, rehash: bool,
               as_json: bool) -> None:
    """Import a published lex-corpus/3 or lex-corpus/4 tree SRC into a tree.

    Every record is verified with the published hash recipe and every new body against its
    sha256 before anything is written; the import is all or nothing, and importing the same
    source again changes nothing. Bodies the store already holds are not read again unless
    --rehash. Bodies a record names but the source lacks are listed (held elsewhere: typed
    text gaps downstream); --strict refuses them.

    \b
    Example:
      lex corpus import ../shared/fixtures/lex-corpus-eu-eurlex --into var/tree
      lex corpus import ../shared/fixtures/lex-corpus-lu-legilux --into var/tree --json
    """
    with phase_progress(progress and not as_json) as bar:
        report = import_published(src, into, progress=bar, evidence_dir=evidence_dir, strict=strict,
                                  rehash=rehash)
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2, sort_keys=True))
        return
    click.echo(
        f"imported {report.source} ({report.schema}, {report.publisher}): "
        f"{report.records_verified} records verified, {report.errors} errors; "
        f"{report.records_written} written, {report.records_unchanged} unchanged; "
        f"{report.bodies_verified} bodies verified ({report.bodies_added} new, "
        f"{report.bodies_not_reread} already held, not re-read), "
        f"{report.bodies_held_elsewhere} held elsewhere"
    )
    for entry in report.held_elsewhere[:HELD_SHOWN]:
        click.echo(f"  held elsewhere: {entry['path']}  sha256 {entry['sha256']}")
    if len(report.held_elsewhere) > HELD_SHOWN:
        click.echo(f"  … and {len(report.held_elsewhere) - HELD_SHOWN} more (the whole list: --json)")


@group.command(name="verify")
@click.argument("tree", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--evidence-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Evidence store location (default <tree>/evidence, or $LEX_EVIDENCE_DIR).")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Show progress bars.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def verify_cmd(tree: Path, evidence_dir: Path | None, progress: bool, as_json: bool) -> None:
    """Verify every record, body, identity and the manifest of TREE.

    Lists every problem with its path; exits 1 if there is any, 0 otherwise.

    \b
    Example:
      lex corpus verify var/tree
    """
    with phase_progress(progress and not as_json) as bar:
        report = verify_tree(tree, evidence_dir=evidence_dir, progress=bar)
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2, sort_keys=True))
    else:
        for problem in report.problems:
            click.echo(str(problem))
        status = "OK" if report.ok else f"FAILED: {len(report.problems)} problem(s)"
        click.echo(
            f"{status} — {report.works} works, {report.versions} versions ({report.current_versions} current), "
            f"{report.expressions} expressions, {report.observations} observations, "
            f"{report.bodies_checked} bodies re-hashed ({report.bytes_hashed / 1e6:.1f} MB), "
            f"{report.held_elsewhere} held elsewhere"
        )
    if not report.ok:
        raise click.exceptions.Exit(1)


@group.command(name="repair")
@click.argument("tree", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--evidence-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Evidence store location (default <tree>/evidence, or $LEX_EVIDENCE_DIR).")
@json_option
def repair_cmd(tree: Path, evidence_dir: Path | None, as_json: bool) -> None:
    """Repair what is safe to repair in TREE, then verify it.

    Rolls an interrupted commit back (or forward if it was committed), removes staging orphans
    of killed runs (never a live run's) and leftover temporary files, and makes writable blobs
    read-only after re-hashing them. Nothing referenced is ever deleted. Exits 1 if `verify`
    still reports a problem.

    \b
    Example:
      lex corpus repair var/tree
    """
    from corpus_tree import txn
    from corpus_tree.evidence import EvidenceStore
    from corpus_tree.tree import resolve_evidence_dir

    store = EvidenceStore(resolve_evidence_dir(tree, evidence_dir))
    repaired = list(txn.repair(tree, store) or [])
    report = verify_tree(tree, evidence_dir=evidence_dir)
    if as_json:
        echo_json({"repaired": repaired, "verify": report.to_dict(), "ok": report.ok})
        if not report.ok:
            raise click.exceptions.Exit(1)
        return
    for line in repaired or ["nothing to repair"]:
        click.echo(line)
    for problem in report.problems:
        click.echo(str(problem))
    if not report.ok:
        raise click.exceptions.Exit(1)
    click.echo("OK")


@group.command(name="stats")
@click.argument("tree", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
def stats_cmd(tree: Path, as_json: bool) -> None:
    """Show the counts of TREE (from its manifest): works, versions, expressions, bodies.

    \b
    Example:
      lex corpus stats var/tree --json
    """
    opened = CorpusTree.open(tree)
    manifest = opened.manifest()
    holdings = text_holdings(opened.iter_versions(verify=False))
    stats = {k: v for k, v in manifest.items() if k not in ("works_index",)}
    stats["text_holdings"] = holdings
    if as_json:
        click.echo(json.dumps(stats, indent=2, sort_keys=True))
        return
    counts = manifest.get("counts", {})
    width = max((len(k) for k in counts), default=0)
    for key, value in counts.items():
        click.echo(f"{key:<{width}}  {value}")
    click.echo(f"{'languages':<{width}}  {', '.join(manifest.get('languages', []))}")
    if "valid_from_earliest" in manifest:
        click.echo(f"{'valid_from':<{width}}  {manifest['valid_from_earliest']} .. {manifest['valid_from_latest']}")
    for pub, entry in manifest.get("publishers", {}).items():
        c = entry.get("counts", {})
        click.echo(f"{pub}: {c.get('works')} works, {c.get('versions')} versions, "
                   f"{c.get('expressions')} expressions, {c.get('bodies_held')} bodies held, "
                   f"{c.get('bodies_held_elsewhere')} held elsewhere")
        h = holdings.get(pub, {})
        click.echo(f"{pub}: text held for {h.get('expressions_text_held', 0)} expressions; "
                   f"text held elsewhere only for {h.get('expressions_text_held_elsewhere_only', 0)}")
