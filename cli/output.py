"""What every ``lex`` command shares for its output: ``--json``, the JSON encoder, progress.

``--json`` (:func:`json_option`) makes a command print **one JSON document on standard
output** describing its result (:func:`echo_json`), and nothing else there. Errors are not
printed by commands: :func:`cli.main.main` reports them once, as ``{"error": {...}}`` on
standard error under ``--json`` (:func:`error_document`). Progress always goes to standard
error (:func:`progress_line`), is never an empty label, and is off under ``--json`` (so that
a caller capturing both streams reads only JSON).
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

JSON_FLAG = "--json"


def json_option(func: F) -> F:
    """The ``--json`` flag, passed to the command as ``as_json``."""
    return click.option(JSON_FLAG, "as_json", is_flag=True,
                        help="Print the result as one JSON document on stdout (errors: JSON on stderr).")(func)


def echo_json(value: Any) -> None:
    """One JSON document on standard output (sorted keys, UTF-8 kept, paths as strings)."""
    click.echo(json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str))


def json_requested(argv: Sequence[str] | None) -> bool:
    """Whether ``--json`` is among the options of this invocation (before any ``--``)."""
    for arg in sys.argv[1:] if argv is None else argv:
        if arg == "--":
            return False
        if arg == JSON_FLAG:
            return True
    return False


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def click_error(exc: click.ClickException) -> dict[str, str]:
    """The ``{"family", "code", "message"}`` of a click error (usage error, or a command's
    own non-zero outcome such as ``derive/run_failed``)."""
    if isinstance(exc, click.UsageError):
        code = "usage_error" if type(exc) is click.UsageError else _snake(type(exc).__name__)
        return {"family": "usage", "code": code, "message": exc.format_message()}
    name = type(exc).__name__
    code = "failed" if name == "ClickException" else _snake(name)
    return {"family": "cli", "code": code, "message": exc.format_message()}


def error_document(error: dict[str, str]) -> str:
    """The one line printed on standard error for an error under ``--json``."""
    return json.dumps({"error": error}, sort_keys=True, ensure_ascii=False)


def progress_line(phase: str, done: int, total: int) -> str:
    """``phase: done/total`` — never an empty label (a phase without a name reads ``progress``)."""
    label = phase.strip() or "progress"
    return f"{label}: {done}/{total}" if total else f"{label}: {done}"


class PhaseProgress:
    """A ``(phase, done, total)`` progress callback on standard error, shared by the commands.

    On a terminal one line is redrawn in place (and kept when a phase completes); otherwise a
    plain line is written when a phase starts, every ``interval`` seconds, and when it
    completes — always with its label and counts, never an empty label.
    """

    def __init__(self, *, interval: float = 10.0, tty: bool | None = None) -> None:
        self.interval = interval
        self.tty = sys.stderr.isatty() if tty is None else tty
        self._phase: str | None = None
        self._last = 0.0
        self._open = False

    def __call__(self, phase: str, done: int, total: int) -> None:
        now = time.monotonic()
        finished = bool(total) and done >= total
        if self.tty:
            if self._open and phase != self._phase:
                click.echo("", err=True)
            click.echo(f"\r\x1b[K{progress_line(phase, done, total)}", nl=False, err=True)
            self._open = not finished
            if finished:
                click.echo("", err=True)
        elif phase != self._phase or finished or now - self._last >= self.interval:
            click.echo(progress_line(phase, done, total), err=True)
            self._last = now
        self._phase = phase

    def close(self) -> None:
        if self.tty and self._open:
            click.echo("", err=True)
            self._open = False


@contextmanager
def phase_progress(enabled: bool) -> Iterator[PhaseProgress | None]:
    """A :class:`PhaseProgress` (``None`` when disabled), its last line closed on exit."""
    if not enabled:
        yield None
        return
    reporter = PhaseProgress()
    try:
        yield reporter
    finally:
        reporter.close()
