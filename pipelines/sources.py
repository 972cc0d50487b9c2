"""Turn the configured source into corpus-tree updates for one publisher.

- ``sample``: the bundled demonstration corpus is served by the replay publisher on loopback
  and ingested through the real adapters (the same code path as ``live``);
- ``replay``: a replay publisher already running at ``settings.replay_url``;
- ``fixtures``: published ``lex-corpus`` trees imported as they are (verified record by record);
- ``live``: the official endpoints.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx

from corpus_tree import CorpusTree
from corpus_tree.importer import import_published
from legal.errors import ConfigError
from legal.ids import Publisher
from pipelines.settings import LexSettings

Progress = Callable[[str, int, int], None]


def sample_root(publisher: Publisher) -> Path:
    from publishers.sample import sample_corpus_roots

    return Path(sample_corpus_roots()[publisher.value])


def sample_scope() -> Any:
    """Seeds of the EUR-Lex adapter for the sample: every sample EU work (one relation level)."""
    from publishers.eurlex import EurlexScope

    works = sample_root(Publisher.EURLEX) / "works"
    celexes = []
    for meta in sorted(works.glob("*/meta.json")):
        identifier = json.loads(meta.read_bytes())["work_identifier"]
        celexes.append(identifier.rsplit("/", 1)[-1])
    return EurlexScope.of(celexes, depth=1, scope_id="sample")


@contextlib.contextmanager
def replay_of(root: Path) -> Iterator[str]:
    """A replay publisher over ``root`` on 127.0.0.1, for the duration of the block."""
    from publishers.replay.app import ReplayPublisher
    from publishers.replay.server import serve_in_thread
    from publishers.replay.source import load_source

    replay = ReplayPublisher(sources=[load_source(root)])
    with serve_in_thread(replay.app()) as url:
        yield url


def update_tree(settings: LexSettings, publisher: Publisher, progress: Progress | None = None) -> dict[str, Any]:
    """Bring the publisher's tree up to date from the configured source; returns a report dict."""
    target = settings.tree(publisher.value)
    evidence = settings.evidence_dir or None
    if settings.source == "fixtures":
        if not settings.fixtures_dir:
            raise ConfigError("source 'fixtures' needs fixtures_dir", code="missing_fixtures_dir")
        src = Path(settings.fixtures_dir) / f"lex-corpus-{publisher.value}"
        report = import_published(src, target)
        return dict(report.to_dict())
    if settings.source == "sample":
        scope = sample_scope() if publisher is Publisher.EURLEX else None
        with replay_of(sample_root(publisher)) as url:
            return _ingest(target, evidence, publisher, url, scope, progress)
    if settings.source == "replay":
        if not settings.replay_url:
            raise ConfigError("source 'replay' needs replay_url", code="missing_replay_url")
        return _ingest(target, evidence, publisher, settings.replay_url, _scope(settings, publisher), progress)
    if settings.source == "live":
        return _ingest(target, evidence, publisher, None, _scope(settings, publisher), progress)
    raise ConfigError(f"unknown source {settings.source!r}", code="unknown_source", subject=settings.source)


def _scope(settings: LexSettings, publisher: Publisher) -> Any:
    """The configured EUR-Lex scope file, or None (the adapter's bundled reviewed scope)."""
    if publisher is not Publisher.EURLEX or not settings.eu_scope:
        return None
    from publishers.eurlex import EurlexScope

    return EurlexScope.load(settings.eu_scope)


def _ingest(target: Path, evidence: str | None, publisher: Publisher, replay_url: str | None, scope: Any,
            progress: Progress | None) -> dict[str, Any]:
    from publishers import adapter_for
    from publishers.eurlex import EurlexScope
    from publishers.ingest import ingest

    if publisher is Publisher.EURLEX and scope is None:
        scope = EurlexScope.load()
    tree = CorpusTree.open_or_create(target, evidence_dir=evidence)
    with httpx.Client() as client:
        adapter = adapter_for(publisher, client, replay_url=replay_url, delay=0.0 if replay_url else None)
        report = ingest(adapter, tree, scope=scope, progress=progress)
    return dict(report.to_dict())
