"""EUR-Lex's code, registered through :mod:`publishers.registry` (facts: :data:`legal.publishers.EURLEX`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from legal.publishers import EURLEX
from publishers.registry import PublisherPlugin

if TYPE_CHECKING:
    import httpx

    from publishers.protocol import PublisherAdapter
    from publishers.replay.projection import ReplayProjection


def make_adapter(client: httpx.Client, replay_url: str | None, policy: dict[str, Any],
                 extra: dict[str, Any]) -> PublisherAdapter:
    from publishers.eurlex.adapter import EurlexAdapter, EurlexConfig, eurlex_policy
    from publishers.http import HttpClient

    if replay_url:
        policy = {**policy, "allowed_hosts": (urlsplit(replay_url).hostname or "127.0.0.1",), "upgrade_http": False}
    config = EurlexConfig.for_replay(replay_url) if replay_url else EurlexConfig()
    return EurlexAdapter(HttpClient(client, eurlex_policy(**policy), **extra), config)


def load_scope(path: str | None) -> object:
    """The scope file at ``path`` (``lex-eu-scope/1``), or the bundled reviewed scope."""
    from publishers.eurlex.scope import EurlexScope

    return EurlexScope.load(path) if path else EurlexScope.load()


def sample_scope(root: Path) -> object:
    """Seeds for exactly the works of a corpus root (one relation level)."""
    from publishers.eurlex.scope import EurlexScope

    celexes = []
    for meta in sorted((root / "works").glob("*/meta.json")):
        identifier = json.loads(meta.read_bytes())["work_identifier"]
        celexes.append(identifier.rsplit("/", 1)[-1])
    return EurlexScope.of(celexes, depth=1, scope_id="sample")


def replay_projection() -> ReplayProjection:
    from publishers.eurlex.replay import replay_projection

    return replay_projection()


PLUGIN = PublisherPlugin(facts=EURLEX, make_adapter=make_adapter, load_scope=load_scope,
                         sample_scope=sample_scope, takes_scope_file=True,
                         replay_projection=replay_projection)
