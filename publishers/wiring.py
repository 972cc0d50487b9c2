"""Ingest wiring in one place: publisher id + source → adapter, scope, tree → :func:`ingest`.

``lex ingest run`` and the pipeline's ``update_tree`` both call :func:`run_ingest`; neither
knows which publisher takes a scope or how its adapter is built (its plugin does).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from legal.errors import PublisherError
from legal.ids import Publisher
from publishers.ingest import IngestReport

Progress = Callable[[str, int, int], None]
_DEFAULT = object()

if TYPE_CHECKING:
    import httpx


def run_ingest(publisher: Publisher | str, tree: str | Path, *, replay_url: str | None = None,
               scope: object | None = _DEFAULT, scope_path: str | None = None, evidence_dir: str | None = None,
               delay: float | None = None, max_attempts: int = 4, user_agent: str | None = None,
               strict: bool = True, progress: Progress | None = None, revalidate: bool = False,
               allow_withdrawals: int | None = None) -> IngestReport:
    """One ingest of ``publisher`` into the corpus tree at ``tree`` (created if missing).

    ``replay_url`` selects a replay publisher (else the live endpoints). The run scope is
    ``scope`` when given, else the scope file ``scope_path``, else the publisher's default
    (a publisher without scopes refuses a scope file with ``invalid_option``).
    ``revalidate`` asks every held body again (conditional requests); ``allow_withdrawals``
    lets this run withdraw up to that many versions past the guard (see
    :class:`corpus_tree.writer.WithdrawalGuard`).
    """
    import httpx

    from corpus_tree import CorpusTree
    from corpus_tree.writer import WithdrawalGuard
    from publishers import adapter_for
    from publishers.ingest import ingest
    from publishers.registry import load_scope, plugin_for

    pub = Publisher.parse(publisher)
    plugin_for(pub)
    run_scope = load_scope(pub, scope_path) if scope is _DEFAULT else scope
    target = CorpusTree.open_or_create(Path(tree), evidence_dir=evidence_dir)
    with httpx.Client() as client:
        adapter = adapter_for(pub, client, replay_url=replay_url, delay=delay, max_attempts=max_attempts,
                              user_agent=user_agent)
        try:
            return ingest(adapter, target, scope=run_scope, strict=strict, progress=progress, revalidate=revalidate,
                          guard=WithdrawalGuard(allow=allow_withdrawals))
        except PublisherError as exc:
            if replay_url and exc.code == "enumeration_http_failure" and "HTTP 404" in exc.message:
                raise replay_mismatch(pub, replay_url, client) from exc
            raise


def replay_mismatch(publisher: Publisher, replay_url: str, client: httpx.Client) -> PublisherError:
    """The typed error for a replay publisher that serves no corpus of ``publisher`` (its SPARQL
    endpoint answered 404), naming the publishers it does serve: those whose endpoint answers a
    query-less request with 400 ("missing query") rather than 404."""
    import httpx

    from publishers.registry import plugins

    served = []
    for plugin in plugins().values():
        if plugin.replay_projection is None or plugin.facts.id == publisher.value:
            continue
        try:
            answer = client.get(replay_url.rstrip("/") + plugin.replay_projection().sparql_path, timeout=5)
        except httpx.HTTPError:
            continue
        if answer.status_code == 400:
            served.append(str(plugin.facts.id))
    return PublisherError(
        f"the replay publisher at {replay_url} serves no {publisher.value} corpus (it serves "
        f"{', '.join(sorted(served)) or 'no other publisher'}); start `lex replay serve` with a "
        f"--corpus tree of {publisher.value}, or ingest --publisher {' / '.join(sorted(served)) or '…'}",
        code="replay_publisher_mismatch", subject=publisher.value)


def sample_scope(publisher: Publisher | str, root: Path) -> object | None:
    """The scope that ingests exactly the works of the corpus root ``root`` (``None``: enumerate all)."""
    from publishers.registry import plugin_for

    return plugin_for(publisher).sample_scope(root)
