"""Ingest wiring in one place: publisher id + source → adapter, scope, tree → :func:`ingest`.

``lex ingest run`` and the pipeline's ``update_tree`` both call :func:`run_ingest`; neither
knows which publisher takes a scope or how its adapter is built (its plugin does).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from legal.ids import Publisher
from publishers.ingest import IngestReport

Progress = Callable[[str, int, int], None]
_DEFAULT = object()


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
        return ingest(adapter, target, scope=run_scope, strict=strict, progress=progress, revalidate=revalidate,
                      guard=WithdrawalGuard(allow=allow_withdrawals))


def sample_scope(publisher: Publisher | str, root: Path) -> object | None:
    """The scope that ingests exactly the works of the corpus root ``root`` (``None``: enumerate all)."""
    from publishers.registry import plugin_for

    return plugin_for(publisher).sample_scope(root)
