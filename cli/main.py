"""``lex``: one thin command line over the same functions the Dagster assets call.

Each command group lives in its own module (``cli/<group>.py``) exposing a click group
named ``group``; this module only assembles them. Every error the project raises on purpose
(:class:`legal.errors.LexError`) is caught once here and printed as one line with its code,
and the process exits non-zero.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys

import click

from legal.errors import LexError

# (group name, module) — a module that does not exist yet is simply not offered.
GROUPS = (
    ("corpus", "cli.corpus"),
    ("ingest", "cli.ingest"),
    ("replay", "cli.replay"),
    ("derive", "cli.derive"),
    ("index", "cli.index"),
    ("release", "cli.release"),
    ("bench", "cli.bench"),
    ("serve", "cli.serve"),
    ("mcp", "cli.mcp"),
    ("ask", "cli.ask"),
)


class LazyGroup(click.Group):
    """Imports a sub-command's module only when that sub-command is used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for name, module in GROUPS if importlib.util.find_spec(module) is not None]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        for name, module in GROUPS:
            if name == cmd_name and importlib.util.find_spec(module) is not None:
                command = getattr(importlib.import_module(module), "group", None)
                return command if isinstance(command, click.Command) else None
        return None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="lex-evidence")
def cli() -> None:
    """Point-in-time legal evidence from Legilux and EUR-Lex.

    \b
    Example:
      lex corpus import ../shared/fixtures/lex-corpus-eu-eurlex --into var/tree-eu
      lex corpus verify var/tree-eu
    """


def main(argv: list[str] | None = None) -> int:
    try:
        result = cli.main(args=argv, prog_name="lex", standalone_mode=False)
    except LexError as exc:
        click.echo(f"error: {exc.message} [{exc.family}/{exc.code}]" + (f" ({exc.subject})" if exc.subject else ""),
                   err=True)
        return 2
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return 130
    # With standalone_mode=False click returns ctx.exit(n)'s code instead of raising.
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(main())
