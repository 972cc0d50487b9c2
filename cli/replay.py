"""``lex replay``: serve corpus trees back as the Legilux / EUR-Lex publishers (loopback only)."""

from __future__ import annotations

import json

import click

from cli.output import json_option
from legal.errors import ConfigError


@click.group(name="replay")
def group() -> None:
    """The replay publisher: a corpus tree served as SPARQL + files, with fault injection.

    \b
    Example:
      lex replay serve --corpus var/tree-lu --corpus var/tree-eu --port 8765
      lex ingest run --publisher lu-legilux --source replay --replay-url http://127.0.0.1:8765 --tree var/tree-lu2
    """


@group.command("serve")
@click.option("--corpus", "corpora", multiple=True, required=True, type=click.Path(exists=True, file_okay=False),
              help="A corpus tree (ours, lex-tree/1, or a published lex-corpus tree); one per publisher.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="Port on 127.0.0.1.")
@click.option("--faults", "faults_json", default=None,
              help='Initial fault switches as JSON, e.g. \'{"rate_limit": 3, "retry_after": 2}\'.')
@click.option("--work", "works", multiple=True, help="Serve only these work slugs (repeatable).")
@click.option("--warm/--no-warm", default=True, show_default=True,
              help="Build every Formex zip before serving (as the live Cellar has them ready).")
@json_option
def serve(corpora: tuple[str, ...], port: int, faults_json: str | None, works: tuple[str, ...], warm: bool,
          as_json: bool) -> None:
    """Serve CORPUS trees on http://127.0.0.1:PORT until interrupted.

    \b
    Endpoints: /sparqlendpoint and /filestore/… (Legilux); /webapi/rdf/sparql,
    /resource/celex/… and /resource/cellar/… (EUR-Lex); /_replay/faults (GET/POST JSON),
    /_replay/reset, /_replay/stats. With --json, one line {"url", "publishers": {id: versions}}
    is printed on stdout before listening starts.
    \b
    Example:
      lex replay serve --corpus ../shared/fixtures/lex-corpus-lu-legilux --port 8765
    """
    from publishers.replay import ReplayPublisher, load_source, serve_forever

    sources = [load_source(path, works=works or None) for path in corpora]
    replay = ReplayPublisher(sources)
    if faults_json:
        try:
            replay.set_faults(**json.loads(faults_json))
        except (ValueError, TypeError) as exc:
            raise ConfigError(f"--faults is not a JSON object of fault switches: {exc}", code="invalid_fault") from None
    if warm:
        replay.warm()
    if as_json:
        click.echo(json.dumps({"url": f"http://127.0.0.1:{port}",
                               "publishers": {s.publisher.value: len(s.current) for s in sources}}, sort_keys=True))
    else:
        names = ", ".join(f"{s.publisher.value} ({len(s.current)} versions)" for s in sources)
        click.echo(f"replaying {names} on http://127.0.0.1:{port}", err=True)
    serve_forever(replay.app(), port=port)
