"""``lex serve``: verify the artifact set, mount it read-only, serve HTTP, MCP and web pages.

This is the composition root of the server: ``serve`` never imports the assistant or the
hybrid lane; :func:`assistant_extension` hands the assistant's web boundary to
``serve.app.create_app`` and :func:`hybrid_hook` activates the hybrid lane after each mount
(only with a signed, passing benchmark report named by ``LEX_HYBRID_REPORT``).

The shared mount options (``--index-dir`` or ``--release-root``, ``--trust-root``,
``--unsigned-dev``) are also used by ``lex mcp``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from cli.output import json_option
from legal.errors import ConfigError
from serve.admission import AdmissionLimits

#: glibc malloc arenas of ``lex serve``: each worker thread otherwise gets an arena of its own
#: (up to eight per core), whose freed memory stays mapped and counts in the resident set.
DEFAULT_MALLOC_ARENAS = 1

TRUST_ROOTS_ENV = "LEX_TRUST_ROOTS"
#: Executing slots per worker when there are several (one interpreter lock each): on the full-corpus
#: mix, 2 per worker used the same CPU per request as 3 and ~10 MB less memory in all.
WORKER_EXECUTING = 2
#: MiB of compressed answers and pages each worker keeps for repeated questions (``serve.answers``):
#: about five times as much JSON. The full-corpus served mix (162 distinct requests) keeps ~1.8 MB a
#: worker; a full budget adds about its size again to each worker's resident set (heap), so 3 MiB
#: keeps the two-worker PSS sum under 150 MB (148 MB with 4 MiB full).
DEFAULT_ANSWER_CACHE_MB = 3.0


def mount_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The options that say what to verify and mount, and which keys may sign it."""
    options = [
        click.option("--index-dir", type=click.Path(path_type=Path, file_okay=False),
                     help="An artifact set directory (indexes plus statement.dsse.json)."),
        click.option("--release-root", type=click.Path(path_type=Path, file_okay=False),
                     help="A release root; its current pointer names the artifact set."),
        click.option("--trust-root", "trust_roots", multiple=True,
                     type=click.Path(path_type=Path, dir_okay=False, exists=True),
                     help=f"A pinned public key (PEM); repeatable. Default: ${TRUST_ROOTS_ENV}."),
        click.option("--unsigned-dev", is_flag=True,
                     help="Development only: mount an unsigned index directory without verification."),
        click.option("--require-publisher", "required", multiple=True,
                     help="A publisher that must be mounted for /readyz to answer 200; repeatable."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def trust_roots(given: tuple[Path, ...]) -> tuple[Path, ...]:
    """The given trust roots, else those of ``$LEX_TRUST_ROOTS`` (paths separated by ``os.pathsep``)."""
    if given:
        return given
    value = os.environ.get(TRUST_ROOTS_ENV, "")
    return tuple(Path(part) for part in value.split(os.pathsep) if part)


def assistant_extension() -> Any:
    """The assistant's web boundary as a :class:`serve.app.Extension` (``POST /ask``, the ask panel)."""
    from assistant import web
    from serve.app import Extension

    return Extension(routes=tuple(web.routes), templates=(web.TEMPLATES,), self_bounded=web.SELF_BOUNDED_PATHS,
                     work_panel=web.PANEL_TEMPLATE)


#: The variable naming the hybrid lane's benchmark report (``hybrid.activate.REPORT_ENV``).
HYBRID_REPORT_ENV = "LEX_HYBRID_REPORT"


def hybrid_configured() -> bool:
    """Whether ``LEX_HYBRID_REPORT`` names a report (else the hybrid lane is never activated)."""
    return bool(os.environ.get(HYBRID_REPORT_ENV))


def hybrid_hook(core: Any, index_dir: Path) -> object:
    """Decide the hybrid lane of a freshly mounted core (``LEX_HYBRID_REPORT``); never raises.

    Without the variable nothing is decided and the hybrid lane (numpy and the vector store, ~11 MB
    per process) is not even imported."""
    if not hybrid_configured():
        return None
    from hybrid.activate import activate_from_env

    return activate_from_env(core, index_dir)


def mount_config(index_dir: Path | None, release_root: Path | None, roots: tuple[Path, ...],
                 unsigned_dev: bool, required: tuple[str, ...]) -> Any:
    """A :class:`serve.mount.MountConfig`, refusing inconsistent combinations up front."""
    from serve.mount import MountConfig

    if (index_dir is None) == (release_root is None):
        raise ConfigError("give exactly one of --index-dir or --release-root", code="no_artifact_source")
    if unsigned_dev and release_root is not None:
        raise ConfigError("--unsigned-dev applies to --index-dir only", code="unsigned_release_root")
    if release_root is not None and not release_root.is_dir():
        raise ConfigError("the release root does not exist (create it with `lex release candidate`)",
                          code="release_root_missing", subject=release_root.name)
    return MountConfig(index_dir=index_dir, release_root=release_root, trust_roots=trust_roots(roots),
                       unsigned_dev=unsigned_dev, required_publishers=tuple(p.lower() for p in required))


@click.command("serve")
@mount_options
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", default=8080, show_default=True, type=click.IntRange(0, 65535), help="0 picks a free port.")
@click.option("--deadline", default=10.0, show_default=True, type=click.FloatRange(0.1, 300),
              help="Seconds every request may take.")
@click.option("--client-rate", default=120.0, show_default=True, type=click.FloatRange(0),
              help="Requests per minute per client (0: no per-client limit).")
@click.option("--global-rate", default=600.0, show_default=True, type=click.FloatRange(0),
              help="Requests per minute in total (0: no global limit).")
@click.option("--trust-forwarded", is_flag=True, help="Charge requests to the last X-Forwarded-For entry.")
@click.option("--allowed-host", "allowed_hosts", multiple=True,
              help="A public Host (name:port) accepted by /mcp besides loopback; repeatable.")
@click.option("--reverify-interval", default=300.0, show_default=True, type=click.FloatRange(0),
              help="Seconds between re-verifications of the mounted set (0: only on SIGHUP). A mismatch unmounts it.")
@click.option("--header-timeout", default=10.0, show_default=True, type=click.FloatRange(0.1, 300),
              help="Seconds a client may take to send a request's headers.")
@click.option("--executing", default=None, type=click.IntRange(1, 64),
              help="Legal-core calls (and page renderings) running at once per worker; more wait in the admission "
                   f"queue. Default: {AdmissionLimits.executing} with one worker, {WORKER_EXECUTING} per worker with several.")
@click.option("--workers", default=None, type=click.IntRange(1, 64),
              help="Worker processes sharing the listening socket (default: the cores this process may use). "
                   "Each verifies and mounts the set itself; 1 serves from this process.")
@click.option("--answer-cache", "answer_cache_mb", default=DEFAULT_ANSWER_CACHE_MB, show_default=True,
              type=click.FloatRange(0, 1024),
              help="MiB of compressed answers each worker keeps for questions asked again of the same mounted set "
                   "(0: none kept; every call runs the legal core).")
@click.option("--malloc-arenas", default=DEFAULT_MALLOC_ARENAS, show_default=True, type=click.IntRange(0, 64),
              help="glibc malloc arenas of the process (0: glibc's default, eight per core).")
@click.option("--log-level", default="warning", show_default=True,
              type=click.Choice(["critical", "error", "warning", "info", "debug"]))
@json_option
def group(index_dir: Path | None, release_root: Path | None, trust_roots: tuple[Path, ...], unsigned_dev: bool,
          required: tuple[str, ...], host: str, port: int, deadline: float, client_rate: float,
          global_rate: float, trust_forwarded: bool, allowed_hosts: tuple[str, ...], reverify_interval: float,
          header_timeout: float, executing: int | None, workers: int | None, answer_cache_mb: float,
          malloc_arenas: int, log_level: str,
          as_json: bool) -> None:
    """Verify the artifact set, mount it read-only, and serve the API, MCP and web pages.

    Nothing is opened before the signature and every file hash are verified against the
    pinned trust roots. A refusal keeps the server up with nothing mounted: every operation
    answers no_corpus_mounted (with the reason) and /readyz answers 503 with the reason. The
    mounted set is re-verified every --reverify-interval seconds and on SIGHUP; a mismatch
    unmounts it. A missing --release-root refuses to start. With --json, the announcement is one
    line {"url", "api", "openapi", "mcp", "readyz"} on stdout.

    \b
    Example:
      lex serve --release-root var/releases --trust-root keys/release-signing.pub.pem
      lex serve --index-dir var/index --unsigned-dev --port 8080
    """
    from serve.app import (
        AppSettings,
        create_app,
        limit_malloc_arenas,
        new_state,
        run,
        run_workers,
        warm_templates,
    )
    from serve.workers import default_workers

    workers = workers or default_workers()
    executing = executing_slots(executing, workers)
    if malloc_arenas:
        limit_malloc_arenas(malloc_arenas)
    config = mount_config(index_dir, release_root, trust_roots, unsigned_dev, required)
    limits = worker_limits(executing, client_rate, global_rate, workers)
    settings = AppSettings(limits=limits, deadline=deadline, trust_forwarded=trust_forwarded,
                           allowed_hosts=allowed_hosts, reverify_interval=reverify_interval or None,
                           header_timeout=header_timeout)
    if unsigned_dev:
        click.echo("warning: --unsigned-dev: the index is NOT verified; every page says so.", err=True)

    def announce(url: str) -> None:
        if as_json:
            click.echo(json.dumps({"url": url, "api": f"{url}api/v1", "openapi": f"{url}openapi.json",
                                   "mcp": f"{url}mcp", "readyz": f"{url}readyz"}, sort_keys=True))
            return
        click.echo(f"lex serving on {url}  (API {url}api/v1, OpenAPI {url}openapi.json, MCP {url}mcp, "
                   f"readiness {url}readyz)")

    extension = assistant_extension()  # imported before any fork: the workers share its code
    if workers > 1:  # before any fork, what every worker needs anyway, so that they share it:
        warm_templates((extension,))  # the compiled page templates
        if hybrid_configured():
            import hybrid.activate  # noqa: F401  - the mount hook's hybrid lane

    def make_app(_worker: int = 0) -> Any:
        state = new_state(config, limits, mount_hooks=(hybrid_hook,), answer_cache=int(answer_cache_mb * (1 << 20)))
        return create_app(state, settings, extensions=(extension,))

    if workers == 1:
        run(make_app(), host=host, port=port, announce=announce, log_level=log_level, header_timeout=header_timeout)
        return
    run_workers(make_app, workers=workers, host=host, port=port, announce=announce, log_level=log_level,
                header_timeout=header_timeout)


def executing_slots(given: int | None, workers: int) -> int:
    """The executing slots of each worker: as given, else 3 for one process and 2 per worker for several."""
    return given or (AdmissionLimits.executing if workers == 1 else WORKER_EXECUTING)


def worker_limits(executing: int, client_rate: float, global_rate: float, workers: int) -> AdmissionLimits:
    """The admission limits of one worker: the global rate shared out over the workers (each allows
    1/N of it), the per-client rate and the executing slots per worker."""
    share = global_rate / max(1, workers)
    return AdmissionLimits(executing=executing, client_per_minute=client_rate, client_burst=max(client_rate, 1.0),
                           global_per_minute=share, global_burst=max(share, 1.0))
