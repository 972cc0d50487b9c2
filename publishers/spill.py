"""An enumeration's listing spilled to a file: its versions and their manifestations read back one at a
time (issue #13, ADR 0083).

An adapter enumerates completely before anything is planned (all or nothing), so a run used to hold
the whole listing — every :class:`corpus_tree.model.VersionInput`, its expressions and the
:class:`publishers.protocol.Manifestation` of each file to fetch — from the enumeration to the last
version applied: the part of the ingest's peak memory that grew with the corpus. :class:`SpilledListing`
writes each version, with the manifestations listed for its publisher version identifier, to an
unnamed file in the run's staging directory as soon as the adapter returns, and the run holds only
an offset per version (8 bytes). The plan, the writer's validation and its apply read the versions
back in order, each made again as an equal value and dropped once used.

Values that the versions of one work share (the ``publisher_metadata`` tuple an adapter gives every
version of a work) are pickled by reference: they stay in memory, once each, and a version read back
holds the very object (so the writer's memo of their canonical form still finds the repeats).
"""

from __future__ import annotations

import io
import os
import pickle
import tempfile
from array import array
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any, overload

from corpus_tree.model import VersionInput
from publishers.protocol import Manifestation

#: a spilled version: the version and the manifestations listed for it, in the listing's order
Spilled = tuple[VersionInput, tuple[Manifestation, ...]]


class _Pickler(pickle.Pickler):
    def __init__(self, file: IO[bytes], shared: dict[int, int]) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.shared = shared

    def persistent_id(self, obj: Any) -> int | None:
        return self.shared.get(id(obj))


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: IO[bytes], table: list[Any]) -> None:
        super().__init__(file)
        self.table = table

    def persistent_load(self, pid: Any) -> Any:
        return self.table[pid]


class SpilledListing(Sequence[VersionInput]):
    """The versions of a listing, in order, each read back from the spill file when it is reached.

    Iterating reads the versions one at a time and remembers the one last read with its
    manifestations (:meth:`manifestations_of`); indexing reads one version. Equal values, new
    objects, each time: read once per use. :meth:`close` closes the file (the staging directory it
    is in is removed with the run's)."""

    def __init__(self, versions: list[VersionInput], manifestations: Sequence[Manifestation], staging: Path) -> None:
        """Spill ``versions`` (a list the caller hands over: emptied as it is written, each version freed
        once spilled) with ``manifestations`` (each version gets those of its publisher version
        identifier, in their order) into an unnamed file in ``staging``."""
        by_pvid: dict[str, list[Manifestation]] = {}
        for m in manifestations:
            by_pvid.setdefault(m.publisher_version_identifier, []).append(m)
        self._table: list[Any] = []  # the shared values, pickled by reference
        shared: dict[int, int] = {}
        self._file = tempfile.TemporaryFile(dir=staging)  # noqa: SIM115 (closed by close(), or below)
        self._offsets = array("q", [0])
        self._current: tuple[int, VersionInput, tuple[Manifestation, ...]] | None = None
        try:
            buffer = io.BytesIO()
            versions.reverse()
            while versions:
                v = versions.pop()
                metadata = v.publisher_metadata
                if metadata and id(metadata) not in shared:
                    shared[id(metadata)] = len(self._table)
                    self._table.append(metadata)
                buffer.seek(0)
                buffer.truncate()
                _Pickler(buffer, shared).dump((v, tuple(by_pvid.get(v.publisher_version_identifier, ()))))
                del v, metadata
                self._file.write(buffer.getbuffer())
                self._offsets.append(self._offsets[-1] + buffer.tell())
            self._file.flush()
        except BaseException:
            self._file.close()
            raise

    def close(self) -> None:
        """Close the file and drop the shared values (nothing can be read after this)."""
        self._current = None
        self._table = []
        self._file.close()

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def read(self, i: int) -> Spilled:
        """Version ``i`` and its manifestations (made again from the file)."""
        start, end = self._offsets[i], self._offsets[i + 1]
        data = os.pread(self._file.fileno(), end - start, start)
        spilled: Spilled = _Unpickler(io.BytesIO(data), self._table).load()
        return spilled

    def spilled(self) -> Iterator[Spilled]:
        """Every version with its manifestations, in order, one at a time."""
        for i in range(len(self)):
            yield self.read(i)

    @overload
    def __getitem__(self, i: int) -> VersionInput: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[VersionInput]: ...

    def __getitem__(self, i: int | slice) -> VersionInput | Sequence[VersionInput]:
        if isinstance(i, slice):
            return [self.read(j)[0] for j in range(len(self))[i]]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self.read(i)[0]

    def __iter__(self) -> Iterator[VersionInput]:
        """The versions in order; the one last yielded is remembered with its manifestations."""
        try:
            for i in range(len(self)):
                v, manifestations = self.read(i)
                self._current = (i, v, manifestations)
                del manifestations
                yield v
                del v
        finally:
            self._current = None

    def manifestations_of(self, i: int, v: VersionInput) -> tuple[Manifestation, ...] | None:
        """The manifestations of ``v`` if it is the version ``i`` an iteration yielded last, else ``None``."""
        current = self._current
        if current is None or current[0] != i or current[1] is not v:
            return None
        return current[2]
