"""Publisher adapters behind one protocol, the HTTP policy, ingest and the replay publisher.

- :mod:`publishers.protocol` — ``enumerate(scope)`` / ``fetch(manifestation)``;
- :mod:`publishers.http` — the one HTTP policy (User-Agent, politeness, retries, caps) and
  the SPARQL 1.1 protocol client;
- :mod:`publishers.legilux`, :mod:`publishers.eurlex` — the two adapters;
- :mod:`publishers.ingest` — enumerate → fetch missing bodies → apply (all or nothing);
- :mod:`publishers.replay` — any corpus tree served back as the publishers, with faults.

:func:`adapter_for` builds an adapter for the live publisher or a replay URL; nothing is
created at import time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from legal.ids import Publisher

if TYPE_CHECKING:
    import httpx

    from publishers.protocol import PublisherAdapter


def adapter_for(publisher: Publisher | str, client: httpx.Client, *, replay_url: str | None = None,
                delay: float | None = None, max_attempts: int = 4, user_agent: str | None = None,
                sleep: object | None = None) -> PublisherAdapter:
    """The adapter of ``publisher`` over ``client``: live endpoints, or the replay at ``replay_url``.

    ``delay`` is the politeness delay (default 1.5 s live, 0 for a replay); a replay's host is
    the only redirect target allowed in replay mode.
    """
    from publishers.eurlex import EurlexAdapter, EurlexConfig, eurlex_policy
    from publishers.http import HttpClient
    from publishers.legilux import LegiluxAdapter, LegiluxConfig, legilux_policy

    pub = Publisher.parse(publisher) if isinstance(publisher, str) else publisher
    policy: dict[str, object] = {"max_attempts": max_attempts,
                                 "politeness_delay": delay if delay is not None else (0.0 if replay_url else 1.5)}
    if user_agent:
        policy["user_agent"] = user_agent
    extra = {"sleep": sleep} if sleep is not None else {}
    if pub is Publisher.LEGILUX:
        lu = LegiluxConfig.for_replay(replay_url) if replay_url else LegiluxConfig()
        return LegiluxAdapter(HttpClient(client, legilux_policy(**policy), **extra), lu)  # type: ignore[arg-type]
    if replay_url:
        policy.update(allowed_hosts=(urlsplit(replay_url).hostname or "127.0.0.1",), upgrade_http=False)
    eu = EurlexConfig.for_replay(replay_url) if replay_url else EurlexConfig()
    return EurlexAdapter(HttpClient(client, eurlex_policy(**policy), **extra), eu)  # type: ignore[arg-type]


__all__ = ["adapter_for"]
