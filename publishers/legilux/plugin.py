"""Legilux's code, registered through :mod:`publishers.registry` (facts: :data:`legal.publishers.LEGILUX`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from legal.publishers import LEGILUX
from publishers.registry import PublisherPlugin

if TYPE_CHECKING:
    import httpx

    from publishers.protocol import PublisherAdapter
    from publishers.replay.projection import ReplayProjection


def make_adapter(client: httpx.Client, replay_url: str | None, policy: dict[str, Any],
                 extra: dict[str, Any]) -> PublisherAdapter:
    from publishers.http import HttpClient
    from publishers.legilux.adapter import LegiluxAdapter, LegiluxConfig, legilux_policy

    config = LegiluxConfig.for_replay(replay_url) if replay_url else LegiluxConfig()
    return LegiluxAdapter(HttpClient(client, legilux_policy(**policy), **extra), config)


def replay_projection() -> ReplayProjection:
    from publishers.legilux.replay import replay_projection

    return replay_projection()


PLUGIN = PublisherPlugin(facts=LEGILUX, make_adapter=make_adapter, replay_projection=replay_projection)
