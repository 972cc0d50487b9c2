"""``LegalCore``: mounted indexes plus the operation registry, behind one ``call``.

::

    core = LegalCore.mount(index_dir, artifact={"set_id": "…"})
    core.call("as_of", {"work": "eu-eurlex:32016r0679", "date": "2021-01-01", "anchors": ["art_6"]})

``call`` validates the arguments against the operation's declaration (raising
:class:`legal.errors.RequestError` for invalid ones), then always returns a JSON-ready answer
with an outcome from :class:`legal.outcomes.Outcome` and the envelope. With no index mounted,
every operation answers ``no_corpus_mounted``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from derive.index.schema import index_file_name
from legal.errors import IndexError_, RequestError
from legal.ids import Publisher
from serve.core.envelope import Answer, CallContext, no_corpus_mounted
from serve.core.known import check_known_on
from serve.core.lanes import SearchLane
from serve.core.mount import CatalogueEntry, MountedIndex, call_deadline
from serve.core.ops.as_of import stored_texts
from serve.core.ops.diff import without_word_spans
from serve.core.registry import OPERATIONS
from serve.core.spec import OperationSpec

DEFAULT_DEADLINE_SECONDS = 5.0


class LegalCore:
    """The legal operations over a set of mounted, read-only publisher indexes."""

    def __init__(self, indexes: Mapping[str, MountedIndex] | None = None, artifact: Mapping[str, Any] | None = None,
                 *, deadline_seconds: float = DEFAULT_DEADLINE_SECONDS) -> None:
        self._indexes = MappingProxyType(dict(indexes or {}))
        self._artifact = MappingProxyType(dict(artifact or {}))
        self.deadline_seconds = deadline_seconds
        self._search_lane: SearchLane | None = None

    @classmethod
    def empty(cls) -> LegalCore:
        """A core with nothing mounted: every operation answers ``no_corpus_mounted``."""
        return cls({})

    @classmethod
    def mount(cls, index_dir: Path, artifact: Mapping[str, Any] | None = None, *,
              publishers: tuple[str, ...] | None = None, deadline_seconds: float = DEFAULT_DEADLINE_SECONDS) -> LegalCore:
        """Mount every ``<publisher>.sqlite`` of ``index_dir`` (already verified by the shell).

        ``publishers`` restricts and requires: each named publisher must be present and fit.
        An unfit file raises :class:`legal.errors.IndexError_` rather than mount half a corpus.
        """
        wanted = publishers or tuple(p.value for p in Publisher)
        indexes: dict[str, MountedIndex] = {}
        for publisher in wanted:
            path = index_dir / index_file_name(Publisher.parse(publisher).value)
            if not path.is_file():
                if publishers:
                    raise IndexError_("required index is missing", code="index_missing", subject=path.name)
                continue
            index = MountedIndex.open(path)
            if index.publisher.value != publisher:
                raise IndexError_("index file names another publisher", code="index_unfit", subject=path.name)
            indexes[publisher] = index
        return cls(indexes, artifact, deadline_seconds=deadline_seconds)

    @property
    def publishers(self) -> tuple[str, ...]:
        return tuple(sorted(self._indexes))

    @property
    def indexes(self) -> Mapping[str, MountedIndex]:
        """The mounted indexes by publisher id (read-only)."""
        return self._indexes

    def catalogue_entries(self) -> Iterator[CatalogueEntry]:
        """Every stored name of every held work, publisher by publisher (ids in order).

        The stable catalogue accessor for name readers such as the assistant's subject
        preflight: ``CatalogueEntry(work_id, kind, normalized, value)`` with ``kind`` one of
        ``identifier, slug, celex, eli, title, short_title, alias`` (``docs/legal-core.md`` §6).
        """
        for publisher in self.publishers:
            yield from self._indexes[publisher].catalogue_entries()

    @property
    def search_lane(self) -> SearchLane | None:
        """The optional lane ``retrieval_mode: hybrid`` searches fuse with (``serve.core.lanes``)."""
        return self._search_lane

    def attach_search_lane(self, lane: SearchLane | None) -> None:
        """Attach (or, with ``None``, detach) the optional search lane of this core."""
        self._search_lane = lane

    @property
    def artifact(self) -> Mapping[str, Any]:
        return self._artifact

    def stamps(self) -> dict[str, dict[str, str]]:
        return {k: dict(v.stamp) for k, v in sorted(self._indexes.items())}

    @staticmethod
    def operation(name: str) -> OperationSpec:
        spec = OPERATIONS.get(name)
        if spec is None:
            raise RequestError(f"unknown operation {name!r}", code="unknown_operation", subject=name)
        return spec

    def call(self, name: str, args: Mapping[str, Any] | None = None) -> Answer:
        """Validate ``args`` for operation ``name`` and answer it (see the module docstring)."""
        spec = self.operation(name)
        checked = spec.validate(args if args is not None else {})
        if not self._indexes:
            return no_corpus_mounted(name, self._artifact)
        known_on = checked.get("known_on")
        if known_on is not None:
            check_known_on(known_on, self.horizon)
        ctx = CallContext(operation=name, indexes=self._indexes, artifact=self._artifact,
                          deadline_seconds=self.deadline_seconds, search_lane=self._search_lane)
        with call_deadline(self.deadline_seconds):
            out = spec.handler(ctx, checked)
        if known_on is not None:
            out["known_on"] = known_on
        return out

    def diff_without_word_spans(self, args: Mapping[str, Any]) -> Answer:
        """``call("diff", args)`` leaving out the changed provisions' word spans (no ``words``; see
        :func:`serve.core.ops.diff.without_word_spans`): for a shell that shows its own comparison
        of the two texts (the web diff page). Not an operation: the catalogue is unchanged."""
        with without_word_spans():
            return self.call("diff", args)

    def stored_texts(self, publisher: str, shas: Sequence[str]) -> dict[str, str]:
        """The texts among ``shas`` that ``publisher``'s index stores (``{}``: no such index), within
        the core's deadline: for shells that hold an answer's text hashes (not an operation:
        :func:`serve.core.ops.as_of.stored_texts`)."""
        index = self._indexes.get(publisher)
        if index is None:
            return {}
        with call_deadline(self.deadline_seconds):
            return stored_texts(index, shas, self.deadline_seconds)

    @property
    def horizon(self) -> str:
        """The transaction-time horizon: the earliest build day of the mounted indexes (``known_on``
        may not be later: nothing after it was recorded)."""
        return min(index.built_date for index in self._indexes.values())

    def close(self) -> None:
        for index in self._indexes.values():
            index.close()

    def __enter__(self) -> LegalCore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
