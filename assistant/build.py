"""Assemble an :class:`~assistant.service.Assistant` over a mounted legal core.

The catalog comes from the core's operation registry (``serve.core.OPERATIONS``, the single
source of argument schemas), the works catalogue from the core's public accessor
``catalogue_entries()``, the model from the environment (none configured: the deterministic
rule planner serves). Nothing here runs at import time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assistant.catalog import Catalog
from assistant.core_port import LegalCorePort, MountedCatalogue, operation_schemas
from assistant.execute import CoreCall
from assistant.model import ChatTransport, ModelConfig, OpenAIChatTransport
from assistant.service import Assistant, Deadlines, thread_call
from assistant.subjects import CatalogueIndex, CatalogueSource
from legal.errors import ConfigError


def core_operations() -> Mapping[str, Any]:
    """The core's operation registry (imported lazily: the core may not be installed)."""
    try:
        from serve.core import OPERATIONS
    except ImportError as exc:
        raise ConfigError("the legal core's operation registry is not available",
                          code="core_unavailable") from exc
    operations: Mapping[str, Any] = OPERATIONS
    return operations


def catalogue_of(core: Any) -> CatalogueSource:
    """The works catalogue a mounted core exposes (read-only): its ``catalogue_entries()``."""
    entries = getattr(core, "catalogue_entries", None)
    if callable(entries):
        return MountedCatalogue(entries)
    accessor = getattr(core, "catalogue", None)
    if callable(accessor):
        source = accessor()
        if hasattr(source, "names") and hasattr(source, "title"):
            return source  # type: ignore[no-any-return]
    raise ConfigError("the legal core exposes no works catalogue", code="catalogue_unavailable")


def transport_from_env(env: Mapping[str, str]) -> ChatTransport | None:
    config = ModelConfig.from_env(env)
    return OpenAIChatTransport(config) if config is not None else None


def assistant_for_core(core: LegalCorePort, env: Mapping[str, str], *, call: CoreCall | None = None,
                       operations: Mapping[str, Any] | None = None,
                       catalogue: CatalogueSource | None = None,
                       transport: ChatTransport | None = None) -> Assistant:
    """An assistant over ``core`` (calls go through ``call`` when the shell admits them)."""
    catalog = Catalog.from_schemas(operation_schemas(operations or core_operations()))
    index = CatalogueIndex(catalogue or catalogue_of(core))
    return Assistant(call or thread_call(core), catalog, index,
                     transport if transport is not None else transport_from_env(env),
                     Deadlines.from_env(env))
