"""Publisher adapters behind one protocol, the HTTP policy, ingest and the replay publisher.

- :mod:`publishers.protocol` — ``enumerate(scope)`` / ``fetch(manifestation)``;
- :mod:`publishers.http` — the one HTTP policy (User-Agent, politeness, retries, caps) and
  the SPARQL 1.1 protocol client;
- :mod:`publishers.legilux`, :mod:`publishers.eurlex` — the two adapters, each registered
  through its ``plugin.py`` in :mod:`publishers.registry`;
- :mod:`publishers.ingest` — enumerate → fetch missing bodies → apply (all or nothing);
  :mod:`publishers.wiring` — the one ``run_ingest`` the CLI and the pipeline both call;
- :mod:`publishers.replay` — any corpus tree served back as the publishers, with faults.

:func:`adapter_for` builds an adapter for the live publisher or a replay URL; nothing is
created at import time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from legal.ids import Publisher

if TYPE_CHECKING:
    import httpx

    from publishers.protocol import PublisherAdapter


def adapter_for(publisher: Publisher | str, client: httpx.Client, *, replay_url: str | None = None,
                delay: float | None = None, max_attempts: int = 4, user_agent: str | None = None,
                sleep: object | None = None) -> PublisherAdapter:
    """The adapter of ``publisher`` over ``client``: live endpoints, or the replay at ``replay_url``.

    ``delay`` is the politeness delay (default 1.5 s live, 0 for a replay); a replay's host is
    the only redirect target allowed in replay mode. The adapter comes from the publisher's
    registered plugin (:mod:`publishers.registry`); an unregistered id is ``unknown_publisher``.
    """
    from publishers.registry import plugin_for

    plugin = plugin_for(publisher)
    policy: dict[str, object] = {"max_attempts": max_attempts,
                                 "politeness_delay": delay if delay is not None else (0.0 if replay_url else 1.5)}
    if user_agent:
        policy["user_agent"] = user_agent
    extra = {"sleep": sleep} if sleep is not None else {}
    return plugin.make_adapter(client, replay_url, policy, extra)


__all__ = ["adapter_for"]
