"""``lex ask``: one assistant turn over a local index directory, printed or as JSON.

A thin shell over :mod:`assistant`: it mounts the indexes of ``--index-dir`` read-only
(a local, unverified mount: ``lex serve`` is the verified path), runs one turn with the
configured model or, with none configured, the deterministic rule planner, and prints the
typed reply and one line per operation.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import click

from legal.errors import ConfigError

INDEX_ENV = "LEX_INDEX_DIR"


@click.command(name="ask")
@click.argument("question")
@click.option("--index-dir", type=click.Path(path_type=Path, file_okay=False), default=None,
              help=f"Directory of <publisher>.sqlite indexes. Default: ${INDEX_ENV}, else var/index.")
@click.option("--json", "as_json", is_flag=True, help="Print the terminal object as JSON.")
def group(question: str, index_dir: Path | None, as_json: bool) -> None:
    """Ask what a law said on a date; the answer is a typed result, never advice.

    \b
    Example:
      lex ask "What did Article 6 of the GDPR say on 1 March 2020?" --index-dir var/index
      lex ask "Show coverage." --json
    """
    from assistant.build import assistant_for_core
    from serve.core import LegalCore

    directory = index_dir or Path(os.environ.get(INDEX_ENV) or "var/index")
    if not directory.is_dir():
        raise ConfigError("the index directory does not exist", code="not_a_directory", subject=directory.name)
    with LegalCore.mount(directory, {"set_id": f"local-unverified:{directory.name}"}) as core:
        assistant = assistant_for_core(core, os.environ)
        outcome = asyncio.run(assistant.ask(question))
    if as_json:
        click.echo(json.dumps({**outcome.body, "status": outcome.status}, ensure_ascii=False, indent=2))
        return
    click.echo(outcome.body.get("reply", ""))
    for operation in outcome.body.get("operations") or []:
        click.echo(f"  [{operation.get('tool') or 'plan'}] {operation['legal_outcome']} / "
                   f"{operation['transport_outcome']} effects={','.join(operation['effects'])}")
    if outcome.status != 200:
        raise click.exceptions.Exit(1)
