"""``lex ingest``: enumerate a publisher, fetch what the tree lacks, apply all or nothing."""

from __future__ import annotations

import json
from pathlib import Path

import click

from cli.output import phase_progress
from legal.errors import ConfigError


@click.group(name="ingest")
def group() -> None:
    """Ingest publisher records into a corpus tree.

    \b
    Example:
      lex ingest run --publisher lu-legilux --source replay --replay-url http://127.0.0.1:8765 --tree var/tree-lu
    """


@group.command("run")
@click.option("--publisher", required=True, help="A registered publisher id (lu-legilux, eu-eurlex).")
@click.option("--source", type=click.Choice(["replay", "live"]), default="replay", show_default=True,
              help="replay: a `lex replay serve` on loopback; live: the real publisher endpoints.")
@click.option("--tree", type=click.Path(file_okay=False), required=True, help="Corpus tree (created if missing).")
@click.option("--replay-url", default=None, help="Base URL of the replay publisher (with --source replay).")
@click.option("--scope", "scope_path", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Scope file of a publisher that takes one (EUR-Lex: lex-eu-scope/1); default: its bundled scope.")
@click.option("--delay", type=float, default=None,
              help="Politeness delay between requests, seconds (default: 1.5 live, 0 replay).")
@click.option("--max-attempts", type=click.IntRange(1, 10), default=4, show_default=True)
@click.option("--user-agent", default=None, help="Override the identifying User-Agent.")
@click.option("--lenient", is_flag=True, help="Record body failures as text reasons instead of aborting.")
@click.option("--revalidate", is_flag=True,
              help="Ask every held body again (If-Modified-Since); changed bytes are appended as a new observation.")
@click.option("--allow-withdrawals", type=click.IntRange(0), default=None,
              help="Let this run withdraw up to N versions (an empty enumeration, or more than 5 % withdrawn, "
                   "is refused otherwise).")
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Progress on stderr (a live line on a terminal, a log line every 10 s otherwise).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def run(publisher: str, source: str, tree: str, replay_url: str | None, scope_path: str | None,
        delay: float | None, max_attempts: int, user_agent: str | None, lenient: bool, revalidate: bool,
        allow_withdrawals: int | None, progress: bool, as_json: bool) -> None:
    """Run one ingest: enumerate → fetch missing bodies → apply (nothing committed on failure).

    \b
    Example:
      lex ingest scope 32016R0679 32013R0575 --out var/eu-scope.json
      lex ingest run --publisher eu-eurlex --source replay --replay-url http://127.0.0.1:8765 \\
          --tree var/tree-chosen --scope var/eu-scope.json
      lex ingest run --publisher lu-legilux --source replay --replay-url http://127.0.0.1:8765 \\
          --tree var/tree-lu --revalidate

    Against the real publishers: --source live (no --replay-url), e.g.
    `lex ingest run --publisher lu-legilux --source live --tree var/tree-lu --revalidate`.

    Chosen EUR-Lex works: write a scope file (lex-eu-scope/1) naming them with `lex ingest
    scope CELEX…` (or by hand: {"schema": "lex-eu-scope/1", "scope_id", "approved_wave": 1,
    "languages": ["en", "fr"], "legal_forms": [...], "relations": {"depth": 0},
    "domains": [{"id", "wave": 1, "seeds": [CELEX, …]}]}; depth 1 adds the acts each seed
    amends, corrects, repeals or is based on) and pass it with --scope. Without --scope the
    bundled reviewed scope (publishers/eurlex/scope.json) is used. Legilux takes no scope.

    A replay that serves no corpus of --publisher is refused with
    ``replay_publisher_mismatch``, naming the publishers it does serve.

    An empty enumeration, or one that would withdraw more than 5 % of the current versions,
    is refused (error ``empty_enumeration`` / ``withdrawal_guard``; nothing is committed)
    unless --allow-withdrawals N covers it.
    """
    from publishers.wiring import run_ingest

    if source == "replay" and not replay_url:
        raise ConfigError("--source replay needs --replay-url", code="missing_replay_url")
    if source == "live" and replay_url:
        raise ConfigError("--replay-url is only for --source replay", code="invalid_option")
    with phase_progress(progress and not as_json) as reporter:
        report = run_ingest(publisher, tree, replay_url=replay_url, scope_path=scope_path, delay=delay,
                            max_attempts=max_attempts, user_agent=user_agent, strict=not lenient, progress=reporter,
                            revalidate=revalidate, allow_withdrawals=allow_withdrawals)
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2, sort_keys=True))
        return
    click.echo(f"{report.publisher}: {report.works} works, {report.versions} versions, "
               f"{report.manifestations_fetched} manifestations fetched, {report.bodies_new} new bodies, "
               f"{report.bodies_held_elsewhere} held elsewhere; {report.requests} requests, "
               f"{report.bytes_downloaded} bytes; events {report.events or 'none'}")
    if revalidate:
        click.echo(f"revalidated {report.bodies_revalidated} held bodies: {report.bodies_unchanged} unchanged, "
                   f"{report.bodies_changed} changed, {report.revalidation_failures} not revalidated")
    for note in report.notes:
        click.echo(f"  note: {note}")



@group.command("scope")
@click.argument("celexes", nargs=-1, required=True)
@click.option("--out", "out_path", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write the scope file (lex-eu-scope/1).")
@click.option("--depth", type=click.IntRange(0, 1), default=0, show_default=True,
              help="1: also the acts each seed amends, corrects, repeals or is based on (and those doing so to it).")
@click.option("--language", "languages", multiple=True, type=click.Choice(["en", "fr"]),
              help="Expression languages (repeatable; default: en and fr).")
@click.option("--scope-id", default="chosen-works", show_default=True, help="The scope's name, recorded per run.")
@click.option("--json", "as_json", is_flag=True, help="Print the scope document as JSON.")
def scope_cmd(celexes: tuple[str, ...], out_path: Path, depth: int, languages: tuple[str, ...], scope_id: str,
              as_json: bool) -> None:
    """Write an EUR-Lex scope file that ingests exactly the works CELEXES (for --scope).

    \b
    Example:
      lex ingest scope 32016R0679 32013R0575 --out var/eu-scope.json --depth 1
    """
    from legal.identifiers import check_celex
    from publishers.eurlex.scope import EurlexScope

    seeds = sorted({check_celex(c).upper() for c in celexes})
    document = {
        "schema": "lex-eu-scope/1", "scope_id": scope_id, "approved_wave": 1,
        "languages": list(languages or ("en", "fr")),
        "legal_forms": ["REG", "DIR", "DEC", "TREATY", "CHARTER"],
        "relations": {"depth": depth},
        "domains": [{"id": scope_id, "wave": 1, "seeds": seeds}],
    }
    EurlexScope.from_document(document, where=str(out_path))  # refuses what an ingest would refuse
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    if as_json:
        click.echo(json.dumps(document, indent=2, sort_keys=True))
    else:
        click.echo(f"scope {out_path}: {len(seeds)} seed work(s), relation depth {depth}")
