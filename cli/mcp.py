"""``lex mcp``: the ten legal operations as MCP tools over stdio (for desktop MCP clients)."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import click

from cli.output import error_document, json_option
from cli.serve import hybrid_hook, mount_config, mount_options


@click.command("mcp")
@mount_options
@json_option
def group(index_dir: Path | None, release_root: Path | None, trust_roots: tuple[Path, ...], unsigned_dev: bool,
          required: tuple[str, ...], as_json: bool) -> None:
    """Serve MCP over stdin/stdout after verifying and mounting the artifact set.

    Standard output carries only the MCP protocol; diagnostics go to standard error. A
    refused artifact set is reported on standard error and every tool then answers
    no_corpus_mounted. With --json that report is one JSON line {"error": {...}} on standard
    error (standard output stays the protocol's).

    \b
    Example (an MCP client's server command):
      lex mcp --release-root var/releases --trust-root keys/release-signing.pub.pem
    """
    import anyio

    from serve.admission import AdmissionLimits
    from serve.app import new_state
    from serve.core import OPERATIONS
    from serve.http.catalog import catalog
    from serve.mcp_server import run_stdio

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    config = mount_config(index_dir, release_root, trust_roots, unsigned_dev, required)
    state = new_state(config, AdmissionLimits(client_per_minute=0, global_per_minute=0), mount_hooks=(hybrid_hook,))
    mounted = state.mount()
    if mounted.refusal is not None and as_json:
        click.echo(error_document({"family": mounted.refusal.family, "code": mounted.refusal.code,
                                   "message": f"nothing mounted: {mounted.refusal.message}"}), err=True)
    elif mounted.refusal is not None:
        click.echo(f"lex mcp: nothing mounted: {mounted.refusal.family}/{mounted.refusal.code} "
                   f"{mounted.refusal.message}", err=True)
    try:
        anyio.run(run_stdio, state, catalog(OPERATIONS))
    finally:
        state.close()
