"""The one place publishers register their code: adapter factory, typed scope, sample seeds,
replay projection.

A publisher's *facts* (id, jurisdiction, conventions, identifier rules, profile ids) live in
:mod:`legal.publishers`; its *code* lives in its own folder (``publishers/legilux/``,
``publishers/eurlex/``) and is declared there as one :class:`PublisherPlugin` constant
(``plugin.PLUGIN``). This module maps publisher id → plugin. The built-ins are imported and
registered on first use, in a fixed order; nothing happens at import time. An id without a
plugin is ``IdentityError(code="unknown_publisher")``.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from legal.errors import ConfigError, IdentityError, PublisherError
from legal.ids import Publisher
from legal.publishers import PublisherFacts
from legal.publishers import registry as facts_registry

if TYPE_CHECKING:
    import httpx

    from publishers.protocol import PublisherAdapter
    from publishers.replay.projection import ReplayProjection

#: ``(client, replay_url, policy, extra)`` → adapter; ``policy`` holds the HTTP policy options
#: (``max_attempts``, ``politeness_delay``, ``user_agent``), ``extra`` the client extras (``sleep``).
AdapterFactory = Callable[["httpx.Client", "str | None", dict[str, Any], dict[str, Any]], "PublisherAdapter"]


def _no_scope(path: str | None) -> None:
    return None


def _no_sample_scope(root: Path) -> None:
    return None


@dataclass(frozen=True)
class PublisherPlugin:
    """A publisher's code, declared once in its own folder."""

    facts: PublisherFacts
    make_adapter: AdapterFactory
    #: the typed scope of one run from a scope file (``None``: the publisher's default scope);
    #: a publisher without scopes refuses a file (see :func:`load_scope`)
    load_scope: Callable[[str | None], object | None] = _no_scope
    #: the scope that ingests exactly the works of a bundled/replayed corpus root
    sample_scope: Callable[[Path], object | None] = _no_sample_scope
    takes_scope_file: bool = False
    #: how the replay publisher plays it (``None``: the replay refuses its sources with
    #: ``replay_unsupported_publisher``); a loader, so that rdflib loads only when replaying
    replay_projection: Callable[[], ReplayProjection] | None = None


BUILT_IN_PLUGINS = ("publishers.legilux.plugin", "publishers.eurlex.plugin")

_PLUGINS: dict[str, PublisherPlugin] | None = None
_LOCK = threading.Lock()


def _plugins() -> dict[str, PublisherPlugin]:
    global _PLUGINS
    if _PLUGINS is None:
        with _LOCK:
            if _PLUGINS is None:
                fresh: dict[str, PublisherPlugin] = {}
                for module in BUILT_IN_PLUGINS:
                    plugin: PublisherPlugin = importlib.import_module(module).PLUGIN
                    facts_registry().register(plugin.facts)
                    fresh[plugin.facts.id] = plugin
                _PLUGINS = fresh
    return _PLUGINS


def register_plugin(plugin: PublisherPlugin) -> PublisherPlugin:
    """Register a publisher: its facts (in :mod:`legal.publishers`) and its code (here)."""
    facts_registry().register(plugin.facts)
    plugins = _plugins()
    with _LOCK:
        plugins[plugin.facts.id] = plugin
    return plugin


def unregister_plugin(publisher_id: str) -> None:
    """Remove a registered (non built-in) publisher: facts and code."""
    facts_registry().unregister(publisher_id)
    with _LOCK:
        _plugins().pop(publisher_id, None)


def plugin_for(publisher: Publisher | str) -> PublisherPlugin:
    """The plugin of a registered publisher; ``unknown_publisher`` otherwise."""
    plugins = _plugins()
    key = str(publisher).strip().lower()
    found = plugins.get(key)
    if found is None:
        raise IdentityError(f"unknown publisher id {str(publisher)!r}", code="unknown_publisher",
                            subject=str(publisher))
    return found


def plugins() -> Mapping[str, PublisherPlugin]:
    return dict(_plugins())


def replay_projection(publisher: Publisher | str) -> ReplayProjection:
    """How the replay plays ``publisher``; ``replay_unsupported_publisher`` if its plugin declares none."""
    plugin = plugin_for(publisher)
    if plugin.replay_projection is None:
        raise PublisherError(f"the replay publisher has no projection for {plugin.facts.id}",
                             code="replay_unsupported_publisher", subject=plugin.facts.id)
    return plugin.replay_projection()


def load_scope(publisher: Publisher | str, path: str | None) -> object | None:
    """The run scope of ``publisher``: its default (``path is None``) or the file at ``path``."""
    plugin = plugin_for(publisher)
    if path and not plugin.takes_scope_file:
        raise ConfigError(f"--scope is not used by {plugin.facts.id} (no scope file)", code="invalid_option",
                          subject=plugin.facts.id)
    return plugin.load_scope(path)
