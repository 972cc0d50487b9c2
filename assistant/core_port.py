"""The assistant's view of the in-process legal core: calls, schemas, outcomes, payload reading.

The executor calls the core in process (``core.call(op_name, args) -> dict``), never over MCP
or HTTP. This module is the only place that knows the shape of the core's answers: the
``outcome`` of an answer (or the dominant outcome of a fan-out over ``publishers``), and the
few fields the deterministic reply, the cards and the evidence ledger copy. It also adapts the
core's operation registry (``serve.core.OPERATIONS``, the single source of argument schemas)
and its mounted works catalogue to the assistant's :class:`~.catalog.Catalog` and
:class:`~.subjects.CatalogueSource`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Protocol

from assistant.subjects import WorkName
from assistant.vocab import LegalOutcome, dominant_outcome
from legal.errors import ConfigError

ROW_KEYS = ("provisions", "versions", "changes", "works", "citations", "states", "hits",
            "results", "entries", "events", "items")
MAX_ROWS = 50
MAX_TEXT = 2000


class LegalCorePort(Protocol):
    """The legal core as the executor sees it."""

    def call(self, op_name: str, args: Mapping[str, Any]) -> Mapping[str, Any]: ...


def operation_schemas(operations: Mapping[str, Any]) -> dict[str, tuple[str, Mapping[str, Any]]]:
    """``name → (description, JSON schema)`` from the core's ``OPERATIONS`` registry."""
    out: dict[str, tuple[str, Mapping[str, Any]]] = {}
    for name, spec in operations.items():
        schema = _schema_of(spec)
        if schema is None:
            raise ConfigError("an operation of the legal core has no argument schema",
                              code="operation_schema_missing", subject=str(name))
        out[str(name)] = (str(getattr(spec, "description", "") or ""), schema)
    return out


def _schema_of(spec: Any) -> Mapping[str, Any] | None:
    for attribute in ("input_schema", "schema", "arguments_schema", "json_schema"):
        value = getattr(spec, attribute, None)
        if callable(value):
            value = value()
        if isinstance(value, Mapping):
            return value
    return spec if isinstance(spec, Mapping) and "properties" in spec else None


# --- reading answers --------------------------------------------------------------------------


def sections(payload: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Publisher-scoped sections of an answer (the answer itself when it is not a fan-out)."""
    inner = payload.get("publishers")
    if isinstance(inner, list) and all(isinstance(s, Mapping) for s in inner):
        return list(inner)
    return [payload]


def status_of(payload: Mapping[str, Any]) -> str:
    value = payload.get("outcome", payload.get("status"))
    return str(value) if value is not None else "invalid_request"


def outcome_of(payload: Mapping[str, Any]) -> LegalOutcome:
    """The legal outcome of one answer; an unknown status raises (fail closed)."""
    inner = payload.get("publishers")
    if isinstance(inner, list) and inner:
        return dominant_outcome([status_of(s) for s in inner if isinstance(s, Mapping)])
    return dominant_outcome([status_of(payload)])


def first(payload: Mapping[str, Any], *keys: str) -> Any:
    """The first present value of ``keys`` in the answer, its nested version, or a section."""
    for source in (payload, payload.get("version"), payload.get("document"), *sections(payload)):
        if isinstance(source, Mapping):
            for key in keys:
                value = source.get(key)
                if value not in (None, "", []):
                    return value
    return None


def rows(payload: Mapping[str, Any], keys: Iterable[str] = ROW_KEYS) -> list[Mapping[str, Any]]:
    """Row objects of an answer (over every publisher section), in answer order."""
    out: list[Mapping[str, Any]] = []
    wanted = tuple(keys)
    for section in sections(payload):
        for key in wanted:
            value = section.get(key)
            if isinstance(value, list):
                out.extend(v for v in value if isinstance(v, Mapping))
                break
    return out


def count(payload: Mapping[str, Any], *keys: str) -> int | None:
    """A count the core reported (summed over sections), else ``None``."""
    total: int | None = None
    for section in sections(payload):
        for key in keys:
            value = section.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                total = (total or 0) + value
                break
    return total


def scalar_row(row: Mapping[str, Any], limit: int = MAX_TEXT) -> dict[str, Any]:
    """A row reduced to scalar fields, strings bounded (values copied, never authored)."""
    out: dict[str, Any] = {}
    for key, value in row.items():
        if isinstance(value, str):
            out[key] = value[:limit]
        elif isinstance(value, bool | int) or value is None:
            out[key] = value
    return out


def bounded_json(payload: Any, limit: int = 8000) -> str:
    text = json.dumps(payload, ensure_ascii=False, sort_keys=True, default=str)
    return text[:limit]


# --- the catalogue accessor ---------------------------------------------------------------


#: Kinds of the core's ``CatalogueEntry`` → the subject preflight's kinds (every publisher
#: identifier, whatever its form, is an ``identifier``).
KIND_FROM_CATALOGUE: Mapping[str, str] = {
    "identifier": "identifier", "slug": "identifier", "celex": "identifier", "eli": "identifier",
    "title": "title", "short_title": "short_title", "alias": "alias",
}


class MountedCatalogue:
    """Works catalogue read through the core's public accessor ``catalogue_entries()``
    (``CatalogueEntry(work_id, kind, normalized, value)``; read-only, in memory).

    ``source`` is that accessor; a mapping of mounted indexes (each with ``catalogue_entries()``)
    is still accepted for callers written before the accessor existed.
    """

    def __init__(self, source: Callable[[], Iterable[Any]] | Mapping[str, Any]) -> None:
        if isinstance(source, Mapping):
            indexes = source
            self._entries: Callable[[], Iterable[Any]] = lambda: (
                entry for _, index in sorted(indexes.items()) for entry in index.catalogue_entries())
        else:
            self._entries = source
        self._titles: dict[str, str] = {}

    def names(self) -> Iterator[WorkName]:
        for entry in self._entries():
            kind = KIND_FROM_CATALOGUE.get(entry.kind)
            if kind is None:
                continue
            if kind == "title":
                self._keep_title(entry.work_id, entry.value)
            yield WorkName(entry.work_id, kind, entry.normalized, entry.value)

    def _keep_title(self, work: str, value: str) -> None:
        """The shortest official title names a work in replies (``Code du travail``)."""
        current = self._titles.get(work)
        if current is None or (len(value), value) < (len(current), current):
            self._titles[work] = value

    def title(self, work: str) -> str | None:
        if not self._titles:
            for _ in self.names():
                pass
        return self._titles.get(work)
