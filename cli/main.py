"""``lex``: one thin command line over the same functions the Dagster assets call.

Each command group lives in its own module (``cli/<group>.py``) exposing a click group
named ``group``; this module only assembles them. Every error the project raises on purpose
(:class:`legal.errors.LexError`) and every click error is caught once here and printed on
standard error: one line with its code, or, when the invocation has ``--json``, one JSON
document ``{"error": {"family", "code", "message", "subject"?}}``. The exit status is the same
either way (2 for a ``LexError``, click's own code otherwise). See docs/cli.md.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import click

from cli.output import click_error, error_document, json_requested
from legal.errors import LexError


def _corpus() -> click.Command:
    from cli import corpus
    return corpus.group


def _ingest() -> click.Command:
    from cli import ingest
    return ingest.group


def _replay() -> click.Command:
    from cli import replay
    return replay.group


def _derive() -> click.Command:
    from cli import derive
    return derive.group


def _index() -> click.Command:
    from cli import index
    return index.group


def _release() -> click.Command:
    from cli import release
    return release.group


def _bench() -> click.Command:
    from cli import bench
    return bench.group


def _serve() -> click.Command:
    from cli import serve
    return serve.group


def _mcp() -> click.Command:
    from cli import mcp
    return mcp.group


def _ask() -> click.Command:
    from cli import ask
    return ask.group


#: Command group name → its loader. Each group's module is imported only when that group is
#: used (``lex --help`` stays fast); a module that fails to import fails the command loudly.
GROUPS: dict[str, Callable[[], click.Command]] = {
    "corpus": _corpus, "ingest": _ingest, "replay": _replay, "derive": _derive, "index": _index,
    "release": _release, "bench": _bench, "serve": _serve, "mcp": _mcp, "ask": _ask,
}


class LazyGroup(click.Group):
    """Imports a sub-command's module only when that sub-command is used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(GROUPS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        loader = GROUPS.get(cmd_name)
        return loader() if loader is not None else None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="lex-evidence")
def cli() -> None:
    """Point-in-time legal evidence from Legilux and EUR-Lex.

    \b
    Example:
      lex corpus import ../shared/fixtures/lex-corpus-eu-eurlex --into var/tree-eu
      lex corpus import ../shared/fixtures/lex-corpus-lu-legilux --into var/tree-lu
      lex corpus verify var/tree-eu

    Every command takes --json (one JSON document on stdout; an error is
    {"error": {...}} on stderr) and -h/--help with examples. Shell completion:
    eval "$(_LEX_COMPLETE=bash_source lex)" (zsh_source, fish_source); see docs/cli.md.
    """


def main(argv: list[str] | None = None) -> int:
    as_json = json_requested(argv)

    def report(error: dict[str, str], text: str) -> None:
        click.echo(error_document(error) if as_json else text, err=True)

    try:
        result = cli.main(args=argv, prog_name="lex", standalone_mode=False)
    except LexError as exc:
        report(exc.to_dict(), f"error: {exc.message} [{exc.family}/{exc.code}]"
               + (f" ({exc.subject})" if exc.subject else ""))
        return 2
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.ClickException as exc:
        if as_json:
            report(click_error(exc), "")
        else:
            exc.show()
        return exc.exit_code
    except click.exceptions.Abort:
        report({"family": "cli", "code": "aborted", "message": "aborted"}, "aborted")
        return 130
    # With standalone_mode=False click returns ctx.exit(n)'s code instead of raising.
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(main())
