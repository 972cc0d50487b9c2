"""What a publisher declares so that the replay can play it: its *replay projection*.

The replay publisher (:mod:`publishers.replay.app`) holds the shared machinery — sources,
record-level faults, SPARQL answering (rdflib, the fast template path, the answer cache),
request faults and body serving (ETag, ``Repr-Digest``, held-elsewhere documents, zips,
truncation). Everything that depends on *which* publisher it plays lives in that publisher's
folder, declared as one :class:`ReplayProjection` that its plugin returns
(``PublisherPlugin.replay_projection``):

- ``project(records)``: the current record dicts → a :class:`Projected` (its RDF graph, and
  whatever indexes its file routes need);
- ``sparql_path``: where its adapter sends SPARQL;
- ``file_routes``: the paths its adapter fetches bodies from, each resolved to a
  :class:`Body`, a :class:`Plain` answer (a redirect, a refusal) by the publisher's rule;
- ``clone(record, identifier)``: a same-day twin of a record (the ``same_day`` fault), with
  the official URIs derived from the identifier following it;
- ``templates``: its adapter's query templates the fast path answers without rdflib.

This module imports no publisher.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from rdflib import Graph

    from publishers.replay.fast import Template

Record = dict[str, Any]


@dataclass(frozen=True, slots=True)
class ServedFile:
    """A body the replay serves: the observation it came from."""

    file: str
    sha256: str
    size: int | None
    content_type: str


class Projected(Protocol):
    """One publisher's projection of its current records (rebuilt when a record-level fault changes)."""

    @property
    def graph(self) -> Graph: ...


@dataclass(frozen=True, slots=True)
class FileRequest:
    """What a file route sees of a request: its path parameters and headers."""

    params: Mapping[str, str]
    headers: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class Body:
    """Serve these files (one body, or the members of a zip named ``zip_key``)."""

    files: Sequence[ServedFile]
    content_type: str
    zip_key: str | None = None


@dataclass(frozen=True, slots=True)
class Plain:
    """Answer without a body from the source: a redirect, a refusal, a not-found."""

    status: int
    text: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)


FileAnswer = Body | Plain


@dataclass(frozen=True, slots=True)
class FileRoute:
    """One path the publisher serves bodies from; ``resolve`` gets ``None`` when the replay
    holds no source of this publisher."""

    path: str  # a Starlette path (``/filestore/{path:path}``)
    resolve: Callable[[Any, FileRequest], FileAnswer]


@dataclass(frozen=True)
class ReplayProjection:
    """How the replay plays one publisher (declared in the publisher's folder)."""

    project: Callable[[list[Record]], Projected]
    clone: Callable[[Mapping[str, Any], str], Record]
    sparql_path: str
    file_routes: Sequence[FileRoute] = ()
    templates: Sequence[Template] = ()
    #: the zips to build ahead of the first request: ``(zip key, members)`` of a projection
    archives: Callable[[Any], Iterable[tuple[str, Sequence[ServedFile]]]] = lambda projected: ()


# -- helpers for projections ---------------------------------------------------------------------------


def primary_observation(expression: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The latest observation without ``format`` (the primary body), if any."""
    found = [o for o in expression.get("observations", []) if o.get("format") is None]
    return found[-1] if found else None


def alt_observations(expression: Mapping[str, Any], fmt: str) -> list[Mapping[str, Any]]:
    return [o for o in expression.get("observations", []) if o.get("format") == fmt]


def twin_of(record: Mapping[str, Any], identifier: str) -> Record:
    """``record`` under another publisher version identifier, without its hash, lex id and provenance."""
    twin = {k: v for k, v in record.items() if k not in ("record_sha256", "lex_id", "provenance")}
    twin["publisher_version_identifier"] = identifier
    return twin


def rewrite_expression(e: Mapping[str, Any], old: str, new: str) -> Record:
    """An expression with ``old`` replaced by ``new`` in its page URI, text URL and the source
    URIs of its primary observations."""
    out = dict(e)
    for key in ("source_uri",):
        if isinstance(out.get(key), str):
            out[key] = out[key].replace(old, new)
    text = dict(out.get("text", {}))
    if isinstance(text.get("url"), str):
        text["url"] = text["url"].replace(old, new)
    out["text"] = text
    out["observations"] = [dict(o, source_uri=o["source_uri"].replace(old, new)) if o.get("format") is None
                           else dict(o) for o in e.get("observations", [])]
    return out


@contextlib.contextmanager
def quiet_rdflib() -> Iterator[None]:
    """rdflib 7 warns on every union-graph lookup of its own ``Dataset``; nothing to act on."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=DeprecationWarning, module="rdflib")
        yield
